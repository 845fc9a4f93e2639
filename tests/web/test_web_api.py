"""The console's JSON API end to end over a real SQLite store (FastAPI TestClient, no network)."""

from __future__ import annotations

import shutil
import threading
from pathlib import Path
from typing import Any

import pytest

from parley.governance import SessionStore, decide, load_config
from parley.governance.counterparties import DetachedCounterparty
from parley.governance.session import start_session
from parley.protocol.clock import FakeClock
from parley.protocol.events import Trajectory
from parley.web import create_app

from .support import START, PausedSession, TestClient

pytestmark = pytest.mark.e2e


def _decide(client: TestClient, session_id: str, **body: Any) -> Any:
    return client.post(f"/api/sessions/{session_id}/decide", json=body)


def test_health_counts_sessions(client: TestClient, paused: PausedSession) -> None:
    body = client.get("/api/health").json()
    assert body["status"] == "ok"
    assert body["sessions"] == 1
    assert body["database"] == str(paused.db)


def test_inbox_lists_the_paused_session_with_its_escalation(
    client: TestClient, paused: PausedSession
) -> None:
    items = client.get("/api/inbox").json()["items"]
    assert [item["session_id"] for item in items] == [paused.session_id]
    request = items[0]["request"]
    assert (request["trigger"], request["status"], request["state"]) == ("boundary", "open", "NEGOTIATE")
    assert (
        request["problem"]
        == "The candidate asks $115K for the annual salary; the approved band is $80K–$100K."
    )
    assert [option["key"] for option in request["options"]] == ["A", "B", "C"]
    assert all(option["title"] and option["trade_offs"] for option in request["options"])
    assert request["ask"].startswith("Approve one option")
    assert request["ledger"]["missing"] == ["location", "references"]
    assert request["last_messages"][-1] == {"speaker": "counterparty", "text": "I'd need $115K."}
    assert request["boundary_at_risk"]["ask"] == 115000.0


def test_session_detail_has_state_tci_and_transcript(client: TestClient, paused: PausedSession) -> None:
    listed = client.get("/api/sessions").json()["sessions"]
    assert listed == [
        {
            "session_id": paused.session_id,
            "config": "staffing",
            "counterparty": "cooperative",
            "seed": 5,
            "state": "ESCALATE",
            "pending_request": f"{paused.session_id}-e1",
        }
    ]
    detail = client.get(f"/api/sessions/{paused.session_id}").json()
    assert (detail["state"], detail["paused"], detail["terminal"], detail["turns"]) == (
        "ESCALATE",
        True,
        False,
        5,
    )
    assert detail["tci"]["tci_weighted"] == pytest.approx(0.818182)
    messages = [entry for entry in detail["transcript"] if entry["kind"] == "message"]
    assert len(messages) == 10
    assert [m["speaker"] for m in messages[:2]] == ["delegate", "counterparty"]
    assert detail["transcript"][-1]["kind"] == "escalation"
    assert detail["pending"]["request_id"] == f"{paused.session_id}-e1"
    assert [e["status"] for e in detail["escalations"]] == ["open"]
    assert detail["decisions"] == []


def test_decisions_resume_the_session_to_agreement_and_the_audit_verifies(
    client: TestClient, paused: PausedSession
) -> None:
    first = _decide(client, paused.session_id, option="b", decided_by="maria.lopez (hiring manager)")
    assert first.status_code == 200, first.text
    body = first.json()
    assert (body["state"], body["paused"]) == ("ESCALATE", True)
    assert body["pending"]["trigger"] == "final_approval"
    assert body["messages"][0] == {
        "speaker": "delegate",
        "text": "Good news: we're exploring $115K, subject to final approval.",
    }
    second = _decide(client, paused.session_id, option="A", decided_by="maria.lopez (hiring manager)").json()
    assert (second["state"], second["paused"], second["terms"]) == (
        "AGREE",
        False,
        {"annual_salary": 115000.0},
    )
    assert client.get("/api/inbox").json()["items"] == []
    audit = client.get(f"/api/sessions/{paused.session_id}/audit").json()
    assert (audit["ok"], audit["problems"], audit["first_bad"]) == (True, [], None)
    detail = client.get(f"/api/sessions/{paused.session_id}").json()
    assert [(d["option"], d["decided_by"], d["decided_at"]) for d in detail["decisions"]] == [
        ("B", "maria.lopez (hiring manager)", START + 3600),
        ("A", "maria.lopez (hiring manager)", START + 3600),
    ]
    store = SessionStore(paused.db)
    try:
        logged = [e for e in store.load_events(paused.session_id) if e.kind == "decision"]
    finally:
        store.close()
    assert [(e.data["option"], e.data["decided_by"], e.party) for e in logged] == [
        ("B", "maria.lopez (hiring manager)", "principal"),
        ("A", "maria.lopez (hiring manager)", "principal"),
    ]


