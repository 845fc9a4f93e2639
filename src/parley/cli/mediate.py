"""`parley mediate` (one live mediated conversation) and `parley experiment promediate` (Table 1)."""

from __future__ import annotations

import time
from collections.abc import Callable, Generator, Mapping
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn
from rich.table import Table

from parley.cli.app import app, experiment_app
from parley.cli.common import console, fail
from parley.cli.options import LLMConfigOption, LLMOption, RecordOption, ReplayOption
from parley.errors import ParleyError, ScenarioError
from parley.protocol.events import Event
from parley.scenarios.model import Scenario

if TYPE_CHECKING:
    from parley.llm.context import LLMSession
    from parley.mediation.conversation import ConversationMediator
    from parley.simulation.consensus import AgreementScorer, AttitudeExtractor
    from parley.simulation.modes import ConflictMode
    from parley.simulation.participants import Participant

_DEFAULT_REPORT = Path("docs/results/promediate.md")
_SPEAKER_STYLES = ("cyan", "magenta", "green", "yellow", "blue", "red", "bright_cyan")


def resolve_conversation_scenario(name: str) -> Scenario:
    """A ProMediate case by id ("hmo", "promediate/hmo"), else any scenario `load_scenario` knows.

    Raises:
        ParleyError: unknown name or invalid file.
    """
    from parley.scenarios.importers.promediate import PROMEDIATE_CASES, load_promediate_case

    case = name.lower().removeprefix("promediate/")
    if case in PROMEDIATE_CASES:
        return load_promediate_case(case)
    from parley.scenarios import load_scenario

    return load_scenario(name)


def _printer(scenario: Scenario) -> Callable[[Event], None]:
    names = scenario.party_names

    def show(event: Event) -> None:
        if event.kind in ("utterance", "intervention"):
            speaker = event.party or ""
            style = (
                "bold white on grey23"
                if event.kind == "intervention"
                else _SPEAKER_STYLES[names.index(speaker) % 7]
            )
            tag = event.data.get("strategy") or event.data.get("act")
            console.print(
                f"[dim]{event.round:>3}[/] [{style}]{speaker}[/] [dim]({tag})[/] {event.data['text']}",
                markup=True,
            )
        elif event.kind == "silence":
            console.print(f"[dim]{event.round:>3} … (silence)[/]", markup=True)
        elif event.kind == "consensus" and event.round > 0:
            topics = "  ".join(f"{name[:14]} {value:.2f}" for name, value in event.data["topics"].items())
            console.print(f"[dim]    consensus {event.data['group']:.3f} · {topics}[/]", markup=True)

    return show


