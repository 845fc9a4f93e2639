"""`parley experiment astra`: the seed's table 1, λ heatmap and a baseline tournament for ASTRA."""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from contextlib import AbstractContextManager
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer

from parley.cli.app import experiment_app
from parley.cli.batch import Batch, QuietOption, SchedulerOption, StoreOption
from parley.cli.common import console, fail
from parley.cli.extras import require_extra
from parley.cli.options import (
    MAX_COUNT,
    MAX_JOBS,
    AllowFallbackOption,
    BudgetSecondsOption,
    BudgetTokensOption,
    LLMConfigOption,
    LLMOption,
    LLMStrictOption,
    RecordOption,
    ReplayOption,
)
from parley.errors import ParleyError

if TYPE_CHECKING:
    from rich.progress import Progress

    from parley.experiments.astra.llm import PlayedRun, RoleChoice
    from parley.experiments.astra.runs import RunRecord, RunSpec
    from parley.experiments.task_store import TaskStore
    from parley.llm.config import LLMRuntime

AstraRoleOption = Annotated[
    list[str] | None,
    typer.Option(
        "--llm-role",
        help="An ASTRA role a model plays: ROLE, or ROLE=SPEC for its own endpoint (repeatable; "
        "astra_interpreter, astra_parameters, astra_partner, astra_tactic, or their stage names; "
        "default: all four). The others play their rule twins.",
    ),
]


@experiment_app.command("astra")
def astra_experiment(
    runs: Annotated[
        int | None,
        typer.Option(
            "--runs",
            min=1,
            max=MAX_COUNT,
            help="Runs per table-1 cell: the split's first N seeds (default: all 100 of the split).",
        ),
    ] = None,
    jobs: Annotated[
        int, typer.Option("--jobs", min=1, max=MAX_JOBS, help="Worker processes (default: CPU count).")
    ] = os.cpu_count() or 1,
    out: Annotated[Path, typer.Option("--out", help="Markdown report to write.")] = Path(
        "docs/results/astra.md"
    ),
    tournament_seeds: Annotated[
        int,
        typer.Option(
            "--tournament-seeds",
            min=0,
            max=MAX_COUNT,
            help="Sessions per scenario x baseline pair: the split's first N seeds (0: skip).",
        ),
    ] = 10,
    split: Annotated[
        str | None,
        typer.Option(
            "--split",
            help="Seeds to play: evaluation (5000-5099, never tuned on; the default) or tuning "
            "(0-99, in-sample figures).",
        ),
    ] = None,
    tune: Annotated[
        bool,
        typer.Option(
            "--tune",
            help="Grid-search every P1 system's free parameter on the tuning seeds and write --tuned "
            "(no report).",
        ),
    ] = False,
    tuned_file: Annotated[
        Path | None,
        typer.Option(
            "--tuned",
            help="Tuned-values file to write (--tune) or read (default: the committed "
            "src/parley/experiments/astra/tuned.json).",
        ),
    ] = None,
    scheduler: SchedulerOption = None,
    store: StoreOption = None,
    quiet: QuietOption = False,
    llm: LLMOption = None,
    llm_role: AstraRoleOption = None,
    llm_config: LLMConfigOption = None,
    record: RecordOption = None,
    replay: ReplayOption = None,
    llm_budget_seconds: BudgetSecondsOption = None,
    llm_budget_tokens: BudgetTokensOption = None,
    llm_strict: LLMStrictOption = False,
    allow_fallback: AllowFallbackOption = False,
) -> None:
    """ASTRA, its ablation and a time-based baseline vs base, greedy and fair partners on random
    CaSiNo games, plus a tournament; parameters tuned on the tuning seeds (--tune).

    With --llm (or --replay) a model plays ASTRA's LLM stages in every session of the astra system
    (agent astra-llm; --llm-role chooses the stages); those sessions run in this process, one at a
    time, and the report gains an "LLM roles" section. Exits with 3 when a role never once decided
    with its model, unless --allow-fallback.
    """
    from parley.cli.llm import any_llm_flag
    from parley.experiments.astra.config import SEED_SPLITS, TUNED_FILE

    flags: dict[str, Any] = {"llm": llm, "llm_role": llm_role, "llm_config": llm_config}
    flags |= {"record": record, "replay": replay, "llm_budget_seconds": llm_budget_seconds}
    flags |= {"llm_budget_tokens": llm_budget_tokens, "llm_strict": llm_strict}
    flags["allow_fallback"] = allow_fallback
    if tune and any_llm_flag(flags):
        fail("--tune searches the rule-based systems' parameters; drop the LLM flags", code=2)

    if split is not None and split not in SEED_SPLITS:
        fail(f"unknown split {split!r}; expected one of {', '.join(SEED_SPLITS)}", code=2)
    if tune and split not in (None, "tuning"):
        fail("--tune runs on the tuning seeds only; drop --split or give --split tuning", code=2)
    chosen_split = "tuning" if tune else split or "evaluation"
    if runs is not None and runs > len(SEED_SPLITS[chosen_split]):
        fail(f"--runs must be at most {len(SEED_SPLITS[chosen_split])} for the {chosen_split} split", code=2)
    tuned_path = tuned_file or TUNED_FILE
    if tune:
        _tune(runs, jobs, tuned_path, tuned_file is not None)
    else:
        batch = Batch("astra", out, jobs, scheduler, store, quiet)
        _evaluate(chosen_split, runs, batch, tournament_seeds, tuned_path, tuned_file is not None, flags)


