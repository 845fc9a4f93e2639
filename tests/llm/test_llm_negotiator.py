"""The LLM stakeholder on recorded replies: parsing, repair, re-ask, twin fallback and the safety guards."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from llm_market import market_parties, market_space

from parley.agents import create
from parley.errors import LLMError, ScenarioError
from parley.llm import EventLoopThread, LLMNegotiator, LLMSession
from parley.llm.negotiator import repair_package
from parley.protocol import Event, PartyView, Phase, Propose, Record, Rules, TableOffer
from parley.testing import FakeLLM

FIXTURES = Path(__file__).parent / "fixtures"
CASES: list[dict[str, Any]] = json.loads((FIXTURES / "negotiator_replies.json").read_text("utf-8"))


def buyer_view(phase: str, offer: dict[str, Any] | None) -> PartyView:
    buyer = market_parties()[0]
    events: list[Event] = []
    table = None
    if offer is not None:
        events.append(
            Event(1, "action", 1, "seller", {"kind": "propose", "package": offer, "message": "Take it."})
        )
        table = TableOffer(offer, "seller", frozenset({"seller"}), 1)
    return PartyView(
        "buyer",
        ("buyer", "seller"),
        2,
        Phase(phase),
        market_space(),
        buyer.utility,
        Rules(max_rounds=10),
        table,
        Record(events),
        buyer.persona,
    )


def scripted(replies: list[Any]) -> FakeLLM:
    return FakeLLM([LLMError(r["error"]) if isinstance(r, dict) else r for r in replies])


@pytest.mark.parametrize("case", CASES, ids=[c["name"] for c in CASES])
def test_recorded_reply(case: dict[str, Any], bridge: EventLoopThread) -> None:
    fake = scripted(case["replies"])
    llm = LLMSession(fake, bridge=bridge)
    negotiator = LLMNegotiator("buyer", llm, create("boulware", party="buyer", seed=0))
    view = buyer_view(case["phase"], case.get("offer"))

    action = negotiator.act(view)

    expect = case["expect"]
    trace = negotiator.explain()
    assert trace is not None and trace["llm"]["source"] == expect["source"]
    if "fallback" in expect:
        assert trace["llm"]["fallback"] == expect["fallback"]
    if "kind" in expect:
        assert action.kind == expect["kind"]
    if "not_kind" in expect:
        assert action.kind != expect["not_kind"]
    if "package" in expect:
        assert isinstance(action, Propose) and dict(action.package) == expect["package"]
    if "message" in expect:
        assert action.message == expect["message"]
    if "calls" in expect:
        assert len(fake.requests) == expect["calls"]
    events = [dict(e.data) | {"kind": e.kind} for e in llm.events]
    for wanted in expect["events"]:
        assert any(all(event.get(k) == v for k, v in wanted.items()) for event in events), events
    if not expect["events"]:
        assert events == []
    assert all(e.audience == "buyer" for e in llm.events)  # the stakeholder's llm events stay private
    if isinstance(action, Propose):
        view.space.validate(action.package)
        assert view.utility.evaluate(action.package) >= view.reservation_value
    if action.kind == "accept":
        assert view.offer is not None and view.utility.is_acceptable(view.offer)


def test_prompt_puts_private_utility_and_batna_first(bridge: EventLoopThread) -> None:
    fake = FakeLLM(['{"move": "say", "message": "Hello."}'])
    negotiator = LLMNegotiator(
        "buyer", LLMSession(fake, bridge=bridge), create("boulware", party="buyer", seed=0)
    )
    negotiator.act(buyer_view("respond", {"price": 300, "delivery": "standard", "warranty": 1}))

    system, user = fake.requests[0].messages[0].content, fake.requests[0].messages[1].content
    assert system.startswith("[PRIVATE FACTS about you (buyer)")
    assert "buyer walk-away value (BATNA) = 0.35" in system.splitlines()[1]
    assert system.index("price") < system.index("You negotiate on behalf of buyer (the buyer)")
    assert "Round 2 of 10" in user
    assert '"price": 300' in user and "seller proposed" in user
    assert fake.requests[0].schema is not None and fake.requests[0].schema_name == "NegotiatorReply"


def test_reask_carries_the_validation_error(bridge: EventLoopThread) -> None:
    fake = FakeLLM(['{"move": "propose"}', '{"move": "say", "message": "ok"}'])
    negotiator = LLMNegotiator(
        "buyer", LLMSession(fake, bridge=bridge), create("boulware", party="buyer", seed=0)
    )
    negotiator.act(buyer_view("propose", None))

    second = fake.requests[1].messages
    assert [m.role for m in second] == ["system", "user", "assistant", "user"]
    assert second[2].content == '{"move": "propose"}'
    assert 'needs a "package"' in second[3].content


def test_repair_package_reports_what_it_changed() -> None:
    package, notes = repair_package(
        market_space(), {"PRICE": 310, "delivery": "FAST", "colour": "red"}, {"warranty": 2}
    )
    assert package == {"price": 300, "delivery": "fast", "warranty": 2}
    assert any("colour" in n for n in notes) and any("filled warranty" in n for n in notes)
    with pytest.raises(ValueError, match="teleport"):
        repair_package(market_space(), {"price": 300, "delivery": "teleport", "warranty": 1})


def test_registry_builds_the_llm_agent(bridge: EventLoopThread) -> None:
    llm = LLMSession(FakeLLM([]), bridge=bridge)
    negotiator = create("llm", party="buyer", seed=3, llm=llm, twin="conceder")
    assert isinstance(negotiator, LLMNegotiator)
    with pytest.raises(ScenarioError, match="--llm"):
        create("llm", party="buyer", seed=3)
