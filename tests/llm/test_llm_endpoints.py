"""Badly behaved endpoints (issue 16): odd usage fields, trickling servers, dead or failing endpoints,
loud fallbacks, strict schemas, replayable failures, truncated replies and repair that never guesses."""

from __future__ import annotations

import json
import math
import socket
import threading
import time
from collections.abc import Awaitable, Callable, Mapping
from pathlib import Path
from typing import Any

import pytest
from pydantic import BaseModel
from typer.testing import CliRunner

from parley.cli.app import app
from parley.errors import LLMError
from parley.llm import (
    Endpoint,
    EventLoopThread,
    LLMRequest,
    LLMRuntime,
    LLMSession,
    LLMSettings,
    OpenAIClient,
    PromptTemplate,
    RetryPolicy,
    Role,
    repair_package,
)
from parley.llm.types import conversation
from parley.protocol.clock import FakeClock
from parley.testing import FakeLLM, StubReply, StubServer

REQUEST = LLMRequest("stub-model", conversation("You are terse.", "Say hi."), schema={"type": "object"})
TEMPLATE = PromptTemplate.parse("t", "[system]\nAnswer.\n${output_schema}\n[user]\nGo ${n}.")


class Answer(BaseModel):
    value: int


def no_sleep(into: list[float]) -> Callable[[float], Awaitable[None]]:
    async def sleep(seconds: float) -> None:
        into.append(seconds)

    return sleep


def completion(
    content: str, *, usage: Any = None, finish_reason: str = "stop", omit_usage: bool = False
) -> str:
    body: dict[str, Any] = {
        "model": "stub-model",
        "choices": [
            {"index": 0, "message": {"role": "assistant", "content": content}, "finish_reason": finish_reason}
        ],
    }
    if not omit_usage:
        body["usage"] = usage
    return json.dumps(body)


