"""The principal's web console: a JSON API over the delegate's SQLite store and one static page.

A thin adapter: reading goes through `SessionStore` and `load_runner`, decisions through
`parley.governance.session.decide` and counterparty messages through `reply` — the same code paths
as `parley delegate decide` and `parley delegate reply`, so the audit log records who decided what
and when. Each request opens its own store connection (sqlite3 connections are per thread);
writes are serialised by one lock per app.
"""

from __future__ import annotations

import re
import threading
import time
from collections.abc import Generator, Sequence
from contextlib import contextmanager
from importlib import resources
from pathlib import Path
from typing import Any, NoReturn

from fastapi import FastAPI, HTTPException, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse, Response
from starlette.middleware.trustedhost import TrustedHostMiddleware

from parley import __version__
from parley.errors import ScenarioError
from parley.governance.escalation import EscalationRequest
from parley.governance.session import SessionRunner, decide, load_runner, reply
from parley.governance.store import SessionStore
from parley.protocol.clock import Clock
from parley.protocol.events import Event, Trajectory
from parley.web.models import (
    AuditStatus,
    DecideBody,
    DecisionRecord,
    ErrorBody,
    Escalation,
    Health,
    Inbox,
    InboxItem,
    Ledger,
    Message,
    ReplyBody,
    SessionDetail,
    SessionList,
    SessionSummary,
    StepResult,
    TranscriptEntry,
)

_ASSETS = {"index.html": "text/html", "console.js": "text/javascript", "console.css": "text/css"}
_SECURITY_HEADERS = {
    # Everything is served from this origin; nothing is fetched from anywhere else.
    "Content-Security-Policy": "default-src 'self'; img-src 'self' data:; frame-ancestors 'none'; "
    "base-uri 'none'; form-action 'none'",
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "no-referrer",
}
_NOT_FOUND: dict[int | str, dict[str, Any]] = {404: {"model": ErrorBody, "description": "unknown session"}}
_WRITE_ERRORS: dict[int | str, dict[str, Any]] = {
    **_NOT_FOUND,
    409: {"model": ErrorBody, "description": "the session cannot take this now"},
    422: {"model": ErrorBody, "description": "invalid body"},
}


class WallClock:
    """Seconds since the Unix epoch, so decisions and audit entries carry real times."""

    def now(self) -> float:
        return time.time()


def _load_assets() -> dict[str, bytes]:
    folder = resources.files("parley.web").joinpath("static")
    return {name: folder.joinpath(name).read_bytes() for name in _ASSETS}


def _fail(status: int, message: str) -> NoReturn:
    raise HTTPException(status_code=status, detail=message)


def _validation_message(error: RequestValidationError) -> str:
    """The first validation problem as one line: "decided_by: Field required"."""
    first = error.errors()[0] if error.errors() else {"loc": (), "msg": "invalid request"}
    where = ".".join(str(part) for part in first.get("loc", ()) if part != "body")
    message = str(first.get("msg", "invalid request"))
    return f"{where}: {message}" if where else message


def _runner(store: SessionStore, session_id: str, clock: Clock) -> SessionRunner:
    try:
        return load_runner(store, session_id, clock=clock)
    except ScenarioError:
        _fail(404, f"no session {session_id!r}")


def _transcript_entry(event: Event) -> TranscriptEntry | None:
    data = event.data
    if event.kind in ("delegate_message", "counterparty_message"):
        speaker = event.party or event.kind.removesuffix("_message")
        return TranscriptEntry(
            seq=event.seq, time=event.time, kind="message", speaker=speaker, text=str(data["text"])
        )
    if event.kind == "escalation":
        text = f"escalated ({data['trigger']}): {data['problem']}"
        return TranscriptEntry(
            seq=event.seq,
            time=event.time,
            kind="escalation",
            speaker="delegate",
            text=text,
            request_id=str(data["request_id"]),
        )
    if event.kind == "decision":
        chosen = f"chose option {data['option']}" if data.get("option") else "gave guidance"
        guidance = f": {data['guidance']}" if data.get("guidance") else ""
        return TranscriptEntry(
            seq=event.seq,
            time=event.time,
            kind="decision",
            speaker=str(data["decided_by"]),
            text=chosen + guidance,
            request_id=str(data["request_id"]),
        )
    return None


