"""The generic Role: template → client → parse/repair/validate → re-ask once → fallback event."""

from __future__ import annotations

import pytest
from pydantic import BaseModel

from parley.errors import InternalError, LLMError
from parley.llm import EventLoopThread, LLMSession, PromptTemplate, Role, parse_reply
from parley.llm.structured import ReplyInvalid, extract_json
from parley.testing import FakeLLM

TEMPLATE = PromptTemplate.parse(
    "probe", "notes\n[system]\nRate ${thing}.\n${output_schema}\n[user]\nGo: ${thing}"
)


class Rating(BaseModel):
    stars: int
    comment: str = ""


def no_fives(rating: Rating) -> Rating:
    if rating.stars > 4:
        raise ValueError("stars must be at most 4")
    return rating


def test_valid_reply(bridge: EventLoopThread) -> None:
    fake = FakeLLM(['{"stars": 3}'])
    llm = LLMSession(fake, bridge=bridge)
    outcome = Role("rater", Rating, TEMPLATE, llm).call({"thing": "tea"})
    assert outcome.value == Rating(stars=3) and outcome.calls == 1 and not outcome.repaired
    assert fake.requests[0].messages[0].content.startswith("Rate tea.")
    assert '"stars"' in fake.requests[0].messages[0].content  # the schema is in the prompt
    assert llm.usage().by_role["rater"].calls == 1


def test_repairable_reply(bridge: EventLoopThread) -> None:
    outcome = Role(
        "rater", Rating, TEMPLATE, LLMSession(FakeLLM(["Here: {stars: 2, 'comment': 'ok',}"]), bridge=bridge)
    ).call({"thing": "tea"})
    assert outcome.value == Rating(stars=2, comment="ok") and outcome.repaired


def test_validator_failure_is_reasked_then_falls_back(bridge: EventLoopThread) -> None:
    fake = FakeLLM(['{"stars": 5}', '{"stars": 9}'])
    llm = LLMSession(fake, bridge=bridge)
    outcome = Role("rater", Rating, TEMPLATE, llm).call({"thing": "tea"}, validate=no_fives, round=4)
    assert outcome.value is None and outcome.fallback == "schema_invalid" and outcome.calls == 2
    assert "stars must be at most 4" in fake.requests[1].messages[-1].content
    (event,) = llm.events
    assert event.kind == "llm_fallback" and event.round == 4 and event.audience == "public"
    assert event.data["role"] == "rater" and event.data["reason"] == "schema_invalid"
    summary = llm.usage()
    assert summary.by_role["rater"].fallbacks == 1 and summary.by_role["rater"].calls == 2


def test_endpoint_failure_falls_back_without_reask(bridge: EventLoopThread) -> None:
    fake = FakeLLM([LLMError("endpoint down")])
    outcome = Role("rater", Rating, TEMPLATE, LLMSession(fake, bridge=bridge)).call({"thing": "tea"})
    assert outcome.fallback == "endpoint_error" and len(fake.requests) == 1


def test_per_role_clients(bridge: EventLoopThread) -> None:
    parties, judge = FakeLLM(['{"stars": 1}'], model="small"), FakeLLM(['{"stars": 2}'], model="big")
    llm = LLMSession({"default": parties, "judge": judge}, bridge=bridge)
    assert Role("judge", Rating, TEMPLATE, llm).call({"thing": "x"}).value == Rating(stars=2)
    assert Role("negotiator", Rating, TEMPLATE, llm).call({"thing": "x"}).value == Rating(stars=1)
    assert judge.requests[0].model == "big" and parties.requests[0].model == "small"


def test_missing_template_variable_is_an_internal_error() -> None:
    with pytest.raises(InternalError, match="thing"):
        TEMPLATE.render({})


def test_parse_reply_kinds() -> None:
    assert extract_json('{"a": 1}') == ({"a": 1}, False)
    assert extract_json('text ```json\n{"a": 2}\n``` more') == ({"a": 2}, True)
    with pytest.raises(ReplyInvalid) as malformed:
        parse_reply("no json at all", Rating)
    assert malformed.value.kind == "malformed"
    with pytest.raises(ReplyInvalid) as invalid:
        parse_reply('{"stars": "many"}', Rating)
    assert invalid.value.kind == "schema_invalid" and "stars" in str(invalid.value)
