"""The console's static page: served at /, self-contained (local assets only), labelled controls."""

from __future__ import annotations

import re
from html.parser import HTMLParser

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


def test_the_page_loads_and_references_only_local_assets(client: TestClient) -> None:
    page = client.get("/")
    assert page.status_code == 200
    assert page.headers["content-type"].startswith("text/html")
    assert "default-src 'self'" in page.headers["content-security-policy"]
    collector = _Collector()
    collector.feed(page.text)
    assets = [ref for ref in collector.references if not ref.startswith("#")]
    assert sorted(assets) == ["/static/console.css", "/static/console.js"]
    for asset in assets:
        response = client.get(asset)
        assert response.status_code == 200, asset
        assert not re.search(r"https?://|//[a-z]", response.text), f"{asset} refers to another origin"
    assert client.get("/static/console.js").headers["content-type"].startswith("text/javascript")


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
    for name in ("console.js", "login.js"):
        script = client.get(f"/static/{name}").text
        assert "innerHTML" not in script
        assert "outerHTML" not in script
        assert "insertAdjacentHTML" not in script
        assert "document.write" not in script
        assert "eval(" not in script


def test_the_script_sends_the_csrf_token_and_binds_decisions_to_their_request(client: TestClient) -> None:
    script = client.get("/static/console.js").text
    assert '"X-CSRF-Token": csrfToken' in script
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
