"""Response cache, recording and replay: same request → same answer, a miss names the request hash."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest

from parley.errors import LLMError
from parley.llm import CachedClient, LLMRequest, RecordingClient, ReplayClient, ReplayMiss, ResponseCache
from parley.llm.types import conversation
from parley.testing import FakeLLM


def ask(text: str, temperature: float = 0.0) -> LLMRequest:
    return LLMRequest("fake-model", conversation("sys", text), temperature=temperature)


def test_cache_serves_repeats_without_calling(tmp_path: Path) -> None:
    fake = FakeLLM(["one", "two"])
    cache = ResponseCache(tmp_path / "cache.sqlite")
    client = CachedClient(fake, cache)
    first = asyncio.run(client.complete(ask("a")))
    again = asyncio.run(client.complete(ask("a")))
    other = asyncio.run(client.complete(ask("a", temperature=0.7)))  # temperature is part of the key
    cache.close()
    assert (first.text, again.text, other.text) == ("one", "one", "two")
    assert (first.source, again.source) == ("fake", "cache")
    assert len(fake.requests) == 2


def test_cache_persists_across_processes_worth_of_clients(tmp_path: Path) -> None:
    path = tmp_path / "c.sqlite"
    first = ResponseCache(path)
    asyncio.run(CachedClient(FakeLLM(["kept"]), first).complete(ask("q")))
    first.close()
    second = ResponseCache(path)
    reply = asyncio.run(CachedClient(FakeLLM([]), second).complete(ask("q")))
    assert len(second) == 1
    second.close()
    assert reply.text == "kept"


def test_record_then_replay(tmp_path: Path) -> None:
    recorder = RecordingClient(FakeLLM(["r1", "r2", "r3"]), tmp_path)
    for text in ("a", "b", "a"):
        asyncio.run(recorder.complete(ask(text)))
    lines = (tmp_path / "exchanges.jsonl").read_text("utf-8").splitlines()
    assert len(lines) == 3 and json.loads(lines[0])["request"]["messages"][1]["content"] == "a"

    replay = ReplayClient(tmp_path)
    assert replay.model == "fake-model"
    texts = [asyncio.run(replay.complete(ask(t))).text for t in ("a", "b", "a", "a")]
    assert texts == ["r1", "r2", "r3", "r3"]  # repeats served in recorded order, the last one repeats


def test_replay_miss_names_the_request_hash(tmp_path: Path) -> None:
    asyncio.run(RecordingClient(FakeLLM(["x"]), tmp_path).complete(ask("known")))
    request = ask("unknown")
    with pytest.raises(ReplayMiss, match=request.key) as raised:
        asyncio.run(ReplayClient(tmp_path).complete(request))
    assert raised.value.key == request.key


def test_replay_of_an_empty_folder_fails_clearly(tmp_path: Path) -> None:
    with pytest.raises(LLMError, match="no recording"):
        ReplayClient(tmp_path)


def test_request_key_covers_schema_and_messages() -> None:
    base = ask("a")
    assert base.key == ask("a").key
    assert base.key != ask("b").key
    assert base.key != LLMRequest("fake-model", base.messages, schema={"type": "object"}).key
    assert base.key != LLMRequest("other-model", base.messages).key
