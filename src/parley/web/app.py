"""The principal's web console: a JSON API over the delegate's SQLite store and one static page.

A thin adapter: reading goes through `SessionStore` and `load_runner`, decisions through
`parley.governance.session.decide` and counterparty messages through `reply` — the same code paths
as `parley delegate decide` and `parley delegate reply`, so the audit log records who decided what
and when. Each request opens its own store connection (sqlite3 connections are per thread);
writes are serialised by one lock per app.

Everything but the sign-in page, its assets and a minimal health check needs a signed-in principal
(`parley.web.auth`): API calls without one get 401, pages redirect to /login. A decision is recorded
under the signed-in principal's name. Every state-changing request must come from the console's own
origin (its Origin header, or lacking that its Referer; neither is refused) and carry the sign-in's
CSRF token in X-CSRF-Token.
"""

from __future__ import annotations

import hmac
import re
import time
from collections.abc import Callable, Generator, Sequence
from contextlib import contextmanager
from importlib import resources
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse, RedirectResponse, Response
from starlette.concurrency import run_in_threadpool
from starlette.middleware.base import RequestResponseEndpoint
from starlette.middleware.trustedhost import TrustedHostMiddleware

from parley import __version__
from parley.errors import ScenarioError, StaleDecision
from parley.governance.audit import AuditError
from parley.governance.safe_text import printable
from parley.governance.session import (
    SessionRunner,
    decide,
    is_portfolio,
    load_runner,
    portfolio_members,
    reply,
)
from parley.governance.store import SessionStore
from parley.protocol.clock import Clock
from parley.protocol.events import Trajectory
from parley.web.auth import SESSION_COOKIE, SESSION_SECONDS, Credentials, SignedIn
from parley.web.live import add_live_routes
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
    LoginBody,
    Message,
    ReplyBody,
    SessionDetail,
    SessionInfo,
    SessionList,
    SessionSummary,
    StepResult,
    transcript_of,
)
from parley.web.play_routes import add_play_routes
from parley.web.ratings_routes import add_rating_routes
from parley.web.routing import NOT_SIGNED_IN, SignedInPrincipal
from parley.web.routing import fail as _fail
from parley.web.runs_routes import add_run_routes

_ASSETS = {
    "index.html": "text/html",
    "login.html": "text/html",
    "play.html": "text/html",
    "runs.html": "text/html",
    "live.html": "text/html",
    "common.js": "text/javascript",
    "console.js": "text/javascript",
    "login.js": "text/javascript",
    "play.js": "text/javascript",
    "rating.js": "text/javascript",
    "runs.js": "text/javascript",
    "live.js": "text/javascript",
    "console.css": "text/css",
}
_PAGES = {"/play": "play.html", "/runs": "runs.html", "/live": "live.html"}
"""Pages besides the inbox ("/"), each a static file that loads its data from the API."""
_SECURITY_HEADERS = {
    # Everything is served from this origin; nothing is fetched from anywhere else.
    "Content-Security-Policy": "default-src 'self'; img-src 'self' data:; frame-ancestors 'none'; "
    "base-uri 'none'; form-action 'none'",
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "no-referrer",
}
LOGIN_PAGE = "/login"
_LOGIN_API = "/api/login"
# Reachable without signing in: the sign-in page, its assets, signing in, and a minimal health check.
_PUBLIC = frozenset({LOGIN_PAGE, "/static/login.js", "/static/console.css", "/api/health", _LOGIN_API})
_SAFE_METHODS = frozenset({"GET", "HEAD", "OPTIONS"})
CSRF_HEADER = "X-CSRF-Token"
CONFIRM_LIMIT = "confirm_limit"
_DEFAULT_PORTS = {"http": 80, "https": 443}
_NOT_FOUND: dict[int | str, dict[str, Any]] = {404: {"model": ErrorBody, "description": "unknown session"}}
_WRITE_ERRORS: dict[int | str, dict[str, Any]] = {
    **_NOT_FOUND,
    401: {"model": ErrorBody, "description": "not signed in"},
    403: {"model": ErrorBody, "description": "foreign origin, or missing or wrong CSRF token"},
    409: {"model": ErrorBody, "description": "the session cannot take this now"},
    422: {"model": ErrorBody, "description": "invalid body"},
}
Origin = tuple[str, str, int]
"""(scheme, host, port) of a web origin, for comparisons."""


class WallClock:
    """Seconds since the Unix epoch, so decisions and audit entries carry real times."""

    def now(self) -> float:
        return time.time()


def _load_assets() -> dict[str, bytes]:
    folder = resources.files("parley.web").joinpath("static")
    return {name: folder.joinpath(name).read_bytes() for name in _ASSETS}