def test_a_web_decision_writes_exactly_what_the_cli_code_path_writes(
    paused: PausedSession, tmp_path: Path
) -> None:
    twin = tmp_path / "twin.db"
    shutil.copy(paused.db, twin)
    with TestClient(create_app(paused.db, clock=FakeClock(START + 60))) as client:
        assert _decide(client, paused.session_id, option="B", decided_by="maria").status_code == 200
    store = SessionStore(twin)
    try:
        decide(store, paused.session_id, option="B", decided_by="maria", clock=FakeClock(START + 60))
        expected = store.verify(paused.session_id)
    finally:
        store.close()
    store = SessionStore(paused.db)
    try:
        actual = store.verify(paused.session_id)
    finally:
        store.close()
    assert actual.ok and expected.ok
    assert (actual.entries, actual.head) == (expected.entries, expected.head)


def test_guidance_alone_is_a_decision(client: TestClient, paused: PausedSession) -> None:
    response = _decide(client, paused.session_id, guidance="Go to $102K at most", decided_by="maria")
    assert response.status_code == 200, response.text
    assert any("$102K" in m["text"] for m in response.json()["messages"] if m["speaker"] == "delegate")
    decision = client.get(f"/api/sessions/{paused.session_id}").json()["decisions"][0]
    assert (decision["option"], decision["guidance"]) == (None, "Go to $102K at most")


@pytest.mark.parametrize(
    ("body", "message"),
    [
        ({"option": "Z", "decided_by": "m"}, "no option 'Z'; expected one of A, B, C"),
        ({"decided_by": "m"}, "give an option letter (e.g. A) or guidance text"),
        ({"option": "A", "guidance": "   ", "decided_by": "m"}, None),
        ({"option": "A"}, "decided_by: Field required"),
        ({"option": "A", "decided_by": "  "}, "decided_by: String should have at least 1 character"),
        ({"option": "A", "decided_by": "m", "by": "x"}, "by: Extra inputs are not permitted"),
    ],
)
def test_invalid_decisions_are_422_with_one_message(
    client: TestClient, paused: PausedSession, body: dict[str, Any], message: str | None
) -> None:
    response = _decide(client, paused.session_id, **body)
    if message is None:  # blank guidance next to a valid option is simply no guidance
        assert response.status_code == 200
        return
    assert response.status_code == 422
    assert isinstance(response.json()["detail"], str)
    assert message in response.json()["detail"]
    assert client.get("/api/inbox").json()["items"][0]["request"]["status"] == "open"


def test_malformed_json_is_422(client: TestClient, paused: PausedSession) -> None:
    response = client.post(
        f"/api/sessions/{paused.session_id}/decide",
        content=b"{not json",
        headers={"Content-Type": "application/json"},
    )
    assert response.status_code == 422
    assert "JSON" in response.json()["detail"]


def test_unknown_sessions_are_404(client: TestClient) -> None:
    for response in (
        client.get("/api/sessions/nope"),
        client.get("/api/sessions/nope/audit"),
        _decide(client, "nope", option="A", decided_by="m"),
        client.post("/api/sessions/nope/reply", json={"message": "hello"}),
    ):
        assert response.status_code == 404
        assert response.json() == {"detail": "no session 'nope'"}


def test_nothing_pending_is_409(client: TestClient, paused: PausedSession) -> None:
    _decide(client, paused.session_id, option="C", decided_by="m")  # decline: the session ends
    response = _decide(client, paused.session_id, option="A", decided_by="m")
    assert response.status_code == 409
    state = client.get(f"/api/sessions/{paused.session_id}").json()["state"]
    assert (
        response.json()["detail"]
        == f"session {paused.session_id!r} is in state {state}; no decision is pending"
    )


