"""Rewriting the record, not just editing it: every tampering below passed `parley audit verify`
before the chain was keyed, anchored, compared with the tables people are shown, and parsed strictly.

Each test tampers with a real sealed session (staffing, cooperative counterparty, a policy
principal: an escalation, a decision and an agreement) the way someone holding the database file
could, and checks that verification fails and names what it found.
"""

from __future__ import annotations

import json
import os
import stat
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from parley.cli.app import app
from parley.governance.audit import AuditConfigError, AuditError, ChainHeader, canonical_json, link_digest
from parley.governance.audit_files import AuditKey, read_key_file
from parley.governance.config import DomainConfig
from parley.governance.counterparties import SimulatedCounterparty
from parley.governance.escalation import PolicyPrincipal
from parley.governance.session import run_session
from parley.governance.store import SessionStore
from parley.protocol.events import Event

runner = CliRunner()
KEY = AuditKey(bytes(range(32)), "test")
OTHER_KEY = AuditKey(bytes(range(1, 33)), "test")


@dataclass
class Recorded:
    """A sealed session in a database file, anchored in an anchor file."""

    db: Path
    anchor: Path
    session: str

    def store(self, *, key: AuditKey | None = None, anchor: bool = True) -> SessionStore:
        return SessionStore(self.db, key=key, anchor=self.anchor if anchor else None)


def _record(staffing: DomainConfig, tmp_path: Path, key: AuditKey | None) -> Recorded:
    db, anchor = tmp_path / "delegate.db", tmp_path / "outside" / "anchor.jsonl"
    store = SessionStore(db, key=key, anchor=anchor)
    outcome = run_session(
        staffing,
        SimulatedCounterparty(staffing, "cooperative", 2),
        PolicyPrincipal(),
        store,
        config_source="staffing",
        seed=2,
    )
    store.close()
    assert outcome.state.value == "AGREE"
    return Recorded(db, anchor, outcome.session_id)


@pytest.fixture
def unkeyed(staffing: DomainConfig, tmp_path: Path) -> Recorded:
    return _record(staffing, tmp_path, None)


@pytest.fixture
def keyed(staffing: DomainConfig, tmp_path: Path) -> Recorded:
    return _record(staffing, tmp_path, KEY)


@pytest.fixture
def opened(unkeyed: Recorded) -> Iterator[tuple[SessionStore, str]]:
    store = unkeyed.store(anchor=False)
    yield store, unkeyed.session
    store.close()


def _invoke(*args: str) -> tuple[int, str]:
    result = runner.invoke(app, list(args))
    return result.exit_code, result.output


def _entries(store: SessionStore, session: str) -> list[tuple[int, dict[str, Any]]]:
    rows = store.execute("SELECT seq, entry FROM audit WHERE session_id=? ORDER BY seq", [session])
    return [(int(seq), json.loads(text)) for seq, text in rows]


def _seq_of(store: SessionStore, session: str, kind: str) -> int:
    return next(seq for seq, entry in _entries(store, session) if entry["kind"] == kind)


def _truncate(store: SessionStore, session: str, keep: int, *, state: str | None) -> None:
    """Cut the tail after entry keep everywhere, move the head checkpoint back, delete the seal."""
    cut = [entry for seq, entry in _entries(store, session) if seq > keep]
    requests = {str(e["data"]["request_id"]) for e in cut if e["kind"] in ("escalation", "decision")}
    for request_id in requests:
        store.execute("DELETE FROM decisions WHERE request_id=?", [request_id])
        store.execute("DELETE FROM escalations WHERE request_id=?", [request_id])
    store.execute("DELETE FROM audit WHERE session_id=? AND seq>?", [session, keep])
    store.execute("DELETE FROM events WHERE session_id=? AND seq>?", [session, keep])
    (digest,) = store.execute("SELECT digest FROM audit WHERE session_id=? AND seq=?", [session, keep])[0]
    store.execute("UPDATE audit_checkpoints SET seq=?, digest=? WHERE session_id=?", [keep, digest, session])
    store.execute("DELETE FROM audit_seals WHERE session_id=?", [session])
    if state is not None:
        store.execute("UPDATE sessions SET state=? WHERE session_id=?", [state, session])