def _progress(label: str) -> Progress:
    """A progress bar labelled label (rich imported only when a run starts)."""
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

    columns = (TextColumn(label), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn())
    return Progress(*columns, console=console)


def _tune(runs: int | None, jobs: int, path: Path, named: bool) -> None:
    """Run the grid search on the tuning seeds and write the tuned-values file."""
    from parley.cli.common import check_writable
    from parley.experiments.astra.config import save_tuned, split_seeds
    from parley.experiments.astra.tuning import tune, tuning_specs

    check_writable(path, "write the tuned values")
    command = "parley experiment astra --tune" + (f" --runs {runs}" if runs is not None else "")
    command += f" --jobs {jobs}" + (f" --tuned {path}" if named else "")
    try:
        seeds = split_seeds("tuning", runs)
        with _progress("astra tuning") as progress:
            task = progress.add_task("runs", total=len(tuning_specs(seeds)))
            config = tune(
                seeds,
                command=command,
                jobs=jobs,
                on_progress=lambda done, _total: progress.update(task, completed=done),
            )
        save_tuned(config, path)
    except ParleyError as error:
        fail(str(error))
    except OSError as error:
        fail(f"cannot write the tuned values {path}: {error.strerror or error}", code=1)
    chosen = ", ".join(f"{p.system} {p.parameter}={p.chosen:g}" for p in config.parameters)
    console.print(f"wrote {path} ({chosen})")


