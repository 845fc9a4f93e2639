"""The delegate's negotiation strategy for its principal: offers, acceptance and concession over the
principal's preferences across all terms (salary, bonus, remote days, start date; price, volume,
payment terms, lead time; rent, term, deposit, improvements).

The domain config becomes a parley outcome space (`principal_space`: one issue per term in play, the
values the delegate may offer) with the principal's linear-additive utility over it. Each offer

- keeps every term on the principal's side of what the counterparty last asked for it (a candidate
  who asks $80K is never offered more than $80K);
- aims at the utility of the baselines' time-based concession curve (`TimeBasedNegotiator`'s
  floor + (best - floor)·(1 - t^(1/e)), e < 1: Boulware-like, conceding late);
- picks, among the packages near that target, the one ASTRA's opponent model (the inferred partner
  preferences, learnt from what the counterparty asked) rates best for the counterparty, with ASTRA's
  stage-2 sweep: terms the principal cares less about are given where the counterparty cares more.

The principal's private limits are never offered: a term's offers stop one step inside each limit,
so only a counterparty's own figure (accepted) or a principal's decision puts a limit in a message.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any, Literal

import numpy as np

from parley.agents.astra.opponent import Evidence, estimate_partner, linear_tables
from parley.agents.astra.optimizer import Floors, solve_by_sweep
from parley.agents.astra.signals import POINTS_SCALE, PointScale
from parley.agents.baselines.concession import DEFAULT_BAND
from parley.domain.issues import Issue
from parley.domain.space import IndexArray, OutcomeSpace
from parley.domain.utility import FloatArray, LinearAdditiveUtility
from parley.governance.config import DomainConfig, TermPreference

__all__ = [
    "FIRM_AFTER",
    "RESTATED",
    "Move",
    "Position",
    "PrincipalStrategy",
    "Strategy",
    "TermScale",
    "concession_share",
    "principal_space",
    "term_scales",
    "with_strategy",
]

TermValue = str | float
"""A term's value: an amount or count in the term's unit, or an option name."""
Band = tuple[float | None, float | None]
LAMBDA = 0.5
"""ASTRA's λ for the sweep: S_a + (1 - λ)·S_p is maximised within the target band."""
_GRID = 5
"""Offers move in a fifth of the band's round step ($1K on a $20K salary band, $0.10 on a $5 price)."""
FIRM_AFTER = 3
"""Statements of the same package after which the counterparty counts as firm: the schedule jumps to
its end (accept within the limits, else escalate) rather than waiting it out."""
QUIET_AFTER = 2
"""Rounds without a reply (over the session) after which a counterparty is at risk of going silent:
one restatement of the same package, instead of two, then counts as standing firm."""
RESTATED = "re-stating the offer on the table"
"""The rationale of a move that puts the last offer forward again (not a new round of the schedule)."""


