"""Tournament planning, parallel play, resumable storage and summaries."""

from __future__ import annotations

import math
from pathlib import Path

import pytest

from parley.errors import ScenarioError
from parley.experiments.tournament import (
    ResultStore,
    TournamentSpec,
    assignments,
    plan,
    play,
    run_games,
    summarize,
)
from parley.metrics.stats import mean_ci


def test_bilateral_assignments_are_ordered_pairs() -> None:
    assert assignments(["a", "b", "c"], 2, self_play=False) == [
        ("a", "b"),
        ("a", "c"),
        ("b", "a"),
        ("b", "c"),
        ("c", "a"),
        ("c", "b"),
    ]
    assert ("a", "a") in assignments(["a", "b"], 2, self_play=True)


def test_multiparty_assignments_put_each_agent_in_each_seat() -> None:
    lineups = assignments(["a", "b", "c"], 3, self_play=False)
    assert lineups == [("a", "b", "c"), ("b", "c", "a"), ("c", "a", "b")]
    for seat in range(3):
        assert {lineup[seat] for lineup in lineups} == {"a", "b", "c"}


def test_plan_rejects_bad_specs() -> None:
    with pytest.raises(ScenarioError, match="unknown agents"):
        plan(TournamentSpec(("boulware", "nope"), ("casino",)))
    with pytest.raises(ScenarioError, match="repetitions"):
        plan(TournamentSpec(("boulware", "conceder"), ("casino",), repetitions=0))


def test_play_returns_one_row_per_party_with_consistent_fields() -> None:
    game = plan(TournamentSpec(("boulware", "conceder"), ("casino",)))[0]
    rows = play(game)
    assert [r["party"] for r in rows] == ["A", "B"]
    assert all(r["game"] == game.key for r in rows)
    if rows[0]["agreement"]:
        assert 0.0 <= rows[0]["normalized_utility"] <= 1.0
        assert rows[0]["pareto_distance"] >= 0.0


def test_parallel_play_matches_serial(tmp_path: Path) -> None:
    games = plan(TournamentSpec(("boulware", "tit-for-tat", "random"), ("casino", "lease"), repetitions=2))
    serial, parallel = ResultStore(tmp_path / "serial"), ResultStore(tmp_path / "parallel")
    run_games(games, serial, jobs=1)
    run_games(games, parallel, jobs=2)
    key = lambda row: (row["game"], row["party"])  # noqa: E731
    assert sorted(serial.rows(), key=key) == sorted(parallel.rows(), key=key)


def test_store_ignores_a_torn_last_line_and_resumes(tmp_path: Path) -> None:
    games = plan(TournamentSpec(("boulware", "conceder"), ("casino",), repetitions=3))
    store = ResultStore(tmp_path)
    run_games(games[:2], store)
    with store.path.open("a") as handle:
        handle.write('{"game": "torn')  # a crash mid-write
    finished: list[int] = []
    run_games(games, store, on_progress=finished.append)
    assert sum(finished) == len(games)
    assert store.done() == {g.key for g in games}
    assert len(store.rows()) == 2 * len(games)


def test_summary_matches_hand_computation() -> None:
    rows = [
        {
            "agent": "x",
            "utility": 10.0,
            "normalized_utility": 0.5,
            "agreement": True,
            "walked": False,
            "rounds": 4,
            "pareto_distance": 0.1,
        },
        {
            "agent": "x",
            "utility": 20.0,
            "normalized_utility": 1.0,
            "agreement": False,
            "walked": True,
            "rounds": 6,
            "pareto_distance": math.nan,
        },
    ]
    (summary,) = summarize(rows)
    assert summary.games == 2
    assert summary.utility.mean == 15.0
    assert summary.agreement_rate.mean == 0.5
    assert summary.pareto_distance.count == 1  # nan (no deal) is not averaged in
    # t(0.975, 1) = 12.706; sd of (10, 20) = 7.071; half-width = 12.706 * 7.071 / sqrt(2)
    assert summary.utility.half_width == pytest.approx(63.53, abs=0.01)


def test_mean_ci_edge_cases() -> None:
    assert mean_ci([]).count == 0
    single = mean_ci([3.0])
    assert single.mean == 3.0 and math.isnan(single.half_width)
    assert str(mean_ci([1.0, 1.0])) == "1 ± 0"


@pytest.mark.slow
def test_dask_scheduler_runs_the_same_games(tmp_path: Path) -> None:
    distributed = pytest.importorskip("distributed")
    games = plan(TournamentSpec(("boulware", "conceder"), ("casino",), repetitions=2))
    local = ResultStore(tmp_path / "local")
    run_games(games, local)
    cluster_options = {"n_workers": 1, "threads_per_worker": 1, "processes": False, "dashboard_address": None}
    with distributed.LocalCluster(**cluster_options) as cluster:
        remote = ResultStore(tmp_path / "dask")
        run_games(games, remote, scheduler=cluster.scheduler_address)
    key = lambda row: (row["game"], row["party"])  # noqa: E731
    assert sorted(local.rows(), key=key) == sorted(remote.rows(), key=key)
