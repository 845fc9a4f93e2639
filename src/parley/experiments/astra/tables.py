"""The ASTRA report's tables: records aggregated per table-1 cell, opponent, scenario and partner
signal, rendered as markdown (with the seed's and the previous version's numbers alongside): means
with Student-t 95% intervals, rates with Wilson 95% intervals, the tuning grid."""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Iterable, Mapping, Sequence

import numpy as np

from parley.experiments.astra.config import TUNABLES, TunedConfig
from parley.experiments.astra.inference import wilson
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
    """Mean ± Student-t 95% half-width; "(no spread)" when every value is the same."""
    estimate = mean_ci(values)
    if estimate.count == 0:
        return "—"
    if math.isnan(estimate.half_width):
        return f"{estimate.mean:.{digits}f} (n=1)"
    if estimate.half_width == 0:
        return f"{estimate.mean:.{digits}f} (no spread)"
    return f"{estimate.mean:.{digits}f} ± {estimate.half_width:.{digits}f}"


def _rate(flags: Iterable[bool]) -> str:
    """A rate in percent with its Wilson 95% interval."""
    values = list(flags)
    return wilson(sum(values), len(values)).percent()


def table1_markdown(records: Sequence[RunRecord]) -> str:
    """The seed's table 1 layout: scores (all / agreements), walk-away %, agreement %, Pareto distance."""
    lines = [
        "| P1 (evaluated) | P2 (partner) | runs | avg score, all (P1 vs P2) "
        "| avg score, agreements (P1 vs P2; n) | walk-away % [95% CI] (P1 / P2 walked) "
        "| agreement % [95% CI] | Pareto distance (points; agreements) | P1 setting |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    cells: dict[tuple[str, str], list[RunRecord]] = defaultdict(list)
    for record in records:
        if record.study == "table1":
            cells[(record.agent, record.partner)].append(record)
    for (agent, partner), group in cells.items():
        deals = [r for r in group if r.agreement]
        setting = group[0].agent_options or "defaults"
        lines.append(
            f"| {agent} | {partner} | {len(group)} "
            f"| {_fmt(r.agent_utility for r in group)} vs {_fmt(r.partner_utility for r in group)} "
            f"| {_fmt(r.agent_utility for r in deals)} vs {_fmt(r.partner_utility for r in deals)}; "
            f"{len(deals)} "
            f"| {_rate(r.agent_walked or r.partner_walked for r in group)} "
            f"({sum(r.agent_walked for r in group)} / {sum(r.partner_walked for r in group)}) "
            f"| {_rate(r.agreement for r in group)} "
            f"| {_fmt(r.pareto_distance for r in deals)} | {setting} |"
        )
    return "\n".join(lines)


def tournament_markdown(records: Sequence[RunRecord], by: str = "partner") -> str:
    """ASTRA against each baseline (by="partner") or on each scenario (by="scenario"), with 95% CIs."""
    groups: dict[str, list[RunRecord]] = defaultdict(list)
    for record in records:
        if record.study == "tournament":
            groups[getattr(record, by)].append(record)
    lines = [
        f"| {by} | sessions | ASTRA utility (0-1) | opponent utility (0-1) | agreement % [95% CI] "
        "| Pareto distance (normalised; agreements) | ASTRA walked % [95% CI] |",
        "|---|---|---|---|---|---|---|",
    ]
    for name, group in sorted(groups.items()):
        deals = [r for r in group if r.agreement]
        lines.append(
            f"| {name} | {len(group)} | {_fmt(r.agent_normalized for r in group)} "
            f"| {_fmt(r.partner_normalized for r in group)} | {_rate(r.agreement for r in group)} "
            f"| {_fmt((r.pareto_distance_normalized for r in deals), 3)} "
            f"| {_rate(r.agent_walked for r in group)} |"
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
    """The previous version's table-1 means for P1 beside this version's (different seeds and
    settings: a record of what moved, not a test)."""
    lines = [
        "| P1 | P2 | score, all (previous → now) | walk-away % (previous → now) "
        "| agreement % (previous → now) |",
        "|---|---|---|---|---|",
    ]
    for (agent, partner), (every, walk, agree) in PREVIOUS_TABLE1.items():
        cell = means.get((agent, partner))
        if cell is None:
            continue
        lines.append(
            f"| {agent} | {partner} | {every:.2f} → {cell['all']:.2f} | {walk:.0f} → {cell['walk']:.0f} "
            f"| {agree:.0f} → {cell['agree']:.0f} |"
        )
    return "\n".join(lines)


def tuning_markdown(tuned: TunedConfig) -> str:
    """Every system's grid on the tuning seeds: the objective per value, the chosen one in bold."""
    defaults = {(entry.system, entry.parameter): entry.default for entry in TUNABLES}
    lines = [
        "| P1 system | parameter | value | mean P1 score on the tuning seeds [95% CI] | sessions | |",
        "|---|---|---|---|---|---|",
    ]
    for parameter in tuned.parameters:
        for point in parameter.grid:
            notes = [
                note
                for note, applies in (
                    ("**chosen**", point.value == parameter.chosen),
                    ("registered default", point.value == defaults[(parameter.system, parameter.parameter)]),
                )
                if applies
            ]
            low, high = point.mean - point.half_width, point.mean + point.half_width
            lines.append(
                f"| {parameter.system} | {parameter.parameter} | {point.value:g} "
                f"| {point.mean:.2f} [{low:.2f}, {high:.2f}] | {point.sessions} | {', '.join(notes)} |"
            )
    return "\n".join(lines)
