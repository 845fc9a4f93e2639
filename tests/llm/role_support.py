"""Helpers shared by the LLM role tests: scripted fake models, fallback counting, golden recordings."""

from __future__ import annotations

import json
import os
import shutil
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from parley.errors import LLMError
from parley.llm import EventLoopThread, LLMRuntime, LLMSession, LLMSettings
from parley.testing import FakeLLM, StubServer
from parley.testing.llm import StubPlan

OFFLINE = "http://127.0.0.1:9/v1"  # replays never connect; only the model names matter
SCREENING = [
    "I'm a U.S. citizen.",
    "I can do a 6-hour overlap with Pacific time. Mostly Python and React.",
    "I have 8 years of professional experience. I could start in January.",
    "I'm after a permanent role. My salary expectation is $95K.",
    "Hybrid suits me, 3 days a week in the office.",
]
"""A staffing candidate's screening answers, one per delegate question (the gate opens after them)."""


def fixture_cases(folder: Path, name: str) -> list[dict[str, Any]]:
    """The recorded-reply cases in folder/name.json."""
    return json.loads((folder / f"{name}.json").read_text("utf-8"))


def scripted(replies: Sequence[Any]) -> FakeLLM:
    """Strings are sent as they are, objects as JSON, {"__error__": ...} as an endpoint failure."""
    script: list[str | Exception] = []
    for reply in replies:
        if isinstance(reply, dict) and "__error__" in reply:
            script.append(LLMError(str(reply["__error__"])))  # pyright: ignore[reportUnknownArgumentType]
        else:
            script.append(reply if isinstance(reply, str) else json.dumps(reply))
    return FakeLLM(script)


def fallbacks(llm: LLMSession) -> int:
    """How many times a role fell back to its deterministic twin."""
    return sum(1 for e in llm.events if e.kind == "llm_fallback")


@dataclass(frozen=True)
class GoldenRecording:
    """One LLM-backed run recorded against the stub server and replayed from the recording.

    Attributes:
        play: Runs the session on an LLM session and returns its trajectory as JSONL.
        plan: Builds the stub server's reply plan.
        models: Model name per role ("default" required); each role gets its own endpoint spec.
    """

    play: Callable[[LLMSession], str]
    plan: Callable[[], StubPlan]
    models: Mapping[str, str]

    def _settings(self, endpoint: Callable[[str], str], **paths: Path) -> LLMSettings:
        roles = {role: endpoint(model) for role, model in self.models.items() if role != "default"}
        return LLMSettings.model_validate(
            {"default": endpoint(self.models["default"]), "roles": roles, **paths}
        )

    def record(self, target: Path, bridge: EventLoopThread) -> str:
        """Play live against the stub server, recording every exchange under target/recording."""
        with StubServer(self.plan()) as stub:
            settings = self._settings(stub.spec, record=target / "recording")
            with LLMRuntime(settings, bridge=bridge) as runtime:
                return self.play(runtime.session("golden"))

    def replay(self, recording: Path, bridge: EventLoopThread) -> str:
        """Play again with every answer taken from the recording (no endpoint)."""
        settings = self._settings(lambda model: f"{OFFLINE}#{model}", replay=recording)
        with LLMRuntime(settings, bridge=bridge) as runtime:
            return self.play(runtime.session("golden"))

    def check(self, golden: Path, bridge: EventLoopThread, test_file: str) -> str:
        """Assert the replay equals golden/trajectory.jsonl (re-record with PARLEY_UPDATE_GOLDEN=1)."""
        if os.environ.get("PARLEY_UPDATE_GOLDEN"):
            shutil.rmtree(golden, ignore_errors=True)
            golden.mkdir(parents=True)
            (golden / "trajectory.jsonl").write_text(self.record(golden, bridge), "utf-8")
        expected = (golden / "trajectory.jsonl").read_text("utf-8")
        try:
            replayed = self.replay(golden / "recording", bridge)
        except LLMError as miss:  # a prompt template, a renderer or a twin changed
            pytest.fail(
                f"{miss}\nIf that change is intended, re-record: PARLEY_UPDATE_GOLDEN=1 pytest {test_file}"
            )
        assert replayed == expected
        return expected
