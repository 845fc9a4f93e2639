"""`parley mediate` (one live mediated conversation) and `parley experiment promediate` (Table 1)."""

from __future__ import annotations

import contextlib
import math
import time
from collections.abc import Callable, Generator, Mapping, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer
from rich.markup import escape
from rich.table import Table
from rich.text import Text

from parley.cli.app import app, experiment_app
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
from parley.cli.scenarios import FormatOption
from parley.errors import ParleyError
from parley.jsonio import CONVERSATION_NO_VALUE_FIELDS, dumps

if TYPE_CHECKING:
    from parley.experiments.promediate import Cell
    from parley.experiments.promediate_llm import ConversationRoles
    from parley.llm.config import LLMRuntime
    from parley.protocol.events import Event
    from parley.protocol.live_log import LiveLog
    from parley.scenarios.model import Scenario
    from parley.simulation.modes import ConflictMode

_DEFAULT_REPORT = Path("docs/results/promediate.md")
ParticipantsOption = Annotated[
    str,
    typer.Option(
        "--participants", help="rule (deterministic), llm (all LLM-backed) or llm:NAME,NAME (those only)."
    ),
]
ConsensusOption = Annotated[
    str, typer.Option(help="Consensus tracking: rule (deterministic) or llm (attitude + agreement roles).")
]
JudgeOption = Annotated[str, typer.Option(help="Mediator Intelligence (MI) judge: rubric or llm.")]
PromediateRoleOption = Annotated[
    list[str] | None,
    typer.Option(
        help="Per-role endpoint ROLE=SPEC (participant, mediator, attitude, agreement, intelligence; "
        "repeatable)."
    ),
]
_SPEAKER_STYLES = ("cyan", "magenta", "green", "yellow", "blue", "red", "bright_cyan")


def resolve_conversation_scenario(name: str, format: str | None = None) -> Scenario:
    """A ProMediate case by id ("hmo", "promediate/hmo"), else any scenario `load_scenario` knows (a
    shipped name, or a file or folder in format or its detected one).

    Raises:
        ParleyError: unknown name or invalid file.
    """
    from parley.scenarios.importers.promediate import PROMEDIATE_CASES, load_promediate_case

    case = name.lower().removeprefix("promediate/")
    if case in PROMEDIATE_CASES and format is None:
        return load_promediate_case(case)
    from parley.scenarios import load_scenario

    return load_scenario(name, format=format)


def _conversation_scenario(name: str, format: str | None) -> Scenario:
    """`resolve_conversation_scenario`, with a name that cannot be read as a path a one-line error.

    Raises:
        ParleyError: unknown name or invalid file.
    """
    try:
        return resolve_conversation_scenario(name, format)
    except OSError as error:  # e.g. a name too long to be a path
        fail(f"cannot read scenario {name}: {error.strerror or error}")


def _live_log(save: Path | None, about: Mapping[str, Any]) -> LiveLog | None:
    """With --save, the events also go to DIR/live.jsonl as they happen: a web console whose runs
    folder holds DIR follows the conversation live (`parley.protocol.live_log`)."""
    if save is None:
        return None
    from parley.protocol.live_log import LiveLog

    try:
        return LiveLog(save, about)
    except OSError as error:
        fail(f"cannot save to {save}: {error.strerror or error}", code=1)


def _both(show: Callable[[Event], None] | None, live: LiveLog | None) -> Callable[[Event], None] | None:
    """One event hook doing what each given hook does."""
    if live is None:
        return show
    if show is None:
        return live.add

    def both(event: Event) -> None:
        live.add(event)
        show(event)

    return both


def _printer(scenario: Scenario) -> Callable[[Event], None]:
    from parley.protocol.payloads import Consensus, Said, UntypedPayload

    names = scenario.party_names

    def show(event: Event) -> None:
        if event.kind in ("utterance", "intervention"):
            speaker = event.party or ""
            style = (
                "bold white on grey23"
                if event.kind == "intervention"
                else _SPEAKER_STYLES[names.index(speaker) % 7]
            )
            said = event.payload
            if isinstance(said, Said):
                tag, text = said.strategy or said.act, said.text
            else:  # a live display shows a mediator plugin's partial record too, as best it can
                raw = said.data if isinstance(said, UntypedPayload) else {}
                tag, text = raw.get("strategy") or raw.get("act"), raw.get("text", "")
            # What participants, mediators and LLMs say is plain text: escaped, never read as markup.
            console.print(
                f"[dim]{event.round:>3}[/] [{style}]{escape(speaker)}[/] [dim]({escape(str(tag))})[/] "
                f"{escape(str(text))}",
                markup=True,
            )
        elif event.kind == "silence":
            console.print(f"[dim]{event.round:>3} … (silence)[/]", markup=True)
        elif event.kind == "consensus" and event.round > 0:
            consensus = event.typed(Consensus)
            topics = "  ".join(f"{name[:14]} {value:.2f}" for name, value in consensus.topics.items())
            console.print(f"[dim]    consensus {consensus.group:.3f} · {escape(topics)}[/]", markup=True)

    return show


