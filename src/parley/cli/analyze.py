"""`parley analyze`: the outcome space of a scenario, its bargaining solutions, and a run's offers."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer
from rich.table import Table

from parley.cli.app import app
from parley.cli.common import console, fail, load


@app.command("analyze")
def analyze(
    scenario_name: Annotated[
        str, typer.Argument(metavar="SCENARIO", help="Shipped scenario name or YAML path.")
    ],
    plot: Annotated[
        Path | None, typer.Option(help="Write a PNG of the outcome space (and offers) here.")
    ] = None,
    trajectory: Annotated[
        Path | None, typer.Option(help="A saved trajectory.jsonl to overlay on the plot.")
    ] = None,
) -> None:
    """Outcome space size, Pareto frontier, Nash / Kalai–Smorodinsky / max-welfare points."""
    from parley.protocol.events import Trajectory

    scenario = load(scenario_name)
    if not scenario.space.fits_in_memory():
        fail(f"{scenario.name} has {scenario.space.size:,} outcomes, too many to enumerate for analysis")
    analysis = scenario.analysis
    console.print(
        f"[bold]{scenario.title}[/]: {scenario.space.size:,} outcomes, "
        f"{analysis.frontier.size} on the Pareto frontier, "
        f"{int(analysis.individually_rational.sum()):,} above every BATNA"
    )
    table = Table(title="Bargaining solutions")
    table.add_column("solution")
    table.add_column("package")
    for name in scenario.party_names:
        table.add_column(name, justify="right")
    solutions = (
        ("Nash", analysis.nash),
        ("Kalai–Smorodinsky", analysis.kalai),
        ("max welfare", analysis.max_welfare),
    )
    for label, index in solutions:
        if index is None:
            table.add_row(label, "none above every BATNA", *["—"] * len(scenario.parties))
            continue
        package = ", ".join(f"{k}={v}" for k, v in analysis.outcome(index).items())
        table.add_row(label, package, *(f"{u:g}" for u in analysis.points[index]))
    console.print(table)
    loaded = None
    if trajectory is not None:
        try:
            loaded = Trajectory.load(trajectory)
        except (OSError, ValueError, KeyError) as error:
            fail(f"cannot read trajectory {trajectory}: {error}")
    if plot is not None:
        if len(scenario.parties) < 2:
            fail("plotting needs at least two parties")
        from parley.experiments.plots import plot_outcome_space

        console.print(f"Plot written to {plot_outcome_space(scenario, plot, loaded)}")
