"""Whole sessions with an LLM stakeholder against a real HTTP stub: concurrency, usage, golden replay."""

from __future__ import annotations

import json
import os
import shutil
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest
from llm_play import golden_policy, play, simple_policy

from parley.errors import LLMError
from parley.llm import EventLoopThread, LLMRuntime, LLMSettings
from parley.testing import StubServer

GOLDEN = Path(__file__).parent / "fixtures" / "golden"
OFFLINE = "http://127.0.0.1:9/v1"  # replays never connect; only the model names matter


def test_fifty_concurrent_sessions_share_one_endpoint(bridge: EventLoopThread) -> None:
    with StubServer(simple_policy) as stub:
        settings = LLMSettings.model_validate({"default": {"spec": stub.spec(), "concurrency": 4}})
        with LLMRuntime(settings, bridge=bridge) as runtime:
            with ThreadPoolExecutor(max_workers=50) as pool:
                results = list(pool.map(lambda n: play(runtime.session(f"s{n}"), n), range(50)))
            summary = runtime.ledger.summary()
    assert 1 <= stub.stats.max_in_flight <= 4
    assert summary.total.calls == len(stub.stats.requests) and len(summary.by_session) == 50
    for code, result in enumerate(results):
        moves = [e for e in result.trajectory if e.kind == "action" and e.party == "buyer"]
        assert moves, f"session {code} has no buyer moves"
        for event in moves:
            assert event.data["message"] == f"S{code} proposes."
            assert event.data["package"]["price"] == 100 * (1 + code % 5)
        usage = result.trajectory.of_kind("llm_usage")[-1].data
        assert list(usage["by_session"]) == [f"s{code}"] and usage["total"]["calls"] == len(moves)


def record_golden(target: Path, bridge: EventLoopThread) -> str:
    """Play the golden session live against the stub, recording to target/recording."""
    with StubServer(golden_policy) as stub:
        settings = LLMSettings.model_validate(
            {
                "default": stub.spec("party-model"),
                "roles": {"judge": stub.spec("judge-model")},
                "record": target / "recording",
            }
        )
        with LLMRuntime(settings, bridge=bridge) as runtime:
            return play(runtime.session("golden"), 1, llm_judge=True).trajectory.to_jsonl()


def replay_golden(recording: Path, bridge: EventLoopThread) -> str:
    settings = LLMSettings.model_validate(
        {
            "default": f"{OFFLINE}#party-model",
            "roles": {"judge": f"{OFFLINE}#judge-model"},
            "replay": recording,
        }
    )
    with LLMRuntime(settings, bridge=bridge) as runtime:
        return play(runtime.session("golden"), 1, llm_judge=True).trajectory.to_jsonl()


def test_record_then_replay_is_byte_identical(tmp_path: Path, bridge: EventLoopThread) -> None:
    live = record_golden(tmp_path, bridge)
    assert replay_golden(tmp_path / "recording", bridge) == live


def test_golden_transcript_replays_byte_identical(bridge: EventLoopThread, tmp_path: Path) -> None:
    if os.environ.get("PARLEY_UPDATE_GOLDEN"):
        shutil.rmtree(GOLDEN, ignore_errors=True)
        (GOLDEN / "trajectory.jsonl").parent.mkdir(parents=True)
        (GOLDEN / "trajectory.jsonl").write_text(record_golden(GOLDEN, bridge), "utf-8")
    expected = (GOLDEN / "trajectory.jsonl").read_text("utf-8")
    try:
        replayed = replay_golden(GOLDEN / "recording", bridge)
    except LLMError as miss:  # the prompts changed: a prompt template, a renderer or the boulware baseline
        pytest.fail(
            f"{miss}\nIf that change is intended, re-record: PARLEY_UPDATE_GOLDEN=1 pytest {__file__}"
        )
    assert replayed == expected

    events = [json.loads(line) for line in expected.splitlines()]
    kinds = [e["kind"] for e in events]
    assert "agreement" in kinds or "no_deal" in kinds
    guards = [e["data"]["guard"] for e in events if e["kind"] == "llm_guard"]
    assert {"utility_leak", "batna_floor_accept", "batna_floor_propose"} <= set(guards)
    usage = events[-1]
    assert usage["kind"] == "llm_usage" and set(usage["data"]["by_role"]) == {"judge", "negotiator"}
    spoken = " ".join(e["data"].get("message", "") for e in events if e["kind"] == "action")
    assert "0.35" not in spoken and "walk-away" not in spoken


def test_replay_miss_surfaces_after_the_session(tmp_path: Path, bridge: EventLoopThread) -> None:
    record_golden(tmp_path, bridge)
    settings = LLMSettings.model_validate(
        {"default": f"{OFFLINE}#party-model", "replay": tmp_path / "recording"}
    )
    with (
        LLMRuntime(settings, bridge=bridge) as runtime,
        pytest.raises(LLMError, match=r"replay miss: request [0-9a-f]{64}"),
    ):
        play(runtime.session("golden"), 2)  # a different brief: nothing recorded matches


def test_secret_stays_out_of_recordings_and_trajectories(tmp_path: Path, bridge: EventLoopThread) -> None:
    secret = "sk-live-never-write-me-0001"
    with StubServer(simple_policy) as stub:
        settings = LLMSettings.model_validate(
            {"default": {"spec": stub.spec(), "api_key_env": "STUB_KEY"}, "record": tmp_path / "rec"}
        )
        with LLMRuntime(settings, bridge=bridge, environ={"STUB_KEY": secret}) as runtime:
            result = play(runtime.session("s"), 3, max_rounds=3)
            assert secret not in repr(runtime.client()) and secret not in repr(settings)
    assert all(h["authorization"] == f"Bearer {secret}" for h in stub.stats.headers)
    assert secret not in result.trajectory.to_jsonl()
    assert secret not in (tmp_path / "rec" / "exchanges.jsonl").read_text("utf-8")
