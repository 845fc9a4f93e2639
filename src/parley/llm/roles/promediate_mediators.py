"""ProMediate conversation mediators backed by an LLM: the generic and the socially intelligent one.

Both implement `ConversationMediator` and build every prompt from the `ConversationView` alone (the
public record), so they cannot see a private preference. Code keeps the rules: never twice in a
row, (social) a cooldown until others have spoken, motivation thresholds, legal topics and options,
and no claims about anyone's private preferences. Twins: `GenericMediator`, `SocialMediator`.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator

from parley.errors import ScenarioError
from parley.llm.context import LLMSession
from parley.llm.role import Role, SchemaOverrides
from parley.llm.roles.promediate_common import (
    MEDIATOR_ROLE,
    check_text,
    drop_unset,
    history_text,
    match_name,
    match_option,
    match_package,
    name_overrides,
    names_text,
    options_text,
    positions_text,
    private_claims,
)
from parley.llm.structured import Name, Note, strict_schema
from parley.mediation.conversation import (
    MEDIATOR,
    ActKind,
    Assessment,
    Breakdown,
    BreakdownKind,
    ConversationMediator,
    ConversationView,
    Strategy,
    Utterance,
)
from parley.mediation.mediators import DEFAULT_THRESHOLD, STRATEGY_FIT, GenericMediator, SocialMediator

MAX_REASONS = 3
"""Most reasons in a "should I speak?" reply."""
MAX_BREAKDOWNS = 3
"""Most breakdowns one assessment names."""
MAX_PARTIES = 8
"""Most participants one breakdown names (the per-call schema allows the conversation's own)."""
MAX_INTERVENTION = 400
"""Most characters of an intervention (two to four sentences)."""

StrategyName = Literal["facilitative", "evaluative", "transformative", "problem_solving"]
KindName = Literal["perceptual", "emotional", "cognitive", "communication"]


class WhenReply(BaseModel):
    """The generic mediator's "should I speak now?".

    Attributes:
        engage: Whether it wants to speak.
        motivation: 1 (no need) to 5 (must step in now).
        reasons: Why, one short line each.
    """

    model_config = ConfigDict(extra="ignore")

    engage: bool
    motivation: float = Field(ge=1.0, le=5.0)
    reasons: list[Note] = Field(default_factory=list[str], max_length=MAX_REASONS)


class BreakdownReport(BaseModel):
    """One breakdown the social mediator sees in the public record.

    Attributes:
        kind: perceptual, emotional, cognitive or communication.
        parties: The participants involved.
        topic: The topic involved, if one.
        severity: 0 (minor) to 1 (derails the talks).
        evidence: What in the record shows it.
    """

    model_config = ConfigDict(extra="ignore")

    kind: KindName
    parties: list[Name] = Field(default_factory=list[str], max_length=MAX_PARTIES)
    topic: Name | None = None
    severity: float = Field(ge=0.0, le=1.0)
    evidence: Annotated[Note, Field(min_length=1)]


class SocialWhenReply(BaseModel):
    """The social mediator's assessment: breakdowns, motivation, reasons."""

    model_config = ConfigDict(extra="ignore")

    breakdowns: list[BreakdownReport] = Field(
        default_factory=list[BreakdownReport], max_length=MAX_BREAKDOWNS
    )
    motivation: float = Field(ge=1.0, le=5.0)
    reasons: list[Note] = Field(default_factory=list[str], max_length=MAX_REASONS)


class InterventionDraft(BaseModel):
    """An intervention: strategy, what it is about, and the words.

    Attributes:
        strategy: One of the four mediation strategies.
        topic: The topic it addresses, if one.
        option: An option it puts forward on that topic, if any.
        package: A package (topic → option) it suggests, if any.
        addressee: The participant it speaks to, if one.
        text: What the mediator says (two to four sentences).
    """

    model_config = ConfigDict(extra="ignore")

    strategy: StrategyName
    topic: Name | None = None
    option: Name | None = None
    package: dict[str, str] | None = None
    addressee: Name | None = None
    text: str = Field(min_length=1, max_length=MAX_INTERVENTION)

    @field_validator("package", mode="before")
    @classmethod
    def _leave_out_unset(cls, value: Any) -> Any:
        return drop_unset(value)  # a strict schema names every topic, null for those left out


class CandidatesReply(BaseModel):
    """Three candidate interventions, each with a different strategy."""

    model_config = ConfigDict(extra="ignore")

    candidates: list[InterventionDraft] = Field(min_length=3, max_length=3)


class CandidateScore(BaseModel):
    """How well one numbered candidate answers the breakdowns."""

    model_config = ConfigDict(extra="ignore")

    candidate: int = Field(ge=1, le=3)
    rating: float = Field(ge=1.0, le=5.0)
    reason: Note = ""


class ScoresReply(BaseModel):
    """One rating per candidate."""

    model_config = ConfigDict(extra="ignore")

    scores: list[CandidateScore] = Field(min_length=3, max_length=3)


def mediator_variables(view: ConversationView, history_limit: int) -> dict[str, Any]:
    """Prompt variables built from the public view only (nothing else reaches a mediator's prompt)."""
    return {
        "parties": names_text(view.parties),
        "topics": options_text(view.options),
        "turn": view.turn,
        "max_turns": view.max_turns,
        "positions": positions_text(view),
        "history": history_text(view, history_limit),
    }


def check_intervention(draft: InterventionDraft, view: ConversationView) -> InterventionDraft:
    """An intervention mapped onto the conversation's topics, options and parties.

    Raises:
        ValueError: unknown topic, option or participant, empty text, or a claim about private
            preferences.
    """
    topic = match_name(draft.topic, view.topics, "topic") if draft.topic else None
    if draft.option and topic is None:
        raise ValueError(f'"option" {draft.option!r} needs the "topic" it belongs to')
    option = match_option(draft.option, topic, view.options) if draft.option and topic else None
    package = match_package(draft.package, view.options) if draft.package else None
    addressee = match_name(draft.addressee, view.parties, "participant") if draft.addressee else None
    text = check_text(draft.text)
    claims = private_claims(text)
    if claims:
        raise ValueError(
            f"the text claims knowledge of private preferences ({', '.join(claims)}); you see only the "
            "public record — speak only about what participants said"
        )
    return draft.model_copy(
        update={"topic": topic, "option": option, "package": package, "addressee": addressee, "text": text}
    )


def to_utterance(draft: InterventionDraft, view: ConversationView) -> Utterance:
    """The intervention as the conversation's utterance for this turn."""
    return Utterance(
        view.turn,
        MEDIATOR,
        ActKind.INTERVENE,
        draft.topic,
        draft.option,
        draft.package,
        draft.addressee,
        0.5,
        Strategy(draft.strategy),
        draft.text,
    )


def _spoke_last(view: ConversationView) -> bool:
    return view.last is not None and view.last.is_intervention


class LLMGenericMediator:
    """The generic mediator with an LLM deciding when and how (twin: `GenericMediator`).

    Args:
        llm: The session's LLM side (client for role "mediator").
        twin: Deterministic mediator used on fallback.
        threshold: Motivation needed to speak.
        history_limit: Most recent utterances shown.
    """

    name = "llm-generic"
    no_consecutive = True

    def __init__(
        self,
        llm: LLMSession,
        twin: GenericMediator | None = None,
        *,
        threshold: float = DEFAULT_THRESHOLD,
        history_limit: int = 16,
    ) -> None:
        self.twin = twin or GenericMediator(threshold)
        self.threshold = threshold
        self._history_limit = history_limit
        self._when = Role(MEDIATOR_ROLE, WhenReply, "promediate_generic_when", llm)
        self._how = Role(MEDIATOR_ROLE, InterventionDraft, "promediate_generic_how", llm)

    def assess(self, view: ConversationView) -> Assessment:
        """Ask whether to engage now; never right after itself (decided in code, no call)."""
        if _spoke_last(view):
            return Assessment(False, 1.0, ("the last message was mine",))
        outcome = self._when.call(mediator_variables(view, self._history_limit), round=view.turn)
        if outcome.value is None:
            return self.twin.assess(view)
        reply = outcome.value
        reasons = tuple(r.strip() for r in reply.reasons if r.strip())
        return Assessment(reply.engage and reply.motivation >= self.threshold, reply.motivation, reasons)

    def intervene(self, view: ConversationView, assessment: Assessment) -> Utterance:
        """Ask for a short, general intervention; the twin speaks if the reply cannot be used."""
        variables = mediator_variables(view, self._history_limit) | {
            "reasons": "\n".join(f"- {r}" for r in assessment.reasons) or "(none given)"
        }
        outcome = self._how.call(
            variables,
            validate=lambda d: check_intervention(d, view),
            round=view.turn,
            overrides=name_overrides(view.options, view.parties),
        )
        if outcome.value is None:
            return self.twin.intervene(view, self.twin.assess(view))
        return to_utterance(outcome.value, view)


class LLMSocialMediator:
    """The socially intelligent mediator with an LLM (twin: `SocialMediator`).

    When: the model names the breakdowns it sees (kind, parties, topic, severity, evidence) and a
    motivation; code speaks only at or above the threshold, with at least one breakdown, never
    twice in a row and only after ``cooldown`` participant utterances since its last intervention.
    How: the model drafts three candidates with different strategies; a second call rates them
    (if that fails, code rates them with the strategy-fit rubric); the best one is delivered.

    Args:
        llm: The session's LLM side (client for role "mediator").
        twin: Deterministic mediator used on fallback.
        threshold: Motivation needed to speak.
        cooldown: Participant utterances required since its last intervention.
        history_limit: Most recent utterances shown.
    """

    name = "llm-social"
    no_consecutive = True

    def __init__(
        self,
        llm: LLMSession,
        twin: SocialMediator | None = None,
        *,
        threshold: float = DEFAULT_THRESHOLD,
        cooldown: int = 3,
        history_limit: int = 16,
    ) -> None:
        self.twin = twin or SocialMediator(threshold, cooldown=cooldown)
        self.threshold = threshold
        self.cooldown = cooldown
        self._history_limit = history_limit
        self._when = Role(MEDIATOR_ROLE, SocialWhenReply, "promediate_social_when", llm)
        self._draft = Role(MEDIATOR_ROLE, CandidatesReply, "promediate_social_draft", llm)
        self._rate = Role(MEDIATOR_ROLE, ScoresReply, "promediate_social_score", llm)
        self._llm = llm

    def assess(self, view: ConversationView) -> Assessment:
        """Name the breakdowns and the motivation to step in (the rules above are code)."""
        if _spoke_last(view):
            return Assessment(False, 1.0, ("the last message was mine",))
        if _utterances_since_intervention(view) < self.cooldown:
            return Assessment(False, 1.0, ("let everyone respond first",))
        outcome = self._when.call(
            mediator_variables(view, self._history_limit),
            validate=lambda r: _check_breakdowns(r, view),
            round=view.turn,
            overrides=breakdowns_schema(view),
        )
        if outcome.value is None:
            return self.twin.assess(view)
        reply = outcome.value
        breakdowns = tuple(
            Breakdown(BreakdownKind(b.kind), tuple(b.parties), b.topic, b.severity, b.evidence)
            for b in reply.breakdowns
        )
        reasons = tuple(r.strip() for r in reply.reasons if r.strip()) or tuple(
            b.evidence for b in breakdowns
        )
        intervene = reply.motivation >= self.threshold and bool(breakdowns)
        return Assessment(intervene, reply.motivation, reasons, breakdowns)

    def intervene(self, view: ConversationView, assessment: Assessment) -> Utterance:
        """Draft three candidates, rate them, deliver the best (the twin speaks on fallback)."""
        variables = mediator_variables(view, self._history_limit) | {
            "breakdowns": breakdowns_text(assessment.breakdowns)
        }
        drafted = self._draft.call(
            variables,
            validate=lambda r: _check_candidates(r, view),
            round=view.turn,
            overrides=name_overrides(view.options, view.parties),
        )
        if drafted.value is None:
            return self.twin.intervene(view, self.twin.assess(view))
        candidates = [to_utterance(d, view) for d in drafted.value.candidates]
        ratings, rated_by = self._ratings(candidates, variables, assessment, view)
        best = max(range(len(candidates)), key=lambda i: (ratings[i], -i))
        rated = [
            {"strategy": c.strategy.value if c.strategy else None, "rating": r, "text": c.text}
            for c, r in zip(candidates, ratings, strict=True)
        ]
        # The drafts and their ratings go to the mediator's private stream, for the audit trail.
        self._llm.note(
            "mediator_candidates",
            {"candidates": rated, "rated_by": rated_by, "delivered": best},
            round=view.turn,
            party=MEDIATOR,
            audience=MEDIATOR,
        )
        return candidates[best]

    def _ratings(
        self,
        candidates: Sequence[Utterance],
        variables: dict[str, Any],
        assessment: Assessment,
        view: ConversationView,
    ) -> tuple[list[float], str]:
        listed = "\n".join(
            f"{n}. " + json.dumps({"strategy": c.strategy.value if c.strategy else None, "text": c.text})
            for n, c in enumerate(candidates, start=1)
        )
        rated = self._rate.call(variables | {"candidates": listed}, validate=_check_ratings, round=view.turn)
        if rated.value is None:
            return [rubric_rating(c, assessment.breakdowns) for c in candidates], "rubric"
        by_number = {s.candidate: s.rating for s in rated.value.scores}
        return [by_number[n] for n in range(1, len(candidates) + 1)], "model"


def breakdowns_schema(view: ConversationView) -> SchemaOverrides:
    """Per call: a breakdown names the conversation's own participants and topics."""
    parties = {"type": "array", "items": {"enum": list(view.parties)}, "maxItems": len(view.parties)}
    topic = {"anyOf": [{"enum": list(view.topics)}, {"type": "null"}]}
    report = strict_schema(BreakdownReport, {"parties": parties, "topic": topic})
    return {"breakdowns": {"type": "array", "items": report, "maxItems": MAX_BREAKDOWNS}}


def breakdowns_text(breakdowns: Sequence[Breakdown]) -> str:
    """The assessment's breakdowns, one per line."""
    if not breakdowns:
        return "(none named)"
    return "\n".join(
        f"- {b.kind.value} (severity {b.severity:.2f}; parties {', '.join(b.parties) or '—'}; "
        f"topic {b.topic or '—'}): {b.evidence}"
        for b in breakdowns
    )


def rubric_rating(candidate: Utterance, breakdowns: Sequence[Breakdown]) -> float:
    """The deterministic rating of a candidate: strategy fit × severity, plus naming the parties
    involved and being concrete (the twin's scoring terms, on the same scale as the model's 1–5)."""
    if candidate.strategy is None:
        return 1.0
    fit = sum(STRATEGY_FIT[candidate.strategy].get(b.kind, 0.0) * b.severity for b in breakdowns)
    named = sum(1 for b in breakdowns for p in b.parties if p in candidate.text) / max(1, len(breakdowns))
    concrete = 0.3 if candidate.package or candidate.option else 0.0
    return round(min(5.0, 1.0 + 2.0 * (fit + 0.2 * named + concrete)), 4)


def _check_breakdowns(reply: SocialWhenReply, view: ConversationView) -> SocialWhenReply:
    checked: list[BreakdownReport] = []
    for number, report in enumerate(reply.breakdowns, start=1):
        try:
            parties = [match_name(p, view.parties, "participant") for p in report.parties]
            topic = match_name(report.topic, view.topics, "topic") if report.topic else None
        except ValueError as error:
            raise ValueError(f"breakdown {number}: {error}") from None
        checked.append(report.model_copy(update={"parties": parties, "topic": topic}))
    return reply.model_copy(update={"breakdowns": checked})


def _check_candidates(reply: CandidatesReply, view: ConversationView) -> CandidatesReply:
    strategies = [c.strategy for c in reply.candidates]
    if len(set(strategies)) != len(strategies):
        raise ValueError(f"the three candidates must use three different strategies; got {strategies}")
    checked: list[InterventionDraft] = []
    for number, draft in enumerate(reply.candidates, start=1):
        try:
            checked.append(check_intervention(draft, view))
        except ValueError as error:
            raise ValueError(f"candidate {number}: {error}") from None
    return reply.model_copy(update={"candidates": checked})


def _check_ratings(reply: ScoresReply) -> ScoresReply:
    numbers = sorted(s.candidate for s in reply.scores)
    if numbers != [1, 2, 3]:
        raise ValueError(f"rate each candidate 1, 2 and 3 exactly once; got {numbers}")
    return reply


def _utterances_since_intervention(view: ConversationView) -> int:
    count = 0
    for utterance in reversed(view.utterances):
        if utterance.is_intervention:
            return count
        count += 1
    return count + 100


LLM_MEDIATORS = ("llm-generic", "llm-social")
"""Names of the LLM-backed conversation mediators."""


def create_llm_mediator(
    name: str, llm: LLMSession, *, threshold: float | None = None
) -> ConversationMediator:
    """Build "llm-generic" or "llm-social".

    Raises:
        ScenarioError: unknown name.
    """
    key = name.strip().lower()
    chosen = DEFAULT_THRESHOLD if threshold is None else threshold
    if key == "llm-generic":
        return LLMGenericMediator(llm, threshold=chosen)
    if key == "llm-social":
        return LLMSocialMediator(llm, threshold=chosen)
    raise ScenarioError(f"unknown LLM mediator {name!r}; expected one of {list(LLM_MEDIATORS)}")
