"""STCC (Single-Turn Constraint Clarification, Algorithm 1 and objective (1)) and screening questions.

Attributes are ranked by expected information gain: the entropy of each field's band prior times
its response rate and weight; answered fields carry no entropy. STCC respects the risk budget ρ.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from parley.governance.config import DomainConfig, FieldSpec, load_yaml_data
from parley.governance.tci import TaskCompletenessIndex
from parley.governance.text import find_phrases

_SOFT_FACTOR = 0.5
"""A soft-revealed field keeps half its entropy until confirmed."""


@dataclass(frozen=True, slots=True)
class Question:
    """An outgoing question.

    Attributes:
        kind: "stcc", "screen", "open", "clarify" or "reconfirm".
        fields: Fields it asks about.
        text: The message.
        choices: Field → band labels offered (multiple choice only).
        expected_gain: Expected information gain in bits.
    """

    kind: str
    fields: tuple[str, ...]
    text: str
    choices: Mapping[str, tuple[str, ...]] = field(default_factory=lambda: {})
    expected_gain: float = 0.0


def templates() -> dict[str, str]:
    """The delegate's phrasings (package data)."""
    return dict(load_yaml_data("templates.yaml"))


def band_entropy(spec: FieldSpec) -> float:
    """Entropy in bits of the field's band prior (normalised); 1 bit if the field has no bands."""
    if not spec.bands:
        return 1.0
    total = sum(band.prior for band in spec.bands)
    return -sum((b.prior / total) * math.log2(b.prior / total) for b in spec.bands)


def field_entropy(spec: FieldSpec, tci: TaskCompletenessIndex) -> float:
    """Remaining uncertainty about one field given the history."""
    if spec.name in tci.confirmed:
        return 0.0
    return band_entropy(spec) * (_SOFT_FACTOR if spec.name in tci.soft else 1.0)


def total_entropy(config: DomainConfig, tci: TaskCompletenessIndex) -> float:
    """H(θ | h): summed remaining uncertainty over required fields, in bits."""
    return sum(field_entropy(spec, tci) for spec in config.fields)


def expected_gain(spec: FieldSpec, tci: TaskCompletenessIndex) -> float:
    """E[IG(a | h)] for asking about spec: response rate × weight × remaining entropy."""
    return spec.response_rate * spec.weight * field_entropy(spec, tci)


def rank_attributes(
    config: DomainConfig,
    tci: TaskCompletenessIndex,
    risk_budget: float | None = None,
    banded_only: bool = False,
) -> list[FieldSpec]:
    """Unconfirmed attributes by expected information gain (ties keep declaration order)."""
    candidates = [
        spec
        for spec in config.fields
        if spec.name not in tci.confirmed
        and (risk_budget is None or spec.risk <= risk_budget)
        and (not banded_only or 3 <= len(spec.bands) <= 5)
    ]
    return sorted(candidates, key=lambda spec: -expected_gain(spec, tci))


def neutrality_problems(text: str, config: DomainConfig, option_count: int) -> list[str]:
    """Why a multiple-choice draft is not neutral and compliant (empty list when it is)."""
    problems = [f"leading word {phrase!r}" for _, phrase in find_phrases(text, config.leading_words)]
    if "?" not in text:
        problems.append("no question mark")
    if option_count and not 3 <= option_count <= 5:
        problems.append(f"expected 3-5 options, got {option_count}")
    return problems


def build_multiple_choice(spec: FieldSpec, phrasing: Mapping[str, str]) -> tuple[str, tuple[str, ...]]:
    """The question text with lettered bands plus "Other / not sure", and the band labels."""
    labels = tuple(band.label for band in spec.bands)
    lines = [
        phrasing["option_line"].format(letter=chr(ord("A") + i), label=label)
        for i, label in enumerate((*labels, phrasing["other_option"]))
    ]
    return f"{spec.question} " + " ".join(lines), labels


def stcc_question(config: DomainConfig, tci: TaskCompletenessIndex, phrasing: Mapping[str, str]) -> Question:
    """Algorithm 1: the single most informative banded question within the risk budget.

    Falls back to an open-ended clarification when no attribute qualifies or the draft is not neutral.
    """
    ranked = rank_attributes(config, tci, config.thresholds.risk_budget, banded_only=True)
    if not ranked:
        return open_question(config, phrasing)
    top = ranked[0]
    body, labels = build_multiple_choice(top, phrasing)
    text = phrasing["stcc_intro"].format(subject=config.subject) + " " + body
    if neutrality_problems(text, config, len(labels)):
        return open_question(config, phrasing)
    return Question("stcc", (top.name,), text, {top.name: labels}, expected_gain(top, tci))


def open_question(config: DomainConfig, phrasing: Mapping[str, str]) -> Question:
    """Free-form elicitation (the no-STCC baseline's opener and the neutrality fallback)."""
    return Question("open", (), phrasing["open_question"].format(subject=config.subject))


def screening_question(
    config: DomainConfig,
    tci: TaskCompletenessIndex,
    phrasing: Mapping[str, str],
    *,
    ranked: bool = True,
    exclude: Sequence[str] = (),
) -> Question | None:
    """Follow-up questions for the top missing fields (by IG, or declaration order when not ranked)."""
    order = (
        rank_attributes(config, tci) if ranked else [s for s in config.fields if s.name not in tci.confirmed]
    )
    chosen = [spec for spec in order if spec.name not in exclude][: config.thresholds.screen_batch]
    if not chosen:
        return None
    if len(chosen) == 1:
        text = phrasing["screen_single"].format(question=chosen[0].question)
    else:
        numbered = " ".join(f"({i}) {spec.question}" for i, spec in enumerate(chosen, start=1))
        text = phrasing["screen_batch"].format(questions=numbered)
    gain = sum(expected_gain(spec, tci) for spec in chosen)
    return Question("screen", tuple(spec.name for spec in chosen), text, {}, gain)