def test_a_paused_session_takes_no_reply(client: TestClient, paused: PausedSession) -> None:
    response = client.post(f"/api/sessions/{paused.session_id}/reply", json={"message": "Any news?"})
    assert response.status_code == 409
    assert "cannot take a message now" in response.json()["detail"]
    assert client.post(f"/api/sessions/{paused.session_id}/reply", json={"message": " "}).status_code == 422


def test_reply_feeds_an_asynchronous_session(tmp_path: Path) -> None:
    db = tmp_path / "async.db"
    store = SessionStore(db)
    try:
        runner, _ = start_session(
            load_config("staffing"),
            DetachedCounterparty(),
            store,
            config_source="staffing",
            clock=FakeClock(START),
        )
        session_id = runner.delegate.session_id
    finally:
        store.close()
    with TestClient(create_app(db, clock=FakeClock(START + 5))) as client:
        response = client.post(f"/api/sessions/{session_id}/reply", json={"message": "I am a U.S. citizen."})
        assert response.status_code == 200, response.text
        body = response.json()
        assert body["state"] == "SCREEN"
        assert [m["speaker"] for m in body["messages"]] == ["delegate"]
        detail = client.get(f"/api/sessions/{session_id}").json()
        assert detail["tci"]["revealed"] == {"work_authorization": "us_citizen"}
        assert [e["speaker"] for e in detail["transcript"]] == ["delegate", "counterparty", "delegate"]
        assert client.get(f"/api/sessions/{session_id}/audit").json()["ok"]


def test_audit_reports_where_the_chain_breaks(client: TestClient, paused: PausedSession) -> None:
    store = SessionStore(paused.db)
    try:
        store.execute(
            "UPDATE audit SET entry=replace(entry, '115K', '99K') WHERE session_id=? AND seq=43",
            (paused.session_id,),
        )
    finally:
        store.close()
    audit = client.get(f"/api/sessions/{paused.session_id}/audit").json()
    assert (audit["ok"], audit["first_bad"]) == (False, 43)
    assert "entry 43: content does not match its hash (entry edited)" in audit["problems"]


def test_concurrent_decisions_on_one_request_record_exactly_one(
    client: TestClient, paused: PausedSession
) -> None:
    codes: list[int] = []

    def choose(letter: str) -> None:
        codes.append(_decide(client, paused.session_id, option=letter, decided_by=f"p{letter}").status_code)

    threads = [threading.Thread(target=choose, args=(letter,)) for letter in "AC"]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert sorted(codes) == [200, 409]
    decisions = client.get(f"/api/sessions/{paused.session_id}").json()["decisions"]
    assert [d["request_id"] for d in decisions].count(f"{paused.session_id}-e1") == 1


def test_foreign_host_headers_are_refused(paused: PausedSession) -> None:
    app = create_app(paused.db, allowed_hosts=["127.0.0.1", "localhost"])
    with TestClient(app, base_url="http://127.0.0.1:8765") as client:
        assert client.get("/api/health").status_code == 200
        assert client.get("/api/health", headers={"Host": "attacker.example"}).status_code == 400


def test_the_trajectory_downloads_as_jsonl(client: TestClient, paused: PausedSession, tmp_path: Path) -> None:
    response = client.get(f"/api/sessions/{paused.session_id}/trajectory")
    assert response.status_code == 200
    assert response.headers["content-type"].startswith("application/x-ndjson")
    assert "staffing-cooperative-s5-1.trajectory.jsonl" in response.headers["content-disposition"]
    saved = tmp_path / "trajectory.jsonl"
    saved.write_bytes(response.content)
    store = SessionStore(paused.db)
    try:
        assert list(Trajectory.load(saved)) == store.load_events(paused.session_id)
    finally:
        store.close()
    assert client.get("/api/sessions/nope/trajectory").status_code == 404


def test_a_cross_site_form_post_is_not_read_as_json(client: TestClient, paused: PausedSession) -> None:
    response = client.post(
        f"/api/sessions/{paused.session_id}/decide",
        content=b'{"option": "A", "decided_by": "someone else"}',
        headers={"Content-Type": "text/plain"},
    )
    assert response.status_code == 422
    assert client.get("/api/inbox").json()["items"][0]["request"]["status"] == "open"
