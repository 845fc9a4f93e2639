"""Playing in the browser, through the API: a game against an agent kept server-side per principal.

What the person is told (brief, points, the offer's worth, the coach in plain words), moves made with
the controls or as free text, the walk-away warning, stale and repeated submits, and bad input.
"""

from __future__ import annotations

import json
import re
import sqlite3
import threading
from pathlib import Path
from typing import Any

import pytest

from parley.protocol.clock import FakeClock
from parley.web import create_app
from parley.web.play import MAX_SEED, GameStore

from .support import START, PausedSession, TestClient, add_principal, sign_in

JARGON = re.compile(
    r"λ|lambda|PAP|\bSA\b|\bTS\b|\bSI\b|S_max|tactic|\b(AEO|REO|NCR|RNC|LIC|CSC|RC|LGR|MGF)\b|BATNA"
)


def start(client: TestClient, **overrides: Any) -> dict[str, Any]:
    body = {"scenario": "casino", "agent": "astra", "party": "A", "seed": 1, "coach": True} | overrides
    response = client.post("/api/games", json=body)
    assert response.status_code == 201, response.text
    return response.json()


def move(client: TestClient, game: dict[str, Any], **body: Any) -> Any:
    return client.post(f"/api/games/{game['game_id']}/moves", json={"version": game["version"]} | body)


def preview(client: TestClient, game: dict[str, Any], **body: Any) -> Any:
    return client.post(f"/api/games/{game['game_id']}/preview", json=body)


def test_the_options_are_two_party_scenarios_and_replayable_agents(client: TestClient) -> None:
    options = client.get("/api/play/options").json()
    names = {s["name"] for s in options["scenarios"]}
    assert {"casino", "staffing", "lease", "lamen/hotel"} <= names
    assert all(len(s["parties"]) == 2 for s in options["scenarios"])
    assert "wind_farm" not in names  # four parties
    agents = {a["name"] for a in options["agents"]}
    assert {"astra", "boulware", "conceder"} <= agents and not {"llm", "astra-llm"} & agents
    assert "walk-away value" in options["glossary"]


def test_a_new_game_shows_the_brief_the_points_and_the_coach_in_plain_words(client: TestClient) -> None:
    game = start(client)
    brief = game["brief"]
    assert brief["party"] == "A" and "diabetic" in brief["text"]
    assert brief["walk_away"] == 5 and brief["best"] == 36
    food = next(row for row in brief["rows"] if row["issue"] == "food")
    assert food["summary"] == "5 points for each package of food you get (of 3)"
    assert [o["points"] for o in food["options"]] == [0, 5, 10, 15]
    assert game["your_turn"] and game["moves"] == ["propose", "say", "walk"] and game["table"] is None
    controls = {c["issue"]: c for c in game["controls"]}
    assert controls["food"]["kind"] == "count" and controls["food"]["choices"][0]["label"] == "you get 3"
    advice = game["advice"]
    assert advice["action"] == "Ask them which issues matter most to them."
    assert all(term in game["glossary"] for term in advice["terms"])
    assert not JARGON.search(json.dumps(advice)), advice


def test_a_game_played_to_a_deal_is_saved_as_a_run(client: TestClient, paused: PausedSession) -> None:
    game = start(client, agent="conceder", coach=False)
    assert game["advice"] is None
    game = move(client, game, kind="propose", package={"food": 3, "water": 3, "firewood": 0}).json()
    rounds = 0
    while game["your_turn"] and rounds < 30:
        rounds += 1
        table = game["table"]
        if table is not None and table["worth"] >= 15:
            game = move(client, game, kind="accept").json()
        else:
            game = move(client, game, kind="propose", package={"food": 3, "water": 2, "firewood": 0}).json()
    ended = game["ended"]
    assert ended is not None and ended["agreement"], game
    assert ended["your_worth"] >= 15 and ended["their_worth"] > 0
    assert ended["text"].startswith("Deal: you get")
    assert game["run"] == f"play/{game['game_id']}" and game["moves"] == []
    folder = paused.db.with_name(paused.db.name + "-runs") / game["run"]
    result = json.loads((folder / "result.json").read_text())
    assert "agreement" in result and {p["agent"] for p in result["parties"]} == {"human", "conceder"}
    assert (folder / "trajectory.jsonl").read_text().count("\n") > 3
    assert json.loads((folder / "game.json").read_text())["player"] == "maria.lopez (hiring manager)"
    listed = client.get("/api/games").json()["games"]
    assert listed[0]["game_id"] == game["game_id"] and listed[0]["ended"]
    refused = move(client, game, kind="walk")
    assert refused.status_code == 409 and "this game is over" in refused.json()["detail"]


