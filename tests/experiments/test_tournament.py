"""Tournament planning, parallel play, resumable storage and summaries."""

from __future__ import annotations

import json
import math
import weakref
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import IO, Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from parley.errors import ScenarioError
from parley.experiments import tournament as tournament_module
from parley.experiments.tournament import (
    ResultStore,
    Row,
    TournamentSpec,
    assignments,
    plan,
    play,
    run_games,
    summarize,
)
from parley.metrics.stats import RunningEstimate, mean_ci


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


# -- a crash never loses or duplicates a row (issue 15) ---------------------------------------------


class _Killed(BaseException):
    """Stands in for a kill: a BaseException, so nothing in parley may swallow it."""


class _CutOff:
    """A file whose writes die once `budget` characters have been written (over every file opened
    with the same budget), leaving the start of the write that crossed it."""

    def __init__(self, handle: IO[Any], budget: list[int]) -> None:
        self.handle = handle
        self.budget = budget

    def write(self, data: Any) -> int:
        if len(data) > self.budget[0]:
            self.handle.write(data[: self.budget[0]])
            self.budget[0] = 0
            raise _Killed
        self.budget[0] -= len(data)
        return self.handle.write(data)

    def __getattr__(self, name: str) -> Any:
        return getattr(self.handle, name)

    def __enter__(self) -> _CutOff:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.handle.close()  # what was written so far reaches the file, as after a kill


def _pairs(rows: list[Row]) -> Counter[tuple[str, str]]:
    return Counter((row["game"], row["party"]) for row in rows)


@pytest.mark.parametrize(
    ("whole_lines", "extra_characters"),
    [(1, 0), (1, 25), (0, 25), (2, 0), (3, 0), (3, 40), (5, 1)],
    ids=[
        "between-a-games-rows",
        "mid-second-row",
        "mid-first-row",
        "between-games",
        "later-game",
        "later-torn",
        "late",
    ],
)
def test_a_crash_anywhere_in_a_write_neither_loses_nor_repeats_a_row(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, whole_lines: int, extra_characters: int
) -> None:
    games = plan(TournamentSpec(("boulware", "conceder"), ("casino",), repetitions=3))
    reference = ResultStore(tmp_path / "reference")
    run_games(games, reference)
    lines = reference.path.read_text(encoding="utf-8").splitlines(keepends=True)
    budget = sum(len(line) for line in lines[:whole_lines]) + extra_characters
    remaining = [budget]

    store = ResultStore(tmp_path / "crashed")
    real_open = Path.open

    def open_that_dies(path: Path, mode: str = "r", *args: Any, **kwargs: Any) -> Any:
        handle = real_open(path, mode, *args, **kwargs)
        return _CutOff(handle, remaining) if path == store.path and "a" in mode else handle

    with monkeypatch.context() as patch:
        patch.setattr(Path, "open", open_that_dies)
        with pytest.raises(_Killed):
            run_games(games, store)
    assert store.path.stat().st_size == budget  # the crash left exactly this prefix behind

    run_games(games, store)  # the rerun resumes
    stored = store.path.read_text(encoding="utf-8").splitlines()
    rows = [json.loads(line) for line in stored]  # no torn line is left behind either
    assert _pairs(rows) == Counter({pair: 1 for pair in _pairs(reference.rows())})
    key = lambda row: (row["game"], row["party"])  # noqa: E731
    assert sorted(rows, key=key) == sorted(reference.rows(), key=key)


def test_a_game_with_some_of_its_rows_is_not_done(tmp_path: Path) -> None:
    games = plan(TournamentSpec(("boulware", "conceder"), ("casino",), repetitions=2))
    store = ResultStore(tmp_path)
    run_games(games, store)
    lines = store.path.read_text(encoding="utf-8").splitlines(keepends=True)
    first_game = json.loads(lines[0])["game"]
    store.path.write_text("".join(lines[:1] + lines[2:]), encoding="utf-8")  # lose one of its rows
    assert first_game not in store.done()
    assert store.done() == {g.key for g in games} - {first_game}


# -- the summary streams (issue 15) --------------------------------------------------------------


class _WeakRow(dict[str, Any]):
    """A row that can be weakly referenced, to see whether the summary keeps it."""