@app.command("mediate")
def mediate(
    scenario: Annotated[
        str,
        typer.Argument(
            metavar="SCENARIO", help="ProMediate case (hmo, williams, francis, ias, flagship, river)."
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
    participants: Annotated[
        str,
        typer.Option(
            "--participants", help="rule (deterministic), llm (all LLM-backed) or llm:NAME,NAME (those only)."
        ),
    ] = "rule",
    consensus: Annotated[
        str,
        typer.Option(help="Consensus tracking: rule (deterministic) or llm (attitude + agreement roles)."),
    ] = "rule",
    llm: LLMOption = None,
    llm_role: Annotated[
        list[str] | None,
        typer.Option(help="Per-role endpoint ROLE=SPEC (participant, mediator; repeatable)."),
    ] = None,
    llm_config: LLMConfigOption = None,
    record: RecordOption = None,
    replay: ReplayOption = None,
) -> None:
    """Simulate one mediated multi-party conversation and show consensus per topic."""
    import json

    from parley.metrics.consensus import conversation_metrics
    from parley.simulation.conversation import run_conversation
    from parley.simulation.modes import ConflictMode

    flags = {
        "llm": llm,
        "llm_role": llm_role,
        "llm_config": llm_config,
        "record": record,
        "replay": replay,
        "consensus": consensus,
    }
    try:
        case = resolve_conversation_scenario(scenario)
        conflict = ConflictMode.parse(mode)
        show = None if quiet else _printer(case)
        with _conversation_llm(mediator, participants, flags, f"{case.name}-{seed}") as llm_session:
            chosen = _mediator(mediator, llm_session)
            players = _participants(_llm_party_choice(participants), case, llm_session, conflict, seed)
            extractor, scorer = _consensus_roles(consensus, case, llm_session)
            result = run_conversation(
                case,
                chosen,
                mode=conflict,
                seed=seed,
                participants=players,
                on_event=show,
                extractor=extractor,
                scorer=scorer,
            )
            usage = llm_session.finish(result.trajectory) if llm_session is not None else None
    except ParleyError as error:
        fail(str(error))
    console.print(_consensus_table(result.topic_consensus, result.consensus, len(result.interventions)))
    metrics = conversation_metrics(result.trajectory)
    console.print(
        f"CC {metrics.consensus_change * 100:+.2f}%  TLE {metrics.topic_efficiency * 100:+.3f}%  "
        f"ME {metrics.effectiveness * 100:+.3f}%  MI {metrics.intelligence:.2f}  "
        f"interventions {metrics.interventions}"
    )
    if usage is not None:
        console.print("LLM usage:", markup=False)
        console.print(usage.render(), markup=False, highlight=False)
    if save is not None:
        path = result.trajectory.save(save / "trajectory.jsonl")
        (save / "metrics.json").write_text(
            json.dumps(metrics.to_json(), default=str, indent=2), encoding="utf-8"
        )
        console.print(f"saved {path}")
    if plot is not None:
        _plot(
            result.topic_consensus,
            result.consensus,
            result.interventions,
            plot,
            f"{case.name} · {mediator} · {mode}",
        )
        console.print(f"wrote {plot}")


@contextmanager
def _conversation_llm(
    mediator: str, participants: str, flags: Mapping[str, Any], session_id: str
) -> Generator[LLMSession | None]:
    """The LLM session of a `parley mediate` run: None unless an LLM role or an LLM flag is asked for."""
    wanted = (
        mediator.lower().startswith("llm")
        or _llm_party_choice(participants) is not None
        or flags.get("consensus") == "llm"
    )
    from parley.cli.llm import any_llm_flag, open_runtime

    if not wanted and not any_llm_flag(flags):
        yield None
        return
    with open_runtime(flags) as runtime:
        yield runtime.session(session_id)


def _mediator(name: str, llm: LLMSession | None) -> ConversationMediator:
    from parley.mediation.mediators import create_mediator

    if not name.lower().startswith("llm"):
        return create_mediator(name)
    from parley.llm.promediate import create_llm_mediator

    if llm is None:
        raise ScenarioError(f"mediator {name!r} needs an LLM: pass --llm SPEC (or --replay DIR)")
    return create_llm_mediator(name, llm)


def _consensus_roles(
    choice: str, case: Scenario, llm: LLMSession | None
) -> tuple[AttitudeExtractor | None, AgreementScorer | None]:
    """--consensus: the deterministic tracker (rule) or LLM attitude extraction and agreement scoring."""
    if choice == "rule":
        return None, None
    if choice != "llm":
        raise ScenarioError(f"--consensus expects rule or llm, got {choice!r}")
    if llm is None:
        raise ScenarioError("--consensus llm needs an LLM: pass --llm SPEC (or --replay DIR)")
    from parley.llm.promediate import LLMAgreementScorer, LLMAttitudeExtractor
    from parley.simulation.conversation import public_options

    return LLMAttitudeExtractor(llm, public_options(case)), LLMAgreementScorer(llm)


def _llm_party_choice(choice: str) -> tuple[str, ...] | None:
    """--participants: None for rule, () for all LLM-backed, else the named parties."""
    kind, _, names = choice.strip().partition(":")
    if kind.lower() == "rule" and not names:
        return None
    if kind.lower() != "llm":
        raise ScenarioError(f"--participants expects rule, llm or llm:NAME,NAME; got {choice!r}")
    return tuple(n.strip() for n in names.split(",") if n.strip())


def _participants(
    names: tuple[str, ...] | None, case: Scenario, llm: LLMSession | None, mode: ConflictMode, seed: int
) -> dict[str, Participant] | None:
    if names is None:
        return None
    if llm is None:
        raise ScenarioError("LLM participants need an LLM: pass --llm SPEC (or --replay DIR)")
    from parley.llm.promediate import llm_participants

    return llm_participants(case, llm, mode=mode, seed=seed, names=names or None)


def _consensus_table(
    topics: Mapping[str, tuple[float, ...]], group: tuple[float, ...], interventions: int
) -> Table:
    table = Table(title=f"Consensus per topic (start → end; {interventions} interventions)")
    table.add_column("topic")
    table.add_column("start", justify="right")
    table.add_column("end", justify="right")
    table.add_column("change", justify="right")
    for topic, values in topics.items():
        table.add_row(str(topic), f"{values[0]:.3f}", f"{values[-1]:.3f}", f"{values[-1] - values[0]:+.3f}")
    table.add_row("[bold]group[/]", f"{group[0]:.3f}", f"{group[-1]:.3f}", f"{group[-1] - group[0]:+.3f}")
    return table


def _plot(
    topics: Mapping[str, tuple[float, ...]],
    group: tuple[float, ...],
    interventions: tuple[int, ...],
    path: Path,
    title: str,
) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

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
    figure.tight_layout()
    path.parent.mkdir(parents=True, exist_ok=True)
    figure.savefig(path, dpi=110)
    plt.close(figure)


@experiment_app.command("promediate")
def promediate_experiment(
    runs: Annotated[int, typer.Option("--runs", min=1, help="Runs per case, mode and mediator.")] = 5,
    jobs: Annotated[int, typer.Option("--jobs", min=1, help="Worker processes.")] = 1,
    out: Annotated[Path, typer.Option("--out", help="Markdown report to write.")] = _DEFAULT_REPORT,
    cases: Annotated[
        str, typer.Option("--cases", help="Comma-separated subset of cases (default: all).")
    ] = "",
    deliberation_seeds: Annotated[
        int,
        typer.Option(
            "--deliberation-seeds", min=0, help="Seeds for the Pareto-mediator comparison (0: skip)."
        ),
    ] = 20,
) -> None:
    """Reproduce ProMediate Table 1 (cases × modes × mediators × runs) and the Pareto-mediator comparison."""
    from parley.experiments.promediate import grid, run_deliberation, run_grid, write_report
    from parley.scenarios.importers.promediate import PROMEDIATE_CASES

    chosen = [c.strip().lower() for c in cases.split(",") if c.strip()] or list(PROMEDIATE_CASES)
    unknown = [c for c in chosen if c not in PROMEDIATE_CASES]
    if unknown:
        fail(f"unknown cases {unknown}; expected some of {list(PROMEDIATE_CASES)}")
    cells = grid(chosen)
    started = time.perf_counter()
    columns = (TextColumn("conversations"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn())
    with Progress(*columns, console=console) as progress:
        task = progress.add_task("promediate", total=len(cells) * runs)
        rows = run_grid(
            cells, runs, jobs=jobs, on_progress=lambda done, total: progress.update(task, completed=done)
        )
    elapsed = time.perf_counter() - started
    deliberation = run_deliberation(deliberation_seeds) if deliberation_seeds else []
    command = f"parley experiment promediate --runs {runs} --jobs {jobs}"
    path = write_report(
        rows, out, runs=runs, jobs=jobs, elapsed=elapsed, deliberation=deliberation, command=command
    )
    console.print(f"{len(rows)} conversations in {elapsed:.1f} s; wrote {path}")
