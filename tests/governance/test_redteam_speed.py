"""Red-team findings on crafted text (issue 14): every scan grows linearly, and a message over the size
limit is refused before any scan.

Growth is measured in CPU time (tests/linear_growth.py), never wall-clock: 8x the text must cost well
under the 64x of a quadratic reader. Before the fixes a line of "-" took 13.7 s of the preflight's 18 s in
one disclosure pattern (`^\\W*(?:[\\w-]+\\s+)...`), "1-1-…" another (`[\\w-]+s` tried at every offset of
one token), and a reply of "$1,$1,…" searched the whole message for the fields' keywords once per figure.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from linear_growth import assert_grows_linearly
from parley.cli.app import app
from parley.governance.config import DomainConfig
from parley.governance.delegate import Delegate
from parley.governance.disclosure import lexicon
from parley.governance.extraction import ExtractionContext, PatternExtractor
from parley.governance.moderator import RuleModerator, max_message_chars
from parley.governance.preflight import preflight
from parley.governance.store import SessionStore
from parley.governance.text import _phrase_starts, keyword_distance  # pyright: ignore[reportPrivateUsage]

CRAFTED = ["-", "1-", "$1,", "we ", "- ", ")("]


@pytest.mark.parametrize("unit", ["-", "1-"])
def test_disclosure_bound_patterns_grow_linearly(unit: str) -> None:
    bounds = lexicon().bounds
    assert_grows_linearly(lambda text: [list(b.pattern.finditer(text)) for b in bounds], unit, 1_000, 8)


@pytest.mark.parametrize("unit", CRAFTED)
def test_preflight_grows_linearly_on_crafted_text(staffing: DomainConfig, unit: str) -> None:
    assert_grows_linearly(lambda text: preflight(text, staffing), unit, 1_000, 8, slack=4.0)


@pytest.mark.parametrize("unit", CRAFTED)
def test_classify_grows_linearly_on_crafted_text(staffing: DomainConfig, unit: str) -> None:
    moderator = RuleModerator(staffing)
    assert_grows_linearly(moderator.classify, unit, 1_000, 8, slack=4.0)


def test_keyword_distance_per_figure_is_linear() -> None:
    keywords = ("salary", "base pay", "compensation")

    def every_figure(text: str) -> None:
        _phrase_starts.cache_clear()  # measure the scan, not the cache (cpu_seconds runs twice)
        for position in range(0, len(text), 3):
            keyword_distance(text, position, keywords)

    assert_grows_linearly(every_figure, "$1,", 1_000, 8)


def test_keyword_distance_finds_the_nearest_keyword() -> None:
    text = "salary $1, then $2 and base pay $3, salary"
    for position in range(len(text)):
        starts = [i for i in range(len(text)) if text.startswith(("salary", "base pay"), i)]
        expected = min(abs(s - position) for s in starts)
        assert keyword_distance(text, position, ["salary", "base pay"]) == expected
    assert keyword_distance("no keyword here", 3, ["salary"]) is None


def test_extraction_of_many_figures_grows_linearly(staffing: DomainConfig) -> None:
    extractor = PatternExtractor(staffing)

    def extract(text: str) -> None:
        _phrase_starts.cache_clear()
        extractor.extract(text, ExtractionContext())

    for unit in ("$1,", "1", "111,"):  # "1111…" and "111,111,…": every digit once tried as a figure's start
        assert_grows_linearly(extract, unit, 1_000, 8, slack=4.0)


def test_an_overlong_message_is_refused_before_any_scan(staffing: DomainConfig) -> None:
    delegate = Delegate(staffing, "s")
    delegate.open()
    delegate.receive("$1," * (max_message_chars() // 3 + 1))
    kinds = [e.kind for e in delegate.trajectory]
    inbound = kinds.index("counterparty_message")
    assert "terms_read" not in kinds[inbound:]
    safety = [dict(e.data) for e in delegate.trajectory if e.kind == "safety_event"]
    assert any(event.get("reason") == "too long" for event in safety)


def test_cli_reply_refuses_an_overlong_message_in_one_line(tmp_path: Path) -> None:
    runner = CliRunner()
    db = str(tmp_path / "r.db")
    started = runner.invoke(app, ["delegate", "start", "staffing", "--db", db])
    assert started.exit_code == 0, started.output
    session = started.output.split("session ")[1].split(":")[0]
    before = len(SessionStore(Path(db)).load_events(session))
    message = ("$1," * 7_000)[: max_message_chars() + 1]
    result = runner.invoke(app, ["delegate", "reply", session, "--message", message, "--db", db])
    assert result.exit_code != 0
    assert result.output.count("\n") == 1 and "over the 20,000-character limit" in result.output
    assert "Traceback" not in result.output
    events = SessionStore(Path(db)).load_events(session)
    assert len(events) == before  # nothing read, nothing recorded: the message never reached a scan
    assert not [e for e in events[before:] if e.kind in ("terms_read", "moderator_label")]
    # a message at the limit is still read
    result = runner.invoke(app, ["delegate", "reply", session, "--message", message[:-1], "--db", db])
    assert result.exit_code == 0, result.output
