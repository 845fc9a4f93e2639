"""The LLM stakeholder passes the negotiator conformance checks with a scripted model behind it."""

from __future__ import annotations

import json
from collections.abc import Iterator

import pytest

from parley.agents import create
from parley.llm import EventLoopThread, LLMNegotiator, LLMRequest, LLMSession
from parley.protocol import Negotiator
from parley.testing import FakeLLM, check_negotiator
from parley.testing.conformance import CHECKS


def options_in(request: LLMRequest) -> dict[str, list[object]]:
    """Issue → options, read back from the enums of the request's per-call schema."""
    assert request.schema is not None
    package = request.schema["properties"]["package"]["anyOf"][0]
    return {name: option["enum"] for name, option in package["properties"].items()}


def eager_model(request: LLMRequest) -> str:
    """Accepts whatever is on the table, else asks for the last option of every issue, and overshares."""
    system, user = request.messages[0].content, request.messages[1].content
    if "Answer it:" in user:
        return json.dumps({"move": "accept", "message": "Deal."})
    package = {name: values[-1] for name, values in options_in(request).items()}
    batna = system.split("(BATNA) = ", 1)[1].split(". ", 1)[0]  # the private block's own number
    return json.dumps({"move": "propose", "package": package, "message": f"Our BATNA is {batna}. Take it."})


@pytest.fixture
def own_bridge() -> Iterator[EventLoopThread]:
    thread = EventLoopThread("parley-llm-conformance")
    yield thread
    thread.close()


def test_llm_negotiator_conforms(own_bridge: EventLoopThread) -> None:
    def factory(party: str, seed: int) -> Negotiator:
        llm = LLMSession(FakeLLM(eager_model), bridge=own_bridge)
        return LLMNegotiator(party, llm, create("boulware", party=party, seed=seed))

    report = check_negotiator(factory)
    assert report.checks == CHECKS and report.moves > 0
