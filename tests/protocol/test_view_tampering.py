"""A negotiator cannot change its own utility or BATNA through its view (issue 15).

Before views handed out read-only utilities, a negotiator could lower its BATNA to let a deal worth
nothing through with no violation recorded, the scenario object kept the change, and the next game
in the same process saw it. Every attempt now raises inside `act` (a protocol violation by the
tamperer), and the result, the scenario object and later games are untouched.
"""

from __future__ import annotations

import copy
import dataclasses
import pickle
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

from parley.domain import Issue, LinearAdditiveUtility, OutcomeSpace
from parley.domain.utility import RankedPreferenceUtility, TableUtility, UtilityFunction
from parley.protocol import Accept, Action, PartyView, Propose, Session
from parley.protocol.session import PartySetup
from parley.scenarios.model import Scenario
from parley.testing import ScriptedNegotiator
from parley.testing.scenarios import casino_like_scenario, table_scenario

WORTHLESS = {"food": 0, "water": 0, "firewood": 0}  # worth 0 to alice, whose BATNA is 5
GREEDY = {"food": 3, "water": 3, "firewood": 3}


def _lower_batna(view: PartyView) -> None:
    view.utility.reservation_value = -100.0  # type: ignore[misc]


def _edit_values(view: PartyView) -> None:
    values: Any = view.utility.values  # type: ignore[attr-defined]
    values["food"][0] = 100.0


def _edit_weights(view: PartyView) -> None:
    weights: Any = view.utility.weights  # type: ignore[attr-defined]
    weights["food"] = 100.0


def _edit_tables(view: PartyView) -> None:
    tables: Any = view.utility.weighted_tables  # type: ignore[attr-defined]
    tables[0][0] = 100.0


def _edit_space(view: PartyView) -> None:
    view.space.enumerate_indices()[0, 0] = 3


TAMPERING: dict[str, Callable[[PartyView], None]] = {
    "lower the BATNA": _lower_batna,
    "edit a value list": _edit_values,
    "edit a weight": _edit_weights,
    "edit a weighted table": _edit_tables,
    "edit the space's index array": _edit_space,
}


class Tamperer:
    """Tries to change its view, then accepts whatever is on the table."""

    def __init__(self, tamper: Callable[[PartyView], None]) -> None:
        self._tamper = tamper

    def act(self, view: PartyView) -> Action:
        if view.offer is None:
            return Propose(dict(GREEDY))
        self._tamper(view)
        return Accept()


class Honest:
    """Accepts only what is worth its BATNA; notes (BATNA, worth of the offer) at each answer."""

    def __init__(self) -> None:
        self.seen: list[tuple[float, float]] = []

    def act(self, view: PartyView) -> Action:
        if view.offer is None:
            return Propose(dict(GREEDY))
        worth = view.utility.evaluate(view.offer)
        self.seen.append((view.reservation_value, worth))
        return Accept() if worth >= view.reservation_value else Propose(dict(GREEDY))


def _play(scenario: Scenario, alice: Any) -> Any:
    bob = ScriptedNegotiator([Propose(WORTHLESS)] * 5)
    return Session(scenario.space, scenario.setups(), {"alice": alice, "bob": bob}, scenario.rules).run()


def _fingerprint(scenario: Scenario) -> list[Any]:
    return [
        (p.utility.reservation_value, p.utility.evaluate_space().tolist(), p.utility.bounds())
        for p in scenario.parties
    ]


@pytest.mark.parametrize("tamper", list(TAMPERING.values()), ids=list(TAMPERING))
def test_tampering_with_the_view_is_a_protocol_violation_and_changes_nothing(
    tamper: Callable[[PartyView], None],
) -> None:
    scenario = casino_like_scenario()
    before = _fingerprint(scenario)
    indices_before = scenario.space.enumerate_indices().copy()
    result = _play(scenario, Tamperer(tamper))
    assert result.agreement is None, "a deal worth 0 < BATNA 5 passed"
    assert result.no_deal is not None and result.no_deal.reason == "protocol_violation"
    assert result.no_deal.walker == "alice"
    assert _fingerprint(scenario) == before, "the scenario object kept the change"
    assert np.array_equal(scenario.space.enumerate_indices(), indices_before)
    # A later game in the same process sees the original utilities: an honest alice refuses.
    honest = Honest()
    assert _play(scenario, honest).agreement is None
    assert honest.seen == [(5.0, 0.0)] * len(honest.seen) and honest.seen


