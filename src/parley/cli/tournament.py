"""`parley tournament`: every pairing on every scenario, in parallel, with a results table."""

from __future__ import annotations

import os
import signal
import sys
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, NoReturn

import typer

from parley.cli.app import app
from parley.cli.common import console, fail, report_error
from parley.cli.extras import require_extra
from parley.cli.options import MAX_COUNT, MAX_JOBS
from parley.cli.scenarios import check_format
from parley.errors import ParleyError
from parley.scenarios.sources import FORMATS

if TYPE_CHECKING:  # the tournament's modules (and scipy's statistics) load when one is played
    from parley.experiments.tournament import Game, Row, TournamentSpec


def _split(values: list[str]) -> tuple[str, ...]:
    return tuple(item.strip() for value in values for item in value.split(",") if item.strip())


def _with_format(scenarios: tuple[str, ...], format: str | None) -> tuple[str, ...]:
    """Each scenario path as "FORMAT:PATH" when --format names the paths' format (the workers load
    scenarios by these strings); shipped names and already prefixed paths stay as they are."""
    if format is None:
        return scenarios
    from parley.scenarios.sources import is_path_like, split_reference

    return tuple(
        f"{format}:{name}" if split_reference(name)[0] is None and is_path_like(name) else name
        for name in scenarios
    )


class _FailedGames:
    """Counts the failed games among the rows streaming to the summary and keeps the first reason."""

    def __init__(self) -> None:
        self.keys: set[str] = set()
        self.first_error = ""

    def watch(self, rows: Iterable[Row]) -> Iterator[Row]:
        from parley.experiments.tournament import is_failed

        for row in rows:
            if is_failed(row):
                self.keys.add(row["game"])
                self.first_error = self.first_error or str(row.get("error") or row.get("end"))
            yield row


def _plan(spec: TournamentSpec) -> list[Game]:
    """Every game of spec, or a one-line error (an unknown agent or scenario, an unreadable file)."""
    from parley.experiments.tournament import plan

    try:
        return plan(spec)
    except ParleyError as error:
        fail(str(error))
    except OSError as error:  # a scenario path too long to be one, or unreadable
        fail(f"cannot read scenario {error.filename or ''}: {error.strerror or error}")


def _stopped(message: str, code: int, *, pool: bool) -> NoReturn:
    """Report a stop signal in one line and exit with code.

    With a local process pool the workers are stopped and every stored game is synced, but the
    pool's threads may still be feeding the dead workers' pipes; interpreter shutdown would join them
    (it can hang) or print their traceback from a closed pipe, so the process ends at once.
    """
    if pool:
        report_error(message)
        sys.stdout.flush()
        sys.stderr.flush()
        os._exit(code)
    fail(message, code=code)


@app.command("tournament")
def tournament(
    agents: Annotated[list[str], typer.Option("--agents", help="Agent names (repeat or comma-separate).")],
    scenarios: Annotated[
        list[str],
        typer.Option(
            "--scenarios",
            help="Scenario names, or scenario files and folders (YAML, GENIUS, GeniusWeb, game folders).",
        ),
    ],
    out: Annotated[Path, typer.Option(help="Folder for results.jsonl / results.csv (reused to resume).")],
    repetitions: Annotated[
        int, typer.Option(min=1, max=MAX_COUNT, help="Games per pairing and scenario.")
    ] = 10,
    jobs: Annotated[
        int | None, typer.Option(min=1, max=MAX_JOBS, help="Worker processes (default: all cores).")
    ] = None,
    seed: Annotated[int, typer.Option(min=0, help="Base seed.")] = 0,
    self_play: Annotated[bool, typer.Option("--self-play", help="Also pair each agent with itself.")] = False,
    scheduler: Annotated[
        str | None, typer.Option(help="Dask distributed scheduler address (tcp://host:8786).")
    ] = None,
    format: Annotated[
        str | None,
        typer.Option(
            "--format",
            help=f"Format of the --scenarios paths: {', '.join(FORMATS)} (default: detected per path).",
            callback=check_format,
        ),
    ] = None,
    mediator: Annotated[
        str,
        typer.Option(
            "--mediator",
            help="Offer mediator consulted on stagnation (the rules' on_stagnation becomes 'mediate'): "
            "none, pareto, proactive (asked every round; proactive(KEY=VALUE,...) sets its options), "
            "a parley.mediators plugin or package.module:factory.",
        ),
    ] = "none",
) -> None:
    """Play a tournament and print per-agent means with 95% confidence intervals.

    Failed games (set-up errors, protocol violations) are counted in their own column; if every
    game failed the command exits with status 1. SIGINT or SIGTERM stops the workers and leaves
    only whole games in the results; the same command resumes.
    """
    from concurrent.futures.process import BrokenProcessPool

    from rich.progress import (
        BarColumn,
        MofNCompleteColumn,
        Progress,
        TextColumn,
        TimeElapsedColumn,
        TimeRemainingColumn,
    )

    from parley.api.tables import summary_table
    from parley.experiments.tournament import (
        ResultStore,
        TournamentSpec,
        run_games,
        summarize,
    )

    if scheduler is not None:
        require_extra("dask", "--scheduler")
    spec = TournamentSpec(
        _split(agents), _with_format(_split(scenarios), format), repetitions, seed, self_play, mediator
    )
    games = _plan(spec)
    try:
        store = ResultStore(out)
    except ParleyError as error:
        fail(str(error))
    except OSError as error:
        fail(f"cannot write results to {out}: {error.strerror or error}")
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
        signum = int(getattr(stop, "signum", signal.SIGINT))  # batch.Interrupted carries the signal
        _stopped(
            f"stopped by {signal.Signals(signum).name} after {stored:,} of {len(games):,} games; "
            f"{store.path} holds whole games only: run the same command again to resume",
            128 + signum,
            pool=workers > 1 and scheduler is None,
        )
    except ParleyError as error:
        fail(str(error), code=1)
    except BrokenProcessPool:
        fail(
            f"a worker process died (out of memory?) after {stored:,} of {len(games):,} games; "
            f"{store.path} holds whole games only: run the same command again to resume",
            code=1,
        )
    except OSError as error:
        fail(f"cannot write results to {store.path}: {error.strerror or error}", code=1)
    keys = {g.key for g in games}
    failed = _FailedGames()
    try:
        summaries = summarize(failed.watch(row for row in store.iter_rows() if row["game"] in keys))
        csv_path = store.write_csv()
    except OSError as error:
        fail(f"cannot write results to {out}: {error.strerror or error}", code=1)
    if len(failed.keys) == len(games):
        fail(
            f"every game failed ({len(games):,} of {len(games):,}), e.g. {failed.first_error}; "
            f"rows in {store.path}",
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
