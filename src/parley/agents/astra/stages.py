"""The four ASTRA judgement stages behind small protocols, with their deterministic defaults.

In the seed these stages are LLM calls; here each is plain code behind a `typing.Protocol`, so an
LLM-backed variant can replace one stage at a time: preference interpretation, the choice of λ
and S_max, the virtual partner's acceptance estimate, and the tactic assessment.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Protocol

from parley.agents.astra.opponent import Evidence, PartnerModel, estimate_partner
from parley.agents.astra.selection import (
    NegotiationPhase,
    Tactic,
    TacticContext,
    choose_tactic,
    ranking_scores,
    strategic_intermediary,
    tactic_fit,
)
from parley.agents.astra.signals import POINTS_SCALE, Fairness, Stance
from parley.domain.space import OutcomeSpace
from parley.domain.utility import FloatArray


@dataclass(frozen=True, slots=True)
class Candidate:
    """A stage-2 offer: the package as option indices, S_a and S_p (IPP), in points."""

    row: tuple[int, ...]
    agent_points: float
    partner_points: float


@dataclass(frozen=True, slots=True)
class ParameterChoice:
    """Stage 2's chosen λ and S_max, with the reason."""

    lambda_: float
    s_max: float
    reason: str


@dataclass(frozen=True, slots=True)
class AcceptanceEstimate:
    """The virtual partner's view of one candidate: TS and SI, both in [0, 1]."""

    total_score: float
    strategic_intermediary: float


@dataclass(frozen=True, slots=True)
class PartnerSituation:
    """What the virtual partner knows beyond the candidate.

    Attributes:
        previous_partner_points: S_p of the agent's previous offer under the IPP (None if none).
        partner_latest: The partner's latest offer as option indices (None if none).
        cardinalities: Options per issue.
    """

    previous_partner_points: float | None
    partner_latest: tuple[int, ...] | None
    cardinalities: tuple[int, ...]


class PreferenceInterpreter(Protocol):
    """Builds the inferred partner preferences (IPP) from what the partner said and offered."""

    def interpret(
        self,
        space: OutcomeSpace,
        own_tables: Sequence[FloatArray],
        evidence: Evidence,
        reservation_points: float,
    ) -> PartnerModel:
        """The IPP."""
        ...


class ParameterChooser(Protocol):
    """Chooses λ and S_max for stage 2 from the partner's signals."""

    def choose(
        self, fairness: Fairness, stance: Stance, previous_agent_points: float | None, phase: NegotiationPhase
    ) -> ParameterChoice:
        """λ in [0, 1] and S_max in points."""
        ...


class VirtualPartner(Protocol):
    """Judges a candidate from the partner's side (the seed's virtual partner agent)."""

    def assess(self, candidate: Candidate, situation: PartnerSituation) -> AcceptanceEstimate:
        """TS and SI of the candidate."""
        ...


class TacticAssessor(Protocol):
    """Picks one of the nine tactics and ranks candidates by how well they fit it."""

    def choose(self, context: TacticContext) -> tuple[Tactic, str]:
        """The tactic and the reason in plain words."""
        ...

    def strategy_scores(
        self, tactic: Tactic, candidates: Sequence[Candidate], context: TacticContext
    ) -> list[float]:
        """SA in [0, 1] per candidate (min-max normalised ranking score)."""
        ...


class RuleInterpreter:
    """Default interpreter: stated priorities, then offers, then "opposite to mine" (`estimate_partner`)."""

    def interpret(
        self,
        space: OutcomeSpace,
        own_tables: Sequence[FloatArray],
        evidence: Evidence,
        reservation_points: float,
    ) -> PartnerModel:
        return estimate_partner(space, own_tables, evidence, reservation_points)


LAMBDA_BY_SIGNALS: dict[tuple[Stance, Fairness], float] = {
    (Stance.GREEDY, Fairness.UNFAIR): 0.9,
    (Stance.GREEDY, Fairness.FAIR): 0.8,
    (Stance.NEUTRAL, Fairness.UNFAIR): 0.6,
    (Stance.NEUTRAL, Fairness.FAIR): 0.5,
    (Stance.GENEROUS, Fairness.UNFAIR): 0.3,
    (Stance.GENEROUS, Fairness.FAIR): 0.3,
}
"""Tit-for-tat λ: self-interest against a greedy partner, balance against a generous one."""

OPENING_LAMBDA = 0.9
"""λ before the partner's stance is known (an aggressive opening)."""


class TitForTatParameters:
    """Default chooser: λ from the stance × fairness table; S_max = the agent's previous offer."""

    def choose(
        self, fairness: Fairness, stance: Stance, previous_agent_points: float | None, phase: NegotiationPhase
    ) -> ParameterChoice:
        s_max = POINTS_SCALE if previous_agent_points is None else previous_agent_points
        key = (stance, fairness if fairness is not Fairness.UNKNOWN else Fairness.UNFAIR)
        lambda_ = LAMBDA_BY_SIGNALS.get(key, OPENING_LAMBDA)
        if stance is Stance.UNKNOWN:
            reason = f"partner's stance unknown: open self-interested (λ={lambda_})"
        else:
            reason = f"{stance.value} and {fairness.value} partner: tit-for-tat λ={lambda_}"
        where = "my best outcome" if previous_agent_points is None else "my previous offer"
        return ParameterChoice(lambda_, s_max, f"{reason}; S_max={s_max:.1f} ({where})")


class IPPVirtualPartner:
    """Default virtual partner: TS = the partner's normalised IPP score; SI as in `strategic_intermediary`."""

    def assess(self, candidate: Candidate, situation: PartnerSituation) -> AcceptanceEstimate:
        total = min(1.0, max(0.0, candidate.partner_points / POINTS_SCALE))
        intermediary = strategic_intermediary(
            candidate.row,
            candidate.partner_points,
            situation.previous_partner_points,
            situation.partner_latest,
            situation.cardinalities,
        )
        return AcceptanceEstimate(total, intermediary)


class RuleTacticAssessor:
    """Default tactic assessor: `choose_tactic` and `tactic_fit`, ranked by min-max normalised rank."""

    def choose(self, context: TacticContext) -> tuple[Tactic, str]:
        return choose_tactic(context)

    def strategy_scores(
        self, tactic: Tactic, candidates: Sequence[Candidate], context: TacticContext
    ) -> list[float]:
        fits = [tactic_fit(tactic, c.agent_points, c.partner_points, context) for c in candidates]
        return ranking_scores(fits)
