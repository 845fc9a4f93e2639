"""Simulated counterparties that bargain, for the principal's-outcome experiment.

`SimulatedCounterparty` names its reservation outright ("I'd need $115K"), so any delegate that
offers what it is asked gets the whole zone of possible agreement. A `BargainingCounterparty` answers
screening questions the same way, but in the negotiation it opens above a hidden reservation and
concedes on its own time-based schedule (the persona sets how late), over the negotiated amount and
up to two other terms it contests (a signing bonus, remote days; payment terms, lead time; deposit,
lease term), which it weighs against the amount. Its reservation and preferences stay inside it: the
delegate only ever reads its messages.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from functools import cached_property
from typing import Any

import numpy as np

from parley.agents.baselines.concession import DEFAULT_BAND, band_near
from parley.agents.baselines.ranked import RankedSpace
from parley.domain.issues import Issue
from parley.domain.space import OutcomeSpace
from parley.domain.utility import LinearAdditiveUtility
from parley.governance.config import DomainConfig
from parley.governance.counterparties import SimulatedCounterparty
from parley.governance.drafting import format_amount
from parley.governance.offers import negotiation_term, term_phrase
from parley.governance.strategy import TermScale, TermValue, concession_share, term_scales
from parley.governance.terms import reader_for

CONTESTED = {
    "staffing": ("signing_bonus", "remote_days"),
    "procurement": ("payment_terms", "lead_time"),
    "leasing": ("deposit", "lease_term"),
}
"""Terms besides the amount a counterparty of each domain may contest (0 to 2 of them per seed)."""
EXPONENTS = {"cooperative": 1.0, "adversarial": 0.3, "slow": 0.6, "contradictory": 1.0}
"""The persona's concession exponent e: 1 linear, below 1 Boulware (late)."""
DEADLINE = 6
"""Counter-offers after which the counterparty has conceded down to its reservation."""
MARKUP = (0.10, 0.30)
"""Its opening ask on the amount lies this far beyond its reservation (share of the reservation)."""
_PRINCIPAL_COUNTER = "thanks for being open about that"
"""Opening of the counter_at_limit template: the principal's take-it-or-leave-it counter."""


@dataclass(frozen=True, slots=True)
class HiddenPreferences:
    """A counterparty's private side: what it contests, how much it cares, where it walks away.

    Its utility is 0 at its reservation package (the reservation amount, everything else at the
    principal's best) and 1 at its opening ask; it is linear in the amount and, on the other terms,
    in the principal's own worth of each value (preferences opposed term by term).

    Attributes:
        money_term: The negotiated amount's term.
        reservation: Its walk-away amount (hidden).
        aspiration: Its opening amount.
        goals: Its opening value per other contested term.
        weights: Weight per contested term (the amount included), summing to 1.
        flexibility: Utility it gives up on the principal's take-it-or-leave-it counter.
        exponent: Its concession exponent.
    """

    money_term: str
    reservation: float
    aspiration: float
    goals: Mapping[str, TermValue]
    weights: Mapping[str, float]
    flexibility: float
    exponent: float

    def part(self, scales: Mapping[str, TermScale], name: str, value: TermValue | None) -> float:
        """Its unweighted utility of one term's value (None: the principal's best, worth 0 to it)."""
        if name == self.money_term:
            amount = self.reservation if value is None else float(value)
            return (amount - self.reservation) / (self.aspiration - self.reservation)
        scale = scales[name]
        reach = 1.0 - scale.worth(self.goals[name])
        return 0.0 if value is None or reach <= 0 else (1.0 - scale.worth(value)) / reach

    def value(self, scales: Mapping[str, TermScale], package: Mapping[str, TermValue]) -> float:
        """Its utility of a package (a contested term the package lacks: the principal's best)."""
        return sum(
            weight * self.part(scales, name, package.get(name)) for name, weight in self.weights.items()
        )

    @property
    def walk_away(self) -> float:
        """The least utility it accepts (on the principal's final counter)."""
        return -self.flexibility


def _best(scale: TermScale) -> float:
    edge = scale.low if scale.better == "lower" else scale.high
    return float(edge if edge is not None else 0.0)