@dataclass(frozen=True, slots=True)
class TermScale:
    """One term of the principal's outcome space: what may be offered and what each value is worth.

    Attributes:
        name: Term name.
        label: How people call it.
        unit: Its unit (money: "year", "hour", "unit", "month"; counts: "weeks", "months", ...).
        money: Whether the value is an amount of money.
        weight: The principal's weight (relative).
        better: "lower" or "higher" for a numeric term, None for an enumerated one.
        low: Low end of the values the principal authorises (numeric terms).
        high: High end of the values the principal authorises (numeric terms).
        options: The values the delegate may offer, the principal's best first (never a private limit).
        order: Enumerated terms: every option, the principal's best first.
        allowed: Enumerated terms: the options the principal authorises (all of order if unrestricted).
        limits: The private limits of the term (never offered).
    """

    name: str
    label: str
    unit: str | None
    money: bool
    weight: float
    better: Literal["lower", "higher"] | None
    low: float | None
    high: float | None
    options: tuple[TermValue, ...]
    order: tuple[str, ...] = ()
    allowed: tuple[str, ...] = ()
    limits: tuple[float, ...] = ()

    def worth(self, value: TermValue) -> float:
        """The principal's worth of value in [0, 1] (1: its best end; values outside the band clipped)."""
        if self.better is None:
            if value not in self.order or len(self.order) < 2:
                return 0.0
            return 1.0 - self.order.index(str(value)) / (len(self.order) - 1)
        low, high, number = float(self.low or 0.0), float(self.high or 0.0), float(value)
        if high <= low:
            return 1.0
        share = (high - number) / (high - low) if self.better == "lower" else (number - low) / (high - low)
        return min(1.0, max(0.0, share))

    def authorised(self, value: TermValue) -> bool:
        """Whether the principal authorises value (the band's ends included)."""
        if self.better is None:
            return str(value) in self.allowed
        if isinstance(value, str):
            return False
        return (self.low is None or value >= self.low - 1e-9) and (
            self.high is None or value <= self.high + 1e-9
        )

    def at_least_as_good(self, value: TermValue, than: TermValue) -> bool:
        """Whether value is on the principal's side of than (or equal to it)."""
        if self.better is None:
            return str(value) in self.order and (
                str(than) not in self.order or self.order.index(str(value)) <= self.order.index(str(than))
            )
        if isinstance(value, str) or isinstance(than, str):
            return False
        return value <= than + 1e-9 if self.better == "lower" else value >= than - 1e-9

    def favourable(self, ask: TermValue) -> tuple[TermValue, ...]:
        """The options on the principal's side of the counterparty's ask; the ask itself when no
        option is (it is better for the principal than anything the delegate would offer)."""
        kept = tuple(option for option in self.options if self.at_least_as_good(option, ask))
        return kept or (ask,)


def _band(config: DomainConfig, name: str, preference: TermPreference, bands: Mapping[str, Band]) -> Band:
    """The authorised (low, high) of a numeric term: its boundary band (as widened), else its range."""
    low = high = None
    if name in bands:
        low, high = bands[name]
    elif name in {t.name for t in config.boundary.terms}:
        term = config.boundary.term(name)
        low, high = term.minimum, term.maximum
    if preference.range is not None:
        low = preference.range[0] if low is None else low
        high = preference.range[1] if high is None else high
    return low, high


def _grid(low: float, high: float, step: float | None) -> list[float]:
    """Values from low to high (both included) in steps; the default step is a fifth of a round step."""
    span = high - low
    if span <= 0:
        return [low]
    step = step or float(10 ** np.floor(np.log10(span))) / 2 / _GRID
    count = int(np.floor(span / step + 1e-9))
    return [round(low + i * step, 6) for i in range(count + 1)] + (
        [high] if low + count * step < high - 1e-9 else []
    )


def _limits(config: DomainConfig, name: str, bands: Mapping[str, Band]) -> tuple[float, ...]:
    """The private limits of a term: its configured band ends and any the principal widened."""
    found: list[float] = []
    for term in config.boundary.terms:
        if term.name == name:
            found += [v for v in (term.minimum, term.maximum) if v is not None]
    found += [v for v in bands.get(name, (None, None)) if v is not None]
    return tuple(dict.fromkeys(found))


def _label_and_unit(config: DomainConfig, name: str) -> tuple[str, str | None, bool]:
    for term in config.boundary.terms:
        if term.name == name:
            return term.label, term.unit, term.kind == "money"
    for spec in config.terms:
        if spec.name == name and spec.kind is not None:
            return spec.label or name.replace("_", " "), spec.unit, spec.kind == "money"
    field_spec = config.field(name)
    return field_spec.label, field_spec.unit, field_spec.kind == "money"


def _scale(config: DomainConfig, preference: TermPreference, bands: Mapping[str, Band]) -> TermScale:
    name = preference.term
    label, unit, money = _label_and_unit(config, name)
    if preference.better is None:
        allowed = next((t.allowed for t in config.boundary.terms if t.name == name), ())
        allowed = allowed or preference.options
        options = tuple(o for o in preference.options if o in allowed)
        return TermScale(
            name, label, unit, money, preference.weight, None, None, None, options,
            preference.options, tuple(allowed), (),
        )  # fmt: skip
    low, high = _band(config, name, preference, bands)
    if low is None or high is None:
        raise ValueError(f"negotiation.preferences.{name}: a numeric term needs a band or a range")
    limits = _limits(config, name, bands)
    grid = [v for v in _grid(low, high, preference.step) if not any(abs(v - x) < 1e-9 for x in limits)]
    if preference.better == "higher":
        grid.reverse()
    return TermScale(
        name, label, unit, money, preference.weight, preference.better, low, high, tuple(grid),
        limits=limits,
    )  # fmt: skip


