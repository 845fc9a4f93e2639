"""ASTRA's four judgement stages played by an LLM, each falling back to its deterministic twin.

- `LLMPreferenceInterpreter`: reads the partner's messages and offers into stated priorities and,
  where the partner spelled one out, an offer; the twin then builds the IPP from that evidence.
- `LLMParameterChooser`: λ in [0, 1] and S_max between the agent's BATNA and 36 points.
- `LLMVirtualPartner`: TS and SI of one candidate on a 0–10 scale, averaged over N samples.
- `LLMTacticAssessor`: one of the nine tactics, then a ranking of the stage-2 candidates.

The stages implement the Protocols of `parley.agents.astra.stages`; the MILP still computes every
candidate and ASTRA's BATNA floor, accept and walk rules stay code, so a model can only move the
parameters within their validated bounds and change which candidate is chosen.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Annotated, Any

from pydantic import BaseModel, ConfigDict, Field

from parley.agents.astra.opponent import Evidence, PartnerModel
from parley.agents.astra.selection import NegotiationPhase, Tactic, TacticContext
from parley.agents.astra.signals import POINTS_SCALE, Fairness, Stance
from parley.agents.astra.stages import (
    AcceptanceEstimate,
    Candidate,
    IPPVirtualPartner,
    ParameterChoice,
    ParameterChooser,
    PartnerSituation,
    PreferenceInterpreter,
    RuleInterpreter,
    RuleTacticAssessor,
    TacticAssessor,
    TitForTatParameters,
    VirtualPartner,
)
from parley.domain.space import OutcomeSpace
from parley.domain.utility import FloatArray
from parley.llm.context import LLMSession
from parley.llm.role import Role
from parley.llm.roles.astra_common import (
    INTERPRETER_ROLE,
    PARAMETERS_ROLE,
    PARTNER_ROLE,
    TACTIC_ROLE,
    TACTIC_TEXT,
    StageContext,
    issues_worth_text,
    match_issue,
    match_package,
    match_tactic,
    partner_model_text,
    partner_moves_text,
    row_text,
    tactic_context_text,
    tactics_menu,
)
from parley.llm.structured import Name, Note, names_schema, package_schema, sized_list

MAX_REASON = 400
"""Most characters of a model's reason kept in a trace."""

SCORE_SCALE = 10.0
"""The virtual partner answers TS and SI on a 0–10 scale (the seed's)."""

MAX_ISSUES = 12
"""Most issue names in an interpreter's priorities (the per-call schema allows one per issue)."""

MAX_CANDIDATES = 20
"""Most candidates a ranking may list (the per-call schema asks for exactly the candidates shown)."""


# -- preference interpretation ---------------------------------------------------------------------


class InterpretationReply(BaseModel):
    """What the partner's messages and offers reveal.

    Attributes:
        priorities: Issue names, the partner's most important first (empty: nothing revealed).
        offer: The package the partner asked for in words (issue → option), or None.

    priorities is required (an empty object is no answer); offer may be left out.
        reason: One sentence on the evidence.
    """

    model_config = ConfigDict(extra="ignore")

    priorities: list[Name] = Field(max_length=MAX_ISSUES)
    offer: dict[str, str | int | float] | None = None
    reason: Note = ""


@dataclass(frozen=True, slots=True)
class Reading:
    """A validated interpretation: issue order (most important first) and an offer row, if any."""

    priorities: tuple[str, ...]
    offer: tuple[int, ...] | None


def check_interpretation(space: OutcomeSpace, reply: InterpretationReply) -> InterpretationReply:
    """Map the model's issue and option names onto the space's own (nothing is guessed).

    Raises:
        ValueError: an unknown issue or option, or an incomplete offer.
    """
    priorities = list(dict.fromkeys(match_issue(space, name) for name in reply.priorities))
    offer = dict(space.from_indices(match_package(space, reply.offer))) if reply.offer else None
    return reply.model_copy(update={"priorities": priorities, "offer": offer})


