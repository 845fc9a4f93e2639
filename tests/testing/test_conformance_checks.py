"""`check_negotiator` passes good negotiators and names the check a bad one fails; scripted fakes."""

from __future__ import annotations

import itertools
import sys
import threading
from typing import Any

import pytest

from parley.agents.baselines import TimeBasedNegotiator
from parley.protocol import Accept, Action, Negotiator, PartyView, Propose, Reject, Say, Session, Walk
from parley.testing import ScriptedNegotiator, accept_or, check_negotiator
from parley.testing.conformance import CHECKS
from parley.testing.negotiators import SCRIPT_EXHAUSTED
from parley.testing.scenarios import (
    casino_like_scenario,
    conformance_scenarios,
    table_scenario,
    three_party_scenario,
)


def linear(party: str, seed: int) -> Negotiator:
    return TimeBasedNegotiator(party, seed)


def test_a_good_negotiator_gets_a_report() -> None:
    report = check_negotiator(linear, seeds=(0, 1))
    assert report.checks == CHECKS
    assert report.scenarios == ("casino-like", "table", "three-party")
    assert report.seeds == (0, 1)
    assert report.sessions == 3 * 2 * 7
    assert report.moves > report.sessions
    assert sum(report.endings.values()) == report.sessions
    assert report.endings["agreement"] > 0


def test_scenarios_can_be_chosen() -> None:
    report = check_negotiator(linear, scenarios=[casino_like_scenario()], seeds=(5,))
    assert report.scenarios == ("casino-like",)
    assert report.sessions == 7


class ProposesNonsense:
    def __init__(self, party: str, seed: int) -> None:
        self.moves = 0

    def act(self, view: PartyView) -> Action:
        self.moves += 1
        if self.moves == 2:
            return Propose({name: "nonsense" for name in view.space.names})
        return Say("thinking")


class YesMan:
    """Accepts anything on the table; otherwise offers the first package of the space."""

    def __init__(self, party: str, seed: int) -> None:
        pass

    def act(self, view: PartyView) -> Action:
        return Accept() if view.offer is not None else Propose(view.space.outcome(0))


class Peeker:
    """Digs the session out of the call stacks (of every thread) and reads the other side's BATNA."""

    def __init__(self, party: str, seed: int) -> None:
        pass

    def act(self, view: PartyView) -> Action:
        for frame in sys._current_frames().values():  # the engine may call act() from a worker thread
            while frame is not None:
                session = frame.f_locals.get("self")
                if isinstance(session, Session):
                    secret = session._parties[view.opponents[0]].utility.reservation_value
                    return Say(f"I know you would settle for {secret:.3f}")
                frame = frame.f_back
        return Say("nothing found")


class Forgetful:
    """Behaves differently in every instance: depends on global state, not on its seed."""

    counter = itertools.count()

    def __init__(self, party: str, seed: int) -> None:
        self.instance = next(Forgetful.counter)

    def act(self, view: PartyView) -> Action:
        return Say(f"instance {self.instance}")


class Crashes:
    def __init__(self, party: str, seed: int) -> None:
        pass

    def act(self, view: PartyView) -> Action:
        raise KeyError("oops")


class FragileListener:
    """Fine in self-play; falls over when someone states a priority that is not an issue."""

    def __init__(self, party: str, seed: int) -> None:
        self.inner = TimeBasedNegotiator(party, seed)

    def act(self, view: PartyView) -> Action:
        for event in view.record:
            for issue in event.data.get("priorities", []):
                view.space.issue(issue)  # raises KeyError for an unknown issue
        return self.inner.act(view)


class RejectsTheVoid:
    """Rejects when nothing is on the table (the engine would also flag it)."""

    def __init__(self, party: str, seed: int) -> None:
        pass

    def act(self, view: PartyView) -> Action:
        return Reject() if view.table is None else Walk("bye")


class LowersItsBatna:
    """Tries to lower its own BATNA through its view, then accepts anything."""

    def __init__(self, party: str, seed: int) -> None:
        pass

    def act(self, view: PartyView) -> Action:
        if view.offer is None:
            return Propose(view.space.outcome(0))
        view.utility.reservation_value = -1e9  # type: ignore[misc]
        return Accept()


class ClearsItsWeights:
    """Empties its weights (a read-only mapping has no clear())."""

    def __init__(self, party: str, seed: int) -> None:
        pass

    def act(self, view: PartyView) -> Action:
        weights: Any = view.utility.weights  # type: ignore[attr-defined]
        weights.clear()
        return Say("nothing matters")


class RewritesItsPersona:
    """Writes into its persona (its own copy, but a view is not a scratchpad)."""

    def __init__(self, party: str, seed: int) -> None:
        self.inner = TimeBasedNegotiator(party, seed)

    def act(self, view: PartyView) -> Action:
        view.persona["mood"] = "scribbled"  # type: ignore[index]
        return self.inner.act(view)


class ReusesTheOffer:
    """Edits the offer on the table in place to build its counter (which rewrites the record)."""

    def __init__(self, party: str, seed: int) -> None:
        self.inner = TimeBasedNegotiator(party, seed)

    def act(self, view: PartyView) -> Action:
        if view.offer is None:
            return self.inner.act(view)
        counter: Any = view.offer
        first = view.space.issues[0]
        counter[first.name] = first.values[-1] if counter[first.name] != first.values[-1] else first.values[0]
        return Propose(counter)


class EditsTheRecord:
    """Annotates the events it was shown."""

    def __init__(self, party: str, seed: int) -> None:
        self.inner = TimeBasedNegotiator(party, seed)

    def act(self, view: PartyView) -> Action:
        if len(view.record):
            data: Any = view.record[0].data
            data["seen_by"] = view.party
        return self.inner.act(view)


