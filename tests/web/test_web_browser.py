"""A principal in a real headless browser: choose an option, see the session resume, check the audit.

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
from pathlib import Path
from typing import Any

import httpx
import pytest
import uvicorn

from parley.web import create_app

from .support import PausedSession

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

    def screenshot(self, path: Path) -> Path:
        import base64

        path.write_bytes(base64.b64decode(self._call("GET", "/screenshot")))
        return path


@pytest.fixture
def console_url(paused: PausedSession) -> Iterator[str]:
    """The console served by uvicorn on 127.0.0.1 in a background thread."""
    port = _free_port()
    app = create_app(paused.db, allowed_hosts=["127.0.0.1"])
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


def test_a_principal_decides_in_the_browser(
    browser: Browser, console_url: str, paused: PausedSession, tmp_path: Path
) -> None:
    browser.open(console_url + "/")
    _wait(lambda: "boundary" in browser.text("#inbox-items"), "the escalation card")
    card = browser.text("#inbox-items")
    assert "The candidate asks $115K for the annual salary" in card
    assert "Raise the limit to $115K" in card and "Likely closes" in card
    _shot(browser, tmp_path, "1-inbox.png")

    browser.click("button[data-option='B']")  # no name yet: refused, nothing recorded
    assert "Enter your name first" in browser.text("#status")
    browser.type("#decided-by", "maria.lopez (hiring manager)")
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
    assert "maria.lopez (hiring manager): chose option A" in session
    _shot(browser, tmp_path, "3-agreed.png")
