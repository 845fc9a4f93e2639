"""The LLM-Deliberation mediation comparison: the six-party base game played by registered baseline
negotiators under its k-of-n rule, with and without the Pareto mediator, and once more under each of
the import's rule choices undone, to show how much the agreement rate hangs on them.

`run_deliberation` plays the rows; `deliberation_section` turns them into the markdown that
`promediate.write_report` adds to the ProMediate report.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any

import numpy as np

from parley.domain.utility import AdditiveBonusUtility, LinearAdditiveUtility, UtilityFunction
from parley.experiments.gaia.principal import Interval, rate_interval
from parley.experiments.runner import run_negotiation
from parley.mediation.pareto import ParetoMediator
from parley.metrics.stats import mean_ci
from parley.protocol.actions import Propose
from parley.protocol.payloads import MediatorProposal
from parley.protocol.rules import Rules
from parley.scenarios.importers.deliberation import load_deliberation_game
from parley.scenarios.model import Scenario

DELIBERATION_MIXES: Mapping[str, tuple[str, ...]] = {
    "conceder/boulware/tit-for-tat": (
        "conceder",
        "boulware",
        "tit-for-tat",
        "conceder",
        "boulware",
        "tit-for-tat",
    ),
    "hardliner ×6": ("hardliner",) * 6,
    "hardliner/boulware/conceder/tit-for-tat": (
        "hardliner",
        "boulware",
        "hardliner",
        "conceder",
        "hardliner",
        "tit-for-tat",
    ),
    "base ×6": ("base",) * 6,
    "fair ×6": ("fair",) * 6,
}
"""Agent mixes for the six parties (in the game's party order)."""


@dataclass(frozen=True, slots=True)
class RuleVariant:
    """The game played with some of the importer's rule choices undone.

    Attributes:
        label: Row label in the report.
        strict: Parties other than p1 agree only above their minimum (the evaluator's `>`); else at
            or above it.
        bonus: p1 earns its +10 on deals every other party agrees with.
        p1_first: p1 opens the rotation; else the parties propose in config order.
        p1_last: The rounds run on to p1's final proposal; else they stop at the turn budget.
    """

    label: str
    strict: bool = True
    bonus: bool = True
    p1_first: bool = True
    p1_last: bool = True


AS_IMPORTED = "as imported"
ALL_UNDONE = "all four undone (the import before issue 18)"
RULE_VARIANTS: tuple[RuleVariant, ...] = (
    RuleVariant(AS_IMPORTED),
    RuleVariant("without p1's +10 bonus", bonus=False),
    RuleVariant("every party agrees at ≥ its minimum", strict=False),
    RuleVariant("config order (p1 does not open)", p1_first=False),
    RuleVariant("turn budget only (p1 does not close)", p1_last=False),
    RuleVariant(ALL_UNDONE, False, False, False, False),
)
"""The rule variants, the import first, then each choice undone alone, then all of them."""

STAGNATION = {"stagnation_rounds": 2, "stagnation_epsilon": 0.3}
"""The stagnation detector of every game here: 2 rounds in which no party moves more than 30% of an
issue's range."""


def run_deliberation(
    seeds: int,
    mixes: Mapping[str, Sequence[str]] = DELIBERATION_MIXES,
    variants: Sequence[RuleVariant] = RULE_VARIANTS,
) -> list[dict[str, Any]]:
    """Play the base game per mix and seed: as imported without (stagnation logged only) and with the
    Pareto mediator, and under every other variant without it."""
    scenario = load_deliberation_game()
    rows: list[dict[str, Any]] = []
    for mix, agents in mixes.items():
        for variant in variants:
            played = played_as(scenario, variant)
            for mediated in (False, True) if variant.label == AS_IMPORTED else (False,):
                rules = replace(
                    played.rules, on_stagnation="mediate" if mediated else "continue", **STAGNATION
                )
                for seed in range(seeds):
                    result = run_negotiation(
                        played,
                        list(agents),
                        seed=seed,
                        rules=rules,
                        mediator=ParetoMediator() if mediated else None,
                    )
                    row = _deliberation_row(played, mix, mediated, seed, result)
                    rows.append(row | {"variant": variant.label})
    return rows


def played_as(scenario: Scenario, variant: RuleVariant) -> Scenario:
    """An imported LLM-Deliberation game with the choices variant undoes undone (its metadata tells
    the thresholds, the bonus and the turn budget)."""
    if variant == RuleVariant(variant.label):
        return scenario
    thresholds: Mapping[str, float] = scenario.metadata["thresholds"]
    additive = {p.name: _additive(p.utility) for p in scenario.parties}
    if not variant.strict:
        additive = {name: u.with_reservation(float(thresholds[name])) for name, u in additive.items()}
    utilities: dict[str, UtilityFunction] = dict(additive)
    for party in scenario.parties:
        if variant.bonus and isinstance(party.utility, AdditiveBonusUtility):
            utilities[party.name] = _bonus_on_agreement(party.name, party.utility.bonus, additive)
    turns = int(scenario.metadata["turn_budget"]["turns"])
    rules: Rules = replace(
        scenario.rules,
        max_rounds=scenario.rules.max_rounds if variant.p1_last else turns,
        proposer_order=scenario.rules.proposer_order if variant.p1_first else None,
    )
    parties = tuple(replace(p, utility=utilities[p.name]) for p in scenario.parties)
    return replace(scenario, parties=parties, rules=rules)


def _additive(utility: UtilityFunction) -> LinearAdditiveUtility:
    part = utility.additive if isinstance(utility, AdditiveBonusUtility) else utility
    if not isinstance(part, LinearAdditiveUtility):
        raise TypeError(f"expected an imported game's score lines, got a {type(utility).__name__}")
    return part


def _bonus_on_agreement(
    holder: str, bonus: float, additive: Mapping[str, LinearAdditiveUtility]
) -> AdditiveBonusUtility:
    """The holder's score lines plus bonus where every other party scores at least its BATNA."""
    base = additive[holder]
    region = np.ones(base.space.size, dtype=bool)
    for name, utility in additive.items():
        if name != holder:
            region &= utility.evaluate_space() >= utility.reservation_value - 1e-9
    return AdditiveBonusUtility(base.space, base, bonus, region, base.reservation_value)


def _deliberation_row(scenario: Scenario, mix: str, mediated: bool, seed: int, result: Any) -> dict[str, Any]:
    agreement = result.agreement
    welfare = (
        sum(agreement.utilities.values())
        if agreement
        else sum(p.utility.reservation_value for p in scenario.parties)
    )
    return {
        "mix": mix,
        "mediated": mediated,
        "seed": seed,
        "agreement": agreement is not None,
        "welfare": float(welfare),
        "by_mediator": bool(agreement and agreement.proposer == "mediator"),
        "proposals": len(result.trajectory.of_kind("mediator_proposal")),
        **_proposal_quality(scenario, result.trajectory),
        "stagnations": len(result.trajectory.of_kind("stagnation")),
        "ending": "agreement" if agreement else result.no_deal.reason,
    }


def _imported(rows: Sequence[dict[str, Any]]) -> list[dict[str, Any]]:
    """The rows of the game as imported (rows without a variant are, as before variants existed)."""
    return [r for r in rows if r.get("variant", AS_IMPORTED) == AS_IMPORTED]


def _rate(rows: Sequence[dict[str, Any]]) -> Interval:
    return rate_interval(sum(bool(r["agreement"]) for r in rows), len(rows))


def deliberation_findings(rows: Sequence[dict[str, Any]]) -> list[str]:
    """Plain statements: where the mediator was consulted, what its packages were worth, what changed."""
    rows = _imported(rows)
    findings: list[str] = []
    for mix in dict.fromkeys(r["mix"] for r in rows):
        plain = [r for r in rows if r["mix"] == mix and not r["mediated"]]
        mediated = [r for r in rows if r["mix"] == mix and r["mediated"]]
        proposals = sum(r["proposals"] for r in mediated)
        change = _rate(mediated).value - _rate(plain).value
        if proposals == 0:
            findings.append(
                f"{mix}: the stagnation detector never consulted the mediator, so both arms are identical."
            )
            continue
        quality = mean_ci(r["above_batna"] for r in mediated if math.isfinite(r["above_batna"]))
        findings.append(
            f"{mix}: {proposals} mediator packages, on average {quality.mean:.2f} of 6 parties at or above "
            f"BATNA (judged with the private utilities it never saw); agreement rate changed by "
            f"{change * 100:+.0f} points; "
            f"{sum(r['by_mediator'] for r in mediated)} deals on a mediator package."
        )
    return findings


def _proposal_quality(scenario: Scenario, trajectory: Any) -> dict[str, float]:
    """Judged with the private utilities the mediator never saw: per proposal, how many parties
    it truly leaves better off than the package it replaced, and how many it leaves at or above BATNA."""
    better: list[float] = []
    above: list[float] = []
    table: Mapping[str, Any] | None = None
    for event in trajectory:
        payload = event.payload
        if isinstance(payload, Propose):
            table = payload.package
        elif isinstance(payload, MediatorProposal):
            package = payload.package
            utilities = [p.utility for p in scenario.parties]
            if table is not None:
                better.append(sum(u.evaluate(package) > u.evaluate(table) for u in utilities))
            above.append(sum(u.evaluate(package) >= u.reservation_value for u in utilities))
            table = package
    return {
        "better_off": sum(better) / len(better) if better else math.nan,
        "above_batna": sum(above) / len(above) if above else math.nan,
    }


def deliberation_table(rows: Sequence[dict[str, Any]]) -> list[str]:
    """Markdown rows: per mix, agreement rate and welfare with and without the mediator (as imported)."""
    rows = _imported(rows)
    lines = [
        "| agents | mediator | agreement rate [95% Wilson] "
        "| welfare (sum of scores; no deal = sum of BATNAs) "
        "| stagnation events | mediator proposals | deals on a mediator package "
        "| parties truly better off per proposal (of 6) | parties at or above BATNA per proposal |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    for mix in dict.fromkeys(r["mix"] for r in rows):
        for mediated in (False, True):
            group = [r for r in rows if r["mix"] == mix and r["mediated"] == mediated]
            welfare = mean_ci(r["welfare"] for r in group)
            lines.append(
                f"| {mix} | {'Pareto' if mediated else 'none'} | {_rate(group)} | {welfare} | "
                f"{sum(r['stagnations'] for r in group)} | {sum(r['proposals'] for r in group)} | "
                f"{sum(r['by_mediator'] for r in group)} | "
                f"{mean_ci(r['better_off'] for r in group)} | {mean_ci(r['above_batna'] for r in group)} |"
            )
    return lines


def variant_table(rows: Sequence[dict[str, Any]]) -> list[str]:
    """Markdown rows: agreement rate without a mediator, per rule variant (rows) and mix (columns)."""
    plain = [r for r in rows if not r["mediated"]]
    mixes = list(dict.fromkeys(r["mix"] for r in plain))
    variants = list(dict.fromkeys(r.get("variant", AS_IMPORTED) for r in plain))
    lines = ["| rules played | " + " | ".join(mixes) + " |", "|---|" + "---|" * len(mixes)]
    for variant in variants:
        cells = [
            str(_rate([r for r in plain if r["mix"] == mix and r.get("variant", AS_IMPORTED) == variant]))
            for mix in mixes
        ]
        lines.append(f"| {variant} | " + " | ".join(cells) + " |")
    return lines


def variant_findings(rows: Sequence[dict[str, Any]]) -> list[str]:
    """Per mix: the rate as imported and with every choice undone, and the one change that moves it most."""
    plain = [r for r in rows if not r["mediated"]]
    findings: list[str] = []
    for mix in dict.fromkeys(r["mix"] for r in plain):
        rates = {
            variant: _rate([r for r in plain if r["mix"] == mix and r.get("variant", AS_IMPORTED) == variant])
            for variant in dict.fromkeys(r.get("variant", AS_IMPORTED) for r in plain)
        }
        imported = rates.pop(AS_IMPORTED)
        undone = rates.pop(ALL_UNDONE, None)
        singles = dict(rates)
        if not singles:
            continue
        largest = max(singles, key=lambda v: abs(singles[v].value - imported.value))
        shift = singles[largest].value - imported.value
        text = f"{mix}: {imported.value:.2f} as imported" + (
            f", {undone.value:.2f} with all four choices undone" if undone else ""
        )
        if shift == 0:
            findings.append(text + "; no single change moves it.")
            continue
        overlap = "intervals overlap" if _overlap(imported, singles[largest]) else "intervals separate"
        findings.append(
            f"{text}; the largest single change is {largest}: {singles[largest].value:.2f} "
            f"({shift * 100:+.0f} points; {overlap})."
        )
    return findings


def _overlap(first: Interval, second: Interval) -> bool:
    return first.low <= second.high and second.low <= first.high


def deliberation_section(rows: Sequence[dict[str, Any]]) -> list[str]:
    """The report's LLM-Deliberation section: setup (read from the game as imported), the mediator
    comparison, and how the agreement rate depends on the import's rule choices."""
    scenario = load_deliberation_game()
    seeds = len({r["seed"] for r in rows})
    return [
        "## LLM-Deliberation base game with the Pareto mediator",
        "",
        f"Six registered baseline negotiators play the base game over {seeds} seeds per row. "
        + _setup_text(scenario)
        + ' Without a mediator stagnation is only logged (`on_stagnation="continue"`); with it the engine '
        'asks the `ParetoMediator` (`on_stagnation="mediate"`). Stagnation: 2 rounds in which no party '
        "moves more than 30% of an issue's range. Agreement rates carry 95% Wilson intervals, means "
        "95% Student-t half-widths over seeds.",
        "",
        *deliberation_table(rows),
        "",
        *[f"- {finding}" for finding in deliberation_findings(rows)],
        "",
        "### How much the agreement rate hangs on the import's rule choices",
        "",
        "The importer reads four choices from LLM-Deliberation's own code (docs/interop.md): parties other "
        "than p1 agree only *above* their minimum (its evaluator's `>`), so their BATNA is the minimum + 1; "
        "p1 earns +10 on deals every other party agrees with; p1 opens the rotation (its runner has p1 "
        "table the first deal); and the rounds run on to p1's final proposal (its runner ends with p1's "
        "final deal suggestion, the deal its evaluator scores). Below, the mixes play without a mediator "
        "with each choice undone alone, and with all four undone, which is how the game was imported "
        "before issue 18.",
        "",
        *variant_table(rows),
        "",
        *[f"- {finding}" for finding in variant_findings(rows)],
        "- These baselines are deterministic given the seed and concede by the clock, so whether a game "
        "ends in a deal turns on who proposes in the decisive rounds and on one point of BATNA: a "
        "one-round or one-point change can move a mix from no deal in every seed to a deal in every "
        "seed. The intervals above cover the seeds, not that structural sensitivity; read the rates as "
        "properties of these rules, not of the agents. LLM-Deliberation also differs where parley cannot "
        "follow it: it shuffles the speaking order each cycle, and its evaluator scores only p1's deals "
        "against the thresholds rather than collecting votes.",
        "",
    ]


def _setup_text(scenario: Scenario) -> str:
    """The game's rules as imported, in one or two sentences."""
    acceptance = scenario.rules.acceptance
    required = acceptance.required or len(scenario.parties)
    vetoes = " and ".join(acceptance.vetoes) or "nobody"
    bonus: Mapping[str, Any] | None = scenario.metadata.get("unanimity_bonus")
    budget: Mapping[str, Any] = scenario.metadata["turn_budget"]
    order = scenario.rules.order(scenario.party_names)
    text = (
        f"{required} of {len(scenario.parties)} must accept, {vetoes} holding vetoes; {order[0]} proposes "
        f"first and the others follow in turn, for {scenario.rules.max_rounds} rounds (the game's "
        f"{budget['turns']} turns"
    )
    if scenario.rules.max_rounds > int(budget["turns"]):
        text += f", then {order[0]}'s final proposal"
    text += ")."
    if bonus and bonus.get("modelled"):
        text += (
            f" {bonus['party']} earns +{float(bonus['points']):g} on every deal all the other parties agree "
            "with; the others agree only above their minimum."
        )
    return text
