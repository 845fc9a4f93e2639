"""Reference strategies from the Automated Negotiating Agents Competition (ANAC), written for parley
from their published descriptions: HardHeaded, AgentK, MiCRO, Atlas3 and CUHKAgent.

Each docstring names the publication it follows and where this version simplifies it. Common to
all: utilities are read on the owner's share scale (0 = its floor, the larger of its BATNA and its
worst outcome; 1 = its best outcome); time is parley's relative round time (0 at the first round,
1 at the round bound), where the competitions used wall-clock time; there is no discount factor;
and the shared skeleton (`BaselineNegotiator`) never accepts below the BATNA and walks only at
the round bound.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

import numpy as np

from parley.agents.baselines.core import BaselineNegotiator, SessionMemory
from parley.agents.baselines.ranked import TOLERANCE, RankedSpace
from parley.domain.issues import Value
from parley.domain.space import IndexArray
from parley.domain.utility import FloatArray
from parley.protocol.actions import Action, Propose
from parley.protocol.events import PartyId
from parley.protocol.view import PartyView

BAND = 0.02
"""Width of the band of packages a strategy picks its next offer from (share of the floor-to-best range)."""


# -- what the ANAC strategies share ----------------------------------------------------------------


class IssueFrequencyModel:
    """HardHeaded's frequency model of one opponent (van Krimpen et al. 2013, as decoupled in the BOA
    framework by Baarslag et al. 2014).

    Issue weights start equal; each time the opponent keeps an issue's option from one offer to
    the next, that issue's weight grows by `learn_coefficient` and the weights are renormalised
    (an issue it never moves on matters to it). Each offered option gains `value_addition` counts;
    an option's estimated value is its count over the issue's largest count.

    Args:
        shape: Options per issue.
        learn_coefficient: Weight added to an unchanged issue.
        value_addition: Count added to an offered option.
    """

    def __init__(
        self, shape: Sequence[int], learn_coefficient: float = 0.2, value_addition: float = 1.0
    ) -> None:
        self.weights = np.full(len(shape), 1.0 / len(shape))
        self.counts = [np.zeros(n) for n in shape]
        self.learn_coefficient = learn_coefficient
        self.value_addition = value_addition
        self.offers = 0
        self._last: tuple[int, ...] | None = None

    def observe(self, row: tuple[int, ...]) -> None:
        """Learn from one offer (option indices)."""
        if self._last is not None:
            unchanged = np.array([a == b for a, b in zip(row, self._last, strict=True)])
            if unchanged.any():
                self.weights = self.weights + self.learn_coefficient * unchanged
                self.weights = self.weights / self.weights.sum()
        for issue, option in enumerate(row):
            self.counts[issue][option] += self.value_addition
        self._last = row
        self.offers += 1

    def scores(self, rows: IndexArray) -> FloatArray:
        """Estimated utility (0 to 1) of outcomes given as option-index rows."""
        total = np.zeros(len(rows))
        for issue, (weight, counts) in enumerate(zip(self.weights, self.counts, strict=True)):
            top = counts.max()
            values = counts / top if top > 0 else np.ones(counts.size)
            total += weight * values[rows[:, issue]]
        return total


@dataclass(slots=True)
class Received:
    """The offers a strategy has received, read incrementally from its record.

    Attributes:
        seen: Events read so far.
        offers: (party, package, worth to the owner, option indices) in order.
        distinct: Per party, the distinct packages it has offered.
    """

    seen: int = 0
    offers: list[tuple[PartyId, Mapping[str, Value], float, tuple[int, ...]]] = field(
        default_factory=lambda: []
    )
    distinct: dict[PartyId, set[tuple[int, ...]]] = field(default_factory=lambda: {})

    def best(self) -> tuple[Mapping[str, Value], float] | None:
        """The received package worth most to the owner (the earliest among equals), with its worth."""
        if not self.offers:
            return None
        _, package, worth, _ = max(self.offers, key=lambda o: o[2])
        return package, worth


class AnacNegotiator(BaselineNegotiator):
    """The bookkeeping the ANAC strategies share: offers received, frequency models, own offers."""

    def start_session(self, ranked: RankedSpace, memory: SessionMemory) -> None:
        memory.state["received"] = Received()
        memory.state["models"] = {p: IssueFrequencyModel(ranked.space.shape) for p in memory.models}
        memory.state["own"] = []

    @property
    def received(self) -> Received:
        """The offers received this session (after `observe`)."""
        return self.memory.state["received"]

    def observe(self, view: PartyView) -> Received:
        """Read the record's new offers from other parties into `received` and the frequency models."""
        received: Received = self.memory.state["received"]
        models: dict[PartyId, IssueFrequencyModel] = self.memory.state["models"]
        ranked = self.ranked
        for event in view.record[received.seen :]:
            party = event.party
            if event.kind != "action" or party is None or party == view.party:
                continue
            move = event.payload  # (a move no action type fits is skipped)
            if not isinstance(move, Propose):
                continue
            package = move.package
            row = ranked.space.to_indices(package)
            received.offers.append((party, package, ranked.assess(package)[0], row))
            received.distinct.setdefault(party, set()).add(row)
            if party in models:
                models[party].observe(row)
        received.seen = len(view.record)
        return received

    def rows_at(self, ranks: range) -> IndexArray:
        """Option-index rows of the outcomes at a contiguous range of ranks."""
        ranked = self.ranked
        return ranked.space.indices_at(ranked.order[ranks.start : ranks.stop])

    def band(self, target: float, width: float = BAND) -> range:
        """Ranks worth at least target and at most width (share) more; the nearest above if none."""
        ranked = self.ranked
        candidates = ranked.ranks_between(target, target + width * (ranked.best - ranked.floor))
        if not candidates:
            rank = ranked.lowest_rank_at_least(target)
            candidates = range(rank, rank + 1)
        return candidates

    def best_for_opponents(self, candidates: range) -> int:
        """The candidate rank the frequency models rate highest for the others (random before any offer)."""
        models = [m for m in self.memory.state["models"].values() if m.offers]
        if len(candidates) == 1:
            return candidates.start
        if not models:
            return candidates.start + self._rng.index(len(candidates))
        rows = self.rows_at(candidates)
        scores = np.mean([m.scores(rows) for m in models], axis=0)
        return candidates.start + int(np.argmax(scores))

    def offer(self, package: Mapping[str, Value]) -> Action:
        """Propose package and remember its worth to the owner."""
        self.memory.state["own"].append(self.ranked.assess(package)[0])
        return Propose(dict(package))

    def offer_rank(self, rank: int) -> Action:
        """Propose the package at a rank."""
        self.memory.last_rank = rank
        return self.offer(self.ranked.package(rank))

    def lowest_offered(self) -> float | None:
        """The least the owner has asked for so far (its worth to the owner)."""
        own: list[float] = self.memory.state["own"]
        return min(own) if own else None

    def share_utility(self, share: float) -> float:
        """The utility at a share of the floor-to-best range (shares clipped to [0, 1])."""
        return self.ranked.at_share(min(1.0, max(0.0, share)))

    def choose_rank(self, view: PartyView, ranked: RankedSpace, memory: SessionMemory) -> int:
        return 0  # (each strategy proposes through `propose`)