def _state_at(store: SessionStore, session: str, keep: int) -> str:
    transitions = [
        e for seq, e in _entries(store, session) if e["kind"] == "state_transition" and seq <= keep
    ]
    return str(transitions[-1]["data"]["to"])


def _rewrite(
    store: SessionStore,
    session: str,
    change: Callable[[int, dict[str, Any]], None],
    *,
    keep_header: bool = False,
) -> None:
    """Rewrite the whole chain as parley would write it without a key (with a fresh unkeyed header,
    or keeping the stored one), recomputing every hash, the checkpoint and the seal."""
    if keep_header:
        (text,) = store.execute("SELECT header FROM audit_chains WHERE session_id=?", [session])[0]
        header = ChainHeader.parse(text)
    else:
        header = ChainHeader.new(session, None)
        store.execute("UPDATE audit_chains SET header=? WHERE session_id=?", [header.text, session])
    previous = header.chain_id
    for seq, entry in _entries(store, session):
        change(seq, entry)
        text = canonical_json(entry)
        digest = link_digest(previous, text, None)
        store.execute(
            "UPDATE audit SET entry=?, previous=?, digest=? WHERE session_id=? AND seq=?",
            [text, previous, digest, session, seq],
        )
        store.execute("UPDATE events SET event=? WHERE session_id=? AND seq=?", [text, session, seq])
        previous = digest
    store.execute("UPDATE audit_checkpoints SET digest=? WHERE session_id=?", [previous, session])
    store.execute("UPDATE audit_seals SET digest=? WHERE session_id=?", [previous, session])


def _forge_rationale(seq: int, entry: dict[str, Any]) -> None:
    if seq == 3:
        entry["data"]["rationale"] = "forged"


# -- truncation -------------------------------------------------------------------------------------


def test_truncated_tail_with_head_moved_back_and_seal_deleted_is_caught_by_the_anchor(
    unkeyed: Recorded,
) -> None:
    store = unkeyed.store()
    (last,) = store.execute("SELECT seq FROM audit_seals WHERE session_id=?", [unkeyed.session])[0]
    keep = _seq_of(store, unkeyed.session, "escalation") - 1
    _truncate(store, unkeyed.session, keep, state=_state_at(store, unkeyed.session, keep))
    unanchored = unkeyed.store(anchor=False).verify(unkeyed.session)
    assert unanchored.ok  # consistent inside the database: only the anchor can tell
    report = store.verify(unkeyed.session)
    assert not report.ok and report.first_bad == keep + 1
    assert f"anchor: records entry {last} but the log ends at entry {keep} (truncated)" in report.problems
    assert f"anchor: the session was sealed at entry {last}, but the seal is missing" in report.problems
    code, out = _invoke(
        "audit", "verify", unkeyed.session, "--db", str(unkeyed.db), "--anchor", str(unkeyed.anchor)
    )
    assert code == 1 and "BROKEN" in out and "(truncated)" in out


def test_without_an_anchor_an_ended_session_without_its_seal_fails(opened: tuple[SessionStore, str]) -> None:
    store, session = opened
    keep = _seq_of(store, session, "escalation") - 1
    _truncate(store, session, keep, state=None)  # the session row still says AGREE
    report = store.verify(session)
    assert not report.ok
    assert (
        "session state is AGREE (ended), but the chain has no end-of-session seal "
        "(tail truncated or seal deleted)" in report.problems
    )
    with pytest.raises(
        AuditError, match=rf"session '{session}': stored record refused: session state is AGREE"
    ):
        store.load_events(session)