def test_the_same_turn_twice_is_refused_and_changes_nothing(client: TestClient) -> None:
    game = start(client)
    first = move(client, game, kind="say", message="what matters most to you?")
    assert first.status_code == 200
    again = move(client, game, kind="say", message="what matters most to you?")
    assert again.status_code == 409
    assert again.json()["detail"].startswith("this move was made on turn 1, but the game is at turn 2")
    now = client.get(f"/api/games/{game['game_id']}").json()
    assert now["version"] == 1
    assert [line["text"] for line in now["transcript"] if line["who"] == "you"] == [
        "what matters most to you?"
    ]


def test_two_tabs_submitting_at_once_make_one_move(client: TestClient) -> None:
    game = start(client, agent="boulware")
    answers: list[int] = []
    barrier = threading.Barrier(4)

    def submit() -> None:
        barrier.wait()
        answers.append(
            move(client, game, kind="propose", package={"food": 3, "water": 1, "firewood": 0}).status_code
        )

    threads = [threading.Thread(target=submit) for _ in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert sorted(answers) == [200, 409, 409, 409]
    now = client.get(f"/api/games/{game['game_id']}").json()
    assert now["version"] == 1
    assert sum(1 for line in now["transcript"] if line["who"] == "you") == 1


def test_the_game_survives_a_restart_of_the_console(paused: PausedSession, token: str) -> None:
    with TestClient(create_app(paused.db, clock=FakeClock(START))) as first:
        sign_in(first, token)
        game = start(first, agent="boulware")
        game = move(first, game, kind="say", message="I care most about food").json()
    with TestClient(create_app(paused.db, clock=FakeClock(START))) as second:  # a fresh process: replayed
        sign_in(second, token)
        again = second.get(f"/api/games/{game['game_id']}").json()
    assert again["version"] == game["version"] == 1
    assert again["transcript"] == game["transcript"] and again["table"] == game["table"]


def test_a_deal_below_the_walk_away_value_needs_confirming(client: TestClient) -> None:
    game = start(client, agent="hardliner", coach=False)
    game = move(client, game, kind="say", message="hello").json()
    assert game["table"]["below_walk_away"] and game["table"]["worth"] == 0
    refused = move(client, game, kind="accept")
    assert refused.status_code == 422
    assert "worth 0 to you, less than walking away: confirm" in refused.json()["detail"]
    proposal = move(client, game, kind="propose", package={"food": 0, "water": 1, "firewood": 0})
    assert proposal.status_code == 422 and "less than walking away" in proposal.json()["detail"]
    shown = preview(client, game, package={"food": 0, "water": 1, "firewood": 0}).json()
    assert shown["offer"]["below_walk_away"] and shown["offer"]["worth"] == 4
    accepted = move(client, game, kind="accept", confirm_below_walk_away=True).json()
    assert accepted["ended"]["agreement"] and accepted["ended"]["your_worth"] == 0


def test_free_text_is_read_back_before_it_is_sent(client: TestClient) -> None:
    game = start(client)
    read = preview(client, game, text="all the food for me, everything else for you").json()
    assert read["kind"] == "propose"
    assert read["understood"] == "You would propose: you get 3 food; they get 3 water and 3 firewood."
    assert read["offer"]["package"] == {"food": 3, "water": 0, "firewood": 0} and read["offer"]["worth"] == 15
    over = preview(client, game, text="I want 5 firewood").json()
    assert over["kind"] is None and over["problem"].startswith("5 firewood is more than the 3 available")
    partial = preview(client, game, text="I'll take all the food").json()
    assert partial["kind"] is None and "So far I read: you get 3 food." in partial["problem"]
    asked = preview(client, game, text="what matters most to you?").json()
    assert asked["kind"] == "say" and "asks about their priorities" in asked["understood"]
    hidden = preview(
        client, game, text="I take ３ fo\u200bod and 2 wаter, you get the rest"
    ).json()  # fullwidth, ZWSP, Cyrillic а
    assert hidden["offer"]["package"] == {"food": 3, "water": 2, "firewood": 0}, hidden


def test_a_say_move_carries_the_priorities_it_states(client: TestClient) -> None:
    game = start(client, agent="astra")
    game = move(client, game, kind="say", message="what matters most to you?").json()
    theirs = [line["text"] for line in game["transcript"] if line["who"] == "them"]
    assert theirs[0].startswith("From most to least important to me")  # ASTRA answered the question


@pytest.mark.parametrize(
    ("body", "status", "expected"),
    [
        ({"kind": "propose"}, 422, "a proposal needs a package"),
        ({"kind": "propose", "package": {"food": 3, "water": 3}}, 422, "the offer does not say firewood"),
        (
            {"kind": "propose", "package": {"food": 3, "water": 3, "firewood": 0, "gold": 1}},
            422,
            "unknown issue 'gold'",
        ),
        (
            {"kind": "propose", "package": {"food": 4, "water": 3, "firewood": 0}},
            422,
            "not an offer in this scenario",
        ),
        (
            {"kind": "propose", "package": {"food": "3", "water": 3, "firewood": 0}},
            422,
            "not an offer in this scenario",
        ),
        ({"kind": "propose", "package": {"food": True, "water": 3, "firewood": 0}}, 422, "package.food"),
        ({"kind": "accept"}, 422, "no offer from them to accept"),
        ({"kind": "reject"}, 422, "no offer from them to reject"),
        ({"kind": "say", "message": "   "}, 422, "write the message first"),
        ({"kind": "say", "message": "x" * 2001}, 422, "message"),
        ({"kind": "bribe"}, 422, "kind"),
        ({"kind": "walk", "extra": 1}, 422, "extra"),
        ({"kind": "walk", "version": -1}, 422, "version"),
        ({"kind": "walk", "version": 5}, 409, "this move was made on turn 6"),
    ],
)
def test_bad_moves_are_refused_in_one_line(
    client: TestClient, body: dict[str, Any], status: int, expected: str
) -> None:
    game = start(client, agent="boulware", coach=False)
    response = client.post(f"/api/games/{game['game_id']}/moves", json={"version": 0} | body)
    assert response.status_code == status, response.text
    assert expected in response.json()["detail"]
    assert "\n" not in response.json()["detail"]
    assert client.get(f"/api/games/{game['game_id']}").json()["version"] == 0


@pytest.mark.parametrize(
    ("body", "expected"),
    [
        ({"scenario": "wind_farm"}, "unknown scenario 'wind_farm'"),
        ({"scenario": "../../etc/passwd"}, "unknown scenario"),
        ({"scenario": "x" * 201}, "scenario"),
        ({"agent": "llm"}, "unknown agent 'llm'"),
        ({"agent": "<script>alert(1)</script>"}, "unknown agent"),
        ({"party": "C"}, "casino has parties A and B, not 'C'"),
        ({"seed": -1}, "seed"),
        ({"seed": MAX_SEED + 1}, "seed"),
        ({"coach": "sometimes"}, "coach"),
    ],
)
def test_bad_game_set_ups_are_refused(client: TestClient, body: dict[str, Any], expected: str) -> None:
    setup = {"scenario": "casino", "agent": "astra", "party": "A"} | body
    response = client.post("/api/games", json=setup)
    assert response.status_code == 422, response.text
    assert expected in response.json()["detail"]


def test_a_game_belongs_to_its_player(client: TestClient, paused: PausedSession) -> None:
    game = start(client)
    other_token = add_principal(paused.db, "alex")
    with TestClient(create_app(paused.db, clock=FakeClock(START + 3600))) as other:
        sign_in(other, other_token)
        assert other.get(f"/api/games/{game['game_id']}").status_code == 404
        assert move(other, game, kind="walk").status_code == 404
        assert other.get("/api/games").json()["games"] == []
    assert client.get("/api/games/no-such-game").status_code == 404
    assert client.get("/api/games/" + "x" * 5000).status_code == 404


def test_writes_need_the_csrf_token_and_a_sign_in(client: TestClient, anonymous: TestClient) -> None:
    game = start(client)
    token = client.headers.pop("X-CSRF-Token")
    assert (
        client.post("/api/games", json={"scenario": "casino", "agent": "astra", "party": "A"}).status_code
        == 403
    )
    assert move(client, game, kind="walk").status_code == 403
    client.headers["X-CSRF-Token"] = token
    client.post("/api/logout")
    assert client.get(f"/api/games/{game['game_id']}").status_code == 401


def test_a_tampered_game_is_not_continued_differently(
    client: TestClient, paused: PausedSession, token: str
) -> None:
    game = start(client, agent="boulware")
    game = move(client, game, kind="say", message="hello").json()
    with sqlite3.connect(paused.db) as db:  # a stored move that answered some other position
        moves = json.loads(
            db.execute("SELECT moves FROM web_games WHERE id=?", (game["game_id"],)).fetchone()[0]
        )
        moves[0]["seen"] = "0" * 32
        db.execute("UPDATE web_games SET moves=? WHERE id=?", (json.dumps(moves), game["game_id"]))
    with TestClient(create_app(paused.db, clock=FakeClock(START))) as fresh:  # no cached position
        sign_in(fresh, token)
        response = fresh.get(f"/api/games/{game['game_id']}")
    assert response.status_code == 422
    assert "cannot be restored: the agent played differently before your move 1" in response.json()["detail"]


def test_hostile_text_comes_back_as_data(client: TestClient) -> None:
    game = start(client, agent="boulware")
    payload = '<script>alert("x")</script><img src=x onerror=alert(1)>\x1b[31m\u202e'
    game = move(client, game, kind="say", message=payload).json()
    mine = next(line for line in game["transcript"] if line["who"] == "you")
    assert (
        mine["text"] == '<script>alert("x")</script><img src=x onerror=alert(1)>'
    )  # escape and bidi removed
    read = preview(client, game, text=payload + " " + "word " * 380).json()
    assert read["message"].startswith("<script>") and "\x1b" not in read["message"]


def test_a_huge_or_empty_preview_is_refused(client: TestClient) -> None:
    game = start(client)
    assert preview(client, game, text="x" * 2001).status_code == 422
    empty = preview(client, game, text="   ")
    assert empty.status_code == 422 and "type a message or build an offer" in empty.json()["detail"]
    assert preview(client, game, package={"food": 9, "water": 0, "firewood": 0}).status_code == 422


def test_only_a_principal_s_latest_finished_games_are_kept(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr("parley.web.play.MAX_GAMES_PER_PRINCIPAL", 2)
    store = GameStore(tmp_path / "games.db")
    first = store.create("p", "casino", "astra", "A", 0, True, now=1.0)
    store.end(first, now=2.0)
    unfinished = store.create("p", "casino", "astra", "A", 0, True, now=3.0)
    for now in (4.0, 5.0):
        store.end(store.create("p", "casino", "astra", "A", 0, True, now=now), now=now)
    store.create("q", "casino", "astra", "B", 0, False, now=6.0)
    kept = [g.game_id for g in store.games("p")]
    assert first.game_id not in kept  # the oldest finished one went
    assert unfinished.game_id in kept  # an unfinished game is never dropped
    assert len(store.games("q")) == 1


def test_scenario_files_in_a_folder_are_offered_and_played(
    paused: PausedSession, token: str, tmp_path: Path
) -> None:
    from parley.scenarios import load_scenario, scenario_to_yaml

    folder = tmp_path / "imported"
    folder.mkdir()
    (folder / "camp.yaml").write_text(
        scenario_to_yaml(load_scenario("casino")).replace("Campsite", "My camp")
    )
    (folder / "four.yaml").write_text(scenario_to_yaml(load_scenario("wind_farm")))  # four parties: left out
    (folder / "broken.yaml").write_text("issues: [")  # invalid: left out
    (folder / "notes.txt").write_text("not a scenario")
    app = create_app(paused.db, scenarios_dir=folder, clock=FakeClock(START))
    with TestClient(app) as client:
        sign_in(client, token)
        names = {s["name"]: s for s in client.get("/api/play/options").json()["scenarios"]}
        assert names["file/camp"]["title"].startswith("My camp")
        assert not {"file/four", "file/broken", "file/notes"} & set(names)
        game = start(client, scenario="file/camp", agent="boulware")
        assert game["title"].startswith("My camp")
        game = move(client, game, kind="say", message="hello").json()
        (folder / "camp.yaml").write_text(
            scenario_to_yaml(load_scenario("casino")).replace("batna: 5", "batna: 9")
        )  # the file changed under a game in progress
    with TestClient(create_app(paused.db, scenarios_dir=folder, clock=FakeClock(START))) as fresh:
        sign_in(fresh, token)
        response = fresh.get(f"/api/games/{game['game_id']}")
        assert response.status_code in (200, 422)
        if response.status_code == 422:  # the replay showed another position: refused, not continued
            assert "cannot be restored" in response.json()["detail"]
        assert start(fresh, scenario="file/camp", agent="boulware")["brief"]["walk_away"] == 9
        assert (
            fresh.post(
                "/api/games", json={"scenario": "file/../x", "agent": "astra", "party": "A"}
            ).status_code
            == 422
        )
