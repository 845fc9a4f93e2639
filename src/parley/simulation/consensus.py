"""Consensus tracking (ProMediate Algorithm 1): attitudes per participant and topic, pairwise agreement.

An attitude is updated when its topic is mentioned and carried over otherwise. Pairwise agreement
on a topic is the mean of five dimensions (shared goals, common understanding, agreement on terms,
tone and willingness, shared decision making); group consensus is the mean over pairs and topics.
Extraction and scoring sit behind small protocols so LLM-backed twins can replace them.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Protocol

import numpy as np

from parley.mediation.conversation import ActKind, Utterance

DIMENSIONS: tuple[str, ...] = (
    "shared_goals",
    "common_understanding",
    "agreement_on_terms",
    "tone_and_willingness",
    "shared_decision_making",
)
"""The five agreement dimensions, in the seed's order."""


@dataclass(frozen=True, slots=True)
class Attitude:
    """What one participant is perceived to hold on one topic.

    Attributes:
        position: The option it currently stands for (None if unknown).
        accepts: Options it has said it can live with.
        rejects: Options it has ruled out.
        tone: Tone of its last remark on the topic (-1 … 1).
        openness: Perceived willingness to move, 0 … 1.
        engaged: Whether it has spoken about the topic yet.
    """

    position: str | None
    accepts: frozenset[str] = frozenset()
    rejects: frozenset[str] = frozenset()
    tone: float = 0.0
    openness: float = 0.5
    engaged: bool = False

    def to_json(self) -> dict[str, object]:
        """JSON-ready dict."""
        return {
            "position": self.position,
            "accepts": sorted(self.accepts),
            "rejects": sorted(self.rejects),
            "tone": round(self.tone, 4),
            "openness": round(self.openness, 4),
            "engaged": self.engaged,
        }


def initial_attitude(first_choice: str | None, unacceptable: Iterable[str] = ()) -> Attitude:
    """The attitude a preference profile implies before anyone speaks."""
    accepts = frozenset({first_choice}) if first_choice else frozenset[str]()
    return Attitude(first_choice, accepts, frozenset(unacceptable))


class AttitudeExtractor(Protocol):
    """Reads a participant's updated attitudes from one utterance."""

    def extract(self, utterance: Utterance, previous: Mapping[str, Attitude]) -> dict[str, Attitude]:
        """New attitudes for the topics the utterance mentions (others are carried over by the tracker)."""
        ...


class AgreementScorer(Protocol):
    """Scores agreement between two participants' attitudes on one topic."""

    def score(self, first: Attitude, second: Attitude) -> tuple[float, ...]:
        """One score in [0, 1] per dimension of DIMENSIONS."""
        ...


_OPENNESS_SHIFT = {
    ActKind.STATE: -0.05,
    ActKind.PROPOSE: 0.1,
    ActKind.SUPPORT: 0.15,
    ActKind.CONCEDE: 0.2,
    ActKind.OBJECT: -0.15,
    ActKind.ASK: 0.05,
    ActKind.SUMMARISE: 0.05,
}


class StructuredAttitudeExtractor:
    """Deterministic extraction from the structured act, plus topic mentions found in the text."""

    def extract(self, utterance: Utterance, previous: Mapping[str, Attitude]) -> dict[str, Attitude]:
        """Attitudes for the topics the utterance mentions."""
        updated: dict[str, Attitude] = {}
        for topic in self.mentioned_topics(utterance, previous):
            option = utterance.option if topic == utterance.topic else (utterance.package or {}).get(topic)
            updated[topic] = self._update(previous[topic], utterance, option)
        return updated

    @staticmethod
    def mentioned_topics(utterance: Utterance, topics: Iterable[str]) -> list[str]:
        """Topics named by the act (topic, package) or, case-insensitively, in the text."""
        text = utterance.text.lower()
        named = {utterance.topic, *(utterance.package or {})}
        return [t for t in topics if t in named or t.lower() in text]

    @staticmethod
    def _update(before: Attitude, utterance: Utterance, option: str | None) -> Attitude:
        act = utterance.act
        openness = float(np.clip(before.openness + _OPENNESS_SHIFT.get(act, 0.0), 0.0, 1.0))
        after = replace(before, tone=utterance.tone, openness=openness, engaged=True)
        if option is None or act is ActKind.ASK:
            return after
        if act is ActKind.OBJECT:
            return replace(after, accepts=after.accepts - {option}, rejects=after.rejects | {option})
        if act is ActKind.SUMMARISE and utterance.topic is None:
            return replace(after, position=option, accepts=after.accepts | {option})
        return replace(
            after, position=option, accepts=after.accepts | {option}, rejects=after.rejects - {option}
        )