def reading_of(space: OutcomeSpace, reply: InterpretationReply) -> Reading:
    """A checked reply as a `Reading`."""
    offer = space.to_indices(reply.offer) if reply.offer else None
    return Reading(tuple(reply.priorities), offer)


def with_reading(evidence: Evidence, reading: Reading) -> Evidence:
    """The evidence plus what the model read: its issue order as the latest statement, its offer."""
    statements = (*evidence.statements, reading.priorities) if reading.priorities else evidence.statements
    offers = evidence.partner_offers
    if reading.offer is not None and reading.offer not in offers:
        offers = (*offers, reading.offer)
    return replace(evidence, statements=statements, partner_offers=offers)


class LLMPreferenceInterpreter:
    """Stage: preference interpretation by an LLM (implements `PreferenceInterpreter`).

    The model reads the partner's moves (free text and offers) once per new partner move; its
    reading is added to the evidence and the twin turns that evidence into the IPP, so the model
    shapes the estimate but never its form. With no partner move to read, no call is made.

    Args:
        context: The negotiator's stage context.
        llm: The session's LLM side.
        twin: Builds the IPP from evidence (default `RuleInterpreter`); used alone on fallback.
        history_limit: Most recent partner moves shown.
    """

    def __init__(
        self,
        context: StageContext,
        llm: LLMSession,
        *,
        twin: PreferenceInterpreter | None = None,
        history_limit: int = 12,
    ) -> None:
        self.context = context
        self.twin: PreferenceInterpreter = twin or RuleInterpreter()
        self.history_limit = history_limit
        self._role = Role(
            INTERPRETER_ROLE, InterpretationReply, "astra_interpreter", llm, party=context.party
        )
        self._memo: tuple[str, Reading | None] | None = None

    def interpret(
        self,
        space: OutcomeSpace,
        own_tables: Sequence[FloatArray],
        evidence: Evidence,
        reservation_points: float,
    ) -> PartnerModel:
        """The IPP, from the evidence plus the model's reading of the partner's moves."""
        reading = self.read(space, own_tables)
        if reading is not None:
            evidence = with_reading(evidence, reading)
        model = self.twin.interpret(space, own_tables, evidence, reservation_points)
        self.context.model = model
        return model

    def read(self, space: OutcomeSpace, own_tables: Sequence[FloatArray]) -> Reading | None:
        """The model's reading of the partner's moves (None: nothing to read, or the twin alone).

        Args:
            space: The outcome space.
            own_tables: The agent's worth of each option, per issue (shows the model which way
                the shared options point).
        """
        view = self.context.view
        moves = partner_moves_text(view, self.history_limit) if view is not None else ""
        if view is None or not moves:
            return None
        if self._memo is not None and self._memo[0] == moves:
            self.context.mark("interpreter", "cached")
            return self._memo[1]
        variables = {
            "issues": issues_worth_text(space, own_tables),
            "partner": ", ".join(view.opponents),
            "moves": moves,
        }
        issues = {issue.name: issue.values for issue in space.issues}
        outcome = self._role.call(
            variables,
            validate=lambda r: check_interpretation(space, r),
            round=view.round,
            overrides={
                "offer": package_schema(issues, nullable=True),
                "priorities": names_schema(space.names),
            },
        )
        reading = reading_of(space, outcome.value) if outcome.value is not None else None
        self.context.mark("interpreter", "llm" if reading is not None else "twin")
        self._memo = (moves, reading)
        return reading


# -- λ and S_max -------------------------------------------------------------------------------------


class ParametersReply(BaseModel):
    """λ and S_max for the stage-2 optimisation.

    Attributes:
        lambda_: λ in [0, 1]: 1 serves only my score, 0 weighs the partner's score as much as mine.
        s_max: The most points my offer may give me (between my BATNA and 36).
        reason: One sentence.
    """

    model_config = ConfigDict(extra="ignore", populate_by_name=True)

    lambda_: float = Field(alias="lambda", ge=0.0, le=1.0)
    s_max: float
    reason: Note = ""


