"""Tournament summaries of time-discounted games (GENIUS discount factors, issue 18): the discounted
utility is averaged beside the undiscounted one and shown only where some game discounts."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from rich.console import Console

from parley.api.tables import summary_table
from parley.experiments.tournament import summarize

GENIUS = Path(__file__).resolve().parents[1] / "data" / "genius"


def _row(agent: str, utility: float, discounted: float | None) -> dict[str, Any]:
    row: dict[str, Any] = {
        "agent": agent,
        "utility": utility,
        "normalized_utility": utility / 10,
        "agreement": True,
        "walked": False,
        "rounds": 4,
        "pareto_distance": 0.0,
    }
    if discounted is not None:
        row["discounted_utility"] = discounted
    return row


def _text(table: Any) -> str:
    console = Console(width=200, record=True)
    console.print(table)
    return console.export_text()


def test_discounted_utility_is_averaged_and_shown_only_when_it_differs() -> None:
    (summary,) = summarize([_row("a", 10.0, 8.0), _row("a", 6.0, 6.0)])
    assert summary.discounted and summary.discounted_utility is not None
    assert summary.discounted_utility.mean == 7.0 and summary.utility.mean == 8.0
    assert "discounted" in _text(summary_table([summary]))


def test_rows_without_a_discount_keep_the_table_as_it_was() -> None:
    # Rows written before discounting existed (no field) and rows of undiscounted games alike.
    (summary,) = summarize([_row("a", 10.0, None), _row("a", 6.0, 6.0)])
    assert not summary.discounted
    assert summary.discounted_utility is not None and summary.discounted_utility.mean == 8.0
    assert "discounted" not in _text(summary_table([summary]))


def test_a_tournament_on_a_discounted_genius_domain_reports_it(tmp_path: Path) -> None:
    import parley

    report = parley.run_tournament(["boulware", "conceder"], [str(GENIUS / "party")], repetitions=1)
    rows = list(report.rows)
    assert rows and all("discounted_utility" in row for row in rows)
    agreed = [row for row in rows if row["agreement"]]
    assert agreed and any(row["discounted_utility"] < row["utility"] for row in agreed)
    assert any(s.discounted for s in report.summaries)
