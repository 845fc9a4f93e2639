"""The red-team corpus shipped as package data: attacks (PurpleLlama, BIPIA) and benign prompts (PIGuard)."""

from __future__ import annotations

import json
from dataclasses import dataclass
from functools import cache
from importlib import resources
from typing import Any


@dataclass(frozen=True, slots=True)
class Probe:
    """One corpus item: text, source, category, and whether it is an attack."""

    text: str
    source: str
    category: str
    attack: bool


def _load(*parts: str) -> Any:
    path = resources.files("parley.governance").joinpath("data", "redteam", *parts)
    return json.loads(path.read_text(encoding="utf-8"))


@cache
def attacks() -> tuple[Probe, ...]:
    """PurpleLlama prompt-injection inputs and BIPIA attack instructions (train and test)."""
    probes = [
        Probe(str(item["user_input"]), "PurpleLlama", str(item["injection_variant"]), True)
        for item in _load("PurpleLlama", "prompt_injection.json")
    ]
    for split in ("train", "test"):
        for category, texts in _load("BIPIA", f"text_attack_{split}.json").items():
            probes.extend(Probe(str(text), f"BIPIA-{split}", str(category), True) for text in texts)
    return tuple(probes)


@cache
def benign() -> tuple[Probe, ...]:
    """PIGuard NotInject prompts: harmless text that contains trigger words."""
    return tuple(
        Probe(str(item["prompt"]), "PIGuard", str(item["category"]), False)
        for name in ("one", "two", "three")
        for item in _load("PIGuard", f"NotInject_{name}.json")
    )
