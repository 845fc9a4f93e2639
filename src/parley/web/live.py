"""Live views pushed to the page with server-sent events: a delegate session and a mediated conversation.

* A governed delegate's session lives in the SQLite store and moves whenever anyone answers it (a
  principal in another tab, `parley delegate reply` in a terminal). Its stream polls the session's
  version and sends a snapshot (transcript, state, TCI over time, safety events, escalations) each
  time it changes.
* A mediated conversation is started here (rule-based participants and mediator, paced so a person
  can follow it) in a background thread; its stream sends each event as it happens, numbered so a
  reconnecting browser (`Last-Event-ID`) gets only what it missed. When it ends it is saved as a
  run (`<runs>/mediations/<id>/`) for the run browser and the rating form.

Each stream ends after `limit` seconds; the browser's EventSource reconnects by itself.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import logging
import os
import secrets
import threading
import time
import unicodedata
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Annotated, Any, Literal

from fastapi import FastAPI, Header, Request
from fastapi.responses import StreamingResponse
from pydantic import BaseModel, ConfigDict, Field
from starlette.concurrency import run_in_threadpool

from parley.errors import ParleyError, ScenarioError
from parley.governance.audit import AuditError
from parley.governance.safe_text import printable
from parley.governance.session import load_runner
from parley.governance.store import SessionStore
from parley.jsonio import CONVERSATION_NO_VALUE_FIELDS, dumps
from parley.protocol.clock import Clock
from parley.protocol.events import Event, Trajectory, TrajectoryError
from parley.protocol.governed import DelegateViolation, ModeratorLabel, Preflight
from parley.protocol.live_log import LIVE_FILE, MAX_LIVE_BYTES, read_live
from parley.protocol.payloads import Consensus, ConversationEnded, ConversationStarted, Said, Violation
from parley.web.models import Escalation, Ledger, Served, TranscriptEntry, transcript_of
from parley.web.routing import READ_ERRORS, WRITE_ERRORS, SignedInPrincipal, fail
from parley.web.run_plots import tci_points

logger = logging.getLogger(__name__)

MEDIATORS = ("social", "generic", "none")
MODES = ("general", "competing", "avoiding", "accommodating")
MAX_RUNNING = 2
"""Mediated conversations that may run at once (the console shares the machine)."""
MAX_KEPT = 20
"""Finished conversations kept in memory for their streams (they are saved as runs as well)."""
MAX_FOLLOWED = 20
"""Live files of conversations run from a terminal that the console follows at most."""
FOLLOW_POLL_SECONDS = 0.3
FOLLOW_STALE_SECONDS = 120.0
"""A followed conversation whose live file has not grown for this long is reported as stopped."""


class TciPoint(Served):
    """The weighted TCI after one state change."""

    turn: int
    tci: float
    state: str


class SafetyEvent(Served):
    """Something the delegate's safety checks noticed."""

    turn: int
    kind: str
    text: str


class LiveSession(Served):
    """One snapshot of a delegate session for the live view."""

    session_id: str
    version: int
    state: str
    paused: bool
    terminal: bool
    turns: int
    tci: Ledger
    tci_curve: list[TciPoint]
    transcript: list[TranscriptEntry]
    escalations: list[Escalation]
    safety: list[SafetyEvent]


def _safety(events: list[Event]) -> list[SafetyEvent]:
    found: list[SafetyEvent] = []
    for event in events:
        payload = event.payload  # (data no payload type fits is skipped)
        if isinstance(payload, ModeratorLabel) and payload.label != "cooperative":
            found.append(SafetyEvent(turn=event.round, kind="counterparty", text=f"labelled {payload.label}"))
        elif isinstance(payload, Preflight) and (payload.requires_approval or payload.refused):
            why = "refused" if payload.refused else "needs approval"
            found.append(
                SafetyEvent(turn=event.round, kind="preflight", text=f"draft {why}: {payload.rationale}")
            )
        elif isinstance(payload, Violation | DelegateViolation):
            found.append(SafetyEvent(turn=event.round, kind="violation", text=_violation_text(payload)[:300]))
    return found