def _metrics_json(metrics: Mapping[str, float | int]) -> str:
    """metrics.json as strict JSON: a metric with no value is null.

    ME and MI have none without interventions, TLE none without a mentioned topic, RL none without
    a drop in consensus or when no drop was ever answered (RL is infinite then: drops > 0 tells).
    """
    values: dict[str, float | int | None] = dict(metrics)
    for latency in ("RL_turns", "RL_seconds"):
        if values.get(latency) == math.inf:
            values[latency] = None
    return dumps(values, no_value=CONVERSATION_NO_VALUE_FIELDS, indent=2)


@app.command("mediate")
def mediate(
    scenario: Annotated[
        str,
        typer.Argument(
            metavar="SCENARIO",
            help="ProMediate case (hmo, williams, francis, ias, flagship, river), or any scenario name, "
            "file or folder (parley YAML, GENIUS, GeniusWeb, LLM-Deliberation or TextArena game).",
        ),
    ],
    mediator: Annotated[
        str, typer.Option("--mediator", help="social, generic, none, llm-social or llm-generic.")
    ] = "social",
    mode: Annotated[
        str, typer.Option("--mode", help="competing, avoiding, accommodating or general.")
    ] = "general",
    seed: Annotated[int, typer.Option("--seed", help="Seed for every random choice.")] = 0,
    plot: Annotated[Path | None, typer.Option("--plot", help="Write a consensus-per-topic PNG here.")] = None,
    save: Annotated[
        Path | None, typer.Option("--save", help="Folder for trajectory.jsonl and metrics.json.")
    ] = None,
    quiet: Annotated[bool, typer.Option("--quiet", help="Do not print the conversation live.")] = False,
    participants: ParticipantsOption = "rule",
    consensus: ConsensusOption = "rule",
    judge: JudgeOption = "rubric",
    llm: LLMOption = None,
    llm_role: PromediateRoleOption = None,
    llm_config: LLMConfigOption = None,
    record: RecordOption = None,
    replay: ReplayOption = None,
    llm_budget_seconds: BudgetSecondsOption = None,
    llm_budget_tokens: BudgetTokensOption = None,
    llm_strict: LLMStrictOption = False,
    allow_fallback: AllowFallbackOption = False,
    format: FormatOption = None,
) -> None:
    """Simulate one mediated multi-party conversation and show consensus per topic."""
    if seed < 0:
        fail(f"--seed must not be negative, got {seed}")
    if save is not None:
        _check_target(save, "save to", folder=True)
    if plot is not None:
        _check_plot(plot)
    from parley.cli.llm import report_fallbacks
    from parley.experiments.promediate_llm import ConversationRoles, play_conversation
    from parley.simulation.modes import ConflictMode

    flags = {"llm": llm, "llm_role": llm_role, "llm_config": llm_config, "record": record, "replay": replay}
    flags |= {
        "llm_budget_seconds": llm_budget_seconds,
        "llm_budget_tokens": llm_budget_tokens,
        "llm_strict": llm_strict,
        "allow_fallback": allow_fallback,
    }
    live: LiveLog | None = None
    try:
        roles = ConversationRoles(participants, consensus, judge)
        case = _conversation_scenario(scenario, format)
        conflict = ConflictMode.parse(mode)
        show = None if quiet else _printer(case)
        live = _live_log(save, {"case": case.name, "mediator": mediator, "mode": mode, "seed": seed})
        with _conversation_llm(roles.uses_llm(mediator), flags) as runtime:
            llm_session = runtime.session(f"{case.name}-{seed}") if runtime is not None else None
            played = play_conversation(
                case, mediator, conflict, seed, roles, llm_session, on_event=_both(show, live)
            )
    except ParleyError as error:
        if live is not None and save is not None:
            live.close(remove=True)
            with contextlib.suppress(OSError):
                save.rmdir()  # only when it holds nothing else
        fail(str(error))
    result, metrics, usage = played.result, played.metrics, played.usage
    console.print(_consensus_table(result.topic_consensus, result.consensus, len(result.interventions)))
    console.print(
        f"CC {metrics.consensus_change * 100:+.2f}%  TLE {metrics.topic_efficiency * 100:+.3f}%  "
        f"ME {metrics.effectiveness * 100:+.3f}%  MI (rubric, the social mediator's own view) "
        f"{metrics.intelligence:.2f}  "
        f"interventions {metrics.interventions}"
    )
    if usage is not None:
        console.print("LLM usage:", markup=False)
        console.print(usage.render(), markup=False, highlight=False)
    if save is not None:
        from parley.cli.common import write_files

        files = {
            "trajectory.jsonl": result.trajectory.to_jsonl(versioned=True),
            "metrics.json": _metrics_json(metrics.to_json()) + "\n",
        }
        write_files(save, files)
        if live is not None:
            live.close(remove=True)  # the finished run is beside it now
        console.print(f"saved {save / 'trajectory.jsonl'}", markup=False)
    if plot is not None:
        try:
            _plot(
                result.topic_consensus,
                result.consensus,
                result.interventions,
                plot,
                f"{case.name} · {mediator} · {mode}",
            )
        except (OSError, ValueError) as error:
            fail(f"cannot write the plot {plot}: {getattr(error, 'strerror', None) or error}", code=1)
        console.print(f"wrote {plot}", markup=False)
    if runtime is not None:
        report_fallbacks(runtime)


