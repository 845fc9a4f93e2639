"""The run browser through the API: saved games, mediated conversations and tournaments, their plots,
the tournament table with failed games and fallback shares, and run ids that try to leave the folder."""

from __future__ import annotations

import json
import os
from collections.abc import Iterator
from pathlib import Path

import pytest

from parley.jsonio import dumps_line
from parley.protocol.clock import FakeClock
from parley.web import create_app

from .support import START, PausedSession, TestClient, saved_game, saved_mediation, sign_in

PNG = b"\x89PNG\r\n\x1a\n"


def _row(game: str, agent: str, party: str, utility: float, **extra: object) -> dict[str, object]:
    return {
        "game": game,
        "scenario": "casino",
        "repetition": 0,
        "seed": 0,
        "opponents": "x",
        "end": "agreement",
        "party": party,
        "agent": agent,
        "utility": utility,
        "normalized_utility": utility / 36,
        "agreement": True,
        "walked": False,
        "rounds": 10,
        "pareto_distance": 0.0,
        "nash_distance": 0.1,
        "below_batna": False,
        "failed": False,
        "error": "",
        "llm_fallback_share": None,
    } | extra


@pytest.fixture
def runs(tmp_path: Path) -> Path:
    root = tmp_path / "runs"
    saved_game(root / "g1")
    saved_mediation(root / "deep" / "m1")
    tournament = root / "t1"
    tournament.mkdir()
    rows = [
        _row("casino|astra,llm|0", "astra", "A", 30.0),
        _row("casino|astra,llm|0", "llm", "B", 6.0, llm_fallback_share=0.25),
        _row("casino|astra,llm|1", "astra", "A", 20.0),
        _row("casino|astra,llm|1", "llm", "B", 16.0, llm_fallback_share=0.75),
        _row(
            "casino|<b>x</b>,llm|2",
            "<b>x</b>",
            "A",
            float("nan"),
            failed=True,
            error="raised <img src=x onerror=alert(1)>",
            end="error",
        ),
        _row(
            "casino|<b>x</b>,llm|2",
            "llm",
            "B",
            float("nan"),
            failed=True,
            error="partner failed",
            end="error",
        ),
    ]
    from parley.jsonio import FAILED_GAME_NO_VALUE_FIELDS

    text = "".join(dumps_line(r, no_value=FAILED_GAME_NO_VALUE_FIELDS) + "\n" for r in rows)
    (tournament / "results.jsonl").write_text(text + '{"torn line', encoding="utf-8")
    (root / "not-a-run").mkdir()
    (root / "not-a-run" / "notes.txt").write_text("hello")
    return root


@pytest.fixture
def browser_client(paused: PausedSession, token: str, runs: Path) -> Iterator[TestClient]:
    with TestClient(create_app(paused.db, runs_dir=runs, clock=FakeClock(START))) as client:
        sign_in(client, token)
        yield client


def test_the_runs_are_listed_by_kind(browser_client: TestClient, runs: Path) -> None:
    listed = browser_client.get("/api/runs").json()
    assert listed["root"] == str(runs)
    kinds = {run["run_id"]: run["kind"] for run in listed["runs"]}
    assert kinds == {"g1": "game", "deep/m1": "mediation", "t1": "tournament"}
    titles = {run["run_id"]: run["title"] for run in listed["runs"]}
    assert titles["g1"] == "casino: astra vs base"
    assert titles["deep/m1"] == "hmo · social · general"


def test_a_game_shows_its_result_transcript_trace_and_plots(browser_client: TestClient) -> None:
    detail = browser_client.get("/api/runs/g1").json()
    facts = {fact["label"]: fact["value"] for fact in detail["facts"]}
    assert facts["scenario"] == "casino" and "rounds" in facts
    assert detail["transcript"] and {line["speaker"] for line in detail["transcript"]} == {"A", "B"}
    assert detail["traces"] and detail["traces"][0]["text"].startswith("[ASTRA round")
    assert [plot["name"] for plot in detail["plots"]] == ["outcomes", "utility"]
    for plot in detail["plots"]:
        image = browser_client.get(plot["url"])
        assert image.status_code == 200 and image.headers["content-type"] == "image/png"
        assert image.content.startswith(PNG) and len(image.content) > 5000
    assert detail["instrument"]["key"] == "astra"


