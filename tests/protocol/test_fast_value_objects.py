"""The per-move value objects (built with a one-shot __dict__ update for speed) act as frozen dataclasses."""

from __future__ import annotations

import copy
import dataclasses
import pickle
from typing import Any

import pytest

from parley.agents import create
from parley.domain import Issue, LinearAdditiveUtility, OutcomeSpace
from parley.protocol.actions import Propose
from parley.protocol.events import Event
from parley.protocol.judge import Judgement, JudgeView, RuleJudge
from parley.protocol.rules import Rules
from parley.protocol.session import Session
from parley.protocol.view import PartyView, Phase, Record, TableOffer
from parley.testing.scenarios import casino_like_scenario

SPACE = OutcomeSpace.of([Issue.integer_range("x", 0, 2)])
UTILITY = LinearAdditiveUtility(SPACE, {"x": 1.0}, {"x": [0.0, 1.0, 2.0]})
TABLE = TableOffer({"x": 1}, "bob", frozenset({"bob"}), 3)


def _examples() -> list[Any]:
    view = PartyView(
        "alice", ("alice", "bob"), 2, Phase.RESPOND, SPACE, UTILITY, Rules(), TABLE, Record([]), {}
    )
    return [
        Event(4, "action", 2, "bob", {"kind": "reject", "message": ""}, "public", 1.5),
        Propose({"x": 2}, "two?"),
        TABLE,
        view,
    ]


@pytest.mark.parametrize("value", _examples(), ids=lambda v: type(v).__name__)
def test_fields_cannot_be_assigned_or_deleted(value: Any) -> None:
    name = dataclasses.fields(value)[0].name
    with pytest.raises(dataclasses.FrozenInstanceError):
        setattr(value, name, None)
    with pytest.raises(dataclasses.FrozenInstanceError):
        delattr(value, name)


@pytest.mark.parametrize("value", _examples()[:3], ids=lambda v: type(v).__name__)
def test_copies_pickles_and_replace_round_trip(value: Any) -> None:
    assert pickle.loads(pickle.dumps(value)) == value
    assert copy.deepcopy(value) == value
    first = dataclasses.fields(value)[0].name
    changed = dataclasses.replace(value, **{first: 7})
    assert getattr(changed, first) == 7
    assert dataclasses.replace(changed, **{first: getattr(value, first)}) == value


def test_constructor_keywords_defaults_and_repr_are_the_dataclass_ones() -> None:
    event = Event(seq=0, kind="note")
    assert (event.round, event.party, event.data, event.audience, event.time) == (0, None, {}, "public", 0.0)
    assert Event(0, "note").data is not Event(0, "note").data  # a fresh dict each time, like a factory
    assert (
        repr(event) == "Event(seq=0, kind='note', round=0, party=None, data={}, audience='public', time=0.0)"
    )
    with pytest.raises(TypeError):
        Event(0)  # type: ignore[call-arg]
    with pytest.raises(TypeError):
        TableOffer({"x": 1}, "bob", frozenset(), 1, "extra")  # type: ignore[call-arg]


def test_pattern_matching_and_equality_use_the_fields() -> None:
    event, proposal, table, view = _examples()
    match event:
        case Event(kind="action", party=party, data={"kind": kind}):
            assert (party, kind) == ("bob", "reject")
        case _:
            pytest.fail("class pattern did not match")
    assert event != dataclasses.replace(event, round=3)
    match proposal:
        case Propose(package={"x": value}, message=message, kind="propose"):
            assert (value, message) == (2, "two?")
        case _:
            pytest.fail("class pattern did not match")
    assert Propose.__match_args__ == ("package", "message")
    assert table == TableOffer({"x": 1}, "bob", frozenset({"bob"}), 3)
    assert view.offer == {"x": 1} and view.opponents == ("bob",)


def test_the_engine_fills_every_field_of_the_judge_views_it_builds() -> None:
    views: list[JudgeView] = []

    class Watching(RuleJudge):  # a judge type of its own: the engine asks it after every move
        def judge(self, view: JudgeView) -> Judgement:
            views.append(view)
            return super().judge(view)

    scenario = casino_like_scenario()
    names = scenario.party_names
    negotiators = {
        names[0]: create("boulware", party=names[0], seed=1),
        names[1]: create("conceder", party=names[1], seed=2),
    }
    result = Session(scenario.space, scenario.setups(), negotiators, scenario.rules, judge=Watching()).run()
    assert result.agreement is not None and len(views) > 3
    for view in views:
        rebuilt = JudgeView(
            **{field.name: getattr(view, field.name) for field in dataclasses.fields(JudgeView)}
        )
        assert view == rebuilt and repr(view) == repr(rebuilt)
        assert pickle.loads(pickle.dumps(view)) == view
        with pytest.raises(dataclasses.FrozenInstanceError):
            view.round = 0  # type: ignore[misc]
    assert views[-1].offer_passed and not views[0].offer_passed
