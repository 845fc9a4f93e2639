"""Information hiding: nothing reachable from a PartyView leads to another party's private state."""

from __future__ import annotations

import gc
import types
from collections.abc import Iterable
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from parley.protocol import Accept, Action, PartyView, Phase, Propose, Reject, Rules, Say, Session
from parley.scenarios.model import Party, Scenario
from parley.testing.scenarios import three_party_scenario

SECRET_TRACE = "alice-secret-trace-7f3a"
SECRET_PERSONA = "bob-secret-persona-91c2"
SECRET_BRIEF = "bob-secret-brief-55d0"

OPAQUE = (
    type,
    types.ModuleType,
    types.FunctionType,
    types.BuiltinFunctionType,
    types.MethodType,
    types.CodeType,
    types.FrameType,
)


def reachable(root: object) -> list[Any]:
    """Every object reachable from root through instance data (not through classes or modules)."""
    seen: dict[int, Any] = {}
    stack = [root]
    while stack:
        obj = stack.pop()
        if id(obj) in seen or isinstance(obj, OPAQUE):
            continue
        seen[id(obj)] = obj
        stack.extend(gc.get_referents(obj))
    return list(seen.values())


def contains_text(objects: Iterable[Any], text: str) -> bool:
    return any(isinstance(o, str) and text in o for o in objects)


class Spy:
    """Proposes, then explains itself with a secret; collects everything it can reach."""

    def __init__(self, moves: list[Action], secret: str = "") -> None:
        self.moves = moves
        self.secret = secret
        self.views: list[PartyView] = []
        self.reached: list[list[Any]] = []

    def act(self, view: PartyView) -> Action:
        self.views.append(view)
        self.reached.append(reachable(view))
        return self.moves.pop(0) if self.moves else Say("...")

    def explain(self) -> dict[str, Any]:
        return {"secret": self.secret, "move": len(self.views)}


def scenario_with_secrets(casino: Scenario) -> Scenario:
    alice, bob = casino.parties
    bob = Party(bob.name, bob.role, bob.utility, persona={"style": SECRET_PERSONA}, brief=SECRET_BRIEF)
    return Scenario(casino.name, casino.title, casino.description, casino.space, (alice, bob), casino.rules)


def run_spies(casino: Scenario) -> tuple[Spy, Spy, Session]:
    scenario = scenario_with_secrets(casino)
    alice = Spy(
        [Propose({"food": 3, "water": 2, "firewood": 1}), Propose({"food": 3, "water": 1, "firewood": 1})],
        SECRET_TRACE,
    )
    bob = Spy(
        [Propose({"food": 1, "water": 0, "firewood": 0}), Propose({"food": 1, "water": 1, "firewood": 0})]
    )
    session = Session(scenario.space, scenario.setups(), {"alice": alice, "bob": bob}, Rules(max_rounds=6))
    return alice, bob, session


def test_a_view_leads_to_no_other_partys_utility_persona_or_trace(casino: Scenario) -> None:
    alice, bob, session = run_spies(casino)
    result = session.run()
    scenario = scenario_with_secrets(casino)
    alice_utility, bob_utility = scenario.party("alice").utility, scenario.party("bob").utility
    assert alice.reached and bob.reached
    for objects in alice.reached:
        ids = {id(o) for o in objects}
        assert id(alice_utility) in ids  # the crawl does see what it may see
        assert id(bob_utility) not in ids
        assert not contains_text(objects, SECRET_PERSONA)
        assert not contains_text(objects, SECRET_BRIEF)
    for objects in bob.reached:
        ids = {id(o) for o in objects}
        assert id(bob_utility) in ids
        assert id(alice_utility) not in ids
        assert contains_text(objects, SECRET_PERSONA)  # its own persona and brief
        assert contains_text(objects, SECRET_BRIEF)
        assert not contains_text(objects, SECRET_TRACE)
    assert result.trajectory.of_kind("trace")  # the secrets were really recorded


def test_a_view_holds_only_the_own_utility_and_persona(casino: Scenario) -> None:
    alice, bob, session = run_spies(casino)
    session.run()
    scenario = scenario_with_secrets(casino)
    for view in alice.views:
        assert view.party == "alice"
        assert view.utility is scenario.party("alice").utility
        assert SECRET_PERSONA not in str(dict(view.persona))
    for view in bob.views:
        assert view.utility is scenario.party("bob").utility
        assert view.persona["style"] == SECRET_PERSONA
        assert view.persona["brief"] == SECRET_BRIEF


def test_private_traces_reach_only_their_owner(casino: Scenario) -> None:
    alice, bob, session = run_spies(casino)
    result = session.run()
    traces = result.trajectory.of_kind("trace")
    assert {(e.party, e.audience) for e in traces} == {("alice", "alice"), ("bob", "bob")}
    assert all(not e.is_public for e in traces)
    for view in alice.views:
        assert all(e.party == "alice" for e in view.record if e.kind == "trace")
        assert all(e.visible_to("alice") for e in view.record)
    for view in bob.views:
        assert all(e.kind != "trace" or e.party == "bob" for e in view.record)
        assert not any(SECRET_TRACE in str(dict(e.data)) for e in view.record)
    # alice's later views include her own earlier traces
    assert any(e.kind == "trace" and e.data["secret"] == SECRET_TRACE for e in alice.views[-1].record)
    public = result.trajectory.public()
    assert not any(e.kind == "trace" for e in public)
    assert [e.seq for e in result.trajectory.visible_to("bob")] == [
        e.seq for e in result.trajectory if e.audience in ("public", "bob")
    ]


def test_the_record_is_read_only(casino: Scenario) -> None:
    alice, _, session = run_spies(casino)
    session.run()
    record = alice.views[0].record
    assert not hasattr(record, "append")
    assert not hasattr(record, "events")
    assert record[0].kind == "session_started"
    assert len(record) == len(list(record))
    assert alice.views[0].phase is Phase.PROPOSE


def test_accepting_reveals_nothing_new_about_the_other_side(casino: Scenario) -> None:
    alice = Spy([Propose({"food": 2, "water": 1, "firewood": 1})])
    bob = Spy([Accept()])
    Session(casino.space, casino.setups(), {"alice": alice, "bob": bob}, Rules()).run()
    view = bob.views[0]
    assert view.offer == {"food": 2, "water": 1, "firewood": 1}
    assert view.opponents == ("alice",)
    assert view.reservation_value == 5.0


@settings(max_examples=25)
@given(st.data())
def test_hiding_holds_for_any_moves_in_three_party_sessions(data: st.DataObject) -> None:
    scenario = three_party_scenario(rules=Rules(max_rounds=5, on_stagnation="continue"))
    space = scenario.space
    move = st.one_of(
        st.integers(0, space.size - 1).map(lambda i: Propose(space.outcome(i))),
        st.builds(Say, st.text(max_size=4), st.just(()), st.booleans()),
        st.just(Reject()),
    )
    spies = {
        name: Spy(data.draw(st.lists(move, min_size=1, max_size=6)), f"secret-of-{name}")
        for name in scenario.party_names
    }
    Session(space, scenario.setups(), dict(spies), scenario.rules).run()
    utilities = {name: id(scenario.party(name).utility) for name in scenario.party_names}
    for name, spy in spies.items():
        for objects in spy.reached:
            ids = {id(o) for o in objects}
            assert utilities[name] in ids
            for other in scenario.party_names:
                if other != name:
                    assert utilities[other] not in ids
                    assert not contains_text(objects, f"secret-of-{other}")