def _transcript(events: Sequence[Event]) -> list[TranscriptEntry]:
    entries = (_transcript_entry(event) for event in events if event.is_public)
    return [entry for entry in entries if entry is not None]


def _detail(store: SessionStore, session_id: str, clock: Clock) -> SessionDetail:
    runner = _runner(store, session_id, clock)
    row = store.load_session(session_id)
    outcome, delegate = runner.outcome(), runner.delegate
    return SessionDetail(
        session_id=session_id,
        config=str(row["config"]),
        counterparty=row["persona"],
        seed=row["seed"],
        state=outcome.state.value,
        paused=outcome.paused,
        terminal=delegate.machine.terminal,
        turns=outcome.turns,
        terms=dict(outcome.terms),
        tci=Ledger.of(delegate.tci),
        pending=Escalation.of(outcome.pending) if outcome.pending is not None else None,
        transcript=_transcript(store.load_events(session_id)),
        escalations=[Escalation.of(request, status) for request, status in store.requests(session_id)],
        decisions=[DecisionRecord.of(decision) for decision in store.decisions(session_id)],
    )


def _inbox(store: SessionStore) -> Inbox:
    items: list[InboxItem] = []
    for session_id, _ in store.sessions():
        request = store.open_request(session_id)
        if request is not None:
            row = store.load_session(session_id)
            items.append(
                InboxItem(
                    session_id=session_id,
                    config=str(row["config"]),
                    counterparty=row["persona"],
                    request=Escalation.of(request),
                )
            )
    return Inbox(items=items)


def _summaries(store: SessionStore) -> SessionList:
    sessions: list[SessionSummary] = []
    for session_id, state in store.sessions():
        row = store.load_session(session_id)
        request = store.open_request(session_id)
        sessions.append(
            SessionSummary(
                session_id=session_id,
                config=str(row["config"]),
                counterparty=row["persona"],
                seed=row["seed"],
                state=state,
                pending_request=request.request_id if request is not None else None,
            )
        )
    return SessionList(sessions=sessions)


def _pending_request(store: SessionStore, session_id: str) -> EscalationRequest:
    """The open request, or 404 (unknown session) / 409 (nothing waiting for a decision)."""
    try:
        row = store.load_session(session_id)
    except ScenarioError:
        _fail(404, f"no session {session_id!r}")
    request = store.open_request(session_id)
    if request is None:
        _fail(409, f"session {session_id!r} is in state {row['state']}; no decision is pending")
    return request


def _decide(store: SessionStore, session_id: str, body: DecideBody, clock: Clock) -> StepResult:
    if body.option is None and not body.guidance:
        _fail(422, "give an option letter (e.g. A) or guidance text")
    request = _pending_request(store, session_id)
    if body.option is not None:
        try:
            request.option(body.option)
        except ScenarioError as error:
            _fail(422, str(error))
    messages: list[Message] = []
    try:
        outcome = decide(
            store,
            session_id,
            option=body.option,
            guidance=body.guidance,
            decided_by=body.decided_by,
            clock=clock,
            on_message=lambda speaker, text: messages.append(Message(speaker=speaker, text=text)),
        )
    except ScenarioError as error:  # e.g. decided meanwhile from another process
        _fail(409, str(error))
    return StepResult.of(outcome, messages)


def _reply(store: SessionStore, session_id: str, body: ReplyBody, clock: Clock) -> StepResult:
    try:
        store.load_session(session_id)
    except ScenarioError:
        _fail(404, f"no session {session_id!r}")
    messages: list[Message] = []
    try:
        outcome = reply(
            store,
            session_id,
            body.message,
            clock=clock,
            on_message=lambda speaker, text: messages.append(Message(speaker=speaker, text=text)),
        )
    except ScenarioError as error:
        _fail(409, str(error))
    return StepResult.of(outcome, messages)


def _audit(store: SessionStore, session_id: str) -> AuditStatus:
    try:
        store.load_session(session_id)
        report = store.verify(session_id)
    except ScenarioError:
        _fail(404, f"no session {session_id!r}")
    return AuditStatus.of(session_id, report)


