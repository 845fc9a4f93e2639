"""Property: any mix of random and scripted (even broken) negotiators under random small rules ends
cleanly within the round cap, without raising."""

from __future__ import annotations

from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from parley.agents.baselines import RandomNegotiator
from parley.domain import Value
from parley.protocol import (
    Accept,
    AcceptanceRule,
    Action,
    Negotiator,
    Propose,
    Reject,
    Rules,
    Say,
    Session,
    Walk,
)
from parley.scenarios.model import Scenario
from parley.testing import ScriptedNegotiator
from parley.testing.scenarios import casino_like_scenario, three_party_scenario

SCENARIOS = (casino_like_scenario(), three_party_scenario())


def moves(scenario: Scenario) -> st.SearchStrategy[Action]:
    space = scenario.space
    legal = st.integers(0, space.size - 1).map(lambda i: Propose(space.outcome(i)))
    broken: dict[str, Value] = {space.names[0]: "no-such-option"}
    return st.one_of(
        legal,
        legal,
        st.just(Accept()),
        st.just(Reject()),
        st.just(Walk("done")),
        st.builds(Say, st.text(max_size=5), st.just(()), st.booleans()),
        st.just(Propose(broken)),
    )


@st.composite
def sessions(draw: st.DrawFn) -> tuple[Scenario, Rules, dict[str, Negotiator], Any]:
    scenario = draw(st.sampled_from(SCENARIOS))
    names = scenario.party_names
    required = draw(st.none() | st.integers(1, len(names)))
    vetoes = tuple(draw(st.lists(st.sampled_from(names), unique=True, max_size=1)))
    rules = Rules(
        max_rounds=draw(st.integers(1, 8)),
        max_offers=draw(st.none() | st.integers(1, 10)),
        acceptance=AcceptanceRule(required, vetoes),
        stagnation_rounds=draw(st.integers(1, 4)),
        stagnation_epsilon=draw(st.sampled_from([0.0, 0.2, 0.5])),
        on_stagnation=draw(st.sampled_from(["walk", "mediate", "continue"])),
    )
    negotiators: dict[str, Negotiator] = {}
    for name in names:
        if draw(st.booleans()):
            negotiators[name] = RandomNegotiator(name, draw(st.integers(0, 1000)), walk_probability=0.05)
        else:
            negotiators[name] = ScriptedNegotiator(draw(st.lists(moves(scenario), max_size=10)))
    package = draw(st.none() | st.integers(0, scenario.space.size - 1).map(scenario.space.outcome))

    class Mediator:
        def propose(self, view: object) -> Any:
            return package

    return scenario, rules, negotiators, Mediator()


@settings(max_examples=150)
@given(sessions())
def test_sessions_always_end_cleanly_within_the_round_cap(
    case: tuple[Scenario, Rules, dict[str, Negotiator], Any],
) -> None:
    scenario, rules, negotiators, mediator = case
    result = Session(scenario.space, scenario.setups(), negotiators, rules, mediator=mediator).run()
    trajectory = result.trajectory
    assert (result.agreement is None) != (result.no_deal is None)
    assert 1 <= result.rounds <= rules.max_rounds
    assert all(e.round <= rules.max_rounds for e in trajectory)
    assert [e.seq for e in trajectory] == list(range(len(trajectory)))
    assert trajectory[0].kind == "session_started"
    assert trajectory[-1].kind in ("agreement", "no_deal")
    offers = sum(  # a mediator's package is put on the table too, so it counts against max_offers
        1
        for e in trajectory
        if (e.kind == "action" and e.data["kind"] == "propose") or e.kind == "mediator_proposal"
    )
    if (
        rules.max_offers is not None
        and result.no_deal is not None
        and result.no_deal.detail == "offers bound reached"
    ):
        assert offers >= rules.max_offers
    if result.agreement is not None:
        agreement = result.agreement
        assert rules.acceptance.is_met(agreement.accepted_by, scenario.party_names)
        scenario.space.validate(agreement.terms)
        for name, utility in agreement.utilities.items():
            assert utility == scenario.party(name).utility.evaluate(agreement.terms)
        flagged = {v.party for v in agreement.violations}
        below = {
            p
            for p in agreement.accepted_by
            if agreement.utilities[p] < agreement.reservation_values[p] - 1e-9
        }
        assert flagged == below
    else:
        assert result.no_deal is not None
        assert result.no_deal.reason in ("walk", "bound_hit", "stagnation", "protocol_violation", "judge")
        if result.no_deal.reason == "protocol_violation":
            assert trajectory.of_kind("violation")
