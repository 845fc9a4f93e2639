"""ASTRA stage 1: the partner's fairness (seed eq. 1) and stance (seed eq. 2), on a points scale.

Scores are expressed in "points": 0 is a party's worst outcome and 36 its best, the scale of the
CaSiNo campsite game (3 items x 3 units, 5/4/3 points per unit). On CaSiNo the points are the
game's own points; on any other scenario one point is 1/36 of the party's utility range.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum

import numpy as np

from parley.domain.utility import FloatArray

POINTS_SCALE = 36.0
"""Points of a party's best outcome above its worst (CaSiNo's maximum score)."""

FAIRNESS_GAP_POINTS = 4.0
"""Largest |S_a - S_p| of a fair offer (the seed's 4 points of 36)."""

SCORE_TOLERANCE = 1e-9
"""Score differences below this (in points) count as no change."""


class Fairness(Enum):
    """Whether the partner's latest offer splits the points evenly (seed eq. 1)."""

    FAIR = "fair"
    UNFAIR = "unfair"
    UNKNOWN = "unknown"


class Stance(Enum):
    """How the partner's latest offer moved from its previous one (seed eq. 2)."""

    GENEROUS = "generous"
    NEUTRAL = "neutral"
    GREEDY = "greedy"
    UNKNOWN = "unknown"


@dataclass(frozen=True, slots=True)
class PointScale:
    """Maps a party's utility to points: its worst outcome is 0, its best is 36.

    Attributes:
        low: Utility of the party's worst outcome.
        high: Utility of the party's best outcome.
    """

    low: float
    high: float

    @property
    def span(self) -> float:
        """Utility per 36 points (1 when the utility is constant, to avoid dividing by 0)."""
        return self.high - self.low if self.high > self.low else 1.0

    def points(self, utility: float) -> float:
        """One utility in points."""
        return (utility - self.low) / self.span * POINTS_SCALE

    def points_array(self, utilities: FloatArray) -> FloatArray:
        """Many utilities in points."""
        return (np.asarray(utilities, dtype=np.float64) - self.low) / self.span * POINTS_SCALE

    def utility(self, points: float) -> float:
        """The utility worth this many points."""
        return self.low + points / POINTS_SCALE * self.span


def assess_fairness(
    agent_points: float,
    partner_points: float,
    *,
    gap: float = FAIRNESS_GAP_POINTS,
    partner_max_points: float = POINTS_SCALE,
) -> Fairness:
    """Seed eq. 1: an offer is fair when |S_a - S_p| <= gap or S_p <= PMS / 2.

    Args:
        agent_points: S_a^P, the agent's points in the partner's offer.
        partner_points: S_p^P, the partner's (estimated) points in its own offer.
        gap: The tolerated gap (4 of 36 points).
        partner_max_points: PMS, the partner's possible maximum score (36 on the points scale).
    """
    if abs(agent_points - partner_points) <= gap + SCORE_TOLERANCE:
        return Fairness.FAIR
    if partner_points <= partner_max_points / 2 + SCORE_TOLERANCE:
        return Fairness.FAIR
    return Fairness.UNFAIR


def assess_stance(previous_partner_points: float | None, partner_points: float | None) -> Stance:
    """Seed eq. 2: the sign of ΔS_p between the partner's two latest offers.

    Args:
        previous_partner_points: S_p^{P,(t-1)}, or None when the partner has made fewer than 2 offers.
        partner_points: S_p^{P,(t)}, or None when the partner has made no offer.
    """
    if previous_partner_points is None or partner_points is None:
        return Stance.UNKNOWN
    change = partner_points - previous_partner_points
    if change < -SCORE_TOLERANCE:
        return Stance.GENEROUS
    if change > SCORE_TOLERANCE:
        return Stance.GREEDY
    return Stance.NEUTRAL


def assess_stance_by_concession(previous_agent_points: float | None, agent_points: float | None) -> Stance:
    """Seed eq. 2 measured in the agent's own points: the sign of the partner's latest concession.

    ΔS_p of eq. 2 needs the partner's score, which only the IPP estimates; what the partner gave up
    is read exactly from the agent's side instead: an offer giving the agent more than the
    partner's previous one is generous, less is greedy, the same is neutral.

    Args:
        previous_agent_points: S_a of the partner's previous offer (None with fewer than 2 offers).
        agent_points: S_a of the partner's latest offer (None when it has made no offer).
    """
    if previous_agent_points is None or agent_points is None:
        return Stance.UNKNOWN
    return assess_stance(-previous_agent_points, -agent_points)