def s_max_options(floor: float) -> list[int]:
    """The S_max values offered to the model: whole points from the BATNA (rounded up) to 36."""
    low = min(math.ceil(floor - 1e-9), int(POINTS_SCALE))
    return list(range(max(0, low), int(POINTS_SCALE) + 1))


def check_parameters(reply: ParametersReply, floor: float) -> ParametersReply:
    """S_max must lie between the agent's BATNA (floor, points) and 36 points.

    Raises:
        ValueError: S_max out of range.
    """
    if not floor - 1e-9 <= reply.s_max <= POINTS_SCALE + 1e-9:
        raise ValueError(
            f"s_max must be between {floor:.1f} (my BATNA) and {POINTS_SCALE:.0f} points, got {reply.s_max}"
        )
    return reply


class LLMParameterChooser:
    """Stage: λ and S_max chosen by an LLM from the stage-1 signals (implements `ParameterChooser`).

    Args:
        context: The negotiator's stage context.
        llm: The session's LLM side.
        twin: The deterministic chooser (default: the tit-for-tat table, `TitForTatParameters`).
    """

    def __init__(
        self, context: StageContext, llm: LLMSession, *, twin: ParameterChooser | None = None
    ) -> None:
        self.context = context
        self.twin: ParameterChooser = twin or TitForTatParameters()
        self._role = Role(PARAMETERS_ROLE, ParametersReply, "astra_parameters", llm, party=context.party)

    def choose(
        self, fairness: Fairness, stance: Stance, previous_agent_points: float | None, phase: NegotiationPhase
    ) -> ParameterChoice:
        """λ and S_max from the model, within bounds; the twin's on fallback."""
        floor = self.context.reservation_points()
        previous = (
            "none yet (I have not made an offer)"
            if previous_agent_points is None
            else (f"{previous_agent_points:.1f} points")
        )
        variables = {
            "fairness": fairness.value,
            "stance": stance.value,
            "phase": phase.value,
            "previous": previous,
            "floor": f"{floor:.1f}",
            "top": f"{POINTS_SCALE:.0f}",
        }
        outcome = self._role.call(
            variables,
            validate=lambda r: check_parameters(r, floor),
            round=self.context.round,
            overrides={"s_max": {"type": "number", "enum": s_max_options(floor)}},
        )
        if outcome.value is None:
            self.context.mark("parameters", "twin")
            return self.twin.choose(fairness, stance, previous_agent_points, phase)
        self.context.mark("parameters", "llm")
        reply = outcome.value
        reason = f"model: {reply.reason.strip()[:MAX_REASON] or 'no reason given'}"
        return ParameterChoice(
            reply.lambda_, reply.s_max, f"{reason} (λ={reply.lambda_:g}, S_max={reply.s_max:g})"
        )


# -- virtual partner ---------------------------------------------------------------------------------


class PartnerEstimateReply(BaseModel):
    """The virtual partner's view of one offer, each on a 0–10 scale.

    Attributes:
        total_score: TS: how good the offer is for the partner itself.
        strategic_intermediary: SI: how well it works as a step toward the partner's ideal.
        reason: One sentence.
    """

    model_config = ConfigDict(extra="ignore")

    total_score: float = Field(ge=0.0, le=SCORE_SCALE)
    strategic_intermediary: float = Field(ge=0.0, le=SCORE_SCALE)
    reason: Note = ""