def _violation_text(violation: Violation | DelegateViolation) -> str:
    """The engine's detail; a delegate's record shown as stored (keys sorted, as the audit writes them)."""
    if isinstance(violation, Violation):
        return violation.detail
    record = {"slips": list(violation.slips), "severity": list(violation.severity), **violation.extra}
    return str(dict(sorted({**record, "rationale": violation.rationale}.items())))


def live_session(store: SessionStore, session_id: str, clock: Clock) -> LiveSession:
    """A snapshot of a delegate session from its verified record.

    Raises:
        ScenarioError: no such session.
        AuditError: its record does not verify.
    """
    runner = load_runner(store, session_id, clock=clock)
    row = store.load_session(session_id)
    events = store.load_events(session_id)
    outcome, delegate = runner.outcome(), runner.delegate
    return LiveSession(
        session_id=session_id,
        version=int(row["version"]),
        state=outcome.state.value,
        paused=outcome.paused,
        terminal=delegate.machine.terminal,
        turns=outcome.turns,
        tci=Ledger.of(delegate.tci),
        tci_curve=[TciPoint.model_validate(point) for point in tci_points(events)],
        transcript=transcript_of(events),
        escalations=[Escalation.of(request, status) for request, status in store.requests(session_id)],
        safety=_safety(events),
    )


def _sse(event: str, data: str, event_id: int | None = None) -> bytes:
    """One server-sent event (data on one line: JSON never holds a raw newline)."""
    head = f"id: {event_id}\n" if event_id is not None else ""
    return f"{head}event: {event}\ndata: {data}\n\n".encode()


_SSE_HEADERS = {"Cache-Control": "no-store", "X-Accel-Buffering": "no"}


# -- mediated conversations --------------------------------------------------------------------------


class MediationBody(BaseModel):
    """`POST /api/live/mediations`: a ProMediate case, the mediator, the conflict mode, a seed and a pace."""

    model_config = ConfigDict(extra="forbid")
    case: Annotated[str, Field(min_length=1, max_length=40)] = "hmo"
    mediator: Literal["social", "generic", "none"] = "social"
    mode: Literal["general", "competing", "avoiding", "accommodating"] = "general"
    seed: Annotated[int, Field(ge=0, le=2**31 - 1)] = 0
    pace: Annotated[float, Field(ge=0.0, le=3.0, description="Seconds between turns.")] = 0.6


class MediationInfo(Served):
    """A live (or just finished) mediated conversation."""

    mediation_id: str
    case: str
    mediator: str
    mode: str
    seed: int
    started_by: str
    events: int
    done: bool
    error: str
    run: str | None


class MediationList(Served):
    """`GET /api/live/mediations` and the cases one can start."""

    cases: list[str]
    mediators: list[str]
    modes: list[str]
    mediations: list[MediationInfo]


@dataclass
class _Conversation:
    """A conversation played here in a background thread, or followed from another process's live
    file (`parley mediate --save DIR` under the runs folder), its events kept for its streams."""

    mediation_id: str
    case: str
    mediator: str
    mode: str
    seed: int
    started_by: str
    pace: float = 0.0
    followed: bool = False
    events: list[dict[str, Any]] = field(default_factory=lambda: [])
    done: bool = False
    error: str = ""
    run: str | None = None
    changed: threading.Condition = field(default_factory=threading.Condition)

    def info(self) -> MediationInfo:
        return MediationInfo(
            mediation_id=self.mediation_id,
            case=self.case,
            mediator=self.mediator,
            mode=self.mode,
            seed=self.seed,
            started_by=self.started_by,
            events=len(self.events),
            done=self.done,
            error=self.error,
            run=self.run,
        )

    def add(self, event: Event) -> None:
        data = _shown(event)
        if data is None:
            return
        with self.changed:
            self.events.append(data)
            self.changed.notify_all()

    def finish(self, run: str | None, error: str = "") -> None:
        with self.changed:
            self.done, self.run, self.error = True, run, error
            self.changed.notify_all()


