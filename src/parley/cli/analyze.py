"""`parley analyze`: the outcome space of a scenario, its bargaining solutions, and a run's offers.

Every solution concept is taken over the outcomes acceptable to every party (each at or above its
BATNA), with each party's utility normalised to [0, 1]: 0 at its BATNA (reservation value), 1 at
its best outcome (`OutcomeAnalysis.normalized`).
"""

from __future__ import annotations

import contextlib
import dataclasses
import os
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer
from rich.markup import escape

from parley.cli.app import app
from parley.cli.common import console, fail, load, one_line
from parley.cli.extras import require_extra
from parley.cli.scenarios import SCENARIO_HELP, FormatOption

if TYPE_CHECKING:
    from parley.protocol.events import Trajectory
    from parley.scenarios.model import Scenario

PLOT_FORMATS = ("png", "pdf", "svg")
"""File extensions `--plot` writes (the format follows the extension)."""


@app.command("analyze")
def analyze(
    scenario_name: Annotated[str, typer.Argument(metavar="SCENARIO", help=SCENARIO_HELP)],
    plot: Annotated[
        Path | None,
        typer.Option(help="Write a plot of the outcome space (and offers) here: .png, .pdf or .svg."),
    ] = None,
    trajectory: Annotated[
        Path | None, typer.Option(help="A saved trajectory.jsonl of this scenario to overlay on the plot.")
    ] = None,
    format: FormatOption = None,
) -> None:
    """Outcome space size, Pareto frontier, Nash / Kalai–Smorodinsky / max-welfare points.

    Solutions are over the outcomes every party accepts; utilities are normalised to [0, 1] per party.

    0 is the party's BATNA and 1 its best outcome. Plots of 3-4 parties have a panel per pair.

    Plots of 5 or more parties show parallel coordinates of the normalised utilities.
    """
    scenario = load(scenario_name, format)
    # The outcome count stays on the first line: a title read from a file is folded to one line.
    scenario = dataclasses.replace(scenario, title=one_line(scenario.title))
    if plot is not None:
        _check_plot_target(plot)
    if not scenario.space.fits_in_memory():
        fail(f"{scenario.name} has {scenario.space.size:,} outcomes, too many to enumerate for analysis")
    loaded = _load_trajectory(trajectory, scenario) if trajectory is not None else None
    _print_analysis(scenario)
    if plot is not None:
        _write_plot(scenario, plot, loaded)


def _print_analysis(scenario: Scenario) -> None:
    from parley.api.tables import analysis_renderables

    for position, renderable in enumerate(analysis_renderables(scenario)):
        console.print(renderable, soft_wrap=position == 0)  # (the outcome count: never wrapped)


def _check_plot_target(plot: Path) -> None:
    """Fail before any work when the plot could not be written there."""
    require_extra("plot", "--plot")
    suffix = plot.suffix.lower().lstrip(".")
    if suffix not in PLOT_FORMATS:
        found = f"'.{suffix}' is not supported" if suffix else "it has no extension"
        fail(f"cannot write plot {plot}: {found}; supported extensions: {', '.join(PLOT_FORMATS)}")
    from parley.cli.common import check_writable

    check_writable(plot, "write plot")


def _write_plot(scenario: Scenario, plot: Path, trajectory: Trajectory | None) -> None:
    """Write the plot through a temporary file, so a failure leaves nothing half-written."""
    from parley.experiments.plots import outcome_space_layout, plot_outcome_space

    partial = plot.with_name(f".{plot.stem}.partial{plot.suffix}")
    try:
        plot_outcome_space(scenario, partial, trajectory)
        os.replace(partial, plot)
    except (OSError, ValueError) as error:
        with contextlib.suppress(OSError):
            partial.unlink(missing_ok=True)
        reason = error.strerror if isinstance(error, OSError) and error.strerror else str(error)
        fail(f"cannot write plot {plot}: {reason}")
    console.print(f"Plot written to {escape(str(plot))} ({outcome_space_layout(len(scenario.parties))})")


def _load_trajectory(path: Path, scenario: Scenario) -> Trajectory:
    """Read a saved trajectory and check that it was played on this scenario's parties and space."""
    from parley.protocol.events import Trajectory, TrajectoryError

    try:
        trajectory = Trajectory.load(path)
    except TrajectoryError as error:
        fail(f"cannot read trajectory {path}: {error.detail}")
    mismatch = _mismatch(trajectory, scenario)
    if mismatch is not None:
        fail(f"trajectory {path} does not fit {scenario.name}: {mismatch}")
    return trajectory


def _mismatch(trajectory: Trajectory, scenario: Scenario) -> str | None:
    """What makes the trajectory another scenario's (None: it fits this one)."""
    from parley.protocol.actions import Propose
    from parley.protocol.artefact import Agreement
    from parley.protocol.payloads import SessionStarted, UntypedPayload

    started = trajectory.of_kind("session_started")
    if started:
        head = started[0].payload
        if not isinstance(head, SessionStarted):
            return f"its session_started event is not a bargaining session's ({_problem(head)})"
        origin = f"it is from scenario {head.scenario!r}" if head.scenario else "it is from another scenario"
        if set(head.parties) != set(scenario.party_names):
            ours = _listed(scenario.party_names)
            return f"{origin} with parties {_listed(head.parties)}, not {scenario.name}'s {ours}"
        expected = {issue.name: tuple(issue.values) for issue in scenario.space.issues}
        if dict(head.issues) != expected:
            names = list(head.issues)
            if set(names) != set(expected):
                return f"{origin} with issues {_listed(names)}, not {scenario.name}'s {_listed(expected)}"
            differing = [name for name in names if head.issues[name] != expected[name]]
            return f"{origin}, whose options of {_listed(differing)} differ from {scenario.name}'s"
    for event in trajectory:
        if event.kind not in ("action", "agreement"):
            continue
        what = "offer" if event.kind == "action" else event.kind
        match event.payload:
            case Propose(package=package) | Agreement(terms=package):
                try:
                    scenario.space.validate(package)
                except (ValueError, TypeError, KeyError) as error:
                    return f"the {what} in event {event.seq} is not a package of {scenario.name}: {error}"
            case UntypedPayload() as untyped if (
                event.kind == "agreement" or untyped.data.get("kind") == "propose"
            ):
                problem = _problem(untyped)
                return f"the {what} in event {event.seq} is not a package of {scenario.name}: {problem}"
            case _:
                pass
    return None


def _problem(payload: object) -> str:
    return getattr(payload, "problem", "") or type(payload).__name__


def _listed(names: Any) -> str:
    return ", ".join(str(name) for name in names)
