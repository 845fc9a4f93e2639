"""Render structured conversation acts to natural language with parley's own templates (package data)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from functools import cache
from importlib import resources
from typing import Any, cast

import yaml

from parley.mediation.conversation import Utterance


@cache
def _templates() -> Mapping[str, Mapping[str, Sequence[str]]]:
    path = resources.files("parley.simulation") / "data" / "utterances.yaml"
    return cast(Mapping[str, Any], yaml.safe_load(path.read_text(encoding="utf-8")))


def register(tone: float) -> str:
    """The phrasing register for a tone: warm, neutral or firm."""
    if tone > 0.3:
        return "warm"
    return "firm" if tone < -0.1 else "neutral"


def describe_package(package: Mapping[str, str], options: Mapping[str, Mapping[str, str]]) -> str:
    """ "topic: option (description); ..." for a package."""
    return "; ".join(
        f"{topic}: {option} ({options.get(topic, {}).get(option, '')})" for topic, option in package.items()
    )


def render_utterance(utterance: Utterance, options: Mapping[str, Mapping[str, str]], variant: int) -> str:
    """The sentence for a participant's act.

    Args:
        utterance: The act (its text is ignored).
        options: Per topic, option letter → description.
        variant: Picks among the template variants (pass a number drawn from the speaker's rng).
    """
    variants = _templates()[utterance.act.value][register(utterance.tone)]
    topic = utterance.topic or ""
    option = utterance.option or ""
    fields = {
        "topic": topic,
        "option": option,
        "description": options.get(topic, {}).get(option, ""),
        "addressee": utterance.addressee or "everyone",
        "package": describe_package(utterance.package or {}, options),
    }
    return variants[variant % len(variants)].format(**fields)
