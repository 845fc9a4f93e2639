"""The OpenAI-compatible client against a real HTTP stub on 127.0.0.1: retries, timeouts, limits, secrets."""

from __future__ import annotations

import asyncio
import json
import logging
from collections.abc import Awaitable, Callable

import pytest

from parley.errors import InternalError, LLMError
from parley.llm import Endpoint, EventLoopThread, LLMRequest, OpenAIClient, RetryPolicy
from parley.llm.types import conversation
from parley.testing import StubReply, StubServer

REQUEST = LLMRequest("stub-model", conversation("You are terse.", "Say hi."), schema={"type": "object"})
SECRET = "sk-test-DO-NOT-LEAK-4242"


def sleeper(into: list[float]) -> Callable[[float], Awaitable[None]]:
    async def sleep(seconds: float) -> None:
        into.append(seconds)

    return sleep


def client_for(
    stub: StubServer, bridge: EventLoopThread, sleeps: list[float], **endpoint: object
) -> OpenAIClient:
    settings: dict[str, object] = {"timeout_s": 5.0} | endpoint
    return OpenAIClient(
        Endpoint(stub.base_url, "stub-model", **settings),  # type: ignore[arg-type]
        bridge=bridge,
        sleeper=sleeper(sleeps),
        seed=7,
        environ={"STUB_KEY": SECRET},
    )


def test_completion_and_structured_request(bridge: EventLoopThread) -> None:
    sleeps: list[float] = []
    with StubServer([StubReply.ok({"hello": "world"})]) as stub:
        client = client_for(stub, bridge, sleeps)
        response = client.complete_sync(REQUEST)
        client.close()
    assert json.loads(response.text) == {"hello": "world"}
    assert response.source == "endpoint" and response.model == "stub-model"
    assert response.usage.prompt_tokens > 0 and not response.usage.estimated
    body = stub.stats.requests[0]
    assert body["response_format"]["type"] == "json_schema"
    assert body["response_format"]["json_schema"]["schema"] == {"type": "object"}
    assert sleeps == []


def test_429_honours_retry_after(bridge: EventLoopThread) -> None:
    sleeps: list[float] = []
    with StubServer([StubReply.error(429, retry_after="2"), StubReply.ok("fine")]) as stub:
        client = client_for(stub, bridge, sleeps)
        assert client.complete_sync(REQUEST).text == "fine"
        client.close()
    assert sleeps == [2.0]
    assert len(stub.stats.requests) == 2


def test_server_errors_back_off_exponentially_with_seeded_jitter(bridge: EventLoopThread) -> None:
    runs: list[list[float]] = []
    for _ in range(2):
        sleeps: list[float] = []
        with StubServer([StubReply.error(500), StubReply.error(503), StubReply.ok("done")]) as stub:
            client = client_for(stub, bridge, sleeps)
            assert client.complete_sync(REQUEST).text == "done"
            client.close()
        runs.append(sleeps)
    first, second = runs[0]
    assert 0.5 <= first <= 0.5 * 1.25 and 1.0 <= second <= 1.0 * 1.25
    assert runs[0] == runs[1]  # same seed, same jitter


def test_dropped_connection_is_retried(bridge: EventLoopThread) -> None:
    sleeps: list[float] = []
    with StubServer([StubReply.dropped(), StubReply.ok("back")]) as stub:
        client = client_for(stub, bridge, sleeps)
        assert client.complete_sync(REQUEST).text == "back"
        client.close()
    assert len(sleeps) == 1 and client.attempts == 2


def test_timeout_is_retried(bridge: EventLoopThread) -> None:
    sleeps: list[float] = []
    with StubServer([StubReply.ok("late", delay_s=0.8), StubReply.ok("on time")]) as stub:
        client = client_for(stub, bridge, sleeps, timeout_s=0.2)
        assert client.complete_sync(REQUEST).text == "on time"
        client.close()
    assert len(sleeps) == 1


def test_gives_up_after_max_attempts(bridge: EventLoopThread) -> None:
    sleeps: list[float] = []
    with StubServer([StubReply.error(500)] * 3) as stub:
        client = OpenAIClient(
            Endpoint(stub.base_url, "stub-model"),
            retry=RetryPolicy(max_attempts=3),
            bridge=bridge,
            sleeper=sleeper(sleeps),
        )
        with pytest.raises(LLMError, match=r"^llm: POST \S+/completions: HTTP 500 .*\(after 3 attempts\)$"):
            client.complete_sync(REQUEST)
        client.close()
    assert len(sleeps) == 2


