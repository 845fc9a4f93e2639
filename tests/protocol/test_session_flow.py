"""Round semantics of the O13 session: alternating offers, n-party rotation, hidden answers, k-of-n."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import pytest

from parley.protocol import (
    Accept,
    AcceptanceRule,
    Action,
    Event,
    Negotiator,
    PartyView,
    Phase,
    Propose,
    Reject,
    Rules,
    Say,
    Session,
    SessionResult,
)
from parley.scenarios.model import Scenario
from parley.testing import ScriptedNegotiator

ALL_MINE = {"food": 3, "water": 3, "firewood": 3}
SPLIT = {"food": 2, "water": 0, "firewood": 1}


def play(
    scenario: Scenario, negotiators: Mapping[str, Negotiator], rules: Rules | None = None, **options: Any
) -> SessionResult:
    return Session(scenario.space, scenario.setups(), negotiators, rules or scenario.rules, **options).run()


def test_two_parties_alternate_one_move_per_round(casino: Scenario) -> None:
    alice = ScriptedNegotiator([Propose(ALL_MINE), Accept()])
    bob = ScriptedNegotiator([Propose(SPLIT)])
    result = play(casino, {"alice": alice, "bob": bob})
    assert [(v.round, v.phase) for v in alice.views] == [(1, Phase.PROPOSE), (2, Phase.RESPOND)]
    assert [(v.round, v.phase) for v in bob.views] == [(1, Phase.RESPOND)]
    # bob answered alice's package; in round 2 his counter is what alice answers
    assert bob.views[0].offer == ALL_MINE
    assert alice.views[1].table is not None
    assert alice.views[1].table.proposer == "bob"
    assert alice.views[1].offer == SPLIT
    agreement = result.agreement
    assert agreement is not None
    assert result.no_deal is None
    assert dict(agreement.terms) == SPLIT
    assert (agreement.round, agreement.proposer, agreement.accepted_by) == (2, "bob", ("alice", "bob"))
    assert dict(agreement.utilities) == {"alice": 13.0, "bob": 25.0}  # 2·5 + 0·4 + 1·3 and 3·5 + 1·4 + 2·3
    assert dict(agreement.reservation_values) == {"alice": 5.0, "bob": 5.0}
    assert agreement.is_clean
    kinds = [(e.kind, e.round, e.party) for e in result.trajectory]
    assert kinds == [
        ("session_started", 1, None),
        ("action", 1, "alice"),
        ("action", 1, "bob"),
        ("action", 2, "alice"),
        ("judgement", 2, None),
        ("agreement", 2, None),
    ]
    assert [e.seq for e in result.trajectory] == list(range(6))


def test_opening_event_lists_parties_issues_rules_and_metadata(casino: Scenario) -> None:
    rules = Rules(max_rounds=7, stagnation_rounds=2)
    result = play(
        casino, {"alice": ScriptedNegotiator([]), "bob": ScriptedNegotiator([])}, rules, metadata={"seed": 3}
    )
    opening = result.trajectory[0]
    assert opening.kind == "session_started"
    assert opening.data["parties"] == ["alice", "bob"]
    assert opening.data["issues"] == {"food": [0, 1, 2, 3], "water": [0, 1, 2, 3], "firewood": [0, 1, 2, 3]}
    assert opening.data["rules"]["max_rounds"] == 7
    assert opening.data["rules"]["stagnation_rounds"] == 2
    assert opening.data["seed"] == 3


def test_accepting_in_the_first_answer_closes_in_round_one(casino: Scenario) -> None:
    result = play(
        casino, {"alice": ScriptedNegotiator([Propose(SPLIT)]), "bob": ScriptedNegotiator([Accept()])}
    )
    assert result.agreement is not None
    assert result.agreement.round == 1
    assert result.agreement.proposer == "alice"
    assert result.rounds == 1


def test_reject_without_counter_gives_the_turn_to_the_other_side(casino: Scenario) -> None:
    alice = ScriptedNegotiator([Propose(ALL_MINE), Accept()])
    bob = ScriptedNegotiator([Reject("no"), Propose(SPLIT)])
    result = play(casino, {"alice": alice, "bob": bob})
    # round 2: bob proposes from scratch (his proposer turn is not skipped), alice accepts
    assert [(v.round, v.phase) for v in bob.views] == [(1, Phase.RESPOND), (2, Phase.PROPOSE)]
    assert result.agreement is not None
    assert result.agreement.proposer == "bob"
    assert result.agreement.round == 2


class Recorder:
    """Proposes a fresh package whenever it proposes and rejects whenever it answers."""

    def __init__(self, name: str, packages: list[dict[str, Any]], answer: Action | None = None) -> None:
        self.name = name
        self.packages = packages
        self.answer = answer or Reject()
        self.calls: list[tuple[int, Phase, list[Event]]] = []

    def act(self, view: PartyView) -> Action:
        self.calls.append((view.round, view.phase, list(view.record)))
        if view.phase is Phase.PROPOSE:
            return Propose(self.packages[len(self.calls) % len(self.packages)])
        return self.answer


def three_party_packages(scenario: Scenario) -> list[dict[str, Any]]:
    return [dict(scenario.space.outcome(i)) for i in range(0, scenario.space.size, 7)]


@pytest.mark.parametrize(
    ("order", "expected"),
    [
        (None, ["ana", "ben", "cy", "ana", "ben", "cy"]),
        (("cy", "ana", "ben"), ["cy", "ana", "ben", "cy", "ana", "ben"]),
    ],
)
def test_three_parties_rotate_the_proposer(
    three_party: Scenario, order: tuple[str, ...] | None, expected: list[str]
) -> None:
    packages = three_party_packages(three_party)
    negotiators = {name: Recorder(name, packages) for name in three_party.party_names}
    rules = Rules(max_rounds=6, on_stagnation="continue", proposer_order=order)
    result = play(three_party, negotiators, rules)
    assert result.no_deal is not None
    assert result.no_deal.reason == "bound_hit"
    assert result.no_deal.round == 6
    proposing = sorted(
        (round_number, name)
        for name, negotiator in negotiators.items()
        for round_number, phase, _ in negotiator.calls
        if phase is Phase.PROPOSE
    )
    assert proposing == list(enumerate(expected, start=1))
    for negotiator in negotiators.values():
        # everyone answers every round in which it does not propose: one move per round
        assert [c[0] for c in negotiator.calls] == [1, 2, 3, 4, 5, 6]


def test_responders_do_not_see_each_others_answers_in_the_same_round(three_party: Scenario) -> None:
    packages = three_party_packages(three_party)
    negotiators = {name: Recorder(name, packages, Say(f"{name} thinks")) for name in three_party.party_names}
    play(three_party, negotiators, Rules(max_rounds=4, on_stagnation="continue"))
    for negotiator in negotiators.values():
        for round_number, phase, record in negotiator.calls:
            if phase is not Phase.RESPOND:
                continue
            same_round_answers = [
                e
                for e in record
                if e.kind == "action" and e.round == round_number and e.data["kind"] == "say"
            ]
            assert same_round_answers == [], (
                f"{negotiator.name} saw {same_round_answers} in round {round_number}"
            )
            earlier = [
                e
                for e in record
                if e.kind == "action" and e.data["kind"] == "say" and e.round == round_number - 1
            ]
            if round_number > 1:
                assert len(earlier) == 2  # last round's two answers are revealed together afterwards


def test_a_counter_is_tabled_only_when_its_author_proposes_next(three_party: Scenario) -> None:
    space = three_party.space
    opening, from_ben, from_cy = (dict(space.outcome(i)) for i in (0, 21, 42))
    ana = ScriptedNegotiator([Propose(opening), Reject()])
    ben = ScriptedNegotiator([Propose(from_ben)])
    cy = ScriptedNegotiator([Propose(from_cy), Accept()])
    result = play(three_party, {"ana": ana, "ben": ben, "cy": cy})
    # round 2: ben proposes next, so his counter is on the table and he is not asked to propose
    assert len(ben.views) == 1
    assert ana.views[1].round == 2
    assert ana.views[1].phase is Phase.RESPOND
    table = ana.views[1].table
    assert table is not None
    assert (dict(table.package), table.proposer, table.accepted_by) == (from_ben, "ben", frozenset({"ben"}))
    assert cy.views[1].offer == from_ben  # cy's own counter was dropped
    assert result.agreement is None  # ana rejected; unanimity needed


def test_k_of_n_passes_without_a_non_veto_party(three_party: Scenario) -> None:
    package = dict(three_party.space.outcome(5))
    negotiators = {
        "ana": ScriptedNegotiator([Propose(package)]),
        "ben": ScriptedNegotiator([Reject()]),
        "cy": ScriptedNegotiator([Accept()]),
    }
    rules = Rules(acceptance=AcceptanceRule(required=2, vetoes=("cy",)))
    result = play(three_party, negotiators, rules)
    assert result.agreement is not None
    assert result.agreement.round == 1
    assert result.agreement.accepted_by == ("ana", "cy")


def test_k_of_n_waits_for_a_veto_party(three_party: Scenario) -> None:
    package = dict(three_party.space.outcome(5))
    negotiators = {
        "ana": ScriptedNegotiator([Propose(package), Reject()]),
        "ben": ScriptedNegotiator([Accept(), Say("still fine by me")]),
        "cy": ScriptedNegotiator([Reject(), Accept()]),
    }
    rules = Rules(acceptance=AcceptanceRule(required=2, vetoes=("cy",)), max_rounds=5)
    result = play(three_party, negotiators, rules)
    # round 1: ana + ben is two of three, but cy holds a veto; round 2 (ben proposes, says
    # something) cy accepts the package still on the table, which passes
    assert result.agreement is not None
    assert result.agreement.round == 2
    assert result.agreement.proposer == "ana"
    assert result.agreement.accepted_by == ("ana", "ben", "cy")


def test_acceptance_rule_arithmetic() -> None:
    rule = AcceptanceRule(required=2, vetoes=("c",))
    parties = ("a", "b", "c")
    assert rule.is_met({"a", "c"}, parties)
    assert not rule.is_met({"a", "b"}, parties)
    assert not rule.is_met({"c"}, parties)
    assert AcceptanceRule().is_met({"a", "b", "c"}, parties)
    assert not AcceptanceRule().is_met({"a", "b"}, parties)


def test_batna_violation_is_recorded_not_hidden(casino: Scenario) -> None:
    # alice takes the package that gives her nothing: 0 points against a BATNA of 5
    nothing_for_alice = {"food": 0, "water": 0, "firewood": 0}
    result = play(
        casino,
        {
            "alice": ScriptedNegotiator([Say("hi"), Accept()]),
            "bob": ScriptedNegotiator([Say("?"), Propose(nothing_for_alice)]),
        },
    )
    agreement = result.agreement
    assert agreement is not None
    assert not agreement.is_clean
    assert [(v.party, v.utility, v.reservation_value) for v in agreement.violations] == [("alice", 0.0, 5.0)]
    events = result.trajectory.of_kind("batna_violation")
    assert [(e.party, dict(e.data)) for e in events] == [
        ("alice", {"utility": 0.0, "reservation_value": 5.0})
    ]
    assert result.trajectory[-1].data["violations"] == [
        {"party": "alice", "utility": 0.0, "reservation_value": 5.0}
    ]


def test_a_proposer_that_tables_a_package_below_its_batna_is_flagged_too(casino: Scenario) -> None:
    result = play(
        casino,
        {
            "alice": ScriptedNegotiator([Propose({"food": 0, "water": 0, "firewood": 1})]),
            "bob": ScriptedNegotiator([Accept()]),
        },
    )
    assert result.agreement is not None
    assert [v.party for v in result.agreement.violations] == ["alice"]
