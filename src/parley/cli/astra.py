"""`parley experiment astra`: the seed's table 1, λ heatmap and a baseline tournament for ASTRA."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Annotated

import typer

from parley.cli.app import experiment_app
from parley.cli.common import console, fail
from parley.cli.extras import require_extra
from parley.cli.options import MAX_COUNT, MAX_JOBS
from parley.errors import ParleyError


@experiment_app.command("astra")
def astra_experiment(
    runs: Annotated[
        int, typer.Option("--runs", min=1, max=MAX_COUNT, help="Runs per table-1 cell (seed: 100).")
    ] = 100,
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
            help="Sessions per scenario x baseline pair (0: skip).",
        ),
    ] = 10,
) -> None:
    """ASTRA and its ablation vs base, greedy and fair partners on random CaSiNo games, plus a tournament."""
    require_extra("plot", "parley experiment astra")
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

    from parley.cli.common import check_writable
    from parley.experiments.astra import plan_runs, run_experiment, write_csv, write_report

    csv_target = out.with_name(out.stem + "_runs.csv") if out.name else out
    check_writable(out, "write the report")
    check_writable(csv_target, "write the runs")
    try:
        specs = plan_runs(runs, tournament_seeds=tournament_seeds, tournament=tournament_seeds > 0)
        columns = (TextColumn("astra experiment"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn())
        with Progress(*columns, console=console) as progress:
            task = progress.add_task("runs", total=len(specs))
            records = run_experiment(
                specs, jobs=jobs, on_progress=lambda done, _total: progress.update(task, completed=done)
            )
        csv_path = write_csv(records, csv_target)
        command = f"parley experiment astra --runs {runs} --jobs {jobs} --tournament-seeds {tournament_seeds}"
        report = write_report(records, out, command=command)
    except ParleyError as error:
        fail(str(error))
    except OSError as error:
        fail(f"cannot write the report {out}: {error.strerror or error}", code=1)
    console.print(f"wrote {report} and {csv_path} ({len(records)} sessions)")