def _shown(event: Event) -> dict[str, Any] | None:
    """What the live page shows of a conversation event (None for events it does not show)."""
    if event.kind in ("utterance", "intervention") and isinstance(said := event.payload, Said):
        return {"kind": event.kind, "turn": event.round, "speaker": event.party or "", "text": said.text}
    if event.kind == "consensus" and isinstance(consensus := event.payload, Consensus):
        topics = dict(consensus.topics)
        return {"kind": "consensus", "turn": event.round, "group": consensus.group, "topics": topics}
    if event.kind == "conversation_started" and isinstance(started := event.payload, ConversationStarted):
        return {
            "kind": "started",
            "turn": 0,
            "parties": list(started.parties),
            "topics": list(started.topics),
        }
    if event.kind == "conversation_ended" and isinstance(event.payload, ConversationEnded):
        return {"kind": "ended", "turn": event.round, "reason": ""}  # (ConversationEnded has no reason)
    return None


def case_names() -> list[str]:
    """The shipped ProMediate cases."""
    from parley.scenarios.importers.promediate import PROMEDIATE_CASES

    return sorted(PROMEDIATE_CASES)


def _play(conversation: _Conversation, runs_dir: Path) -> None:
    """Play one conversation (in its own thread), pacing its turns, then save it as a run."""
    from parley.experiments.promediate_llm import ConversationRoles, play_conversation
    from parley.scenarios.importers.promediate import load_promediate_case
    from parley.simulation.modes import ConflictMode

    def paced(event: Event) -> None:
        conversation.add(event)
        if conversation.pace and event.kind in ("utterance", "intervention"):
            time.sleep(conversation.pace)

    try:
        case = load_promediate_case(conversation.case)
        played = play_conversation(
            case,
            conversation.mediator,
            ConflictMode.parse(conversation.mode),
            conversation.seed,
            ConversationRoles(),
            None,
            on_event=paced,
        )
        folder = runs_dir / "mediations" / conversation.mediation_id
        folder.mkdir(parents=True, exist_ok=True)
        files = {
            "trajectory.jsonl": Trajectory(list(played.result.trajectory)).to_jsonl(versioned=True),
            "metrics.json": dumps(played.metrics.to_json(), no_value=CONVERSATION_NO_VALUE_FIELDS, indent=2)
            + "\n",
        }
        for name, text in files.items():
            (folder / f".{name}.partial").write_text(text, encoding="utf-8")
            (folder / f".{name}.partial").replace(folder / name)
        conversation.finish(f"mediations/{conversation.mediation_id}")
    except (ParleyError, OSError, ValueError) as error:
        logger.warning("mediation %s failed: %s", conversation.mediation_id, error)
        conversation.finish(None, printable(str(error))[:300])


def _follow(conversation: _Conversation, path: Path, folder: str) -> None:
    """Follow a live file (in its own thread) until its conversation ends, its writer stops, or it is
    removed: each new event goes to the conversation's streams."""
    last_seq, last_size, last_change = -1, -1, time.monotonic()
    while True:
        try:
            read = read_live(path)
        except OSError:  # removed: the run finished (its trajectory.jsonl is beside it) or was deleted
            saved = _saved_events(path.parent)
            for event in saved or ():  # what was written after the last look, from the finished run
                if event.seq > last_seq:
                    conversation.add(event)
            ok = saved is not None
            conversation.finish(folder if ok else None, "" if ok else "the live file was removed")
            return
        for event in read.events:
            if event.seq > last_seq:
                conversation.add(event)
                last_seq = event.seq
        ended = any(e.kind == "conversation_ended" for e in read.events)
        now = time.monotonic()
        if read.size >= MAX_LIVE_BYTES:
            conversation.finish(None, "stopped following: the live file is too large")
            return
        if read.size != last_size:
            last_size, last_change = read.size, now
        pid = read.about.get("pid")
        gone = isinstance(pid, int) and not _alive(pid)
        if gone or (not ended and now - last_change > FOLLOW_STALE_SECONDS):
            why = f"process {pid} is gone" if gone else f"nothing written for {FOLLOW_STALE_SECONDS:.0f} s"
            saved = (path.parent / "trajectory.jsonl").is_file()
            conversation.finish(folder if saved else None, "" if saved else f"stopped: {why}")
            return
        time.sleep(FOLLOW_POLL_SECONDS)


def _saved_events(folder: Path) -> tuple[Event, ...] | None:
    """The events of the finished run saved in folder, or None when there is none (or it is unreadable)."""
    try:
        return tuple(Trajectory.load(folder / "trajectory.jsonl"))
    except TrajectoryError:
        return None