def draw_preferences(
    config: DomainConfig, money_term: str, reservation: float, persona: str, rng: np.random.Generator
) -> HiddenPreferences:
    """Draw a counterparty's hidden preferences for one seed."""
    scales = term_scales(config, money_term, {})
    money = scales[money_term]
    step = _money_step(money)
    markup = float(rng.uniform(*MARKUP))
    sign = 1.0 if money.better == "lower" else -1.0
    aspiration = reservation + sign * max(step, round(reservation * markup / step) * step)
    candidates = [n for n in CONTESTED.get(config.name, ()) if n in scales]
    count = int(rng.integers(0, len(candidates) + 1))
    contested = [candidates[int(i)] for i in sorted(rng.choice(len(candidates), size=count, replace=False))]
    goals = {name: _goal(scales[name], rng) for name in contested}
    shares = rng.dirichlet(np.ones(len(goals))) if goals else np.zeros(0)
    money_weight = float(rng.uniform(0.5, 0.8)) if goals else 1.0
    weights = {money_term: money_weight} | {
        name: (1.0 - money_weight) * float(share) for name, share in zip(goals, shares, strict=True)
    }
    flexibility = float(rng.uniform(0.0, 0.1)) * money_weight * reservation / abs(aspiration - reservation)
    return HiddenPreferences(
        money_term, reservation, aspiration, goals, weights, flexibility, EXPONENTS.get(persona, 1.0)
    )


def _money_step(scale: TermScale) -> float:
    values = sorted(float(v) for v in scale.options)
    return values[1] - values[0] if len(values) > 1 else 1.0