def _evaluate(
    split: str,
    runs: int | None,
    batch: Batch,
    tournament_seeds: int,
    tuned: Path,
    named: bool,
    flags: Mapping[str, Any],
) -> None:
    """Play the split with the tuned values (through the batch layer, resumable from its store) and
    write the report, CSV and figure; with LLM flags a model plays ASTRA's stages."""
    out = batch.out
    require_extra("plot", "parley experiment astra")
    from parley.cli.common import check_writable
    from parley.experiments.astra import plan_runs, write_csv, write_report
    from parley.experiments.astra.config import load_tuned, split_seeds

    csv_target = out.with_name(out.stem + "_runs.csv") if out.name else out
    check_writable(out, "write the report")
    check_writable(csv_target, "write the runs")
    played: list[PlayedRun] | None = None
    allow_fallback = False
    try:
        config = load_tuned(tuned)
        seeds = split_seeds(split, runs)
        specs = plan_runs(
            seeds=seeds, tuned=config, tournament_seeds=tournament_seeds, tournament=tournament_seeds > 0
        )
        tuned_values = {f"{p.system}.{p.parameter}": p.chosen for p in config.parameters}
        settings = {"split": split, "runs": runs, "tournament_seeds": tournament_seeds, "tuned": tuned_values}
        command = f"parley experiment astra --split {split}" + (f" --runs {runs}" if runs is not None else "")
        command += f" --jobs {batch.jobs} --tournament-seeds {tournament_seeds}" + (
            f" --tuned {tuned}" if named else ""
        )
        with _astra_llm(flags) as llm:
            if llm is None:
                records = _play_rules(specs, batch, batch.open_store(settings))
                llm_lines: list[str] = []
            else:
                played, llm_lines = _play_llm(specs, batch, settings, *llm)
                records = [run.record for run in played]
                command += _llm_command(llm[1], flags)
                allow_fallback = llm[0].settings.allow_fallback
        csv_path = write_csv(records, csv_target, extra=_csv_columns(played))
        report = write_report(records, out, command=command, tuned=config, split=split, llm_section=llm_lines)
    except ParleyError as error:
        fail(str(error))
    except OSError as error:
        fail(f"cannot write the report {out}: {error.strerror or error}", code=1)
    batch.finish()
    console.print(f"wrote {report} and {csv_path} ({len(records)} sessions)")
    if played is not None:
        _report_fallbacks(played, allow=allow_fallback)


def _play_rules(specs: Sequence[RunSpec], batch: Batch, run_store: TaskStore) -> list[RunRecord]:
    """Every session rule-played, in --jobs processes or on the scheduler."""
    from parley.experiments.astra import run_experiment

    return batch.run(
        len(specs),
        lambda progress: run_experiment(
            specs, jobs=batch.jobs, on_progress=progress, store=run_store, scheduler=batch.scheduler
        ),
    )


def _play_llm(
    specs: Sequence[RunSpec],
    batch: Batch,
    settings: Mapping[str, Any],
    runtime: LLMRuntime,
    choice: RoleChoice,
) -> tuple[list[PlayedRun], list[str]]:
    """Every session, the astra system's with its LLM stages in this process, and the report section."""
    from parley.cli.llm import play_experiment_llm
    from parley.experiments.astra.llm import SectionContext, llm_section, run_with_llm

    played, models = play_experiment_llm(
        batch,
        settings,
        runtime,
        choice,
        label="ASTRA",
        total=len(specs),
        play=partial(run_with_llm, specs, runtime, choice),
        console=console,
    )
    context = SectionContext(choice, models, batch.jobs, batch.scheduler is not None)
    return played, llm_section(played, context)


def _astra_llm(flags: Mapping[str, Any]) -> AbstractContextManager[tuple[LLMRuntime, RoleChoice] | None]:
    """The run's LLM runtime and ASTRA's chosen stages, or None when no LLM flag is given (see
    `parley.cli.llm.experiment_llm`)."""
    from parley.cli.llm import experiment_llm
    from parley.experiments.astra.llm import choose_roles

    return experiment_llm(flags, choose_roles)


def _llm_command(choice: RoleChoice, flags: Mapping[str, Any]) -> str:
    from parley.cli.llm import experiment_llm_command

    return experiment_llm_command(choice, flags)


def _csv_columns(played: Sequence[PlayedRun] | None) -> list[dict[str, object]] | None:
    if played is None:
        return None
    from parley.experiments.astra.llm import csv_columns

    return csv_columns(played)


def _report_fallbacks(played: Sequence[PlayedRun], *, allow: bool) -> None:
    from parley.cli.llm import report_experiment_fallbacks
    from parley.experiments.astra.llm import all_fallback_roles, fallback_lines

    report_experiment_fallbacks(fallback_lines(played), all_fallback_roles(played), allow=allow)
