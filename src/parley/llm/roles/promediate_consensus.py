"""ProMediate measurement roles backed by an LLM: attitude extraction, five-dimension agreement
scoring (Algorithm 1) and the mediator-intelligence judge (MI, appendix C.3).

Outputs are validated in code — known topics and options, scores in range, agreement scores that
do not contradict the attitudes' hard facts — and each role falls back to its deterministic twin:
`StructuredAttitudeExtractor`, `RuleAgreementScorer`, `parley.metrics.consensus.score_intervention`.
"""

from __future__ import annotations

import json
from collections import deque
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, JsonValue

from parley.llm.context import LLMSession
from parley.llm.role import Role, SchemaOverrides
from parley.llm.roles.promediate_common import (
    AGREEMENT_ROLE,
    ATTITUDE_ROLE,
    INTELLIGENCE_ROLE,
    history_text,
    match_name,
    match_option,
    names_text,
    options_text,
    quoted,
    utterance_line,
)
from parley.llm.structured import Name, Note, number_grid, strict_schema
from parley.mediation.conversation import BreakdownKind, Utterance
from parley.metrics.consensus import ConversationRecord, InterventionScore, score_intervention
from parley.simulation.consensus import (
    DIMENSIONS,
    AgreementScorer,
    Attitude,
    AttitudeExtractor,
    RuleAgreementScorer,
    StructuredAttitudeExtractor,
)

MAX_TOPICS = 12
"""Most topics in one attitude reply (the per-call schema allows the conversation's own)."""
MAX_OPTIONS = 8
"""Most options one attitude accepts or rejects."""
MI_SCORES: list[JsonValue] = [-1, *number_grid(1.0, 5.0)]
"""What an MI dimension may be scored: -1 (not present) or 1 … 5 on the grid."""

# -- attitude extraction ---------------------------------------------------------------------------


class TopicAttitude(BaseModel):
    """The speaker's attitude on one topic it mentioned.

    Attributes:
        topic: The topic.
        position: The option it now stands for (null: unclear).
        accepts: Options it says it can live with.
        rejects: Options it rules out.
        tone: -1 (hostile) … 1 (warm).
        openness: 0 (will not move) … 1 (fully open).
    """

    model_config = ConfigDict(extra="ignore")

    topic: Name
    position: Name | None = None
    accepts: list[Name] = Field(default_factory=list[str], max_length=MAX_OPTIONS)
    rejects: list[Name] = Field(default_factory=list[str], max_length=MAX_OPTIONS)
    tone: float = Field(ge=-1.0, le=1.0)
    openness: float = Field(ge=0.0, le=1.0)


class AttitudeReply(BaseModel):
    """Attitudes on the topics the utterance mentions (an empty list: it mentions no topic; the
    list itself is required)."""

    model_config = ConfigDict(extra="ignore")

    attitudes: list[TopicAttitude] = Field(max_length=MAX_TOPICS)


def check_attitudes(reply: AttitudeReply, options: Mapping[str, Mapping[str, str]]) -> AttitudeReply:
    """Attitudes mapped onto known topics and options.

    Raises:
        ValueError: an unknown topic or option, a topic twice, or a position it also rejects.
    """
    checked: list[TopicAttitude] = []
    for item in reply.attitudes:
        topic = match_name(item.topic, options, "topic")
        if any(c.topic == topic for c in checked):
            raise ValueError(f"topic {topic!r} appears twice; give one attitude per topic")
        position = match_option(item.position, topic, options) if item.position else None
        accepts = sorted({match_option(o, topic, options) for o in item.accepts})
        rejects = sorted({match_option(o, topic, options) for o in item.rejects})
        if position is not None and position in rejects:
            raise ValueError(f"on {topic!r} the position {position} is also listed as rejected")
        update = {"topic": topic, "position": position, "accepts": accepts, "rejects": rejects}
        checked.append(item.model_copy(update=update))
    return reply.model_copy(update={"attitudes": checked})


def attitude_schema(options: Mapping[str, Mapping[str, str]]) -> SchemaOverrides:
    """Per call: attitudes name the case's topics and option letters, at most one per topic."""
    letters = sorted({letter for choices in options.values() for letter in choices})
    some = {"type": "array", "items": {"enum": letters}, "maxItems": len(letters)}
    item = strict_schema(
        TopicAttitude,
        {
            "topic": {"enum": list(options)},
            "position": {"anyOf": [{"enum": letters}, {"type": "null"}]},
            "accepts": some,
            "rejects": some,
        },
    )
    return {"attitudes": {"type": "array", "items": item, "maxItems": len(options)}}