Strategy = Literal["principal", "legacy"]
"""The delegate's negotiation strategies (`negotiation.strategy`)."""


def with_strategy(config: DomainConfig, strategy: Strategy) -> DomainConfig:
    """A copy of config whose delegate negotiates with strategy."""
    negotiation = config.negotiation.model_copy(update={"strategy": strategy})
    return config.model_copy(update={"negotiation": negotiation})


def preferences(config: DomainConfig) -> tuple[TermPreference, ...]:
    """The principal's preferences: the configured ones, or (default) the negotiated term alone."""
    configured = config.negotiation.preferences
    if configured:
        return configured
    better: Literal["lower", "higher"] = "lower" if config.negotiation.principal_pays else "higher"
    terms = dict.fromkeys((config.negotiation.term, *config.negotiation.term_when.values()))
    return tuple(TermPreference(term=name, better=better) for name in terms)


def term_scales(config: DomainConfig, money_term: str, bands: Mapping[str, Band]) -> dict[str, TermScale]:
    """Every preference term as a `TermScale`; of the negotiated term and its alternatives
    (`negotiation.term_when`), only money_term, the one negotiated now.

    Args:
        config: Domain config.
        money_term: The boundary term under negotiation.
        bands: Authorised (low, high) per boundary term, as the principal widened them.
    """
    alternatives = {config.negotiation.term, *config.negotiation.term_when.values()} - {money_term}
    listed = [p for p in preferences(config) if p.term not in alternatives]
    if money_term not in {p.term for p in listed}:
        better: Literal["lower", "higher"] = "lower" if config.negotiation.principal_pays else "higher"
        listed.insert(0, TermPreference(term=money_term, better=better))
    return {p.term: _scale(config, p, bands) for p in listed}


def principal_space(
    scales: Sequence[TermScale], fixed: Mapping[str, tuple[TermValue, ...]] | None = None
) -> tuple[OutcomeSpace, LinearAdditiveUtility]:
    """The adapter: terms as a parley outcome space and the principal's utility over it.

    Args:
        scales: The terms in play.
        fixed: Per term, the options to use instead of the term's own (e.g. one value the counterparty
            asked for that is better for the principal than anything it would offer).

    Returns:
        The space (one issue per term, options as offered) and the linear-additive utility
        (weights normalised to sum to 1, each option worth its `TermScale.worth`; reservation 0).
    """
    fixed = fixed or {}
    issues = [Issue.options(s.name, fixed.get(s.name, s.options), unit=s.unit or "") for s in scales]
    space = OutcomeSpace.of(issues)
    total = sum(s.weight for s in scales)
    weights = {s.name: s.weight / total for s in scales}
    values = {s.name: [s.worth(v) for v in issue.values] for s, issue in zip(scales, issues, strict=True)}
    return space, LinearAdditiveUtility(space, weights, values)


def concession_share(offers: int, rounds: int, exponent: float) -> float:
    """Where the target lies between the floor (0) and the principal's best (1) after offers offers:
    the baselines' time-based curve 1 - t^(1/e) at t = offers / rounds."""
    time = min(1.0, offers / max(rounds, 1))
    return 1.0 - time ** (1.0 / exponent)


