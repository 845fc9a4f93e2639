"""Concession baselines: time-based (Boulware, linear, Conceder), relative tit-for-tat, hardliner, random."""

from __future__ import annotations

import math

import numpy as np

from parley.agents.baselines.core import BaselineNegotiator, SessionMemory, check_unit, is_final_round
from parley.agents.baselines.ranked import PLANS, TOLERANCE, Plan, RankedSpace
from parley.protocol.actions import Action, Propose, Reject, Say, Walk
from parley.protocol.events import PartyId
from parley.protocol.view import PartyView

BOULWARE_EXPONENT = 0.2
"""e < 1: holds out and concedes late."""
CONCEDER_EXPONENT = 2.0
"""e > 1: concedes early."""
DEFAULT_BAND = 0.05
"""Width of the proposal band above the target, as a share of the floor-to-best range."""


class TimeBasedNegotiator(BaselineNegotiator):
    """Faratin-style time-dependent concession.

    The target utility at relative time t is floor + (anchor − floor)·(1 − t^(1/e)), where floor is
    the BATNA (or the worst outcome, if higher) and anchor a share of the way to the best outcome.
    It accepts an offer worth at least the target (which is also at most what it would propose
    next) and proposes a package drawn from a narrow band just above the target: the one its
    frequency models of the others rate best in sum; under a rule that lets a deal pass without
    some party (k of n with k below n) and with ``inclusive`` on, the one whose worst-rated other
    party is rated highest (maximin), so that its offers aim at every party rather than at the
    coalition that would suffice. Under unanimity (and in bilateral games) ``inclusive`` changes
    nothing.

    Args:
        party: The party it plays.
        seed: Seed of its random generator.
        exponent: e; below 1 Boulware, 1 linear, above 1 Conceder.
        anchor: Opening target as a share of the floor-to-best range (1 = its best outcome).
        band: Width of the proposal band, as a share of the floor-to-best range.
        inclusive: Under k of n (k below n), pick from the band by maximin over the other parties'
            estimated values instead of their sum (default on: chosen on the tuning sets,
            docs/results/generalisation.md).

    Raises:
        ValueError: exponent is not positive (or not finite), anchor/band are outside [0, 1], or
            inclusive is not a bool.
    """

    def __init__(
        self,
        party: PartyId,
        seed: int = 0,
        *,
        exponent: float = 1.0,
        anchor: float = 1.0,
        band: float = DEFAULT_BAND,
        inclusive: bool = True,
    ) -> None:
        super().__init__(party, seed)
        if not (exponent > 0 and math.isfinite(exponent)):  # (NaN fails the comparison)
            raise ValueError(f"exponent must be positive, got {exponent}")
        check_unit(anchor=anchor, band=band)
        if not isinstance(inclusive, bool):  # pyright: ignore[reportUnnecessaryIsInstance] (options come from files)
            raise ValueError(f"inclusive must be true or false, got {str(inclusive)[:40]!r}")
        self._curve = (exponent, anchor, band)
        self._inclusive = inclusive
        self._plans: dict[tuple[int, int], Plan] = {}

    # The curve is read-only: negotiators with the same curve share their plans (see start_session).

    @property
    def exponent(self) -> float:
        """e; below 1 Boulware, 1 linear, above 1 Conceder."""
        return self._curve[0]

    @property
    def anchor(self) -> float:
        """Opening target as a share of the floor-to-best range."""
        return self._curve[1]

    @property
    def band(self) -> float:
        """Width of the proposal band, as a share of the floor-to-best range."""
        return self._curve[2]

    def start_session(self, ranked: RankedSpace, memory: SessionMemory) -> None:
        # Target and band depend only on the ranking, the curve, the round and the round budget:
        # every session (and negotiator) with this utility and curve shares one table of plans.
        # (A subclass overriding this hook must call it, or it keeps the previous ranking's plans.)
        self._plans = ranked.plans((TimeBasedNegotiator, *self._curve))

    def target(self, view: PartyView) -> float:
        """The utility it aims for at this point of the session."""
        return self._plan(view)[0]

    def _plan(self, view: PartyView) -> Plan:
        """The target and the proposal band of this round (computed once per round and budget)."""
        return self._plans.get((view.round, view.rules.max_rounds)) or self._new_plan(view)

    def _new_plan(self, view: PartyView) -> Plan:
        ranked = self.ranked
        exponent, anchor, band = self._curve
        start = ranked.at_share(anchor)
        target = ranked.floor + (start - ranked.floor) * (1.0 - view.relative_time ** (1.0 / exponent))
        plan = target, band_near(ranked, target, band)
        if len(self._plans) >= PLANS:
            self._plans.clear()
        self._plans[view.round, view.rules.max_rounds] = plan
        return plan

    # accepts and choose_rank look the plan up themselves: they run on every move.

    def accepts(self, view: PartyView, worth: float) -> bool:
        plan = self._plans.get((view.round, view.rules.max_rounds)) or self._new_plan(view)
        return worth >= plan[0] - TOLERANCE

    def choose_rank(self, view: PartyView, ranked: RankedSpace, memory: SessionMemory) -> int:
        plan = self._plans.get((view.round, view.rules.max_rounds)) or self._new_plan(view)
        candidates = plan[1]
        if len(candidates) == 1:
            return candidates.start
        if self._inclusive and leaves_out(view) and any(m.offers for m in memory.models.values()):
            return pick_inclusive(candidates, memory)  # k of n: aim at every other party, not their sum
        return self.pick(candidates, memory)