def test_a_chain_ending_the_session_must_be_sealed(opened: tuple[SessionStore, str]) -> None:
    store, session = opened
    agreed = next(
        seq
        for seq, e in _entries(store, session)
        if e["kind"] == "state_transition" and e["data"]["to"] == "AGREE"
    )
    _truncate(store, session, agreed, state=None)
    report = store.verify(session)
    assert not report.ok
    assert (
        f"entry {agreed} ends the session (AGREE), but the chain has no end-of-session seal"
        in report.problems
    )


# -- the tables people are shown ------------------------------------------------------------------


def test_an_edited_events_table_is_caught_and_never_shown(opened: tuple[SessionStore, str]) -> None:
    store, session = opened
    seq = _seq_of(store, session, "decision")
    store.execute(
        "UPDATE events SET event=json_set(event, '$.data.rationale', 'the principal chose C') "
        "WHERE session_id=? AND seq=?",
        [session, seq],
    )
    report = store.verify(session)
    assert not report.ok and report.first_bad == seq
    assert report.problems == (
        f"events table: row {seq} differs from audit entry {seq} (events table edited)",
    )
    with pytest.raises(
        AuditError, match=rf"session '{session}': stored record refused: events table: row {seq}"
    ):
        store.load_events(session)


def test_the_audit_log_command_refuses_an_edited_record_in_one_line(unkeyed: Recorded) -> None:
    store = unkeyed.store(anchor=False)
    store.execute("DELETE FROM events WHERE session_id=? AND seq=4", [unkeyed.session])
    store.close()
    code, out = _invoke("audit", "log", unkeyed.session, "--db", str(unkeyed.db))
    assert code == 1 and "events table: row 4 is missing" in out
    assert "Traceback" not in out and len(out.strip().splitlines()) == 1


def test_an_edited_decisions_table_is_caught_and_never_shown(opened: tuple[SessionStore, str]) -> None:
    store, session = opened
    seq = _seq_of(store, session, "decision")
    (request_id,) = store.execute("SELECT request_id FROM decisions WHERE session_id=?", [session])[0]
    store.execute("UPDATE decisions SET option='C', decided_by='mallory' WHERE request_id=?", [request_id])
    report = store.verify(session)
    assert not report.ok and report.first_bad == seq
    assert report.problems == (
        f"decisions table: the decision on {request_id} differs from its decision event at entry {seq} "
        "(option, decided_by; decisions table edited)",
    )
    with pytest.raises(AuditError, match=f"decisions table: the decision on {request_id} differs"):
        store.decisions(session)


def test_a_deleted_decision_row_is_caught(opened: tuple[SessionStore, str]) -> None:
    store, session = opened
    seq = _seq_of(store, session, "decision")
    (request_id,) = store.execute("SELECT request_id FROM decisions WHERE session_id=?", [session])[0]
    store.execute("DELETE FROM decisions WHERE request_id=?", [request_id])
    report = store.verify(session)
    assert report.problems == (
        f"decisions table: no row for the decision on {request_id} recorded at entry {seq} (row deleted)",
    )


def test_an_edited_escalation_request_is_caught(opened: tuple[SessionStore, str]) -> None:
    store, session = opened
    seq = _seq_of(store, session, "escalation")
    (request_id,) = store.execute("SELECT request_id FROM escalations WHERE session_id=?", [session])[0]
    store.execute(
        "UPDATE escalations SET payload=json_set(payload, '$.problem', 'nothing to decide'), status='open' "
        "WHERE request_id=?",
        [request_id],
    )
    report = store.verify(session)
    assert (
        f"escalations table: request {request_id} differs from its escalation event at entry {seq} "
        "(escalations table edited)" in report.problems
    )
    assert any(
        p.startswith(f"escalations table: request {request_id} is open, but entry") for p in report.problems
    )
    with pytest.raises(AuditError, match=f"escalations table: request {request_id}"):
        store.requests(session)


# -- full rewrites ----------------------------------------------------------------------------------


