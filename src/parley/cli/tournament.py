"""`parley tournament`: every pairing on every scenario, in parallel, with a results table."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Annotated

import typer
from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    Progress,
    TextColumn,
    TimeElapsedColumn,
    TimeRemainingColumn,
)
from rich.table import Table

from parley.cli.app import app
from parley.cli.common import console, fail
from parley.errors import ParleyError
from parley.experiments.tournament import (
    AgentSummary,
    ResultStore,
    TournamentSpec,
    plan,
    run_games,
    summarize,
)


def _split(values: list[str]) -> tuple[str, ...]:
    return tuple(item.strip() for value in values for item in value.split(",") if item.strip())


def summary_table(summaries: list[AgentSummary]) -> Table:
    """Mean ± 95% CI per agent."""
    table = Table(title="Tournament results (mean ± 95% CI per party-game)")
    for column in (
        "agent",
        "games",
        "utility (norm.)",
        "utility",
        "agreement",
        "walk-away",
        "rounds",
        "Pareto dist.",
    ):
        table.add_column(column, justify="left" if column == "agent" else "right", no_wrap=column == "agent")
    for s in summaries:
        table.add_row(
            s.agent,
            str(s.games),
            str(s.normalized_utility),
            str(s.utility),
            str(s.agreement_rate),
            str(s.walk_rate),
            str(s.rounds),
            str(s.pareto_distance),
        )
    return table


@app.command("tournament")
def tournament(
    agents: Annotated[list[str], typer.Option("--agents", help="Agent names (repeat or comma-separate).")],
    scenarios: Annotated[list[str], typer.Option("--scenarios", help="Scenario names or paths.")],
    out: Annotated[Path, typer.Option(help="Folder for results.jsonl / results.csv (reused to resume).")],
    repetitions: Annotated[int, typer.Option(help="Games per pairing and scenario.")] = 10,
    jobs: Annotated[int, typer.Option(help="Worker processes (default: all cores).")] = 0,
    seed: Annotated[int, typer.Option(help="Base seed.")] = 0,
    self_play: Annotated[bool, typer.Option("--self-play", help="Also pair each agent with itself.")] = False,
    scheduler: Annotated[
        str | None, typer.Option(help="Dask distributed scheduler address (tcp://host:8786).")
    ] = None,
) -> None:
    """Play a tournament and print per-agent means with 95% confidence intervals."""
    spec = TournamentSpec(_split(agents), _split(scenarios), repetitions, seed, self_play)
    try:
        games = plan(spec)
    except ParleyError as error:
        fail(str(error))
    store = ResultStore(out)
    workers = jobs or os.cpu_count() or 1
    columns = (
        TextColumn("[bold]tournament"),
        BarColumn(),
        MofNCompleteColumn(),
        TimeElapsedColumn(),
        TimeRemainingColumn(),
    )
    with Progress(*columns, console=console, transient=False) as progress:
        task = progress.add_task("games", total=len(games))
        run_games(
            games, store, jobs=workers, scheduler=scheduler, on_progress=lambda n: progress.advance(task, n)
        )
    keys = {g.key for g in games}
    rows = [row for row in store.rows() if row["game"] in keys]
    console.print(summary_table(summarize(rows)))
    csv_path = store.write_csv()
    console.print(f"{len(games)} games; results in {store.path} and {csv_path}")
