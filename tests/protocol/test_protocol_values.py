"""Value objects of the protocol: actions and their JSON, rules validation, views, the rule judge."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from parley.errors import ScenarioError
from parley.protocol import (
    Accept,
    AcceptanceRule,
    Action,
    JudgeView,
    PartyView,
    Phase,
    Propose,
    Record,
    Reject,
    RuleJudge,
    Rules,
    Say,
    TableOffer,
    Verdict,
    Walk,
    action_from_json,
    action_to_json,
)
from parley.protocol.events import Event
from parley.scenarios.model import Scenario

values = st.one_of(st.integers(-5, 5), st.text(max_size=4), st.floats(-5, 5, allow_nan=False))
actions: st.SearchStrategy[Action] = st.one_of(
    st.builds(
        Propose, st.dictionaries(st.text(min_size=1, max_size=4), values, max_size=3), st.text(max_size=8)
    ),
    st.builds(Accept, st.text(max_size=8)),
    st.builds(Reject, st.text(max_size=8)),
    st.builds(Walk, st.text(max_size=8), st.text(max_size=8)),
    st.builds(Say, st.text(max_size=8), st.lists(st.text(max_size=4), max_size=3).map(tuple), st.booleans()),
)


@given(actions)
def test_actions_round_trip_through_json(action: Action) -> None:
    data = action_to_json(action)
    assert data["kind"] == action.kind
    assert action_from_json(data) == action


def test_action_json_shapes() -> None:
    assert action_to_json(Propose({"a": 1}, "hi")) == {
        "kind": "propose",
        "package": {"a": 1},
        "message": "hi",
    }
    assert action_to_json(Walk("bad", "bye")) == {"kind": "walk", "reason": "bad", "message": "bye"}
    assert action_to_json(Say("q?", ("a",), True)) == {
        "kind": "say",
        "message": "q?",
        "priorities": ["a"],
        "asks_priorities": True,
    }


def test_unknown_action_kind() -> None:
    with pytest.raises(ValueError, match="unknown action kind 'bid'; expected one of propose, accept"):
        action_from_json({"kind": "bid"})


@pytest.mark.parametrize(
    ("options", "field"),
    [
        ({"max_rounds": 0}, "protocol.max_rounds"),
        ({"stagnation_rounds": 0}, "protocol.stagnation_rounds"),
        ({"stagnation_epsilon": 1.0}, "protocol.stagnation_epsilon"),
        ({"stagnation_epsilon": -0.1}, "protocol.stagnation_epsilon"),
    ],
)
def test_bad_rules_name_the_field(options: dict[str, float], field: str) -> None:
    with pytest.raises(ScenarioError, match=field.replace(".", r"\.")):
        Rules(**options)  # type: ignore[arg-type]


def test_acceptance_rule_checks_its_parties() -> None:
    with pytest.raises(ScenarioError, match="acceptance needs 4 of 3 parties"):
        AcceptanceRule(required=4).check(["a", "b", "c"])
    with pytest.raises(ScenarioError, match="acceptance needs 0 of 3 parties"):
        AcceptanceRule(required=0).check(["a", "b", "c"])
    with pytest.raises(ScenarioError, match=r"veto parties \['z'\] are not parties"):
        AcceptanceRule(vetoes=("z",)).check(["a", "b"])
    AcceptanceRule(required=3, vetoes=("a",)).check(["a", "b", "c"])


def test_proposer_order() -> None:
    assert Rules().order(["a", "b"]) == ("a", "b")
    assert Rules(proposer_order=("b", "a")).order(["a", "b"]) == ("b", "a")
    with pytest.raises(ScenarioError, match=r"proposer_order \['a'\] must list every party"):
        Rules(proposer_order=("a",)).order(["a", "b"])


def test_session_refuses_bad_setups(casino: Scenario) -> None:
    from parley.protocol import Session
    from parley.testing import ScriptedNegotiator

    with pytest.raises(ScenarioError, match=r"no negotiator for parties \['bob'\]"):
        Session(casino.space, casino.setups(), {"alice": ScriptedNegotiator([])})
    with pytest.raises(ScenarioError, match="at least two parties"):
        Session(casino.space, casino.setups()[:1], {"alice": ScriptedNegotiator([])})
    with pytest.raises(ScenarioError, match="acceptance needs 3 of 2"):
        Session(
            casino.space,
            casino.setups(),
            {"alice": ScriptedNegotiator([]), "bob": ScriptedNegotiator([])},
            Rules(acceptance=AcceptanceRule(required=3)),
        )


def make_view(scenario: Scenario, round_number: int, max_rounds: int, table: TableOffer | None) -> PartyView:
    events = [
        Event(0, "action", 1, "bob", {"kind": "propose", "package": {"food": 1}, "message": "take it"}),
        Event(1, "mediator_proposal", 1, "mediator", {"package": {"food": 2}}),
        Event(2, "action", 1, "alice", {"kind": "say", "message": "", "priorities": []}),
        Event(3, "action", 2, "alice", {"kind": "propose", "package": {"food": 3}, "message": ""}),
    ]
    return PartyView(
        "alice",
        ("alice", "bob", "cy"),
        round_number,
        Phase.RESPOND,
        scenario.space,
        scenario.party("alice").utility,
        Rules(max_rounds=max_rounds),
        table,
        Record(events),
        {},
    )


def test_view_properties(casino: Scenario) -> None:
    table = TableOffer({"food": 1, "water": 1, "firewood": 1}, "bob", frozenset({"bob"}), 3)
    view = make_view(casino, 6, 11, table)
    assert view.relative_time == 0.5
    assert view.opponents == ("bob", "cy")
    assert view.offer == {"food": 1, "water": 1, "firewood": 1}
    assert view.reservation_value == 5.0
    own = TableOffer({"food": 1, "water": 1, "firewood": 1}, "alice", frozenset({"alice"}), 3)
    assert make_view(casino, 1, 11, own).offer is None
    assert make_view(casino, 1, 11, None).offer is None
    assert make_view(casino, 1, 11, None).relative_time == 0.0
    assert make_view(casino, 11, 11, None).relative_time == 1.0
    assert make_view(casino, 1, 1, None).relative_time == 1.0


def test_record_helpers(casino: Scenario) -> None:
    record = make_view(casino, 2, 10, None).record
    assert record.offers() == [("bob", {"food": 1}), ("mediator", {"food": 2}), ("alice", {"food": 3})]
    assert record.offers_by("alice") == [{"food": 3}]
    assert record.messages() == [("bob", "take it")]
    assert len(record) == 4
    assert record[1].kind == "mediator_proposal"


@pytest.mark.parametrize(
    ("view", "verdict", "reason"),
    [
        (JudgeView(1, 5, True, walked="a", violation="b"), Verdict.NO_DEAL, "protocol_violation"),
        (JudgeView(1, 5, True, walked="a"), Verdict.NO_DEAL, "walk"),
        (JudgeView(1, 5, False, walked="a", stagnation_unresolved=True), Verdict.NO_DEAL, "stagnation"),
        (JudgeView(1, 5, True, bound_hit="rounds"), Verdict.AGREEMENT, None),
        (
            JudgeView(1, 5, False, stagnation_unresolved=True, bound_hit="rounds"),
            Verdict.NO_DEAL,
            "stagnation",
        ),
        (JudgeView(5, 5, False, bound_hit="rounds"), Verdict.NO_DEAL, "bound_hit"),
        (JudgeView(2, 5, False), Verdict.CONTINUE, None),
    ],
)
def test_rule_judge_priorities(view: JudgeView, verdict: Verdict, reason: str | None) -> None:
    judgement = RuleJudge().judge(view)
    assert (judgement.verdict, judgement.reason) == (verdict, reason)