def _check_target(target: Path, what: str, *, folder: bool = False) -> None:
    """Fail in one line before anything is played if target cannot be written (creating nothing: the
    folders are made when the files are written)."""
    from parley.cli.common import check_writable

    check_writable(target, what, folder=folder)


def _check_plot(path: Path) -> None:
    """Fail in one line, before anything is played, when matplotlib cannot write path's format."""
    require_extra("plot", "--plot")
    from matplotlib.backend_bases import FigureCanvasBase

    formats = FigureCanvasBase.get_supported_filetypes()
    suffix = path.suffix.lower().lstrip(".")
    if suffix not in formats:
        known = ", .".join(sorted(formats))
        fail(f"cannot write the plot {path}: expected one of .{known}, got {path.suffix or 'no suffix'}")
    _check_target(path, "write the plot")


@contextmanager
def _conversation_llm(wanted: bool, flags: Mapping[str, Any]) -> Generator[LLMRuntime | None]:
    """The run's LLM runtime: None unless an LLM role or an LLM flag is asked for. Its fallback
    report is left to the caller (`report_fallbacks`, once the results are shown and saved).

    Raises:
        LLMError: an LLM role is asked for and no LLM is configured (or a key is missing).
    """
    from parley.cli.llm import any_llm_flag, open_runtime

    if not wanted and not any_llm_flag(flags):
        yield None
        return
    with open_runtime(flags, report=False) as runtime:
        runtime.session("check")  # no LLM configured: fail before anything is played
        yield runtime


def _consensus_table(
    topics: Mapping[str, tuple[float, ...]], group: tuple[float, ...], interventions: int
) -> Table:
    table = Table(title=f"Consensus per topic (start → end; {interventions} interventions)")
    table.add_column("topic")
    table.add_column("start", justify="right")
    table.add_column("end", justify="right")
    table.add_column("change", justify="right")
    for topic, values in topics.items():
        table.add_row(
            Text(str(topic)), f"{values[0]:.3f}", f"{values[-1]:.3f}", f"{values[-1] - values[0]:+.3f}"
        )
    table.add_row("[bold]group[/]", f"{group[0]:.3f}", f"{group[-1]:.3f}", f"{group[-1] - group[0]:+.3f}")
    return table


def _plot(
    topics: Mapping[str, tuple[float, ...]],
    group: tuple[float, ...],
    interventions: tuple[int, ...],
    path: Path,
    title: str,
) -> None:
    from parley.experiments.plots import plt, save_figure  # (matplotlib only when plotting)

    figure, axis = plt.subplots(figsize=(8, 4))
    for turn in interventions:
        axis.axvline(turn, color="0.8", linewidth=1)
    for topic, values in topics.items():
        axis.plot(range(len(values)), values, label=str(topic)[:32])
    axis.plot(range(len(group)), group, color="black", linewidth=2, label="group")
    axis.set_xlabel("turn")
    axis.set_ylabel("consensus")
    axis.set_title(title)
    axis.legend(fontsize=7)
    save_figure(figure, path)