class MutableUtility(UtilityFunction):
    """A user-written utility that does nothing to protect itself."""

    def __init__(self, inner: LinearAdditiveUtility) -> None:
        self.space = inner.space
        self.reservation_value = inner.reservation_value
        self._inner = inner

    def evaluate_indices(self, indices: np.ndarray) -> np.ndarray:
        return self._inner.evaluate_indices(indices)

    def bounds(self) -> tuple[float, float]:
        return self._inner.bounds()

    def affine(self, scale: float, shift: float) -> MutableUtility:
        return MutableUtility(self._inner.affine(scale, shift))


def test_the_engine_judges_against_the_batna_the_session_started_with() -> None:
    scenario = casino_like_scenario()
    alice = scenario.party("alice").utility
    assert isinstance(alice, LinearAdditiveUtility)
    setups = [PartySetup("alice", MutableUtility(alice)), scenario.setups()[1]]
    negotiators = {
        "alice": Tamperer(_lower_batna),
        "bob": ScriptedNegotiator([Propose(WORTHLESS)] * 5),
    }
    result = Session(scenario.space, setups, negotiators, scenario.rules).run()
    assert result.agreement is not None
    assert [v.party for v in result.agreement.violations] == ["alice"]
    assert result.agreement.violations[0].reservation_value == 5.0
    assert result.trajectory.of_kind("batna_violation")


def _utilities() -> list[UtilityFunction]:
    space = OutcomeSpace.of([Issue.integer_range("x", 0, 2), Issue.options("y", ["a", "b"])])
    linear = LinearAdditiveUtility(space, {"x": 2.0, "y": 1.0}, {"x": [0, 1, 2], "y": [1, 0]}, 1.5, 0.25)
    table = TableUtility(space, np.arange(6, dtype=float), 2.0)
    ranked = RankedPreferenceUtility(space, {"x": [2, 1]}, {"y": ["b"]}, {"x": 2.0}, reservation_value=0.5)
    return [linear, table, ranked, linear.normalized(), ranked.affine(2.0, 1.0), table.with_reservation(4.0)]


@pytest.mark.parametrize("utility", _utilities(), ids=lambda u: type(u).__name__)
def test_utilities_are_frozen_and_stay_frozen_through_copies(utility: UtilityFunction) -> None:
    for version in (utility, copy.copy(utility), copy.deepcopy(utility), pickle.loads(pickle.dumps(utility))):
        with pytest.raises(dataclasses.FrozenInstanceError):
            version.reservation_value = 0.0  # type: ignore[misc]
        assert version.reservation_value == utility.reservation_value
        assert np.array_equal(version.evaluate_space(), utility.evaluate_space())
        assert version.bounds() == utility.bounds()
        arrays = [v for v in vars(version).values() if isinstance(v, np.ndarray)]
        arrays += [t for t in getattr(version, "weighted_tables", ())]
        for array in arrays:
            with pytest.raises(ValueError, match="read-only"):
                array[0] = 99.0
        for name in ("weights", "values", "rankings", "unacceptable"):
            mapping: Any = getattr(version, name, None)
            if mapping is not None:
                with pytest.raises(TypeError):
                    mapping["x"] = 1.0


def test_a_table_utility_does_not_freeze_the_callers_array() -> None:
    scenario = table_scenario()
    raw = np.arange(scenario.space.size, dtype=np.float64)
    utility = TableUtility(scenario.space, raw, 1.0)
    raw[0] = 7.0  # the caller's array stays its own (and writable); the utility kept a copy
    assert utility.evaluate_space()[0] == 0.0


def test_with_reservation_and_replace_give_new_frozen_objects() -> None:
    utility = casino_like_scenario().party("alice").utility
    lowered = utility.with_reservation(1.0)
    assert (lowered.reservation_value, utility.reservation_value) == (1.0, 5.0)
    assert np.array_equal(lowered.evaluate_space(), utility.evaluate_space())
    replaced = dataclasses.replace(utility, reservation_value=2.0)  # type: ignore[type-var]
    assert replaced.reservation_value == 2.0
    with pytest.raises(dataclasses.FrozenInstanceError):
        replaced.reservation_value = 0.0
