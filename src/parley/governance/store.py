"""SQLite persistence (stdlib sqlite3, WAL): sessions, escalation requests, decisions, events, audit.

Each delegate step is committed in one transaction: the session snapshot, new trajectory events
and their hash-chained audit entries, and the head checkpoint. A killed process loses nothing.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Generator, Mapping, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from parley.errors import ScenarioError
from parley.governance.audit import GENESIS, Checkpoint, StoredEntry, VerifyReport, entry_hash, verify_chain
from parley.governance.escalation import Decision, EscalationRequest
from parley.protocol.events import Event

_SCHEMA = """
CREATE TABLE IF NOT EXISTS sessions (
    session_id TEXT PRIMARY KEY, config TEXT NOT NULL, persona TEXT, seed INTEGER,
    state TEXT NOT NULL, snapshot TEXT NOT NULL, created REAL NOT NULL, updated REAL NOT NULL);
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
"""


class SessionStore:
    """All persistent delegate data in one SQLite file (or ":memory:").

    Args:
        path: Database file (parent folders are created) or ":memory:".
    """

    def __init__(self, path: str | Path = ":memory:") -> None:
        target = str(path)
        if target != ":memory:":
            Path(target).parent.mkdir(parents=True, exist_ok=True)
        self.path = target
        self._connection = sqlite3.connect(target, isolation_level=None)
        self._connection.execute("PRAGMA journal_mode=WAL")
        self._connection.execute("PRAGMA synchronous=NORMAL")
        self._connection.executescript(_SCHEMA)

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
    def new_session_id(self, prefix: str) -> str:
        """A fresh id "prefix-N" (N counts existing sessions with that prefix, so ids are deterministic)."""
        row = self._connection.execute(
            "SELECT COUNT(*) FROM sessions WHERE session_id LIKE ?", (f"{prefix}-%",)
        ).fetchone()
        return f"{prefix}-{int(row[0]) + 1}"

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
    ) -> None:
        """Persist one step atomically: snapshot, new events and their audit entries, checkpoint, seal."""
        with self.transaction() as db:
            db.execute(
                "INSERT INTO sessions VALUES (?,?,?,?,?,?,?,?) ON CONFLICT(session_id) DO UPDATE SET "
                "state=excluded.state, snapshot=excluded.snapshot, updated=excluded.updated",
                (session_id, config, persona, seed, state, json.dumps(snapshot), now, now),
            )
            head = self._append_events(db, session_id, events, now)
            if seal and head is not None:
                db.execute(
                    "INSERT OR REPLACE INTO audit_seals VALUES (?,?,?,?,?)",
                    (session_id, head.seq, head.digest, state, now),
                )

    def _append_events(
        self, db: sqlite3.Connection, session_id: str, events: Sequence[Event], now: float
    ) -> Checkpoint | None:
        row = db.execute(
            "SELECT seq, digest FROM audit WHERE session_id=? ORDER BY seq DESC LIMIT 1", (session_id,)
        ).fetchone()
        previous = str(row[1]) if row else GENESIS
        head = Checkpoint(int(row[0]), previous) if row else None
        for event in events:
            entry = event.to_json()
            digest = entry_hash(previous, entry)
            db.execute("INSERT INTO events VALUES (?,?,?)", (session_id, event.seq, json.dumps(entry)))
            db.execute(
                "INSERT INTO audit VALUES (?,?,?,?,?)",
                (session_id, event.seq, json.dumps(entry), previous, digest),
            )
            previous = digest
            head = Checkpoint(event.seq, digest)
        if head is not None:
            db.execute(
                "INSERT OR REPLACE INTO audit_checkpoints VALUES (?,?,?,?)",
                (session_id, head.seq, head.digest, now),
            )
        return head

    def load_session(self, session_id: str) -> dict[str, Any]:
        """The stored session row (config, persona, seed, state, snapshot).

        Raises:
            ScenarioError: if there is no such session.
        """
        row = self._connection.execute(
            "SELECT config, persona, seed, state, snapshot FROM sessions WHERE session_id=?", (session_id,)
        ).fetchone()
        if row is None:
            raise ScenarioError(f"no session {session_id!r}", source=self.path, field="session")
        return {
            "config": row[0],
            "persona": row[1],
            "seed": row[2],
            "state": row[3],
            "snapshot": json.loads(row[4]),
        }

    def sessions(self) -> list[tuple[str, str]]:
        """(session id, state) for every stored session."""
        rows = self._connection.execute("SELECT session_id, state FROM sessions ORDER BY created, session_id")
        return [(str(r[0]), str(r[1])) for r in rows]

    def load_events(self, session_id: str) -> list[Event]:
        """The session's trajectory events in order."""
        rows = self._connection.execute(
            "SELECT event FROM events WHERE session_id=? ORDER BY seq", (session_id,)
        )
        return [Event.from_json(json.loads(r[0])) for r in rows]

    # escalations and decisions -------------------------------------------------------------
    def save_request(self, request: EscalationRequest) -> None:
        """Store an open escalation request."""
        with self.transaction() as db:
            db.execute(
                "INSERT OR REPLACE INTO escalations VALUES (?,?,?,?,?,?)",
                (
                    request.request_id,
                    request.session_id,
                    request.trigger.value,
                    json.dumps(request.to_json()),
                    "open",
                    request.created,
                ),
            )

    def open_request(self, session_id: str) -> EscalationRequest | None:
        """The session's open request, if any."""
        row = self._connection.execute(
            "SELECT payload FROM escalations WHERE session_id=? AND status='open' "
            "ORDER BY created DESC LIMIT 1",
            (session_id,),
        ).fetchone()
        return EscalationRequest.from_json(json.loads(row[0])) if row else None

    def requests(self, session_id: str) -> list[tuple[EscalationRequest, str]]:
        """Every request of a session with its status."""
        rows = self._connection.execute(
            "SELECT payload, status FROM escalations WHERE session_id=? ORDER BY created, request_id",
            (session_id,),
        )
        return [(EscalationRequest.from_json(json.loads(r[0])), str(r[1])) for r in rows]

    def save_decision(self, session_id: str, decision: Decision) -> None:
        """Store a decision and close its request.

        Raises:
            ScenarioError: if the request was already decided (e.g. by another principal meanwhile).
        """
        with self.transaction() as db:
            row = db.execute(
                "SELECT status FROM escalations WHERE request_id=?", (decision.request_id,)
            ).fetchone()
            if row is not None and row[0] != "open":
                raise ScenarioError(
                    f"request {decision.request_id} was already decided", source=self.path, field="request_id"
                )
            db.execute(
                "INSERT OR REPLACE INTO decisions VALUES (?,?,?,?,?,?)",
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

    def decisions(self, session_id: str) -> list[Decision]:
        """Every decision of a session."""
        rows = self._connection.execute(
            "SELECT request_id, option, guidance, decided_by, decided_at FROM decisions WHERE session_id=? "
            "ORDER BY decided_at, request_id",
            (session_id,),
        )
        return [Decision(str(r[0]), r[1], str(r[2]), str(r[3]), float(r[4])) for r in rows]

    # audit ----------------------------------------------------------------------------------
    def verify(self, session_id: str) -> VerifyReport:
        """Verify the session's audit chain against its checkpoint and seal.

        Raises:
            ScenarioError: if the session has no audit entries and no checkpoint.
        """
        rows = self._connection.execute(
            "SELECT seq, entry, previous, digest FROM audit WHERE session_id=? ORDER BY seq", (session_id,)
        ).fetchall()
        head_row = self._connection.execute(
            "SELECT seq, digest FROM audit_checkpoints WHERE session_id=?", (session_id,)
        ).fetchone()
        seal_row = self._connection.execute(
            "SELECT seq, digest FROM audit_seals WHERE session_id=?", (session_id,)
        ).fetchone()
        if not rows and head_row is None:
            raise ScenarioError(f"no audit log for session {session_id!r}", source=self.path, field="session")
        entries = [StoredEntry(int(r[0]), json.loads(r[1]), str(r[2]), str(r[3])) for r in rows]
        head = Checkpoint(int(head_row[0]), str(head_row[1])) if head_row else None
        seal = Checkpoint(int(seal_row[0]), str(seal_row[1])) if seal_row else None
        return verify_chain(entries, head, seal)

    def execute(self, sql: str, parameters: Sequence[Any] = ()) -> list[tuple[Any, ...]]:
        """Run raw SQL (for tests that tamper with the log, and for reports)."""
        return list(self._connection.execute(sql, tuple(parameters)).fetchall())