class LLMVirtualPartner:
    """Stage: the virtual partner agent (VPA) played by an LLM (implements `VirtualPartner`).

    Each candidate is judged `samples` times and TS and SI are averaged, as in the seed (which uses
    five); the default of one sample saves cost. Samples that fail are left out; when all fail the
    twin (`IPPVirtualPartner`) judges the candidate.

    Args:
        context: The negotiator's stage context (its IPP describes the partner to the model).
        llm: The session's LLM side.
        samples: Judgements per candidate (N, at least 1).
        twin: The deterministic virtual partner.
    """

    def __init__(
        self,
        context: StageContext,
        llm: LLMSession,
        *,
        samples: int = 1,
        twin: VirtualPartner | None = None,
    ) -> None:
        if samples < 1:
            raise ValueError(f"samples must be at least 1, got {samples}")
        self.context = context
        self.samples = samples
        self.twin: VirtualPartner = twin or IPPVirtualPartner()
        self._role = Role(PARTNER_ROLE, PartnerEstimateReply, "astra_partner", llm, party=context.party)

    def assess(self, candidate: Candidate, situation: PartnerSituation) -> AcceptanceEstimate:
        """TS and SI in [0, 1]: the mean of the model's samples divided by 10, or the twin's."""
        view, model = self.context.view, self.context.model
        if view is None:
            return self.twin.assess(candidate, situation)
        previous = situation.previous_partner_points
        base = {
            "partner_model": partner_model_text(model),
            "ideal": row_text(view.space, model.ideal() if model is not None else None),
            "offer": row_text(view.space, candidate.row),
            "offer_points": f"{candidate.partner_points:.1f}",
            "partner_latest": row_text(view.space, situation.partner_latest),
            "previous_points": "nothing yet" if previous is None else f"{previous:.1f} points",
        }
        replies = [self._sample(base, k) for k in range(1, self.samples + 1)]
        valid = [r for r in replies if r is not None]
        if not valid:
            self.context.mark("virtual_partner", "twin")
            return self.twin.assess(candidate, situation)
        self.context.mark("virtual_partner", "llm")
        total = sum(r.total_score for r in valid) / len(valid) / SCORE_SCALE
        intermediary = sum(r.strategic_intermediary for r in valid) / len(valid) / SCORE_SCALE
        return AcceptanceEstimate(total, intermediary)

    def _sample(self, base: dict[str, str], k: int) -> PartnerEstimateReply | None:
        return self._role.call(
            {**base, "sample": sample_line(k, self.samples)}, round=self.context.round
        ).value


# -- tactic assessment -------------------------------------------------------------------------------


class TacticReply(BaseModel):
    """The tactic for this turn.

    Attributes:
        tactic: The code of one of the nine tactics (AEO, REO, NCR, RNC, LIC, CSC, RC, LGR, MGF).
        reason: One sentence.
    """

    model_config = ConfigDict(extra="ignore")

    tactic: str = Field(json_schema_extra={"enum": [t.value for t in Tactic]})
    reason: Note = ""


class RankingReply(BaseModel):
    """The candidates ranked by how well they carry out the tactic.

    Attributes:
        ranking: Every candidate number once, best fit first.
        reason: One sentence.
    """

    model_config = ConfigDict(extra="ignore")

    ranking: list[Annotated[int, Field(ge=1, le=MAX_CANDIDATES)]] = Field(max_length=MAX_CANDIDATES)
    reason: Note = ""


def check_ranking(reply: RankingReply, count: int) -> RankingReply:
    """The ranking must list each of the candidates 1..count exactly once.

    Raises:
        ValueError: a number out of range, repeated or missing.
    """
    wanted = set(range(1, count + 1))
    if len(reply.ranking) != count or set(reply.ranking) != wanted:
        raise ValueError(
            f"ranking must list every candidate number from 1 to {count} exactly once, got {reply.ranking}"
        )
    return reply


def ranking_to_scores(ranking: Sequence[int]) -> list[float]:
    """Min-max normalised ranking score per candidate (in candidate order): best 1, worst 0."""
    count = len(ranking)
    if count <= 1:
        return [1.0] * count
    position = {number: rank for rank, number in enumerate(ranking)}
    return [1.0 - position[n] / (count - 1) for n in range(1, count + 1)]


