"""Rule-based twins of the ASTRA partner personas (ASTRA §3): a greedy and a fair partner.

The base partner (no persona) is a configured time-based negotiator; see `base_partner`.
"""

from __future__ import annotations

import numpy as np
from numpy.typing import NDArray

from parley.agents.baselines.concession import DEFAULT_BAND, TimeBasedNegotiator, pick_near
from parley.agents.baselines.core import BaselineNegotiator, SessionMemory, check_unit
from parley.agents.baselines.ranked import TOLERANCE, RankedSpace
from parley.domain.utility import FloatArray
from parley.protocol.actions import Say
from parley.protocol.events import PartyId
from parley.protocol.view import PartyView

BASE_ANCHOR = 0.85
"""The base partner opens strong but not at its maximum."""


def base_partner(party: PartyId, seed: int = 0) -> TimeBasedNegotiator:
    """The base partner: linear concession from a strong (not maximal) anchor; truthful priorities."""
    return TimeBasedNegotiator(party, seed, exponent=1.0, anchor=BASE_ANCHOR)


class GreedyNegotiator(BaselineNegotiator):
    """Anchors at its best outcome and concedes rarely, in small steps, never below a high share.

    Args:
        party: The party it plays.
        seed: Seed of its random generator.
        patience: Rounds between two concessions.
        step: Size of one concession, as a share of the floor-to-best range.
        minimum_share: It rejects anything below this share of the floor-to-best range.
        late: Relative time from which it walks away from offers below its BATNA.
    """

    def __init__(
        self,
        party: PartyId,
        seed: int = 0,
        *,
        patience: int = 3,
        step: float = 0.05,
        minimum_share: float = 0.7,
        late: float = 0.75,
    ) -> None:
        super().__init__(party, seed)
        if patience < 1:
            raise ValueError(f"patience must be at least 1 round, got {patience}")
        check_unit(step=step, minimum_share=minimum_share, late=late)
        self.patience = patience
        self.step = step
        self.minimum_share = minimum_share
        self.late = late

    def target(self, view: PartyView) -> float:
        """Its current demand: best outcome minus one small step per `patience` rounds."""
        steps = (view.round - 1) // self.patience
        return self.ranked.at_share(max(self.minimum_share, 1.0 - self.step * steps))

    def accepts(self, view: PartyView, worth: float) -> bool:
        return worth >= self.target(view) - TOLERANCE

    def walk_reason(self, view: PartyView, worth: float) -> str:
        if view.relative_time >= self.late and worth < self.ranked.reservation - TOLERANCE:
            return "this late, an offer below what I can get elsewhere is not worth staying for"
        return super().walk_reason(view, worth)

    def choose_rank(self, view: PartyView, ranked: RankedSpace, memory: SessionMemory) -> int:
        return pick_near(self, ranked, memory, self.target(view), DEFAULT_BAND / 2)

    def answer_priorities(self, priorities: tuple[str, ...]) -> Say:
        # Exaggerates how much it needs, but states only the order: never its BATNA or weights.
        return Say(f"I need all of it, really; {priorities[0]} above everything.", priorities)


class FairNegotiator(BaselineNegotiator):
    """Proposes the package it judges fair and sticks to near-fair packages.

    Fairness of a package is the smallest normalised utility among the parties: its own, and each
    other party's as estimated by its opponent model (which starts from "they want the opposite of
    me" and learns from their stated priorities and offers). It proposes packages within
    `tolerance` of the fairest one, and accepts an offer giving it at least (nearly) what the
    fairest package would.

    Args:
        party: The party it plays.
        seed: Seed of its random generator.
        tolerance: How far below the fairest package (in normalised utility) it still goes.
    """

    def __init__(self, party: PartyId, seed: int = 0, *, tolerance: float = 0.05) -> None:
        super().__init__(party, seed)
        check_unit(tolerance=tolerance)
        self.tolerance = tolerance

    def fairness(self) -> FloatArray:
        """Fairness of every outcome, in the owner's rank order (BATNA-violating ones at −inf)."""
        return self._fair_points()[0]

    def _fair_points(self) -> tuple[FloatArray, int, NDArray[np.int64]]:
        """Fairness, the fairest rank and the near-fair ranks, cached until the models change."""
        memory = self.memory
        key = tuple((m.offers, m.stated) for m in memory.models.values())
        cached = memory.state.get("fair")
        if cached is None or cached[0] != key:
            ranked = self.ranked
            fairness = ranked.unit_utilities
            for model in memory.models.values():
                fairness = np.minimum(fairness, _unit(model.estimate()))
            fairness = np.where(ranked.acceptable, fairness, -np.inf)
            near = np.flatnonzero(fairness >= fairness.max() - self.tolerance)
            cached = memory.state["fair"] = (key, fairness, int(np.argmax(fairness)), near)
        return cached[1], cached[2], cached[3]

    def fair_rank(self) -> int:
        """Rank of the fairest package (its best for the owner among equally fair ones)."""
        return self._fair_points()[1]

    def accepts(self, view: PartyView, worth: float) -> bool:
        ranked = self.ranked
        return ranked.share(worth) >= ranked.share(ranked.utility_at(self.fair_rank())) - self.tolerance

    def choose_rank(self, view: PartyView, ranked: RankedSpace, memory: SessionMemory) -> int:
        if memory.last_rank is None:
            return self.fair_rank()
        near = self._fair_points()[2]
        if near.size > 1:
            near = near[near != memory.last_rank]
        return int(near[self._rng.index(near.size)])


def _unit(values: FloatArray) -> FloatArray:
    low, high = float(values.min()), float(values.max())
    return (values - low) / (high - low) if high > low else np.ones(values.shape)