@experiment_app.command("promediate")
def promediate_experiment(
    runs: Annotated[
        int,
        typer.Option("--runs", min=1, max=MAX_COUNT, help="Runs per case, mode and mediator (seeds 0..N-1)."),
    ] = 5,
    split: Annotated[
        str | None,
        typer.Option(
            "--split",
            help="Play a declared seed split instead of seeds 0..N-1: tuning (0–4, the seeds the testbed "
            "and mediators were developed on) or evaluation (100–109, never used for tuning).",
        ),
    ] = None,
    sensitivity_seeds: Annotated[
        int,
        typer.Option(
            "--sensitivity-seeds",
            min=0,
            max=MAX_COUNT,
            help="Seeds (from the evaluation split) of the sensitivity grid: every participant parameter "
            "low and high, competing mode (0: skip).",
        ),
    ] = 0,
    jobs: Annotated[int, typer.Option("--jobs", min=1, max=MAX_JOBS, help="Worker processes.")] = 1,
    out: Annotated[Path, typer.Option("--out", help="Markdown report to write.")] = _DEFAULT_REPORT,
    cases: Annotated[
        str, typer.Option("--cases", help="Comma-separated subset of cases (default: all).")
    ] = "",
    deliberation_seeds: Annotated[
        int,
        typer.Option(
            "--deliberation-seeds",
            min=0,
            max=MAX_COUNT,
            help="Seeds for the Pareto-mediator comparison (0: skip).",
        ),
    ] = 20,
    mediators: Annotated[
        str,
        typer.Option(
            "--mediators", help="Comma-separated conditions: none, generic, social, llm-generic, llm-social."
        ),
    ] = "none,generic,social",
    modes: Annotated[
        str,
        typer.Option("--modes", help="Comma-separated conflict modes (default: all four, Table 1's order)."),
    ] = "",
    participants: ParticipantsOption = "rule",
    consensus: ConsensusOption = "rule",
    judge: JudgeOption = "rubric",
    concurrency: Annotated[
        int,
        typer.Option("--concurrency", min=1, max=MAX_JOBS, help="LLM-backed conversations played at a time."),
    ] = 4,
    llm: LLMOption = None,
    llm_role: PromediateRoleOption = None,
    llm_config: LLMConfigOption = None,
    record: RecordOption = None,
    replay: ReplayOption = None,
    llm_budget_seconds: BudgetSecondsOption = None,
    llm_budget_tokens: BudgetTokensOption = None,
    llm_strict: LLMStrictOption = False,
    allow_fallback: AllowFallbackOption = False,
    scheduler: SchedulerOption = None,
    store: StoreOption = None,
    quiet: QuietOption = False,
) -> None:
    """Reproduce ProMediate Table 1 (cases × modes × mediators × runs) and the Pareto-mediator comparison.

    LLM-backed conversations (an llm-* mediator, --participants llm, --consensus llm or --judge llm)
    are played on threads and each is appended to OUT's ``.rows.jsonl`` as it ends; a rerun resumes.
    """
    require_extra("plot", "parley experiment promediate")
    from parley.experiments.deliberation import run_deliberation
    from parley.experiments.promediate import EVALUATION_SEEDS, SEED_SPLITS, grid, write_report
    from parley.experiments.promediate_llm import ConversationRoles

    _check_target(out, "write the report")  # (a folder is refused: give a .md file)
    if split is not None and split not in SEED_SPLITS:
        fail(f"unknown split {split!r}; expected one of {', '.join(SEED_SPLITS)}", code=2)
    if sensitivity_seeds > len(EVALUATION_SEEDS):
        limit = len(EVALUATION_SEEDS)
        fail(f"--sensitivity-seeds is at most {limit} (the evaluation split), got {sensitivity_seeds}")
    seeds = SEED_SPLITS[split] if split is not None else tuple(range(runs))
    flags = {"llm": llm, "llm_role": llm_role, "llm_config": llm_config, "record": record, "replay": replay}
    flags |= {
        "llm_budget_seconds": llm_budget_seconds,
        "llm_budget_tokens": llm_budget_tokens,
        "llm_strict": llm_strict,
        "allow_fallback": allow_fallback,
    }
    try:
        roles = ConversationRoles(participants, consensus, judge)
        cells = grid(_chosen_cases(cases), _chosen_modes(modes), _chosen_mediators(mediators))
        wanted = any(roles.uses_llm(cell.mediator) for cell in cells)
        started = time.perf_counter()
        with _conversation_llm(wanted, flags) as runtime:
            batch = Batch("promediate", out, jobs, scheduler, store, quiet)
            rows, llm_section = _play_grid(cells, seeds, batch, roles, runtime, out, concurrency)
    except ParleyError as error:
        fail(str(error))
    sensitivity = _sensitivity(EVALUATION_SEEDS[:sensitivity_seeds], jobs) if sensitivity_seeds else None
    elapsed = time.perf_counter() - started
    deliberation = run_deliberation(deliberation_seeds) if deliberation_seeds else []
    command = _promediate_command(
        runs, split, sensitivity_seeds, jobs, cells=cells, deliberation_seeds=deliberation_seeds
    ) + _llm_command(roles, concurrency, flags, used=bool(llm_section))
    try:
        path = write_report(
            rows,
            out,
            seeds=seeds,
            deliberation=deliberation,
            command=command,
            llm_section=llm_section,
            sensitivity=sensitivity,
            sensitivity_seeds=EVALUATION_SEEDS[:sensitivity_seeds],
        )
    except OSError as error:
        fail(f"cannot write the report {out}: {error.strerror or error}", code=1)
    batch.finish()
    console.print(f"{len(rows)} conversations in {elapsed:.1f} s; wrote {path}")
    if runtime is not None:
        from parley.cli.llm import report_fallbacks

        report_fallbacks(runtime)


