"""Specs, YAML settings, CLI flags, the runtime built from them, prices and usage summaries."""

from __future__ import annotations

from pathlib import Path

import pytest

from parley.cli.llm import llm_options_from_cli
from parley.errors import LLMError, ScenarioError
from parley.llm import (
    CachedClient,
    EventLoopThread,
    LLMResponse,
    LLMRuntime,
    LLMSettings,
    OpenAIClient,
    RecordingClient,
    ReplayClient,
    TokenUsage,
    UsageLedger,
    load_prices,
    load_settings,
    parse_spec,
)
from parley.protocol import Trajectory

KEYS = {"OPENAI_API_KEY": "sk-test"}


def test_spec_forms() -> None:
    openai = parse_spec("openai:gpt-4o-mini")
    assert (openai.base_url, openai.model, openai.api_key_env) == (
        "https://api.openai.com/v1",
        "gpt-4o-mini",
        "OPENAI_API_KEY",
    )
    local = parse_spec("http://localhost:11434/v1#qwen2.5:7b")
    assert (local.base_url, local.model, local.api_key_env) == (
        "http://localhost:11434/v1",
        "qwen2.5:7b",
        None,
    )
    assert parse_spec("ollama:llama3.1").base_url == "http://localhost:11434/v1"
    assert parse_spec("vllm:meta-llama/Llama-3.1-8B-Instruct").model == "meta-llama/Llama-3.1-8B-Instruct"
    azure = parse_spec("azure:myres/gpt4o-deploy")
    assert azure.base_url == "https://myres.openai.azure.com/openai/deployments/gpt4o-deploy"
    assert (azure.auth, azure.api_key_env, azure.api_version) == (
        "azure",
        "AZURE_OPENAI_API_KEY",
        "2024-10-21",
    )
    for bad in ("gpt-4o", "http://localhost:8000/v1", "openai:", "azure:nodeployment"):
        with pytest.raises(ValueError, match="spec"):
            parse_spec(bad)


def test_yaml_settings(tmp_path: Path) -> None:
    file = tmp_path / "llm.yaml"
    file.write_text(
        "default: openai:gpt-4o-mini\n"
        "roles:\n"
        "  judge: openai:gpt-4o\n"
        "  mediator: {spec: 'http://localhost:11434/v1#qwen2.5:7b', concurrency: 2, api_key_env: LOCAL_KEY}\n"
        "temperature: 0.2\n"
        "cache: .parley/cache.sqlite\n",
        "utf-8",
    )
    settings = load_settings(file)
    assert settings.default is not None and settings.default.endpoint().model == "gpt-4o-mini"
    mediator = settings.roles["mediator"].endpoint()
    assert (mediator.concurrency, mediator.api_key_env, mediator.auth) == (2, "LOCAL_KEY", "bearer")
    assert settings.temperature == 0.2 and settings.enabled


@pytest.mark.parametrize(
    ("text", "field"),
    [
        ("default: gpt-4o\n", "default.spec"),
        ("roles: {judge: {spec: 'openai:gpt-4o', concurency: 3}}\n", "roles.judge.concurency"),
        ("temperature: 9\n", "temperature"),
        ("record: a\nreplay: b\n", ""),
    ],
)
def test_invalid_yaml_names_file_and_field(tmp_path: Path, text: str, field: str) -> None:
    file = tmp_path / "bad.yaml"
    file.write_text(text, "utf-8")
    with pytest.raises(ScenarioError) as raised:
        load_settings(file)
    assert raised.value.source == str(file)
    assert (raised.value.field or "") == field


def test_cli_flags_override_the_file(tmp_path: Path) -> None:
    file = tmp_path / "llm.yaml"
    file.write_text("default: openai:gpt-4o-mini\nroles: {judge: openai:gpt-4o}\nseed: 3\n", "utf-8")
    settings = llm_options_from_cli(
        "ollama:llama3.1", ["mediator=openai:gpt-4.1-mini"], file, record=tmp_path / "rec"
    )
    assert settings.default is not None and settings.default.spec == "ollama:llama3.1"
    assert set(settings.roles) == {"judge", "mediator"} and settings.seed == 3
    assert settings.record == tmp_path / "rec"
    assert not llm_options_from_cli(None, [], None).enabled
    with pytest.raises(ScenarioError, match="ROLE=SPEC"):
        llm_options_from_cli(None, ["judge"], None)
    with pytest.raises(ScenarioError, match="not an LLM spec"):
        llm_options_from_cli("nonsense", [], None)
    with pytest.raises(ScenarioError, match="exclude each other"):
        llm_options_from_cli("openai:gpt-4o", [], None, record=tmp_path, replay=tmp_path)


def test_runtime_stacks_cache_and_recorder(tmp_path: Path, bridge: EventLoopThread) -> None:
    settings = LLMSettings.model_validate(
        {
            "default": "openai:gpt-4o-mini",
            "roles": {"judge": "openai:gpt-4o"},
            "cache": tmp_path / "c.sqlite",
            "record": tmp_path / "rec",
        }
    )
    with LLMRuntime(settings, bridge=bridge, environ=KEYS) as runtime:
        client = runtime.client("negotiator")
        assert isinstance(client, RecordingClient) and isinstance(client.inner, CachedClient)
        assert isinstance(client.inner.inner, OpenAIClient)
        assert runtime.client("judge").model == "gpt-4o" and runtime.client("mediator") is client
        session = runtime.session("s1")
        assert session.client("judge").model == "gpt-4o"


