"""The hand-written paraphrases in paraphrases.yaml are the parser's specification: all must pass."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import yaml

from parley.language import Vocabulary, parse

from .conftest import camp_vocabulary, random_vocabulary, supply_vocabulary

CASES: list[dict[str, Any]] = yaml.safe_load((Path(__file__).parent / "paraphrases.yaml").read_text())
VOCABULARIES: dict[str, Vocabulary] = {
    "camp": camp_vocabulary(),
    "supply": supply_vocabulary(),
    "strange": random_vocabulary(),
}


def test_there_are_at_least_fifty_paraphrases() -> None:
    assert len(CASES) >= 50
    assert len({case["text"] for case in CASES}) >= 50


def reading(case: dict[str, Any]) -> dict[str, Any]:
    parsed = parse(
        case["text"], VOCABULARIES[case["scenario"]], speaker=case["speaker"], context=case.get("context")
    )
    incomplete_offer = parsed.intent == "offer" and parsed.package is None
    return {
        "intent": parsed.intent.value,
        "package": dict(parsed.package) if parsed.package is not None else None,
        "priorities": list(parsed.priorities),
        "least": list(parsed.least_important),
        "asks": parsed.asks_priorities,
        "missing": list(parsed.missing) if incomplete_offer else [],
    }


def expected(case: dict[str, Any]) -> dict[str, Any]:
    return {
        "intent": case["intent"],
        "package": case.get("package"),
        "priorities": case.get("priorities", []),
        "least": case.get("least", []),
        "asks": case.get("asks", False),
        "missing": case.get("missing", []),
    }


@pytest.mark.parametrize("case", CASES, ids=[c["text"][:40] for c in CASES])
def test_paraphrase(case: dict[str, Any]) -> None:
    assert reading(case) == expected(case)