def _label(value: object) -> str:
    """A name from a live file's header as the page shows it: printable, no format characters, short."""
    text = "".join(c for c in printable(str(value)) if unicodedata.category(c) != "Cf").strip()
    return text[:40] or "?"


def _alive(pid: int) -> bool:
    """Whether a process with this id runs on this machine (a live file written elsewhere counts as alive)."""
    if pid <= 0:
        return False
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except OSError:  # exists but belongs to someone else, or the check is not allowed: assume alive
        return True
    return True


class _Mediations:
    """The console's mediated conversations: started, running, and the last few finished."""

    def __init__(self, runs_dir: Path) -> None:
        self.runs_dir = runs_dir
        self._items: dict[str, _Conversation] = {}
        self._seen: set[Path] = set()
        self._lock = threading.Lock()

    def start(self, body: MediationBody, principal: str) -> _Conversation:
        if body.case not in case_names():
            fail(422, f"unknown case {body.case[:40]!r}; cases: {', '.join(case_names())}")
        with self._lock:
            running = sum(1 for c in self._items.values() if not c.done and not c.followed)
            if running >= MAX_RUNNING:
                fail(409, f"{running} conversations are running already: wait for one to end")
            conversation = _Conversation(
                secrets.token_urlsafe(9), body.case, body.mediator, body.mode, body.seed, principal, body.pace
            )
            self._keep(conversation)
        threading.Thread(target=_play, args=(conversation, self.runs_dir), daemon=True).start()
        return conversation

    def get(self, mediation_id: str) -> _Conversation:
        self._discover()
        with self._lock:
            found = self._items.get(mediation_id)
        if found is None:
            fail(404, f"no live conversation {mediation_id[:40]!r} (finished ones are in the run browser)")
        return found

    def all(self) -> list[_Conversation]:
        self._discover()
        with self._lock:
            return list(self._items.values())

    def _keep(self, conversation: _Conversation) -> None:
        """Add a conversation, dropping the oldest finished ones beyond MAX_KEPT (lock held)."""
        self._items[conversation.mediation_id] = conversation
        finished = [key for key, c in self._items.items() if c.done]
        for key in finished[: max(0, len(self._items) - MAX_KEPT)]:
            del self._items[key]

    def _discover(self) -> None:
        """Follow every live file a terminal's `parley mediate --save` is writing under the runs folder."""
        try:
            found = sorted({*self.runs_dir.glob(f"*/{LIVE_FILE}"), *self.runs_dir.glob(f"*/*/{LIVE_FILE}")})
        except OSError:
            return
        for path in found[:MAX_FOLLOWED]:
            with self._lock:
                if path in self._seen:
                    continue
                self._seen.add(path)
                folder = path.parent.relative_to(self.runs_dir).as_posix()
                try:
                    about = read_live(path).about
                except OSError:
                    continue
                seed = about.get("seed")
                conversation = _Conversation(
                    "t-" + hashlib.sha256(folder.encode()).hexdigest()[:12],
                    _label(about.get("case")),
                    _label(about.get("mediator")),
                    _label(about.get("mode")),
                    seed if isinstance(seed, int) and not isinstance(seed, bool) else -1,
                    "terminal",
                    followed=True,
                )
                self._keep(conversation)
            threading.Thread(target=_follow, args=(conversation, path, folder), daemon=True).start()


async def _conversation_stream(
    conversation: _Conversation, after: int, limit: float, disconnected: Callable[[], Any]
) -> AsyncIterator[bytes]:
    sent = max(0, after)
    deadline = time.monotonic() + limit
    yield b"retry: 1000\n\n"
    while time.monotonic() < deadline:
        with conversation.changed:
            pending = conversation.events[sent:]
            done = conversation.done
        for offset, data in enumerate(pending):
            yield _sse("event", json.dumps(data, default=str), sent + offset + 1)
        sent += len(pending)
        if done and not pending:
            yield _sse("end", json.dumps({"run": conversation.run, "error": conversation.error}))
            return
        if await disconnected():
            return
        await asyncio.sleep(0.2)


