"""The LLM termination judge and offer mediator on recorded replies, checked by code."""

from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import pytest
from llm_market import market_space

from parley.domain.issues import Value
from parley.llm import EventLoopThread, LLMJudge, LLMOfferMediator, LLMSession, SilentMediator
from parley.llm.judge import admissible
from parley.protocol import Event, JudgeView, MediatorView, Record, RuleJudge, Verdict
from parley.testing import FakeLLM

FIXTURES = Path(__file__).parent / "fixtures"
JUDGE_CASES: list[dict[str, Any]] = json.loads((FIXTURES / "judge_replies.json").read_text("utf-8"))
MEDIATOR_CASES: list[dict[str, Any]] = json.loads((FIXTURES / "mediator_replies.json").read_text("utf-8"))


@pytest.mark.parametrize("case", JUDGE_CASES, ids=[c["name"] for c in JUDGE_CASES])
def test_judge_recorded_reply(case: dict[str, Any], bridge: EventLoopThread) -> None:
    fake = FakeLLM(case["replies"])
    llm = LLMSession(fake, bridge=bridge)
    view = JudgeView(**({"round": 5, "max_rounds": 10, "offer_passed": False} | case["facts"]))

    judgement = LLMJudge(llm, ask_when_clear=True).judge(view)

    expect = case["expect"]
    assert judgement.verdict is Verdict(expect["verdict"]) and judgement.reason == expect["reason"]
    assert len(fake.requests) == expect["calls"]
    assert any(e.kind == "llm_fallback" for e in llm.events) is expect["fallback"]
    assert (judgement.verdict.value, judgement.reason) in admissible(view)


def test_judge_fallback_equals_rule_judge(bridge: EventLoopThread) -> None:
    view = JudgeView(3, 10, False, stagnation_unresolved=True)
    judge = LLMJudge(LLMSession(FakeLLM(["?", "?"]), bridge=bridge))
    assert judge.judge(view) == RuleJudge().judge(view)


def test_judge_skips_the_call_when_facts_leave_one_ruling(bridge: EventLoopThread) -> None:
    fake = FakeLLM([])
    judge = LLMJudge(LLMSession(fake, bridge=bridge))
    assert judge.judge(JudgeView(2, 10, False)).verdict is Verdict.CONTINUE
    assert judge.judge(JudgeView(2, 10, True)).verdict is Verdict.AGREEMENT
    assert fake.requests == []


def test_judge_prompt_holds_facts_only(bridge: EventLoopThread) -> None:
    fake = FakeLLM(['{"verdict": "continue"}'])
    LLMJudge(LLMSession(fake, bridge=bridge)).judge(JudgeView(4, 9, False, stagnation_unresolved=True))
    user = fake.requests[0].messages[1].content
    assert '"stagnation_unresolved": true' in user and '"round": 4' in user


def mediator_view() -> MediatorView:
    offers = [
        Event(
            1,
            "action",
            1,
            "buyer",
            {"kind": "propose", "package": {"price": 100, "delivery": "fast", "warranty": 2}},
        ),
        Event(
            2,
            "action",
            1,
            "seller",
            {"kind": "propose", "package": {"price": 500, "delivery": "slow", "warranty": 0}},
        ),
    ]
    signals: Mapping[str, Mapping[str, Any]] = {"buyer": {"priorities": ["price"]}, "seller": {}}
    return MediatorView(market_space(), ("buyer", "seller"), 4, Record(offers), signals)


@pytest.mark.parametrize("case", MEDIATOR_CASES, ids=[c["name"] for c in MEDIATOR_CASES])
def test_mediator_recorded_reply(case: dict[str, Any], bridge: EventLoopThread) -> None:
    fake = FakeLLM(case["replies"])
    llm = LLMSession(fake, bridge=bridge)
    package = LLMOfferMediator(llm, twin=SilentMediator()).propose(mediator_view())
    expect = case["expect"]
    assert (dict(package) if package is not None else None) == expect["package"]
    assert len(fake.requests) == expect["calls"]
    assert any(e.kind == "llm_fallback" for e in llm.events) is expect["fallback"]


class FixedMediator:
    def propose(self, view: MediatorView) -> Mapping[str, Value] | None:
        return {"price": 300, "delivery": "fast", "warranty": 0}


def test_mediator_falls_back_to_its_twin(bridge: EventLoopThread) -> None:
    mediator = LLMOfferMediator(LLMSession(FakeLLM(["no", "no"]), bridge=bridge), twin=FixedMediator())
    assert mediator.propose(mediator_view()) == {"price": 300, "delivery": "fast", "warranty": 0}


def test_mediator_sees_public_offers_and_signals_only(bridge: EventLoopThread) -> None:
    fake = FakeLLM(['{"package": null}'])
    LLMOfferMediator(LLMSession(fake, bridge=bridge), twin=SilentMediator()).propose(mediator_view())
    prompt = "\n".join(m.content for m in fake.requests[0].messages)
    assert '"priorities": ["price"]' in prompt and "buyer: {" in prompt
    assert "0.35" not in prompt and "BATNA" not in prompt  # nothing private reaches the mediator


def test_default_twin_is_the_pareto_mediator(bridge: EventLoopThread) -> None:
    from parley.mediation import ParetoMediator

    view = mediator_view()
    mediator = LLMOfferMediator(LLMSession(FakeLLM(["no", "no"]), bridge=bridge))
    expected = ParetoMediator().propose(view)
    assert expected is not None and mediator.propose(view) == expected
