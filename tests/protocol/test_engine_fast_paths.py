"""The session's shortcuts give what the straightforward computation gives."""

from __future__ import annotations

from collections.abc import Mapping

from hypothesis import given
from hypothesis import strategies as st

from parley.domain import Value
from parley.protocol import Propose, Rules, Session
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
    assert session._best_received == expected


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