@dataclass(frozen=True, slots=True)
class Position:
    """Where the negotiation stands, as the delegate knows it (rebuilt from its trajectory).

    Attributes:
        asks: The counterparty's latest stated value per term.
        moves: What each counterparty message stated (term → value), in order.
        offers: The delegate's offers (term → value), in order.
        waited: Rounds without a reply since the first offer (time passes for the schedule too).
        silences: Rounds without a reply in the whole session (derived from the trajectory, not
            stored): a counterparty that goes quiet is one the deal may be lost to.
    """

    asks: Mapping[str, TermValue] = field(default_factory=lambda: {})
    moves: tuple[Mapping[str, TermValue], ...] = ()
    offers: tuple[Mapping[str, TermValue], ...] = ()
    waited: int = 0
    silences: int = 0

    def with_move(self, stated: Mapping[str, TermValue]) -> Position:
        """The position after the counterparty stated terms."""
        return replace(self, asks={**self.asks, **stated}, moves=(*self.moves, dict(stated)))

    def with_offer(self, package: Mapping[str, TermValue]) -> Position:
        """The position after the delegate offered package."""
        return replace(self, offers=(*self.offers, dict(package)))

    def with_wait(self, rounds: int) -> Position:
        """The position after rounds without a reply (since the first offer)."""
        return replace(self, waited=self.waited + rounds)

    def with_silences(self, rounds: int) -> Position:
        """The position knowing that the counterparty missed rounds in the whole session."""
        return replace(self, silences=rounds)

    @property
    def rounds(self) -> int:
        """Rounds of the schedule so far: offers made and rounds waited for a reply."""
        return len(self.offers) + self.waited

    def to_json(self) -> dict[str, Any]:
        """A JSON-ready dict."""
        return {
            "asks": dict(self.asks),
            "moves": [dict(m) for m in self.moves],
            "offers": [dict(o) for o in self.offers],
            "waited": self.waited,
        }

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> Position:
        """Inverse of to_json."""
        return cls(
            dict(data.get("asks", {})),
            tuple(dict(m) for m in data.get("moves", [])),
            tuple(dict(o) for o in data.get("offers", [])),
            int(data.get("waited", 0)),
        )


@dataclass(frozen=True, slots=True)
class Move:
    """What the strategy does next.

    Attributes:
        kind: "offer" (package), "accept" (the counterparty's package), "escalate" (the counterparty
            still asks beyond the principal's limit on the negotiated term after the schedule ran out)
            or "confirm" (a figure below the band was read: the counterparty is asked to confirm it).
        package: The terms offered or accepted (term → value).
        target: The utility aimed at, as a share of the way from the floor (0) to the best (1).
        time: The schedule's time t in [0, 1].
        rationale: Why, in a few words.
    """

    kind: Literal["offer", "accept", "escalate", "confirm"]
    package: dict[str, TermValue]
    target: float
    time: float
    rationale: str

    def to_json(self) -> dict[str, Any]:
        """A JSON-ready dict."""
        return {
            "kind": self.kind,
            "package": dict(self.package),
            "target": round(self.target, 6),
            "time": round(self.time, 6),
            "rationale": self.rationale,
        }


