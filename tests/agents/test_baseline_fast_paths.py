"""The baselines' per-move caches give exactly what the straightforward computations give."""

from __future__ import annotations

import struct
from collections.abc import Callable
from unittest import mock

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from parley.agents.baselines import TimeBasedNegotiator
from parley.agents.baselines import ranked as ranking
from parley.agents.baselines.concession import band_near
from parley.domain import (
    Issue,
    LinearAdditiveUtility,
    OutcomeSpace,
    RankedPreferenceUtility,
    TableUtility,
    UtilityFunction,
    Value,
)
from parley.protocol import PartyView, Phase, Record, Rules


def _bits(value: float) -> bytes:
    return struct.pack("<d", value)


def _space(shape: tuple[int, ...]) -> OutcomeSpace:
    return OutcomeSpace.of([Issue.integer_range(f"i{i}", 0, n - 1) for i, n in enumerate(shape)])


def _linear(space: OutcomeSpace, seed: int) -> UtilityFunction:
    rng = np.random.default_rng(seed)
    weights = {name: float(w) for name, w in zip(space.names, rng.random(len(space.names)), strict=True)}
    values = {issue.name: rng.normal(size=issue.cardinality).tolist() for issue in space.issues}
    return LinearAdditiveUtility(space, weights, values, reservation_value=0.1, offset=float(rng.normal()))


def _table(space: OutcomeSpace, seed: int) -> UtilityFunction:
    return TableUtility(space, np.random.default_rng(seed).random(space.size) * 7.0, reservation_value=0.5)


def _ranked_preferences(space: OutcomeSpace, seed: int) -> UtilityFunction:
    rng = np.random.default_rng(seed)
    rankings = {
        issue.name: [issue.values[int(i)] for i in rng.permutation(issue.cardinality)]
        for issue in space.issues
    }
    return RankedPreferenceUtility(space, rankings, reservation_value=0.2)


UTILITIES: tuple[Callable[[OutcomeSpace, int], UtilityFunction], ...] = (_linear, _table, _ranked_preferences)
shapes = st.lists(st.integers(1, 5), min_size=1, max_size=5).map(tuple)


@given(shapes, st.integers(0, 10_000), st.sampled_from(UTILITIES), st.integers(1, 12), st.booleans())
def test_assessing_a_package_equals_evaluating_and_locating_it(
    shape: tuple[int, ...],
    seed: int,
    kind: Callable[[OutcomeSpace, int], UtilityFunction],
    packages: int,
    as_floats: bool,
) -> None:
    space = _space(shape)
    utility = kind(space, seed)
    ranked = ranking.RankedSpace(space, utility)
    offsets = ranked.offsets.tolist()
    rng = np.random.default_rng(seed)
    with mock.patch.object(ranking, "KNOWN_PACKAGES", 3):  # small, so the memo is also cleared
        for _ in range(packages):
            outcome = space.outcome(int(rng.integers(space.size)))
            package: dict[str, Value] = (
                {name: float(value) for name, value in outcome.items()} if as_floats else outcome
            )
            slots = tuple(
                offset + issue.index_of(package[issue.name])
                for issue, offset in zip(space.issues, offsets, strict=True)
            )
            for _ in range(2):  # a first sight, then (usually) a remembered one
                worth, found = ranked.assess(package)
                assert _bits(worth) == _bits(utility.evaluate(package))
                assert found == slots


def test_assessing_a_package_that_is_no_outcome_fails_like_evaluating_it() -> None:
    space = _space((3, 2))
    ranked = ranking.RankedSpace(space, _linear(space, 0))
    with pytest.raises(ValueError, match="not an option"):
        ranked.assess({"i0": 7, "i1": 0})
    with pytest.raises(KeyError):
        ranked.assess({"i0": 1})


def test_packages_are_fresh_copies_of_the_outcomes_in_rank_order() -> None:
    space = _space((3, 4, 2))
    ranked = ranking.RankedSpace(space, _linear(space, 2))
    expected = [space.outcome(int(index)) for index in ranked.order]
    assert [ranked.package(rank) for rank in range(space.size)] == expected
    ranked.package(5)["i0"] = 99  # a caller may change its copy ...
    assert ranked.package(5) == expected[5]  # ... never the remembered package


def _view(space: OutcomeSpace, utility: UtilityFunction, round_number: int, max_rounds: int) -> PartyView:
    return PartyView(
        "alice",
        ("alice", "bob"),
        round_number,
        Phase.PROPOSE,
        space,
        utility,
        Rules(max_rounds=max_rounds),
        None,
        Record([]),
        {},
    )


@given(
    st.integers(0, 10_000),
    st.floats(0.05, 5.0),
    st.floats(0.0, 1.0),
    st.floats(0.0, 1.0),
    st.integers(1, 60),
    st.data(),
)
def test_time_based_plans_equal_the_concession_curve(
    seed: int, exponent: float, anchor: float, band: float, max_rounds: int, data: st.DataObject
) -> None:
    space = _space((4, 3, 4))
    utility = _linear(space, seed)
    negotiator = TimeBasedNegotiator("alice", seed, exponent=exponent, anchor=anchor, band=band)
    negotiator.act(_view(space, utility, 1, max_rounds))
    ranked = negotiator.ranked
    for _ in range(3):
        round_number = data.draw(st.integers(1, max_rounds + 2))
        view = _view(space, utility, round_number, max_rounds)
        time = 1.0 if max_rounds <= 1 else min(1.0, (round_number - 1) / (max_rounds - 1))
        start = ranked.at_share(anchor)
        expected = ranked.floor + (start - ranked.floor) * (1.0 - time ** (1.0 / exponent))
        for _ in range(2):  # computed, then remembered
            assert _bits(negotiator.target(view)) == _bits(expected)
            assert negotiator._plan(view)[1] == band_near(ranked, expected, band)  # pyright: ignore[reportPrivateUsage]


def test_time_based_negotiators_share_plans_only_with_the_same_curve_and_ranking() -> None:
    space = _space((4, 4, 4))
    utility = _linear(space, 1)
    view = _view(space, utility, 3, 20)
    first, second = (
        TimeBasedNegotiator("alice", 0, exponent=0.2),
        TimeBasedNegotiator("alice", 9, exponent=0.2),
    )
    other_curve = TimeBasedNegotiator("alice", 0, exponent=2.0)
    other_utility = TimeBasedNegotiator("alice", 0, exponent=0.2)
    for negotiator in (first, second, other_curve):
        negotiator.act(view)
    other_utility.act(_view(space, _linear(space, 1), 3, 20))
    plans = first._plans  # pyright: ignore[reportPrivateUsage]
    assert second._plans is plans  # pyright: ignore[reportPrivateUsage]
    assert other_curve._plans is not plans  # pyright: ignore[reportPrivateUsage]
    assert other_utility._plans is not plans  # pyright: ignore[reportPrivateUsage]


def test_the_concession_curve_is_read_only() -> None:
    negotiator = TimeBasedNegotiator("alice", 0, exponent=0.2, anchor=0.9, band=0.1)
    assert (negotiator.exponent, negotiator.anchor, negotiator.band) == (0.2, 0.9, 0.1)
    with pytest.raises(AttributeError):
        negotiator.exponent = 2.0  # type: ignore[misc]


@pytest.mark.parametrize("seed", [-1, 1.5, "3"])
def test_a_bad_seed_fails_when_the_negotiator_is_built(seed: object) -> None:
    with pytest.raises((TypeError, ValueError)):
        TimeBasedNegotiator("alice", seed)  # type: ignore[arg-type]