# -- HardHeaded (ANAC 2011 winner) -------------------------------------------------------------------


class HardHeadedNegotiator(AnacNegotiator):
    """HardHeaded (T. van Krimpen, D. Looije, S. Hajizadeh; winner of ANAC 2011).

    Follows the description in "HardHeaded", Complex Automated Negotiations: Theories, Models, and
    Software Competitions (Springer SCI 435, 2013) and its decoupled form in Baarslag et al.,
    "Decoupling Negotiating Agents to Explore the Space of Negotiation Strategies" (2014):

    - Bidding: a very Boulware target p(t) = P_min + (P_max - P_min)·(1 - F(t)), F(t) = k_a +
      (1 - k_a)·t^(1/e) with e = 0.05 and k_a = 0.05; P_max is the best outcome and P_min the
      larger of the BATNA and 58.5% of the way from the worst outcome to the best. It opens with
      its best outcome, then offers, among the packages in a narrow band above p(t), the one its
      opponent model rates highest; when the opponent has already offered a package worth at
      least p(t), it offers that one back.
    - Opponent model: `IssueFrequencyModel` (learning coefficient 0.2, value addition 1).
    - Acceptance: an offer worth at least its next offer, or at least the least it has asked so far.

    Simplifications: relative round time instead of wall-clock time; no discount handling; the
    band is 2% of the floor-to-best range (the original widened a utility window until enough
    bids were found); with several opponents the models' estimates are averaged.
    """

    EXPONENT = 0.05
    KA = 0.05
    MINIMUM_SHARE = 0.585

    def target(self, view: PartyView) -> float:
        """p(t), as a utility."""
        ranked = self.ranked
        low = max(ranked.reservation, ranked.worst + self.MINIMUM_SHARE * (ranked.best - ranked.worst))
        low = min(low, ranked.best)
        concession = self.KA + (1 - self.KA) * view.relative_time ** (1 / self.EXPONENT)
        return low + (ranked.best - low) * (1 - concession)

    def accepts(self, view: PartyView, worth: float) -> bool:
        lowest = self.lowest_offered()
        return worth >= self.target(view) - TOLERANCE or (lowest is not None and worth >= lowest - TOLERANCE)

    def propose(self, view: PartyView) -> Action:
        received = self.observe(view)
        if not self.memory.state["own"]:
            return self.offer_rank(0)
        target = self.target(view)
        best = received.best()
        if best is not None and best[1] >= target - TOLERANCE:
            return self.offer(best[0])
        return self.offer_rank(self.best_for_opponents(self.band(target)))


