"""Issue 17: the sentences the delegate could not fully read reach the principal's console under their
own label, apart from the conditions it read, as plain text (never HTML), cut as the reader cuts them."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from parley.governance import SessionStore
from parley.governance.term_guard import MAX_QUOTE, UNEXPLAINED
from parley.protocol.clock import FakeClock
from parley.web import create_app

from .support import START, TestClient, add_principal, paused_legacy_session, sign_in

SCRIPT = "Our CFO insists the <script>alert(1)</script> relocation gets repaid\x07 within 18 months."
LONG = "The board wants " + "x" * 2000 + " 18 months."
MESSAGES = [
    "Work authorization - I need H-1B sponsorship.",
    "Yes, a 6-hour overlap with Pacific time works. I'm fully remote from Toronto.",
    "8 years, mostly Python and React.",
    "I could start in January. Permanent role, please.",
    f"Compensation expectations: $150K-$170K. {SCRIPT}",
    f"I'd prefer $165K given my 8 years of experience. {LONG}",
]


def _paused(db: Path) -> str:
    return paused_legacy_session(db, MESSAGES).session_id


def _inbox(tmp_path: Path) -> tuple[dict[str, Any], str]:
    inbox, session_id, _ = _served(tmp_path)
    return inbox, session_id


def _served(tmp_path: Path) -> tuple[dict[str, Any], str, list[dict[str, Any]]]:
    """The inbox as served, the session's id and the conditions its open request stores."""
    db = tmp_path / "delegate.db"
    session_id = _paused(db)
    store = SessionStore(db)
    try:
        request = store.open_request(session_id)
    finally:
        store.close()
    assert request is not None
    stored: list[dict[str, Any]] = list(request.ledger["conditions"])
    token = add_principal(db)
    with TestClient(create_app(db, clock=FakeClock(START + 60))) as client:
        sign_in(client, token)
        response = client.get("/api/inbox")
        assert response.status_code == 200, response.text
        text = response.text
    return json.loads(text, parse_constant=_no_constant), session_id, stored


def _no_constant(name: str) -> None:
    raise AssertionError(f"not strict JSON: {name}")


def test_unexplained_sentences_have_their_own_list_apart_from_the_conditions(tmp_path: Path) -> None:
    inbox, session_id, stored = _served(tmp_path)
    request = inbox["items"][0]["request"]
    assert inbox["items"][0]["session_id"] == session_id
    unexplained = request["unexplained"]
    assert unexplained and all(c["source"] == UNEXPLAINED and c["quoted"] for c in unexplained)
    assert "I'm fully remote from Toronto" in [c["text"] for c in unexplained]
    assert all(c.get("source") != UNEXPLAINED for c in request["conditions"])
    texts = [c["text"] for c in (*request["conditions"], *unexplained)]
    assert sorted(texts) == sorted(c["text"] for c in stored)  # split, nothing dropped or added
    assert [c.get("source") == UNEXPLAINED for c in stored].count(True) == len(unexplained)


def test_a_quoted_script_tag_is_text_and_control_characters_are_gone(tmp_path: Path) -> None:
    inbox, _ = _inbox(tmp_path)
    request = inbox["items"][0]["request"]
    quoted = [c["text"] for c in request["unexplained"] if "CFO" in c["text"]]
    assert quoted == ["Our CFO insists the <script>alert(1)</script> relocation gets repaid within 18 months"]
    every = json.dumps(request)
    assert "\x07" not in every and "\\u0007" not in every
    script = Path(__file__).parents[2] / "src" / "parley" / "web" / "static" / "console.js"
    source = script.read_text(encoding="utf-8")
    assert "(request.unexplained || []).map" in source and "innerHTML" not in source
    assert "Not fully read by the delegate, as written (check them yourself)" in source


def test_a_two_thousand_character_sentence_is_cut_as_the_reader_cuts_it(tmp_path: Path) -> None:
    inbox, _ = _inbox(tmp_path)
    request = inbox["items"][0]["request"]
    texts = [c["text"] for c in (*request["conditions"], *request["unexplained"])]
    board = [t for t in texts if t.startswith("The board wants")]
    assert board and all(len(t) <= MAX_QUOTE + 1 and t.endswith("…") for t in board)
