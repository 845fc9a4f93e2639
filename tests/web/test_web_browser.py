"""A principal in a real headless browser: sign in, choose an option, see the session resume, check the
audit; a decision answered elsewhere shows as a 409; a page on another origin cannot decide.

Speaks the W3C WebDriver protocol to Debian's chromedriver over httpx (no selenium needed). Skipped
when chromium or chromedriver is not installed (`apt-get install -y chromium chromium-driver`).
Set PARLEY_SCREENSHOTS=DIR to keep the screenshots for a look.
"""

from __future__ import annotations

import json
import os
import shutil
import socket
import subprocess
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import httpx
import pytest
import uvicorn

from parley.governance import SessionStore, decide
from parley.web import create_app
from parley.web.auth import SESSION_COOKIE

from .support import PRINCIPAL, PausedSession, add_principal, paused_large_raise_session

pytestmark = [
    pytest.mark.e2e,
    pytest.mark.slow,
    pytest.mark.skipif(
        shutil.which("chromium") is None or shutil.which("chromedriver") is None,
        reason="needs Debian chromium and chromium-driver (apt-get install -y chromium chromium-driver)",
    ),
]
_ELEMENT = "element-6066-11e4-a52e-4f735466cecf"
_ENTER = "\ue007"


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def _wait(condition: Callable[[], Any], what: str, timeout: float = 15.0) -> Any:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            value = condition()
        except (httpx.HTTPError, AssertionError):
            value = None
        if value:
            return value
        time.sleep(0.1)
    raise AssertionError(f"timed out waiting for {what}")


class Browser:
    """The few WebDriver commands the test needs."""

    def __init__(self, driver: httpx.Client, session_id: str) -> None:
        self._driver = driver
        self._base = f"/session/{session_id}"

    def _call(self, method: str, path: str, body: dict[str, Any] | None = None) -> Any:
        response = self._driver.request(method, self._base + path, json=body)
        payload = response.json()
        assert response.status_code == 200, payload
        return payload["value"]

    def open(self, url: str) -> None:
        self._call("POST", "/url", {"url": url})

    def find(self, css: str) -> str:
        return str(self._call("POST", "/element", {"using": "css selector", "value": css})[_ELEMENT])

    def text(self, css: str) -> str:
        return str(self._call("GET", f"/element/{self.find(css)}/text"))

    def click(self, css: str) -> None:
        self._call("POST", f"/element/{self.find(css)}/click", {})

    def type(self, css: str, text: str) -> None:
        self._call("POST", f"/element/{self.find(css)}/value", {"text": text})

    def prompt_text(self) -> str | None:
        """The text of an open alert or prompt, or None when there is none."""
        response = self._driver.get(self._base + "/alert/text")
        return str(response.json()["value"]) if response.status_code == 200 else None

    def answer_prompt(self, text: str) -> None:
        self._call("POST", "/alert/text", {"text": text})
        self._call("POST", "/alert/accept", {})

    def run(self, script: str) -> Any:
        """Run JavaScript in the page and return its value."""
        return self._call("POST", "/execute/sync", {"script": script, "args": []})

    def resize(self, width: int, height: int) -> None:
        """Set the window's outer size (headless chromium keeps its viewport at least 500 px wide)."""
        self._call("POST", "/window/rect", {"width": width, "height": height})

    def emulate(self, width: int, height: int) -> None:
        """Emulate a mobile screen of width x height CSS pixels (Chrome DevTools, through chromedriver)."""
        params = {"width": width, "height": height, "deviceScaleFactor": 1, "mobile": True}
        self._call(
            "POST", "/goog/cdp/execute", {"cmd": "Emulation.setDeviceMetricsOverride", "params": params}
        )

    def screenshot(self, path: Path) -> Path:
        import base64

        path.write_bytes(base64.b64decode(self._call("GET", "/screenshot")))
        return path


class Recorder:
    """ASGI wrapper noting every request the console answers: method, path, status, cookie, Origin."""

    def __init__(self, app: Any) -> None:
        self.app = app
        self.seen: list[dict[str, Any]] = []

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        headers = {name.decode(): value.decode("latin-1") for name, value in scope["headers"]}
        entry: dict[str, Any] = {
            "method": scope["method"],
            "path": scope["path"],
            "cookie": f"{SESSION_COOKIE}=" in headers.get("cookie", ""),
            "origin": headers.get("origin"),
            "content_type": headers.get("content-type"),
        }

        async def noting(message: Any) -> None:
            if message["type"] == "http.response.start":
                self.seen.append(entry | {"status": message["status"]})
            await send(message)

        await self.app(scope, receive, noting)


