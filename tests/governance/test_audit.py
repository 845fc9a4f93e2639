"""The hash-chained audit log: edits, deletions, truncation and appends after the seal are located."""

from __future__ import annotations

import json

import pytest

from parley.errors import ScenarioError
from parley.governance.config import DomainConfig
from parley.governance.counterparties import SimulatedCounterparty
from parley.governance.escalation import PolicyPrincipal
from parley.governance.session import run_session
from parley.governance.store import SessionStore


@pytest.fixture
def sealed(staffing: DomainConfig) -> tuple[SessionStore, str, int]:
    store = SessionStore()
    outcome = run_session(
        staffing,
        SimulatedCounterparty(staffing, "cooperative", 2),
        PolicyPrincipal(),
        store,
        config_source="staffing",
        seed=2,
    )
    assert outcome.state.value in ("AGREE", "NO_DEAL", "STALL")
    count = store.execute("SELECT COUNT(*) FROM audit WHERE session_id=?", [outcome.session_id])[0][0]
    return store, outcome.session_id, int(count)


def test_intact_chain_verifies(sealed: tuple[SessionStore, str, int]) -> None:
    store, session, count = sealed
    report = store.verify(session)
    assert report.ok and report.entries == count and not report.problems


def test_edited_entry_is_located(sealed: tuple[SessionStore, str, int]) -> None:
    store, session, _ = sealed
    (entry,) = store.execute("SELECT entry FROM audit WHERE session_id=? AND seq=5", [session])[0]
    edited = json.loads(entry)
    edited["data"]["rationale"] = "nothing to see here"
    store.execute("UPDATE audit SET entry=? WHERE session_id=? AND seq=5", [json.dumps(edited), session])
    report = store.verify(session)
    assert not report.ok and report.first_bad == 5
    assert report.problems[0] == "entry 5: content does not match its hash (entry edited)"


def test_deleted_entry_is_located(sealed: tuple[SessionStore, str, int]) -> None:
    store, session, _ = sealed
    store.execute("DELETE FROM audit WHERE session_id=? AND seq=7", [session])
    report = store.verify(session)
    assert not report.ok and report.first_bad == 8
    assert "entry 8: expected sequence number 7" in report.problems[0]


def test_truncation_is_caught_by_the_checkpoint(sealed: tuple[SessionStore, str, int]) -> None:
    store, session, count = sealed
    store.execute("DELETE FROM audit WHERE session_id=? AND seq>=?", [session, count - 3])
    report = store.verify(session)
    assert not report.ok and report.first_bad == count - 3
    assert any("truncated" in problem for problem in report.problems)


def test_rehashed_forgery_is_caught_by_the_checkpoint(sealed: tuple[SessionStore, str, int]) -> None:
    from parley.governance.audit import entry_hash

    store, session, count = sealed
    rows = store.execute("SELECT seq, entry, previous FROM audit WHERE session_id=? ORDER BY seq", [session])
    previous = rows[0][2]
    for seq, entry, _ in rows:
        data = json.loads(entry)
        if seq == 3:
            data["data"]["rationale"] = "forged"
        digest = entry_hash(previous, data)
        store.execute(
            "UPDATE audit SET entry=?, previous=?, digest=? WHERE session_id=? AND seq=?",
            [json.dumps(data), previous, digest, session, seq],
        )
        previous = digest
    report = store.verify(session)
    assert not report.ok and any("head checkpoint" in p for p in report.problems)
    assert count == len(rows)


def test_unknown_session_is_a_clear_error() -> None:
    with pytest.raises(ScenarioError, match="no audit log for session 'nope'"):
        SessionStore().verify("nope")
