"""The seed's table-1 claims tested on the experiment's records, each labelled reproduced / refuted /
inconclusive by its test (Holm-adjusted across the claims), and ASTRA's paired comparisons with the
other tuned P1 systems. Every comparison pairs sessions on the same seed and partner, so no mean
over one subset of runs is set against a mean over another."""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from parley.experiments.astra.inference import (
    Label,
    TestResult,
    directional_label,
    holm,
    mcnemar,
    paired_wilcoxon,
    point_label,
    score_test,
    wilson,
)
from parley.experiments.astra.runs import TABLE1_AGENTS, TABLE1_PARTNERS, RunRecord

Cells = dict[tuple[str, str], dict[int, RunRecord]]


@dataclass(frozen=True, slots=True)
class Claim:
    """One claim of the seed and what this experiment says of it.

    Attributes:
        text: The claim in words.
        seed: The seed's numbers behind it.
        unit: How the effect reads ("points", "rate", "share").
        direction: +1/-1 for a claimed sign of the effect, 0 for a claimed rate (`point_label`).
        result: The test on our records (Holm-adjusted within the claims).
        label: reproduced, refuted or inconclusive, from the test.
    """

    text: str
    seed: str
    unit: str
    direction: int
    result: TestResult
    label: Label


def cells(records: Sequence[RunRecord]) -> Cells:
    """Table-1 records by (agent, partner), then by seed."""
    grouped: Cells = {}
    for record in records:
        if record.study == "table1":
            grouped.setdefault((record.agent, record.partner), {})[record.seed] = record
    return grouped


def _score(record: RunRecord) -> float:
    return record.agent_utility


def _both_agreed(first: RunRecord, second: RunRecord) -> bool:
    return first.agreement and second.agreement


def _walked(record: RunRecord) -> bool:
    return record.agent_walked or record.partner_walked


def _paired(
    grouped: Cells,
    first: tuple[str, str],
    second: tuple[str, str],
    value: Callable[[RunRecord], float],
    keep: Callable[[RunRecord, RunRecord], bool] = lambda _a, _b: True,
) -> TestResult:
    """Wilcoxon on value over the seeds both cells played (and keep accepts)."""
    a, b = grouped.get(first, {}), grouped.get(second, {})
    seeds = [seed for seed in sorted(set(a) & set(b)) if keep(a[seed], b[seed])]
    return paired_wilcoxon([value(a[s]) for s in seeds], [value(b[s]) for s in seeds])


def _paired_flags(grouped: Cells, first: tuple[str, str], second: tuple[str, str]) -> TestResult:
    a, b = grouped.get(first, {}), grouped.get(second, {})
    seeds = sorted(set(a) & set(b))
    return mcnemar([_walked(a[s]) for s in seeds], [_walked(b[s]) for s in seeds])


def _within(grouped: Cells, cell: tuple[str, str]) -> TestResult:
    """P1 vs P2 score within the cell's agreements (the pairs are the two sides of one deal)."""
    deals = [r for _, r in sorted(grouped.get(cell, {}).items()) if r.agreement]
    return paired_wilcoxon([r.agent_utility for r in deals], [r.partner_utility for r in deals])


def _walk_rate(grouped: Cells, cell: tuple[str, str], claimed: float) -> TestResult:
    group = list(grouped.get(cell, {}).values())
    return score_test(wilson(sum(map(_walked, group)), len(group)), claimed)


def seed_claims(records: Sequence[RunRecord]) -> list[Claim]:
    """The seed's table-1 claims, tested and labelled (empty cells give inconclusive claims)."""
    g = cells(records)
    drafts: list[tuple[str, str, str, int, TestResult]] = [
        (
            "ASTRA outscores its ablation against `base` in agreement cases (seeds where both agreed)",
            "24.31 vs 20.75 (t = 8.55, p < 0.001)",
            "points",
            1,
            _paired(g, ("astra", "base"), ("astra-ablation", "base"), _score, _both_agreed),
        ),
        (
            "ASTRA walks away from `base` more often than its ablation",
            "16% vs 4%",
            "share",
            1,
            _paired_flags(g, ("astra", "base"), ("astra-ablation", "base")),
        ),
        *[
            (
                f"ASTRA outscores `{partner}` in agreement cases",
                seed,
                "points",
                1,
                _within(g, ("astra", partner)),
            )
            for partner, seed in (
                ("base", "24.31 vs 14.50"),
                ("greedy", "24.33 vs 16.20"),
                ("fair", "25.24 vs 13.92"),
            )
        ],
        *[
            (
                f"ASTRA walks away more often against `{partner}` than against `base`",
                f"{seed} vs 16%",
                "share",
                1,
                _paired_flags(g, ("astra", partner), ("astra", "base")),
            )
            for partner, seed in (("greedy", "85%"), ("fair", "35%"))
        ],
        *[
            (
                f"{agent} walks away from `{partner}` in {100 * claimed:.0f}% of runs",
                f"{100 * claimed:.0f}%",
                "rate",
                0,
                _walk_rate(g, (system, partner), claimed),
            )
            for agent, system, partner, claimed in (
                ("ASTRA", "astra", "base", 0.16),
                ("ASTRA", "astra", "greedy", 0.85),
                ("ASTRA", "astra", "fair", 0.35),
                ("The ablation", "astra-ablation", "base", 0.04),
            )
        ],
    ]
    adjusted = holm([draft[4] for draft in drafts])
    return [
        Claim(text, seed, unit, direction, result, _label(result, direction))
        for (text, seed, unit, direction, _), result in zip(drafts, adjusted, strict=True)
    ]


