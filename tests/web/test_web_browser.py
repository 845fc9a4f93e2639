"""A principal in a real headless browser: sign in, choose an option, see the session resume, check the
audit; a decision answered elsewhere shows as a 409; a page on another origin cannot decide.

Speaks the W3C WebDriver protocol to Debian's chromedriver over httpx (no selenium needed). Skipped
when chromium or chromedriver is not installed (`apt-get install -y chromium chromium-driver`).
Set PARLEY_SCREENSHOTS=DIR to keep the screenshots for a look.
"""

from __future__ import annotations

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


def _shot(browser: Browser, tmp_path: Path, name: str) -> None:
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
