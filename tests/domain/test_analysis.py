"""Outcome analysis: Pareto frontier properties, Nash, Kalai–Smorodinsky, max welfare, distances."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

from parley.domain import Issue, OutcomeAnalysis, OutcomeSpace, TableUtility, pareto_frontier
from parley.domain.utility import FloatArray


def dominated_mask(points: FloatArray) -> np.ndarray:
    """Brute force: row i is dominated when some row is ≥ everywhere and > somewhere."""
    mask = np.zeros(points.shape[0], dtype=bool)
    for start in range(0, points.shape[0], 256):
        chunk = points[start : start + 256, None, :]  # (chunk, 1, parties) against (n, parties)
        at_least = np.all(points[None] >= chunk, axis=2)
        better = np.any(points[None] > chunk, axis=2)
        mask[start : start + 256] = np.any(at_least & better, axis=1)
    return mask


@st.composite
def point_sets(draw: st.DrawFn) -> FloatArray:
    parties = draw(st.integers(1, 4))
    rows = draw(st.integers(1, 40))
    # few distinct values, so ties and exact duplicates are common
    values = st.integers(0, 6).map(float) | st.floats(-3, 3, allow_nan=False, allow_subnormal=False)
    return draw(arrays(np.float64, (rows, parties), elements=values))


@given(point_sets())
def test_frontier_is_exactly_the_undominated_points(points: FloatArray) -> None:
    frontier = pareto_frontier(points)
    assert frontier.dtype == np.int64
    assert np.all(np.diff(frontier) > 0), "ascending, without repeats"
    expected = np.flatnonzero(~dominated_mask(points))
    assert frontier.tolist() == expected.tolist()


@given(point_sets())
def test_duplicates_share_frontier_membership(points: FloatArray) -> None:
    doubled = np.concatenate([points, points])
    frontier = set(pareto_frontier(doubled).tolist())
    n = points.shape[0]
    for i in range(n):
        assert (i in frontier) == (i + n in frontier)


@pytest.mark.parametrize("parties", [2, 3])
@pytest.mark.parametrize("seed", [0, 1])
def test_large_point_sets_match_brute_force(parties: int, seed: int) -> None:
    # Large inputs may take a different (prefiltered) path: it must give the same answer.
    rng = np.random.default_rng(seed)
    points = rng.integers(0, 60, size=(5000, parties)).astype(np.float64)
    points[:, 1] = 100 - points[:, 0] - rng.integers(0, 30, size=5000)  # a dense, tied frontier
    points[-50:] = points[:50]  # exact duplicates
    frontier = pareto_frontier(points)
    on = np.zeros(points.shape[0], dtype=bool)
    on[frontier] = True
    # Every point is dominated iff a frontier point dominates it (dominance is transitive).
    candidates = points[frontier][None, :, :]
    dominates = np.all(candidates >= points[:, None, :], axis=2) & np.any(
        candidates > points[:, None, :], axis=2
    )
    assert np.array_equal(dominates.any(axis=1), ~on)


def test_single_party_frontier_is_every_maximum() -> None:
    points = np.array([[1.0], [3.0], [2.0], [3.0]])
    assert pareto_frontier(points).tolist() == [1, 3]


def test_empty_and_malformed_inputs_have_no_frontier() -> None:
    assert pareto_frontier(np.zeros((0, 2))).size == 0
    assert pareto_frontier(np.zeros(3)).size == 0


def analysis_of(points: list[tuple[float, ...]], reservation: tuple[float, ...]) -> OutcomeAnalysis:
    """An analysis whose outcome i has exactly the utilities points[i] (one issue, one option each)."""
    space = OutcomeSpace.of([Issue.options("deal", [f"o{i}" for i in range(len(points))])])
    columns = np.array(points, dtype=np.float64).T
    return OutcomeAnalysis.of(
        [TableUtility(space, column, r) for column, r in zip(columns, reservation, strict=True)]
    )


# outcome:        0         1         2           3           4           5
POINTS = [(1.0, 0.0), (0.0, 1.0), (0.6, 0.6), (0.5, 0.5), (0.6, 0.6), (0.9, 0.2)]


def test_bilateral_solutions_by_hand() -> None:
    analysis = analysis_of(POINTS, (0.0, 0.0))
    assert analysis.frontier.tolist() == [0, 1, 2, 4, 5]
    assert analysis.frontier_points.tolist() == [[1.0, 0.0], [0.0, 1.0], [0.6, 0.6], [0.6, 0.6], [0.9, 0.2]]
    assert analysis.max_welfare == 2  # 1.2, tied with its duplicate 4: the first wins
    assert analysis.nash == 2  # products 0, 0, .36, .36, .18
    assert analysis.kalai == 2  # smallest share of ideal gain: 0, 0, .6, .6, .2
    assert analysis.outcome(5) == {"deal": "o5"}
    assert analysis.utilities_of({"deal": "o3"}).tolist() == [0.5, 0.5]


def test_reservation_values_move_nash_and_kalai() -> None:
    analysis = analysis_of(POINTS, (0.55, 0.0))
    assert analysis.individually_rational.tolist() == [True, False, True, False, True, True]
    # gains over (0.55, 0): o0 (.45, 0) → 0; o2 (.05, .6) → .03; o5 (.35, .2) → .07
    assert analysis.nash == 5
    # ideal gains (.45, .6): shares o2 (.11, 1), o5 (.78, .33), o0 (1, 0) → o5
    assert analysis.kalai == 5
    # normalised welfare over the same rational outcomes: o0 1 + 0, o2 .11 + .6, o5 .78 + .2 → o0
    assert analysis.max_welfare == 0


def test_no_rational_outcome_has_no_nash_or_kalai() -> None:
    analysis = analysis_of(POINTS, (2.0, 2.0))
    assert analysis.nash is None
    assert analysis.kalai is None
    assert analysis.max_welfare is None
    assert not analysis.individually_rational.any()


def test_three_party_solutions_by_hand() -> None:
    points = [
        (1.0, 0.0, 0.0),
        (0.0, 1.0, 0.0),
        (0.0, 0.0, 1.0),
        (0.4, 0.4, 0.4),
        (0.3, 0.3, 0.3),
        (0.5, 0.5, 0.1),
    ]
    analysis = analysis_of(points, (0.0, 0.0, 0.0))
    assert analysis.frontier.tolist() == [0, 1, 2, 3, 5]
    assert analysis.max_welfare == 3  # 1.2 vs 1.1
    assert analysis.nash == 3  # .064 vs .025
    assert analysis.kalai == 3  # smallest share .4 vs .1


def test_distance_to_frontier() -> None:
    analysis = analysis_of(POINTS, (0.0, 0.0))
    for point in analysis.frontier_points:
        assert analysis.distance_to_frontier(point) == 0.0
    assert analysis.distance_to_frontier((0.5, 0.5)) == pytest.approx(np.sqrt(0.02))
    assert analysis.distance_to_frontier([0.0, 0.0]) == pytest.approx(np.sqrt(0.72))  # nearest is (0.6, 0.6)


def test_normalized_distance_uses_each_party_range() -> None:
    space = OutcomeSpace.of([Issue.options("deal", ["a", "b", "c"])])
    first = TableUtility(space, np.array([0.0, 10.0, 5.0]))
    second = TableUtility(space, np.array([1.0, 0.0, 0.0]))
    analysis = OutcomeAnalysis.of([first, second])
    assert analysis.frontier.tolist() == [0, 1]
    # (5, 0) is 5 away from (10, 0) in raw units, but half the first party's range normalised
    assert analysis.distance_to_frontier((5.0, 0.0)) == pytest.approx(5.0)
    assert analysis.distance_to_frontier((5.0, 0.0), normalized=True) == pytest.approx(0.5)


def test_analysis_needs_a_utility() -> None:
    with pytest.raises(ValueError, match="at least one utility"):
        OutcomeAnalysis.of([])


def test_analysis_matches_enumeration(casino: object) -> None:
    from parley.scenarios.model import Scenario

    assert isinstance(casino, Scenario)
    analysis = casino.analysis
    indices = casino.space.enumerate_indices()
    expected = np.column_stack([u.evaluate_indices(indices) for u in casino.utilities()])
    assert np.array_equal(analysis.points, expected)
    assert analysis.reservation.tolist() == [5.0, 5.0]
    nash = analysis.outcome(analysis.nash or 0)
    # alice values food most, bob water: the Nash deal gives alice all food and bob all water
    assert nash["food"] == 3
    assert nash["water"] == 0
