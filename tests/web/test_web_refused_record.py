"""A tampered record is never shown as the record: the console answers 409 with the reason."""

from __future__ import annotations

from parley.governance.store import SessionStore

from .support import PausedSession, TestClient


def _tamper(paused: PausedSession) -> None:
    store = SessionStore(paused.db)
    changed = store.execute(
        "UPDATE events SET event = replace(event, 'I''d need $115K.', 'I''d need $99K.') "
        "WHERE session_id=? AND event LIKE '%I''d need $115K.%' RETURNING seq",
        [paused.session_id],
    )
    store.close()
    assert changed  # the edit really happened


def test_a_tampered_session_is_refused_everywhere_it_would_be_shown(
    client: TestClient, paused: PausedSession
) -> None:
    assert client.get(f"/api/sessions/{paused.session_id}").status_code == 200
    _tamper(paused)
    for path in ("", "/trajectory"):
        response = client.get(f"/api/sessions/{paused.session_id}{path}")
        assert response.status_code == 409, response.text
        assert "stored record refused" in response.json()["detail"]
    assert all(item["session_id"] != paused.session_id for item in client.get("/api/inbox").json()["items"])
    listed = {s["session_id"]: s for s in client.get("/api/sessions").json()["sessions"]}
    assert listed[paused.session_id]["state"].startswith("record refused")
    assert listed[paused.session_id]["pending_request"] is None
    audit = client.get(f"/api/sessions/{paused.session_id}/audit").json()
    assert audit["ok"] is False
