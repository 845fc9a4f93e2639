"""The principal's outcome: how much of the zone of possible agreement each delegate strategy wins.

Every session runs the real delegate, once with each negotiation strategy ("legacy": the opening share
of the band; "principal": `parley.governance.strategy`), against the same `BargainingCounterparty`
(same seed: same ground truth, same hidden reservation). The principal's share of a deal is

    (U_P(deal) - U_P(worst package in the zone)) / (U_P(best package in the zone) - U_P(worst)),

where U_P is the principal's utility over the terms the counterparty contests (its configured weights
and per-term worth, `TermScale.worth`), and the zone holds the packages the principal authorises that
the counterparty accepts (its utility at least its walk-away). On the amount alone this is
(limit - deal) / (limit - the counterparty's reservation): 1 when the deal sits at the counterparty's
reservation (the principal's best), 0 at the principal's limit. A contested term the agreed terms leave
out counts at the counterparty's last ask (nobody objected to it).
"""

from __future__ import annotations

import itertools
import math
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from scipy import stats

from parley.experiments.gaia.bargaining import BargainingCounterparty, HiddenPreferences
from parley.experiments.gaia.figures import figure_problems
from parley.experiments.gaia.runs import (
    POLICY,
    STRATEGIES,
    describe_seeds,
    run_sessions,
    share_specs,
    with_strategy,
)
from parley.governance.config import DomainConfig, load_config
from parley.governance.counterparties import PERSONAS
from parley.governance.delegate import DelegateOptions
from parley.governance.machine import State
from parley.governance.session import run_session
from parley.governance.store import SessionStore
from parley.governance.strategy import Strategy, TermScale, TermValue


# -- the share of the zone ---------------------------------------------------------------------------------
@dataclass(frozen=True, slots=True)
class Zone:
    """The principal's utility range over the zone of possible agreement (None when the zone is empty).

    Attributes:
        worst: U_P of the zone's worst package for the principal.
        best: U_P of its best package for the principal.
    """

    worst: float
    best: float


def _principal_utility(scales: Mapping[str, TermScale], package: Mapping[str, TermValue]) -> float:
    total = sum(scales[name].weight for name in package)
    return sum(scales[name].weight * scales[name].worth(value) for name, value in package.items()) / total


def _values(scale: TermScale) -> list[TermValue]:
    """What the principal authorises on a term besides the amount (limits included)."""
    if scale.better is None:
        return [o for o in scale.order if o in scale.allowed]
    return sorted(
        {*map(float, scale.options), *scale.limits, *(v for v in (scale.low, scale.high) if v is not None)}
    )


def zone(hidden: HiddenPreferences, scales: Mapping[str, TermScale]) -> Zone | None:
    """The zone of possible agreement in the principal's utility: for every combination of the other
    contested terms, the amount the counterparty needs (its utility is linear in it) within the band."""
    money = scales[hidden.money_term]
    if money.low is None or money.high is None:
        return None
    names = list(hidden.goals)
    utilities: list[float] = []
    for combination in itertools.product(*(_values(scales[n]) for n in names)):
        others = dict(zip(names, combination, strict=True))
        rest = hidden.value(scales, others)  # the amount's part is 0 at its reservation
        needed = hidden.reservation + (hidden.walk_away - rest) / hidden.weights[hidden.money_term] * (
            hidden.aspiration - hidden.reservation
        )
        wants_more = hidden.aspiration >= hidden.reservation
        cheapest = max(needed, money.low) if wants_more else min(needed, money.high)
        dearest = money.high if wants_more else money.low
        if not money.authorised(cheapest):
            continue
        utilities += [
            _principal_utility(scales, {hidden.money_term: cheapest, **others}),
            _principal_utility(scales, {hidden.money_term: dearest, **others}),
        ]
    return Zone(min(utilities), max(utilities)) if utilities else None


def principal_share(
    counterparty: BargainingCounterparty, terms: Mapping[str, Any]
) -> tuple[float | None, bool]:
    """(The principal's share of the zone for the agreed terms, whether the zone is non-empty).

    The share is None without a zone, or when the deal is on another amount term than the
    counterparty's (an annual salary agreed with a contractor paid by the hour).
    """
    hidden, scales = counterparty.hidden, counterparty.scales
    found = zone(hidden, scales)
    if found is None or hidden.money_term not in terms:
        return None, found is not None
    deal: dict[str, TermValue] = {hidden.money_term: float(terms[hidden.money_term])}
    for name in hidden.goals:
        value = terms.get(name, counterparty.last_asks.get(name))
        deal[name] = value if value is not None else _values(scales[name])[0]
    span = found.best - found.worst
    if span <= 1e-12:
        return None, True
    return (_principal_utility(scales, deal) - found.worst) / span, True