# -- AgentK (ANAC 2010 winner) -----------------------------------------------------------------------


class AgentKNegotiator(AnacNegotiator):
    """AgentK (S. Kawaguchi, K. Fujita, T. Ito; winner of ANAC 2010).

    Follows "AgentK: Compromising Strategy based on Estimated Maximum Utility for Automated
    Negotiating Agents", New Trends in Agent-Based Complex Automated Negotiations (Springer SCI
    383, 2012). From the mean μ and standard deviation σ of the utilities of the opponent's offers
    it estimates the most the opponent will offer, e_max = μ + (1 - μ)·d with d = √12·σ (the width
    of a uniform distribution with that deviation), and compromises toward it before the deadline:
    target'(t) = 1 - t^α·(1 - e_max) with α = 1 + τ + 10μ - 2τμ (τ = 2, the "tremor"); the target
    is target' stretched by ratio = min(2, (d + 0.1) / (1 - target')), as ratio·target' + 1 - ratio,
    and pulled toward e_max when above it (by r·f/m with r the gap, f = min(1/r², m) and
    m = 400 - 300t), or set to e_max when below. An offer at or above the target is accepted;
    below it, with probability t^α/5 + (u - e_max) + (u - target) (none below 0.1). It offers a
    random package at or just above the target.

    Utilities are read on the worst-to-best scale (0 = worst outcome, 1 = best) as in GENIUS; the
    skeleton keeps every offer and acceptance at or above the BATNA.

    Simplifications: relative round time; the bid target is the acceptance target (the original
    draws its exponent with a random tremor); the random search for bids above the target is a
    random pick from the band of packages just above it.
    """

    TREMOR = 2.0

    def unit(self, worth: float) -> float:
        """A utility on AgentK's scale: 0 = the worst outcome, 1 = the best (BATNA aside, as in GENIUS)."""
        ranked = self.ranked
        span = ranked.best - ranked.worst
        return (worth - ranked.worst) / span if span > 0 else 1.0

    def estimates(self, view: PartyView) -> tuple[float, float, float]:
        """(e_max, target, α) on the worst-to-best scale (`unit`)."""
        received = self.observe(view)
        shares = [self.unit(worth) for _, _, worth, _ in received.offers]
        mean = float(np.mean(shares)) if shares else 0.0
        width = math.sqrt(12.0) * float(np.std(shares)) if shares else 0.0
        e_max = min(1.0, mean + (1 - mean) * width)
        alpha = 1 + self.TREMOR + 10 * mean - 2 * self.TREMOR * mean
        time = view.relative_time
        first = 1 - time**alpha * (1 - e_max)
        ratio = min(2.0, (width + 0.1) / (1 - first)) if first < 1 else 2.0
        target = ratio * first + 1 - ratio
        if target > e_max:
            gap = target - e_max
            limit = 400 - 300 * time
            pull = min(1 / (gap * gap), limit)
            target -= gap * pull / limit
        else:
            target = e_max
        return e_max, target, alpha

    def accepts(self, view: PartyView, worth: float) -> bool:
        e_max, target, alpha = self.estimates(view)
        share = self.unit(worth)
        if share >= target - TOLERANCE:
            return True
        chance = view.relative_time**alpha / 5 + (share - e_max) + (share - target)
        return chance >= 0.1 and self._rng.uniform() < min(1.0, chance)

    def propose(self, view: PartyView) -> Action:
        _, target, _ = self.estimates(view)
        ranked = self.ranked
        wanted = max(ranked.floor, ranked.worst + target * (ranked.best - ranked.worst))
        candidates = self.band(min(wanted, ranked.best))
        return self.offer_rank(candidates.start + self._rng.index(len(candidates)))