def test_a_full_rewrite_is_caught_when_a_key_is_configured(keyed: Recorded) -> None:
    store = keyed.store(key=KEY, anchor=False)
    assert store.verify(keyed.session).ok and store.verify(keyed.session).keyed
    _rewrite(store, keyed.session, _forge_rationale)
    report = store.verify(keyed.session)
    assert not report.ok and not report.keyed
    assert report.problems[0] == (
        f"chain is unkeyed, but an audit key (id {KEY.key_id}) is configured: the session was written "
        "without the key, or its chain was rewritten without it"
    )
    with pytest.raises(AuditError, match="chain is unkeyed, but an audit key"):
        store.load_events(keyed.session)


def test_a_rewrite_that_keeps_the_keyed_header_fails_at_entry_0(keyed: Recorded) -> None:
    store = keyed.store(key=KEY, anchor=False)
    _rewrite(store, keyed.session, _forge_rationale, keep_header=True)
    report = store.verify(keyed.session)
    assert not report.ok and report.keyed and report.first_bad == 0
    assert report.problems[0] == "entry 0: content does not match its hash (entry edited)"
    assert len(report.problems) == len(_entries(store, keyed.session))  # one per entry: none is an HMAC


def test_without_a_key_a_full_rewrite_verifies_and_the_output_says_unkeyed(unkeyed: Recorded) -> None:
    store = unkeyed.store(anchor=False)
    _rewrite(store, unkeyed.session, _forge_rationale)
    assert store.verify(unkeyed.session).ok  # the documented limit: no key, no anchor
    store.close()
    code, out = _invoke("audit", "verify", unkeyed.session, "--db", str(unkeyed.db))
    assert code == 0 and "OK" in out and "unkeyed, unanchored" in out
    assert "a full rewrite with recomputed hashes cannot be detected" in out


def test_without_a_key_the_anchor_catches_a_full_rewrite(unkeyed: Recorded) -> None:
    store = unkeyed.store()
    _rewrite(store, unkeyed.session, _forge_rationale)
    report = store.verify(unkeyed.session)
    assert not report.ok
    assert report.problems == (
        f"anchor: holds heads of session {unkeyed.session} for another chain only (this chain was replaced)",
    )


def test_the_wrong_key_or_no_key_is_named(keyed: Recorded) -> None:
    other = keyed.store(key=OTHER_KEY, anchor=False).verify(keyed.session)
    assert other.problems == (
        f"chain is keyed with key id {KEY.key_id}, but the configured key has id {OTHER_KEY.key_id}",
    )
    missing = keyed.store(anchor=False).verify(keyed.session)
    assert not missing.ok and missing.problems[0].startswith(
        f"chain is keyed (key id {KEY.key_id}) but no audit key is configured"
    )


