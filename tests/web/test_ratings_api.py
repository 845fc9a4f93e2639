"""Ratings through the API: the seeds' instruments, stored with the run under the signed-in principal's
name and the console's time, exported as CSV; bad scores and paths refused."""

from __future__ import annotations

import csv
import io
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from parley.protocol.clock import FakeClock
from parley.web import create_app
from parley.web.ratings import INSTRUMENTS, read_ratings

from .support import (
    PRINCIPAL,
    START,
    TestClient,
    add_principal,
    declined_session,
    saved_game,
    saved_mediation,
    sign_in,
)

ASTRA_SCORES = {"strategicness": 3, "fairness": 4, "naturalness": 2}


@pytest.fixture
def runs(tmp_path: Path) -> Path:
    """A runs folder holding a game and a mediated conversation."""
    root = tmp_path / "runs"
    saved_game(root / "games" / "g1")
    saved_mediation(root / "conversations" / "m1")
    return root


@pytest.fixture
def rater(tmp_path: Path, runs: Path) -> Iterator[TestClient]:
    """The console over a finished delegate session and the runs folder, signed in."""
    ended = declined_session(tmp_path / "delegate.db")
    token = add_principal(ended.db)
    with TestClient(create_app(ended.db, runs_dir=runs, clock=FakeClock(START + 60))) as client:
        sign_in(client, token)
        client.session_id = ended.session_id  # type: ignore[attr-defined]
        yield client


def rate(client: TestClient, run: str, instrument: str, scores: dict[str, Any], comment: str = "") -> Any:
    return client.post(
        f"/api/runs/{run}/ratings", json={"instrument": instrument, "scores": scores, "comment": comment}
    )


def test_the_instruments_are_the_seeds(rater: TestClient) -> None:
    instruments = {i["key"]: i for i in rater.get("/api/instruments").json()}
    assert [item["key"] for item in instruments["gaia"]["items"]] == ["satisfaction", "trust", "control"]
    assert [item["key"] for item in instruments["astra"]["items"]] == [
        "strategicness",
        "fairness",
        "naturalness",
    ]
    assert [item["key"] for item in instruments["promediate"]["items"]] == ["naturalness", "helpfulness"]
    assert len(instruments["astra"]["items"][0]["anchors"]) == 4  # ASTRA's four-point strategicness
    assert instruments["promediate"]["items"][0]["anchors"][0] == "Totally unnatural"


def test_a_rating_is_stored_with_the_run_under_the_principal_and_the_time(
    rater: TestClient, runs: Path
) -> None:
    stored = rate(rater, "games/g1", "astra", ASTRA_SCORES, "fair but slow")
    assert stored.status_code == 201, stored.text
    assert stored.json()["rated_by"] == PRINCIPAL and stored.json()["rated_at"] == START + 60
    line = json.loads((runs / "games" / "g1" / "ratings.jsonl").read_text())
    assert line == {
        "schema": 1,
        "run": "games/g1",
        "instrument": "astra",
        "scores": ASTRA_SCORES,
        "comment": "fair but slow",
        "rated_by": PRINCIPAL,
        "rated_at": START + 60,
    }
    detail = rater.get("/api/runs/games/g1").json()
    assert detail["instrument"]["key"] == "astra"
    assert detail["ratings"] == [
        {
            "instrument": "astra",
            "scores": ASTRA_SCORES,
            "comment": "fair but slow",
            "rated_by": PRINCIPAL,
            "rated_at": START + 60,
        }
    ]


def test_a_mediated_conversation_is_rated_with_promediate(rater: TestClient) -> None:
    assert rate(rater, "conversations/m1", "astra", ASTRA_SCORES).status_code == 422
    stored = rate(rater, "conversations/m1", "promediate", {"naturalness": 4, "helpfulness": 5})
    assert stored.status_code == 201, stored.text


def test_a_finished_delegate_session_is_exported_and_rated_with_gaia(rater: TestClient, runs: Path) -> None:
    session_id = rater.session_id  # type: ignore[attr-defined]
    body = {"instrument": "gaia", "scores": {"satisfaction": 2, "trust": 4, "control": 5}}
    stored = rater.post(f"/api/sessions/{session_id}/ratings", json=body)
    assert stored.status_code == 201, stored.text
    folder = runs / "delegate" / session_id
    assert {p.name for p in folder.iterdir()} >= {
        "session.json",
        "trajectory.jsonl",
        "metrics.json",
        "ratings.jsonl",
    }
    metrics = json.loads((folder / "metrics.json").read_text())
    assert metrics["final_state"] and "utility" in metrics
    listed = {run["run_id"]: run for run in rater.get("/api/runs").json()["runs"]}
    assert (
        listed[f"delegate/{session_id}"]["kind"] == "delegate"
        and listed[f"delegate/{session_id}"]["ratings"] == 1
    )
    assert rater.post("/api/sessions/no-such-session/ratings", json=body).status_code == 404