# -- MiCRO -------------------------------------------------------------------------------------------


class MiCRONegotiator(AnacNegotiator):
    """MiCRO, Minimal Concession in Reply to new Offers (D. de Jonge).

    Follows "An Analysis of the Linear Bilateral ANAC Domains Using the MiCRO Benchmark Strategy"
    (IJCAI 2022) and its multilateral form, MiCRO-Min, in Aguilera-Luzon, de Jonge and Larrosa,
    "MiCRO for Multilateral Negotiations" (arXiv 2510.17401, 2025): it lists every package from
    best to worst for itself; when it has proposed no more distinct packages than the opponent
    (every opponent, multilaterally: the smallest count) it proposes the next package of its list,
    as long as that package is worth at least its BATNA; otherwise it repeats one of its earlier
    proposals at random. It accepts an offer worth at least the lowest package it is currently
    willing to propose (and at least its BATNA). No opponent model, no parameters.

    Simplifications: none in the rules above; ties in the owner's ranking keep the space order.
    """

    def _proposed(self) -> int:
        return int(self.memory.state.get("micro_count", 0))

    def _may_concede(self, received: Received, view: PartyView) -> bool:
        counts = [len(received.distinct.get(p, ())) for p in view.opponents]
        return self._proposed() <= min(counts, default=0)

    def _next_acceptable(self) -> bool:
        ranked = self.ranked
        rank = self._proposed()
        return rank < ranked.size and ranked.utility_at(rank) >= ranked.acceptable_from

    def accepts(self, view: PartyView, worth: float) -> bool:
        received = self.observe(view)
        count = self._proposed()
        concede = self._may_concede(received, view) and self._next_acceptable()
        lowest_rank = count if concede else count - 1
        if lowest_rank < 0:
            return False
        return worth >= max(self.ranked.utility_at(lowest_rank), self.ranked.reservation) - TOLERANCE

    def propose(self, view: PartyView) -> Action:
        received = self.observe(view)
        count = self._proposed()
        if count == 0 or (self._may_concede(received, view) and self._next_acceptable()):
            self.memory.state["micro_count"] = count + 1
            return self.offer_rank(count)
        return self.offer_rank(self._rng.index(count))


# -- Atlas3 (ANAC 2015 winner) -----------------------------------------------------------------------


