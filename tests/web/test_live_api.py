"""The live views' server-sent events: a delegate session's snapshots as it changes, and a mediated
conversation started in the console, followed turn by turn, resumed with Last-Event-ID, saved as a run."""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

import parley.web.live
from parley.governance import SessionStore, decide
from parley.protocol.clock import FakeClock
from parley.web import create_app
from parley.web.live import MAX_RUNNING

from .support import START, PausedSession, TestClient, declined_session, sign_in


def events(text: str) -> list[tuple[str, str | None, Any]]:
    """(event name, id, data) of each server-sent event in text."""
    found: list[tuple[str, str | None, Any]] = []
    for block in text.split("\n\n"):
        fields = dict(line.split(": ", 1) for line in block.splitlines() if ": " in line)
        if "event" in fields:
            found.append((fields["event"], fields.get("id"), json.loads(fields["data"])))
    return found


@pytest.fixture
def live(paused: PausedSession, token: str, tmp_path: Path) -> Iterator[TestClient]:
    """The console with streams that end after 1.5 s (a browser would reconnect)."""
    app = create_app(paused.db, runs_dir=tmp_path / "runs", clock=FakeClock(START), stream_seconds=1.5)
    with TestClient(app) as client:
        sign_in(client, token)
        yield client


def test_a_session_snapshot_has_state_tci_safety_and_escalations(
    live: TestClient, paused: PausedSession
) -> None:
    snapshot = live.get(f"/api/live/sessions/{paused.session_id}").json()
    assert snapshot["state"] == "ESCALATE" and snapshot["paused"] and not snapshot["terminal"]
    assert snapshot["tci_curve"][0] == {"turn": 0, "tci": 0.0, "state": "STCC"}
    assert [e["status"] for e in snapshot["escalations"]] == ["open"]
    assert any(entry["kind"] == "message" for entry in snapshot["transcript"])
    assert all(set(event) == {"turn", "kind", "text"} for event in snapshot["safety"])
    assert live.get("/api/live/sessions/nope").status_code == 404
    assert live.get("/api/live/sessions/nope/events").status_code == 404


def test_the_stream_pushes_a_new_snapshot_when_the_session_moves(
    paused: PausedSession, token: str, tmp_path: Path
) -> None:
    # A stream long enough that a loaded machine still answers inside it; declining ends the session, so
    # the stream ends at once after the decision, not at the limit.
    app = create_app(paused.db, runs_dir=tmp_path / "runs", clock=FakeClock(START), stream_seconds=60)

    def answer_elsewhere() -> None:
        time.sleep(0.3)
        store = SessionStore(paused.db)
        try:
            request = store.open_request(paused.session_id)
            assert request is not None
            decide(store, paused.session_id, request_id=request.request_id, option=request.options[-1].key)
        finally:
            store.close()

    with TestClient(app) as live:
        sign_in(live, token)
        thread = threading.Thread(target=answer_elsewhere)
        thread.start()
        started = time.monotonic()
        response = live.get(f"/api/live/sessions/{paused.session_id}/events")
        thread.join()
    assert time.monotonic() - started < 50  # ended by the decision, not by the limit
    assert response.headers["content-type"].startswith("text/event-stream")
    snapshots = [data for name, _, data in events(response.text) if name == "snapshot"]
    assert len(snapshots) >= 2, response.text
    assert snapshots[0]["version"] < snapshots[-1]["version"]
    assert any(e["status"] == "decided" for e in snapshots[-1]["escalations"])


def test_an_ended_session_streams_once_and_says_so(tmp_path: Path) -> None:
    ended = declined_session(tmp_path / "ended.db")
    from .support import add_principal

    token = add_principal(ended.db)
    with TestClient(create_app(ended.db, clock=FakeClock(START), stream_seconds=60)) as client:
        sign_in(client, token)
        started = time.monotonic()
        response = client.get(f"/api/live/sessions/{ended.session_id}/events")
        assert time.monotonic() - started < 50  # it ended at once, not at the limit (a hang guard, loose)
    names = [name for name, _, _ in events(response.text)]
    assert names == ["snapshot", "end"]