class LLMAttitudeExtractor:
    """Attitude extraction from the utterance's words (implements `AttitudeExtractor`).

    Args:
        llm: The session's LLM side (client for role "attitude").
        options: Per topic, option → description.
        twin: Deterministic extractor used on fallback.
        context: Earlier utterances shown for reference ("I agree" needs to know with what).
    """

    def __init__(
        self,
        llm: LLMSession,
        options: Mapping[str, Mapping[str, str]],
        twin: AttitudeExtractor | None = None,
        *,
        context: int = 4,
    ) -> None:
        self._role = Role(ATTITUDE_ROLE, AttitudeReply, "promediate_attitude", llm)
        self._options = options
        self.twin: AttitudeExtractor = twin or StructuredAttitudeExtractor()
        self._recent: deque[Utterance] = deque(maxlen=context)

    def extract(self, utterance: Utterance, previous: Mapping[str, Attitude]) -> dict[str, Attitude]:
        """Updated attitudes for the topics the model finds mentioned (the twin's on fallback)."""
        variables = {
            "topics": options_text(self._options),
            "speaker": utterance.speaker,
            "previous": json.dumps({t: a.to_json() for t, a in previous.items()}, ensure_ascii=False),
            "context": "\n".join(f"turn {u.turn}, {u.speaker}: {quoted(u.text)}" for u in self._recent)
            or "(start of the conversation)",
            "text": quoted(utterance.text),
        }
        self._recent.append(utterance)
        outcome = self._role.call(
            variables,
            validate=lambda r: check_attitudes(r, self._options),
            round=utterance.turn,
            overrides=attitude_schema(self._options),
        )
        if outcome.value is None:
            return self.twin.extract(utterance, previous)
        return {
            a.topic: _updated(previous[a.topic], a) for a in outcome.value.attitudes if a.topic in previous
        }


def _updated(before: Attitude, found: TopicAttitude) -> Attitude:
    """Carry the earlier attitude over and apply what the utterance says (new words win)."""
    accepts = set(found.accepts) | ({found.position} if found.position else set[str]())
    rejects = set(found.rejects)
    return Attitude(
        found.position or before.position,
        frozenset((before.accepts - rejects) | accepts),
        frozenset((before.rejects - accepts) | rejects),
        found.tone,
        found.openness,
        True,
    )


# -- agreement scoring ------------------------------------------------------------------------------


class AgreementReply(BaseModel):
    """Agreement between two participants on one topic, per dimension, each 0 … 1."""

    model_config = ConfigDict(extra="ignore")

    shared_goals: float = Field(ge=0.0, le=1.0)
    common_understanding: float = Field(ge=0.0, le=1.0)
    agreement_on_terms: float = Field(ge=0.0, le=1.0)
    tone_and_willingness: float = Field(ge=0.0, le=1.0)
    shared_decision_making: float = Field(ge=0.0, le=1.0)
    reasoning: Note = ""


def check_agreement(reply: AgreementReply, first: Attitude, second: Attitude) -> AgreementReply:
    """Refuse scores that contradict the attitudes' hard facts.

    Raises:
        ValueError: the same position scored low on terms, or a rejected position scored high.
    """
    terms = reply.agreement_on_terms
    if first.position is not None and first.position == second.position and terms < 0.5:
        raise ValueError(f"both hold option {first.position}, so agreement_on_terms must be at least 0.5")
    rejected = (first.position is not None and first.position in second.rejects) or (
        second.position is not None and second.position in first.rejects
    )
    if rejected and terms > 0.5:
        raise ValueError("one rejects the other's position, so agreement_on_terms must be at most 0.5")
    return reply


