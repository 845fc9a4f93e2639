"""AdditiveBonusUtility: a linear-additive utility plus a bonus on a set of outcomes — exact values and
bounds, its additive part, copies that stay frozen, and construction errors."""

from __future__ import annotations

import copy
import dataclasses
import pickle

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from parley.domain import AdditiveBonusUtility, Issue, LinearAdditiveUtility, OutcomeSpace
from parley.errors import ScenarioError


def space() -> OutcomeSpace:
    return OutcomeSpace.of([Issue.options("a", ["low", "mid", "high"]), Issue.integer_range("b", 0, 1)])


def linear(reservation: float = 3.0) -> LinearAdditiveUtility:
    return LinearAdditiveUtility(
        space(), {"a": 2.0, "b": 1.0}, {"a": [0, 1, 3], "b": [5, 0]}, reservation, 0.5
    )


def by_hand() -> AdditiveBonusUtility:
    region = np.zeros(6, dtype=bool)
    region[space().index({"a": "mid", "b": 1})] = True  # worth 2.5 without the bonus
    region[space().index({"a": "high", "b": 0})] = True  # the best outcome, 11.5 without it
    return AdditiveBonusUtility(space(), linear(), 10.0, region, 3.0)


def test_values_by_hand_bonus_included() -> None:
    utility = by_hand()
    assert utility.evaluate({"a": "mid", "b": 1}) == 12.5
    assert utility.evaluate({"a": "high", "b": 0}) == 21.5
    assert utility.evaluate({"a": "low", "b": 0}) == 5.5  # off the region: the sum alone
    assert utility.additive.evaluate({"a": "mid", "b": 1}) == 2.5
    assert utility.earns_bonus({"a": "mid", "b": 1}) and not utility.earns_bonus({"a": "low", "b": 0})
    assert utility.bounds() == (0.5, 21.5)
    assert utility.is_acceptable({"a": "mid", "b": 1}) and not utility.additive.is_acceptable(
        {"a": "mid", "b": 1}
    )


def test_every_evaluation_path_agrees_bit_for_bit() -> None:
    utility = by_hand()
    values = utility.evaluate_space()
    indices = utility.space.enumerate_indices()
    assert np.array_equal(utility.evaluate_indices(indices), values)
    assert [utility.evaluate(outcome) for outcome in utility.space] == values.tolist()
    assert np.array_equal(values, utility.additive.evaluate_space() + 10.0 * utility.region)


@st.composite
def bonus_utilities(draw: st.DrawFn) -> AdditiveBonusUtility:
    shape = draw(st.lists(st.integers(1, 4), min_size=1, max_size=3))
    domain = OutcomeSpace.of([Issue.integer_range(f"i{n}", 0, k - 1) for n, k in enumerate(shape)])
    number = st.integers(-200, 200).map(lambda q: q / 4)  # quarters: exact sums
    values = {
        issue.name: draw(st.lists(number, min_size=k, max_size=k))
        for issue, k in zip(domain.issues, shape, strict=True)
    }
    base = LinearAdditiveUtility(domain, {n: 1.0 for n in domain.names}, values, offset=draw(number))
    region = draw(st.lists(st.booleans(), min_size=domain.size, max_size=domain.size))
    return AdditiveBonusUtility(domain, base, draw(number), np.array(region), draw(number))


@given(bonus_utilities())
def test_bounds_are_exact_and_evaluate_matches_the_space(utility: AdditiveBonusUtility) -> None:
    values = utility.evaluate_space()
    assert utility.bounds() == (values.min(), values.max())
    for index, outcome in enumerate(utility.space):
        assert utility.evaluate(outcome) == values[index]