@pytest.fixture
def recorder(paused: PausedSession, token: str) -> Recorder:
    """The console (with a principal) wrapped in a request recorder."""
    return Recorder(create_app(paused.db, allowed_hosts=["127.0.0.1"]))


@contextmanager
def _serving(app: Any) -> Iterator[str]:
    """app served by uvicorn on 127.0.0.1 in a background thread; yields its base URL."""
    port = _free_port()
    config = uvicorn.Config(app, host="127.0.0.1", port=port, log_level="warning", lifespan="off", ws="none")
    server = uvicorn.Server(config)
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    try:
        _wait(lambda: server.started, "uvicorn to start")
        yield f"http://127.0.0.1:{port}"
    finally:
        server.should_exit = True
        thread.join(timeout=10)


@pytest.fixture
def console_url(recorder: Recorder) -> Iterator[str]:
    """The console served by uvicorn on 127.0.0.1 in a background thread."""
    with _serving(recorder) as url:
        yield url


@pytest.fixture
def browser(tmp_path: Path) -> Iterator[Browser]:
    """Headless chromium driven through chromedriver on a loopback port."""
    port = _free_port()
    driver_process = subprocess.Popen(
        ["chromedriver", f"--port={port}"], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
    )
    args = [
        "--headless",
        "--no-sandbox",
        "--disable-gpu",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
        "--disable-extensions",
        "--no-first-run",
        "--window-size=1280,1100",
        f"--user-data-dir={tmp_path / 'profile'}",
    ]
    capabilities = {
        "browserName": "chrome",
        "goog:chromeOptions": {"binary": shutil.which("chromium"), "args": args},
    }
    try:
        with httpx.Client(base_url=f"http://127.0.0.1:{port}", timeout=30) as driver:
            _wait(lambda: driver.get("/status").json()["value"]["ready"], "chromedriver to start")
            created = driver.post("/session", json={"capabilities": {"alwaysMatch": capabilities}}).json()
            session_id = created["value"]["sessionId"]
            try:
                yield Browser(driver, session_id)
            finally:
                driver.delete(f"/session/{session_id}")
    finally:
        driver_process.terminate()
        driver_process.wait(timeout=10)


_CONTRAST = (Path(__file__).parent / "contrast.js").read_text(encoding="utf-8")


def _readable(browser: Browser, name: str) -> None:
    """Every visible text on the current page meets WCAG 2.1 AA contrast (measured in the browser)."""
    measured = browser.run(_CONTRAST)
    assert not measured["failures"], f"{name}: text below WCAG AA contrast: {measured['failures']}"


def _shot(browser: Browser, tmp_path: Path, name: str) -> None:
    _readable(browser, name)
    path = browser.screenshot(tmp_path / name)
    assert path.read_bytes().startswith(b"\x89PNG")
    keep = os.environ.get("PARLEY_SCREENSHOTS")
    if keep:
        Path(keep).mkdir(parents=True, exist_ok=True)
        shutil.copy(path, Path(keep) / name)


def _sign_in(browser: Browser, console_url: str, token: str) -> None:
    browser.open(console_url + "/")
    _wait(lambda: browser.run("return location.pathname") == "/login", "the redirect to the sign-in page")
    browser.type("#token", "not-the-token" + _ENTER)
    _wait(lambda: "Not signed in: wrong token" in browser.text("#status"), "the wrong-token message")
    browser.run("document.getElementById('token').value = ''")
    browser.type("#token", token + _ENTER)
    _wait(lambda: browser.run("return location.pathname") == "/", "the console after signing in")


