"""The console's JSON API end to end over a real SQLite store (FastAPI TestClient, no network)."""

from __future__ import annotations

import json
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

from .support import (
    PRINCIPAL,
    START,
    PausedSession,
    TestClient,
    add_principal,
    paused_large_raise_session,
    sign_in,
)

pytestmark = pytest.mark.e2e


def _decide(client: TestClient, session_id: str, **body: Any) -> Any:
    """POST a decision; request_id and version default to the session's pending request and version."""
    if "request_id" not in body or "version" not in body:
        detail = client.get(f"/api/sessions/{session_id}").json()
        pending = detail.get("pending") or {}
        body = {
            "request_id": pending.get("request_id", f"{session_id}-e1"),
            "version": detail.get("version", 0),
        } | body
    return client.post(f"/api/sessions/{session_id}/decide", json=body)


def test_health_counts_sessions(client: TestClient, paused: PausedSession) -> None:
    body = client.get("/api/health").json()
    assert body["status"] == "ok"
    assert body["sessions"] == 1
    assert body["database"] == str(paused.db)


def test_health_tells_strangers_only_that_it_runs(anonymous: TestClient) -> None:
    body = anonymous.get("/api/health").json()
    assert body == {"status": "ok", "version": body["version"], "database": None, "sessions": None}


def test_inbox_lists_the_paused_session_with_its_escalation(
    client: TestClient, paused: PausedSession
) -> None:
    items = client.get("/api/inbox").json()["items"]
    assert [item["session_id"] for item in items] == [paused.session_id]
    request = items[0]["request"]
    assert (request["trigger"], request["status"], request["state"]) == ("boundary", "open", "NEGOTIATE")
    # The candidate's sentences the term reader could not fully explain follow, under their own label.
    assert request["problem"] == (
        "The candidate asks $115K for the annual salary; the approved band is $80K–$100K. Not fully read"
        " by the delegate, as written (check them yourself): \"I'm in Eastern time, but I can overlap 3 hours"
        ' or so"; "I work with React and Node.js every day".'
    )
    assert [option["key"] for option in request["options"]] == ["A", "B", "C"]
    assert all(option["title"] and option["trade_offs"] for option in request["options"])
    assert request["ask"].startswith("Approve one option")
    assert request["ledger"]["missing"] == ["location", "references"]
    assert request["last_messages"][-1] == {"speaker": "counterparty", "text": "I'd need $115K."}
    assert request["boundary_at_risk"]["ask"] == 115000.0


def test_session_detail_has_state_tci_and_transcript(client: TestClient, paused: PausedSession) -> None:
    assert client.get("/api/inbox").json()["items"][0]["version"] == detail_version(client, paused)
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
    assert detail["version"] > 0
    assert (detail["state"], detail["paused"], detail["terminal"], detail["turns"]) == (
        "ESCALATE",
        True,
        False,
        7,  # the principal strategy counters twice before the candidate's firm $115K goes to the principal
    )
    assert detail["tci"]["tci_weighted"] == pytest.approx(0.818182)
    messages = [entry for entry in detail["transcript"] if entry["kind"] == "message"]
    assert len(messages) == 14
    assert [m["speaker"] for m in messages[:2]] == ["delegate", "counterparty"]
    assert detail["transcript"][-1]["kind"] == "escalation"
    assert detail["pending"]["request_id"] == f"{paused.session_id}-e1"
    assert [e["status"] for e in detail["escalations"]] == ["open"]
    assert detail["decisions"] == []


def test_decisions_resume_the_session_to_agreement_and_the_audit_verifies(
    client: TestClient, paused: PausedSession
) -> None:
    first = _decide(client, paused.session_id, option="b")
    assert first.status_code == 200, first.text
    body = first.json()
    assert (body["state"], body["paused"]) == ("ESCALATE", True)
    assert body["pending"]["trigger"] == "final_approval"
    assert body["messages"][0] == {
        "speaker": "delegate",
        "text": "Good news: we're exploring $115K, subject to final approval.",
    }
    assert body["version"] == detail_version(client, paused)
    second = _decide(client, paused.session_id, option="A").json()
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
        ("B", PRINCIPAL, START + 3600),
        ("A", PRINCIPAL, START + 3600),
    ]
    store = SessionStore(paused.db)
    try:
        logged = [e for e in store.load_events(paused.session_id) if e.kind == "decision"]
    finally:
        store.close()
    assert [(e.data["option"], e.data["decided_by"], e.party) for e in logged] == [
        ("B", PRINCIPAL, "principal"),
        ("A", PRINCIPAL, "principal"),
    ]