@pytest.mark.parametrize(
    ("factory", "check", "detail"),
    [
        (LowersItsBatna, "view_unchanged", "tried to change its view: FrozenInstanceError"),
        (ClearsItsWeights, "view_unchanged", "tried to change its view: AttributeError"),
        (RewritesItsPersona, "view_unchanged", "changed its view: its persona"),
        (ReusesTheOffer, "view_unchanged", "changed its view: the package on the table"),
        (EditsTheRecord, "view_unchanged", "changed its view: event 0 of its record"),
        (ProposesNonsense, "legal_moves", "proposed an illegal package"),
        (YesMan, "batna_floor", "< BATNA"),
        (Peeker, "no_peeking", "its moves changed when only another party's hidden utility changed"),
        (Forgetful, "deterministic", "two runs with the same seed differ"),
        (Crashes, "legal_moves", "raised KeyError"),
        (FragileListener, "tolerates_odd_opponents", "says odd things"),
        (RejectsTheVoid, "legal_moves", "rejected with nothing on the table"),
    ],
)
def test_bad_negotiators_fail_the_right_check(factory: type, check: str, detail: str) -> None:
    with pytest.raises(AssertionError) as failure:
        check_negotiator(factory, seeds=(0,))
    message = str(failure.value)
    assert message.startswith(f"check_negotiator: {check} failed on scenario 'casino-like', seed 0: ")
    assert detail in message
    assert "\n" not in message


def test_scripted_negotiator_plays_its_script_then_walks() -> None:
    scenario = casino_like_scenario()
    alice = ScriptedNegotiator([Say("hello"), Propose({"food": 3, "water": 3, "firewood": 3})])
    bob = ScriptedNegotiator([Say("hi"), Say("your turn")])
    assert alice.remaining == 2
    result = Session(scenario.space, scenario.setups(), {"alice": alice, "bob": bob}).run()
    assert (alice.remaining, bob.remaining) == (0, 0)
    actions = [(e.round, e.party, e.data["kind"]) for e in result.trajectory.of_kind("action")]
    assert actions == [
        (1, "alice", "say"),
        (1, "bob", "say"),
        (2, "bob", "say"),
        (2, "alice", "propose"),
        (3, "bob", "walk"),
    ]
    assert result.no_deal is not None
    assert result.no_deal.detail == SCRIPT_EXHAUSTED


def test_scripted_negotiator_walks_with_a_clear_reason() -> None:
    scenario = casino_like_scenario()
    alice = ScriptedNegotiator([Propose({"food": 3, "water": 3, "firewood": 3})])
    bob = ScriptedNegotiator([Reject()])
    result = Session(scenario.space, scenario.setups(), {"alice": alice, "bob": bob}).run()
    assert result.no_deal is not None
    assert (result.no_deal.reason, result.no_deal.walker, result.no_deal.detail) == (
        "walk",
        "bob",
        SCRIPT_EXHAUSTED,
    )
    assert len(alice.views) == 1
    assert len(bob.views) == 2


def test_callable_steps_see_the_view() -> None:
    scenario = casino_like_scenario()
    package = {"food": 2, "water": 1, "firewood": 1}
    bob = ScriptedNegotiator([accept_or(Say("nothing to accept"))])
    result = Session(
        scenario.space, scenario.setups(), {"alice": ScriptedNegotiator([Propose(package)]), "bob": bob}
    ).run()
    assert result.agreement is not None
    assert bob.views[0].offer == package
    lonely = ScriptedNegotiator([accept_or(Say("nothing to accept"))])
    result = Session(
        scenario.space, scenario.setups(), {"alice": lonely, "bob": ScriptedNegotiator([])}
    ).run()
    assert result.trajectory.of_kind("action")[0].data == {
        "kind": "say",
        "message": "nothing to accept",
        "priorities": [],
        "asks_priorities": False,
    }


def test_conformance_scenarios_are_valid() -> None:
    scenarios = conformance_scenarios()
    assert [len(s.parties) for s in scenarios] == [2, 2, 3]
    for scenario in scenarios:
        for party in scenario.parties:
            low, high = party.utility.bounds()
            assert low <= party.utility.reservation_value <= high
    assert (
        table_scenario(3).party("pat").utility.evaluate_space().tolist()
        != table_scenario(4).party("pat").utility.evaluate_space().tolist()
    )
    assert three_party_scenario().space.size == 64
    with pytest.raises(ValueError, match="priorities must order"):
        casino_like_scenario(first_priorities=("food", "food", "water"))


class Hangs:
    """Never answers (until released)."""

    release = threading.Event()

    def __init__(self, party: str, seed: int) -> None:
        pass

    def act(self, view: PartyView) -> Action:
        Hangs.release.wait(30)
        return Say("back")


def test_a_hanging_negotiator_fails_terminates_instead_of_hanging() -> None:
    try:
        with pytest.raises(
            AssertionError, match=r"check_negotiator: terminates failed .* took longer than 0\.05 s"
        ):
            check_negotiator(Hangs, seeds=(0,), act_timeout=0.05)
    finally:
        Hangs.release.set()


def test_check_negotiator_needs_scenarios_and_seeds() -> None:
    with pytest.raises(ValueError, match="needs scenarios and seeds; got 3 and 0"):
        check_negotiator(linear, seeds=())
    with pytest.raises(ValueError, match="got 0 and 3"):
        check_negotiator(linear, scenarios=[])