def test_a_mediated_conversation_shows_consensus_with_interventions(browser_client: TestClient) -> None:
    detail = browser_client.get("/api/runs/deep/m1").json()
    facts = {fact["label"]: fact["value"] for fact in detail["facts"]}
    assert {"CC", "ME", "MI", "interventions"} <= set(facts)
    assert any(line["kind"] == "mediator" for line in detail["transcript"])
    image = browser_client.get("/api/runs/deep/m1/plots/consensus.png")
    assert image.status_code == 200 and image.content.startswith(PNG)
    assert browser_client.get("/api/runs/deep/m1/plots/outcomes.png").status_code == 404


def test_a_tournament_table_shows_failed_games_and_fallback_shares(browser_client: TestClient) -> None:
    table = browser_client.get("/api/runs/t1").json()["tournament"]
    rows = {row["agent"]: row for row in table["rows"]}
    assert rows["llm"]["llm_fallback_share"] == pytest.approx(0.5)
    assert rows["astra"]["llm_fallback_share"] is None
    assert rows["astra"]["games"] == 2 and rows["astra"]["failed"] == 0
    assert rows["astra"]["utility"]["mean"] == pytest.approx(25.0) and rows["astra"]["utility"]["count"] == 2
    assert rows["<b>x</b>"]["failed"] == 1 and rows["<b>x</b>"]["normalized_utility"]["mean"] is None
    assert rows["<b>x</b>"]["first_error"] == "raised <img src=x onerror=alert(1)>"
    assert [f["agent"] for f in table["failed"]] == ["<b>x</b>", "llm"]
    assert table["total_rows"] == 6  # the torn last line is skipped


@pytest.mark.parametrize(
    "path",
    [
        "/api/runs/..",
        "/api/runs/../delegate.db",
        "/api/runs/%2e%2e/%2e%2e/etc",
        "/api/runs/g1/../../",
        "/api/runs/not-a-run",
        "/api/runs/g1/plots/nope.png",
        "/api/runs/g1/plots/../../x.png",
        "/api/runs/" + "a" * 600,
        "/api/runs/g1%00",
        "/api/runs/t1/plots/outcomes.png",
    ],
)
def test_run_ids_that_leave_the_folder_or_name_nothing_are_404(browser_client: TestClient, path: str) -> None:
    assert browser_client.get(path).status_code == 404, path


def test_a_symbolic_link_out_of_the_runs_folder_is_not_followed(
    browser_client: TestClient, runs: Path, tmp_path: Path
) -> None:
    outside = saved_game(tmp_path / "outside")
    os.symlink(outside, runs / "link")
    assert "link" not in {run["run_id"] for run in browser_client.get("/api/runs").json()["runs"]}
    assert browser_client.get("/api/runs/link").status_code == 404


def test_a_broken_trajectory_is_a_one_line_404(browser_client: TestClient, runs: Path) -> None:
    broken = runs / "broken"
    broken.mkdir()
    (broken / "trajectory.jsonl").write_bytes(b"\xff\xfe not json")
    (broken / "result.json").write_text("{NaN}")
    response = browser_client.get("/api/runs/broken")
    assert response.status_code == 404 and "no readable trajectory.jsonl" in response.json()["detail"]


def test_a_run_of_an_unknown_scenario_has_no_outcome_plot(browser_client: TestClient, runs: Path) -> None:
    folder = saved_game(runs / "renamed")
    result = json.loads((folder / "result.json").read_text())
    (folder / "result.json").write_text(json.dumps(result | {"scenario": "/etc/passwd"}))
    response = browser_client.get("/api/runs/renamed/plots/outcomes.png")
    assert response.status_code == 404 and "not a shipped one" in response.json()["detail"]


def test_runs_need_a_sign_in(anonymous: TestClient) -> None:
    assert anonymous.get("/api/runs").status_code == 401
    assert anonymous.get("/api/runs/g1/plots/outcomes.png").status_code == 401
    assert anonymous.get("/api/ratings.csv").status_code == 401
