"""Helpers shared by the LLM role tests: scripted fake models and fallback counting."""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from parley.errors import LLMError
from parley.llm import LLMSession
from parley.testing import FakeLLM


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