def leaves_out(view: PartyView) -> bool:
    """Whether the public acceptance rule lets a deal pass without some party (k of n with k below n)."""
    required = view.rules.acceptance.required
    return required is not None and required < len(view.parties)


def pick_inclusive(candidates: range, memory: SessionMemory) -> int:
    """The rank among candidates whose worst estimated value to another party is highest (maximin over
    the parties that have made an offer, by their frequency models; ties: the higher sum, then the
    better rank for the owner). The previous proposal is skipped when there is any alternative.

    Raises:
        ValueError: no other party has made an offer yet (the caller checks first).
    """
    estimates = [model.estimate_ranks(candidates) for model in memory.models.values() if model.offers]
    if not estimates:
        raise ValueError("pick_inclusive needs at least one other party's offer")
    matrix = np.vstack(estimates)
    worst = matrix.min(axis=0)
    last = memory.last_rank
    if last is not None and last in candidates:
        worst[last - candidates.start] = -np.inf
    return candidates.start + int(np.lexsort((-matrix.sum(axis=0), -worst))[0])


def band_near(ranked: RankedSpace, target: float, band: float) -> range:
    """Ranks whose utility lies in [target, target + band·range] (the nearest above if none does)."""
    width = band * (ranked.best - ranked.floor)
    candidates = ranked.ranks_between(target, target + width)
    if not candidates:
        rank = ranked.lowest_rank_at_least(target)
        candidates = range(rank, rank + 1)
    return candidates


def pick_near(
    negotiator: BaselineNegotiator, ranked: RankedSpace, memory: SessionMemory, target: float, band: float
) -> int:
    """A rank whose utility lies in [target, target + band·range] (the nearest above if none does)."""
    return negotiator.pick(band_near(ranked, target, band), memory)


class TitForTatNegotiator(BaselineNegotiator):
    """Relative tit-for-tat: mirrors the others' concessions in its own utility.

    Its target starts at its best outcome. Whenever another party makes a new offer, the change in
    the utility that offer gives this negotiator (the other side's concession as seen from here)
    is subtracted from the target: a concession is returned in kind, a retreat is mirrored too.
    The target stays between the floor and the best outcome; at the last round any offer at or
    above the BATNA is accepted.

    Args:
        party: The party it plays.
        seed: Seed of its random generator.
        band: Width of the proposal band, as a share of the floor-to-best range.
    """

    def __init__(self, party: PartyId, seed: int = 0, *, band: float = DEFAULT_BAND) -> None:
        super().__init__(party, seed)
        check_unit(band=band)
        self.band = band

    def start_session(self, ranked: RankedSpace, memory: SessionMemory) -> None:
        memory.state["target"] = ranked.best
        memory.state["answered"] = {party: 0 for party in memory.models}

    def target(self) -> float:
        """The current target, after mirroring every new offer of the others."""
        ranked, state = self.ranked, self.memory.state
        answered: dict[PartyId, int] = state["answered"]
        changes: list[float] = []
        for party, model in self.memory.models.items():
            utilities = model.offered_utilities
            if len(utilities) >= 2 and len(utilities) > answered[party]:
                changes.append(utilities[-1] - utilities[-2])
            answered[party] = len(utilities)
        if changes:
            conceded = sum(changes) / len(changes)
            state["target"] = min(ranked.best, max(ranked.floor, state["target"] - conceded))
        return float(state["target"])

    def accepts(self, view: PartyView, worth: float) -> bool:
        return is_final_round(view) or worth >= self.target() - TOLERANCE

    def choose_rank(self, view: PartyView, ranked: RankedSpace, memory: SessionMemory) -> int:
        return pick_near(self, ranked, memory, self.target(), self.band)


class HardlinerNegotiator(BaselineNegotiator):
    """Always proposes its best outcome and accepts nothing worth less."""

    def accepts(self, view: PartyView, worth: float) -> bool:
        return worth >= self.ranked.best - TOLERANCE

    def choose_rank(self, view: PartyView, ranked: RankedSpace, memory: SessionMemory) -> int:
        return 0


class RandomNegotiator(BaselineNegotiator):
    """Random legal moves; it still never accepts below its BATNA and answers priority questions.

    Args:
        party: The party it plays.
        seed: Seed of its random generator.
        accept_probability: Chance of accepting an acceptable offer.
        walk_probability: Chance of walking away instead of proposing.
    """

    def __init__(
        self,
        party: PartyId,
        seed: int = 0,
        *,
        accept_probability: float = 0.3,
        walk_probability: float = 0.02,
    ) -> None:
        super().__init__(party, seed)
        check_unit(accept_probability=accept_probability, walk_probability=walk_probability)
        self.accept_probability = accept_probability
        self.walk_probability = walk_probability

    def accepts(self, view: PartyView, worth: float) -> bool:
        return self._rng.uniform() < self.accept_probability

    def choose_rank(self, view: PartyView, ranked: RankedSpace, memory: SessionMemory) -> int:
        # Tabling a package is offering to settle on it, so only packages at or above the BATNA.
        return self._rng.index(ranked.lowest_rank_at_least(ranked.reservation) + 1)

    def propose(self, view: PartyView) -> Action:
        roll = self._rng.uniform()
        if roll < self.walk_probability:
            return Walk("chose at random to leave")
        if roll < 0.1 and view.table is not None:
            return Reject()
        if roll < 0.15:
            return Say("Let me think about this.")
        return Propose(self.ranked.package(self.choose_rank(view, self.ranked, self.memory)))
