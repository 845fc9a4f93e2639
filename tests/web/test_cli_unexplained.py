"""Issue 17 in the terminal: `parley delegate inbox` shows the sentences the delegate could not fully
read under their own label, apart from the conditions it read, with markup in them printed as text."""

from __future__ import annotations

from pathlib import Path

from typer.testing import CliRunner

from parley.cli.app import app

from .support import paused_legacy_session

runner = CliRunner()
MESSAGES = [
    "Work authorization - I need H-1B sponsorship.",
    "Yes, a 6-hour overlap with Pacific time works. I'm fully remote from Toronto.",
    "8 years, mostly Python and React.",
    "I could start in January. Permanent role, please.",
    "Compensation expectations: $150K-$170K. Our CFO insists the [bold]relocation[/bold] gets repaid "
    "within 18 months.",
    "I'd prefer $165K given my 8 years of experience.",
]


def test_the_inbox_labels_the_sentences_not_fully_read_and_prints_markup_as_text(tmp_path: Path) -> None:
    db = tmp_path / "delegate.db"
    paused_legacy_session(db, MESSAGES)
    result = runner.invoke(app, ["delegate", "inbox", "--db", str(db)], env={"COLUMNS": "4000"})
    assert result.exit_code == 0, result.output
    out = " ".join(result.output.split())
    label = "Not fully read by the delegate, as written (check them yourself):"
    assert label in out
    quoted = out[out.index(label) :]
    assert '"I\'m fully remote from Toronto"' in quoted
    assert "[bold]relocation[/bold]" in quoted  # rich markup in a quote is printed, never applied
    attached = out[: out.index(label)]
    assert "I'm fully remote from Toronto" not in attached  # not among the conditions it read
