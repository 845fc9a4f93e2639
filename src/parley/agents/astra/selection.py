"""ASTRA stage 3: pick the final offer by α·PAP + β·SA.

PAP (partner's acceptance probability) = 0.75·TS + 0.25·SI, from a virtual partner that judges
each candidate with the IPP. SA (strategy assessment) ranks the candidates by their fit to one of
the nine turn-level tactics of the seed's table 7, chosen from the partner's stance and fairness
and the negotiation phase; the rank becomes a min-max normalised ranking score in [0, 1].
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from enum import Enum

import numpy as np

from parley.agents.astra.signals import POINTS_SCALE, Fairness, Stance

TOTAL_SCORE_WEIGHT = 0.75
"""Weight of TS in PAP (the seed prioritises the partner's direct benefit)."""

SIGNIFICANT_CONCESSION_POINTS = 2.0
"""A partner concession of at least this many of the agent's points is "significant"."""

INITIAL_CONCESSION_POINTS = 3.0
"""Target size of a large initial concession (LIC), in the agent's points."""

RECIPROCAL_CAP_POINTS = 3.0
"""Largest concession a reciprocal concession (RC) aims for (the seed's agent averaged 2.3 points)."""

HOLD_LIMIT = 2
"""After this many own offers in a row without a concession, and a partner offer that did not
concede either, concede a little (CSC): a partner using the seed's walk rule (3 offers without a
concession) would otherwise leave next turn. A partner that is still conceding gets no
unreciprocated concession (tit-for-tat)."""

EXTREME_OFFER_POINTS = 0.75 * POINTS_SCALE
"""A partner offer keeping at least this many of its own points is "extreme"."""


class Strategy(Enum):
    """The two families of tactics."""

    COMPETITIVE = "competitive"
    COLLABORATIVE = "collaborative"


class Tactic(Enum):
    """The nine turn-level tactics of the seed's table 7."""

    AGGRESSIVE_EARLY_OFFER = "AEO"
    RESPONSE_TO_EXTREME_OFFER = "REO"
    NO_CONCESSION_RESPONSE = "NCR"
    REJECT_NEGATIVE_CONCESSION = "RNC"
    LARGE_INITIAL_CONCESSION = "LIC"
    CONTINUED_SMALLER_CONCESSIONS = "CSC"
    RECIPROCAL_CONCESSIONS = "RC"
    LOGROLLING = "LGR"
    MUTUAL_GAIN_FOCUS = "MGF"

    @property
    def strategy(self) -> Strategy:
        """Competitive or collaborative."""
        competitive = {"AEO", "REO", "NCR", "RNC"}
        return Strategy.COMPETITIVE if self.value in competitive else Strategy.COLLABORATIVE


class NegotiationPhase(Enum):
    """Where the negotiation is in its round budget."""

    EARLY = "early"
    MIDDLE = "middle"
    LATE = "late"


def phase_of(relative_time: float, own_offers: int) -> NegotiationPhase:
    """Early before a third of the rounds (or before two own offers), late after two thirds."""
    if relative_time >= 2 / 3:
        return NegotiationPhase.LATE
    if relative_time < 1 / 3 or own_offers < 2:
        return NegotiationPhase.EARLY
    return NegotiationPhase.MIDDLE


@dataclass(frozen=True, slots=True)
class TacticContext:
    """What the tactic choice and the fit functions look at (all scores in points).

    Attributes:
        fairness: The partner's fairness (stage 1).
        stance: The partner's stance (stage 1).
        phase: Early, middle or late.
        partner_offers: How many offers the partner made.
        own_offers: How many offers the agent made.
        partner_concession: How much the partner's latest offer improved on its previous one,
            in the agent's points (negative: it asked for more).
        partner_concessions: The same for each of its offers after the first, in order.
        own_last_concession: The agent's latest concession in its own points (0 if none).
        own_conceded: Whether the agent has conceded at all yet.
        partner_offer_partner_points: S_p^P of the partner's latest offer (None if none).
        partner_offer_agent_points: S_a^P of the partner's latest offer (None if none).
        previous_agent_points: S_a of the agent's previous offer (None if none).
        own_hold_streak: How many of the agent's latest consecutive offers conceded nothing.
    """

    fairness: Fairness
    stance: Stance
    phase: NegotiationPhase
    partner_offers: int
    own_offers: int
    partner_concession: float
    partner_concessions: tuple[float, ...]
    own_last_concession: float
    own_conceded: bool
    partner_offer_partner_points: float | None
    partner_offer_agent_points: float | None
    previous_agent_points: float | None
    own_hold_streak: int = 0


def partner_hold_streak(context: TacticContext) -> int:
    """How many of the partner's latest consecutive offers conceded nothing to the agent."""
    streak = 0
    for concession in reversed(context.partner_concessions):
        if concession > 1e-9:
            break
        streak += 1
    return streak


def keeps_talks_alive(context: TacticContext) -> bool:
    """Whether a small concession is due to break a mutual standstill (tit-for-tat: never after a
    partner concession).

    Due when the partner's latest offer conceded nothing and either the agent has held for
    HOLD_LIMIT offers (a partner with the seed's walk rule would leave next) or the partner has
    held for HOLD_LIMIT offers while the agent held too (one more and rule (a) walks away: the
    partner first gets a concession it can reciprocate, so a mirroring partner is not mistaken
    for a stubborn one).
    """
    if context.own_offers == 0 or context.partner_concession > 1e-9:
        return False
    if context.own_hold_streak >= HOLD_LIMIT:
        return True
    return context.own_hold_streak >= 1 and partner_hold_streak(context) >= HOLD_LIMIT


def choose_tactic(context: TacticContext) -> tuple[Tactic, str]:
    """The deterministic tactic assessor: a tit-for-tat mapping from signals to one tactic.

    Returns:
        The tactic and the reason in plain words.
    """
    c = context
    if c.partner_offers == 0 or (c.own_offers == 0 and c.phase is NegotiationPhase.EARLY):
        return Tactic.AGGRESSIVE_EARLY_OFFER, "opening: anchor high to leave room for later concessions"
    if keeps_talks_alive(c):
        return (
            Tactic.CONTINUED_SMALLER_CONCESSIONS,
            f"we have both held firm (me {c.own_hold_streak}, the partner {partner_hold_streak(c)} offers): "
            "a small concession keeps the talks alive",
        )
    offered = c.partner_offer_partner_points
    if offered is not None and offered >= EXTREME_OFFER_POINTS and c.phase is not NegotiationPhase.LATE:
        return Tactic.RESPONSE_TO_EXTREME_OFFER, "the partner's offer is extreme: answer in kind"
    if c.stance is Stance.GREEDY:
        if c.phase is NegotiationPhase.LATE and c.fairness is Fairness.FAIR:
            return Tactic.MUTUAL_GAIN_FOCUS, "late and the split is fair: look for a joint gain to close"
        return Tactic.REJECT_NEGATIVE_CONCESSION, "the partner asked for more: hold my position"
    if c.stance is Stance.NEUTRAL:
        if c.fairness is Fairness.FAIR:
            return (
                Tactic.CONTINUED_SMALLER_CONCESSIONS,
                "fair but firm partner: a small concession invites one back",
            )
        return Tactic.NO_CONCESSION_RESPONSE, "the partner did not move: do not move either"
    if c.stance is Stance.GENEROUS:
        if not c.own_conceded:
            return (
                Tactic.LARGE_INITIAL_CONCESSION,
                "the partner conceded first: make a clear initial concession",
            )
        if c.partner_concession >= SIGNIFICANT_CONCESSION_POINTS:
            return Tactic.RECIPROCAL_CONCESSIONS, "the partner made a significant concession: reciprocate"
        if c.phase is NegotiationPhase.LATE:
            return Tactic.MUTUAL_GAIN_FOCUS, "late with a cooperative partner: aim for mutual gain"
        return Tactic.LOGROLLING, "small concession from the partner: trade what it values for what I value"
    return Tactic.NO_CONCESSION_RESPONSE, "no clear signal: hold"


@dataclass(frozen=True, slots=True)
class ScoredCandidate:
    """One stage-2 candidate with its stage-3 scores.

    Attributes:
        row: The package as option indices.
        agent_points: S_a.
        partner_points: S_p under the IPP.
        total_score: TS in [0, 1].
        strategic_intermediary: SI in [0, 1].
        acceptance: PAP in [0, 1].
        strategy_score: SA in [0, 1].
        final: α·PAP + β·SA.
    """

    row: tuple[int, ...]
    agent_points: float
    partner_points: float
    total_score: float
    strategic_intermediary: float
    acceptance: float
    strategy_score: float
    final: float


def tactic_fit(tactic: Tactic, agent_points: float, partner_points: float, context: TacticContext) -> float:
    """How well a candidate fits a tactic (higher is better; only the ranking matters)."""
    previous = context.previous_agent_points if context.previous_agent_points is not None else POINTS_SCALE
    concession = previous - agent_points
    match tactic:
        case Tactic.AGGRESSIVE_EARLY_OFFER | Tactic.RESPONSE_TO_EXTREME_OFFER:
            return agent_points
        case Tactic.NO_CONCESSION_RESPONSE | Tactic.REJECT_NEGATIVE_CONCESSION:
            return -abs(concession) + 1e-3 * partner_points
        case Tactic.LARGE_INITIAL_CONCESSION:
            return _concession_fit(concession, INITIAL_CONCESSION_POINTS)
        case Tactic.CONTINUED_SMALLER_CONCESSIONS:
            target = max(1.0, context.own_last_concession / 2) if context.own_conceded else 1.0
            return _concession_fit(concession, target)
        case Tactic.RECIPROCAL_CONCESSIONS:
            target = min(max(context.partner_concession / 2, 1.0), RECIPROCAL_CAP_POINTS)
            return _concession_fit(concession, target)
        case Tactic.LOGROLLING:
            return agent_points + partner_points - 0.5 * max(concession, 0.0)
        case Tactic.MUTUAL_GAIN_FOCUS:
            return 2 * min(agent_points, partner_points)


def _concession_fit(concession: float, target: float) -> float:
    """Closeness to the target concession; not conceding at all ranks below any real concession."""
    return -abs(concession - target) - (POINTS_SCALE if concession <= 1e-9 else 0.0)


def ranking_scores(fits: Sequence[float]) -> list[float]:
    """Min-max normalised ranking score: best fit 1, worst 0, equal fits share a rank."""
    values = np.asarray(fits, dtype=np.float64)
    distinct = np.unique(np.round(values, 9))[::-1]
    if distinct.size <= 1:
        return [1.0] * len(fits)
    ranks = np.searchsorted(-distinct, -np.round(values, 9))
    return [float(1.0 - r / (distinct.size - 1)) for r in ranks]


def strategic_intermediary(
    row: Sequence[int],
    partner_points: float,
    previous_partner_points: float | None,
    partner_latest: Sequence[int] | None,
    cardinalities: Sequence[int],
) -> float:
    """SI in [0, 1]: how well an offer works as a step toward the partner's ideal.

    The mean of (a) the share of the remaining way from the agent's previous offer to the
    partner's ideal (its 36 points) that this offer covers under the IPP, and (b) how close the
    offer is, issue by issue, to the partner's latest offer (1 = identical option positions).
    Without a previous offer (a) is TS; without a partner offer (b) is left out.
    """
    if previous_partner_points is None:
        progress = partner_points / POINTS_SCALE
    else:
        room = POINTS_SCALE - previous_partner_points
        progress = 1.0 if room <= 1e-9 else (partner_points - previous_partner_points) / room
    progress = float(np.clip(progress, 0.0, 1.0))
    if partner_latest is None:
        return progress
    gaps = [abs(a - b) / max(n - 1, 1) for a, b, n in zip(row, partner_latest, cardinalities, strict=True)]
    closeness = 1.0 - float(np.mean(gaps))
    return (progress + closeness) / 2


def score_candidates(
    candidates: Sequence[tuple[tuple[int, ...], float, float]],
    estimates: Sequence[tuple[float, float]],
    strategy_scores: Sequence[float],
    *,
    alpha: float,
    beta: float,
) -> list[ScoredCandidate]:
    """Combine per-candidate (row, S_a, S_p), virtual-partner (TS, SI) and SA into final scores.

    PAP = 0.75·TS + 0.25·SI; final = α·PAP + β·SA (seed eq. 4).
    """
    scored: list[ScoredCandidate] = []
    for (row, agent_points, partner_points), (total, intermediary), strategy_score in zip(
        candidates, estimates, strategy_scores, strict=True
    ):
        acceptance = TOTAL_SCORE_WEIGHT * total + (1 - TOTAL_SCORE_WEIGHT) * intermediary
        final = alpha * acceptance + beta * strategy_score
        scored.append(
            ScoredCandidate(
                row, agent_points, partner_points, total, intermediary, acceptance, strategy_score, final
            )
        )
    return scored


def best_candidate(scored: Sequence[ScoredCandidate]) -> ScoredCandidate:
    """The highest final score (ties: the higher S_a, then the earlier candidate)."""
    return max(scored, key=lambda c: (round(c.final, 9), round(c.agent_points, 9)))