def _refuse(status: int, message: str) -> JSONResponse:
    """An error answer built outside a route (in the guard middleware)."""
    return JSONResponse({"detail": message}, status_code=status)


def _validation_message(error: RequestValidationError) -> str:
    """The first validation problem as one line: "request_id: Field required"."""
    first = error.errors()[0] if error.errors() else {"loc": (), "msg": "invalid request"}
    where = ".".join(str(part) for part in first.get("loc", ()) if part != "body")
    message = str(first.get("msg", "invalid request"))
    return printable(f"{where}: {message}" if where else message)


def origin_of(url: str) -> Origin | None:
    """(scheme, host, port) of an http(s) URL or origin, with the scheme's default port; None if not one."""
    try:
        parts = urlsplit(url.strip())
        port = parts.port
    except ValueError:
        return None
    scheme = parts.scheme.lower()
    if scheme not in _DEFAULT_PORTS or not parts.hostname:
        return None
    return scheme, parts.hostname.lower(), port or _DEFAULT_PORTS[scheme]


def _own_origin(request: Request) -> Origin | None:
    """The origin the request was sent to (its scheme and Host header)."""
    return origin_of(f"{request.url.scheme}://{request.url.netloc}")


def _origin_problem(request: Request, origins: frozenset[Origin] | None) -> str | None:
    """Why a state-changing request does not come from the console's own page, or None if it does."""
    sent, header = request.headers.get("origin"), "Origin"
    if sent is None:
        sent, header = request.headers.get("referer"), "Referer"
    if sent is None:
        return "refused: a state-changing request needs an Origin or Referer header"
    allowed = origins if origins is not None else {_own_origin(request)}
    if origin_of(sent) not in allowed:
        return f"refused: {header} {printable(sent)[:80]!r} is not this console's origin"
    return None


def _csrf_problem(request: Request, signed_in: SignedIn | None) -> str | None:
    sent = request.headers.get(CSRF_HEADER, "")
    if signed_in is None or not hmac.compare_digest(sent.encode(), signed_in.csrf_token.encode()):
        return f"refused: missing or wrong CSRF token ({CSRF_HEADER}); reload the console"
    return None


def _runner(store: SessionStore, session_id: str, clock: Clock) -> SessionRunner:
    try:
        return load_runner(store, session_id, clock=clock)
    except AuditError:
        raise  # a tampered record: answered 409 by the app's handler, never shown
    except ScenarioError:
        members = _portfolio_members(store, session_id)
        if members:  # a group of sessions with no transcript of its own: say so and name them
            _fail(
                404,
                f"{session_id!r} is a portfolio of sessions ({', '.join(members)}): open one of them; "
                "its recommendation is answered from the inbox",
            )
        _fail(404, f"no session {session_id!r}")


def _portfolio_members(store: SessionStore, session_id: str) -> list[str]:
    """The sessions of the portfolio session_id, or [] when it is not one (or not there)."""
    try:
        row = store.load_session(session_id)
    except ScenarioError:
        return []
    return portfolio_members(row) if is_portfolio(row) else []


def _detail(store: SessionStore, session_id: str, clock: Clock) -> SessionDetail:
    runner = _runner(store, session_id, clock)
    row = store.load_session(session_id)
    outcome, delegate = runner.outcome(), runner.delegate
    return SessionDetail(
        session_id=session_id,
        config=str(row["config"]),
        counterparty=row["persona"],
        seed=row["seed"],
        version=int(row["version"]),
        state=outcome.state.value,
        paused=outcome.paused,
        terminal=delegate.machine.terminal,
        turns=outcome.turns,
        terms=dict(outcome.terms),
        tci=Ledger.of(delegate.tci),
        pending=Escalation.of(outcome.pending) if outcome.pending is not None else None,
        transcript=transcript_of(store.load_events(session_id)),
        escalations=[Escalation.of(request, status) for request, status in store.requests(session_id)],
        decisions=[DecisionRecord.of(decision) for decision in store.decisions(session_id)],
    )


def _inbox(store: SessionStore) -> Inbox:
    items: list[InboxItem] = []
    for session_id, _ in store.sessions():
        try:
            request = store.open_request(session_id)
        except AuditError:
            continue  # listed as "record refused" in the sessions list; nothing of it is shown as pending
        if request is not None:
            row = store.load_session(session_id)
            items.append(
                InboxItem(
                    session_id=session_id,
                    config=str(row["config"]),
                    counterparty=row["persona"],
                    version=int(row["version"]),
                    request=Escalation.of(request),
                )
            )
    return Inbox(items=items)


