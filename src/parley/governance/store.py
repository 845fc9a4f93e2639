"""SQLite persistence (stdlib sqlite3, WAL): sessions, escalation requests, decisions, events, audit.

Each delegate step is committed in one `BEGIN IMMEDIATE` transaction: the decision that resumed it
(if any, closing its request), the session snapshot and its version, new trajectory events and
their hash-chained audit entries, the head checkpoint, the seal of an ended session, and the
escalation request the step opened. A process killed at any point leaves either the whole step or
none of it, so the session can always be resumed and the inbox always shows what is pending.

Every write names the session version it read (optimistic concurrency): when two processes race on
one session, the first commit wins and the other gets `StaleDecision` with nothing written.

A decision also leaves one `principal_memory` row (see `parley.governance.memory`), written and
audited on the memory log's own chain in the same transaction.
"""

from __future__ import annotations

import json
import logging
import sqlite3
import time
from collections.abc import Callable, Generator, Mapping, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from parley.errors import ScenarioError, StaleDecision
from parley.governance.audit import (
    GENESIS,
    AnchorHead,
    AuditError,
    ChainHeader,
    Checkpoint,
    MalformedEntry,
    RawEntry,
    StoredRecord,
    Verified,
    VerifyReport,
    canonical_json,
    link_digest,
    verify_record,
)
from parley.governance.audit_files import (
    AuditKey,
    append_head,
    configured_anchor,
    configured_key,
    read_anchor,
)
from parley.governance.escalation import Decision, EscalationRequest
from parley.governance.memory import FORGOTTEN, MEMORY_LOG, RECORDED, entry_from_decision, memory_log_id
from parley.protocol.events import Event

logger = logging.getLogger(__name__)

_SCHEMA = """
CREATE TABLE IF NOT EXISTS sessions (
    session_id TEXT PRIMARY KEY, config TEXT NOT NULL, persona TEXT, seed INTEGER,
    state TEXT NOT NULL, snapshot TEXT NOT NULL, created REAL NOT NULL, updated REAL NOT NULL,
    version INTEGER NOT NULL DEFAULT 0);
CREATE TABLE IF NOT EXISTS escalations (
    request_id TEXT PRIMARY KEY, session_id TEXT NOT NULL, trigger TEXT NOT NULL,
    payload TEXT NOT NULL, status TEXT NOT NULL, created REAL NOT NULL);
CREATE TABLE IF NOT EXISTS decisions (
    request_id TEXT PRIMARY KEY, session_id TEXT NOT NULL, option TEXT, guidance TEXT NOT NULL,
    decided_by TEXT NOT NULL, decided_at REAL NOT NULL);
CREATE TABLE IF NOT EXISTS events (
    session_id TEXT NOT NULL, seq INTEGER NOT NULL, event TEXT NOT NULL, PRIMARY KEY (session_id, seq));
CREATE TABLE IF NOT EXISTS audit (
    session_id TEXT NOT NULL, seq INTEGER NOT NULL, entry TEXT NOT NULL, previous TEXT NOT NULL,
    digest TEXT NOT NULL, PRIMARY KEY (session_id, seq));
CREATE TABLE IF NOT EXISTS audit_checkpoints (
    session_id TEXT PRIMARY KEY, seq INTEGER NOT NULL, digest TEXT NOT NULL, updated REAL NOT NULL);
CREATE TABLE IF NOT EXISTS audit_seals (
    session_id TEXT PRIMARY KEY, seq INTEGER NOT NULL, digest TEXT NOT NULL, final_state TEXT NOT NULL,
    sealed_at REAL NOT NULL);
CREATE TABLE IF NOT EXISTS audit_chains (session_id TEXT PRIMARY KEY, header TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS principal_memory (
    request_id TEXT PRIMARY KEY, principal TEXT NOT NULL, domain TEXT NOT NULL, session_id TEXT NOT NULL,
    decided_at REAL NOT NULL, entry TEXT NOT NULL, chain TEXT NOT NULL, seq INTEGER NOT NULL);
CREATE INDEX IF NOT EXISTS principal_memory_owner ON principal_memory (principal, domain, decided_at);
"""
_TABLES = frozenset(
    {"sessions", "escalations", "decisions", "events", "audit", "audit_checkpoints", "audit_seals"}
    | {"audit_chains", "principal_memory"}
)
STARTING = "starting"
"""The state of a reserved session id whose first step is not stored yet."""

