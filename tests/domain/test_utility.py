"""Utility functions: hand-computed values, exact bounds, normalisation and construction errors."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from parley.domain import (
    Issue,
    LinearAdditiveUtility,
    OutcomeSpace,
    RankedPreferenceUtility,
    TableUtility,
    UtilityFunction,
)
from parley.errors import ScenarioError


def two_issue_space() -> OutcomeSpace:
    return OutcomeSpace.of([Issue.options("a", ["low", "mid", "high"]), Issue.options("b", ["yes", "no"])])


def test_linear_additive_by_hand() -> None:
    space = two_issue_space()
    utility = LinearAdditiveUtility(
        space, {"a": 2.0, "b": 1.0}, {"a": [0, 1, 3], "b": [5, 0]}, 4.0, offset=1.0
    )
    assert utility.evaluate({"a": "high", "b": "yes"}) == 12.0
    assert utility.evaluate({"a": "mid", "b": "no"}) == 3.0
    assert utility.bounds() == (1.0, 12.0)
    assert utility.evaluate_space().tolist() == [6.0, 1.0, 8.0, 3.0, 12.0, 7.0]
    assert [t.tolist() for t in utility.weighted_tables] == [[0.0, 2.0, 6.0], [5.0, 0.0]]
    assert utility.is_acceptable({"a": "mid", "b": "yes"})
    assert not utility.is_acceptable({"a": "mid", "b": "no"})


def test_missing_issues_weigh_nothing() -> None:
    space = two_issue_space()
    utility = LinearAdditiveUtility(space, {"a": 1.0}, {"a": [0, 1, 2]})
    assert utility.evaluate({"a": "high", "b": "no"}) == 2.0
    assert utility.evaluate({"a": "high", "b": "yes"}) == 2.0


def test_from_tables_uses_tables_as_weighted() -> None:
    utility = LinearAdditiveUtility.from_tables(two_issue_space(), {"a": [0, 1, 2], "b": [3, 0]}, 1.5)
    assert utility.evaluate({"a": "high", "b": "yes"}) == 5.0
    assert utility.reservation_value == 1.5


def test_linear_additive_errors() -> None:
    space = two_issue_space()
    with pytest.raises(ScenarioError, match=r"issues that do not exist: \['c'\]"):
        LinearAdditiveUtility(space, {"c": 1.0}, {})
    with pytest.raises(ScenarioError, match=r"issues that do not exist: \['c'\]"):
        LinearAdditiveUtility(space, {}, {"c": [1.0]})
    with pytest.raises(ScenarioError, match="issue 'a' has 3 options but 2 values"):
        LinearAdditiveUtility(space, {"a": 1.0}, {"a": [0, 1]})


def test_evaluate_rejects_a_foreign_package() -> None:
    utility = LinearAdditiveUtility(two_issue_space(), {"a": 1.0}, {"a": [0, 1, 2]})
    with pytest.raises(ValueError, match="not an option"):
        utility.evaluate({"a": "huge", "b": "yes"})
    with pytest.raises((ValueError, KeyError)):
        utility.evaluate({"a": "low"})


def test_table_utility_by_hand() -> None:
    space = two_issue_space()
    utility = TableUtility.from_mapping(space, {("high", "no"): 9.0, ("low", "yes"): -1.0}, default=2.0)
    assert utility.evaluate({"a": "high", "b": "no"}) == 9.0
    assert utility.evaluate({"a": "low", "b": "yes"}) == -1.0
    assert utility.evaluate({"a": "mid", "b": "yes"}) == 2.0
    assert utility.bounds() == (-1.0, 9.0)
    rows = np.array([[2, 1], [0, 0], [1, 1]], dtype=np.int64)
    assert utility.evaluate_indices(rows).tolist() == [9.0, -1.0, 2.0]


def test_table_utility_size_mismatch() -> None:
    with pytest.raises(ScenarioError, match="utility table has 5 entries for a space of 6 outcomes"):
        TableUtility(two_issue_space(), np.zeros(5))


def test_ranked_preferences_by_hand() -> None:
    space = OutcomeSpace.of(
        [Issue.options("site", ["n", "e", "s", "w", "c", "x"]), Issue.options("term", ["short", "long"])]
    )
    utility = RankedPreferenceUtility(
        space,
        rankings={"site": ["e", "n", "s", "w", "c"], "term": ["long"]},
        unacceptable={"site": ["x"], "term": ["short"]},
        weights={"site": 2.0},
    )
    table = utility.linear.weighted_tables
    # ranks 1..3 score 1, .6, .3; further ranks halve the last score; unranked 0. An unacceptable
    # option is worth (BATNA − best total) / weight − 1 here: best total = 2·1 + 1·1 = 3.
    assert table[0].tolist() == pytest.approx([1.2, 2.0, 0.6, 0.3, 0.15, 2 * (-3 / 2 - 1)])
    assert table[1].tolist() == [-4.0, 1.0]
    assert utility.evaluate({"site": "e", "term": "long"}) == pytest.approx(3.0)
    assert utility.rank_of("site", "n") == 1
    assert utility.rank_of("term", "short") is None
    assert utility.is_unacceptable("site", "x")
    assert not utility.is_unacceptable("site", "n")
    assert not utility.is_acceptable({"site": "e", "term": "short"})
    assert utility.bounds() == pytest.approx((-9.0, 3.0))


def test_a_strongly_negative_unacceptable_score_is_kept() -> None:
    space = two_issue_space()
    utility = RankedPreferenceUtility(
        space, rankings={"a": ["high"]}, unacceptable={"b": ["no"]}, unacceptable_score=-50
    )
    assert utility.linear.weighted_tables[1].tolist() == [0.0, -50.0]


@given(st.data())
def test_any_unacceptable_option_puts_a_package_below_the_batna(data: st.DataObject) -> None:
    shape = data.draw(st.lists(st.integers(2, 4), min_size=1, max_size=3))
    space = OutcomeSpace.of([Issue.integer_range(f"i{n}", 0, k - 1) for n, k in enumerate(shape)])
    rankings = {issue.name: data.draw(st.permutations(issue.values))[:-1] for issue in space.issues}
    unacceptable = {issue.name: [issue.values[-1]] for issue in space.issues if data.draw(st.booleans())}
    weights = {name: data.draw(st.floats(0.01, 10)) for name in space.names}
    reservation = data.draw(st.floats(-2, 2))
    utility = RankedPreferenceUtility(
        space, rankings=rankings, unacceptable=unacceptable, weights=weights, reservation_value=reservation
    )
    for outcome in space:
        if any(utility.is_unacceptable(name, value) for name, value in outcome.items()):
            assert not utility.is_acceptable(outcome), outcome


def test_ranked_preferences_name_the_bad_field() -> None:
    space = two_issue_space()
    with pytest.raises(ScenarioError, match=r"preferences\.a: 'huge' is not an option"):
        RankedPreferenceUtility(space, rankings={"a": ["huge"]})
    with pytest.raises(
        ScenarioError, match=r"preferences\.z: preferences name issues that do not exist: \['z'\]"
    ):
        RankedPreferenceUtility(space, rankings={"z": ["x"]})
    with pytest.raises(ScenarioError, match=r"preferences\.q"):
        RankedPreferenceUtility(space, rankings={}, weights={"q": 1.0})


@st.composite
def utilities(draw: st.DrawFn) -> UtilityFunction:
    shape = draw(st.lists(st.integers(1, 4), min_size=1, max_size=3))
    space = OutcomeSpace.of([Issue.integer_range(f"i{n}", 0, k - 1) for n, k in enumerate(shape)])
    number = st.integers(-200, 200).map(lambda q: q / 4)  # quarters: exact, no subnormal noise
    kind = draw(st.sampled_from(["linear", "table", "ranked"]))
    if kind == "linear":
        weights = {name: draw(number) for name in space.names}
        values = {
            issue.name: draw(st.lists(number, min_size=k, max_size=k))
            for issue, k in zip(space.issues, shape, strict=True)
        }
        return LinearAdditiveUtility(space, weights, values, draw(number), offset=draw(number))
    if kind == "table":
        return TableUtility(space, np.array(draw(st.lists(number, min_size=space.size, max_size=space.size))))
    rankings = {issue.name: draw(st.permutations(issue.values)) for issue in space.issues}
    weights = {name: draw(st.integers(0, 20).map(lambda q: q / 4)) for name in space.names}
    return RankedPreferenceUtility(space, rankings=rankings, weights=weights)


@given(utilities())
def test_bounds_are_exact(utility: UtilityFunction) -> None:
    values = utility.evaluate_space()
    low, high = utility.bounds()
    assert low == pytest.approx(values.min(), abs=1e-9)
    assert high == pytest.approx(values.max(), abs=1e-9)


@given(utilities())
def test_evaluate_matches_evaluate_indices(utility: UtilityFunction) -> None:
    values = utility.evaluate_space()
    for index, outcome in enumerate(utility.space):
        assert utility.evaluate(outcome) == pytest.approx(values[index], abs=1e-9)


@given(utilities())
def test_normalized_spans_zero_to_one(utility: UtilityFunction) -> None:
    normalized = utility.normalized()
    values = normalized.evaluate_space()
    low, high = utility.bounds()
    assert np.all(values >= -1e-9)
    assert np.all(values <= 1 + 1e-9)
    if high - low > 1e-9:
        assert values.min() == pytest.approx(0.0, abs=1e-9)
        assert values.max() == pytest.approx(1.0, abs=1e-9)
        expected = (utility.reservation_value - low) / (high - low)
        assert normalized.reservation_value == pytest.approx(expected, abs=1e-9)
        # normalising keeps the order of outcomes (up to rounding)
        order = np.argsort(utility.evaluate_space(), kind="stable")
        assert np.all(np.diff(values[order]) >= -1e-9)
    else:
        assert np.all(values == 1.0)


@given(utilities(), st.floats(0.1, 10), st.floats(-10, 10))
def test_affine_transforms_values_and_reservation(
    utility: UtilityFunction, scale: float, shift: float
) -> None:
    moved = utility.affine(scale, shift)
    assert moved.evaluate_space() == pytest.approx(utility.evaluate_space() * scale + shift, abs=1e-6)
    assert moved.reservation_value == pytest.approx(utility.reservation_value * scale + shift, abs=1e-6)
    assert moved.bounds() == pytest.approx(tuple(b * scale + shift for b in utility.bounds()), abs=1e-6)


def test_with_reservation_copies() -> None:
    utility = LinearAdditiveUtility(two_issue_space(), {"a": 1.0}, {"a": [0, 1, 2]}, 1.0)
    changed = utility.with_reservation(1.5)
    assert changed.reservation_value == 1.5
    assert utility.reservation_value == 1.0
    assert changed.evaluate_space().tolist() == utility.evaluate_space().tolist()


@pytest.mark.parametrize(
    ("weights", "values"),
    [
        ({"a": 1e308, "b": 1.0}, {"a": [0, 1, 3], "b": [5, 0]}),  # weight x value overflows
        ({"a": 1e308, "b": 1e308}, {"a": [0, 1, 0.9], "b": [0.9, 0]}),  # each finite, the sum not
        ({"a": float("nan"), "b": 1.0}, {"a": [0, 1, 3], "b": [5, 0]}),
    ],
)
def test_weights_that_make_utilities_non_finite_are_refused(
    weights: dict[str, float], values: dict[str, list[float]]
) -> None:
    with pytest.raises(ScenarioError, match="finite"):
        LinearAdditiveUtility(two_issue_space(), weights, values)