class LLMTacticAssessor:
    """Stage: tactic choice and strategy assessment by an LLM (implements `TacticAssessor`).

    `choose` asks for one of the nine tactics of the seed's table 7; `strategy_scores` asks for a
    ranking of the stage-2 candidates under that tactic and turns it into the min-max normalised
    ranking score (one candidate: no call). With N samples (the seed uses five) the majority tactic
    wins (ties: the one named first) and the ranking scores are averaged. Either falls back to
    `RuleTacticAssessor` when no sample is usable.

    Args:
        context: The negotiator's stage context.
        llm: The session's LLM side.
        samples: Tactic choices and rankings asked per proposal (N, at least 1).
        twin: The deterministic tactic assessor.
    """

    def __init__(
        self,
        context: StageContext,
        llm: LLMSession,
        *,
        samples: int = 1,
        twin: TacticAssessor | None = None,
    ) -> None:
        if samples < 1:
            raise ValueError(f"samples must be at least 1, got {samples}")
        self.context = context
        self.samples = samples
        self.twin: TacticAssessor = twin or RuleTacticAssessor()
        self._choose = Role(TACTIC_ROLE, TacticReply, "astra_tactic", llm, party=context.party)
        self._rank = Role(TACTIC_ROLE, RankingReply, "astra_ranking", llm, party=context.party)

    def choose(self, context: TacticContext) -> tuple[Tactic, str]:
        """The model's tactic (code checked; the majority over the samples), or the twin's."""
        base = {"tactics": tactics_menu(), "situation": tactic_context_text(context)}
        replies = [
            self._choose.call(
                {**base, "sample": sample_line(k, self.samples)},
                validate=_check_tactic,
                round=self.context.round,
            ).value
            for k in range(1, self.samples + 1)
        ]
        valid = [r for r in replies if r is not None]
        if not valid:
            self.context.mark("tactic", "twin")
            return self.twin.choose(context)
        self.context.mark("tactic", "llm")
        code, votes = Counter(r.tactic for r in valid).most_common(1)[0]
        first = next(r for r in valid if r.tactic == code)
        reason = first.reason.strip()[:MAX_REASON] or "chosen by the model"
        tally = f" ({votes} of {len(valid)} votes)" if self.samples > 1 else ""
        return Tactic(code), f"model: {reason}{tally}"

    def strategy_scores(
        self, tactic: Tactic, candidates: Sequence[Candidate], context: TacticContext
    ) -> list[float]:
        """SA per candidate from the model's rankings (averaged over the samples), or the twin's."""
        view = self.context.view
        if len(candidates) <= 1 or view is None:
            return self.twin.strategy_scores(tactic, candidates, context)
        previous = context.previous_agent_points
        lines = [
            f"{n}. {row_text(view.space, c.row)} — {c.agent_points:.1f} points for me, "
            f"{c.partner_points:.1f} (estimated) for the partner"
            + ("" if previous is None else f", my concession {previous - c.agent_points:+.1f}")
            for n, c in enumerate(candidates, start=1)
        ]
        base = {
            "tactic": f"{tactic.value} — {TACTIC_TEXT[tactic]}",
            "situation": tactic_context_text(context),
            "candidates": "\n".join(lines),
            "count": len(candidates),
        }
        rankings = [self._ranking(base, k, len(candidates)) for k in range(1, self.samples + 1)]
        valid = [ranking_to_scores(r.ranking) for r in rankings if r is not None]
        if not valid:
            self.context.mark("ranking", "twin")
            return self.twin.strategy_scores(tactic, candidates, context)
        self.context.mark("ranking", "llm")
        return [sum(column) / len(valid) for column in zip(*valid, strict=True)]

    def _ranking(self, base: dict[str, Any], k: int, count: int) -> RankingReply | None:
        variables = {**base, "sample": sample_line(k, self.samples)}
        numbers = {"type": "integer", "enum": list(range(1, count + 1))}
        return self._rank.call(
            variables,
            validate=lambda r: check_ranking(r, count),
            round=self.context.round,
            overrides={"ranking": sized_list(numbers, count)},
        ).value


def sample_line(k: int, samples: int) -> str:
    """The line that keeps repeated samples apart in caches and replays (empty for one sample)."""
    return f"Independent judgement {k} of {samples}.\n" if samples > 1 else ""


def _check_tactic(reply: TacticReply) -> TacticReply:
    return reply.model_copy(update={"tactic": match_tactic(reply.tactic).value})
