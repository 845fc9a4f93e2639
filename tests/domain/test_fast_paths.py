"""The fast paths added for speed give exactly what the straightforward computations give."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from parley.domain import (
    Issue,
    LinearAdditiveUtility,
    OutcomeAnalysis,
    OutcomeSpace,
    RankedPreferenceUtility,
    TableUtility,
)
from parley.domain.analysis import PREFILTER_MIN_POINTS, _frontier_2d, pareto_frontier
from parley.domain.utility import FloatArray, UtilityFunction


def _space(shape: tuple[int, ...]) -> OutcomeSpace:
    return OutcomeSpace.of([Issue.integer_range(f"issue{i}", 0, n - 1) for i, n in enumerate(shape)])


def _linear(space: OutcomeSpace, seed: int, offset: float = 0.0) -> LinearAdditiveUtility:
    rng = np.random.default_rng(seed)
    return LinearAdditiveUtility(
        space,
        {name: float(w) for name, w in zip(space.names, rng.random(len(space.names)), strict=True)},
        {issue.name: rng.normal(size=issue.cardinality).tolist() for issue in space.issues},
        reservation_value=0.1,
        offset=offset,
    )


def _brute_frontier(points: FloatArray) -> set[int]:
    kept: set[int] = set()
    for i, point in enumerate(points):
        dominated = np.any(np.all(points >= point, axis=1) & np.any(points > point, axis=1))
        if not dominated:
            kept.add(i)
    return kept


shapes = st.lists(st.integers(1, 5), min_size=1, max_size=4).map(tuple)


@given(shapes, st.integers(0, 10_000), st.floats(-3, 3))
def test_linear_evaluate_space_is_bit_identical_to_evaluate_indices(
    shape: tuple[int, ...], seed: int, offset: float
) -> None:
    space = _space(shape)
    utility = _linear(space, seed, offset)
    expected = utility.evaluate_indices(space.enumerate_indices())
    assert np.array_equal(utility.evaluate_space(), expected)


@given(shapes, st.integers(0, 10_000))
def test_linear_evaluate_matches_indices_one_by_one(shape: tuple[int, ...], seed: int) -> None:
    space = _space(shape)
    utility = _linear(space, seed, 0.5)
    everything = utility.evaluate_space()
    for index in range(space.size):
        assert utility.evaluate(space.outcome(index)) == everything[index]


def test_linear_evaluate_still_reports_bad_packages() -> None:
    space = _space((3, 2))
    utility = _linear(space, 1)
    with pytest.raises(ValueError, match="not an option of issue 'issue0'"):
        utility.evaluate({"issue0": 7, "issue1": 0})
    with pytest.raises(KeyError):
        utility.evaluate({"issue0": 1})
    assert utility.evaluate({"issue0": 1.0, "issue1": 0}) == utility.evaluate({"issue0": 1, "issue1": 0})


class _Squares(UtilityFunction):
    """A non-additive utility with only the abstract methods (exercises the generic chunked path)."""

    def __init__(self, space: OutcomeSpace) -> None:
        self.space = space
        self.reservation_value = 0.0

    def evaluate_indices(self, indices: np.ndarray) -> FloatArray:
        return (indices.astype(np.float64) ** 2).sum(axis=1) - indices[:, 0]

    def bounds(self) -> tuple[float, float]:
        values = self.evaluate_space()
        return float(values.min()), float(values.max())

    def affine(self, scale: float, shift: float) -> _Squares:
        raise NotImplementedError


def test_generic_evaluate_space_sweeps_in_chunks_without_caching_the_index_array() -> None:
    space = _space((7, 11, 13, 17))
    utility = _Squares(space)
    values = utility.evaluate_space()
    assert "_all_indices" not in space.__dict__  # the (n, k) array was never built
    assert np.array_equal(values, utility.evaluate_indices(space.enumerate_indices()))


def test_table_and_ranked_evaluate_space() -> None:
    space = _space((3, 4))
    table = TableUtility(space, np.arange(12, dtype=float) * 0.5)
    assert np.array_equal(table.evaluate_space(), table.evaluate_indices(space.enumerate_indices()))
    table.evaluate_space()[0] = 99.0  # a copy: the utility's own table is untouched
    assert table.table[0] == 0.0
    ranked = RankedPreferenceUtility(space, {"issue0": [2, 0], "issue1": [3]}, {"issue1": [0]})
    assert np.array_equal(ranked.evaluate_space(), ranked.evaluate_indices(space.enumerate_indices()))


def test_evaluate_space_refuses_spaces_beyond_the_enumeration_limit() -> None:
    space = _space((1000, 1000, 1000))
    with pytest.raises(ValueError, match="more than the enumeration limit"):
        _linear(space, 0).evaluate_space()


@given(shapes, st.data())
def test_indices_at_index_and_outcome_agree_with_numpy(shape: tuple[int, ...], data: st.DataObject) -> None:
    space = _space(shape)
    flat = np.array(data.draw(st.lists(st.integers(0, space.size - 1), min_size=1, max_size=20)))
    rows = space.indices_at(flat)
    assert rows.dtype == np.int64
    assert np.array_equal(rows, space.enumerate_indices()[flat])
    for index in flat.tolist():
        outcome = space.outcome(index)
        assert space.index(outcome) == index == int(np.ravel_multi_index(space.to_indices(outcome), shape))


def test_indices_at_and_outcome_reject_indices_outside_the_space() -> None:
    space = _space((2, 3))
    with pytest.raises(IndexError, match=r"0\.\.5"):
        space.indices_at(np.array([6]))
    with pytest.raises(IndexError, match=r"outside 0\.\.5"):
        space.outcome(-1)
    with pytest.raises(TypeError):
        space.outcome(1.5)  # type: ignore[arg-type]


def test_index_chunks_cover_the_space_in_order() -> None:
    space = _space((5, 6, 7))
    chunks = list(space.index_chunks(chunk_size=17))
    assert all(chunk.shape[0] == 17 for chunk in chunks[:-1])
    assert np.array_equal(np.concatenate(chunks), space.enumerate_indices())
    again = list(space.index_chunks(chunk_size=17))  # now served from the cached enumeration
    assert np.array_equal(np.concatenate(again), space.enumerate_indices())


def test_validate_reports_names_before_values() -> None:
    space = _space((2, 2))
    with pytest.raises(ValueError, match=r"missing \['issue1'\], unknown \['other'\]"):
        space.validate({"issue0": 9, "other": 1})
    with pytest.raises(ValueError, match="not an option"):
        space.validate({"issue0": 9, "issue1": 0})
    with pytest.raises(ValueError, match=r"missing \['issue0', 'issue1'\]"):
        space.validate([])  # type: ignore[arg-type]


point_sets = (
    st.integers(0, 2**32 - 1)
    .map(np.random.default_rng)
    .flatmap(
        lambda rng: st.sampled_from(["ties", "continuous", "line", "coarse-first"]).map(
            lambda kind: (rng, kind)
        )
    )
)


def _points(rng: np.random.Generator, kind: str, count: int) -> FloatArray:
    if kind == "ties":
        return rng.integers(0, 12, size=(count, 2)).astype(np.float64)
    if kind == "continuous":
        return rng.random((count, 2))
    if kind == "line":
        first = rng.random(count)
        return np.column_stack([first, 1.0 - first])
    return np.column_stack([rng.integers(0, 3, count).astype(np.float64), rng.random(count)])


@given(point_sets, st.integers(PREFILTER_MIN_POINTS, PREFILTER_MIN_POINTS + 3000))
def test_prefiltered_frontier_equals_the_plain_sort_based_frontier(
    setup: tuple[np.random.Generator, str], count: int
) -> None:
    rng, kind = setup
    points = _points(rng, kind, count)
    assert np.array_equal(pareto_frontier(points), _frontier_2d(points[:, 0], points[:, 1]))


@given(point_sets, st.integers(1, 300))
def test_frontier_equals_brute_force_on_small_sets(
    setup: tuple[np.random.Generator, str], count: int
) -> None:
    rng, kind = setup
    points = _points(rng, kind, count)
    assert set(pareto_frontier(points).tolist()) == _brute_frontier(points)


def test_prefilter_is_exact_on_a_large_space_against_brute_force_on_survivors() -> None:
    space = _space((10, 10, 10, 10, 6))
    analysis = OutcomeAnalysis.of([_linear(space, 3), _linear(space, 4)])
    frontier = analysis.frontier
    assert frontier.size > 0
    points = analysis.points
    plain = _frontier_2d(points[:, 0], points[:, 1])
    assert np.array_equal(frontier, plain)


def test_analysis_points_match_per_outcome_evaluation() -> None:
    space = _space((4, 3, 5))
    utilities = [_linear(space, 7), _linear(space, 8, 1.5)]
    analysis = OutcomeAnalysis.of(utilities)
    for index in range(space.size):
        outcome = space.outcome(index)
        assert analysis.points[index].tolist() == [u.evaluate(outcome) for u in utilities]