def _wait_done(client: TestClient, mediation_id: str, timeout: float = 60) -> dict[str, Any]:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        found = {m["mediation_id"]: m for m in client.get("/api/live/mediations").json()["mediations"]}
        if found[mediation_id]["done"]:
            return found[mediation_id]
        time.sleep(0.2)
    raise AssertionError("the conversation did not finish")


def test_a_mediated_conversation_is_followed_and_saved(live: TestClient, tmp_path: Path) -> None:
    listed = live.get("/api/live/mediations").json()
    assert "hmo" in listed["cases"] and listed["mediators"] == ["social", "generic", "none"]
    started = live.post("/api/live/mediations", json={"case": "hmo", "seed": 1, "pace": 0})
    assert started.status_code == 201, started.text
    info = _wait_done(live, started.json()["mediation_id"])
    assert info["error"] == "" and info["run"] == f"mediations/{info['mediation_id']}"
    stream = events(live.get(f"/api/live/mediations/{info['mediation_id']}/events").text)
    kinds = [data.get("kind") for name, _, data in stream if name == "event"]
    assert kinds[0] == "started" and "utterance" in kinds and "intervention" in kinds and "consensus" in kinds
    assert stream[-1][0] == "end" and stream[-1][2]["run"] == info["run"]
    ids = [int(event_id) for name, event_id, _ in stream if name == "event" and event_id is not None]
    assert ids == list(range(1, len(ids) + 1))
    resumed = events(
        live.get(f"/api/live/mediations/{info['mediation_id']}/events", headers={"Last-Event-ID": "10"}).text
    )
    assert next(int(i) for n, i, _ in resumed if n == "event" and i is not None) == 11
    folder = tmp_path / "runs" / info["run"]
    assert {p.name for p in folder.iterdir()} == {"trajectory.jsonl", "metrics.json"}
    assert live.get(f"/api/runs/{info['run']}").json()["kind"] == "mediation"


@pytest.mark.parametrize(
    "body",
    [
        {"case": "nope"},
        {"case": "../etc"},
        {"mediator": "llm-social"},
        {"mode": "angry"},
        {"pace": 10},
        {"pace": -1},
        {"seed": -1},
        {"extra": True},
    ],
)
def test_bad_mediation_requests_are_refused(live: TestClient, body: dict[str, Any]) -> None:
    response = live.post("/api/live/mediations", json=body)
    assert response.status_code == 422, response.text


class _HeldPace:
    """`time` for the live module whose pacing `sleep` waits until the test releases it (instead of
    really sleeping the pace), so the conversations are surely running while the test asks for more,
    and end as soon as it is done asking; every other attribute is the real `time`'s."""

    def __init__(self) -> None:
        self.release = threading.Event()
        self.paces: list[float] = []

    def sleep(self, seconds: float) -> None:
        self.paces.append(seconds)
        assert self.release.wait(timeout=120), "the test never released the paced conversations"

    def __getattr__(self, name: str) -> Any:
        return getattr(time, name)


def test_at_most_a_few_conversations_run_at_once(live: TestClient, monkeypatch: pytest.MonkeyPatch) -> None:
    held = _HeldPace()
    monkeypatch.setattr(parley.web.live, "time", held)
    try:
        started = [
            live.post("/api/live/mediations", json={"seed": i, "pace": 0.2}) for i in range(MAX_RUNNING)
        ]
        assert all(response.status_code == 201 for response in started)
        refused = live.post("/api/live/mediations", json={"seed": 9, "pace": 0})
        assert refused.status_code == 409 and "running already" in refused.json()["detail"]
    finally:
        held.release.set()
    for response in started:
        _wait_done(live, response.json()["mediation_id"], timeout=120)
    assert held.paces and set(held.paces) == {0.2}  # the conversations were paced as asked
    assert live.post("/api/live/mediations", json={"seed": 9, "pace": 0}).status_code == 201