class RuleAgreementScorer:
    """Deterministic five-dimension agreement between two attitudes."""

    def score(self, first: Attitude, second: Attitude) -> tuple[float, ...]:
        """Scores in DIMENSIONS order, each in [0, 1]."""
        return (
            self._shared_goals(first, second),
            self._common_understanding(first, second),
            self._terms(first, second),
            self._tone(first, second),
            self._decision_making(first, second),
        )

    @staticmethod
    def _shared_goals(first: Attitude, second: Attitude) -> float:
        if first.accepts & second.accepts:
            return 1.0
        if (first.accepts & second.rejects) or (second.accepts & first.rejects):
            return 0.2
        return 0.5

    @staticmethod
    def _common_understanding(first: Attitude, second: Attitude) -> float:
        universe = first.accepts | second.accepts | first.rejects | second.rejects
        if not universe:
            return 0.5
        conflicts = (first.accepts & second.rejects) | (second.accepts & first.rejects)
        return 1.0 - len(conflicts) / len(universe)

    @staticmethod
    def _terms(first: Attitude, second: Attitude) -> float:
        if first.position is None or second.position is None:
            return 0.3
        if first.position == second.position:
            return 1.0
        if first.position in second.rejects or second.position in first.rejects:
            return 0.0
        crossed = (first.position in second.accepts) + (second.position in first.accepts)
        return 0.3 + 0.25 * crossed

    @staticmethod
    def _tone(first: Attitude, second: Attitude) -> float:
        warmth = ((first.tone + 1.0) / 2.0 + (second.tone + 1.0) / 2.0) / 2.0
        return 0.5 * warmth + 0.5 * (first.openness + second.openness) / 2.0

    @staticmethod
    def _decision_making(first: Attitude, second: Attitude) -> float:
        engaged = (first.engaged + second.engaged) / 2.0
        return 0.5 * engaged + 0.5 * min(first.openness, second.openness)


class ConsensusTracker:
    """Algorithm 1: attitudes carried turn to turn, pairwise agreement recomputed for the speaker.

    Args:
        parties: Participants.
        topics: Topics.
        initial: Per party, per topic, the attitude implied by its preference profile.
        extractor: Attitude extraction (default: structured, deterministic).
        scorer: Agreement scoring (default: rule-based, deterministic).
    """

    def __init__(
        self,
        parties: Sequence[str],
        topics: Sequence[str],
        initial: Mapping[str, Mapping[str, Attitude]],
        extractor: AttitudeExtractor | None = None,
        scorer: AgreementScorer | None = None,
    ) -> None:
        self.parties = tuple(parties)
        self.topics = tuple(topics)
        self.attitudes = {p: dict(initial[p]) for p in self.parties}
        self.extractor: AttitudeExtractor = extractor or StructuredAttitudeExtractor()
        self.scorer: AgreementScorer = scorer or RuleAgreementScorer()
        self.pairs = tuple(itertools.combinations(self.parties, 2))
        self.agreement = {(a, b, t): self._pair(a, b, t) for a, b in self.pairs for t in self.topics}
        self._means = {key: sum(scores) / len(scores) for key, scores in self.agreement.items()}

    def update(self, utterance: Utterance) -> list[str]:
        """Apply one utterance; returns the topics whose attitudes changed (none for the mediator)."""
        if utterance.speaker not in self.attitudes:
            return []
        changed = self.extractor.extract(utterance, self.attitudes[utterance.speaker])
        self.attitudes[utterance.speaker].update(changed)
        for topic in changed:
            for a, b in self.pairs:
                if utterance.speaker in (a, b):
                    scores = self._pair(a, b, topic)
                    self.agreement[(a, b, topic)] = scores
                    self._means[(a, b, topic)] = sum(scores) / len(scores)
        return list(changed)

    def topic_consensus(self, topic: str) -> float:
        """Mean pairwise agreement on topic."""
        if not self.pairs:
            return 1.0
        return sum(self._means[(a, b, topic)] for a, b in self.pairs) / len(self.pairs)

    def consensus(self) -> float:
        """Group consensus: mean over pairs and topics."""
        return sum(self.topic_consensus(t) for t in self.topics) / len(self.topics)

    def _pair(self, first: str, second: str, topic: str) -> tuple[float, ...]:
        return self.scorer.score(self.attitudes[first][topic], self.attitudes[second][topic])