def _promediate_command(
    runs: int,
    split: str | None,
    sensitivity_seeds: int,
    jobs: int,
    *,
    cells: Sequence[Cell] = (),
    deliberation_seeds: int = 20,
) -> str:
    """The command line as the report quotes it: every option that changes the result and differs
    from its default (so a default run is quoted as before), the grid's cases, modes and mediators
    normalised (lower case, Table 1's order)."""
    from parley.experiments.promediate import MEDIATOR_NAMES, MODES
    from parley.scenarios.importers.promediate import PROMEDIATE_CASES

    text = "parley experiment promediate " + (f"--split {split}" if split is not None else f"--runs {runs}")
    grid = {
        "cases": (list(dict.fromkeys(c.case for c in cells)), list(PROMEDIATE_CASES)),
        "modes": (list(dict.fromkeys(c.mode for c in cells)), [m.value for m in MODES]),
        "mediators": (list(dict.fromkeys(c.mediator for c in cells)), list(MEDIATOR_NAMES)),
    }
    for option, (chosen, default) in grid.items():
        if cells and chosen != default:
            text += f" --{option} {','.join(chosen)}"
    text += f" --sensitivity-seeds {sensitivity_seeds}" if sensitivity_seeds else ""
    text += f" --deliberation-seeds {deliberation_seeds}" if deliberation_seeds != 20 else ""
    return text + f" --jobs {jobs}"


