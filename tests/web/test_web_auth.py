"""The console is locked: sign-in with a principal's token, server-side sessions, CSRF and origin checks."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path
from typing import Any

import pytest
from fastapi.routing import APIRoute

from parley.governance import SessionStore
from parley.protocol.clock import FakeClock
from parley.web import create_app
from parley.web.auth import SESSION_COOKIE, SESSION_SECONDS, Credentials

from .support import ORIGIN, PRINCIPAL, START, PausedSession, TestClient, add_principal, sign_in

pytestmark = pytest.mark.e2e

_PUBLIC = {"/login", "/api/health", "/api/login"}
_PUBLIC_ASSETS = ["/static/login.js", "/static/console.css"]


def _decision_body(client: TestClient, paused: PausedSession, **extra: Any) -> dict[str, Any]:
    detail = client.get(f"/api/sessions/{paused.session_id}").json()
    return {
        "request_id": detail["pending"]["request_id"],
        "version": detail["version"],
        "option": "A",
    } | extra


def _decide_url(paused: PausedSession) -> str:
    return f"/api/sessions/{paused.session_id}/decide"


def _decisions(db: Path) -> list[tuple[str, str]]:
    store = SessionStore(db)
    try:
        return [
            (str(e.data["request_id"]), str(e.data["decided_by"]))
            for session_id, _ in store.sessions()
            for e in store.load_events(session_id)
            if e.kind == "decision"
        ]
    finally:
        store.close()


def _set_cookie(response: Any) -> dict[str, str]:
    """The attributes of the session cookie a response sets (lower-case names; flags map to "")."""
    header = next(v for k, v in response.headers.multi_items() if k == "set-cookie" and SESSION_COOKIE in v)
    parts = [part.strip() for part in header.split(";")]
    attributes = {name.lower(): value for name, _, value in (part.partition("=") for part in parts[1:])}
    return {"value": parts[0].partition("=")[2], **attributes}


# --- everything that shows or decides needs a signed-in principal -------------------------------


def test_every_api_endpoint_but_the_public_ones_is_401_without_signing_in(
    anonymous: TestClient, paused: PausedSession
) -> None:
    routes = [
        (method, route.path)
        for route in anonymous.app.routes  # type: ignore[attr-defined]
        if isinstance(route, APIRoute) and route.path not in _PUBLIC
        for method in sorted(route.methods)
    ]
    api = [(method, path) for method, path in routes if path.startswith("/api/")]
    assert len(api) >= 9  # inbox, sessions, session, audit, trajectory, decide, reply, logout, session-info
    for method, path in api:
        url = path.replace("{session_id}", paused.session_id)
        response = anonymous.request(method, url, json={}, headers={"Origin": ORIGIN})
        assert response.status_code == 401, (method, url, response.text)
        assert response.json() == {"detail": "not signed in: sign in at /login with your console token"}
    assert anonymous.get("/openapi.json").status_code == 401
    assert _decisions(paused.db) == []


def test_pages_redirect_to_the_sign_in_page(anonymous: TestClient) -> None:
    for path in ("/", "/static/console.js", "/static/index.html"):
        response = anonymous.get(path, follow_redirects=False)
        assert response.status_code == 303, path
        assert response.headers["location"] == "/login"
    page = anonymous.get("/")  # followed
    assert page.url.path == "/login"
    assert 'id="token"' in page.text and "parley web --init" in page.text
    for asset in _PUBLIC_ASSETS:
        assert anonymous.get(asset).status_code == 200, asset


def test_a_wrong_token_is_refused_and_sets_no_cookie(anonymous: TestClient, token: str) -> None:
    for wrong in (token[:-1] + ("A" if token[-1] != "A" else "B"), "principal", "x" * 190):
        response = anonymous.post("/api/login", json={"token": wrong}, headers={"Origin": ORIGIN})
        assert response.status_code == 401
        assert response.json()["detail"].startswith("wrong token")
        assert "set-cookie" not in response.headers
    assert anonymous.post("/api/login", json={"token": " "}, headers={"Origin": ORIGIN}).status_code == 422
    assert anonymous.get("/api/inbox").status_code == 401


def test_the_session_cookie_is_httponly_samesite_strict_and_server_side(
    anonymous: TestClient, paused: PausedSession, token: str
) -> None:
    response = anonymous.post("/api/login", json={"token": token}, headers={"Origin": ORIGIN})
    assert response.status_code == 200
    cookie = _set_cookie(response)
    assert "httponly" in cookie
    assert cookie["samesite"].lower() == "strict"
    assert cookie["path"] == "/"
    assert cookie["max-age"] == str(SESSION_SECONDS)
    assert "secure" not in cookie  # plain http on loopback: a Secure cookie would never come back
    body = response.json()
    assert (body["principal"], body["expires"]) == (PRINCIPAL, START + 3600 + SESSION_SECONDS)
    assert cookie["value"] not in response.text  # the id travels only in the HttpOnly cookie
    with sqlite3.connect(paused.db) as db:  # stored hashed: neither the session id nor the token
        dumped = "\n".join(db.iterdump())
    assert cookie["value"] not in dumped and token not in dumped
    assert body["csrf_token"] not in dumped
    info = anonymous.get("/api/session-info").json()
    assert info == body


@pytest.mark.parametrize("https", [False, True])
def test_the_cookie_is_secure_over_https_or_when_asked(
    paused: PausedSession, token: str, https: bool
) -> None:
    app = create_app(paused.db, secure_cookies=None if https else True)
    base = "https://testserver" if https else "http://testserver"
    with TestClient(app, base_url=base) as client:
        response = client.post("/api/login", json={"token": token}, headers={"Origin": base})
        assert response.status_code == 200
        assert "secure" in _set_cookie(response)


def test_the_sign_in_expires_after_twelve_hours(client: TestClient, clock: FakeClock) -> None:
    assert client.get("/api/inbox").status_code == 200
    clock.advance(SESSION_SECONDS - 1)
    assert client.get("/api/inbox").status_code == 200
    clock.advance(1)
    response = client.get("/api/inbox")
    assert response.status_code == 401
    assert 'parley_session=""' in response.headers["set-cookie"]  # the stale cookie is dropped


def test_sign_out_ends_the_session_server_side(client: TestClient) -> None:
    cookie = client.cookies[SESSION_COOKIE]
    response = client.post("/api/logout")
    assert response.status_code == 204
    assert client.get("/api/inbox").status_code == 401
    client.cookies.set(SESSION_COOKIE, cookie)  # replaying the old cookie does not help
    assert client.get("/api/inbox").status_code == 401


def test_sign_out_needs_the_csrf_token(client: TestClient) -> None:
    assert client.post("/api/logout", headers={"X-CSRF-Token": "forged"}).status_code == 403
    assert client.get("/api/inbox").status_code == 200


def test_a_new_token_ends_the_principals_sign_ins(client: TestClient, paused: PausedSession) -> None:
    new = Credentials(paused.db).add_principal(PRINCIPAL, now=START, replace=True)
    assert client.get("/api/inbox").status_code == 401
    sign_in(client, new)
    assert client.get("/api/inbox").status_code == 200


def test_the_sign_in_page_sends_a_signed_in_principal_to_the_console(client: TestClient) -> None:
    response = client.get("/login", follow_redirects=False)
    assert (response.status_code, response.headers["location"]) == (303, "/")


def test_api_answers_carry_the_security_headers_and_are_not_cached(client: TestClient) -> None:
    response = client.get("/api/inbox")
    assert response.headers["x-content-type-options"] == "nosniff"
    assert "frame-ancestors 'none'" in response.headers["content-security-policy"]
    assert response.headers["cache-control"] == "no-store"


# --- decided_by is the signed-in principal --------------------------------------------------------


def test_decided_by_is_the_signed_in_principal_never_a_field(
    client: TestClient, paused: PausedSession
) -> None:
    forged = client.post(_decide_url(paused), json=_decision_body(client, paused, decided_by="the CEO"))
    assert forged.status_code == 422
    assert forged.json() == {"detail": "decided_by: Extra inputs are not permitted"}
    assert _decisions(paused.db) == []
    assert (
        client.post(_decide_url(paused), json=_decision_body(client, paused, option="B")).status_code == 200
    )
    assert _decisions(paused.db) == [(f"{paused.session_id}-e1", PRINCIPAL)]
    store = SessionStore(paused.db)
    try:
        assert store.verify(paused.session_id).ok
        assert [d.decided_by for d in store.decisions(paused.session_id)] == [PRINCIPAL]
    finally:
        store.close()


def test_each_principal_decides_under_their_own_name(paused: PausedSession, token: str) -> None:
    other = add_principal(paused.db, "alex.kim (finance)")
    with TestClient(create_app(paused.db, clock=FakeClock(START))) as alex:
        assert sign_in(alex, other)["principal"] == "alex.kim (finance)"
        assert (
            alex.post(_decide_url(paused), json=_decision_body(alex, paused, option="B")).status_code == 200
        )
    with TestClient(create_app(paused.db, clock=FakeClock(START))) as maria:
        sign_in(maria, token)
        assert maria.post(_decide_url(paused), json=_decision_body(maria, paused)).status_code == 200
    assert [by for _, by in _decisions(paused.db)] == ["alex.kim (finance)", PRINCIPAL]


# --- CSRF token and origin on every state-changing request ---------------------------------------


@pytest.mark.parametrize(
    ("headers", "detail"),
    [
        ({"X-CSRF-Token": ""}, "refused: missing or wrong CSRF token (X-CSRF-Token); reload the console"),
        (
            {"X-CSRF-Token": "0" * 64},
            "refused: missing or wrong CSRF token (X-CSRF-Token); reload the console",
        ),
        (
            {"X-CSRF-Token": "é".encode()},
            "refused: missing or wrong CSRF token (X-CSRF-Token); reload the console",
        ),
        (
            {"Origin": "http://attacker.example"},
            "refused: Origin 'http://attacker.example' is not this console's origin",
        ),
        (
            {"Origin": "http://testserver:8080"},
            "refused: Origin 'http://testserver:8080' is not this console's origin",
        ),
        (
            {"Origin": "https://testserver"},
            "refused: Origin 'https://testserver' is not this console's origin",
        ),
        ({"Origin": "null"}, "refused: Origin 'null' is not this console's origin"),
        ({"Origin": "http://[::1"}, "refused: Origin 'http://[::1' is not this console's origin"),
    ],
)
def test_writes_without_the_csrf_token_or_from_another_origin_are_403(
    client: TestClient, paused: PausedSession, headers: dict[str, str | bytes], detail: str
) -> None:
    body = _decision_body(client, paused)
    client.headers.update(headers)
    for url, payload in (
        (_decide_url(paused), body),
        (f"/api/sessions/{paused.session_id}/reply", {"message": "hi"}),
    ):
        response = client.post(url, json=payload)
        assert response.status_code == 403, response.text
        assert response.json() == {"detail": detail}
    assert _decisions(paused.db) == []


def test_the_csrf_token_of_another_sign_in_does_not_work(
    client: TestClient, paused: PausedSession, token: str, clock: FakeClock
) -> None:
    with TestClient(create_app(paused.db, clock=clock)) as other:
        foreign_token = sign_in(other, token)["csrf_token"]
    assert foreign_token != client.headers["X-CSRF-Token"]
    client.headers["X-CSRF-Token"] = foreign_token
    assert client.post(_decide_url(paused), json=_decision_body(client, paused)).status_code == 403
    assert _decisions(paused.db) == []


def test_a_write_with_neither_origin_nor_referer_is_403(client: TestClient, paused: PausedSession) -> None:
    body = _decision_body(client, paused)
    del client.headers["Origin"]
    response = client.post(_decide_url(paused), json=body)
    assert response.status_code == 403
    assert response.json() == {
        "detail": "refused: a state-changing request needs an Origin or Referer header"
    }
    assert _decisions(paused.db) == []


def test_without_origin_the_referer_decides(client: TestClient, paused: PausedSession) -> None:
    body = _decision_body(client, paused)
    del client.headers["Origin"]
    foreign = client.post(_decide_url(paused), json=body, headers={"Referer": "http://attacker.example/x"})
    assert foreign.status_code == 403
    assert "Referer 'http://attacker.example/x' is not this console's origin" in foreign.json()["detail"]
    own = client.post(_decide_url(paused), json=body, headers={"Referer": f"{ORIGIN}/"})
    assert own.status_code == 200, own.text
    assert _decisions(paused.db) == [(f"{paused.session_id}-e1", PRINCIPAL)]


def test_a_cross_origin_text_plain_post_is_refused_before_its_body_is_read(
    client: TestClient, paused: PausedSession
) -> None:
    """What a form or a no-cors fetch on another page can send: the session cookie, no CSRF token."""
    body = _decision_body(client, paused)
    del client.headers["X-CSRF-Token"]
    for content_type in ("text/plain", None):
        headers = {"Origin": "http://127.0.0.1:9999"} | (
            {"Content-Type": content_type} if content_type else {}
        )
        response = client.post(_decide_url(paused), content=json.dumps(body).encode(), headers=headers)
        assert response.status_code == 403
    assert _decisions(paused.db) == []


def test_signing_in_is_refused_from_another_origin_or_without_one(anonymous: TestClient, token: str) -> None:
    assert anonymous.post("/api/login", json={"token": token}).status_code == 403
    response = anonymous.post("/api/login", json={"token": token}, headers={"Origin": "http://evil.example"})
    assert response.status_code == 403
    assert "set-cookie" not in response.headers
    assert anonymous.get("/api/inbox").status_code == 401


def test_a_configured_public_origin_replaces_the_request_origin(paused: PausedSession, token: str) -> None:
    app = create_app(paused.db, origins=["https://console.example.com"], secure_cookies=False)
    with TestClient(app) as client:
        assert client.post("/api/login", json={"token": token}, headers={"Origin": ORIGIN}).status_code == 403
        response = client.post(
            "/api/login", json={"token": token}, headers={"Origin": "https://console.example.com:443"}
        )
        assert response.status_code == 200


def test_a_bad_configured_origin_is_one_error(paused: PausedSession) -> None:
    from parley.errors import ScenarioError

    with pytest.raises(ScenarioError, match=r"'console\.example\.com' is not an origin"):
        create_app(paused.db, origins=["console.example.com"])