def free_port() -> int:
    """A port nothing listens on (bound, then released)."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


# -- 1. usage fields are optional input ------------------------------------------------------------


@pytest.mark.parametrize(
    "usage",
    [
        None,
        "lots",
        7,
        [1, 2],
        {},
        {"prompt_tokens": None, "completion_tokens": None},
        {"prompt_tokens": "12", "completion_tokens": "x"},
        {"prompt_tokens": -5, "completion_tokens": 3},
        {"prompt_tokens": 1.5e400},
        {"prompt_tokens": True, "completion_tokens": False},
        "omit",
    ],
)
def test_odd_usage_fields_are_counted_as_unknown(usage: Any, bridge: EventLoopThread) -> None:
    body = completion('{"value": 1}', usage=usage, omit_usage=usage == "omit")
    with StubServer([StubReply(body=body)]) as stub:
        client = OpenAIClient(Endpoint(stub.base_url, "stub-model", timeout_s=5), bridge=bridge)
        response = client.complete_sync(REQUEST)
        client.close()
    assert response.text == '{"value": 1}'
    assert response.usage.estimated
    assert response.usage.prompt_tokens > 0 and response.usage.completion_tokens >= 0


def test_reported_usage_is_used_when_it_is_valid(bridge: EventLoopThread) -> None:
    body = completion("hi", usage={"prompt_tokens": 17, "completion_tokens": 2})
    with StubServer([StubReply(body=body)]) as stub:
        client = OpenAIClient(Endpoint(stub.base_url, "stub-model", timeout_s=5), bridge=bridge)
        response = client.complete_sync(REQUEST)
        client.close()
    assert (response.usage.prompt_tokens, response.usage.completion_tokens) == (17, 2)
    assert not response.usage.estimated


def test_null_usage_does_not_break_a_casino_game(bridge: EventLoopThread) -> None:
    reply = {"move": "say", "message": "Let us talk.", "priorities": []}
    body = completion(json.dumps(reply), usage={"prompt_tokens": None, "completion_tokens": "n/a"})
    with StubServer(lambda _: StubReply(body=body)) as stub:
        result = CliRunner().invoke(
            app,
            [*casino("--json"), "--llm", stub.spec("m")],
        )
    assert result.exit_code == 0, result.output
    summary = json.loads(result.stdout)
    assert "no_deal" not in summary or summary["no_deal"]["reason"] != "protocol_violation", summary
    assert "TypeError" not in result.output


# -- 2. timeout_s bounds the whole call -----------------------------------------------------------


class TricklingServer:
    """A TCP server on 127.0.0.1 that answers every request with a valid HTTP response, one byte per
    `interval` seconds (so no single read ever waits long)."""

    def __init__(self, interval: float = 0.2) -> None:
        self.interval = interval
        self._listener = socket.create_server(("127.0.0.1", 0))
        self._listener.settimeout(0.05)
        self._stop = threading.Event()
        self._threads: list[threading.Thread] = []
        self._accept = threading.Thread(target=self._serve, daemon=True)

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self._listener.getsockname()[1]}/v1"

    def __enter__(self) -> TricklingServer:
        self._accept.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._accept.join()
        for thread in self._threads:
            thread.join()
        self._listener.close()

    def _serve(self) -> None:
        while not self._stop.is_set():
            try:
                connection, _ = self._listener.accept()
            except TimeoutError:
                continue
            thread = threading.Thread(target=self._trickle, args=(connection,), daemon=True)
            self._threads.append(thread)
            thread.start()

    def _trickle(self, connection: socket.socket) -> None:
        body = completion("a reply that takes its time").encode()
        head = f"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: {len(body)}\r\n\r\n"
        with connection:
            connection.settimeout(1.0)
            try:
                connection.recv(65536)
                for byte in head.encode() + body:
                    if self._stop.wait(self.interval):
                        return
                    connection.sendall(bytes([byte]))
            except OSError:
                return


def test_a_trickling_server_is_cut_off_at_timeout_s(bridge: EventLoopThread) -> None:
    timeout_s = 1.0
    with TricklingServer(interval=0.2) as server:
        client = OpenAIClient(
            Endpoint(server.base_url, "stub-model", timeout_s=timeout_s),
            retry=RetryPolicy(max_attempts=1),
            bridge=bridge,
        )
        started = time.monotonic()
        with pytest.raises(LLMError, match="timed out"):
            client.complete_sync(REQUEST)
        elapsed = time.monotonic() - started
        client.close()
    # Cut off at the deadline: not before it (a lower bound, which load cannot break), and long before
    # the 48 s the whole trickled response takes (238 bytes at 0.2 s). The upper bound leaves 4 s for a
    # loaded machine to schedule the client's threads (it needs milliseconds of CPU); a client bounding
    # only the gap between bytes would not time out at all.
    assert 0.9 * timeout_s <= elapsed < 5 * timeout_s, elapsed


# -- 4. fallbacks are loud -------------------------------------------------------------------------


def casino(*extra: str) -> list[str]:
    return ["run", "casino", "--agent", "llm", "--agent", "boulware", "--max-rounds", "4", *extra]


@pytest.fixture
def one_attempt(tmp_path: Path) -> Path:
    """An LLM config with no retries (a dead endpoint then costs nothing but a refused connect)."""
    config = tmp_path / "llm.yaml"
    config.write_text("max_attempts: 1\n", "utf-8")
    return config


def test_an_unreachable_endpoint_fails_the_run_and_says_why(one_attempt: Path, tmp_path: Path) -> None:
    url = f"http://127.0.0.1:{free_port()}/v1"
    result = CliRunner().invoke(
        app, casino("--llm", f"{url}#m", "--llm-config", str(one_attempt), "--save", str(tmp_path / "out"))
    )
    assert result.exit_code == 3, result.output
    lines = result.stderr.splitlines()
    first = f"llm: POST {url}/chat/completions: connection refused"
    assert lines.count(first) == 1, result.stderr
    summary = [line for line in lines if line.startswith("llm: negotiator: ")]
    assert len(summary) == 1 and "fell back to the rule twin" in summary[0]
    assert " of " in summary[0] and summary[0].endswith(": connection refused")
    moves, _, rest = summary[0].removeprefix("llm: negotiator: ").partition(" of ")
    assert rest.startswith(f"{moves} ")  # every move fell back
    assert "--allow-fallback" in result.stderr
    saved = json.loads((tmp_path / "out" / "result.json").read_text("utf-8"))
    assert saved["llm_fallback"]["negotiator"]["fallback_share"] == 1.0


def test_allow_fallback_accepts_a_run_played_by_the_twin(one_attempt: Path) -> None:
    url = f"http://127.0.0.1:{free_port()}/v1"
    result = CliRunner().invoke(
        app, casino("--llm", f"{url}#m", "--llm-config", str(one_attempt), "--allow-fallback", "--json")
    )
    assert result.exit_code == 0, result.output
    assert "fell back to the rule twin: connection refused" in result.stderr
    assert json.loads(result.stdout)["llm_fallback"]["negotiator"]["fallback_share"] == 1.0


def test_strict_fails_on_the_first_fallback(one_attempt: Path) -> None:
    calls: list[int] = []

    def plan(body: Mapping[str, Any]) -> StubReply:
        calls.append(1)
        if len(calls) == 1:
            return StubReply.ok({"move": "say", "message": "Hello there.", "priorities": []})
        return StubReply.ok("no json here")

    with StubServer(plan) as stub:
        result = CliRunner().invoke(
            app, casino("--llm", stub.spec("m"), "--llm-config", str(one_attempt), "--llm-strict")
        )
    assert result.exit_code != 0
    assert "--llm-strict" in result.stderr and "negotiator" in result.stderr
    assert "Traceback" not in result.output
    assert len(calls) == 3  # one good move, then one bad reply and its re-ask: no further move asked


def test_a_404_says_why_on_the_first_failure(bridge: EventLoopThread) -> None:
    notices: list[str] = []
    missing = StubReply.error(404, body='{"error": {"message": "model m does not exist"}}')
    with StubServer([missing, missing]) as stub:
        settings = LLMSettings.model_validate({"default": stub.spec("m")})
        with LLMRuntime(settings, bridge=bridge, notify=notices.append) as runtime:
            llm = runtime.session("s")
            first = Role("probe", Answer, TEMPLATE, llm).call({"n": 1})
            second = Role("probe", Answer, TEMPLATE, llm).call({"n": 2})
    assert first.value is None and second.value is None
    assert len(notices) == 1
    assert notices[0].startswith(f"llm: POST {stub.base_url}/chat/completions: HTTP 404")
    assert "model m does not exist" in notices[0] and "\n" not in notices[0]


def test_usage_reports_fallback_share_and_cause(bridge: EventLoopThread) -> None:
    llm = LLMSession(
        FakeLLM([LLMError("llm: POST http://x/v1/chat/completions: connection refused"), '{"value": 2}']),
        bridge=bridge,
    )
    role = Role("probe", Answer, TEMPLATE, llm)
    assert role.call({"n": 1}).value is None and role.call({"n": 2}).value == Answer(value=2)
    totals = llm.usage().by_role["probe"]
    assert (totals.decisions, totals.fallbacks, totals.fallback_share) == (2, 1, 0.5)
    data = llm.usage().to_json()["by_role"]["probe"]
    assert data["fallback_share"] == 0.5 and data["decisions"] == 2


# -- 5. every role's schema has required fields -----------------------------------------------------


def _reply_models() -> list[type[BaseModel]]:
    from parley.llm.judge import JudgeReply
    from parley.llm.mediator import MediatorReply
    from parley.llm.negotiator import NegotiatorReply
    from parley.llm.roles import (
        astra_stages,
        gaia_critic,
        gaia_extractor,
        gaia_moderator,
        promediate_consensus,
        promediate_mediators,
        promediate_participant,
    )

    models: list[type[BaseModel]] = [JudgeReply, MediatorReply, NegotiatorReply]
    for module in (
        astra_stages,
        gaia_critic,
        gaia_extractor,
        gaia_moderator,
        promediate_consensus,
        promediate_mediators,
        promediate_participant,
    ):
        models += [
            value
            for name, value in vars(module).items()
            if isinstance(value, type)
            and issubclass(value, BaseModel)
            and value.__module__ == module.__name__
            and (name.endswith("Reply") or name == "InterventionDraft")
        ]
    return models


@pytest.mark.parametrize("output", _reply_models(), ids=lambda m: m.__name__)
def test_an_empty_or_wrong_object_is_not_a_valid_answer(output: type[BaseModel]) -> None:
    assert output.model_json_schema().get("required"), f"{output.__name__} has no required field"
    for wrong in ({}, {"answer": "yes"}):
        with pytest.raises(ValueError):
            output.model_validate(wrong)


def test_a_role_over_a_model_without_required_fields_is_refused(bridge: EventLoopThread) -> None:
    from parley.errors import InternalError

    class Loose(BaseModel):
        note: str = ""

    with pytest.raises(InternalError, match="required"):
        Role("probe", Loose, TEMPLATE, LLMSession(FakeLLM([]), bridge=bridge))


def test_empty_mediator_reply_is_reasked_then_the_twin_plus_an_event(bridge: EventLoopThread) -> None:
    from llm_market import market_space

    from parley.llm import LLMOfferMediator
    from parley.protocol import MediatorView, Record

    class Twin:
        def propose(self, view: MediatorView) -> Mapping[str, Any] | None:
            return {"price": 300}

    llm = LLMSession(FakeLLM(["{}", '{"rationale": "fine"}']), bridge=bridge)
    view = MediatorView(market_space(), ("buyer", "seller"), 3, Record([]), {})
    assert LLMOfferMediator(llm, Twin()).propose(view) == {"price": 300}
    assert [e.kind for e in llm.events] == ["llm_fallback"]
    assert llm.events[0].data["reason"] == "schema_invalid" and llm.events[0].data["calls"] == 2


# -- 3. circuit breaker and run budget ---------------------------------------------------------------


def test_circuit_opens_after_consecutive_failures(bridge: EventLoopThread) -> None:
    sleeps: list[float] = []
    with StubServer(lambda _: StubReply.error(500)) as stub:
        settings = LLMSettings.model_validate(
            {"default": stub.spec("m"), "max_attempts": 2, "circuit_failures": 3}
        )
        with LLMRuntime(settings, bridge=bridge, sleeper=no_sleep(sleeps)) as runtime:
            llm = runtime.session("s")
            outcomes = [Role("probe", Answer, TEMPLATE, llm).call({"n": n}) for n in range(8)]
    assert all(o.value is None for o in outcomes)
    assert len(stub.stats.requests) == 3 * 2  # three calls with their retry, then nothing
    reasons = [e.data["reason"] for e in llm.events]
    assert reasons == ["endpoint_error"] * 3 + ["circuit_open"] * 5
    assert len(sleeps) == 3


def test_token_budget_stops_calls(bridge: EventLoopThread) -> None:
    body = completion('{"value": 3}', usage={"prompt_tokens": 60, "completion_tokens": 10})
    with StubServer(lambda _: StubReply(body=body)) as stub:
        settings = LLMSettings.model_validate({"default": stub.spec("m"), "budget_tokens": 100})
        with LLMRuntime(settings, bridge=bridge) as runtime:
            llm = runtime.session("s")
            outcomes = [Role("probe", Answer, TEMPLATE, llm).call({"n": n}) for n in range(4)]
    assert [o.value is not None for o in outcomes] == [True, True, False, False]
    assert len(stub.stats.requests) == 2
    assert {e.data["reason"] for e in llm.events} == {"budget_exhausted"}


def test_retry_after_beyond_the_budget_is_not_waited_for(bridge: EventLoopThread) -> None:
    sleeps: list[float] = []
    clock = FakeClock()
    with StubServer(lambda _: StubReply.error(429, retry_after="30")) as stub:
        settings = LLMSettings.model_validate({"default": stub.spec("m"), "budget_seconds": 10})
        with LLMRuntime(settings, bridge=bridge, sleeper=no_sleep(sleeps), clock=clock) as runtime:
            outcome = Role("probe", Answer, TEMPLATE, runtime.session("s")).call({"n": 1})
            clock.advance(11)
            late = Role("probe", Answer, TEMPLATE, runtime.session("t")).call({"n": 2})
    assert outcome.value is None and "Retry-After" in outcome.detail
    assert sleeps == [] and len(stub.stats.requests) == 1
    assert late.fallback == "budget_exhausted"


def test_budget_flags_reach_the_settings() -> None:
    from parley.cli.llm import llm_options_from_cli

    settings = llm_options_from_cli(
        "openai:gpt-4o-mini", [], None, budget_seconds=90.0, budget_tokens=5000, strict=True
    )
    assert (settings.budget_seconds, settings.budget_tokens, settings.strict) == (90.0, 5000, True)


# -- 6. failures are recorded and replayed -----------------------------------------------------------


def test_a_run_with_endpoint_errors_replays_identically(tmp_path: Path, bridge: EventLoopThread) -> None:
    plan = [
        StubReply.ok({"value": 1}),
        StubReply.error(500),
        StubReply.ok({"value": 3}),
        StubReply.error(404),
    ]

    def play(settings: LLMSettings) -> list[Any]:
        with LLMRuntime(settings, bridge=bridge) as runtime:
            llm = runtime.session("s")
            outcomes = [Role("probe", Answer, TEMPLATE, llm).call({"n": n}) for n in range(4)]
        return [(o.value, o.fallback, o.detail) for o in outcomes] + [list(llm.events)]

    with StubServer(plan) as stub:
        live = play(
            LLMSettings.model_validate({"default": stub.spec("m"), "max_attempts": 1, "record": tmp_path})
        )
    replayed = play(LLMSettings.model_validate({"default": "http://127.0.0.1:9/v1#m", "replay": tmp_path}))
    assert replayed == live
    assert [row[1] for row in live[:4]] == [None, "endpoint_error", None, "endpoint_error"]


# -- 7. truncation, max_tokens, re-ask size, role-only specs, per-runtime limits, repair --------------


def test_a_cut_off_reply_is_invalid_and_reasked(bridge: EventLoopThread) -> None:
    cut = StubReply(body=completion('{"value": 4}', finish_reason="length"))
    with StubServer([cut, StubReply.ok({"value": 5})]) as stub:
        settings = LLMSettings.model_validate({"default": stub.spec("m")})
        with LLMRuntime(settings, bridge=bridge) as runtime:
            outcome = Role("probe", Answer, TEMPLATE, runtime.session("s")).call({"n": 1})
    assert outcome.value == Answer(value=5) and outcome.calls == 2
    assert all(isinstance(body.get("max_tokens"), int) for body in stub.stats.requests)


def test_a_reask_quotes_at_most_2000_characters_of_the_bad_reply(bridge: EventLoopThread) -> None:
    fake = FakeLLM(["x" * 1_000_000, '{"value": 1}'])
    Role("probe", Answer, TEMPLATE, LLMSession(fake, bridge=bridge)).call({"n": 1})
    second = fake.requests[1]
    assert sum(len(m.content) for m in second.messages) < 5_000


def test_role_only_spec_needs_no_default(bridge: EventLoopThread) -> None:
    from parley.cli.llm import llm_options_from_cli, wire_llm
    from parley.llm import LLMJudge

    settings = llm_options_from_cli(None, ["judge=openai:gpt-4o"], None)
    assert settings.enabled
    with LLMRuntime(settings, bridge=bridge, environ={"OPENAI_API_KEY": "sk-test"}) as runtime:
        wiring = wire_llm(runtime, "s", {"alice": "boulware", "bob": "boulware"})
        assert isinstance(wiring.judge, LLMJudge)
        with pytest.raises(LLMError, match="negotiator"):
            Role("negotiator", Answer, TEMPLATE, wiring.session)


def test_concurrency_limit_belongs_to_each_runtime(bridge: EventLoopThread) -> None:
    import asyncio

    async def burst(runtime: LLMRuntime) -> None:
        client = runtime.client()
        await asyncio.gather(*(client.complete(REQUEST) for _ in range(12)))

    with StubServer(lambda _: StubReply.ok("x", delay_s=0.05)) as stub:
        narrow = LLMSettings.model_validate({"default": {"spec": stub.spec("m"), "concurrency": 1}})
        wide = LLMSettings.model_validate({"default": {"spec": stub.spec("m"), "concurrency": 6}})
        with LLMRuntime(narrow, bridge=bridge) as runtime:
            asyncio.run(burst(runtime))
        assert stub.stats.max_in_flight == 1
        with LLMRuntime(wide, bridge=bridge) as runtime:
            asyncio.run(burst(runtime))
    assert 2 <= stub.stats.max_in_flight <= 6


def test_repair_never_guesses() -> None:
    from llm_market import market_space

    space = market_space()
    table = {issue.name: issue.values[-1] for issue in space.issues}
    for bad in (math.nan, math.inf, "nan", float("-inf")):
        numeric = next(i for i in space.issues if all(isinstance(v, int | float) for v in i.values))
        package: dict[str, Any] = {i.name: i.values[0] for i in space.issues} | {numeric.name: bad}
        with pytest.raises(ValueError, match="not an option"):
            repair_package(space, package)
    with pytest.raises(ValueError, match="no issue"):
        repair_package(space, {"colour": "red"}, table)
    partial = {space.issues[0].name: space.issues[0].values[0]}
    repaired, notes = repair_package(space, partial, table)
    assert repaired[space.issues[0].name] == space.issues[0].values[0] and notes
