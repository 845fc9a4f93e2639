"""The ASTRA report's tables: records aggregated per table-1 cell, opponent, scenario and partner
signal, rendered as markdown (with the seed's and the previous version's numbers alongside)."""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Iterable, Mapping, Sequence

import numpy as np

from parley.experiments.astra.prose import PAPER_TABLE1, PREVIOUS_TABLE1, PREVIOUS_TOURNAMENT
from parley.experiments.astra.runs import RunRecord
from parley.metrics.stats import mean_ci

STANCES = ("greedy", "neutral", "generous", "unknown")
FAIRNESS = ("unfair", "fair", "unknown")


def lambda_table(records: Iterable[RunRecord]) -> dict[tuple[str, str], tuple[float, int]]:
    """Mean λ and count per (stance, fairness) over ASTRA's table-1 proposals."""
    values: dict[tuple[str, str], list[float]] = defaultdict(list)
    for record in records:
        if record.study == "table1" and record.agent == "astra":
            for stance, fairness, lambda_ in record.lambdas:
                values[(stance, fairness)].append(lambda_)
    return {key: (float(np.mean(v)), len(v)) for key, v in values.items()}


def tactic_table(records: Iterable[RunRecord]) -> dict[tuple[str, str], dict[str, int]]:
    """How often ASTRA chose each tactic per (stance, fairness) in table 1."""
    counts: dict[tuple[str, str], dict[str, int]] = defaultdict(lambda: defaultdict(int))
    for record in records:
        if record.study == "table1" and record.agent == "astra":
            for stance, fairness, tactic in record.tactics:
                counts[(stance, fairness)][tactic] += 1
    return {key: dict(value) for key, value in counts.items()}


def cell_means(records: Sequence[RunRecord]) -> dict[tuple[str, str], dict[str, float]]:
    """Per table-1 cell: mean score all/agreement for P1, walk %, agreement %."""
    cells: dict[tuple[str, str], list[RunRecord]] = defaultdict(list)
    for record in records:
        if record.study == "table1":
            cells[(record.agent, record.partner)].append(record)
    summary: dict[tuple[str, str], dict[str, float]] = {}
    for key, group in cells.items():
        deals = [r.agent_utility for r in group if r.agreement]
        summary[key] = {
            "all": float(np.mean([r.agent_utility for r in group])),
            "deal": float(np.mean(deals)) if deals else math.nan,
            "deal_hw": mean_ci(deals).half_width if len(deals) > 1 else math.nan,
            "walk": 100.0 * sum(r.agent_walked or r.partner_walked for r in group) / len(group),
            "agree": 100.0 * sum(r.agreement for r in group) / len(group),
        }
    return summary


def _fmt(values: Iterable[float], digits: int = 2) -> str:
    estimate = mean_ci(values)
    if estimate.count == 0:
        return "—"
    if math.isnan(estimate.half_width):
        return f"{estimate.mean:.{digits}f}"
    return f"{estimate.mean:.{digits}f} ± {estimate.half_width:.{digits}f}"


def table1_markdown(records: Sequence[RunRecord]) -> str:
    """The seed's table 1 layout: scores (all / agreements), walk-away %, agreement %, Pareto distance."""
    lines = [
        "| P1 (evaluated) | P2 (partner) | runs | avg score, all (P1 vs P2) "
        "| avg score, agreements (P1 vs P2) | walk-away % (P1 / P2 walked) | agreement % "
        "| Pareto distance (points) |",
        "|---|---|---|---|---|---|---|---|",
    ]
    cells: dict[tuple[str, str], list[RunRecord]] = defaultdict(list)
    for record in records:
        if record.study == "table1":
            cells[(record.agent, record.partner)].append(record)
    for (agent, partner), group in cells.items():
        deals = [r for r in group if r.agreement]
        walks = [r for r in group if r.agent_walked or r.partner_walked]
        lines.append(
            f"| {agent} | {partner} | {len(group)} "
            f"| {_fmt(r.agent_utility for r in group)} vs {_fmt(r.partner_utility for r in group)} "
            f"| {_fmt(r.agent_utility for r in deals)} vs {_fmt(r.partner_utility for r in deals)} "
            f"| {100 * len(walks) / len(group):.0f} ({sum(r.agent_walked for r in group)} / "
            f"{sum(r.partner_walked for r in group)}) "
            f"| {100 * len(deals) / len(group):.0f} "
            f"| {_fmt(r.pareto_distance for r in deals)} |"
        )
    return "\n".join(lines)


def tournament_markdown(records: Sequence[RunRecord], by: str = "partner") -> str:
    """ASTRA against each baseline (by="partner") or on each scenario (by="scenario"), with 95% CIs."""
    groups: dict[str, list[RunRecord]] = defaultdict(list)
    for record in records:
        if record.study == "tournament":
            groups[getattr(record, by)].append(record)
    lines = [
        f"| {by} | sessions | ASTRA utility (0-1) | opponent utility (0-1) | agreement % "
        "| Pareto distance (normalised) | ASTRA walked % |",
        "|---|---|---|---|---|---|---|",
    ]
    for name, group in sorted(groups.items()):
        deals = [r for r in group if r.agreement]
        rate = mean_ci(100.0 * r.agreement for r in group)
        lines.append(
            f"| {name} | {len(group)} | {_fmt(r.agent_normalized for r in group)} "
            f"| {_fmt(r.partner_normalized for r in group)} | {rate.mean:.0f} ± {rate.half_width:.0f} "
            f"| {_fmt((r.pareto_distance_normalized for r in deals), 3)} "
            f"| {100 * sum(r.agent_walked for r in group) / len(group):.0f} |"
        )
    return "\n".join(lines)