def _label(result: TestResult, direction: int) -> Label:
    return point_label(result) if direction == 0 else directional_label(result, direction)


@dataclass(frozen=True, slots=True)
class Comparison:
    """ASTRA against another P1 system with the same partner on the same seeds (all cases).

    Attributes:
        other: The other P1 system.
        partner: The partner both played.
        result: Wilcoxon on ASTRA's score minus the other's (Holm-adjusted within the comparisons).
        verdict: "ASTRA higher", "ASTRA lower" or "no significant difference".
    """

    other: str
    partner: str
    result: TestResult
    verdict: str


def baseline_comparisons(records: Sequence[RunRecord]) -> list[Comparison]:
    """ASTRA vs every other P1 system, per partner, on every seed both played."""
    g = cells(records)
    pairs = [
        (other, partner)
        for other in TABLE1_AGENTS
        if other != "astra"
        for partner in TABLE1_PARTNERS
        if (other, partner) in g and ("astra", partner) in g
    ]
    others = sorted({o for o, _ in pairs}, key=TABLE1_AGENTS.index)
    raw = [_paired(g, ("astra", p), (o, p), _score) for o, p in pairs]
    raw += [_pooled(g, other) for other in others]
    names = [*pairs, *((other, POOLED) for other in others)]
    tests = holm(raw)
    return [Comparison(o, p, t, _verdict(t)) for (o, p), t in zip(names, tests, strict=True)]


POOLED = "all three (pooled)"
"""The partner column of a comparison pooled over the partners (the tuning objective's view)."""


def _pooled(g: Cells, other: str) -> TestResult:
    """ASTRA vs other over every (partner, seed) both played."""
    mine: list[float] = []
    theirs: list[float] = []
    for partner in TABLE1_PARTNERS:
        a, b = g.get(("astra", partner), {}), g.get((other, partner), {})
        for seed in sorted(set(a) & set(b)):
            mine.append(a[seed].agent_utility)
            theirs.append(b[seed].agent_utility)
    return paired_wilcoxon(mine, theirs)


def _verdict(result: TestResult) -> str:
    label = directional_label(result, 1)
    return {"reproduced": "ASTRA higher", "refuted": "ASTRA lower"}.get(label, "no significant difference")


def claims_markdown(claims: Sequence[Claim]) -> str:
    """The claims as a table: the seed's numbers, ours with the interval, test, n, p, label."""
    lines = [
        "| seed's claim | seed | parley [95% CI] | test | statistic | n | p (Holm) | label |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for claim in claims:
        r = claim.result
        lines.append(
            f"| {claim.text} | {claim.seed} | {_effect(r, claim.unit)} | {r.test} | {_number(r.statistic)} "
            f"| {r.n} | {_p(r.p)} ({_p(r.decisive_p)}) | **{claim.label}** |"
        )
    return "\n".join(lines)


def comparisons_markdown(comparisons: Sequence[Comparison]) -> str:
    """ASTRA vs the other tuned systems: mean paired difference, test, n, p, verdict."""
    lines = [
        "| ASTRA vs | partner | ASTRA − other, points [95% CI] | Wilcoxon W | n (paired seeds) "
        "| p (Holm) | verdict |",
        "|---|---|---|---|---|---|---|",
    ]
    for c in comparisons:
        r = c.result
        lines.append(
            f"| {c.other} | {c.partner} | {_effect(r, 'points')} | {_number(r.statistic)} | {r.n} "
            f"| {_p(r.p)} ({_p(r.decisive_p)}) | {c.verdict} |"
        )
    return "\n".join(lines)


def _effect(result: TestResult, unit: str) -> str:
    if result.n == 0 or math.isnan(result.effect):
        return "— (no data)"
    if unit == "points":
        body = f"{result.effect:+.2f}"
        return body if math.isnan(result.low) else f"{body} [{result.low:+.2f}, {result.high:+.2f}]"
    scale = 100.0
    sign = "+" if unit == "share" else ""
    body = f"{scale * result.effect:{sign}.0f}%"
    if math.isnan(result.low):
        return body
    return f"{body} [{scale * result.low:{sign}.0f}, {scale * result.high:{sign}.0f}]"


def _number(value: float) -> str:
    return "—" if math.isnan(value) else f"{value:.4g}"


def _p(value: float) -> str:
    if math.isnan(value):
        return "—"
    return "< 0.001" if value < 0.001 else f"{value:.3f}"