# -- running -----------------------------------------------------------------------------------------------
def run_share_session(config: DomainConfig, persona: str, seed: int, strategy: Strategy) -> dict[str, Any]:
    """One session of one strategy against a bargaining counterparty; its outcome for the principal."""
    arm = with_strategy(config, strategy)
    counterparty = BargainingCounterparty(arm, persona, seed)
    store = SessionStore()
    outcome = run_session(
        arm, counterparty, POLICY, store, config_source=config.name, seed=seed, options=DelegateOptions()
    )
    events = store.load_events(outcome.session_id)
    store.close()
    agreed = outcome.state == State.AGREE
    share, has_zone = principal_share(counterparty, outcome.terms) if agreed else (None, False)
    if not agreed:
        has_zone = zone(counterparty.hidden, counterparty.scales) is not None
    return {
        "domain": config.name,
        "persona": persona,
        "seed": seed,
        "strategy": strategy,
        "agreed": agreed,
        "final_state": outcome.state.value,
        "turns": outcome.turns,
        "zone": has_zone,
        "share": share,
        "terms": dict(outcome.terms),
        "escalations": sum(1 for e in events if e.kind == "escalation"),
        "messages": sum(1 for e in events if e.kind == "delegate_message"),
        "figure_problems": [p.rule for p in figure_problems(arm, events)],
        "contested": sorted(counterparty.hidden.goals),
    }


def run_share_experiment(
    seeds: int | Sequence[int],
    *,
    domains: Sequence[str] = ("staffing", "procurement", "leasing"),
    personas: Sequence[str] = PERSONAS,
    strategies: Sequence[Strategy] = STRATEGIES,
    progress: Callable[[int, int], None] | None = None,
) -> list[dict[str, Any]]:
    """Every (strategy, domain, persona, seed) cell once (seeds: a count, or the seeds themselves), in
    this process (`run_sessions` runs them in processes or on Dask, resumably)."""
    specs = share_specs(seeds, domains=domains, personas=personas, strategies=strategies)
    return run_sessions(specs, progress=progress)


# -- intervals ---------------------------------------------------------------------------------------------
@dataclass(frozen=True, slots=True)
class Interval:
    """A point estimate with a 95% interval."""

    value: float
    low: float
    high: float
    count: int

    def __str__(self) -> str:
        if self.count == 0 or math.isnan(self.value):
            return "—"
        return f"{self.value:.2f} [{self.low:.2f}, {self.high:.2f}]"