def _summaries(store: SessionStore) -> SessionList:
    sessions: list[SessionSummary] = []
    for session_id, stored_state in store.sessions():
        row = store.load_session(session_id)
        state = stored_state
        try:
            request = store.open_request(session_id)
        except AuditError:
            request, state = None, "record refused (run parley audit verify)"
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


def _stale(body: DecideBody, error: StaleDecision) -> str:
    """One line for a decision that no longer fits the session, naming the request pending now."""
    now = f"now pending: {error.pending}" if error.pending else "no request is pending now"
    if error.pending == body.request_id:
        return f"the session changed since you loaded it (version {body.version}); reload it ({now})"
    return f"request {body.request_id} was already answered or is no longer pending; {now}"


def _unprefixed(error: ScenarioError) -> str:
    """The error's message without the "source: field: " prefix ScenarioError puts in front."""
    prefix = ": ".join(part for part in (error.source, error.field) if part)
    return str(error).removeprefix(f"{prefix}: ") if prefix else str(error)


def _decide(
    store: SessionStore, session_id: str, body: DecideBody, principal: str, clock: Clock
) -> StepResult:
    if body.option is None and not body.guidance:
        _fail(422, "give an option letter (e.g. A) or guidance text")
    try:
        store.load_session(session_id)
    except ScenarioError:
        _fail(404, f"no session {session_id!r}")
    request = store.open_request(session_id)
    if body.option is not None and request is not None and request.request_id == body.request_id:
        try:
            request.option(body.option)
        except ScenarioError as error:
            _fail(422, str(error))
    messages: list[Message] = []
    try:
        outcome = decide(
            store,
            session_id,
            request_id=body.request_id,
            option=body.option,
            guidance=body.guidance,
            decided_by=principal,
            expected_version=body.version,
            confirm_limit=body.confirm_limit,
            clock=clock,
            on_message=lambda speaker, text: messages.append(Message(speaker=speaker, text=text)),
        )
    except StaleDecision as error:  # answered meanwhile (another tab, process or principal)
        _fail(409, _stale(body, error))
    except ScenarioError as error:
        if error.field == "confirm_limit":  # an out-of-scale raise: the page asks for the new limit
            what = _unprefixed(error).split("; if that is meant")[0]
            _fail(422, f"{what}; to approve it, repeat the new limit ({CONFIRM_LIMIT})")
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
        Trajectory(store.load_events(session_id)).to_jsonl(versioned=True),
        media_type="application/x-ndjson",
        headers={"Content-Disposition": f'attachment; filename="{filename}"'},
    )


def _page_route(assets: dict[str, bytes], name: str) -> Callable[[SignedIn], Response]:
    """A route serving one page of the console to a signed-in principal."""

    def page(signed_in: SignedInPrincipal) -> Response:
        return _page(assets, name)

    return page


def _page(assets: dict[str, bytes], name: str) -> Response:
    if name not in assets:
        _fail(404, f"no asset {name!r}")
    return Response(assets[name], media_type=_ASSETS[name])


@contextmanager
def _opened(db_path: Path) -> Generator[SessionStore]:
    """One store connection per request, opened and closed in the thread that serves it."""
    store = SessionStore(db_path)
    try:
        yield store
    finally:
        store.close()


def _add_guard(
    app: FastAPI,
    credentials: Credentials,
    clock: Clock,
    origins: frozenset[Origin] | None,
    secure_cookies: bool | None,
) -> None:
    """Deny by default: sign-in for everything not public, same origin and CSRF token for every write."""

    @app.middleware("http")
    async def guard(request: Request, call_next: RequestResponseEndpoint) -> Response:
        path = request.url.path
        cookie = request.cookies.get(SESSION_COOKIE, "")
        signed_in = await run_in_threadpool(credentials.session, cookie, now=clock.now()) if cookie else None
        request.state.signed_in = signed_in
        request.state.secure_cookies = (
            secure_cookies if secure_cookies is not None else request.url.scheme == "https"
        )
        writes = request.method not in _SAFE_METHODS
        refusal: Response | None = None
        if path not in _PUBLIC and signed_in is None:
            if path.startswith("/api/") or writes or path == "/openapi.json":
                refusal = _refuse(401, NOT_SIGNED_IN)
            else:
                refusal = RedirectResponse(LOGIN_PAGE, status_code=303)
            if cookie:  # expired or revoked: drop it
                refusal.delete_cookie(SESSION_COOKIE, path="/")
        elif writes:
            problem = _origin_problem(request, origins)
            if problem is None and path != _LOGIN_API:
                problem = _csrf_problem(request, signed_in)
            if problem is not None:
                refusal = _refuse(403, problem)
        response = refusal if refusal is not None else await call_next(request)
        for name, value in _SECURITY_HEADERS.items():
            response.headers.setdefault(name, value)
        if not path.startswith("/static/"):
            response.headers.setdefault("Cache-Control", "no-store")
        return response


