"""`parley tournament`: every pairing on every scenario, in parallel, with a results table."""

from __future__ import annotations

import os
import signal
from collections.abc import Iterable, Iterator
from concurrent.futures.process import BrokenProcessPool
from pathlib import Path
from typing import Annotated

import typer
from rich.markup import escape
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
    Interrupted,
    ResultStore,
    Row,
    TournamentSpec,
    is_failed,
    plan,
    run_games,
    summarize,
)


def _split(values: list[str]) -> tuple[str, ...]:
    return tuple(item.strip() for value in values for item in value.split(",") if item.strip())


def summary_table(summaries: list[AgentSummary]) -> Table:
    """Mean ± 95% CI per agent over its played games; failed games counted in their own column."""
    table = Table(title="Tournament results (mean ± 95% CI per party-game; failed games left out)")
    for column in (
        "agent",
        "games",
        "failed",
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
            escape(s.agent),
            str(s.games),
            f"[bold red]{s.failed}[/]" if s.failed else "0",
            str(s.normalized_utility),
            str(s.utility),
            str(s.agreement_rate),
            str(s.walk_rate),
            str(s.rounds),
            str(s.pareto_distance),
        )
    return table


class _FailedGames:
    """Counts the failed games among the rows streaming to the summary and keeps the first reason."""

    def __init__(self) -> None:
        self.keys: set[str] = set()
        self.first_error = ""

    def watch(self, rows: Iterable[Row]) -> Iterator[Row]:
        for row in rows:
            if is_failed(row):
                self.keys.add(row["game"])
                self.first_error = self.first_error or str(row.get("error") or row.get("end"))
            yield row


@app.command("tournament")
def tournament(
    agents: Annotated[list[str], typer.Option("--agents", help="Agent names (repeat or comma-separate).")],
    scenarios: Annotated[list[str], typer.Option("--scenarios", help="Scenario names or paths.")],
    out: Annotated[Path, typer.Option(help="Folder for results.jsonl / results.csv (reused to resume).")],
    repetitions: Annotated[int, typer.Option(min=1, help="Games per pairing and scenario.")] = 10,
    jobs: Annotated[int | None, typer.Option(min=1, help="Worker processes (default: all cores).")] = None,
    seed: Annotated[int, typer.Option(min=0, help="Base seed.")] = 0,
    self_play: Annotated[bool, typer.Option("--self-play", help="Also pair each agent with itself.")] = False,
    scheduler: Annotated[
        str | None, typer.Option(help="Dask distributed scheduler address (tcp://host:8786).")
    ] = None,
) -> None:
    """Play a tournament and print per-agent means with 95% confidence intervals.

    Failed games (set-up errors, protocol violations) are counted in their own column; if every
    game failed the command exits with status 1. SIGINT or SIGTERM stops the workers and leaves
    only whole games in the results; the same command resumes.
    """
    spec = TournamentSpec(_split(agents), _split(scenarios), repetitions, seed, self_play)
    try:
        games = plan(spec)
        store = ResultStore(out)
    except ParleyError as error:
        fail(escape(str(error)))
    except OSError as error:
        fail(escape(f"cannot write results to {out}: {error.strerror or error}"))
    workers = jobs or os.cpu_count() or 1
    columns = (
        TextColumn("[bold]tournament"),
        BarColumn(),
        MofNCompleteColumn(),
        TimeElapsedColumn(),
        TimeRemainingColumn(),
    )
    stored = 0
    try:
        with Progress(*columns, console=console, transient=False) as progress:
            task = progress.add_task("games", total=len(games))

            def advance(count: int) -> None:
                nonlocal stored
                stored += count
                progress.advance(task, count)

            run_games(games, store, jobs=workers, scheduler=scheduler, on_progress=advance)
    except KeyboardInterrupt as stop:
        signum = stop.signum if isinstance(stop, Interrupted) else int(signal.SIGINT)
        fail(
            escape(
                f"stopped by {signal.Signals(signum).name} after {stored:,} of {len(games):,} games; "
                f"{store.path} holds whole games only: run the same command again to resume"
            ),
            code=128 + signum,
        )
    except ParleyError as error:
        fail(escape(str(error)), code=1)
    except BrokenProcessPool:
        fail(
            escape(
                f"a worker process died (out of memory?) after {stored:,} of {len(games):,} games; "
                f"{store.path} holds whole games only: run the same command again to resume"
            ),
            code=1,
        )
    except OSError as error:
        fail(escape(f"cannot write results to {store.path}: {error.strerror or error}"), code=1)
    keys = {g.key for g in games}
    failed = _FailedGames()
    try:
        summaries = summarize(failed.watch(row for row in store.iter_rows() if row["game"] in keys))
        csv_path = store.write_csv()
    except OSError as error:
        fail(escape(f"cannot write results to {out}: {error.strerror or error}"), code=1)
    if len(failed.keys) == len(games):
        fail(
            escape(
                f"every game failed ({len(games):,} of {len(games):,}), e.g. {failed.first_error}; "
                f"rows in {store.path}"
            ),
            code=1,
        )
    console.print(summary_table(summaries))
    if failed.keys:
        console.print(
            f"{len(failed.keys):,} of {len(games):,} games failed and are left out of the means, "
            f"e.g. {failed.first_error}",
            markup=False,
        )
    console.print(f"{len(games)} games; results in {store.path} and {csv_path}", markup=False)