def test_runtime_replay_and_unconfigured(tmp_path: Path, bridge: EventLoopThread) -> None:
    (tmp_path / "exchanges.jsonl").write_text(
        '{"key": "k", "request": {"model": "m1", "messages": []}, '
        '"response": {"text": "t", "model": "m1"}}\n',
        "utf-8",
    )
    with LLMRuntime(LLMSettings(replay=tmp_path), bridge=bridge) as runtime:
        assert isinstance(runtime.client(), ReplayClient) and runtime.client().model == "m1"
    with LLMRuntime(LLMSettings(), bridge=bridge) as runtime, pytest.raises(LLMError, match="--llm"):
        runtime.session()


def test_prices_and_usage_summary() -> None:
    prices = load_prices({"house-model": {"input": 1.0, "output": 2.0}})
    assert prices["gpt-4o-mini"].cost(1_000_000, 1_000_000) == pytest.approx(0.75)
    with pytest.raises(ScenarioError, match=r"prices\.broken"):
        load_prices({"broken": {"input": 1.0}})
    ledger = UsageLedger(prices)
    ledger.record("s1", "negotiator", LLMResponse("x", "gpt-4o-mini-2024-07-18", TokenUsage(1000, 100), 0.5))
    ledger.record("s1", "judge", LLMResponse("x", "house-model", TokenUsage(2000, 10), 0.25))
    ledger.record("s2", "negotiator", LLMResponse("x", "mystery", TokenUsage(10, 10), 0.1))
    ledger.record_fallback("s2", "negotiator")
    summary = ledger.summary()
    assert summary.total.calls == 3 and summary.total.prompt_tokens == 3010
    assert summary.by_role["negotiator"].cost_usd == pytest.approx((1000 * 0.15 + 100 * 0.6) / 1e6)
    assert summary.by_role["judge"].cost_usd == pytest.approx((2000 * 1.0 + 10 * 2.0) / 1e6)
    assert summary.total.unpriced_calls == 1 and summary.by_session["s2"].fallbacks == 1
    assert ledger.summary("s1").total.calls == 2
    rendered = summary.render()
    assert "negotiator" in rendered and "total" in rendered and "without a price" in rendered


def test_finish_appends_llm_events_and_usage(bridge: EventLoopThread) -> None:
    from parley.llm import LLMSession
    from parley.testing import FakeLLM

    llm = LLMSession(FakeLLM([]), session_id="t", bridge=bridge)
    llm.note("llm_guard", {"guard": "utility_leak"}, round=2, party="a", audience="a")
    trajectory = Trajectory()
    trajectory.append("session_started", round=1, time=1.5)
    summary = llm.finish(trajectory)
    assert [e.kind for e in trajectory] == ["session_started", "llm_guard", "llm_usage"]
    assert trajectory[1].audience == "a" and trajectory[1].round == 2 and trajectory[2].time == 1.5
    assert trajectory[2].data == summary.to_json()
    llm.fail(LLMError("replay miss: request abc"))
    with pytest.raises(LLMError, match="abc"):
        llm.finish(Trajectory())


def test_wire_llm_for_parley_run(bridge: EventLoopThread) -> None:
    from parley.cli.llm import wire_llm
    from parley.llm import LLMJudge, LLMOfferMediator

    plain = LLMSettings.model_validate({"default": "openai:gpt-4o-mini"})
    with LLMRuntime(plain, bridge=bridge, environ=KEYS) as runtime:
        wiring = wire_llm(runtime, "s0", {"alice": "llm", "bob": "boulware"})
        assert (
            set(wiring.agent_options) == {"alice"} and wiring.agent_options["alice"]["llm"] is wiring.session
        )
        assert wiring.judge is None and wiring.mediator is None  # the twins stay the default
    split = LLMSettings.model_validate(
        {"default": "openai:gpt-4o-mini", "roles": {"judge": "openai:gpt-4o", "mediator": "ollama:llama3.1"}}
    )
    with LLMRuntime(split, bridge=bridge, environ=KEYS) as runtime:
        wiring = wire_llm(runtime, "s1", {"alice": "boulware", "bob": "conceder"})
        assert isinstance(wiring.judge, LLMJudge) and isinstance(wiring.mediator, LLMOfferMediator)
        assert wiring.agent_options == {}
        assert wiring.session.client("judge").model == "gpt-4o"


def test_missing_key_fails_at_start_up(bridge: EventLoopThread) -> None:
    settings = LLMSettings.model_validate({"default": "openai:gpt-4o-mini"})
    with (
        LLMRuntime(settings, bridge=bridge, environ={}) as runtime,
        pytest.raises(LLMError, match="OPENAI_API_KEY"),
    ):
        runtime.session()