FaultHook = Callable[[str], None]
"""Called at each write point ("step:staged" before COMMIT, "step:committed" after it); tests use
it to kill the process there and check that nothing is lost."""


def _no_fault(point: str) -> None:
    return None


def _open(target: str) -> sqlite3.Connection:
    """Connect and check that the file is an SQLite database holding (at most) parley's tables.

    Raises:
        ScenarioError: if the file is not an SQLite database or belongs to something else.
    """
    if target != ":memory:":
        path = Path(target)
        if path.is_dir():
            raise ScenarioError("is a folder, not a delegate database", source=target)
        path.parent.mkdir(parents=True, exist_ok=True)
    connection = sqlite3.connect(target, isolation_level=None)
    try:
        names = {str(r[0]) for r in connection.execute("SELECT name FROM sqlite_master WHERE type='table'")}
    except sqlite3.DatabaseError as error:
        connection.close()
        raise ScenarioError(f"not a delegate database ({error})", source=target) from None
    foreign = sorted(names - _TABLES - {"principals", "web_sessions", "web_games"})  # (the web console's own)
    if names and (foreign or "sessions" not in names):
        connection.close()
        shown = ", ".join(foreign[:3]) or "no sessions table"
        raise ScenarioError(f"not a delegate database (it holds other tables: {shown})", source=target)
    return connection


_OWNED = "(?1 IS NULL OR principal=?1 OR substr(principal, 1, length(?1) + 5) = ?1 || ' via ')"
"""A memory row's principal matches ?1: its name, or "NAME via REQUEST" as decisions made through a
portfolio recommendation were stored before they kept the principal's own name (matched, not
migrated: the stored entries are on the audited memory chain)."""


