"""The Moderator (Algorithm 4): label each counterparty message with a confidence, abstain below τ_classify.

A deterministic cue classifier (regular expressions from package data, scored and normalised by a
softmax with a "none of these" term); a few-shot LLM classifier can replace it behind `Classifier`.
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any, Protocol

from parley.governance.config import DomainConfig, load_yaml_data
from parley.governance.text import find_phrases
from parley.governance.values import find_mentions


class Label(StrEnum):
    """Moderator labels for a counterparty message."""

    COOPERATIVE = "cooperative"
    CLARIFICATION = "clarification"
    COUNTER_OFFER = "counter_offer"
    PRESSURE = "pressure"
    SOCIAL_ENGINEERING = "social_engineering"
    PROMPT_INJECTION = "prompt_injection"
    NEGATIVE_SENTIMENT = "negative_sentiment"
    OFF_TOPIC = "off_topic"
    CLARIFY = "clarify"
    """Not a class: the routing decision when confidence is below τ_classify (selective abstention)."""


ADVERSARIAL = frozenset({Label.SOCIAL_ENGINEERING, Label.PROMPT_INJECTION})


@dataclass(frozen=True, slots=True)
class Classification:
    """The moderator's verdict on one message.

    Attributes:
        label: The routed label (CLARIFY when confidence < τ_classify).
        top_label: The best-scoring label before abstention.
        confidence: Softmax probability of top_label.
        scores: Raw cue score per label.
        cues: The cue patterns that fired, per label.
    """

    label: Label
    top_label: Label
    confidence: float
    scores: Mapping[str, float] = field(default_factory=lambda: {})
    cues: Mapping[str, tuple[str, ...]] = field(default_factory=lambda: {})

    @property
    def adversarial(self) -> bool:
        """Whether the routed label is social engineering or prompt injection."""
        return self.label in ADVERSARIAL

    def to_json(self) -> dict[str, Any]:
        """A JSON-ready dict."""
        return {
            "label": self.label.value,
            "top_label": self.top_label.value,
            "confidence": round(self.confidence, 4),
            "scores": {k: round(v, 3) for k, v in self.scores.items()},
            "cues": {k: list(v) for k, v in self.cues.items()},
        }


class Classifier(Protocol):
    """Anything that labels a counterparty message."""

    def classify(self, message: str, relevant: bool = False) -> Classification:
        """Label message (with abstention already applied); relevant marks a known on-topic message."""
        ...


@dataclass(frozen=True, slots=True)
class _Cue:
    label: Label
    weight: float
    pattern: re.Pattern[str]


def _compile(raw: Mapping[str, Any]) -> tuple[_Cue, ...]:
    return tuple(
        _Cue(Label(name), float(cue["weight"]), re.compile(cue["pattern"], re.IGNORECASE | re.MULTILINE))
        for name, cues in raw["labels"].items()
        for cue in cues
    )


class RuleModerator:
    """Deterministic cue-based moderator.

    Args:
        config: Domain config (its vocabulary decides relevance; its τ_classify decides abstention).
        threshold: Override τ_classify.
    """

    def __init__(self, config: DomainConfig, threshold: float | None = None) -> None:
        raw = load_yaml_data("moderator.yaml")
        self._cues = _compile(raw)
        self._counter = re.compile(raw["counter_offer"]["pattern"], re.IGNORECASE)
        self._counter_weight = float(raw["counter_offer"]["weight"])
        self._foreign = tuple(raw["foreign_stopwords"])
        self._foreign_weight = float(raw["foreign_weight"])
        self._relevance_weight = float(raw["relevance_weight"])
        self._off_topic_weight = float(raw["off_topic_weight"])
        self._vocabulary = self._domain_vocabulary(config, raw["negotiation_vocabulary"])
        self.threshold = config.thresholds.classify if threshold is None else threshold

    @staticmethod
    def _domain_vocabulary(config: DomainConfig, general: list[str]) -> tuple[str, ...]:
        words = set(general)
        for spec in config.fields:
            words.update(spec.keywords)
            for phrases in spec.options.values():
                words.update(p.strip() for p in phrases if len(p.strip()) > 2)
        return tuple(sorted(words))

    def classify(self, message: str, relevant: bool = False) -> Classification:
        """Label message; route to CLARIFY when the top label's confidence is below τ_classify.

        Args:
            message: The counterparty's message.
            relevant: The caller already knows the message is on topic (e.g. it answered a question).
        """
        scores: dict[Label, float] = {}
        cues: dict[Label, list[str]] = {}
        for cue in self._cues:
            if cue.pattern.search(message):
                scores[cue.label] = scores.get(cue.label, 0.0) + cue.weight
                cues.setdefault(cue.label, []).append(cue.pattern.pattern[:40])
        self._score_context(message, scores, cues, relevant)
        return self._decide(scores, cues)

    def _score_context(
        self, message: str, scores: dict[Label, float], cues: dict[Label, list[str]], relevant: bool
    ) -> None:
        money = [m for m in find_mentions(message) if m.kind == "money"]
        if money and self._counter.search(message):
            scores[Label.COUNTER_OFFER] = scores.get(Label.COUNTER_OFFER, 0.0) + self._counter_weight
            cues.setdefault(Label.COUNTER_OFFER, []).append("amount with a request verb")
        words = re.findall(r"[^\W\d_]+", message.lower())
        foreign = sum(1 for word in words if word in self._foreign)
        non_ascii = sum(1 for ch in message if ord(ch) > 127 and ch.isalpha())
        if foreign >= 2 or non_ascii > max(3, len(message) // 5):
            # Unexpected language is a reason to clarify, not evidence of an attack.
            scores[Label.OFF_TOPIC] = scores.get(Label.OFF_TOPIC, 0.0) + self._foreign_weight
            cues.setdefault(Label.OFF_TOPIC, []).append("foreign-language input")
        if relevant or money or find_phrases(message, self._vocabulary):
            scores[Label.COOPERATIVE] = scores.get(Label.COOPERATIVE, 0.0) + self._relevance_weight
        elif not scores:
            scores[Label.OFF_TOPIC] = self._off_topic_weight
            cues.setdefault(Label.OFF_TOPIC, []).append("no domain vocabulary")

    def _decide(self, scores: dict[Label, float], cues: dict[Label, list[str]]) -> Classification:
        """Softmax over cue scores with a "none of these" term; abstain below τ_classify.

        The confidence of an adversarial verdict is the pooled probability of both adversarial labels.
        """
        if not scores:
            scores = {Label.COOPERATIVE: 0.5}
        top = max(scores, key=lambda label: (scores[label], -list(Label).index(label)))
        partition = 1.0 + sum(math.exp(value) for value in scores.values())
        confidence = math.exp(scores[top]) / partition
        hostile = sum(math.exp(v) for k, v in scores.items() if k in ADVERSARIAL) / partition
        if hostile >= self.threshold and confidence < self.threshold:
            # Injection and social engineering route to the same escalation, so their probability
            # mass is pooled: cues of both kinds must not cancel each other into an abstention.
            top = max(ADVERSARIAL, key=lambda label: (scores.get(label, -math.inf), label.value))
            confidence = hostile
        routed = top if confidence >= self.threshold else Label.CLARIFY
        return Classification(
            routed,
            top,
            confidence,
            {k.value: v for k, v in scores.items()},
            {k.value: tuple(v) for k, v in cues.items()},
        )