class PrincipalStrategy:
    """Offers and acceptance for the principal over the terms in play.

    Args:
        config: Domain config (preferences, concession schedule).
        money_term: The boundary term negotiated now (`negotiation.term`, or its `term_when` switch).
        bands: Authorised (low, high) per boundary term, as the principal widened them.
    """

    def __init__(self, config: DomainConfig, money_term: str, bands: Mapping[str, Band]) -> None:
        self.config = config
        self.money_term = money_term
        self.scales = term_scales(config, money_term, bands)
        self.rounds = config.negotiation.concession_rounds
        self.exponent = config.negotiation.concession_exponent

    # -- what is on the table -------------------------------------------------------------------------
    def known(self, stated: Mapping[str, TermValue]) -> dict[str, TermValue]:
        """The stated values of terms the principal has preferences on (others are left alone)."""
        return {k: v for k, v in stated.items() if k in self.scales and self._readable(k, v)}

    def _readable(self, name: str, value: TermValue) -> bool:
        scale = self.scales[name]
        return isinstance(value, float | int) if scale.better is not None else str(value) in scale.order

    def in_play(self, position: Position) -> tuple[TermScale, ...]:
        """The negotiated term and every term the counterparty asks for within the principal's authority.

        A term asked beyond the authority (a bonus above the range, payment terms not allowed) is left
        to the principal, as the delegate has no room on it; the negotiated term always stays (beyond
        its limit is the boundary escalation).
        """
        names = [self.money_term] + [
            n
            for n in self.scales
            if n != self.money_term and n in position.asks and self.scales[n].authorised(position.asks[n])
        ]
        return tuple(self.scales[n] for n in names)

    def outside(self, position: Position) -> tuple[str, ...]:
        """Terms the counterparty asks for beyond the principal's authority (left to the principal)."""
        return tuple(
            n
            for n in self.scales
            if n != self.money_term and n in position.asks and not self.scales[n].authorised(position.asks[n])
        )

    def current_offer(self, position: Position) -> dict[str, TermValue] | None:
        """The delegate's last offer, if any."""
        return dict(position.offers[-1]) if position.offers else None

    # -- the decision ---------------------------------------------------------------------------------
    def time(self, position: Position) -> float:
        """The schedule's time t: rounds so far (offers and waits) over the configured rounds (at most 1),
        or 1 once the counterparty stands firm (see `firm`)."""
        return 1.0 if self.firm(position) else min(1.0, position.rounds / self.rounds)

    def firm(self, position: Position) -> bool:
        """Whether the counterparty has stopped moving: its last `FIRM_AFTER` statements of the
        negotiated term name one figure and leave everything else it asks unchanged (that package is
        likely its reservation)."""
        asks: dict[str, TermValue] = {}
        packages: list[dict[str, TermValue]] = []
        for move in position.moves:
            asks = {**asks, **move}
            if self.money_term in move:
                packages.append(asks)
        needed = FIRM_AFTER - 1 if position.silences >= QUIET_AFTER else FIRM_AFTER
        last = packages[-needed:]
        return len(last) == needed and all(p == last[0] for p in last)

    def respond(self, position: Position) -> Move:
        """Accept the counterparty's package, make the next offer, or escalate at the limit.

        The target is a share of the principal's whole scale (its floor: every term one step inside
        its limits; its best: every term at its best end); offers are drawn from the anchored space.
        """
        scales = self.in_play(position)
        full = principal_space(scales)[1]
        scale = PointScale(*full.bounds())
        time = self.time(position)
        share = concession_share(round(time * self.rounds), self.rounds, self.exponent)
        theirs = self._their_package(scales, position)
        if theirs is not None and self._acceptable(scales, theirs, full, scale, share, time):
            return Move("accept", theirs, share, time, "their package reaches the schedule's target")
        ask = position.asks.get(self.money_term)
        money = self.scales[self.money_term]
        if ask is not None and not money.authorised(ask) and self._conceded(position):
            return Move(
                "escalate", dict(theirs or {}), share, time, "all conceded; the ask is beyond the limit"
            )
        space, utility = principal_space(scales, self._fixed(scales, position))
        return Move(
            "offer", self._offer(space, utility, scale, share, position), share, time, "concession schedule"
        )

    def beyond_best(self, ask: TermValue) -> bool:
        """Whether an ask on the negotiated term is better for the principal than its band allows (a
        price below its minimum, or a misread figure): the delegate neither accepts it nor states the
        band's end, but asks the counterparty to confirm it (then the principal)."""
        return _beyond_best(self.scales[self.money_term], ask)

    def _conceded(self, position: Position) -> bool:
        """Whether the delegate has made its last offer: the schedule's final one, or the one it made
        once the counterparty stood firm."""
        before = replace(position, moves=position.moves[:-1])
        return position.rounds > self.rounds or (bool(position.offers) and self.firm(before))

    def opening(self, position: Position) -> Move:
        """The first offer (or the last one again, when an offer is already on the table)."""
        current = self.current_offer(position)
        if current is not None:
            return Move("offer", current, 1.0, self.time(position), RESTATED)
        scales = self.in_play(position)
        scale = PointScale(*principal_space(scales)[1].bounds())
        space, utility = principal_space(scales, self._fixed(scales, position))
        return Move("offer", self._offer(space, utility, scale, 1.0, position), 1.0, 0.0, "opening: anchored")

    def _fixed(self, scales: Sequence[TermScale], position: Position) -> dict[str, tuple[TermValue, ...]]:
        """Per term with an ask, the options on the principal's side of it (the anchoring rule); an ask
        better for the principal than its band allows anchors nothing (no option may pass the band)."""
        fixed: dict[str, tuple[TermValue, ...]] = {}
        for scale in scales:
            ask = position.asks.get(scale.name)
            if ask is not None and (scale.authorised(ask) or not _beyond_best(scale, ask)):
                fixed[scale.name] = scale.favourable(ask)
        return fixed

    def _their_package(self, scales: Sequence[TermScale], position: Position) -> dict[str, TermValue] | None:
        """What the counterparty asks: its stated values, and the delegate's offer on terms it left alone."""
        if self.money_term not in position.asks:
            return None
        offer = self.current_offer(position) or {}
        package: dict[str, TermValue] = {}
        for scale in scales:
            value = position.asks.get(scale.name, offer.get(scale.name))
            if value is None:
                value = scale.options[0] if scale.options else None
            if value is None:
                return None
            package[scale.name] = value
        return package

    def _acceptable(
        self,
        scales: Sequence[TermScale],
        package: Mapping[str, TermValue],
        utility: LinearAdditiveUtility,
        scale: PointScale,
        share: float,
        time: float,
    ) -> bool:
        if not all(s.authorised(package[s.name]) for s in scales):
            return False
        if time >= 1.0:
            return True  # the schedule has reached the principal's limits: anything within them
        worth = sum(utility.weights[s.name] * s.worth(package[s.name]) for s in scales)
        return worth >= scale.utility(share * POINTS_SCALE) - 1e-9

    def _offer(
        self,
        space: OutcomeSpace,
        utility: LinearAdditiveUtility,
        scale: PointScale,
        share: float,
        position: Position,
    ) -> dict[str, TermValue]:
        """The package near the target utility that ASTRA's opponent model rates best for the counterparty."""
        rows = space.enumerate_indices()
        own_points = scale.points_array(utility.evaluate_indices(rows))
        target = share * POINTS_SCALE
        band = DEFAULT_BAND * POINTS_SCALE
        partner = estimate_partner(space, linear_tables(utility), self._evidence(space, position), 0.0)
        solution = solve_by_sweep(
            own_points, partner.points(rows), [LAMBDA], [target + band], Floors(target - 1e-9, -np.inf), rows
        )[0]
        row = solution.row if solution.row is not None else _nearest_above(own_points, target, rows)
        return {issue.name: _plain(issue.values[i]) for issue, i in zip(space.issues, row, strict=True)}

    def _evidence(self, space: OutcomeSpace, position: Position) -> Evidence:
        """The counterparty's asks as ASTRA evidence: each message's package, gaps filled from our offer."""
        offers = [_row(space, move, position) for move in position.moves if move]
        partner = tuple(r for r in offers if r is not None)
        own = tuple(r for r in (_row(space, o, position) for o in position.offers) if r is not None)
        return Evidence(partner, (), own, tuple(("partner", r) for r in partner), False, False, len(partner))