def paper_markdown() -> str:
    """The seed's table 1 numbers, for side-by-side reading."""
    lines = [
        "| P1 | P2 | avg score, all | avg score, agreements | walk-away % |",
        "|---|---|---|---|---|",
    ]
    for (agent, partner), (every, deals, walks) in PAPER_TABLE1.items():
        lines.append(f"| {agent} | {partner} | {every} | {deals} | {walks} |")
    return "\n".join(lines)


def lambda_markdown(table: Mapping[tuple[str, str], tuple[float, int]]) -> str:
    """Mean λ per (stance, fairness) as a table."""
    lines = ["| stance \\ fairness | " + " | ".join(FAIRNESS) + " |", "|---" * (len(FAIRNESS) + 1) + "|"]
    for stance in STANCES:
        cells = [
            f"{table[(stance, f)][0]:.2f} (n={table[(stance, f)][1]})" if (stance, f) in table else "—"
            for f in FAIRNESS
        ]
        lines.append(f"| {stance} | " + " | ".join(cells) + " |")
    return "\n".join(lines)


def tactic_markdown(table: Mapping[tuple[str, str], Mapping[str, int]]) -> str:
    """Tactic counts per (stance, fairness) as a table (the seed's figure 4 as numbers)."""
    lines = ["| stance | fairness | tactics chosen (count) |", "|---|---|---|"]
    for stance in STANCES:
        for fairness in FAIRNESS:
            counts = table.get((stance, fairness))
            if counts:
                text = ", ".join(
                    f"{name} {count}" for name, count in sorted(counts.items(), key=lambda x: -x[1])
                )
                lines.append(f"| {stance} | {fairness} | {text} |")
    return "\n".join(lines)


def previous_tournament_markdown(records: Sequence[RunRecord]) -> str:
    """Previous vs current tournament means per opponent and for the scenarios named above."""
    groups: dict[str, list[RunRecord]] = defaultdict(list)
    for record in records:
        if record.study == "tournament":
            groups[record.partner].append(record)
            if record.scenario in PREVIOUS_TOURNAMENT:
                groups[record.scenario].append(record)
    lines = ["| opponent / scenario | ASTRA utility | agreement % |", "|---|---|---|"]
    for name, (utility, agree) in PREVIOUS_TOURNAMENT.items():
        group = groups.get(name)
        if not group:
            continue
        now_utility = float(np.mean([r.agent_normalized for r in group]))
        now_agree = 100.0 * sum(r.agreement for r in group) / len(group)
        lines.append(f"| {name} | {utility:.2f} → {now_utility:.2f} | {agree:.0f} → {now_agree:.0f} |")
    return "\n".join(lines)


def previous_markdown(means: Mapping[tuple[str, str], Mapping[str, float]]) -> str:
    """Previous vs current table-1 means for P1."""

    def number(value: float) -> str:
        return "—" if math.isnan(value) else f"{value:.2f}"

    lines = [
        "| P1 | P2 | score, all (before → now) | score, agreements (before → now) "
        "| walk-away % (before → now) |",
        "|---|---|---|---|---|",
    ]
    for (agent, partner), (every, deal, walk) in PREVIOUS_TABLE1.items():
        cell = means.get((agent, partner))
        if cell is None:
            continue
        lines.append(
            f"| {agent} | {partner} | {number(every)} → {number(cell['all'])} "
            f"| {number(deal)} → {number(cell['deal'])} | {walk:.0f} → {cell['walk']:.0f} |"
        )
    return "\n".join(lines)


def comparison_lines(means: Mapping[tuple[str, str], Mapping[str, float]]) -> list[str]:
    """Plain statements comparing the measured pattern with the seed's, each with both numbers."""
    lines: list[str] = []
    astra, ablation = means.get(("astra", "base")), means.get(("astra-ablation", "base"))
    if astra and ablation:
        gap = astra["deal"] - ablation["deal"]
        overlap = abs(gap) <= astra.get("deal_hw", math.nan) + ablation.get("deal_hw", math.nan)
        if gap > 0 and not overlap:
            verdict = "reproduced here, though smaller"
        elif gap > 0:
            verdict = "only hinted at here: ASTRA is ahead but the 95% intervals overlap"
        else:
            verdict = "not reproduced here"
        lines.append(
            f"- Against `base`, ASTRA's agreement score is {astra['deal']:.2f} vs {ablation['deal']:.2f} "
            f"for the ablation (seed: 24.31 vs 20.75): the seed's gain from stages 2-3 is {verdict}."
        )
    for partner, seed_walk in (("base", 16), ("greedy", 85), ("fair", 35)):
        cell = means.get(("astra", partner))
        if cell:
            deal = "no agreements" if math.isnan(cell["deal"]) else f"agreement score {cell['deal']:.2f}"
            lines.append(
                f"- ASTRA vs `{partner}`: walk-away {cell['walk']:.0f}% (seed {seed_walk}%), "
                f"{deal}, all-cases score {cell['all']:.2f}."
            )
    return lines
