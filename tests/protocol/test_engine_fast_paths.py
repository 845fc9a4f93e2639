"""The session's shortcuts give what the straightforward computation gives."""

from __future__ import annotations

import dataclasses
import pickle
from collections.abc import Mapping

import pytest
from hypothesis import given
from hypothesis import strategies as st

from parley.domain import Value
from parley.protocol import Action, Event, PartyView, Propose, Rules, Session
from parley.protocol.session import MediatorView
from parley.testing import ScriptedNegotiator
from parley.testing.scenarios import casino_like_scenario

CASINO = casino_like_scenario()
PACKAGES = [CASINO.space.outcome(i) for i in range(CASINO.space.size)]


class RecordingMediator:
    """Proposes nothing; remembers the record it was shown and the public events at that moment."""

    def __init__(self, session: list[Session]) -> None:
        self.session = session
        self.seen: list[tuple[list[int], list[int]]] = []

    def propose(self, view: MediatorView) -> Mapping[str, Value] | None:
        trajectory = self.session[0]._trajectory
        self.seen.append(([e.seq for e in view.record], [e.seq for e in trajectory.public()]))
        return None


@given(st.lists(st.integers(0, len(PACKAGES) - 1), min_size=2, max_size=24), st.integers(1, 4))
def test_best_received_matches_evaluating_every_offer(picks: list[int], stall: int) -> None:
    alice = [Propose(PACKAGES[p]) for p in picks[0::2]]
    bob = [Propose(PACKAGES[p]) for p in picks[1::2]]
    rules = Rules(max_rounds=len(picks), stagnation_rounds=stall, on_stagnation="continue")
    session = Session(
        CASINO.space,
        CASINO.setups(),
        {"alice": ScriptedNegotiator(alice), "bob": ScriptedNegotiator(bob)},
        rules,
    )
    result = session.run()
    expected = {name: float("-inf") for name in CASINO.party_names}
    for event in result.trajectory:
        if event.kind == "action" and event.data["kind"] == "propose":
            for party in CASINO.parties:
                if party.name != event.party:
                    worth = party.utility.evaluate(event.data["package"])
                    expected[party.name] = max(expected[party.name], worth)
    assert session._best_received() == expected


def test_a_mediator_sees_every_public_event_and_only_those() -> None:
    stubborn = [Propose(PACKAGES[0])] * 10
    holder: list[Session] = []
    mediator = RecordingMediator(holder)
    session = Session(
        CASINO.space,
        CASINO.setups(),
        {"alice": ScriptedNegotiator(stubborn), "bob": ScriptedNegotiator(list(stubborn))},
        Rules(max_rounds=10, stagnation_rounds=2, on_stagnation="mediate"),
        mediator=mediator,
    )
    holder.append(session)
    session.run()
    assert mediator.seen
    for record, public in mediator.seen:
        assert record == public


class ViewKeeper:
    """Counters with a fixed cycle of packages and keeps every view it was shown."""

    def __init__(self, offset: int) -> None:
        self.offset = offset
        self.views: list[PartyView] = []

    def act(self, view: PartyView) -> Action:
        self.views.append(view)
        return Propose(PACKAGES[(self.offset + 5 * len(self.views)) % len(PACKAGES)])


def test_views_and_events_built_without_their_constructors_equal_constructed_ones() -> None:
    keepers = {"alice": ViewKeeper(0), "bob": ViewKeeper(3)}
    result = Session(CASINO.space, CASINO.setups(), keepers, Rules(max_rounds=4, stagnation_rounds=9)).run()
    setups = {setup.name: setup for setup in CASINO.setups()}
    for name, keeper in keepers.items():
        assert keeper.views
        for view in keeper.views:
            rebuilt = PartyView(
                view.party,
                view.parties,
                view.round,
                view.phase,
                view.space,
                setups[name].utility,
                view.rules,
                view.table,
                view.record,
                view.persona,
            )
            assert view == rebuilt and repr(view) == repr(rebuilt)
            with pytest.raises(dataclasses.FrozenInstanceError):
                view.round = 99  # type: ignore[misc]
    for event in result.trajectory:
        rebuilt_event = Event(
            event.seq, event.kind, event.round, event.party, event.data, event.audience, event.time
        )
        assert event == rebuilt_event and repr(event) == repr(rebuilt_event)
        assert pickle.loads(pickle.dumps(event)) == event