def _sensitivity(seeds: tuple[int, ...], jobs: int) -> dict[str, list[dict[str, Any]]]:
    """The sensitivity grid's rows by variation, with a progress bar."""
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

    from parley.experiments.promediate_analysis import run_sensitivity

    columns = (TextColumn("sensitivity"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn())
    with Progress(*columns, console=console) as progress:
        task = progress.add_task("sensitivity", total=None)
        return run_sensitivity(
            seeds,
            jobs=jobs,
            on_progress=lambda done, total: progress.update(task, completed=done, total=total),
        )


def _chosen_cases(text: str) -> list[str]:
    from parley.scenarios.importers.promediate import PROMEDIATE_CASES

    chosen = [c.strip().lower() for c in text.split(",") if c.strip()] or list(PROMEDIATE_CASES)
    unknown = [c for c in chosen if c not in PROMEDIATE_CASES]
    if unknown:
        fail(f"unknown cases {unknown}; expected some of {list(PROMEDIATE_CASES)}")
    return chosen


def _chosen_modes(text: str) -> list[ConflictMode]:
    """--modes in Table 1's column order (default: every mode).

    Raises:
        ScenarioError: an unknown mode.
    """
    from parley.experiments.promediate import MODES
    from parley.simulation.modes import ConflictMode

    chosen = {ConflictMode.parse(m.strip()) for m in text.split(",") if m.strip()}
    return [m for m in MODES if m in chosen] if chosen else list(MODES)


def _chosen_mediators(text: str) -> list[str]:
    from parley.experiments.promediate import MEDIATOR_NAMES
    from parley.llm.promediate import LLM_MEDIATORS

    known = [*MEDIATOR_NAMES, *LLM_MEDIATORS]
    chosen = list(dict.fromkeys(m.strip().lower() for m in text.split(",") if m.strip()))
    unknown = [m for m in chosen if m not in known]
    if unknown or not chosen:
        fail(f"unknown mediators {unknown}; expected some of {known}")
    return chosen


def _play_grid(
    cells: list[Cell],
    runs: int | Sequence[int],
    batch: Batch,
    roles: ConversationRoles,
    runtime: LLMRuntime | None,
    out: Path,
    concurrency: int,
) -> tuple[list[dict[str, Any]], list[str]]:
    """Every row in cell order, deterministic cells in processes and LLM-backed ones on threads."""
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

    from parley.experiments.llm_roles import configured_models
    from parley.experiments.promediate import run_grid, seed_list
    from parley.experiments.promediate_llm import RowStore, llm_section, played_roles, run_llm_cells

    rule_cells = [c for c in cells if not roles.uses_llm(c.mediator)]
    llm_cells = [c for c in cells if roles.uses_llm(c.mediator)]
    columns = (TextColumn("conversations"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn())
    seeds = seed_list(runs)
    run_store = batch.open_store({"seeds": list(seeds)})  # (LLM-backed rows go to their own RowStore)
    with Progress(*columns, console=console, disable=batch.hidden) as progress:
        task = progress.add_task("promediate", total=len(cells) * len(seeds))
        with batch.guard(lambda: int(progress.tasks[0].completed), len(cells) * len(seeds)):
            rows = run_grid(
                rule_cells,
                runs,
                jobs=batch.jobs,
                on_progress=lambda done, _: progress.update(task, completed=done),
                store=run_store,
                scheduler=batch.scheduler,
            )
        if runtime is None or not llm_cells:
            return rows, []
        store = RowStore(out.with_suffix(".rows.jsonl"), roles)
        progress.advance(task, len(store.done() & _keys(llm_cells, seeds)))
        rows += run_llm_cells(
            llm_cells,
            runs,
            runtime,
            roles,
            store,
            concurrency=concurrency,
            on_row=lambda: progress.advance(task),
        )
    order = {(c.case, c.mode, c.mediator): index for index, c in enumerate(cells)}
    played = sorted(
        (r for r in rows if (r["case"], r["mode"], r["mediator"]) in order and r["run"] in seeds),
        key=lambda r: (order[(r["case"], r["mode"], r["mediator"])], r["run"]),
    )
    models = configured_models(runtime.settings, played_roles(roles, [c.mediator for c in cells]))
    return played, llm_section(played, roles, concurrency, models)


def _keys(cells: list[Cell], seeds: Sequence[int]) -> set[tuple[str, str, str, int]]:
    return {(c.case, c.mode, c.mediator, run) for c in cells for run in seeds}


def _llm_command(roles: ConversationRoles, concurrency: int, flags: Mapping[str, Any], *, used: bool) -> str:
    """The LLM options of the command line, as the report quotes them: the role choices that differ
    from the defaults and every LLM flag that changes the result, an endpoint as SPEC, a file as FILE
    and a folder as DIR (never a URL or a key: the report's table names the models)."""
    from parley.experiments.promediate_llm import ROLE_ORDER

    if not used:
        return ""
    defaults = {"participants": "rule", "consensus": "rule", "judge": "rubric"}
    text = "".join(f" --{k} {v}" for k, v in roles.to_json().items() if defaults.get(k) != v)
    text += f" --concurrency {concurrency}"
    text += " --llm SPEC" if flags.get("llm") is not None else ""
    for entry in flags.get("llm_role") or ():
        role = str(entry).partition("=")[0].strip().lower()
        text += f" --llm-role {role if role in ROLE_ORDER else 'ROLE'}=SPEC"
    text += " --llm-config FILE" if flags.get("llm_config") is not None else ""
    text += " --replay DIR" if flags.get("replay") is not None else ""
    for option in ("llm_budget_seconds", "llm_budget_tokens"):
        if flags.get(option) is not None:
            text += f" --{option.replace('_', '-')} {flags[option]}"
    text += " --llm-strict" if flags.get("llm_strict") else ""
    return text + (" --allow-fallback" if flags.get("allow_fallback") else "")