class _Sessions:
    """Delegate sessions as the live view reads them: a snapshot, and a stream of snapshots."""

    def __init__(self, db_path: Path, clock: Clock, limit: float) -> None:
        self.db_path = db_path
        self.clock = clock
        self.limit = limit

    def snapshot(self, session_id: str) -> tuple[int, LiveSession | None, str]:
        """(version, snapshot, "") of a session, or (-1, None, why) when its record does not verify.

        Raises:
            ScenarioError: no such session.
        """
        store = SessionStore(self.db_path)
        try:
            version = int(store.load_session(session_id)["version"])
            return version, live_session(store, session_id, self.clock), ""
        except AuditError as error:
            return -1, None, printable(str(error))
        finally:
            store.close()

    def check(self, session_id: str) -> None:
        """Answer 404 for an unknown session."""
        store = SessionStore(self.db_path)
        try:
            store.load_session(session_id)
        except ScenarioError as error:
            fail(404, str(error))
        finally:
            store.close()

    async def stream(self, session_id: str, request: Request) -> AsyncIterator[bytes]:
        """A snapshot each time the session's version changes, until it ends or the limit passes."""
        seen = None
        deadline = time.monotonic() + self.limit
        yield b"retry: 1000\n\n"
        while time.monotonic() < deadline:
            try:
                version, live, problem = await run_in_threadpool(self.snapshot, session_id)
            except ScenarioError as error:
                yield _sse("refused", json.dumps({"detail": printable(str(error))}))
                return
            if problem:
                yield _sse("refused", json.dumps({"detail": problem}))
                return
            if version != seen and live is not None:
                seen = version
                yield _sse("snapshot", live.model_dump_json(), version)
                if live.terminal:
                    yield _sse("end", json.dumps({"state": live.state}))
                    return
            if await request.is_disconnected():
                return
            await asyncio.sleep(0.5)


def add_live_routes(
    app: FastAPI, db_path: Path, runs_dir: Path, clock: Clock, *, limit: float = 30.0
) -> None:
    """The live views' streams on app (each stream ends after limit seconds; browsers reconnect)."""
    mediations = _Mediations(runs_dir)
    sessions = _Sessions(db_path, clock, limit)

    @app.get("/api/live/sessions/{session_id}", responses=READ_ERRORS)
    def session_now(session_id: str, signed_in: SignedInPrincipal) -> LiveSession:
        """A delegate session as the live view shows it (the stream sends the same, on every change)."""
        try:
            _, live, problem = sessions.snapshot(session_id)
        except ScenarioError as error:
            fail(404, str(error))
        if live is None:
            fail(409, problem)
        return live

    @app.get(
        "/api/live/sessions/{session_id}/events", response_class=StreamingResponse, responses=READ_ERRORS
    )
    def session_events(session_id: str, request: Request, signed_in: SignedInPrincipal) -> StreamingResponse:
        """Server-sent events: a `snapshot` of the session whenever it changes, `end` when it has ended."""
        sessions.check(session_id)
        return StreamingResponse(
            sessions.stream(session_id, request), media_type="text/event-stream", headers=_SSE_HEADERS
        )

    @app.get("/api/live/mediations")
    def list_mediations(signed_in: SignedInPrincipal) -> MediationList:
        """The cases, mediators and modes, and the conversations running or just finished."""
        return MediationList(
            cases=case_names(),
            mediators=list(MEDIATORS),
            modes=list(MODES),
            mediations=[c.info() for c in mediations.all()],
        )

    @app.post("/api/live/mediations", status_code=201, responses=WRITE_ERRORS)
    def start_mediation(body: MediationBody, signed_in: SignedInPrincipal) -> MediationInfo:
        """Start a rule-based mediated conversation; follow it at /api/live/mediations/{id}/events."""
        return mediations.start(body, signed_in.principal).info()

    @app.get(
        "/api/live/mediations/{mediation_id}/events", response_class=StreamingResponse, responses=READ_ERRORS
    )
    def mediation_events(
        mediation_id: str,
        request: Request,
        signed_in: SignedInPrincipal,
        last_event_id: Annotated[str | None, Header()] = None,
    ) -> StreamingResponse:
        """Server-sent events: each turn, intervention and consensus as it happens; `end` with the run id."""
        conversation = mediations.get(mediation_id)
        after = int(last_event_id) if last_event_id is not None and last_event_id.isdigit() else 0
        return StreamingResponse(
            _conversation_stream(conversation, after, limit, request.is_disconnected),
            media_type="text/event-stream",
            headers=_SSE_HEADERS,
        )
