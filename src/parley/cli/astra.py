"""`parley experiment astra`: the seed's table 1, λ heatmap and a baseline tournament for ASTRA."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Annotated

import typer
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

from parley.cli.app import experiment_app
from parley.cli.common import console, fail
from parley.errors import ParleyError
from parley.experiments.astra import plan_runs, run_experiment, write_csv, write_report


@experiment_app.command("astra")
def astra_experiment(
    runs: Annotated[int, typer.Option("--runs", min=1, help="Runs per table-1 cell (seed: 100).")] = 100,
    jobs: Annotated[
        int, typer.Option("--jobs", min=1, help="Worker processes (default: CPU count).")
    ] = os.cpu_count() or 1,
    out: Annotated[Path, typer.Option("--out", help="Markdown report to write.")] = Path(
        "docs/results/astra.md"
    ),
    tournament_seeds: Annotated[
        int,
        typer.Option("--tournament-seeds", min=0, help="Sessions per scenario x baseline pair (0: skip)."),
    ] = 10,
) -> None:
    """ASTRA and its ablation vs base, greedy and fair partners on random CaSiNo games, plus a tournament."""
    try:
        specs = plan_runs(runs, tournament_seeds=tournament_seeds, tournament=tournament_seeds > 0)
        columns = (TextColumn("astra experiment"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn())
        with Progress(*columns, console=console) as progress:
            task = progress.add_task("runs", total=len(specs))
            records = run_experiment(
                specs, jobs=jobs, on_progress=lambda done, _total: progress.update(task, completed=done)
            )
        csv_path = write_csv(records, out.with_name(out.stem + "_runs.csv"))
        command = f"parley experiment astra --runs {runs} --jobs {jobs} --tournament-seeds {tournament_seeds}"
        report = write_report(records, out, command=command)
    except ParleyError as error:
        fail(str(error))
    console.print(f"wrote {report} and {csv_path} ({len(records)} sessions)")