def test_client_errors_are_not_retried(bridge: EventLoopThread) -> None:
    sleeps: list[float] = []
    with StubServer([StubReply.error(404, body='{"error": {"message": "no such model"}}')]) as stub:
        client = client_for(stub, bridge, sleeps)
        with pytest.raises(LLMError, match=r"HTTP 404 Not Found \(not retryable\): .*no such model"):
            client.complete_sync(REQUEST)
        client.close()
    assert len(stub.stats.requests) == 1 and sleeps == []


def test_refused_json_schema_downgrades_to_json_mode(bridge: EventLoopThread) -> None:
    refusal = StubReply.error(
        400, body='{"error": {"message": "response_format json_schema is not supported"}}'
    )
    with StubServer([refusal, StubReply.ok("{}"), StubReply.ok("{}")]) as stub:
        client = client_for(stub, bridge, [])
        client.complete_sync(REQUEST)
        client.complete_sync(REQUEST)
        client.close()
    formats = [body["response_format"]["type"] for body in stub.stats.requests]
    assert formats == ["json_schema", "json_object", "json_object"]


def test_concurrency_limit_holds_at_the_server(bridge: EventLoopThread) -> None:
    async def burst(client: OpenAIClient) -> list[str]:
        replies = await asyncio.gather(*(client.complete(REQUEST) for _ in range(24)))
        return [r.text for r in replies]

    with StubServer(lambda body: StubReply.ok("x", delay_s=0.03)) as stub:
        client = client_for(stub, bridge, [], concurrency=3)
        texts = asyncio.run(burst(client))  # a foreign event loop: calls hop to the bridge loop
        client.close()
    assert texts == ["x"] * 24
    assert 1 <= stub.stats.max_in_flight <= 3


def test_secret_is_sent_but_never_shown(bridge: EventLoopThread, caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.DEBUG)
    echo = StubReply.error(
        401, body=json.dumps({"error": {"message": f"Incorrect API key provided: {SECRET}"}})
    )
    with StubServer([StubReply.error(500, body=f"boom {SECRET}"), StubReply.ok("ok"), echo]) as stub:
        client = client_for(stub, bridge, [], api_key_env="STUB_KEY")
        assert client.complete_sync(REQUEST).text == "ok"
        with pytest.raises(LLMError) as raised:
            client.complete_sync(REQUEST)
        client.close()
    assert stub.stats.headers[0]["authorization"] == f"Bearer {SECRET}"
    assert SECRET not in str(raised.value) and "***" in str(raised.value)
    assert SECRET not in repr(client) and SECRET not in repr(client.endpoint)
    assert SECRET not in caplog.text
    assert SECRET not in json.dumps(REQUEST.to_json())


def test_missing_key_names_the_variable(bridge: EventLoopThread) -> None:
    client = OpenAIClient(Endpoint("http://127.0.0.1:9/v1", "m", "NOPE_KEY"), bridge=bridge, environ={})
    with pytest.raises(LLMError, match="NOPE_KEY is not set"):
        client.complete_sync(REQUEST)


def test_list_models(bridge: EventLoopThread) -> None:
    with StubServer([], model="stub-7b") as stub:
        client = client_for(stub, bridge, [])
        assert asyncio.run(client.list_models()) == ["stub-7b"]
        client.close()


def test_bridge_refuses_to_block_its_own_loop(bridge: EventLoopThread) -> None:
    async def inner() -> None:
        async def nothing() -> None:
            return None

        bridge.run(nothing())

    with pytest.raises(InternalError, match="own loop"):
        bridge.run(inner())


def test_broken_http_body_is_retried(bridge: EventLoopThread) -> None:
    sleeps: list[float] = []
    with StubServer([StubReply(body="{not json", status=200), StubReply.ok("whole")]) as stub:
        client = client_for(stub, bridge, sleeps)
        assert client.complete_sync(REQUEST).text == "whole"
        client.close()
    assert len(sleeps) == 1


def test_malformed_replies_over_http_end_in_a_fallback(bridge: EventLoopThread) -> None:
    from pydantic import BaseModel

    from parley.llm import LLMSession, PromptTemplate, Role

    class Answer(BaseModel):
        value: int

    template = PromptTemplate.parse("t", "[system]\nAnswer.\n${output_schema}\n[user]\nGo.")
    plan = [StubReply.ok("value: lots"), StubReply.ok("still {broken"), StubReply.ok("{'value': 4,}")]
    with StubServer(plan) as stub:
        client = client_for(stub, bridge, [])
        llm = LLMSession(client, bridge=bridge)
        first = Role("probe", Answer, template, llm).call({})
        second = Role("probe", Answer, template, llm).call({})
        client.close()
    assert first.value is None and first.fallback in {"malformed", "schema_invalid"} and first.calls == 2
    assert second.value == Answer(value=4) and second.repaired
    assert [e.kind for e in llm.events] == ["llm_fallback"]
    assert stub.stats.requests[1]["messages"][-1]["role"] == "user"  # the re-ask went over the wire