@given(st.lists(st.integers(0, len(PACKAGES) - 1), min_size=2, max_size=16), st.sampled_from([0.0, 0.3, 0.6]))
def test_stagnation_counts_rounds_without_a_move_larger_than_epsilon(
    picks: list[int], epsilon: float
) -> None:
    """The exact-match shortcut (ε = 0) and the general movement measure agree with a direct count."""
    alice = [Propose(PACKAGES[p]) for p in picks[0::2]]
    bob = [Propose(PACKAGES[p]) for p in picks[1::2]]
    rounds = len(bob)
    rules = Rules(
        max_rounds=rounds, stagnation_rounds=1, stagnation_epsilon=epsilon, on_stagnation="continue"
    )
    negotiators = {"alice": ScriptedNegotiator(alice), "bob": ScriptedNegotiator(bob)}
    result = Session(CASINO.space, CASINO.setups(), negotiators, rules).run()
    spans = [max(n - 1, 1) for n in CASINO.space.shape]
    last: dict[str, tuple[int, ...]] = {}
    expected: list[int] = []
    moves_by_round: dict[int, list[tuple[str, tuple[int, ...]]]] = {}
    for event in result.trajectory:
        if event.kind == "action" and event.data["kind"] == "propose" and event.party is not None:
            indices = CASINO.space.to_indices(event.data["package"])
            moves_by_round.setdefault(event.round, []).append((event.party, indices))
    for round_number in sorted(moves_by_round):
        moved = False
        for party, indices in moves_by_round[round_number]:
            old = last.get(party)
            step = (
                1.0
                if old is None
                else max(abs(a - b) / s for a, b, s in zip(old, indices, spans, strict=True))
            )
            moved = moved or step > epsilon
            last[party] = indices
        if not moved:
            expected.append(round_number)
    assert [e.round for e in result.trajectory if e.kind == "stagnation"] == expected


class PersonaScribbler:
    """Writes into the persona its view hands it, then proposes; remembers what it was handed."""

    def __init__(self) -> None:
        self.seen: list[dict[str, object]] = []

    def act(self, view: PartyView) -> Action:
        self.seen.append(dict(view.persona))
        view.persona["brief"] = "overwritten"  # type: ignore[index]
        return Propose(PACKAGES[0])


def test_a_negotiator_writing_into_its_persona_does_not_reach_the_next_session() -> None:
    # Setups are built once per scenario and shared: each session must hand out its own copy.
    original = {setup.name: dict(setup.persona) for setup in CASINO.setups()}
    for _ in range(2):
        scribblers = {name: PersonaScribbler() for name in CASINO.party_names}
        Session(CASINO.space, CASINO.setups(), scribblers, Rules(max_rounds=2)).run()
        for name, scribbler in scribblers.items():
            assert scribbler.seen[0] == original[name]
    assert {setup.name: dict(setup.persona) for setup in CASINO.setups()} == original


def test_a_record_slice_is_a_copy_of_the_events_since_a_position() -> None:
    keepers = {"alice": ViewKeeper(0), "bob": ViewKeeper(3)}
    result = Session(CASINO.space, CASINO.setups(), keepers, Rules(max_rounds=3, stagnation_rounds=9)).run()
    record = keepers["alice"].views[-1].record
    since = record[2:]
    assert since == list(result.trajectory)[2:] and isinstance(since, list)
    since.clear()  # a participant emptying its slice changes nothing it shares
    assert len(record) == len(result.trajectory) > 2