class LLMAgreementScorer:
    """Five-dimension agreement as an LLM judge (implements `AgreementScorer`).

    Identical attitude pairs are scored once (a tracker re-scores unchanged pairs often), which
    also keeps a conversation's scores consistent.

    Args:
        llm: The session's LLM side (client for role "agreement").
        twin: Deterministic scorer used on fallback.
    """

    def __init__(self, llm: LLMSession, twin: AgreementScorer | None = None) -> None:
        self._role = Role(AGREEMENT_ROLE, AgreementReply, "promediate_agreement", llm)
        self.twin: AgreementScorer = twin or RuleAgreementScorer()
        self._memo: dict[tuple[Attitude, Attitude], tuple[float, ...]] = {}

    def score(self, first: Attitude, second: Attitude) -> tuple[float, ...]:
        """Scores in DIMENSIONS order, each in [0, 1]."""
        key = (first, second)
        if key not in self._memo:
            self._memo[key] = self._ask(first, second)
        return self._memo[key]

    def _ask(self, first: Attitude, second: Attitude) -> tuple[float, ...]:
        variables = {
            "first": json.dumps(first.to_json(), ensure_ascii=False),
            "second": json.dumps(second.to_json(), ensure_ascii=False),
        }
        outcome = self._role.call(variables, validate=lambda r: check_agreement(r, first, second))
        if outcome.value is None:
            return self.twin.score(first, second)
        reply = outcome.value
        return tuple(float(getattr(reply, dimension)) for dimension in DIMENSIONS)


# -- mediator intelligence ----------------------------------------------------------------------------


class DimensionJudgement(BaseModel):
    """One MI dimension: a score 1–5, or -1 where the problem was not present."""

    model_config = ConfigDict(extra="ignore")

    score: float = Field(json_schema_extra={"enum": MI_SCORES})
    rationale: Note = ""


class IntelligenceReply(BaseModel):
    """MI per breakdown dimension."""

    model_config = ConfigDict(extra="ignore")

    perceptual: DimensionJudgement
    emotional: DimensionJudgement
    cognitive: DimensionJudgement
    communication: DimensionJudgement


def check_intelligence(reply: IntelligenceReply) -> IntelligenceReply:
    """Scores must be -1 or within 1 … 5, with a rationale for every applicable one.

    Raises:
        ValueError: a score out of range or an applicable score without a rationale.
    """
    for kind in BreakdownKind:
        judged: DimensionJudgement = getattr(reply, kind.value)
        if judged.score != -1 and not 1.0 <= judged.score <= 5.0:
            raise ValueError(f"{kind.value}.score is {judged.score}; use -1 (not present) or 1 … 5")
        if judged.score != -1 and not judged.rationale.strip():
            raise ValueError(f"{kind.value} needs a rationale for its score {judged.score}")
    return reply


@dataclass(frozen=True, slots=True)
class JudgedIntervention:
    """MI for one intervention and where it came from.

    Attributes:
        score: Per dimension 1–5 or -1, as the rubric scorer reports it.
        rationale: Per dimension, the judge's reason (empty from the rubric).
        source: "llm" or "rubric" (the deterministic twin).
    """

    score: InterventionScore
    rationale: Mapping[str, str] = field(default_factory=dict[str, str])
    source: Literal["llm", "rubric"] = "llm"


class LLMIntelligenceJudge:
    """Mediator Intelligence as an LLM judge (twin: the rubric scorer of `parley.metrics.consensus`).

    The judge sees the public record before the intervention and the intervention itself.

    Args:
        llm: The session's LLM side (client for role "intelligence").
        history_limit: Most recent utterances shown before the intervention.
    """

    def __init__(self, llm: LLMSession, *, history_limit: int = 16) -> None:
        self._role = Role(INTELLIGENCE_ROLE, IntelligenceReply, "promediate_intelligence", llm)
        self._history_limit = history_limit

    def judge(self, record: ConversationRecord, utterance: Utterance) -> JudgedIntervention:
        """MI for one intervention of record."""
        view = record.view(utterance.turn)
        variables: dict[str, Any] = {
            "parties": names_text(record.parties),
            "topics": options_text(record.options),
            "history": history_text(view, self._history_limit),
            "intervention": utterance_line(utterance),
        }
        outcome = self._role.call(variables, validate=check_intelligence, round=utterance.turn)
        if outcome.value is None:
            return JudgedIntervention(score_intervention(record, utterance), source="rubric")
        reply = outcome.value
        judged = {kind.value: getattr(reply, kind.value) for kind in BreakdownKind}
        dimensions = {k: float(j.score) for k, j in judged.items()}
        rationale = {k: j.rationale.strip() for k, j in judged.items()}
        return JudgedIntervention(InterventionScore(utterance.turn, dimensions), rationale)

    def judge_all(self, record: ConversationRecord) -> list[JudgedIntervention]:
        """MI for every intervention in record (the LLM counterpart of `mediator_intelligence`)."""
        return [self.judge(record, u) for u in record.turns if u is not None and u.is_intervention]
