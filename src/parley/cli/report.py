"""`parley report ratings DIR`: human ratings summarised per instrument, and set beside the runs' metrics.

Reads every `ratings.jsonl` under DIR (the console's rating form writes one into each rated run's
folder), keeps each person's latest rating of each run, and prints per instrument item the mean
with its 95% Student-t interval over those ratings. Where a rated run also holds metrics (a game's
`result.json`, a mediated conversation's or a delegate session's `metrics.json`), each item's
per-run mean is ranked against each metric: Spearman's rank correlation (scipy.stats.spearmanr)
with its two-sided p-value, for pairs of at least `MIN_PAIRS` runs where neither side is constant.
"""

from __future__ import annotations

import math
import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Annotated, Any

import typer

from parley.cli.app import app
from parley.cli.common import console, error_console, fail

report_app = typer.Typer(no_args_is_help=True, help="Summarise what was collected: human ratings of runs.")
app.add_typer(report_app, name="report")

MIN_PAIRS = 3
"""Fewest runs with both a rating and a metric for a rank correlation to be reported."""
_GAME_FIELDS = ("rounds", "pareto_distance", "nash_distance")


@dataclass(frozen=True, slots=True)
class ItemSummary:
    """One item (or an instrument's mean over its items, item "mean") over every rating.

    Attributes:
        instrument: The instrument's key.
        item: The item's key, or "mean" for the mean of the instrument's items.
        scale: Points on its scale.
        ratings: How many ratings (each person's latest of each run).
        runs: How many runs they rate.
        mean: Their mean (nan without ratings).
        low: Lower end of the 95% interval (nan below two ratings).
        high: Upper end of the 95% interval.
    """

    instrument: str
    item: str
    scale: int
    ratings: int
    runs: int
    mean: float
    low: float
    high: float


@dataclass(frozen=True, slots=True)
class Correlation:
    """Spearman's rank correlation between an item's per-run mean and a metric of the same runs."""

    instrument: str
    item: str
    metric: str
    runs: int
    rho: float
    p_value: float


@dataclass(frozen=True, slots=True)
class RatingsReport:
    """What `parley report ratings` found under a folder."""

    ratings: int
    runs: int
    unreadable: tuple[str, ...]
    items: tuple[ItemSummary, ...]
    correlations: tuple[Correlation, ...]


def _number(value: Any) -> float | None:
    if isinstance(value, bool):
        return float(value)
    if isinstance(value, int | float) and math.isfinite(float(value)):
        return float(value)
    return None


def run_metrics(folder: Path) -> dict[str, float]:
    """The numeric metrics a run folder holds (its own party's utilities for a game played in the console)."""
    from parley.web.runs import read_object

    found: dict[str, float] = {}
    for key, value in read_object(folder / "metrics.json").items():
        number = _number(value)
        if number is not None:
            found[key] = number
    result = read_object(folder / "result.json")
    if result:
        found["agreement"] = 1.0 if result.get("agreement") else 0.0
        for key in _GAME_FIELDS:
            number = _number(result.get(key))
            if number is not None:
                found[key] = number
        found |= _player_metrics(folder, result)
    return found


def _player_metrics(folder: Path, result: Mapping[str, Any]) -> dict[str, float]:
    """The utility of the party the person played, for a game played in the console."""
    from parley.web.runs import as_list, as_object, read_object

    party = read_object(folder / "game.json").get("party")
    found: dict[str, float] = {}
    for row in map(as_object, as_list(result.get("parties"))):
        if party is not None and row.get("party") == party:
            for key in ("utility", "normalized_utility"):
                number = _number(row.get(key))
                if number is not None:
                    found[f"player_{key}"] = number
    return found


def _summary(instrument: str, item: str, scale: int, values: Sequence[float], runs: int) -> ItemSummary:
    from parley.metrics.stats import mean_ci

    estimate = mean_ci(values)
    return ItemSummary(
        instrument, item, scale, estimate.count, runs, estimate.mean, estimate.low, estimate.high
    )


def _correlations(
    instrument: str, item: str, per_run: Mapping[str, float], metrics: Mapping[str, Mapping[str, float]]
) -> list[Correlation]:
    from scipy.stats import spearmanr

    names = sorted({name for run in per_run for name in metrics.get(run, {})})
    found: list[Correlation] = []
    for name in names:
        pairs = [
            (per_run[run], metrics[run][name]) for run in sorted(per_run) if name in metrics.get(run, {})
        ]
        xs, ys = [x for x, _ in pairs], [y for _, y in pairs]
        if len(pairs) < MIN_PAIRS or len(set(xs)) < 2 or len(set(ys)) < 2:
            continue
        result: Any = spearmanr(xs, ys)  # (scipy's result type is not annotated)
        rho, p_value = float(result.statistic), float(result.pvalue)
        found.append(Correlation(instrument, item, name, len(pairs), rho, p_value))
    return found