def _beyond_best(scale: TermScale, value: TermValue) -> bool:
    """Whether value lies past the best end of what the principal authorises on a numeric term."""
    if scale.better is None or scale.authorised(value) or isinstance(value, str):
        return False
    edge = scale.low if scale.better == "lower" else scale.high
    return edge is not None and scale.at_least_as_good(value, edge)


def _plain(value: Any) -> TermValue:
    return value if isinstance(value, str) else float(value)


def _nearest_above(points: FloatArray, target: float, rows: IndexArray) -> tuple[int, ...]:
    """The row whose points are the least at or above target (the best row if none is)."""
    above = np.flatnonzero(points >= target - 1e-9)
    index = int(above[np.argmin(points[above])]) if above.size else int(np.argmax(points))
    return tuple(int(v) for v in rows[index])


def _row(space: OutcomeSpace, stated: Mapping[str, TermValue], position: Position) -> tuple[int, ...] | None:
    """A stated package as option indices: each value mapped to its nearest option; a term it did not
    state takes the delegate's last offer (the counterparty left it alone), else the first option."""
    offer = position.offers[-1] if position.offers else {}
    if not any(name in stated for name in space.names):
        return None
    row: list[int] = []
    for issue in space.issues:
        value = stated.get(issue.name, offer.get(issue.name))
        row.append(_nearest(issue, value))
    return tuple(row)


def _nearest(issue: Issue, value: TermValue | None) -> int:
    if value is None:
        return 0
    if isinstance(value, str):
        return issue.values.index(value) if value in issue.values else 0
    numbers = [float(v) if not isinstance(v, str) else np.inf for v in issue.values]
    return int(np.argmin([abs(n - float(value)) for n in numbers]))