@given(bonus_utilities(), st.floats(0.1, 10), st.floats(-10, 10))
def test_affine_moves_values_bonus_and_reservation(
    utility: AdditiveBonusUtility, scale: float, shift: float
) -> None:
    moved = utility.affine(scale, shift)
    assert moved.evaluate_space() == pytest.approx(utility.evaluate_space() * scale + shift, abs=1e-6)
    assert moved.reservation_value == pytest.approx(utility.reservation_value * scale + shift, abs=1e-6)
    assert moved.bonus == pytest.approx(utility.bonus * scale)
    assert moved.additive.reservation_value == moved.reservation_value
    normalized = utility.normalized().evaluate_space()
    assert normalized.min() >= -1e-9 and normalized.max() <= 1 + 1e-9


def test_the_additive_part_carries_the_reservation_value_and_discount() -> None:
    utility = AdditiveBonusUtility(space(), linear(reservation=99.0), 1.0, np.zeros(6, dtype=bool), 4.0, 0.9)
    assert (utility.additive.reservation_value, utility.additive.discount) == (4.0, 0.9)
    changed = utility.with_reservation(6.0).with_discount(0.5)
    assert (changed.reservation_value, changed.additive.reservation_value) == (6.0, 6.0)
    assert (changed.discount, changed.additive.discount) == (0.5, 0.5)
    assert (utility.reservation_value, utility.discount) == (4.0, 0.9)


def test_copies_stay_frozen_and_the_callers_region_stays_its_own() -> None:
    region = np.zeros(6, dtype=bool)
    region[0] = True
    utility = AdditiveBonusUtility(space(), linear(), 10.0, region, 3.0)
    region[1] = True  # the caller's array: still writable, not the utility's
    assert not utility.region[1]
    for version in (utility, copy.copy(utility), copy.deepcopy(utility), pickle.loads(pickle.dumps(utility))):
        with pytest.raises(dataclasses.FrozenInstanceError):
            version.bonus = 0.0  # type: ignore[misc]
        with pytest.raises(ValueError, match="read-only"):
            version.region[2] = True
        assert np.array_equal(version.evaluate_space(), utility.evaluate_space())
        assert isinstance(version.additive, LinearAdditiveUtility)


@pytest.mark.parametrize(
    ("bonus", "region", "message"),
    [
        (float("nan"), np.zeros(6, dtype=bool), "finite bonus"),
        (float("inf"), np.zeros(6, dtype=bool), "finite bonus"),
        (10.0, np.zeros(5, dtype=bool), "5 entries for a space of 6 outcomes"),
        (10.0, np.zeros((2, 3), dtype=bool), "6 entries for a space of 6 outcomes"),
        (10.0, np.array([0, 1, 2, 0, 0, 0]), "booleans"),
        (10.0, np.array([0.0, 1.0, 0.0, 0.0, 0.0, 0.5]), "booleans"),
        (10.0, np.array(["yes"] * 6), "booleans"),
    ],
)
def test_bad_bonus_or_region_is_one_scenario_error(bonus: float, region: object, message: str) -> None:
    with pytest.raises(ScenarioError, match=message) as raised:
        AdditiveBonusUtility(space(), linear(), bonus, region, 0.0)  # type: ignore[arg-type]
    assert "\n" not in str(raised.value)


def test_zero_and_one_count_as_a_region_and_a_foreign_base_is_refused() -> None:
    utility = AdditiveBonusUtility(space(), linear(), 2.0, np.array([1, 0, 0, 0, 0, 0]), 0.0)
    assert utility.region.dtype == np.bool_ and utility.region.tolist()[:2] == [True, False]
    other = OutcomeSpace.of([Issue.options("a", ["low", "mid", "high"]), Issue.integer_range("b", 0, 2)])
    with pytest.raises(ScenarioError, match="different outcome space"):
        AdditiveBonusUtility(other, linear(), 2.0, np.zeros(other.size, dtype=bool), 0.0)


def test_a_package_that_is_not_an_outcome_is_a_value_error() -> None:
    utility = by_hand()
    with pytest.raises(ValueError):
        utility.earns_bonus({"a": "huge", "b": 0})
    with pytest.raises(ValueError, match="does not name issue"):
        utility.earns_bonus({"a": "low"})
