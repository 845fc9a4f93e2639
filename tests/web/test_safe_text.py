"""Counterparty text reaches the page (and the terminal) without control characters or escape sequences."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from parley.governance import SessionStore, StoredPrincipal, load_config, run_session
from parley.governance.counterparties import ScriptedCounterparty
from parley.governance.safe_text import printable
from parley.protocol.clock import FakeClock
from parley.web import create_app

from .support import START, TestClient, add_principal, sign_in

_UNSAFE = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]")


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("clear\x1b[2J the screen", "clear the screen"),
        ("\x1b[1;31mred\x1b[0m", "red"),
        ("\x1b[?1049h alternate screen", " alternate screen"),
        ("title\x1b]0;pwned\x07 set", "title set"),
        ("title\x1b]2;pwned\x1b\\ set", "title set"),
        ("\x1b]8;;http://x\x1b\\click me\x1b]8;;\x1b\\", "click me"),
        ("8-bit CSI\x9b2J here", "8-bit CSI here"),
        ("8-bit OSC\x9d0;t\x9c here", "8-bit OSC here"),
        ("lone C1\x9b", "lone C1"),
        ("\x1bcreset", "reset"),
        ("charset\x1b(B switch", "charset switch"),
        ("DCS\x1bPq#0;2;0;0;0\x1b\\ sixel", "DCS sixel"),
        ("pay \u202e000,51$\u202c now", "pay 000,51$ now"),
        ("\u2066isolate\u2069 \u202aembed\u202b \u202dover", "isolate embed over"),
        ("bell\x07 nul\x00 del\x7f cr\r back\x08", "bell nul del cr back"),
        ("lines\nand\ttabs stay", "lines\nand\ttabs stay"),
        ("unterminated \x1b]0;title", "unterminated 0;title"),
        ("trailing escape \x1b", "trailing escape "),
        ("Ünïcödé — $115K, 漢字, emoji 🙂 stay", "Ünïcödé — $115K, 漢字, emoji 🙂 stay"),
    ],
)
def test_printable_strips_controls_and_escape_sequences(text: str, expected: str) -> None:
    assert printable(text) == expected


@given(st.text())
def test_printable_leaves_no_control_character_and_is_idempotent(text: str) -> None:
    cleaned = printable(text)
    assert not _UNSAFE.search(cleaned)
    assert printable(cleaned) == cleaned


@given(
    st.text(
        alphabet=st.characters(
            exclude_categories=("Cc", "Cs"),
            exclude_characters="\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069",
        )
    )
)
def test_printable_keeps_ordinary_text(text: str) -> None:
    assert printable(text) == text


_HOSTILE = "\x1b[2J\x1b]0;pwned\x07\x1b]8;;http://evil.example\x1b\\\u202e\x9b5m"
_SCRIPT = [
    "Work authorization - I need H-1B sponsorship." + _HOSTILE,
    "Yes, a 6-hour overlap with Pacific time works. I'm fully remote from Toronto." + _HOSTILE,
    "8 years, mostly Python and React." + _HOSTILE,
    "I could start in January. Permanent role, please." + _HOSTILE,
    "Compensation expectations: $90K-$110K." + _HOSTILE,
    "I'd prefer $105K given my 8 years of experience." + _HOSTILE,
]


def _strings(value: Any) -> list[str]:
    if isinstance(value, str):
        return [value]
    if isinstance(value, dict):
        return [s for key, item in value.items() for s in [key, *_strings(item)]]
    if isinstance(value, list):
        return [s for item in value for s in _strings(item)]
    return []


def test_the_console_serves_hostile_counterparty_text_stripped(tmp_path: Path) -> None:
    db = tmp_path / "hostile.db"
    store = SessionStore(db)
    try:
        outcome = run_session(
            load_config("staffing"),
            ScriptedCounterparty(_SCRIPT),
            StoredPrincipal(),
            store,
            config_source="staffing",
            clock=FakeClock(START),
        )
        stored = [e for e in store.load_events(outcome.session_id) if e.kind == "counterparty_message"]
    finally:
        store.close()
    assert outcome.paused and "\x1b[2J" in str(stored[0].data["text"])  # the raw record keeps it
    token = add_principal(db)
    with TestClient(create_app(db, clock=FakeClock(START))) as client:
        sign_in(client, token)
        base = f"/api/sessions/{outcome.session_id}"
        answers = {
            path: client.get(path).json() for path in ("/api/inbox", "/api/sessions", base, f"{base}/audit")
        }
        decided = client.post(
            f"{base}/decide",
            json={
                "request_id": answers[base]["pending"]["request_id"],
                "version": answers[base]["version"],
                "option": answers[base]["pending"]["options"][0]["key"],
            },
        )
        assert decided.status_code == 200, decided.text
        answers["decide"] = decided.json()
        answers["after"] = client.get(base).json()
        trajectory = client.get(f"{base}/trajectory").text
    for where, answer in answers.items():
        for text in _strings(answer):
            assert not _UNSAFE.search(text), (where, text)
    said = [e["text"] for e in answers[base]["transcript"] if e["speaker"] == "counterparty"]
    assert said[0] == "Work authorization - I need H-1B sponsorship."
    last = answers["/api/inbox"]["items"][0]["request"]["last_messages"]
    clean = {line.removesuffix(_HOSTILE) for line in _SCRIPT}
    theirs = [m["text"] for m in last if m["speaker"] == "counterparty"]
    assert theirs and set(theirs) <= clean
    assert "\\u001b[2J" in trajectory  # the download is the faithful record, JSON-escaped