def _add_sign_in_routes(
    app: FastAPI, credentials: Credentials, assets: dict[str, bytes], clock: Clock
) -> None:
    @app.get(LOGIN_PAGE, include_in_schema=False)
    def login_page(request: Request) -> Response:
        if getattr(request.state, "signed_in", None) is not None:
            return RedirectResponse("/", status_code=303)
        return _page(assets, "login.html")

    @app.post(_LOGIN_API, responses={401: {"model": ErrorBody, "description": "wrong token"}})
    def login(request: Request, response: Response, body: LoginBody) -> SessionInfo:
        """Sign in with a principal's token; sets the session cookie and returns the CSRF token."""
        started = credentials.sign_in(body.token, now=clock.now())
        if started is None:
            _fail(401, "wrong token: use the token `parley web --init` printed for you")
        session_id, signed_in = started
        response.set_cookie(
            SESSION_COOKIE,
            session_id,
            max_age=SESSION_SECONDS,
            path="/",
            secure=bool(request.state.secure_cookies),
            httponly=True,
            samesite="strict",
        )
        return SessionInfo(
            principal=signed_in.principal, expires=signed_in.expires, csrf_token=signed_in.csrf_token
        )

    @app.post("/api/logout", status_code=204, response_class=Response, responses=_WRITE_ERRORS)
    def logout(request: Request, signed_in: SignedInPrincipal) -> Response:
        """End this browser's sign-in."""
        credentials.sign_out(request.cookies.get(SESSION_COOKIE, ""))
        response = Response(status_code=204)
        response.delete_cookie(SESSION_COOKIE, path="/")
        return response

    @app.get("/api/session-info")
    def session_info(signed_in: SignedInPrincipal) -> SessionInfo:
        """Who is signed in, until when, and the CSRF token every write must send in X-CSRF-Token."""
        return SessionInfo(
            principal=signed_in.principal, expires=signed_in.expires, csrf_token=signed_in.csrf_token
        )


def _add_routes(app: FastAPI, db_path: Path, clock: Clock, assets: dict[str, bytes]) -> None:
    # No console-wide write lock: a decision or a reply reads a message, drafts and preflights (text
    # analysis) and then commits with the version it read (`SessionStore.save_step`), so two writers of
    # one session get one 200 and one 409 "changed meanwhile", and writers of different sessions never
    # wait for each other's analysis (issue 14: the write lock is never held during text analysis).

    @app.get("/api/health")
    def health(request: Request) -> Health:
        """Liveness and version for anyone; the database and its session count only when signed in."""
        if getattr(request.state, "signed_in", None) is None:
            return Health(version=__version__)
        with _opened(db_path) as store:
            return Health(version=__version__, database=store.path, sessions=len(store.sessions()))

    @app.get("/api/inbox")
    def inbox(signed_in: SignedInPrincipal) -> Inbox:
        with _opened(db_path) as store:
            return _inbox(store)

    @app.get("/api/sessions")
    def sessions(signed_in: SignedInPrincipal) -> SessionList:
        with _opened(db_path) as store:
            return _summaries(store)

    @app.get("/api/sessions/{session_id}", responses=_NOT_FOUND)
    def session(session_id: str, signed_in: SignedInPrincipal) -> SessionDetail:
        with _opened(db_path) as store:
            return _detail(store, session_id, clock)

    @app.get("/api/sessions/{session_id}/audit", responses=_NOT_FOUND)
    def audit(session_id: str, signed_in: SignedInPrincipal) -> AuditStatus:
        with _opened(db_path) as store:
            return _audit(store, session_id)

    @app.get(
        "/api/sessions/{session_id}/trajectory",
        responses={**_NOT_FOUND, 200: {"content": {"application/x-ndjson": {}}}},
        response_class=Response,
    )
    def trajectory(session_id: str, signed_in: SignedInPrincipal) -> Response:
        """Every event of the session as JSONL, the format `parley run --save` writes."""
        with _opened(db_path) as store:
            return _trajectory(store, session_id)

    @app.post("/api/sessions/{session_id}/decide", responses=_WRITE_ERRORS)
    def decide_route(session_id: str, body: DecideBody, signed_in: SignedInPrincipal) -> StepResult:
        """Answer the request `request_id` of a session last seen at `version`, as the signed-in principal."""
        with _opened(db_path) as store:
            return _decide(store, session_id, body, signed_in.principal, clock)

    @app.post("/api/sessions/{session_id}/reply", responses=_WRITE_ERRORS)
    def reply_route(session_id: str, body: ReplyBody, signed_in: SignedInPrincipal) -> StepResult:
        with _opened(db_path) as store:
            return _reply(store, session_id, body, clock)

    @app.get("/", include_in_schema=False)
    def index(signed_in: SignedInPrincipal) -> Response:
        return _page(assets, "index.html")

    for path, name in _PAGES.items():
        app.add_api_route(path, _page_route(assets, name), methods=["GET"], include_in_schema=False)

    @app.get("/static/{name}", include_in_schema=False)
    def static(name: str) -> Response:
        return _page(assets, name)