def summarise(root: Path) -> RatingsReport:
    """Every rating under root, summarised per instrument item, with rank correlations to run metrics."""
    from parley.web.ratings import INSTRUMENTS, Rating, latest_ratings, read_ratings, walk_ratings

    found: list[Rating] = []
    unreadable: list[str] = []
    metrics: dict[str, dict[str, float]] = {}
    for run_id, folder in walk_ratings(root):
        ratings, problems = read_ratings(folder / "ratings.jsonl", run_id)
        found.extend(ratings)
        unreadable.extend(problems)
        if ratings:
            metrics[run_id] = run_metrics(folder)
    latest = latest_ratings(found)
    items: list[ItemSummary] = []
    correlations: list[Correlation] = []
    for instrument in INSTRUMENTS.values():
        rated = [r for r in latest if r.instrument == instrument.key]
        if not rated:
            continue
        runs = len({r.run for r in rated})
        columns: list[tuple[str, int, list[float]]] = [
            (item.key, item.scale, [float(r.scores[item.key]) for r in rated]) for item in instrument.items
        ]
        columns.append(("mean", 0, [sum(r.scores.values()) / len(r.scores) for r in rated]))
        for key, scale, values in columns:
            items.append(_summary(instrument.key, key, scale, values, runs))
            by_run: dict[str, list[float]] = {}
            for rating, value in zip(rated, values, strict=True):
                by_run.setdefault(rating.run, []).append(value)
            per_run = {run: sum(v) / len(v) for run, v in by_run.items()}
            correlations.extend(_correlations(instrument.key, key, per_run, metrics))
    return RatingsReport(
        len(latest), len({r.run for r in latest}), tuple(unreadable), tuple(items), tuple(correlations)
    )


def _finite(value: float) -> float | None:
    return value if math.isfinite(value) else None


def report_json(report: RatingsReport) -> dict[str, Any]:
    """The report as strict JSON (a value that does not exist is null)."""
    return {
        "ratings": report.ratings,
        "runs": report.runs,
        "unreadable_lines": len(report.unreadable),
        "items": [
            {
                "instrument": s.instrument,
                "item": s.item,
                "scale": s.scale or None,
                "ratings": s.ratings,
                "runs": s.runs,
                "mean": _finite(s.mean),
                "ci95": [_finite(s.low), _finite(s.high)],
            }
            for s in report.items
        ],
        "correlations": [
            {
                "instrument": c.instrument,
                "item": c.item,
                "metric": c.metric,
                "runs": c.runs,
                "spearman_rho": _finite(c.rho),
                "p_value": _finite(c.p_value),
            }
            for c in report.correlations
        ],
    }


def _interval(summary: ItemSummary) -> str:
    if not math.isfinite(summary.low):
        return "—"
    return f"{summary.low:.2f} – {summary.high:.2f}"


def _print(report: RatingsReport) -> None:
    from rich.table import Table
    from rich.text import Text

    table = Table(title=f"Ratings: {report.ratings} ratings of {report.runs} runs (each person's latest)")
    for column in ("instrument", "item"):
        table.add_column(column)
    for column in ("scale", "ratings", "runs", "mean", "95% CI"):
        table.add_column(column, justify="right")
    for s in report.items:
        scale = f"1–{s.scale}" if s.scale else "—"
        table.add_row(
            Text(s.instrument),
            Text(s.item),
            scale,
            str(s.ratings),
            str(s.runs),
            f"{s.mean:.2f}",
            _interval(s),
        )
    console.print(table)
    if not report.correlations:
        console.print(
            f"No rank correlations: they need at least {MIN_PAIRS} rated runs that hold the same metric.",
            markup=False,
        )
        return
    ranked = Table(title="Spearman rank correlation of each item's per-run mean with the runs' metrics")
    for column in ("instrument", "item", "metric"):
        ranked.add_column(column)
    for column in ("runs", "rho", "p"):
        ranked.add_column(column, justify="right")
    for c in sorted(report.correlations, key=lambda c: (c.instrument, c.item, -abs(c.rho))):
        ranked.add_row(
            Text(c.instrument), Text(c.item), Text(c.metric), str(c.runs), f"{c.rho:+.2f}", f"{c.p_value:.3f}"
        )
    console.print(ranked)


@report_app.command("ratings")
def ratings_command(
    folder: Annotated[
        Path, typer.Argument(metavar="DIR", help="Folder of runs: every ratings.jsonl under it is read.")
    ],
    as_json: Annotated[bool, typer.Option("--json", help="Print the summary as JSON.")] = False,
) -> None:
    """Summarise human ratings per instrument (95% intervals) and rank-correlate them with run metrics.

    Exits with 1 when DIR holds no readable rating.
    """
    if not os.path.isdir(folder):  # (False, not OSError, for a name too long to look up)
        fail(f"{folder}: no such folder of runs (rated runs hold a ratings.jsonl)")
    try:
        report = summarise(folder)
    except OSError as error:
        fail(f"cannot read {folder}: {error.strerror or error}")
    if report.ratings == 0:
        bad = (
            f"; {len(report.unreadable)} lines could not be read, first {report.unreadable[0]}"
            if report.unreadable
            else ""
        )
        fail(
            f"no readable ratings under {folder} (the console's rating form writes ratings.jsonl){bad}",
            code=1,
        )
    if report.unreadable:
        error_console.print(
            f"warning: {len(report.unreadable)} rating lines could not be read; first {report.unreadable[0]}",
            markup=False,
        )
    if as_json:
        from parley.jsonio import dumps

        typer.echo(dumps(report_json(report), indent=2))
        return
    _print(report)