def median_interval(values: Sequence[float], confidence: float = 0.95) -> Interval:
    """The sample median with its distribution-free interval from order statistics (binomial):
    the widest ranks j < k with P(j <= Binomial(n, 1/2) < k) >= confidence, at most the whole sample."""
    ordered = sorted(values)
    count = len(ordered)
    if count == 0:
        return Interval(math.nan, math.nan, math.nan, 0)
    median = float(ordered[(count - 1) // 2] + ordered[count // 2]) / 2
    tail = (1 - confidence) / 2
    low = int(stats.binom.ppf(tail, count, 0.5))
    high = int(stats.binom.isf(tail, count, 0.5))
    return Interval(median, float(ordered[max(low - 1, 0)]), float(ordered[min(high, count - 1)]), count)


def rate_interval(hits: int, total: int, confidence: float = 0.95) -> Interval:
    """A proportion with its Wilson score interval."""
    if total == 0:
        return Interval(math.nan, math.nan, math.nan, 0)
    z = float(stats.norm.isf((1 - confidence) / 2))
    share = hits / total
    centre = (share + z * z / (2 * total)) / (1 + z * z / total)
    half = z * math.sqrt(share * (1 - share) / total + z * z / (4 * total * total)) / (1 + z * z / total)
    return Interval(share, max(0.0, centre - half), min(1.0, centre + half), total)


def mean_interval(values: Sequence[float], confidence: float = 0.95) -> Interval:
    """A mean with its Student-t interval."""
    count = len(values)
    if count == 0:
        return Interval(math.nan, math.nan, math.nan, 0)
    mean = sum(values) / count
    if count < 2:
        return Interval(mean, mean, mean, count)
    spread = math.sqrt(sum((v - mean) ** 2 for v in values) / (count - 1) / count)
    half = float(stats.t.isf((1 - confidence) / 2, count - 1)) * spread
    return Interval(mean, mean - half, mean + half, count)


# -- the report's rows -------------------------------------------------------------------------------------
def _cell(rows: Sequence[dict[str, Any]]) -> tuple[str, str, str, str, str]:
    shares = [float(r["share"]) for r in rows if r["share"] is not None]
    zoned = [r for r in rows if r["zone"]]
    return (
        str(rate_interval(sum(bool(r["agreed"]) for r in rows), len(rows))),
        str(rate_interval(sum(bool(r["agreed"]) for r in zoned), len(zoned))),
        f"{median_interval(shares)} ({len(shares)})",
        f"{mean_interval(shares).value:.2f}" if shares else "—",
        str(mean_interval([float(r["turns"]) for r in rows])),
    )


def share_rows(records: Sequence[dict[str, Any]]) -> list[str]:
    """Per domain × persona and strategy: deal rates, the principal's share and turns (markdown rows)."""
    lines = [
        "| domain | persona | strategy | deal rate | deal rate, zone non-empty | principal's share: median "
        "[95%] (deals) | mean share | turns |",
        "|---|---|---|---|---|---|---|---|",
    ]
    domains = list(dict.fromkeys(r["domain"] for r in records))
    personas = list(dict.fromkeys(r["persona"] for r in records))
    strategies = list(dict.fromkeys(r["strategy"] for r in records))
    groups = [(d, p) for d in domains for p in personas] + [("all", p) for p in personas] + [("all", "all")]
    for domain, persona in groups:
        for strategy in strategies:
            rows = [
                r
                for r in records
                if r["strategy"] == strategy
                and domain in ("all", r["domain"])
                and persona in ("all", r["persona"])
            ]
            if rows:
                lines.append(f"| {domain} | {persona} | {strategy} | " + " | ".join(_cell(rows)) + " |")
    return lines


def share_headline(records: Sequence[dict[str, Any]]) -> list[str]:
    """The targets: the principal's median share against cooperative counterparties, and deal rates."""
    lines: list[str] = []
    for strategy in dict.fromkeys(r["strategy"] for r in records):
        mine = [r for r in records if r["strategy"] == strategy]
        cooperative = [
            float(r["share"]) for r in mine if r["persona"] == "cooperative" and r["share"] is not None
        ]
        deals = rate_interval(sum(bool(r["agreed"]) for r in mine), len(mine))
        rules = Counter(rule for r in mine for rule in r["figure_problems"])
        broken = ", ".join(f"{rule.replace('_', ' ')}: {n}" for rule, n in sorted(rules.items())) or "none"
        lines.append(
            f"- {strategy}: principal's median share against cooperative counterparties "
            f"{median_interval(cooperative)} over {len(cooperative)} deals; deal rate {deals} over "
            f"{len(mine)} sessions; figures the audit (`figures.py`) rejects: {broken} in "
            f"{sum(1 for r in mine if r['figure_problems'])} of {len(mine)} sessions "
            f"({sum(int(r['messages']) for r in mine)} messages)."
        )
    return lines


def persona_deal_section(records: Sequence[dict[str, Any]], seeds: Sequence[int]) -> list[str]:
    """The report's "Deal rate on the personas" section: the base condition's sessions of both
    strategies against the personas of Table 1 (markdown lines; none without both strategies)."""
    strategies = list(dict.fromkeys(r["strategy"] for r in records))
    if len(strategies) < 2:
        return []
    personas = list(dict.fromkeys(r["persona"] for r in records))
    lines = [
        "## Deal rate on the personas, both strategies",
        "",
        f"The base condition (GAIA, τ_gate 0.7) against the personas of Table 1, {describe_seeds(seeds)}, "
        "once with each negotiation strategy (same seed: same counterparty, same facts). Deal rates with "
        "Wilson 95% intervals; 'only this strategy' counts the seeds where one strategy reached an "
        "agreement and the other did not.",
        "",
        "| persona | "
        + " | ".join(f"{s}: deal rate" for s in strategies)
        + " | only "
        + " | only ".join(strategies)
        + " |",
        "|---|" + "---|" * (2 * len(strategies)),
    ]
    outcome = {(r["strategy"], r["domain"], r["persona"], r["seed"]): bool(r["agreed"]) for r in records}
    for persona in [*personas, "all"]:
        rows = {
            s: [r for r in records if r["strategy"] == s and persona in ("all", r["persona"])]
            for s in strategies
        }
        rates = [
            str(rate_interval(sum(bool(r["agreed"]) for r in rows[s]), len(rows[s]))) for s in strategies
        ]
        only = [
            sum(
                1
                for r in rows[s]
                if r["agreed"]
                and not any(
                    outcome.get((o, r["domain"], r["persona"], r["seed"]), False)
                    for o in strategies
                    if o != s
                )
            )
            for s in strategies
        ]
        lines.append(f"| {persona} | " + " | ".join(rates) + " | " + " | ".join(map(str, only)) + " |")
    return [*lines, ""]


def share_section(records: Sequence[dict[str, Any]], seeds: Sequence[int]) -> list[str]:
    """The report's "Principal's share" section (markdown lines)."""
    if not records:
        return []
    strategies = list(dict.fromkeys(r["strategy"] for r in records))
    schedule = load_config("staffing").negotiation
    return [
        "## Principal's share",
        "",
        f"{len(records)} sessions: {len(strategies)} negotiation strategies × 3 domains × "
        f"{len(PERSONAS)} personas × {describe_seeds(seeds)}, each strategy against the same counterparties "
        "(same seed: same facts, same hidden reservation and preferences). `legacy` is the delegate "
        "before issue 17 (it opens with a share of the authorised band and accepts any ask within it); "
        "`principal` is `parley.governance.strategy` (anchored on the principal's side of every ask, "
        f"Boulware-like concession e = {schedule.concession_exponent:g} over "
        f"{schedule.concession_rounds} offers, trades via ASTRA's opponent model and "
        "stage-2 sweep). The principal is the scripted policy of the sections above (option A on every "
        "escalation); the drafter does not slip here, so the strategies alone differ.",
        "",
        "The counterparties are `BargainingCounterparty` (parley.experiments.gaia.bargaining): they "
        "answer screening like the personas above but open 10–30% beyond a hidden reservation and "
        "concede on their own schedule (linear for cooperative and contradictory, e = 0.6 slow, "
        "e = 0.3 adversarial), over the amount and up to two other terms they contest, weighed "
        "against it; the principal's take-it-or-leave-it counter is accepted down to a hidden "
        "walk-away up to 10% below the reservation. The delegate only ever sees their messages.",
        "",
        "The principal's share of a deal is (U_P(deal) − U_P(zone's worst)) / (U_P(zone's best) − "
        "U_P(zone's worst)) over the terms the counterparty contests, U_P being the principal's "
        "configured utility and the zone the authorised packages the counterparty accepts; on the "
        "amount alone, (limit − deal) / (limit − the counterparty's walk-away): 0 is a deal at the "
        "principal's limit, 1 a deal at the counterparty's reservation (the principal's best). "
        "Deals on another amount term than the counterparty's (an annual salary agreed with an hourly "
        "contractor) and sessions whose zone is empty have no share. Medians with distribution-free "
        "95% intervals (order statistics), rates with Wilson intervals, turns (counterparty turns) "
        "with Student-t intervals.",
        "",
        *share_headline(records),
        "",
        *share_rows(records),
        "",
        "Reading these numbers:",
        "",
        "- The counterparties are our own simulation, written for this comparison: how far they open "
        "above their reservation, how fast they concede and how they weigh the other terms are "
        "modelling choices that decide how much patience pays. Against the personas of the sections "
        "above, which name their reservation at once and never move, both strategies get the same "
        "price and the principal strategy only costs turns; their deal rates are in the tables above.",
        "- The legacy delegate accepts the first ask within the band, so its share is what the "
        "counterparty's opening leaves; it never counters the other terms, so their asks count in "
        "full. The principal strategy pays for its share in turns (the 'turns' column).",
        "- Slow counterparties go quiet after a few turns: a strategy that needs more turns loses the "
        "few deals the legacy delegate closed at once.",
        "- A contractor who names an hourly rate ('$90/hour') is negotiated with by the hour in both "
        "arms: the term reader takes a rate written per hour as saying the contract is by the hour.",
        "- The delegate reads terms with the term reader (`parley.governance.terms`); a misread "
        "figure is not an ask: one below the band is put back to the counterparty, then the principal.",
        "",
    ]