class SessionStore:
    """All persistent delegate data in one SQLite file (or ":memory:").

    Args:
        path: Database file (parent folders are created) or ":memory:".
        key: The audit key (HMAC) for new chains and for verification; by default the configured one
            (`PARLEY_AUDIT_KEY`, `PARLEY_AUDIT_KEY_FILE`, `~/.config/parley/audit.key`).
        anchor: File every committed head is appended to; by default `PARLEY_AUDIT_ANCHOR`, if set.

    Raises:
        AuditConfigError: if the configured key is unusable (e.g. its file is readable by others).
    """

    def __init__(
        self, path: str | Path = ":memory:", *, key: AuditKey | None = None, anchor: Path | None = None
    ) -> None:
        target = str(path)
        self.path = target
        self.fault: FaultHook = _no_fault
        self.key = key if key is not None else configured_key()
        self.anchor = anchor if anchor is not None else configured_anchor()
        self._connection = _open(target)
        self._connection.execute("PRAGMA busy_timeout=30000")
        self._connection.execute("PRAGMA journal_mode=WAL")
        self._connection.execute("PRAGMA synchronous=NORMAL")
        self._connection.executescript(_SCHEMA)
        columns = {str(r[1]) for r in self._connection.execute("PRAGMA table_info(sessions)")}
        if "version" not in columns:  # a database written before session versions existed
            self._connection.execute("ALTER TABLE sessions ADD COLUMN version INTEGER NOT NULL DEFAULT 0")

    def close(self) -> None:
        """Close the connection."""
        self._connection.close()

    @contextmanager
    def transaction(self) -> Generator[sqlite3.Connection]:
        """One atomic unit of work."""
        self._connection.execute("BEGIN IMMEDIATE")
        try:
            yield self._connection
        except BaseException:
            self._connection.execute("ROLLBACK")
            raise
        self._connection.execute("COMMIT")

    # sessions -----------------------------------------------------------------------------
    def reserve_session_id(self, prefix: str, *, config: str, now: float) -> str:
        """Reserve a fresh id "prefix-N" atomically (N = 1 + sessions with that prefix).

        Ids stay deterministic for one writer, and two processes starting sessions with the same
        prefix at once get different ids (the reservation row is written in the same transaction).
        """
        with self.transaction() as db:
            taken = {
                str(r[0])
                for r in db.execute(
                    "SELECT session_id FROM sessions WHERE substr(session_id, 1, ?) = ?",
                    (len(prefix) + 1, f"{prefix}-"),
                )
            }
            number = len(taken) + 1
            while f"{prefix}-{number}" in taken:
                number += 1
            session_id = f"{prefix}-{number}"
            db.execute(
                "INSERT INTO sessions VALUES (?,?,?,?,?,?,?,?,0)",
                (session_id, config, None, None, STARTING, "{}", now, now),
            )
        return session_id

    def save_step(
        self,
        session_id: str,
        *,
        config: str,
        persona: str | None,
        seed: int | None,
        state: str,
        snapshot: Mapping[str, Any],
        events: Sequence[Event],
        now: float,
        seal: bool = False,
        expected_version: int | None = None,
        decision: Decision | None = None,
        request: EscalationRequest | None = None,
        check: Callable[[sqlite3.Connection], None] | None = None,
    ) -> int:
        """Persist one step atomically and return the session's new version.

        Args:
            session_id: The session.
            config: Config name or path.
            persona: Counterparty name.
            seed: Session seed.
            state: State after the step.
            snapshot: The delegate, counterparty and config as JSON.
            events: Trajectory events new since the last step (audited in the same transaction).
            now: Clock time.
            seal: Seal the audit chain (the session ended).
            expected_version: The version the caller read; None for a session not stored yet.
            decision: The principal's decision that produced this step (closes its request).
            request: The escalation request this step opened, if any.
            check: Called with the connection inside the write transaction, before anything is
                written (writers are serialised there): a condition on other sessions that must still
                hold when the step commits; whatever it raises aborts the step.

        Raises:
            StaleDecision: if the session changed since the caller read it, or the decision's request
                is no longer open; nothing is written then.
        """
        if session_id == MEMORY_LOG or session_id.startswith(f"{MEMORY_LOG}@"):
            raise ScenarioError(f"{session_id!r} is reserved for the principal memory log", field="session")
        with self.transaction() as db:
            row = db.execute("SELECT version FROM sessions WHERE session_id=?", (session_id,)).fetchone()
            current = int(row[0]) if row is not None else None
            if current is not None and expected_version is not None and current != expected_version:
                raise StaleDecision(
                    f"session {session_id} changed meanwhile "
                    f"(version {current}, expected {expected_version})",
                    pending=self._open_request_id(db, session_id),
                    source=self.path,
                )
            if check is not None:
                check(db)
            answered = self._close_request(db, session_id, decision) if decision is not None else None
            version = (current or 0) + 1
            db.execute(
                "INSERT INTO sessions VALUES (?,?,?,?,?,?,?,?,?) ON CONFLICT(session_id) DO UPDATE SET "
                "persona=excluded.persona, seed=excluded.seed, state=excluded.state, "
                "snapshot=excluded.snapshot, updated=excluded.updated, version=excluded.version",
                (session_id, config, persona, seed, state, json.dumps(snapshot), now, now, version),
            )
            head = self._append_events(db, session_id, events, now)
            if decision is not None and answered is not None:
                self._remember(db, decision, answered, events, _domain(snapshot, config), now)
            if seal and head is not None:
                db.execute(
                    "INSERT OR REPLACE INTO audit_seals VALUES (?,?,?,?,?)",
                    (session_id, head.seq, head.digest, state, now),
                )
            if request is not None:
                db.execute(
                    "INSERT INTO escalations VALUES (?,?,?,?,?,?) ON CONFLICT(request_id) DO NOTHING",
                    (
                        request.request_id,
                        request.session_id,
                        request.trigger.value,
                        json.dumps(request.to_json()),
                        "open",
                        request.created,
                    ),
                )
            self.fault("step:staged")
        self._anchor(session_id)
        if decision is not None:
            self._anchor(self.memory_log)
        self.fault("step:committed")
        return version

    def _open_request_id(self, db: sqlite3.Connection, session_id: str) -> str | None:
        row = db.execute(
            "SELECT request_id FROM escalations WHERE session_id=? AND status='open' "
            "ORDER BY created DESC, request_id DESC LIMIT 1",
            (session_id,),
        ).fetchone()
        return str(row[0]) if row else None

    def _close_request(
        self, db: sqlite3.Connection, session_id: str, decision: Decision
    ) -> EscalationRequest | None:
        """Store the decision and close its request; return the request (None: payload unreadable)."""
        row = db.execute(
            "SELECT status, session_id, payload FROM escalations WHERE request_id=?", (decision.request_id,)
        ).fetchone()
        if row is None or str(row[1]) != session_id or row[0] != "open":
            what = (
                "is not a request of this session" if row is None or row[1] != session_id else "was answered"
            )
            raise StaleDecision(
                f"request {decision.request_id} {what}",
                pending=self._open_request_id(db, session_id),
                source=self.path,
            )
        db.execute(
            "INSERT INTO decisions VALUES (?,?,?,?,?,?)",
            (
                decision.request_id,
                session_id,
                decision.option,
                decision.guidance,
                decision.decided_by,
                decision.decided_at,
            ),
        )
        db.execute("UPDATE escalations SET status='decided' WHERE request_id=?", (decision.request_id,))
        try:
            return EscalationRequest.from_json(json.loads(str(row[2])))
        except (ValueError, KeyError, TypeError) as error:  # the decision stands; memory skips it
            logger.warning("request %s: payload unreadable, not remembered (%s)", decision.request_id, error)
            return None

    # principal memory ------------------------------------------------------------------------
    @property
    def memory_log(self) -> str:
        """The chain id memory entries are audited on with this store's key."""
        return memory_log_id(self.key.key_id if self.key is not None else None)

    def _remember(
        self,
        db: sqlite3.Connection,
        decision: Decision,
        request: EscalationRequest,
        events: Sequence[Event],
        domain: str,
        now: float,
    ) -> None:
        """Write a decision's memory entry and its audit entry (inside the step's transaction)."""
        entry = entry_from_decision(decision, request, events, domain)
        data = entry.to_json()
        rationale = f"decision on {entry.request_id} remembered for {entry.principal} in {domain}"
        seq = self._audit_memory(db, RECORDED, data, rationale, now)
        db.execute(
            "INSERT OR REPLACE INTO principal_memory VALUES (?,?,?,?,?,?,?,?)",
            (
                entry.request_id,
                entry.principal,
                domain,
                entry.session_id,
                entry.decided_at,
                canonical_json(data),
                self.memory_log,
                seq,
            ),
        )

    def _audit_memory(
        self, db: sqlite3.Connection, kind: str, data: Mapping[str, Any], rationale: str, now: float
    ) -> int:
        chain = self.memory_log
        row = db.execute("SELECT MAX(seq) FROM audit WHERE session_id=?", (chain,)).fetchone()
        seq = 0 if row is None or row[0] is None else int(row[0]) + 1
        event = Event(seq, kind, party="principal", data={**data, "rationale": rationale}, time=now)
        self._append_events(db, chain, [event], now)
        return seq

    def memory_rows(
        self, *, principal: str | None = None, domain: str | None = None
    ) -> list[tuple[str, str, int]]:
        """(entry JSON, chain, seq) of the stored memory entries, oldest first, optionally filtered
        (unchecked: `PrincipalMemory.entries` checks them against the chain)."""
        rows = self._connection.execute(
            f"SELECT entry, chain, seq FROM principal_memory WHERE {_OWNED} "
            "AND (?2 IS NULL OR domain=?2) ORDER BY decided_at, request_id",
            (principal, domain),
        )
        return [(str(r[0]), str(r[1]), int(r[2])) for r in rows]

    def forget_memory(self, *, principal: str | None, domain: str | None, by: str, now: float) -> list[str]:
        """Delete memory entries (filtered by principal and domain; None matches all) and audit the
        removal in the same transaction; returns the request ids removed."""
        with self.transaction() as db:
            ids = [
                str(r[0])
                for r in db.execute(
                    f"SELECT request_id FROM principal_memory WHERE {_OWNED} "
                    "AND (?2 IS NULL OR domain=?2) ORDER BY decided_at, request_id",
                    (principal, domain),
                )
            ]
            if ids:
                data = {"principal": principal, "domain": domain, "request_ids": ids, "by": by}
                self._audit_memory(db, FORGOTTEN, data, f"{by} removed {len(ids)} memory entries", now)
                db.executemany("DELETE FROM principal_memory WHERE request_id=?", [(i,) for i in ids])
        if ids:
            self._anchor(self.memory_log)
        return ids

    def _append_events(
        self, db: sqlite3.Connection, session_id: str, events: Sequence[Event], now: float
    ) -> Checkpoint | None:
        """Write events and their chained audit entries (canonical JSON), and move the checkpoint.

        Raises:
            AuditError: if the session's chain is keyed differently from this store (nothing is kept:
                the step's transaction rolls back), or an event holds a value JSON cannot represent.
        """
        row = db.execute(
            "SELECT seq, digest FROM audit WHERE session_id=? ORDER BY seq DESC LIMIT 1", (session_id,)
        ).fetchone()
        head = Checkpoint(int(row[0]), str(row[1])) if row else None
        if not events:
            return head
        start, secret = self._chain_for_append(db, session_id, started=row is not None)
        previous = head.digest if head is not None else start
        for event in events:
            try:
                text = canonical_json(event.to_json())
            except (ValueError, TypeError) as error:
                raise AuditError(
                    f"session {session_id!r}: event {event.seq} cannot be audited ({error})", source=self.path
                ) from None
            digest = link_digest(previous, text, secret)
            db.execute("INSERT INTO events VALUES (?,?,?)", (session_id, event.seq, text))
            db.execute(
                "INSERT INTO audit VALUES (?,?,?,?,?)", (session_id, event.seq, text, previous, digest)
            )
            previous = digest
            head = Checkpoint(event.seq, digest)
        if head is not None:
            db.execute(
                "INSERT OR REPLACE INTO audit_checkpoints VALUES (?,?,?,?)",
                (session_id, head.seq, head.digest, now),
            )
        return head

    def _chain_for_append(
        self, db: sqlite3.Connection, session_id: str, *, started: bool
    ) -> tuple[str, bytes | None]:
        """(previous-hash of entry 0, HMAC key) of the session's chain, creating its header if new.

        Raises:
            AuditError: if the chain is keyed with another key (or none) than this store's.
        """
        secret = self.key.secret if self.key is not None else None
        row = db.execute("SELECT header FROM audit_chains WHERE session_id=?", (session_id,)).fetchone()
        if row is None and not started:
            header = ChainHeader.new(session_id, secret)
            db.execute("INSERT INTO audit_chains VALUES (?,?)", (session_id, header.text))
            return header.chain_id, secret
        configured = self.key.key_id if self.key is not None else None
        try:
            header = ChainHeader.parse(str(row[0])) if row is not None else None
        except MalformedEntry as error:
            raise AuditError(f"session {session_id!r}: chain header: {error}", source=self.path) from None
        chain_key = header.key_id if header is not None else None
        if chain_key != configured:
            have = f"keyed with key id {chain_key}" if chain_key else "unkeyed"
            want = f"the configured key has id {configured}" if configured else "no audit key is configured"
            raise AuditError(
                f"session {session_id!r}: its audit chain is {have}, but {want}; nothing was stored",
                source=self.path,
            )
        return (header.chain_id if header is not None else GENESIS), secret

    def _anchor(self, session_id: str) -> None:
        """Append the session's committed head to the anchor file (called after each step's COMMIT).

        A failed append is logged, not raised: the step is already stored, and an anchor that lags
        behind the chain is still a valid anchor (verification only fails on a chain shorter than it).
        """
        if self.anchor is None:
            return
        db = self._connection
        head = db.execute(
            "SELECT seq, digest FROM audit_checkpoints WHERE session_id=?", (session_id,)
        ).fetchone()
        if head is None:
            return
        header = db.execute("SELECT header FROM audit_chains WHERE session_id=?", (session_id,)).fetchone()
        seal = db.execute("SELECT seq FROM audit_seals WHERE session_id=?", (session_id,)).fetchone()
        try:
            chain = ChainHeader.parse(str(header[0])).chain_id if header is not None else GENESIS
        except MalformedEntry:
            chain = GENESIS
        record = AnchorHead(session_id, chain, int(head[0]), str(head[1]), seal is not None, time.time())
        try:
            append_head(self.anchor, record)
        except OSError as error:
            logger.warning(
                "session %s: could not anchor head %d in %s: %s", session_id, record.seq, self.anchor, error
            )

    def load_version(self, session_id: str) -> int | None:
        """The stored version of a session (0 for a reserved id not started yet), or None if absent."""
        row = self._connection.execute(
            "SELECT version FROM sessions WHERE session_id=?", (session_id,)
        ).fetchone()
        return int(row[0]) if row is not None else None

    def load_session(self, session_id: str) -> dict[str, Any]:
        """The stored session row (config, persona, seed, state, snapshot).

        Raises:
            ScenarioError: if there is no such session.
        """
        row = self._connection.execute(
            "SELECT config, persona, seed, state, snapshot, version FROM sessions WHERE session_id=?",
            (session_id,),
        ).fetchone()
        if row is None:
            raise ScenarioError(f"no session {session_id!r}", source=self.path, field="session")
        if row[3] == STARTING:
            raise ScenarioError(
                f"session {session_id!r} never started (its process stopped before the first step)",
                source=self.path,
                field="session",
            )
        return {
            "config": row[0],
            "persona": row[1],
            "seed": row[2],
            "state": row[3],
            "snapshot": json.loads(row[4]),
            "version": int(row[5]),
        }

    def sessions(self) -> list[tuple[str, str]]:
        """(session id, state) for every stored session."""
        rows = self._connection.execute(
            "SELECT session_id, state FROM sessions WHERE state != ? ORDER BY created, session_id",
            (STARTING,),
        )
        return [(str(r[0]), str(r[1])) for r in rows]

    def load_events(self, session_id: str) -> list[Event]:
        """The session's trajectory events in order, read from its verified audit entries.

        Raises:
            AuditError: if the stored record fails verification (see `verify`); nothing is returned
                then, and the one-line message names the session and the first problem found.
        """
        _, verified = self._checked(session_id)
        return [Event.from_json(value) for _, value in sorted(verified.values.items())]

    # escalations and decisions -------------------------------------------------------------
    def open_request(self, session_id: str) -> EscalationRequest | None:
        """The session's open request, if any (read from a verified record, like `requests`).

        Raises:
            AuditError: if the stored record fails verification.
        """
        waiting = [request for request, status in self.requests(session_id) if status == "open"]
        return max(waiting, key=lambda r: (r.created, len(r.request_id), r.request_id)) if waiting else None

    def requests(self, session_id: str) -> list[tuple[EscalationRequest, str]]:
        """Every request of a session with its status (each checked against its escalation event).

        Raises:
            AuditError: if the stored record fails verification (see `load_events`).
        """
        record, _ = self._checked(session_id)
        return [(EscalationRequest.from_json(json.loads(row[1])), row[2]) for row in record.requests]

    def decision(self, request_id: str) -> Decision | None:
        """The stored decision for a request, if it was answered."""
        row = self._connection.execute(
            "SELECT request_id, option, guidance, decided_by, decided_at FROM decisions WHERE request_id=?",
            (request_id,),
        ).fetchone()
        return Decision(str(row[0]), row[1], str(row[2]), str(row[3]), float(row[4])) if row else None

    def decisions(self, session_id: str) -> list[Decision]:
        """Every decision of a session (each checked against its decision event in the chain).

        Raises:
            AuditError: if the stored record fails verification (see `load_events`).
        """
        record, _ = self._checked(session_id)
        return list(record.decisions)

    # audit ----------------------------------------------------------------------------------
    def verify(self, session_id: str, *, anchor: Path | None = None) -> VerifyReport:
        """Verify a session's record: the chain (and its key), head checkpoint, seal, ended state,
        the events, decisions and escalations tables against the chain, and the anchored heads.

        Args:
            session_id: The session.
            anchor: Anchor file to compare with; by default the store's (`PARLEY_AUDIT_ANCHOR`), if any.

        Raises:
            ScenarioError: if the session has no audit entries and no checkpoint.
        """
        record = self._record(session_id)
        if not record.entries and record.head is None:
            raise ScenarioError(f"no audit log for session {session_id!r}", source=self.path, field="session")
        path = anchor if anchor is not None else self.anchor
        log = read_anchor(path) if path is not None else None
        return verify_record(record, self._secret, log).report

    @property
    def _secret(self) -> bytes | None:
        return self.key.secret if self.key is not None else None

    def _checked(self, session_id: str) -> tuple[StoredRecord, Verified]:
        """The session's record, refused unless it verifies (without the anchor: readers stay local).

        Raises:
            AuditError: naming the session and the first problem.
        """
        record = self._record(session_id)
        if not record.entries and record.head is None and record.header is None:
            if record.events or record.decisions or record.requests:
                raise AuditError(
                    f"session {session_id!r}: stored record refused: it has events, decisions or requests "
                    "but no audit entries",
                    source=self.path,
                )
            empty: dict[int, dict[str, Any]] = {}
            return record, Verified(VerifyReport(True, 0, (), GENESIS), empty)
        verified = verify_record(record, self._secret)
        problems = list(verified.report.problems)
        if problems:
            more = f" (and {len(problems) - 1} more)" if len(problems) > 1 else ""
            raise AuditError(
                f"session {session_id!r}: stored record refused: {problems[0]}{more}; "
                f"run `parley audit verify {session_id}`",
                source=self.path,
            )
        return record, verified

    def _record(self, session_id: str) -> StoredRecord:
        """Everything stored about the session's audit trail, read in one snapshot."""
        db = self._connection
        own = not db.in_transaction
        if own:
            db.execute("BEGIN")
        try:
            one = (session_id,)
            header = db.execute("SELECT header FROM audit_chains WHERE session_id=?", one).fetchone()
            entries = [
                RawEntry(int(r[0]), str(r[1]), str(r[2]), str(r[3]))
                for r in db.execute(
                    "SELECT seq, entry, previous, digest FROM audit WHERE session_id=? ORDER BY seq", one
                )
            ]
            head = db.execute("SELECT seq, digest FROM audit_checkpoints WHERE session_id=?", one).fetchone()
            seal = db.execute("SELECT seq, digest FROM audit_seals WHERE session_id=?", one).fetchone()
            state = db.execute("SELECT state FROM sessions WHERE session_id=?", one).fetchone()
            events = [
                (int(r[0]), str(r[1]))
                for r in db.execute("SELECT seq, event FROM events WHERE session_id=? ORDER BY seq", one)
            ]
            decisions = [
                Decision(str(r[0]), r[1], str(r[2]), str(r[3]), float(r[4]))
                for r in db.execute(
                    "SELECT request_id, option, guidance, decided_by, decided_at FROM decisions "
                    "WHERE session_id=? ORDER BY decided_at, request_id",
                    (session_id,),
                )
            ]
            requests = [
                (str(r[0]), str(r[1]), str(r[2]))
                for r in db.execute(
                    "SELECT request_id, payload, status FROM escalations WHERE session_id=? "
                    "ORDER BY created, request_id",
                    (session_id,),
                )
            ]
        finally:
            if own:
                db.execute("COMMIT")
        return StoredRecord(
            session_id,
            str(header[0]) if header is not None else None,
            entries,
            Checkpoint(int(head[0]), str(head[1])) if head is not None else None,
            Checkpoint(int(seal[0]), str(seal[1])) if seal is not None else None,
            str(state[0]) if state is not None else None,
            events,
            decisions,
            requests,
        )

    def execute(self, sql: str, parameters: Sequence[Any] = ()) -> list[tuple[Any, ...]]:
        """Run raw SQL (for tests that tamper with the log, and for reports)."""
        return list(self._connection.execute(sql, tuple(parameters)).fetchall())


def _domain(snapshot: Mapping[str, Any], config: str) -> str:
    """The domain a step belongs to: the stored config's name, else the config source."""
    stored = snapshot.get("config")
    name = stored.get("name") if isinstance(stored, Mapping) else None
    return name if isinstance(name, str) and name else config