def test_a_principal_decides_in_the_browser(
    browser: Browser, console_url: str, paused: PausedSession, token: str, tmp_path: Path
) -> None:
    _sign_in(browser, console_url, token)
    _wait(lambda: "boundary" in browser.text("#inbox-items"), "the escalation card")
    assert f"Signed in as {PRINCIPAL}" in browser.text("#principal")
    assert browser.run("return document.cookie") == ""  # HttpOnly: no script can read the session
    card = browser.text("#inbox-items")
    assert "The candidate asks $115K for the annual salary" in card
    assert "Raise the limit to $115K" in card and "Likely closes" in card
    _shot(browser, tmp_path, "1-inbox.png")

    browser.click("button[data-option='B']")
    _wait(lambda: "Decision recorded" in browser.text("#status"), "the first decision")
    _wait(lambda: "final_approval" in browser.text("#inbox-items"), "the final-approval request")
    _wait(lambda: "Good news" in browser.text("#session-body"), "the resumed transcript")
    _shot(browser, tmp_path, "2-final-approval.png")

    browser.type("button[data-option='A']", _ENTER)  # keyboard only: Enter on the focused button
    _wait(lambda: "now AGREE" in browser.text("#status"), "the agreement")
    _wait(lambda: "No decisions are waiting" in browser.text("#inbox-items"), "an empty inbox")
    session = _wait(
        lambda: (text := browser.text("#session-body")) and "AGREE" in text and text, "session view"
    )
    assert "Audit log intact" in session
    assert f"{PRINCIPAL}: chose option A" in session
    _shot(browser, tmp_path, "3-agreed.png")

    browser.click("#sign-out")
    _wait(lambda: browser.run("return location.pathname") == "/login", "the sign-in page after signing out")
    browser.open(console_url + "/")
    assert browser.run("return location.pathname") == "/login"


def test_a_request_answered_elsewhere_shows_a_409_and_the_current_state(
    browser: Browser, console_url: str, paused: PausedSession, token: str
) -> None:
    _sign_in(browser, console_url, token)
    _wait(lambda: "boundary" in browser.text("#inbox-items"), "the escalation card")
    store = SessionStore(paused.db)  # meanwhile, someone answers the request through the CLI path
    try:
        outcome = decide(
            store, paused.session_id, request_id=f"{paused.session_id}-e1", option="C", decided_by="alex"
        )
    finally:
        store.close()
    assert outcome.pending is None
    browser.click("button[data-option='A']")  # the page still shows the answered request
    status = _wait(lambda: (text := browser.text("#status")) and "not recorded" in text and text, "the 409")
    assert f"request {paused.session_id}-e1 was already answered or is no longer pending" in status
    assert "no request is pending now" in status
    _wait(lambda: "No decisions are waiting" in browser.text("#inbox-items"), "the reloaded inbox")
    assert [d.decided_by for d in _stored_decisions(paused)] == ["alex"]


def test_an_out_of_scale_raise_is_confirmed_by_typing_the_new_limit(browser: Browser, tmp_path: Path) -> None:
    paused = paused_large_raise_session(tmp_path / "large.db")
    token = add_principal(paused.db)
    with _serving(create_app(paused.db, allowed_hosts=["127.0.0.1"])) as url:
        _sign_in(browser, url, token)
        _wait(lambda: "$165K" in browser.text("#inbox-items"), "the escalation card")
        browser.click("button[data-option='B']")
        prompt = _wait(browser.prompt_text, "the confirmation prompt")
        assert "from $100K to $165K" in prompt and "Type the new limit" in prompt
        browser.answer_prompt("$165,000")
        _wait(lambda: "Decision recorded" in browser.text("#status"), "the confirmed raise")
    assert [(d.option, d.decided_by) for d in _stored_decisions(paused)] == [("B", PRINCIPAL)]


def _stored_decisions(paused: PausedSession) -> list[Any]:
    store = SessionStore(paused.db)
    try:
        return store.decisions(paused.session_id)
    finally:
        store.close()


_ATTACK = """<!doctype html>
<html><head><meta charset="utf-8"><title>cute cats</title></head><body>
<form id="form" method="POST" action="{target}" enctype="text/plain" target="sink">
  <input type="hidden"
    name='{{"request_id": "{request_id}", "version": {version}, "option": "B", "x": "' value='"}}'>
</form>
<iframe name="sink" title="sink"></iframe>
<script>
const target = "{target}";
const body = JSON.stringify({{request_id: "{request_id}", version: {version}, option: "B"}});
async function attack() {{
  const results = [];
  const post = {{method: "POST", mode: "no-cors", credentials: "include"}};
  const attempts = [
    {{...post, headers: {{"Content-Type": "text/plain"}}, body}},
    {{...post, body: new TextEncoder().encode(body)}},  // no Content-Type at all
    {{...post, body: new Blob([body])}},  // no Content-Type at all
    {{...post, mode: "cors", headers: {{"Content-Type": "application/json"}}, body}},  // preflighted
  ];
  for (const init of attempts) {{
    try {{ const r = await fetch(target, init); results.push(`${{r.type}}:${{r.status}}`); }}
    catch (error) {{ results.push(`failed:${{error.name}}`); }}
  }}
  results.push(`beacon:${{navigator.sendBeacon(target, new Blob([body]))}}`);
  document.getElementById("form").submit();
  window.attackResults = results;
}}
attack();
</script></body></html>
"""