def create_app(
    db_path: Path,
    *,
    runs_dir: Path | None = None,
    scenarios_dir: Path | None = None,
    clock: Clock | None = None,
    allowed_hosts: Sequence[str] | None = None,
    origins: Sequence[str] | None = None,
    secure_cookies: bool | None = None,
    stream_seconds: float = 30.0,
) -> FastAPI:
    """Build the console over one SQLite store.

    Args:
        db_path: The delegate's database (created with an empty schema if missing). Principals who
            may sign in are added with `parley.web.auth.Credentials(db_path).add_principal`.
        clock: Clock for decision and audit timestamps and sign-in expiry (default: wall-clock
            seconds since the epoch).
        allowed_hosts: Host headers to accept (e.g. ["127.0.0.1", "localhost"]) — guards a console on
            a loopback address against DNS rebinding. None accepts any host.
        origins: The origins the console's page is served from (e.g. ["https://console.example"]),
            when a proxy in front changes scheme or Host. None: the origin each request was sent to.
        secure_cookies: Mark the session cookie Secure (True behind a TLS-terminating proxy); None
            sets it when the request came over https.
        stream_seconds: How long one server-sent event stream of the live view lasts before the
            browser reconnects (it does so by itself).

    Returns:
        The FastAPI application (serve it with uvicorn, or test it with `TestClient`).

    Raises:
        ScenarioError: if an entry of origins is not an http(s) origin.
    """
    SessionStore(db_path).close()  # create the schema once, so read-only requests never race on it
    credentials = Credentials(db_path)
    the_clock: Clock = clock or WallClock()
    allowed_origins: frozenset[Origin] | None = None
    if origins is not None:
        parsed = {entry: origin_of(entry) for entry in origins}
        bad = [entry for entry, origin in parsed.items() if origin is None]
        if bad:
            raise ScenarioError(
                f"{bad[0]!r} is not an origin like https://console.example.com", field="origin"
            )
        allowed_origins = frozenset(origin for origin in parsed.values() if origin is not None)

    app = FastAPI(
        title="parley console",
        version=__version__,
        summary="Principal inbox and decisions for GAIA governed-delegate sessions.",
        docs_url=None,  # Swagger UI and ReDoc load from a CDN; the console must work offline
        redoc_url=None,
    )
    _add_guard(app, credentials, the_clock, allowed_origins, secure_cookies)
    if allowed_hosts is not None:  # added last, so it runs first
        app.add_middleware(TrustedHostMiddleware, allowed_hosts=list(allowed_hosts))

    @app.exception_handler(RequestValidationError)
    async def one_line_validation_error(request: Request, error: RequestValidationError) -> JSONResponse:
        return JSONResponse({"detail": _validation_message(error)}, status_code=422)

    @app.exception_handler(AuditError)
    async def refused_record(request: Request, error: AuditError) -> JSONResponse:
        # A record that fails verification is never shown: 409 with the one-line reason.
        return JSONResponse({"detail": printable(str(error))}, status_code=409)

    assets = _load_assets()
    runs = Path(runs_dir) if runs_dir is not None else default_runs_dir(Path(db_path))
    _add_sign_in_routes(app, credentials, assets, the_clock)
    _add_routes(app, Path(db_path), the_clock, assets)
    add_play_routes(app, Path(db_path), runs, the_clock, scenarios_dir)
    add_rating_routes(app, Path(db_path), runs, the_clock)
    add_run_routes(app, runs)
    add_live_routes(app, Path(db_path), runs, the_clock, limit=stream_seconds)
    return app


def default_runs_dir(db_path: Path) -> Path:
    """Where a console keeps runs when given no folder: `<database>-runs` beside the database."""
    return db_path.with_name(db_path.name + "-runs")