def test_an_unkeyed_session_fails_once_a_key_is_configured(
    unkeyed: Recorded, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("PARLEY_AUDIT_KEY", KEY.secret.hex())
    code, out = _invoke("audit", "verify", unkeyed.session, "--db", str(unkeyed.db))
    assert code == 1 and f"chain is unkeyed, but an audit key (id {KEY.key_id}) is configured" in out


def test_a_keyed_chain_is_not_extended_with_another_key(keyed: Recorded) -> None:
    store = keyed.store(key=OTHER_KEY, anchor=False)
    (before,) = store.execute("SELECT COUNT(*) FROM audit WHERE session_id=?", [keyed.session])[0]
    with pytest.raises(AuditError, match=f"is keyed with key id {KEY.key_id}, but the configured key"):
        store.save_step(
            keyed.session,
            config="staffing",
            persona="cooperative",
            seed=2,
            state="AGREE",
            snapshot={},
            events=[Event(before, "note", data={"rationale": "appended"})],
            now=1.0,
        )
    assert store.execute("SELECT COUNT(*) FROM audit WHERE session_id=?", [keyed.session])[0][0] == before


# -- canonical JSON ---------------------------------------------------------------------------------


def test_a_duplicate_json_key_is_a_verification_failure(opened: tuple[SessionStore, str]) -> None:
    store, session = opened
    (text,) = store.execute("SELECT entry FROM audit WHERE session_id=? AND seq=5", [session])[0]
    forged = text.replace('"rationale":', '"rationale":"all is well","rationale":', 1)
    store.execute("UPDATE audit SET entry=? WHERE session_id=? AND seq=5", [forged, session])
    shown = store.execute(
        "SELECT json_extract(entry, '$.data.rationale') FROM audit WHERE session_id=? AND seq=5", [session]
    )
    assert (
        shown[0][0] == "all is well" != json.loads(forged)["data"]["rationale"]
    )  # two readings of one entry
    report = store.verify(session)
    assert not report.ok and report.first_bad == 5
    assert report.problems[0] == "entry 5: duplicate key 'rationale' in the stored JSON"


def test_non_finite_numbers_are_refused_when_written_and_when_read(opened: tuple[SessionStore, str]) -> None:
    store, session = opened
    (text,) = store.execute("SELECT entry FROM audit WHERE session_id=? AND seq=2", [session])[0]
    store.execute(
        "UPDATE audit SET entry=? WHERE session_id=? AND seq=2",
        [text.replace('"round":', '"round":NaN,"x":', 1), session],
    )
    assert "entry 2: non-finite number NaN in the stored JSON" in store.verify(session).problems
    fresh = SessionStore()
    with pytest.raises(AuditError, match="event 0 cannot be audited"):
        fresh.save_step(
            "s-1",
            config="staffing",
            persona=None,
            seed=None,
            state="START",
            snapshot={},
            events=[Event(0, "note", data={"tci": float("nan")})],
            now=0.0,
        )
    assert fresh.execute("SELECT COUNT(*) FROM audit") == [(0,)]


def test_entries_are_stored_as_canonical_json(opened: tuple[SessionStore, str]) -> None:
    store, session = opened
    rows = store.execute("SELECT entry FROM audit WHERE session_id=?", [session])
    assert all(text == canonical_json(json.loads(text)) for (text,) in rows)
    (text,) = store.execute("SELECT entry FROM audit WHERE session_id=? AND seq=1", [session])[0]
    store.execute(
        "UPDATE audit SET entry=? WHERE session_id=? AND seq=1", [json.dumps(json.loads(text)), session]
    )
    report = store.verify(session)
    assert report.problems == ("entry 1: not stored as canonical JSON (written outside parley)",)


# -- the anchor -------------------------------------------------------------------------------------


def test_every_committed_step_is_anchored_and_the_last_head_is_sealed(unkeyed: Recorded) -> None:
    anchored = [json.loads(line) for line in unkeyed.anchor.read_text(encoding="utf-8").splitlines()]
    lines = [line for line in anchored if line["session_id"] == unkeyed.session]  # (and the memory log's)
    store = unkeyed.store()
    (seq, digest) = store.execute(
        "SELECT seq, digest FROM audit_seals WHERE session_id=?", [unkeyed.session]
    )[0]
    assert len(lines) > 2 and [line["seq"] for line in lines] == sorted(line["seq"] for line in lines)
    assert (lines[-1]["seq"], lines[-1]["digest"], lines[-1]["sealed"]) == (seq, digest, True)
    assert not any(line["sealed"] for line in lines[:-1])
    report = store.verify(unkeyed.session)
    assert report.ok and report.anchored_seq == seq
    if os.name == "posix":
        assert stat.S_IMODE(unkeyed.anchor.stat().st_mode) == 0o600


def test_an_anchor_missing_the_sessions_heads_fails(unkeyed: Recorded, tmp_path: Path) -> None:
    emptied = tmp_path / "emptied.jsonl"
    emptied.write_text("", encoding="utf-8")
    store = unkeyed.store(anchor=False)
    assert store.verify(unkeyed.session, anchor=emptied).problems == (
        f"anchor: no head of session {unkeyed.session} (never anchored there, or its lines were removed)",
    )
    missing = tmp_path / "missing.jsonl"
    assert store.verify(unkeyed.session, anchor=missing).problems == (
        f"anchor {missing}: no such file (no head was ever anchored there)",
    )
    mangled = tmp_path / "mangled.jsonl"
    mangled.write_text(unkeyed.anchor.read_text(encoding="utf-8") + '{"session_id": 3}\n', encoding="utf-8")
    report = store.verify(unkeyed.session, anchor=mangled)
    assert not report.ok and report.problems[0].endswith("is not a head record")


def test_an_anchor_lagging_behind_the_chain_still_verifies(unkeyed: Recorded, tmp_path: Path) -> None:
    lines = unkeyed.anchor.read_text(encoding="utf-8").splitlines()
    early = tmp_path / "early.jsonl"
    early.write_text(lines[0] + "\n", encoding="utf-8")
    report = unkeyed.store(anchor=False).verify(unkeyed.session, anchor=early)
    assert report.ok and report.anchored_seq == json.loads(lines[0])["seq"]


# -- the key file -----------------------------------------------------------------------------------


def test_init_key_creates_a_private_key_and_refuses_to_overwrite(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "keys" / "audit.key"
    monkeypatch.setenv("PARLEY_AUDIT_KEY_FILE", str(path))
    code, out = _invoke("audit", "init-key")
    assert code == 0 and str(path) in out
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert len(bytes.fromhex(path.read_text(encoding="ascii").strip())) == 32
    first = read_key_file(path)
    assert f"key id {first.key_id}" in out
    code, out = _invoke("audit", "init-key")
    assert code == 2 and "exists already; pass --force" in out and read_key_file(path) == first
    code, _ = _invoke("audit", "init-key", "--key-file", str(path), "--force")
    assert code == 0 and read_key_file(path).key_id != first.key_id


def test_a_key_file_readable_by_others_is_refused(
    unkeyed: Recorded, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "audit.key"
    path.write_text(KEY.secret.hex() + "\n", encoding="ascii")
    path.chmod(0o644)
    monkeypatch.setenv("PARLEY_AUDIT_KEY_FILE", str(path))
    with pytest.raises(AuditConfigError, match=r"accessible to group or others \(mode 0644\); run chmod 600"):
        SessionStore()
    code, out = _invoke("audit", "verify", unkeyed.session, "--db", str(unkeyed.db))
    assert code == 2 and "mode 0644" in out and len(out.strip().splitlines()) == 1
    path.chmod(0o600)
    assert SessionStore().key == AuditKey(KEY.secret, str(path))


def test_the_key_in_the_environment_takes_precedence(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "audit.key"
    path.write_text(OTHER_KEY.secret.hex(), encoding="ascii")
    path.chmod(0o600)
    monkeypatch.setenv("PARLEY_AUDIT_KEY_FILE", str(path))
    monkeypatch.setenv("PARLEY_AUDIT_KEY", KEY.secret.hex())
    store = SessionStore()
    assert store.key is not None and store.key.key_id == KEY.key_id
    monkeypatch.setenv("PARLEY_AUDIT_KEY", "not hex")
    with pytest.raises(AuditConfigError, match="PARLEY_AUDIT_KEY: the audit key is not a hex string"):
        SessionStore()


def test_verify_output_states_keyed_and_anchored(keyed: Recorded, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PARLEY_AUDIT_KEY", KEY.secret.hex())
    code, out = _invoke(
        "audit", "verify", keyed.session, "--db", str(keyed.db), "--anchor", str(keyed.anchor)
    )
    assert code == 0, out
    assert f"keyed (key id {KEY.key_id}), anchored at entry" in out and "cannot be detected" not in out
    code, out = _invoke("audit", "verify", keyed.session, "--db", str(keyed.db / "nope"))
    assert code == 2 and "no such database" in out