def _trajectory(store: SessionStore, session_id: str) -> Response:
    try:
        store.load_session(session_id)
    except ScenarioError:
        _fail(404, f"no session {session_id!r}")
    filename = re.sub(r"[^A-Za-z0-9._-]", "_", session_id) + ".trajectory.jsonl"
    return Response(
        Trajectory(store.load_events(session_id)).to_jsonl(),
        media_type="application/x-ndjson",
        headers={"Content-Disposition": f'attachment; filename="{filename}"'},
    )


def _page(assets: dict[str, bytes], name: str) -> Response:
    if name not in assets:
        _fail(404, f"no asset {name!r}")
    return Response(assets[name], media_type=_ASSETS[name], headers=_SECURITY_HEADERS)


@contextmanager
def _opened(db_path: Path) -> Generator[SessionStore]:
    """One store connection per request, opened and closed in the thread that serves it."""
    store = SessionStore(db_path)
    try:
        yield store
    finally:
        store.close()


def _add_routes(app: FastAPI, db_path: Path, clock: Clock) -> None:
    lock = threading.Lock()
    assets = _load_assets()

    @app.get("/api/health")
    def health() -> Health:
        with _opened(db_path) as store:
            return Health(version=__version__, database=store.path, sessions=len(store.sessions()))

    @app.get("/api/inbox")
    def inbox() -> Inbox:
        with _opened(db_path) as store:
            return _inbox(store)

    @app.get("/api/sessions")
    def sessions() -> SessionList:
        with _opened(db_path) as store:
            return _summaries(store)

    @app.get("/api/sessions/{session_id}", responses=_NOT_FOUND)
    def session(session_id: str) -> SessionDetail:
        with _opened(db_path) as store:
            return _detail(store, session_id, clock)

    @app.get("/api/sessions/{session_id}/audit", responses=_NOT_FOUND)
    def audit(session_id: str) -> AuditStatus:
        with _opened(db_path) as store:
            return _audit(store, session_id)

    @app.get(
        "/api/sessions/{session_id}/trajectory",
        responses={**_NOT_FOUND, 200: {"content": {"application/x-ndjson": {}}}},
        response_class=Response,
    )
    def trajectory(session_id: str) -> Response:
        """Every event of the session as JSONL, the format `parley run --save` writes."""
        with _opened(db_path) as store:
            return _trajectory(store, session_id)

    @app.post("/api/sessions/{session_id}/decide", responses=_WRITE_ERRORS)
    def decide_route(session_id: str, body: DecideBody) -> StepResult:
        with lock, _opened(db_path) as store:
            return _decide(store, session_id, body, clock)

    @app.post("/api/sessions/{session_id}/reply", responses=_WRITE_ERRORS)
    def reply_route(session_id: str, body: ReplyBody) -> StepResult:
        with lock, _opened(db_path) as store:
            return _reply(store, session_id, body, clock)

    @app.get("/", include_in_schema=False)
    def index() -> Response:
        return _page(assets, "index.html")

    @app.get("/static/{name}", include_in_schema=False)
    def static(name: str) -> Response:
        return _page(assets, name)


def create_app(
    db_path: Path, *, clock: Clock | None = None, allowed_hosts: Sequence[str] | None = None
) -> FastAPI:
    """Build the console over one SQLite store.

    Args:
        db_path: The delegate's database (created with an empty schema if missing).
        clock: Clock for decision and audit timestamps (default: wall-clock seconds since the epoch).
        allowed_hosts: Host headers to accept (e.g. ["127.0.0.1", "localhost"]) — guards a console on
            a loopback address against DNS rebinding. None accepts any host.

    Returns:
        The FastAPI application (serve it with uvicorn, or test it with `TestClient`).
    """
    SessionStore(db_path).close()  # create the schema once, so read-only requests never race on it
    the_clock: Clock = clock or WallClock()

    app = FastAPI(
        title="parley console",
        version=__version__,
        summary="Principal inbox and decisions for GAIA governed-delegate sessions.",
        docs_url=None,  # Swagger UI and ReDoc load from a CDN; the console must work offline
        redoc_url=None,
    )
    if allowed_hosts is not None:
        app.add_middleware(TrustedHostMiddleware, allowed_hosts=list(allowed_hosts))

    @app.exception_handler(RequestValidationError)
    async def one_line_validation_error(request: Request, error: RequestValidationError) -> JSONResponse:
        return JSONResponse({"detail": _validation_message(error)}, status_code=422)

    _add_routes(app, Path(db_path), the_clock)
    return app