def test_summary_keeps_no_row_it_has_read() -> None:
    seen: list[weakref.ref[_WeakRow]] = []

    def rows() -> Iterator[Row]:
        for index in range(200):
            assert all(ref() is None for ref in seen[:-1]), "the summary holds rows it has read"
            row = _WeakRow(
                agent="xy"[index % 2],
                utility=float(index),
                normalized_utility=index / 200,
                agreement=index % 3 == 0,
                walked=False,
                rounds=index % 7,
                pareto_distance=math.nan,
            )
            seen.append(weakref.ref(row))
            yield row
            del row

    summaries = summarize(rows())
    assert {s.agent: s.games for s in summaries} == {"x": 100, "y": 100}


finite_or_not = st.one_of(
    st.floats(min_value=-1e6, max_value=1e6), st.sampled_from([math.nan, math.inf, -math.inf])
)


@given(st.lists(finite_or_not, max_size=40))
def test_running_estimate_matches_mean_ci(values: list[float]) -> None:
    running = RunningEstimate()
    for value in values:
        running.add(value)
    expected, got = mean_ci(values), running.estimate()
    assert got.count == expected.count
    if expected.count:
        assert got.mean == pytest.approx(expected.mean, rel=1e-9, abs=1e-6)
    if expected.count > 1:
        assert got.half_width == pytest.approx(expected.half_width, rel=1e-6, abs=1e-6)
    else:
        assert math.isnan(got.half_width)


# -- failed games have their own column (issue 15) -------------------------------------------------


def test_a_game_that_cannot_be_set_up_fails_instead_of_crashing(monkeypatch: pytest.MonkeyPatch) -> None:
    game = plan(TournamentSpec(("boulware", "conceder"), ("casino",)))[0]

    def broken(*args: object, **kwargs: object) -> None:
        raise ValueError("the negotiators could not be built")

    monkeypatch.setattr(tournament_module, "run_negotiation", broken)
    rows = play(game)
    assert [r["party"] for r in rows] == ["A", "B"]
    assert all(r["failed"] for r in rows)
    assert all("the negotiators could not be built" in r["error"] for r in rows)
    assert all(math.isnan(r["utility"]) for r in rows)


def test_a_game_its_scenario_makes_unplayable_is_failed(unplayable_scenario: Path) -> None:
    game = plan(TournamentSpec(("boulware", "conceder"), (str(unplayable_scenario),)))[0]
    rows = play(game)
    assert all(r["failed"] for r in rows)
    assert all("enumerable" in r["error"] for r in rows)
    (first, second) = summarize(rows)
    assert first.failed == first.games == 1 and second.failed == second.games == 1
    assert first.utility.count == 0  # not silently averaged in as its BATNA


def test_played_games_are_not_failed() -> None:
    rows = play(plan(TournamentSpec(("boulware", "conceder"), ("casino",)))[0])
    assert not any(r["failed"] for r in rows)
    assert all(r["error"] == "" for r in rows)


def test_summary_counts_failed_games_apart_from_the_means() -> None:
    base = {
        "normalized_utility": 0.5,
        "agreement": True,
        "walked": False,
        "rounds": 3,
        "pareto_distance": 0.0,
    }
    rows: list[Row] = [
        {**base, "agent": "x", "utility": 10.0, "failed": False},
        {**base, "agent": "x", "utility": 20.0, "failed": False},
        {**base, "agent": "x", "utility": 0.0, "failed": True, "error": "raised ValueError: boom"},
        {**base, "agent": "x", "utility": 0.0, "end": "protocol_violation"},  # a row from before `failed`
    ]
    (summary,) = summarize(rows)
    assert (summary.games, summary.failed) == (4, 2)
    assert summary.utility.mean == 15.0 and summary.utility.count == 2
    assert summary.first_error == "raised ValueError: boom"


def test_two_tournaments_cannot_write_to_one_folder_at_once(tmp_path: Path) -> None:
    games = plan(TournamentSpec(("boulware", "conceder"), ("casino",)))
    store = ResultStore(tmp_path)
    with ResultStore(tmp_path).writing(), pytest.raises(ScenarioError, match="another tournament"):
        run_games(games, store)
    run_games(games, store)  # once the other one is done, this one runs
    assert store.done() == {g.key for g in games}