@pytest.fixture
def attacker(paused: PausedSession, console_url: str) -> Iterator[str]:
    """A page on another loopback port (same site, other origin) that tries to approve the raise."""
    store = SessionStore(paused.db)
    try:
        version = store.load_session(paused.session_id)["version"]
    finally:
        store.close()
    page = _ATTACK.format(
        target=f"{console_url}/api/sessions/{paused.session_id}/decide",
        request_id=f"{paused.session_id}-e1",
        version=version,
    ).encode()

    class Page(BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            self.send_response(200)
            self.send_header("Content-Type", "text/html; charset=utf-8")
            self.send_header("Content-Length", str(len(page)))
            self.end_headers()
            self.wfile.write(page)

        def log_message(self, format: str, *args: Any) -> None:
            return None

    server = ThreadingHTTPServer(("127.0.0.1", _free_port()), Page)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/"
    finally:
        server.shutdown()
        thread.join(timeout=10)
        server.server_close()


def test_a_page_on_another_origin_cannot_decide(
    browser: Browser,
    console_url: str,
    attacker: str,
    recorder: Recorder,
    paused: PausedSession,
    token: str,
    tmp_path: Path,
) -> None:
    _sign_in(browser, console_url, token)  # the principal is signed in; the cookie is live
    _wait(lambda: "boundary" in browser.text("#inbox-items"), "the escalation card")
    recorder.seen.clear()
    browser.open(attacker)
    decide_path = f"/api/sessions/{paused.session_id}/decide"

    def attempts() -> list[dict[str, Any]]:
        return [e for e in recorder.seen if e["path"] == decide_path]

    _wait(lambda: browser.run("return window.attackResults || null"), "the attack script")
    _wait(lambda: len([e for e in attempts() if e["method"] == "POST"]) >= 5, "five cross-origin POSTs")
    time.sleep(0.5)  # let any straggler arrive before checking nothing got through
    posts = [e for e in attempts() if e["method"] == "POST"]
    assert len(posts) == 5, attempts()  # 3 no-cors fetches, a beacon, a form; the JSON one never left
    assert all(e["status"] == 403 for e in posts), posts
    assert all(e["origin"] == attacker.rstrip("/") for e in posts), posts
    # Same site (127.0.0.1), so SameSite=Strict does not stop the cookie: the origin check does.
    assert all(e["cookie"] for e in posts), posts
    assert {e["content_type"] for e in posts} >= {None, "text/plain"}
    preflights = [e for e in attempts() if e["method"] == "OPTIONS"]
    assert all(e["status"] in (401, 403, 405) for e in preflights), preflights
    assert _stored_decisions(paused) == []
    store = SessionStore(paused.db)
    try:
        request = store.open_request(paused.session_id)
        assert request is not None and request.request_id == f"{paused.session_id}-e1"
    finally:
        store.close()
    _shot(browser, tmp_path, "4-attacker.png")

    browser.open(console_url + "/")  # still signed in: the refusals were not for want of a session
    _wait(lambda: "boundary" in browser.text("#inbox-items"), "the untouched escalation card")


# -- play, ratings, the run browser and the live view (issue 19) ------------------------------------------

HOSTILE = '<img src=x onerror="window.__pwned=1"><script>window.__pwned=2</script>'
"""Put wherever a person, an agent or a counterparty controls text: it must show as these characters."""
HOSTILE_IMG = HOSTILE.partition("<script>")[0]


def _resize(browser: Browser, width: int, height: int) -> None:
    browser.resize(width, height)


def _phone(browser: Browser) -> None:
    """A 390 x 844 CSS-pixel phone screen (emulated: a headless window is at least 500 px wide)."""
    browser.emulate(390, 844)


def _no_injection(browser: Browser) -> None:
    assert browser.prompt_text() is None  # no alert() ran
    assert browser.run("return window.__pwned === undefined"), "an injected handler or script ran"
    assert (
        browser.run("return document.querySelectorAll('img[src=\"x\"], body script:not([src])').length") == 0
    )


def _fits(browser: Browser) -> bool:
    """No horizontal scrolling: the page fits the window's width."""
    return bool(browser.run("return document.documentElement.scrollWidth <= window.innerWidth + 1"))


@contextmanager
def _play_console(tmp_path: Path, principal: str) -> Iterator[tuple[str, str, Path]]:
    """A console over an empty database with one principal; (url, token, runs folder)."""
    db = tmp_path / "play.db"
    SessionStore(db).close()
    token = add_principal(db, principal)
    runs = tmp_path / "runs"
    with _serving(create_app(db, runs_dir=runs, allowed_hosts=["127.0.0.1"])) as url:
        yield url, token, runs


@pytest.fixture
def play_console(tmp_path: Path) -> Iterator[tuple[str, str, Path]]:
    with _play_console(tmp_path, "maria.lopez") as console:
        yield console


def _choose(browser: Browser, select: str, value: str) -> None:
    browser.run(
        f"const s = document.getElementById({select!r}); s.value = {value!r}; "
        "s.dispatchEvent(new Event('change'));"
    )


def _game_state(browser: Browser) -> dict[str, Any]:
    return browser.run("return state")  # (play.js keeps the game it shows in `state`)


def test_a_person_plays_a_game_to_a_deal_and_rates_it(
    browser: Browser, play_console: tuple[str, str, Path], tmp_path: Path
) -> None:
    url, token, runs = play_console
    _resize(browser, 1280, 800)
    _sign_in(browser, url, token)
    browser.open(url + "/play")
    _wait(lambda: "Campsite" in browser.text("#scenario"), "the scenarios")
    _choose(browser, "scenario", "casino")
    _choose(browser, "party", "A")
    _choose(browser, "agent", "conceder")
    browser.click("#start")
    _wait(lambda: "You play A" in browser.text("#brief"), "the brief")
    assert "5 points for each package of food you get (of 3)" in browser.text("#brief")
    assert "Ask them which issues matter most to them." in browser.text("#coach")
    game_id = _game_state(browser)["game_id"]
    assert browser.run("return location.search") == f"?game={game_id}"
    _shot(browser, tmp_path, "play-game.png")

    browser.type("#text", "I take all the food and 2 water, you get the rest " + HOSTILE)
    browser.type("#free-text button", _ENTER)  # keyboard only
    _wait(lambda: "You would propose: you get 3 food and 2 water" in browser.text("#preview"), "the reading")
    browser.type("#send", _ENTER)
    _wait(lambda: _game_state(browser)["version"] == 1, "the first move")
    assert HOSTILE_IMG in browser.text("#transcript")
    _no_injection(browser)

    browser.run(
        "api(gamePath('/moves'), {version: 0, kind: 'say', message: 'late'}).catch(failed)"
    )  # a stale tab
    _wait(lambda: "Not sent: this move was made on turn 1" in browser.text("#status"), "the 409")
    assert _game_state(browser)["version"] == 1

    for _ in range(20):
        state = _game_state(browser)
        if state["ended"]:
            break
        version = state["version"]
        if state["table"] and state["table"]["worth"] >= 15:
            browser.click("#accept")
        else:
            _choose(browser, "control-food", "0")  # "you get 3"
            _choose(browser, "control-water", "1")  # "you get 2"
            _wait(lambda: "Send this offer" in browser.text("#preview"), "the offer's check")
            browser.click("#send")
        _wait(
            lambda v=version: _game_state(browser)["version"] > v or _game_state(browser)["ended"], "the move"
        )
    _wait(lambda: "Deal" in browser.text("#end"), "the deal")
    assert "You got" in browser.text("#end")
    _wait(lambda: "Rate it" in browser.text("#rating"), "the rating form")
    for item, score in (("strategicness", 3), ("fairness", 4), ("naturalness", 5)):
        browser.click(f"label[for='rate-astra-{item}-{score}']")
    browser.type("#rate-astra-comment", "Fair enough " + HOSTILE)
    browser.click("#rating button[type=submit]")
    _wait(lambda: "Thank you" in browser.text("#rating"), "the stored rating")
    _shot(browser, tmp_path, "play-deal-rating.png")
    _no_injection(browser)
    stored = [
        json.loads(line) for line in (runs / "play" / game_id / "ratings.jsonl").read_text().splitlines()
    ]
    assert [(r["scores"], r["rated_by"], r["comment"]) for r in stored] == [
        ({"strategicness": 3, "fairness": 4, "naturalness": 5}, "maria.lopez", "Fair enough " + HOSTILE)
    ]

    browser.open(f"{url}/runs?run=play/{game_id}")
    _wait(lambda: "Ratings so far (1)" in browser.text("#run-body"), "the run in the browser")
    _wait(
        lambda: browser.run(
            "return [...document.querySelectorAll('.plots img')].every(i => i.naturalWidth > 0)"
        ),
        "the plots",
    )
    _no_injection(browser)
    _shot(browser, tmp_path, "runs-game.png")
    _phone(browser)
    browser.open(f"{url}/play?game={game_id}")
    _wait(lambda: "Deal" in browser.text("#end"), "the finished game")
    _wait(lambda: browser.run("return window.innerWidth") == 390, "the phone viewport")
    assert _fits(browser)
    _shot(browser, tmp_path, "play-phone.png")


def test_the_play_page_fits_a_phone_whatever_the_principal_is_called(
    browser: Browser, tmp_path: Path
) -> None:
    with _play_console(tmp_path, HOSTILE) as (url, token, _):
        _phone(browser)
        _sign_in(browser, url, token)
        # (the pages set width=device-width; the emulated viewport settles after the first layout)
        _wait(lambda: browser.run("return window.innerWidth") == 390, "the phone viewport")
        # The name, as characters, once the page has read who signed in (it shows "signing in…" until
        # then, which under load outlasts the viewport's settling).
        _wait(lambda: HOSTILE in browser.text("#principal"), "the principal's name, as characters")
        _phone_pages(browser, url)
        _no_injection(browser)


def test_a_long_database_path_does_not_widen_a_phone_page(browser: Browser, tmp_path: Path) -> None:
    # The inbox's status line shows the database path, which has no break opportunities: depending on
    # how long pytest's temporary folder name was, it widened the page by a few pixels.
    deep = tmp_path / ("d" * 90) / ("e" * 90)
    deep.mkdir(parents=True)
    with _play_console(deep, "ann") as (url, token, _):
        _phone(browser)
        _sign_in(browser, url, token)
        _wait(lambda: "sessions" in browser.text("#health"), "the status line")
        _wait(lambda: browser.run("return window.innerWidth") == 390, "the phone viewport")
        assert _fits(browser)


def _phone_pages(browser: Browser, url: str) -> None:
    browser.open(url + "/play")
    _wait(lambda: "Campsite" in browser.text("#scenario"), "the scenarios")
    assert _fits(browser)
    browser.click("#start")
    _wait(lambda: "You play" in browser.text("#brief"), "the game")
    assert _fits(browser)
    assert "walk-away value" in browser.text("#strip")  # the key numbers stay in view at the top
    for page in ("/runs", "/live", "/"):
        browser.open(url + page)
        _wait(lambda: "Signed in as" in browser.text("#principal"), f"{page} to load")
        assert _fits(browser), page


@pytest.fixture
def tournament_runs(tmp_path: Path) -> Path:
    from parley.jsonio import FAILED_GAME_NO_VALUE_FIELDS, dumps_line

    folder = tmp_path / "runs" / "t1"
    folder.mkdir(parents=True)
    base = {
        "scenario": "casino",
        "repetition": 0,
        "seed": 0,
        "opponents": "x",
        "end": "agreement",
        "walked": False,
    }
    base |= {"rounds": 10, "pareto_distance": 0.0, "nash_distance": 0.1, "below_batna": False, "error": ""}
    rows = [
        base | {"game": "g1", "party": "A", "agent": "astra", "utility": 30.0, "normalized_utility": 0.8},
        base | {"game": "g1", "party": "B", "agent": "boulware", "utility": 6.0, "normalized_utility": 0.1},
        base
        | {
            "game": "g2",
            "party": "A",
            "agent": HOSTILE,
            "utility": float("nan"),
            "normalized_utility": float("nan"),
            "failed": True,
            "error": "raised " + HOSTILE,
            "end": "error",
        },
    ]
    rows = [
        {"agreement": True, "failed": False, "llm_fallback_share": 0.5 if r["agent"] == "boulware" else None}
        | r
        for r in rows
    ]
    text = "".join(dumps_line(row, no_value=FAILED_GAME_NO_VALUE_FIELDS) + "\n" for row in rows)
    (folder / "results.jsonl").write_text(text, encoding="utf-8")
    return tmp_path / "runs"


def test_the_run_browser_sorts_a_tournament_and_shows_failed_games(
    browser: Browser, paused: PausedSession, token: str, tournament_runs: Path, tmp_path: Path
) -> None:
    with _serving(create_app(paused.db, runs_dir=tournament_runs, allowed_hosts=["127.0.0.1"])) as url:
        _resize(browser, 1280, 800)
        _sign_in(browser, url, token)
        browser.open(url + "/runs?run=t1")
        _wait(lambda: "Failed" in browser.text("#run-body"), "the tournament table")

        def agents() -> list[str]:
            return browser.run(
                "return [...document.querySelectorAll('table.tournament tbody th')].map(t => t.textContent)"
            )

        assert agents()[0] == "astra"  # best normalised utility first
        browser.click("table.tournament thead th:nth-child(3) button")  # sort by failed games
        _wait(lambda: agents()[0] == HOSTILE, "the failed agent first")
        assert (
            browser.run(
                "return document.querySelector('table.tournament thead th:nth-child(3)')"
                ".getAttribute('aria-sort')"
            )
            == "descending"
        )
        assert "raised " + HOSTILE_IMG in browser.text("#run-body")
        assert "50%" in browser.text("table.tournament")  # boulware's LLM fallback share
        _no_injection(browser)
        _shot(browser, tmp_path, "runs-tournament.png")


def test_a_live_session_updates_without_a_reload(browser: Browser, tmp_path: Path) -> None:
    from parley.governance import load_config
    from parley.governance.counterparties import DetachedCounterparty
    from parley.governance.session import reply, start_session

    db = tmp_path / "live.db"
    store = SessionStore(db)
    try:
        runner, _ = start_session(
            load_config("staffing"), DetachedCounterparty(), store, config_source="staffing"
        )
        session_id = runner.delegate.session_id
    finally:
        store.close()
    token = add_principal(db)
    with _serving(create_app(db, allowed_hosts=["127.0.0.1"])) as url:
        _resize(browser, 1280, 800)
        _sign_in(browser, url, token)
        browser.open(f"{url}/live?session={session_id}")
        _wait(lambda: browser.text("#live") == "live", "the stream")
        _wait(lambda: "STCC" in browser.text("#view-body"), "the first snapshot")
        browser.run("window.__sameDocument = true")
        store = SessionStore(db)
        try:  # the counterparty answers on another channel (here: straight into the store)
            reply(store, session_id, "I am a U.S. citizen. " + HOSTILE)
        finally:
            store.close()
        _wait(lambda: "I am a U.S. citizen." in browser.text("#view-body"), "the pushed snapshot")
        assert browser.run("return window.__sameDocument === true")  # no reload
        assert HOSTILE_IMG in browser.text("#view-body")
        assert "SCREEN" in browser.text("ol.states")
        _no_injection(browser)
        _shot(browser, tmp_path, "live-session.png")


def test_a_mediated_conversation_is_watched_live_and_rated(
    browser: Browser, paused: PausedSession, token: str, tmp_path: Path
) -> None:
    runs = tmp_path / "runs"
    with _serving(create_app(paused.db, runs_dir=runs, allowed_hosts=["127.0.0.1"])) as url:
        _resize(browser, 1280, 800)
        _sign_in(browser, url, token)
        browser.open(url + "/live")
        _wait(lambda: "hmo" in browser.text("#case"), "the cases")
        browser.run("document.getElementById('pace').value = '0.05'")
        browser.click("#start")
        _wait(
            lambda: browser.run("return document.querySelectorAll('#conversation li').length") >= 3,
            "the first turns",
        )
        assert browser.run("return document.querySelectorAll('#consensus meter').length") >= 2
        _wait(lambda: "Open it in the run browser" in browser.text("#view-body"), "the end", timeout=90)
        _wait(lambda: "Rate it" in browser.text("#mediation-rating"), "the rating form")
        _shot(browser, tmp_path, "live-mediation.png")
        for item, score in (("naturalness", 4), ("helpfulness", 2)):
            browser.click(f"label[for='rate-promediate-{item}-{score}']")
        browser.click("#mediation-rating button[type=submit]")
        _wait(lambda: "Thank you" in browser.text("#mediation-rating"), "the stored rating")
    ratings = list(runs.glob("mediations/*/ratings.jsonl"))
    assert len(ratings) == 1 and json.loads(ratings[0].read_text())["scores"] == {
        "naturalness": 4,
        "helpfulness": 2,
    }
