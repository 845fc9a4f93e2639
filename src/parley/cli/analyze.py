"""`parley analyze`: the outcome space of a scenario, its bargaining solutions, and a run's offers.

Every solution concept is taken over the outcomes acceptable to every party (each at or above its
BATNA), with each party's utility normalised to [0, 1]: 0 at its BATNA (reservation value), 1 at
its best outcome (`OutcomeAnalysis.normalized`).
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer
from rich.markup import escape
from rich.table import Table

from parley.cli.app import app
from parley.cli.common import console, fail, load
from parley.cli.extras import require_extra

if TYPE_CHECKING:
    from parley.protocol.events import Trajectory
    from parley.scenarios.model import Scenario

PLOT_FORMATS = ("png", "pdf", "svg")
"""File extensions `--plot` writes (the format follows the extension)."""

CONVENTION = (
    "Solutions are taken over the outcomes acceptable to every party; each party's utility is "
    "normalised to [0, 1], 0 at its BATNA and 1 at its best outcome (in brackets)."
)


@app.command("analyze")
def analyze(
    scenario_name: Annotated[
        str, typer.Argument(metavar="SCENARIO", help="Shipped scenario name or YAML path.")
    ],
    plot: Annotated[
        Path | None,
        typer.Option(help="Write a plot of the outcome space (and offers) here: .png, .pdf or .svg."),
    ] = None,
    trajectory: Annotated[
        Path | None, typer.Option(help="A saved trajectory.jsonl of this scenario to overlay on the plot.")
    ] = None,
) -> None:
    """Outcome space size, Pareto frontier, Nash / Kalai–Smorodinsky / max-welfare points.

    Solutions are over the outcomes every party accepts; utilities are normalised to [0, 1] per party.

    0 is the party's BATNA and 1 its best outcome. Plots of 3-4 parties have a panel per pair.

    Plots of 5 or more parties show parallel coordinates of the normalised utilities.
    """
    scenario = load(scenario_name)
    if plot is not None:
        _check_plot_target(plot)
    if not scenario.space.fits_in_memory():
        fail(f"{scenario.name} has {scenario.space.size:,} outcomes, too many to enumerate for analysis")
    loaded = _load_trajectory(trajectory, scenario) if trajectory is not None else None
    _print_analysis(scenario)
    if plot is not None:
        _write_plot(scenario, plot, loaded)


def _print_analysis(scenario: Scenario) -> None:
    analysis = scenario.analysis
    names = scenario.party_names
    console.print(
        f"[bold]{escape(scenario.title)}[/]: {scenario.space.size:,} outcomes, "
        f"{analysis.frontier.size:,} on the Pareto frontier"
    )
    everyone = int(analysis.individually_rational.sum())
    console.print(f"{everyone:,} outcomes acceptable to every party (each at or above its BATNA)")
    under_rule = _under_rule(scenario)
    if under_rule:
        console.print(under_rule)
    solutions = (
        ("Nash", analysis.nash),
        ("Kalai–Smorodinsky", analysis.kalai),
        ("max welfare", analysis.max_welfare),
    )
    if everyone == 0:
        console.print("No solution: no outcome is acceptable to every party.")
    console.print(CONVENTION)
    packages = Table(title="Bargaining solutions")
    packages.add_column("solution", no_wrap=True)
    packages.add_column("package")
    for label, index in solutions:
        text = "none" if index is None else ", ".join(f"{k}={v}" for k, v in analysis.outcome(index).items())
        packages.add_row(label, escape(text))
    console.print(packages)
    utilities = Table(title="Utility at each solution (normalised)")
    utilities.add_column("party", no_wrap=True)
    utilities.add_column("BATNA", justify="right", no_wrap=True)
    utilities.add_column("best", justify="right", no_wrap=True)
    for label, _ in solutions:  # (the long name on two lines keeps 4 parties within 80 columns)
        utilities.add_column(label.replace("–", "–\n"), justify="right", no_wrap=True)
    per_solution = [_utility_cells(scenario, index) for _, index in solutions]
    for column, name in enumerate(names):
        utilities.add_row(
            escape(name),
            f"{analysis.reservation[column]:g}",
            f"{analysis.best[column]:g}",
            *(values[column] for values in per_solution),
        )
    console.print(utilities)


def _utility_cells(scenario: Scenario, index: int | None) -> list[str]:
    """Each party's utility of one solution, its normalised utility in brackets ("none": no solution)."""
    if index is None:
        return ["none"] * len(scenario.parties)
    utilities = scenario.analysis.points[index]
    normalised = scenario.analysis.normalized(utilities)
    return [f"{u:g} ({n:.2f})" for u, n in zip(utilities, normalised, strict=True)]


def _under_rule(scenario: Scenario) -> str:
    """The outcomes that pass a k-of-n acceptance rule (nothing to add under unanimity)."""
    rule = scenario.rules.acceptance
    names = scenario.party_names
    if rule.required is None or rule.required >= len(names):
        return ""
    vetoes = [names.index(v) for v in rule.vetoes]
    passing = int(scenario.analysis.acceptable(rule.required, vetoes).sum())
    always = f", always including {escape(', '.join(rule.vetoes))}" if rule.vetoes else ""
    return f"{passing:,} outcomes pass the acceptance rule ({rule.required} of {len(names)} parties{always})"


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
    from parley.protocol.events import Trajectory

    try:
        trajectory = Trajectory.load(path)
    except (OSError, ValueError, KeyError, TypeError) as error:
        fail(f"cannot read trajectory {path}: {error}")
    mismatch = _mismatch(trajectory, scenario)
    if mismatch is not None:
        fail(f"trajectory {path} does not fit {scenario.name}: {mismatch}")
    return trajectory


def _mismatch(trajectory: Trajectory, scenario: Scenario) -> str | None:
    """What makes the trajectory another scenario's (None: it fits this one)."""
    started = trajectory.of_kind("session_started")
    if started:
        data = started[0].data
        origin = (
            f"it is from scenario {data['scenario']!r}"
            if data.get("scenario")
            else "it is from another scenario"
        )
        parties = data.get("parties")
        if isinstance(parties, list) and set(map(str, parties)) != set(scenario.party_names):
            ours = _listed(scenario.party_names)
            return f"{origin} with parties {_listed(parties)}, not {scenario.name}'s {ours}"
        issues = data.get("issues")
        expected = {issue.name: list(issue.values) for issue in scenario.space.issues}
        if isinstance(issues, Mapping) and issues != expected:
            names = list(issues)
            if set(names) != set(expected):
                return f"{origin} with issues {_listed(names)}, not {scenario.name}'s {_listed(expected)}"
            differing = [name for name in names if issues[name] != expected[name]]
            return f"{origin}, whose options of {_listed(differing)} differ from {scenario.name}'s"
    for event in trajectory:
        package: Any = None
        if event.kind == "action" and event.data.get("kind") == "propose":
            package = event.data.get("package")
        elif event.kind == "agreement":
            package = event.data.get("terms")
        else:
            continue
        try:
            if not isinstance(package, Mapping):
                raise TypeError(f"expected a package, got {package!r}")
            scenario.space.validate(package)
        except (ValueError, TypeError, KeyError) as error:
            what = "offer" if event.kind == "action" else event.kind
            return f"the {what} in event {event.seq} is not a package of {scenario.name}: {error}"
    return None


def _listed(names: Any) -> str:
    return ", ".join(str(name) for name in names)