def test_streams_need_a_sign_in(anonymous: TestClient, paused: PausedSession) -> None:
    assert anonymous.get(f"/api/live/sessions/{paused.session_id}/events").status_code == 401
    assert anonymous.post("/api/live/mediations", json={}).status_code == 401


def _played_events() -> list[Any]:
    from parley.experiments.promediate_llm import ConversationRoles, play_conversation
    from parley.scenarios.importers.promediate import load_promediate_case
    from parley.simulation.modes import ConflictMode

    played = play_conversation(
        load_promediate_case("hmo"), "social", ConflictMode.parse("general"), 1, ConversationRoles(), None
    )
    return list(played.result.trajectory)


def _terminal(client: TestClient) -> dict[str, Any]:
    found = [
        m for m in client.get("/api/live/mediations").json()["mediations"] if m["started_by"] == "terminal"
    ]
    assert len(found) == 1, found
    return found[0]


def test_a_conversation_run_from_a_terminal_is_followed_live(live: TestClient, tmp_path: Path) -> None:
    from parley.protocol.events import Trajectory
    from parley.protocol.live_log import LiveLog

    played = _played_events()
    folder = tmp_path / "runs" / "mediations" / "from-terminal"
    log = LiveLog(folder, {"case": "hmo", "mediator": "social", "mode": "general", "seed": 1})
    half = len(played) // 2
    for event in played[:half]:
        log.add(event)
    info = _terminal(live)
    assert (info["case"], info["mediator"], info["seed"], info["done"]) == ("hmo", "social", 1, False)

    def finish_elsewhere() -> None:  # what `parley mediate --save` does as the conversation goes on
        time.sleep(0.5)
        for event in played[half:]:
            log.add(event)
        (folder / "trajectory.jsonl").write_text(Trajectory(played).to_jsonl(versioned=True), "utf-8")
        log.close(remove=True)

    thread = threading.Thread(target=finish_elsewhere)
    thread.start()
    done = _wait_done(live, info["mediation_id"], timeout=30)
    thread.join()
    assert done["error"] == "" and done["run"] == "mediations/from-terminal"
    stream = events(live.get(f"/api/live/mediations/{info['mediation_id']}/events").text)
    kinds = [data.get("kind") for name, _, data in stream if name == "event"]
    assert kinds[0] == "started" and "utterance" in kinds and "ended" in kinds
    assert stream[-1] == ("end", None, {"run": "mediations/from-terminal", "error": ""})
    assert len(live.get("/api/live/mediations").json()["mediations"]) == 1  # followed once, not again


def test_a_killed_terminal_conversation_is_reported_as_stopped(live: TestClient, tmp_path: Path) -> None:
    import subprocess
    import sys

    from parley.jsonio import dumps_line

    gone = subprocess.Popen([sys.executable, "-c", "pass"])
    gone.wait()
    folder = tmp_path / "runs" / "killed"
    folder.mkdir(parents=True)
    lines = [
        dumps_line({"live": {"case": "<b>hmo</b>\u200b", "mediator": "social", "seed": "x", "pid": gone.pid}})
    ]
    lines += [dumps_line(event.to_json()) for event in _played_events()[:5]]
    lines += ["not json\n", '{"seq": "NaN"}\n', "[1, 2]\n", '{"kind": "utterance", "seq": 9, "data": {"te']
    (folder / "live.jsonl").write_text("".join(lines), encoding="utf-8")
    info = _terminal(live)
    assert info["seed"] == -1 and "<b>hmo</b>" in info["case"] and "\u200b" not in info["case"]
    done = _wait_done(live, info["mediation_id"], timeout=10)
    assert done["run"] is None and done["error"] == f"stopped: process {gone.pid} is gone"
    stream = events(live.get(f"/api/live/mediations/{info['mediation_id']}/events").text)
    assert next(data.get("kind") for name, _, data in stream if name == "event") == "started"
    assert stream[-1][0] == "end"
