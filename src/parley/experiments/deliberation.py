"""The LLM-Deliberation mediation comparison: the six-party base game played by registered baseline
negotiators under its k-of-n rule, with and without the Pareto mediator.

`run_deliberation` plays the rows; `deliberation_table` and `deliberation_findings` turn them into
the markdown that `promediate.write_report` adds to the ProMediate report.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import replace
from typing import Any

from parley.experiments.runner import run_negotiation
from parley.mediation.pareto import ParetoMediator
from parley.metrics.stats import mean_ci
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


def run_deliberation(
    seeds: int, mixes: Mapping[str, Sequence[str]] = DELIBERATION_MIXES
) -> list[dict[str, Any]]:
    """Play the base game per mix and seed, without (stagnation logged only) and with the Pareto mediator."""
    scenario = load_deliberation_game()
    rows: list[dict[str, Any]] = []
    for mix, agents in mixes.items():
        for mediated in (False, True):
            rules = replace(
                scenario.rules,
                on_stagnation="mediate" if mediated else "continue",
                stagnation_rounds=2,
                stagnation_epsilon=0.3,
            )
            for seed in range(seeds):
                result = run_negotiation(
                    scenario,
                    list(agents),
                    seed=seed,
                    rules=rules,
                    mediator=ParetoMediator() if mediated else None,
                )
                rows.append(_deliberation_row(scenario, mix, mediated, seed, result))
    return rows


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


def deliberation_findings(rows: Sequence[dict[str, Any]]) -> list[str]:
    """Plain statements: where the mediator was consulted, what its packages were worth, what changed."""
    findings: list[str] = []
    for mix in dict.fromkeys(r["mix"] for r in rows):
        plain = [r for r in rows if r["mix"] == mix and not r["mediated"]]
        mediated = [r for r in rows if r["mix"] == mix and r["mediated"]]
        proposals = sum(r["proposals"] for r in mediated)
        change = (
            mean_ci(float(r["agreement"]) for r in mediated).mean
            - mean_ci(float(r["agreement"]) for r in plain).mean
        )
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
        if event.kind == "action" and event.data.get("kind") == "propose":
            table = event.data["package"]
        elif event.kind == "mediator_proposal":
            package = event.data["package"]
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
    """Markdown rows: per mix, agreement rate and welfare with and without the mediator."""
    lines = [
        "| agents | mediator | agreement rate | welfare (sum of scores; no deal = sum of BATNAs) "
        "| stagnation events | mediator proposals | deals on a mediator package "
        "| parties truly better off per proposal (of 6) | parties at or above BATNA per proposal |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    for mix in dict.fromkeys(r["mix"] for r in rows):
        for mediated in (False, True):
            group = [r for r in rows if r["mix"] == mix and r["mediated"] == mediated]
            rate = mean_ci(float(r["agreement"]) for r in group)
            welfare = mean_ci(r["welfare"] for r in group)
            lines.append(
                f"| {mix} | {'Pareto' if mediated else 'none'} | {rate} | {welfare} | "
                f"{sum(r['stagnations'] for r in group)} | {sum(r['proposals'] for r in group)} | "
                f"{sum(r['by_mediator'] for r in group)} | "
                f"{mean_ci(r['better_off'] for r in group)} | {mean_ci(r['above_batna'] for r in group)} |"
            )
    return lines
