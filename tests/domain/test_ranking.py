"""RankedOutcomes: the memory-lean ranking of a space by one utility."""

from __future__ import annotations

import gc
import weakref

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from parley.domain import Issue, LinearAdditiveUtility, OutcomeSpace, RankedOutcomes, TableUtility


def _space(shape: tuple[int, ...]) -> OutcomeSpace:
    return OutcomeSpace.of([Issue.integer_range(f"issue{i}", 0, n - 1) for i, n in enumerate(shape)])


def _utility(space: OutcomeSpace, seed: int, levels: int = 0) -> TableUtility:
    rng = np.random.default_rng(seed)
    values = rng.integers(0, levels, space.size).astype(float) if levels else rng.random(space.size)
    return TableUtility(space, values, reservation_value=0.3)


shapes = st.lists(st.integers(1, 5), min_size=1, max_size=4).map(tuple)


@given(shapes, st.integers(0, 1000), st.sampled_from([0, 3]))
def test_ranks_are_best_first_with_ties_in_index_order(
    shape: tuple[int, ...], seed: int, levels: int
) -> None:
    space = _space(shape)
    utility = _utility(space, seed, levels)
    ranking = RankedOutcomes.build(utility)
    values = utility.evaluate_space()
    expected = sorted(range(space.size), key=lambda i: (-values[i], i))
    assert ranking.order.tolist() == expected
    assert ranking.utilities.tolist() == [values[i] for i in expected]
    assert (ranking.best, ranking.worst, ranking.size) == (values.max(), values.min(), space.size)
    for rank in range(space.size):
        assert ranking.outcome(rank) == space.outcome(expected[rank])
        assert ranking.utility_at(rank) == utility.evaluate(ranking.outcome(rank))
        assert ranking.index_at(rank) == expected[rank]


@given(shapes, st.integers(0, 1000), st.integers(-1, 4), st.integers(-1, 4))
def test_ranks_between_and_count_at_least_match_a_scan(
    shape: tuple[int, ...], seed: int, first: int, second: int
) -> None:
    low, high = float(min(first, second)), float(max(first, second))  # on the utility levels: ties
    ranking = RankedOutcomes.build(_utility(_space(shape), seed, 4))
    values = ranking.utilities.tolist()
    assert list(ranking.ranks_between(low, high)) == [r for r, v in enumerate(values) if low <= v <= high]
    assert ranking.count_at_least(low) == sum(1 for v in values if v >= low)
    assert list(ranking.ranks_between(low + 0.5, low + 0.6)) == []


def test_indices_rows_and_option_means_need_no_full_enumeration() -> None:
    space = _space((4, 5, 6))
    utility = LinearAdditiveUtility(
        space,
        {"issue0": 1.0, "issue1": 2.0, "issue2": 0.5},
        {"issue0": [0, 1, 2, 3], "issue1": [5, 4, 3, 2, 1]},
    )
    ranking = RankedOutcomes.build(utility)
    rows = ranking.indices(3, 9)
    assert "_all_indices" not in space.__dict__
    assert np.array_equal(rows, space.enumerate_indices()[ranking.order[3:9]])
    means = ranking.option_means()
    everything = space.enumerate_indices()
    values = utility.evaluate_space()
    for issue, table in enumerate(means):
        expected = [values[everything[:, issue] == option].mean() for option in range(space.shape[issue])]
        assert np.allclose(table, expected)


def test_single_issue_option_means_are_the_utilities() -> None:
    space = _space((5,))
    utility = TableUtility(space, np.array([3.0, 1.0, 4.0, 1.0, 5.0]))
    (means,) = RankedOutcomes.build(utility).option_means()
    assert means.tolist() == [3.0, 1.0, 4.0, 1.0, 5.0]


def test_of_shares_one_ranking_per_utility_object_and_forgets_it_with_the_utility() -> None:
    space = _space((3, 3))
    utility = _utility(space, 1)
    first = RankedOutcomes.of(utility)
    assert RankedOutcomes.of(utility) is first
    assert RankedOutcomes.of(_utility(space, 1)) is not first
    with pytest.raises(ValueError, match="read-only"):
        first.order[0] = 5
    probe = weakref.ref(first)
    del utility, first
    gc.collect()
    assert probe() is None  # the cache does not keep a ranking alive once its utility is gone


def test_build_refuses_spaces_beyond_the_enumeration_limit() -> None:
    space = _space((1000, 1000, 1000))
    utility = LinearAdditiveUtility(space, {"issue0": 1.0}, {"issue0": [0.0] * 1000})
    with pytest.raises(ValueError, match="more than the enumeration limit"):
        RankedOutcomes.build(utility)


@given(
    st.integers(0, 5000),
    st.sampled_from([0, 1, 2, 3, 50, 10**6]),
    st.integers(0, 1000),
    st.booleans(),
)
def test_descending_order_is_the_stable_argsort_of_the_negated_values(
    size: int, levels: int, seed: int, signed_zeros: bool
) -> None:
    from parley.domain.ranking import descending_order

    rng = np.random.default_rng(seed)
    values = rng.integers(0, levels, size).astype(float) if levels else rng.random(size)
    if signed_zeros and size:
        values[rng.integers(0, 2, size).astype(bool)] *= -1.0  # -0.0 ties 0.0
    order = descending_order(values)
    assert order.dtype == np.int64
    assert np.array_equal(order, np.argsort(-values, kind="stable"))


def test_descending_order_keeps_numpy_s_place_for_nan_and_infinities() -> None:
    from parley.domain.ranking import descending_order

    values = np.tile([1.0, np.inf, -np.inf, 0.0, -0.0, 2.0], 400)
    assert np.array_equal(descending_order(values), np.argsort(-values, kind="stable"))
    values[7] = np.nan
    assert np.array_equal(descending_order(values), np.argsort(-values, kind="stable"))
