"""The console's static pages (inbox, play, runs, live): self-contained (local assets only), signed in,
labelled controls, scripts that insert text and never HTML."""

from __future__ import annotations

import re
from html.parser import HTMLParser

import pytest

from .support import TestClient


class _Collector(HTMLParser):
    """Every src/href reference, every element id and every label's `for`."""

    def __init__(self) -> None:
        super().__init__()
        self.references: list[str] = []
        self.ids: set[str] = set()
        self.label_targets: set[str] = set()
        self.inputs: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        values = {name: value or "" for name, value in attrs}
        self.references += [values[name] for name in ("src", "href") if name in values]
        if "id" in values:
            self.ids.add(values["id"])
        if tag == "label" and "for" in values:
            self.label_targets.add(values["for"])
        if tag in ("input", "textarea", "select"):
            self.inputs.append(values.get("id", ""))


PAGES = ("/", "/play", "/runs", "/live")
SCRIPTS = ("common.js", "console.js", "login.js", "play.js", "rating.js", "runs.js", "live.js")
NAVIGATION = {"/", "/play", "/runs", "/live"}
SVG_NAMESPACE = "http://www.w3.org/2000/svg"


@pytest.mark.parametrize("path", PAGES)
def test_each_page_loads_and_references_only_local_assets(client: TestClient, path: str) -> None:
    page = client.get(path)
    assert page.status_code == 200
    assert page.headers["content-type"].startswith("text/html")
    assert "default-src 'self'" in page.headers["content-security-policy"]
    collector = _Collector()
    collector.feed(page.text)
    assert set(collector.references) >= NAVIGATION  # every page links to every other
    assets = [ref for ref in collector.references if ref.startswith("/static/")]
    assert {"/static/console.css", "/static/common.js"} <= set(assets)
    assert all(ref.startswith(("/", "#")) and not ref.startswith("//") for ref in collector.references)
    for asset in assets:
        response = client.get(asset)
        assert response.status_code == 200, asset
        text = response.text.replace(SVG_NAMESPACE, "")  # (a name, never fetched)
        assert not re.search(r"https?://|//[a-z]", text), f"{asset} refers to another origin"
    assert client.get("/static/common.js").headers["content-type"].startswith("text/javascript")


@pytest.mark.parametrize("path", PAGES[1:])
def test_pages_need_a_sign_in(anonymous: TestClient, path: str) -> None:
    response = anonymous.get(path, follow_redirects=False)
    assert response.status_code == 303 and response.headers["location"] == "/login"


@pytest.mark.parametrize("path", PAGES)
def test_every_control_of_every_page_has_a_label(client: TestClient, path: str) -> None:
    collector = _Collector()
    collector.feed(client.get(path).text)
    assert set(collector.inputs) <= collector.label_targets, path
    assert {"status", "principal", "sign-out"} <= collector.ids


def test_every_control_has_a_label(client: TestClient) -> None:
    collector = _Collector()
    collector.feed(client.get("/").text)
    assert collector.inputs == []  # no name box: decisions carry the signed-in principal's name
    assert {"inbox", "session", "status", "principal", "sign-out"} <= collector.ids
    client.post("/api/logout")
    login = _Collector()
    login.feed(client.get("/login").text)
    assert login.inputs == ["token"]
    assert set(login.inputs) <= login.label_targets


def test_the_sign_in_page_references_only_local_public_assets(anonymous: TestClient) -> None:
    page = anonymous.get("/login")
    assert page.status_code == 200
    assert "default-src 'self'" in page.headers["content-security-policy"]
    collector = _Collector()
    collector.feed(page.text)
    assert sorted(collector.references) == ["/static/console.css", "/static/login.js"]


def test_the_scripts_never_insert_server_text_as_html(client: TestClient) -> None:
    for name in SCRIPTS:
        script = client.get(f"/static/{name}").text
        assert "innerHTML" not in script
        assert "outerHTML" not in script
        assert "insertAdjacentHTML" not in script
        assert "document.write" not in script
        assert "eval(" not in script
        assert "new Function" not in script


def test_the_script_sends_the_csrf_token_and_binds_decisions_to_their_request(client: TestClient) -> None:
    assert '"X-CSRF-Token": csrfToken' in client.get("/static/common.js").text
    script = client.get("/static/console.js").text
    assert "request_id: item.request.request_id, version: item.version" in script
    assert "decided_by" not in script
    assert "error.status === 409" in script


def test_unknown_assets_are_404(client: TestClient) -> None:
    assert client.get("/static/app.py").status_code == 404
    assert client.get("/static/../app.py").status_code == 404


def test_no_cdn_backed_api_docs_but_the_schema_is_served(client: TestClient) -> None:
    assert client.get("/docs").status_code == 404
    schema = client.get("/openapi.json").json()
    assert "/api/sessions/{session_id}/decide" in schema["paths"]
    assert {"/api/games", "/api/games/{game_id}/moves", "/api/runs", "/api/ratings.csv"} <= set(
        schema["paths"]
    )