def test_an_unfinished_delegate_session_cannot_be_rated_yet(client: TestClient, paused: Any) -> None:
    body = {"instrument": "gaia", "scores": {"satisfaction": 2, "trust": 4, "control": 5}}
    response = client.post(f"/api/sessions/{paused.session_id}/ratings", json=body)
    assert response.status_code == 409 and "has not ended yet" in response.json()["detail"]


@pytest.mark.parametrize(
    ("scores", "expected"),
    [
        ({"strategicness": 3, "fairness": 4}, "rate naturalness too (1 to 5)"),
        ({**ASTRA_SCORES, "strategicness": 5}, "strategicness: expected a whole number from 1 to 4, got 5"),
        ({**ASTRA_SCORES, "fairness": 0}, "from 1 to 5, got 0"),
        ({**ASTRA_SCORES, "fairness": -3}, "got -3"),
        ({**ASTRA_SCORES, "cuteness": 3}, "astra has no item 'cuteness'"),
        ({**ASTRA_SCORES, "fairness": 3.5}, "scores.fairness"),
        ({**ASTRA_SCORES, "fairness": "4"}, None),
        ({**ASTRA_SCORES, "fairness": 10**30}, "got"),
        ({}, "rate strategicness too"),
    ],
)
def test_bad_scores_are_refused(
    rater: TestClient, runs: Path, scores: dict[str, Any], expected: str | None
) -> None:
    response = rate(rater, "games/g1", "astra", scores)
    if expected is None:  # pydantic reads "4" as 4 in lax mode: a number written as text is still that number
        assert response.status_code == 201
        return
    assert response.status_code == 422, response.text
    assert expected in response.json()["detail"]
    assert not (runs / "games" / "g1" / "ratings.jsonl").exists()


@pytest.mark.parametrize(
    "run",
    [
        "../delegate.db",
        "games/../../x",
        "games/g1/../../..",
        "/etc",
        "games/%2e%2e",
        "nope",
        "games",
        "games/g1/missing",
    ],
)
def test_only_runs_under_the_runs_folder_can_be_rated(rater: TestClient, run: str) -> None:
    response = rate(rater, run, "astra", ASTRA_SCORES)
    assert response.status_code in (404, 405), (run, response.text)


def test_unknown_instruments_and_huge_comments_are_refused(rater: TestClient) -> None:
    assert rate(rater, "games/g1", "gaia", {"satisfaction": 1, "trust": 1, "control": 1}).status_code == 422
    assert rate(rater, "games/g1", "x" * 41, ASTRA_SCORES).status_code == 422
    assert rate(rater, "games/g1", "astra", ASTRA_SCORES, "c" * 2001).status_code == 422


def test_the_csv_export_has_one_row_per_item_and_neutralises_formulas(rater: TestClient) -> None:
    comment = '=HYPERLINK("http://evil.example","x") <script>alert(1)</script>'
    assert rate(rater, "games/g1", "astra", ASTRA_SCORES, comment).status_code == 201
    assert rate(rater, "games/g1", "astra", {**ASTRA_SCORES, "fairness": 1}).status_code == 201  # a later one
    response = rater.get("/api/ratings.csv")
    assert response.status_code == 200 and response.headers["content-type"].startswith("text/csv")
    rows = list(csv.DictReader(io.StringIO(response.text)))
    assert [(r["run"], r["item"], r["score"], r["scale"]) for r in rows] == [
        ("games/g1", "strategicness", "3", "4"),
        ("games/g1", "fairness", "1", "5"),
        ("games/g1", "naturalness", "2", "5"),
    ]  # each person's latest rating only
    history = list(csv.DictReader(io.StringIO(rater.get("/api/ratings.csv?history=true").text)))
    assert len(history) == 6
    assert history[0]["comment"].startswith("'=HYPERLINK") and "<script>" in history[0]["comment"]
    assert history[0]["rated_by"] == PRINCIPAL and history[0]["rated_at"].startswith("2023-11-14T22:14")


def test_a_comment_is_stored_printable(rater: TestClient, runs: Path) -> None:
    assert rate(rater, "games/g1", "astra", ASTRA_SCORES, "ok\x1b[31m\u202eevil\x00").status_code == 201
    stored = json.loads((runs / "games" / "g1" / "ratings.jsonl").read_text())
    assert stored["comment"] == "okevil"


def test_every_instrument_has_anchors_for_each_point() -> None:
    for instrument in INSTRUMENTS.values():
        for item in instrument.items:
            assert item.scale in (4, 5) and all(item.anchors)


def test_a_rating_after_a_torn_line_is_kept_on_a_line_of_its_own(rater: TestClient, runs: Path) -> None:
    store = runs / "games" / "g1" / "ratings.jsonl"
    assert rate(rater, "games/g1", "astra", ASTRA_SCORES).status_code == 201
    with store.open("a", encoding="utf-8") as handle:
        handle.write('{"instrument": "astra", "sco')  # a process killed mid-append
    assert rate(rater, "games/g1", "astra", {**ASTRA_SCORES, "fairness": 1}).status_code == 201
    ratings, problems = read_ratings(store, "games/g1")
    assert [rating.scores["fairness"] for rating in ratings] == [4, 1]
    assert len(problems) == 1 and "ratings.jsonl:2" in problems[0]