def test_a_web_decision_writes_exactly_what_the_cli_code_path_writes(
    paused: PausedSession, tmp_path: Path
) -> None:
    token = add_principal(paused.db, "maria")
    twin = tmp_path / "twin.db"
    shutil.copy(paused.db, twin)
    with TestClient(create_app(paused.db, clock=FakeClock(START + 60))) as client:
        sign_in(client, token)
        assert _decide(client, paused.session_id, option="B").status_code == 200
    store = SessionStore(twin)
    try:
        decide(
            store,
            paused.session_id,
            request_id=f"{paused.session_id}-e1",
            option="B",
            decided_by="maria",
            clock=FakeClock(START + 60),
        )
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
    response = _decide(client, paused.session_id, guidance="Go to $102K at most")
    assert response.status_code == 200, response.text
    assert any("$102K" in m["text"] for m in response.json()["messages"] if m["speaker"] == "delegate")
    decision = client.get(f"/api/sessions/{paused.session_id}").json()["decisions"][0]
    assert (decision["option"], decision["guidance"]) == (None, "Go to $102K at most")


@pytest.mark.parametrize(
    ("body", "message"),
    [
        ({"option": "Z"}, "no option 'Z'; expected one of A, B, C"),
        ({}, "give an option letter (e.g. A) or guidance text"),
        ({"option": "A", "guidance": "   "}, None),
        ({"option": "A", "request_id": None}, "request_id: Input should be a valid string"),
        ({"option": "A", "request_id": "  "}, "request_id: String should have at least 1 character"),
        ({"option": "A", "version": None}, "version: Input should be a valid integer"),
        ({"option": "A", "version": -1}, "version: Input should be greater than or equal to 0"),
        ({"option": "A", "by": "x"}, "by: Extra inputs are not permitted"),
        ({"option": "A", "decided_by": "someone else"}, "decided_by: Extra inputs are not permitted"),
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
        _decide(client, "nope", option="A"),
        client.post("/api/sessions/nope/reply", json={"message": "hello"}),
    ):
        assert response.status_code == 404
        assert response.json() == {"detail": "no session 'nope'"}


def detail_version(client: TestClient, paused: PausedSession) -> int:
    return int(client.get(f"/api/sessions/{paused.session_id}").json()["version"])


def test_a_decision_on_an_answered_request_is_409_naming_what_is_pending(
    client: TestClient, paused: PausedSession
) -> None:
    first = f"{paused.session_id}-e1"
    seen = detail_version(client, paused)
    assert _decide(client, paused.session_id, option="B", request_id=first, version=seen).status_code == 200
    pending = client.get("/api/inbox").json()["items"][0]["request"]["request_id"]
    assert pending != first
    # A second tab still showing the first request answers it differently: refused, nothing applied.
    stale = _decide(client, paused.session_id, option="A", request_id=first, version=seen)
    assert stale.status_code == 409
    assert stale.json() == {
        "detail": f"request {first} was already answered or is no longer pending; now pending: {pending}"
    }
    decisions = client.get(f"/api/sessions/{paused.session_id}").json()["decisions"]
    assert [(d["request_id"], d["option"]) for d in decisions] == [(first, "B")]


def test_a_decision_on_an_old_version_of_the_session_is_409(
    client: TestClient, paused: PausedSession
) -> None:
    request_id = f"{paused.session_id}-e1"
    seen = detail_version(client, paused)
    response = _decide(client, paused.session_id, option="B", request_id=request_id, version=seen - 1)
    assert response.status_code == 409
    assert response.json()["detail"] == (
        f"the session changed since you loaded it (version {seen - 1}); reload it (now pending: {request_id})"
    )
    assert client.get(f"/api/sessions/{paused.session_id}").json()["decisions"] == []
    assert detail_version(client, paused) == seen


def test_the_same_decision_sent_twice_is_applied_once(client: TestClient, paused: PausedSession) -> None:
    body = {"option": "B", "request_id": f"{paused.session_id}-e1", "version": detail_version(client, paused)}
    first = _decide(client, paused.session_id, **body)
    again = _decide(client, paused.session_id, **body)  # a double click, or a retry after a lost answer
    assert (first.status_code, again.status_code) == (200, 200)
    assert (first.json()["replayed"], again.json()["replayed"]) == (False, True)
    assert again.json()["version"] == first.json()["version"]
    assert len(client.get(f"/api/sessions/{paused.session_id}").json()["decisions"]) == 1


def test_nothing_pending_is_409(client: TestClient, paused: PausedSession) -> None:
    assert _decide(client, paused.session_id, option="C").status_code == 200  # decline: the session ends
    response = _decide(client, paused.session_id, option="A")
    assert response.status_code == 409
    assert response.json()["detail"] == (
        f"request {paused.session_id}-e1 was already answered or is no longer pending; "
        "no request is pending now"
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
    token = add_principal(db)
    with TestClient(create_app(db, clock=FakeClock(START + 5))) as client:
        sign_in(client, token)
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
        seq = store.execute(  # the first entry that quotes the ask, wherever other events put it
            "SELECT min(seq) FROM audit WHERE session_id=? AND entry LIKE '%115K%'", (paused.session_id,)
        )[0][0]
        assert seq is not None
        store.execute(
            "UPDATE audit SET entry=replace(entry, '115K', '99K') WHERE session_id=? AND seq=?",
            (paused.session_id, seq),
        )
    finally:
        store.close()
    audit = client.get(f"/api/sessions/{paused.session_id}/audit").json()
    assert (audit["ok"], audit["first_bad"]) == (False, seq)
    assert f"entry {seq}: content does not match its hash (entry edited)" in audit["problems"]


def test_concurrent_decisions_on_one_request_record_exactly_one(
    client: TestClient, paused: PausedSession
) -> None:
    codes: list[int] = []

    def choose(letter: str) -> None:
        codes.append(_decide(client, paused.session_id, option=letter, **seen).status_code)

    seen = {"request_id": f"{paused.session_id}-e1", "version": detail_version(client, paused)}
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


def test_a_text_plain_body_is_not_read_as_json(client: TestClient, paused: PausedSession) -> None:
    body = {"option": "A", "request_id": f"{paused.session_id}-e1", "version": detail_version(client, paused)}
    response = client.post(
        f"/api/sessions/{paused.session_id}/decide",
        content=json.dumps(body).encode(),
        headers={"Content-Type": "text/plain"},
    )
    assert response.status_code == 422
    assert client.get("/api/inbox").json()["items"][0]["request"]["status"] == "open"


def test_an_out_of_scale_raise_needs_the_new_limit_repeated(tmp_path: Path) -> None:
    paused = paused_large_raise_session(tmp_path / "large.db")
    token = add_principal(paused.db)
    with TestClient(create_app(paused.db, clock=FakeClock(START + 60))) as client:
        sign_in(client, token)
        refused = _decide(client, paused.session_id, option="B")
        assert refused.status_code == 422
        detail = refused.json()["detail"]
        assert "from $100K to $165K" in detail
        assert detail.endswith("; to approve it, repeat the new limit (confirm_limit)")
        assert _decide(client, paused.session_id, option="B", confirm_limit=150000).status_code == 422
        assert client.get(f"/api/sessions/{paused.session_id}").json()["decisions"] == []
        approved = _decide(client, paused.session_id, option="B", confirm_limit=165000)
        assert approved.status_code == 200, approved.text
        decisions = client.get(f"/api/sessions/{paused.session_id}").json()["decisions"]
        assert [(d["option"], d["decided_by"]) for d in decisions] == [("B", PRINCIPAL)]


def test_a_portfolio_id_is_answered_with_its_sessions_not_as_unknown(
    client: TestClient, paused: PausedSession
) -> None:
    from parley.governance import PolicyPrincipal
    from parley.governance.counterparties import SimulatedCounterparty
    from parley.governance.portfolio import run_portfolio

    config = load_config("staffing")
    store = SessionStore(paused.db)
    try:
        outcome = run_portfolio(
            config,
            [SimulatedCounterparty(config, name, 40 + i) for i, name in enumerate(("cooperative", "slow"))],
            PolicyPrincipal({"boundary": "A", "final_approval": "A"}),
            store,
            config_source="staffing",
            seed=40,
            clock=FakeClock(),
        )
    finally:
        store.close()
    response = client.get(f"/api/sessions/{outcome.portfolio_id}")
    assert response.status_code == 404
    detail = response.json()["detail"]
    assert "is a portfolio of sessions" in detail
    assert all(c.member.session_id in detail for c in outcome.candidates), detail
    assert client.get("/api/sessions/nope").json()["detail"] == "no session 'nope'"


def test_a_portfolio_recommendation_is_answered_from_the_inbox(
    client: TestClient, paused: PausedSession
) -> None:
    from parley.governance import ScriptedCounterparty, StoredPrincipal
    from parley.governance.portfolio import run_portfolio

    def candidate(name: str, ask: str) -> ScriptedCounterparty:
        return ScriptedCounterparty(
            [
                "I'm a U.S. citizen.",
                "I can do a 6-hour overlap with Pacific time. Mostly Python and React.",
                "I have 8 years of professional experience. I could start in January.",
                f"I'm after a permanent role. My salary expectation is {ask}.",
                "Hybrid suits me, 3 days a week in the office.",
                "I can provide references. A background check is fine.",
                f"I'd need {ask}.",
                f"{ask} works for me.",
                "Thanks, that summary looks right to me.",
            ],
            name=name,
        )

    config = load_config("staffing")
    store = SessionStore(paused.db)
    try:  # every decision left to the principal in the inbox
        outcome = run_portfolio(
            config,
            [candidate("ada", "$93,700"), candidate("linus", "$87,900")],
            StoredPrincipal(),
            store,
            config_source="staffing",
            seed=50,
            clock=FakeClock(),
        )
    finally:
        store.close()
    assert outcome.pending is not None
    portfolio = outcome.portfolio_id
    items = {item["session_id"]: item for item in client.get("/api/inbox").json()["items"]}
    request = items[portfolio]["request"]
    assert request["trigger"] == "final_approval" and request["request_id"] == outcome.pending.request_id
    assert "linus" in request["problem"]  # the recommendation names the best offer for the principal
    rows = request["comparison"]  # the sessions side by side, the recommended one first
    assert [(r["counterparty"], r["rank"]) for r in rows] == [("linus", 1), ("ada", 2)]
    assert rows[0]["terms"] == {"annual_salary": 87900.0} and rows[0]["score"] > rows[1]["score"]
    body = {"request_id": request["request_id"], "version": items[portfolio]["version"]}

    def decide(**extra: Any) -> Any:
        return client.post(f"/api/sessions/{portfolio}/decide", json=body | extra)

    assert "option letter" in decide(guidance="pick the cheaper one").json()["detail"]
    assert decide(option="Z").status_code == 422
    stale = decide(option="A", version=0)
    assert stale.status_code == 409 and "changed since you loaded it" in stale.json()["detail"]
    approved = decide(option="A")
    assert approved.status_code == 200, approved.text
    assert approved.json()["state"] == "AGREE"
    assert portfolio not in {item["session_id"] for item in client.get("/api/inbox").json()["items"]}
    again = decide(option="A")  # a repeated request (a double click, a second tab) changes nothing
    assert again.status_code in (200, 409), again.text
    assert client.get(f"/api/sessions/{outcome.ranking[0]}").json()["state"] == "AGREE"


def _async_session(db: Path) -> str:
    store = SessionStore(db)
    try:
        runner, _ = start_session(
            load_config("staffing"),
            DetachedCounterparty(),
            store,
            config_source="staffing",
            clock=FakeClock(START),
        )
        return runner.delegate.session_id
    finally:
        store.close()


def test_a_reply_being_analysed_holds_up_no_other_session(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Issue 14: the console holds no write lock during text analysis. The first reply is held inside its
    analysis until the second session's reply has finished: with a console-wide lock around the analysis
    the second would wait for the first, and the first would wait out its timeout."""
    import parley.web.app as web_app

    db = tmp_path / "two.db"
    first, second = _async_session(db), _async_session(db)
    assert first != second
    token = add_principal(db)
    second_done, first_waited = threading.Event(), []
    analyse = web_app.reply

    def slow_reply(store: SessionStore, session_id: str, message: str, **kwargs: Any) -> Any:
        if session_id == first:
            first_waited.append(second_done.wait(timeout=60))
        return analyse(store, session_id, message, **kwargs)

    monkeypatch.setattr(web_app, "reply", slow_reply)
    codes: dict[str, int] = {}
    with TestClient(create_app(db, clock=FakeClock(START + 5))) as client:
        sign_in(client, token)

        def send(session_id: str) -> None:
            response = client.post(
                f"/api/sessions/{session_id}/reply", json={"message": "I am a U.S. citizen."}
            )
            codes[session_id] = response.status_code
            if session_id == second:
                second_done.set()

        threads = [threading.Thread(target=send, args=(session_id,)) for session_id in (first, second)]
        threads[0].start()
        threads[1].start()
        for thread in threads:
            thread.join(timeout=120)
    assert first_waited == [True]
    assert codes == {first: 200, second: 200}


def test_two_replies_racing_on_one_session_commit_one(tmp_path: Path) -> None:
    """Without a console lock, the store's version check decides a race on one session: one reply is
    committed, the other is refused with 409 and writes nothing."""
    db = tmp_path / "race.db"
    session_id = _async_session(db)
    token = add_principal(db)
    codes: list[int] = []
    with TestClient(create_app(db, clock=FakeClock(START + 5))) as client:
        sign_in(client, token)
        before = client.get(f"/api/sessions/{session_id}").json()["version"]

        def send(text: str) -> None:
            codes.append(client.post(f"/api/sessions/{session_id}/reply", json={"message": text}).status_code)

        threads = [
            threading.Thread(target=send, args=(t,)) for t in ("I am a U.S. citizen.", "I hold a green card.")
        ]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(timeout=120)
        detail = client.get(f"/api/sessions/{session_id}").json()
        assert client.get(f"/api/sessions/{session_id}/audit").json()["ok"]
    assert sorted(codes) in ([200, 200], [200, 409])
    counterparty_lines = [e for e in detail["transcript"] if e["speaker"] == "counterparty"]
    assert len(counterparty_lines) == codes.count(200) and detail["version"] > before