def _goal(scale: TermScale, rng: np.random.Generator) -> TermValue:
    """An opening value in the worse half (for the principal) of what the principal authorises."""
    if scale.better is None:
        allowed = [o for o in scale.order if o in scale.allowed]
        return (
            allowed[-1] if len(allowed) < 2 else allowed[int(rng.integers(len(allowed) // 2, len(allowed)))]
        )
    values = sorted({*map(float, scale.options), *scale.limits}, key=lambda v: -scale.worth(v))
    worse = [v for v in values if scale.authorised(v)][len(values) // 2 :]
    return worse[int(rng.integers(len(worse)))] if worse else values[-1]


class BargainingCounterparty(SimulatedCounterparty):
    """A simulated counterparty that bargains over the amount and the terms it contests.

    Screening answers, silences, attacks and contradictions are those of its persona
    (`SimulatedCounterparty`); offers are answered from its hidden preferences:

    - an offer worth at least its current target is accepted ("$92K works for me"; for a range, the
      least amount in it that reaches the target);
    - otherwise it counters with a package near its target, the one closest to the delegate's offer;
    - the principal's take-it-or-leave-it counter is accepted down to its walk-away, else it leaves.

    Args:
        config: Domain config.
        persona: One of `PERSONAS`.
        seed: Seed (ground truth, behaviour and hidden preferences).
    """

    def __init__(self, config: DomainConfig, persona: str, seed: int) -> None:
        super().__init__(config, persona, seed)
        self.money_term = negotiation_term(config, self.truth)
        self.hidden = draw_preferences(
            config, self.money_term, self.reservation, persona, np.random.default_rng([seed, 17])
        )
        self.scales = term_scales(config, self.money_term, {})
        self.counters = 0
        self.last_asks: dict[str, TermValue] = {}
        self._reader = reader_for(config)

    # -- its space -----------------------------------------------------------------------------------
    @cached_property
    def _ranked(self) -> RankedSpace:
        """Its packages over the contested terms, ranked by its utility (the baselines' ranking)."""
        hidden = self.hidden
        step = _money_step(self.scales[self.money_term])
        span = abs(hidden.aspiration - hidden.reservation)
        low, high = sorted((hidden.reservation - span, hidden.aspiration))
        amounts = tuple(float(v) for v in np.arange(low, high + step / 2, step).round(6))
        issues = [Issue.options(self.money_term, amounts)]
        issues += [
            Issue.options(name, self._span(self.scales[name], goal)) for name, goal in hidden.goals.items()
        ]
        values = {
            issue.name: [hidden.part(self.scales, issue.name, v) for v in issue.values] for issue in issues
        }
        space = OutcomeSpace.of(issues)
        return RankedSpace(space, LinearAdditiveUtility(space, dict(hidden.weights), values))

    def _span(self, scale: TermScale, goal: TermValue) -> tuple[TermValue, ...]:
        """The values of a term from the principal's best to its goal."""
        if scale.better is None:
            allowed = [o for o in scale.order if o in scale.allowed or o == goal]
            return tuple(o for o in allowed if scale.worth(o) >= scale.worth(goal) - 1e-9)
        values = {*map(float, scale.options), *scale.limits, float(goal), _best(scale)}
        return tuple(
            sorted(v for v in values if scale.authorised(v) and scale.worth(v) >= scale.worth(goal) - 1e-9)
        )

    # -- answering ----------------------------------------------------------------------------------
    def _say(self, name: str, rng: np.random.Generator) -> str:
        """A screening answer; asked about the amount, it names its opening ask, not its reservation."""
        if name != self._reservation_field():
            return super()._say(name, rng)
        spec = self._data["fields"][name]
        active = spec["contract"] if self.money_term != self.config.negotiation.term else spec
        template = active["say"][int(rng.integers(len(active["say"])))]
        value = self.hidden.aspiration
        return template.format(value=value, amount=self._amount(value))

    def _answer_offer(self, offer: float, message: str, rng: np.random.Generator) -> str:
        package, low = self._read_offer(message, offer)
        hidden = self.hidden
        if self.money_term not in package:  # the amount came as another term (annual for hourly)
            return self._counter({}, concession_share(self.counters, DEADLINE, hidden.exponent))
        if _PRINCIPAL_COUNTER in message.lower():
            if hidden.value(self.scales, package) >= hidden.walk_away - 1e-9:
                return f"OK, {self._amount(package[self.money_term])} works for me."
            return "Thanks, but I'll pass on this one."
        target = concession_share(self.counters, DEADLINE, hidden.exponent)
        if hidden.value(self.scales, package) >= target - 1e-9:
            return f"{self._amount(self._least_amount(package, low, target))} works for me."
        return self._counter(package, target)

    def _read_offer(self, message: str, offer: float) -> tuple[dict[str, TermValue], float]:
        """The delegate's package (a range read at its top) and the low end of the amount."""
        reading = self._reader.read(message)
        package: dict[str, TermValue] = {}
        for stated in reading.terms:
            if stated.term in self.hidden.goals:
                package[stated.term] = stated.value
        amount = reading.get(self.money_term)
        if amount is None or isinstance(amount.value, str):
            other = [t for t in reading.terms if t.term in {b.name for b in self.config.boundary.terms}]
            if any(self.config.boundary.term(t.term).kind == "money" for t in other):
                return package, offer  # an amount of another term: not an offer it can read as its own
            package[self.money_term] = offer
            return package, offer
        low = float(amount.value)
        high = float(amount.high) if amount.high is not None else low
        package[self.money_term] = high
        return package, min(low, high)

    def _least_amount(self, package: Mapping[str, TermValue], low: float, target: float) -> float:
        """The amount of the offer's range it names: the least at or above low that reaches target."""
        hidden = self.hidden
        # Its utility of the other terms: the amount's part is 0 at its reservation.
        others = hidden.value(self.scales, {**package, self.money_term: hidden.reservation})
        weight = hidden.weights[self.money_term]
        needed = hidden.reservation + (target - others) / weight * (hidden.aspiration - hidden.reservation)
        step = _money_step(self.scales[self.money_term])
        offered = float(package[self.money_term])
        if hidden.aspiration >= hidden.reservation:
            return min(offered, max(low, float(np.ceil(needed / step - 1e-9) * step)))
        return max(offered, min(low, float(np.floor(needed / step + 1e-9) * step)))

    def _counter(self, offer: Mapping[str, TermValue], target: float) -> str:
        """Its package near target closest to the delegate's offer, as a message."""
        ranked = self._ranked
        candidates = band_near(ranked, target, DEFAULT_BAND)
        scales, hidden = self.scales, self.hidden

        def distance(rank: int) -> float:
            package = ranked.package(rank)
            return sum(
                abs(hidden.part(scales, n, _plain(v)) - hidden.part(scales, n, offer.get(n)))
                for n, v in package.items()
            )

        chosen = ranked.package(min(candidates, key=lambda r: (distance(r), r)))
        self.counters += 1
        self.last_asks = {name: _plain(value) for name, value in chosen.items()}
        parts = [f"I'd need {self._amount(chosen[self.money_term])}."]
        parts += [
            f"I'd also want {term_phrase(self.config, n, _plain(v))}."
            for n, v in chosen.items()
            if n != self.money_term
        ]
        return " ".join(parts)

    def _amount(self, value: TermValue) -> str:
        return format_amount(float(value), self.config.boundary.term(self.money_term).unit)

    def to_json(self) -> dict[str, Any]:
        """Its state (the experiment does not resume sessions; this is what the store records)."""
        return {**super().to_json(), "bargaining": True, "counters": self.counters}


def _plain(value: Any) -> TermValue:
    return value if isinstance(value, str) else float(value)