class Atlas3Negotiator(AnacNegotiator):
    """Atlas3 (A. Mori, T. Ito; winner of ANAC 2015, multilateral).

    Follows "Atlas3: A Negotiating Agent Based on Expecting Lower Limit of Concession Function",
    Modern Approaches to Agent-based Complex Automated Negotiation (Springer SCI 674, 2017): its
    concession has a lower limit from the expected utility of an evolutionarily stable strategy.
    Against each opponent, with B the best share that opponent has offered, the symmetric
    insist/concede game (both insist: the floor, 0; concede alone: B; insist alone: 1; both
    concede: (1 + B)/2) has its mixed equilibrium where the opponent insists with probability
    (1 - B)/(1 + B), worth 2B/(1 + B) to the agent; the lower limit L is the smallest of these
    over the opponents. The threshold falls from 1 toward L as time passes; it offers packages just
    above the threshold (the one the frequency models rate highest for the others), accepts offers
    at or above it, and in the final phase (the last 5% of the session) offers back the best
    package it has been offered, when that beats its BATNA.

    Simplifications: relative round time; the threshold's fall is a Boulware curve
    L + (1 - L)·(1 - t^2); the relative-utility local search is the band pick above; no discount
    factor.
    """

    FINAL_PHASE = 0.95

    def lower_limit(self, view: PartyView) -> float:
        """L, as a share."""
        received = self.observe(view)
        ranked = self.ranked
        best: dict[PartyId, float] = {}
        for party, _, worth, _ in received.offers:
            share = min(1.0, max(0.0, ranked.share(worth)))
            best[party] = max(best.get(party, 0.0), share)
        if not best:
            return 1.0
        return min(2 * b / (1 + b) for b in best.values())

    def threshold(self, view: PartyView) -> float:
        """The current threshold, as a share."""
        limit = self.lower_limit(view)
        return limit + (1 - limit) * (1 - view.relative_time**2)

    def accepts(self, view: PartyView, worth: float) -> bool:
        return self.ranked.share(worth) >= self.threshold(view) - TOLERANCE

    def propose(self, view: PartyView) -> Action:
        threshold = self.threshold(view)
        received = self.received
        best = received.best()
        if view.relative_time >= self.FINAL_PHASE and best is not None:
            package, worth = best
            if worth >= self.ranked.acceptable_from:
                return self.offer(package)
        return self.offer_rank(self.best_for_opponents(self.band(self.share_utility(threshold))))


# -- CUHKAgent (ANAC 2012 winner) --------------------------------------------------------------------


class CUHKNegotiator(AnacNegotiator):
    """CUHKAgent (J. Hao, H. Leung; winner of ANAC 2012).

    Follows "CUHKAgent: An Adaptive Negotiation Strategy for Bilateral Negotiations over Multiple
    Items", Novel Insights in Agent-based Complex Automated Negotiation (Springer SCI 535, 2014):
    before its non-exploitation point λ it concedes from its best outcome toward the best offer
    the opponent has made, u(t) = 1 - (1 - u_opp)·(t/λ)^α, the faster the more the opponent
    concedes (its concession degree c, the share of its offers that are new packages, sets
    α = 1 / (0.2 + 0.8·c)); from λ on it holds at the best opponent offer and offers it back.
    It accepts offers at or above u(t) or worth at least its own next offer; it picks its offers
    just above u(t), the one the frequency model rates highest for the opponent.

    Simplifications: λ is fixed at 0.95 of the session (the original adapted it to the discount
    factor and the opponent's toughness); no discount factor; the threshold never falls below the
    BATNA (the skeleton's floor).
    """

    NON_EXPLOITATION = 0.95

    def threshold(self, view: PartyView) -> float:
        """u(t), as a share."""
        received = self.observe(view)
        ranked = self.ranked
        best = received.best()
        opponent = min(1.0, max(0.0, ranked.share(best[1]))) if best is not None else 0.0
        count = len(received.offers)
        distinct = sum(len(packages) for packages in received.distinct.values())
        degree = distinct / count if count else 0.0
        alpha = 1 / (0.2 + 0.8 * degree)
        time = min(1.0, view.relative_time / self.NON_EXPLOITATION)
        return 1 - (1 - opponent) * time**alpha

    def accepts(self, view: PartyView, worth: float) -> bool:
        return self.ranked.share(worth) >= self.threshold(view) - TOLERANCE

    def propose(self, view: PartyView) -> Action:
        threshold = self.threshold(view)
        best = self.received.best()
        late = view.relative_time >= self.NON_EXPLOITATION
        if late and best is not None and best[1] >= self.ranked.acceptable_from:
            return self.offer(best[0])
        return self.offer_rank(self.best_for_opponents(self.band(self.share_utility(threshold))))
