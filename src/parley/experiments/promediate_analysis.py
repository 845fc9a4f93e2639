"""Statistics for the ProMediate report: the seed's claims tested, its ME–MI correlation and factor
analysis recomputed, and the sensitivity of the headline comparison to every behavioural parameter.

Each claim of the seed is a paired comparison (conditions share case and seed), tested with the
Wilcoxon signed-rank test and labelled reproduced / refuted / inconclusive at α = 0.05.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, fields
from pathlib import Path
from typing import Any, Literal

import numpy as np
from scipy import stats

from parley.experiments.batch import map_specs
from parley.experiments.promediate import Cell, ConversationSpec, Variation, grid, play_task
from parley.scenarios.importers.promediate import PROMEDIATE_CASES
from parley.simulation.behaviour import behaviour_parameters
from parley.simulation.modes import ConflictMode, ModeProfile

ALPHA = 0.05
"""Significance level of every test."""
Verdict = Literal["reproduced", "refuted", "inconclusive"]

Row = Mapping[str, Any]


@dataclass(frozen=True, slots=True)
class Claim:
    """One claim of the seed: metric of condition `a` beats condition `b` (in `direction`).

    Attributes:
        text: The claim in words, with the seed's figures.
        metric: Row key compared.
        a: (mode, mediator) of the first condition.
        b: (mode, mediator) of the second.
        direction: +1 if the seed found a > b, -1 if a < b.
    """

    text: str
    metric: str
    a: tuple[str, str]
    b: tuple[str, str]
    direction: int


@dataclass(frozen=True, slots=True)
class Tested:
    """A claim with its paired test.

    Attributes:
        claim: The claim.
        n: Pairs with both values finite.
        mean_a: Mean of a over those pairs.
        mean_b: Mean of b over those pairs.
        statistic: Wilcoxon W (nan with no non-zero difference).
        p: Two-sided p-value (1 with no non-zero difference).
        verdict: reproduced (p < α, same direction), refuted (p < α, opposite), inconclusive.
    """

    claim: Claim
    n: int
    mean_a: float
    mean_b: float
    statistic: float
    p: float
    verdict: Verdict


def seed_claims() -> list[Claim]:
    """The seed's comparisons (Table 1 and §4.3), as paired claims."""
    cc = {
        "accommodating": (22.59, 20.13),
        "avoiding": (13.25, 14.31),
        "general": (11.39, 10.93),
        "competing": (10.65, 7.01),
    }
    claims = [
        Claim(
            f"{mode}: Social CC {'>' if s > g else '<'} Generic CC (seed {s}% vs {g}%)",
            "CC",
            (mode, "social"),
            (mode, "generic"),
            1 if s > g else -1,
        )
        for mode, (s, g) in cc.items()
    ]
    claims += [
        Claim(
            "competing: Social CC > NoAgent CC (seed 10.65% vs 6.83%)",
            "CC",
            ("competing", "social"),
            ("competing", "none"),
            1,
        ),
        Claim(
            "competing: Social TLE > Generic TLE (seed 0.57% vs 0.23%)",
            "TLE",
            ("competing", "social"),
            ("competing", "generic"),
            1,
        ),
        Claim(
            "NoAgent CC: accommodating > competing (seed 18.74% vs 6.83%)",
            "CC",
            ("accommodating", "none"),
            ("competing", "none"),
            1,
        ),
    ]
    rl = {
        "accommodating": (4.00, 6.39),
        "avoiding": (5.69, 25.56),
        "general": (3.00, 5.64),
        "competing": (3.71, 15.98),
    }
    claims += [
        Claim(
            f"{mode}: Social answers drops faster than Generic, RL (seed {s}s vs {g}s)",
            "RL_turns",
            (mode, "social"),
            (mode, "generic"),
            -1,
        )
        for mode, (s, g) in rl.items()
    ]
    claims += [
        Claim(
            f"{mode}: Social intervenes more often than Generic (seed: in every mode)",
            "interventions",
            (mode, "social"),
            (mode, "generic"),
            1,
        )
        for mode in cc
    ]
    mi = {
        "accommodating": (4.319, 4.464),
        "avoiding": (4.445, 4.260),
        "general": (4.207, 4.292),
        "competing": (4.318, 4.225),
    }
    claims += [
        Claim(
            f"{mode}: Social MI {'>' if s > g else '<'} Generic MI (seed {s} vs {g}, an LLM rubric)",
            "MI",
            (mode, "social"),
            (mode, "generic"),
            1 if s > g else -1,
        )
        for mode, (s, g) in mi.items()
    ]
    return claims


def paired(
    rows: Sequence[Row], metric: str, a: tuple[str, str], b: tuple[str, str]
) -> list[tuple[float, float]]:
    """(a, b) values of metric for every (case, seed) both conditions played, both finite."""
    by_key: dict[tuple[str, str, str, int], float] = {}
    for row in rows:
        value = row.get(metric)
        if isinstance(value, int | float) and math.isfinite(float(value)):
            by_key[(row["mode"], row["mediator"], row["case"], int(row["run"]))] = float(value)
    pairs: list[tuple[float, float]] = []
    for (mode, mediator, case, seed), value in sorted(by_key.items()):
        if (mode, mediator) == a and (other := by_key.get((*b, case, seed))) is not None:
            pairs.append((value, other))
    return pairs


def check_claim(rows: Sequence[Row], claim: Claim) -> Tested:
    """Wilcoxon signed-rank test of a claim over its (case, seed) pairs."""
    pairs = paired(rows, claim.metric, claim.a, claim.b)
    n = len(pairs)
    if n == 0:
        return Tested(claim, 0, math.nan, math.nan, math.nan, math.nan, "inconclusive")
    first = np.array([p[0] for p in pairs])
    second = np.array([p[1] for p in pairs])
    differences = first - second
    if not np.any(np.abs(differences) > 1e-12):
        return Tested(claim, n, float(first.mean()), float(second.mean()), math.nan, 1.0, "inconclusive")
    result: Any = stats.wilcoxon(first, second)
    statistic, p = float(result.statistic), float(result.pvalue)
    sign = (
        1
        if float(np.median(differences)) > 0 or (np.median(differences) == 0 and differences.mean() > 0)
        else -1
    )
    verdict: Verdict = (
        "inconclusive" if p >= ALPHA else ("reproduced" if sign == claim.direction else "refuted")
    )
    return Tested(claim, n, float(first.mean()), float(second.mean()), statistic, p, verdict)


@dataclass(frozen=True, slots=True)
class Correlation:
    """A Spearman correlation with its p-value and sample size (nan below three points)."""

    rho: float
    p: float
    n: int


def me_mi_correlation(rows: Sequence[Row], mi_key: str = "MI") -> Correlation:
    """Spearman ρ between ME and an MI score over every intervention with both (the seed's §4.3.3)."""
    points = [
        (float(i["ME"]), float(i[mi_key]))
        for row in rows
        for i in row.get("per_intervention", ())
        if i.get("ME") is not None and i.get(mi_key) is not None
    ]
    if len(points) < 3:
        return Correlation(math.nan, math.nan, len(points))
    me, mi = zip(*points, strict=True)
    if len(set(me)) < 2 or len(set(mi)) < 2:
        return Correlation(math.nan, math.nan, len(points))
    result: Any = stats.spearmanr(me, mi)
    return Correlation(float(result.statistic), float(result.pvalue), len(points))


FACTOR_METRICS: tuple[str, ...] = ("CC", "TLE", "ME", "RL_turns", "MI")
"""The metrics in the seed's factor analysis (Table 3)."""


@dataclass(frozen=True, slots=True)
class Factors:
    """A two-factor analysis with varimax rotation of the per-conversation metrics.

    Attributes:
        loadings: Per metric, its loadings on factor 1 and 2 (on standardised metrics).
        n: Conversations used (mediated, every metric finite).
        note: Why it could not be computed ("" when it was).
    """

    loadings: Mapping[str, tuple[float, float]]
    n: int
    note: str = ""


def factor_analysis(rows: Sequence[Row], metrics: Sequence[str] = FACTOR_METRICS) -> Factors:
    """Two-factor maximum-likelihood factor analysis with varimax rotation (scikit-learn's
    `FactorAnalysis`, in the dev extra), over mediated conversations with every metric finite.

    Each factor's sign is fixed so its largest loading is positive (loadings are sign-free).
    """
    data = [
        [float(row[m]) for m in metrics]
        for row in rows
        if row["mediator"] != "none" and all(math.isfinite(float(row[m])) for m in metrics)
    ]
    if len(data) < len(metrics) + 2:
        return Factors({}, len(data), f"too few conversations with every metric finite ({len(data)})")
    try:
        from sklearn.decomposition import FactorAnalysis
    except ImportError:
        return Factors({}, len(data), "scikit-learn is not installed (pip install parley[dev])")
    matrix = np.asarray(data)
    spread = matrix.std(axis=0)
    if np.any(spread < 1e-12):
        return Factors({}, len(data), "a metric is constant over the conversations")
    standard = (matrix - matrix.mean(axis=0)) / spread
    model = FactorAnalysis(n_components=2, rotation="varimax", random_state=0).fit(standard)
    loadings = np.asarray(model.components_).T
    for column in range(loadings.shape[1]):
        if loadings[np.argmax(np.abs(loadings[:, column])), column] < 0:
            loadings[:, column] *= -1
    return Factors(
        {m: (float(loadings[i, 0]), float(loadings[i, 1])) for i, m in enumerate(metrics)}, len(data)
    )


def seed_factor_structure(factors: Factors, salient: float = 0.4) -> Verdict:
    """Whether the seed's structure appears: CC and TLE salient on one factor, ME and RL on the
    other, MI on neither (descriptive; no test)."""
    if not factors.loadings:
        return "inconclusive"
    load = factors.loadings

    def on(metric: str, factor: int) -> bool:
        return abs(load[metric][factor]) >= salient

    for first in (0, 1):
        second = 1 - first
        if (
            on("CC", first)
            and on("TLE", first)
            and on("ME", second)
            and on("RL_turns", second)
            and not on("MI", 0)
            and not on("MI", 1)
        ):
            return "reproduced"
    return "refuted"


# -- sensitivity ------------------------------------------------------------------------------------

SENSITIVITY_MODES: tuple[ConflictMode, ...] = (ConflictMode.COMPETING,)
"""Modes of the sensitivity grid: the seed's headline (ProMediate-Hard)."""
SENSITIVITY_METRICS: tuple[str, ...] = ("CC", "TLE", "ME", "MI")
"""Metrics whose mediator ranking the sensitivity table follows."""

_MULTIPLIERS = {"naming_concession", "naming_relief", "addressed_attack", "mediator_concession"}


def variations() -> list[Variation]:
    """Every behavioural parameter at a low and a high value: behaviour fields × 0.5 and × 1.5
    (multipliers 1 and 1.5 × default, so "low" switches the effect off); mode-profile fields scaled
    × 0.5 and × 1.5 in every mode; speaking thresholds −0.5 and +0.5, system1_prob −0.3 and +0.3."""
    found: list[Variation] = []
    for name, default, _, _ in behaviour_parameters():
        low = 1.0 if name in _MULTIPLIERS else default * 0.5
        found += [
            Variation("behaviour", name, "low", low),
            Variation("behaviour", name, "high", default * 1.5),
        ]
    for field in fields(ModeProfile):
        found += [Variation("profile", field.name, "low", 0.5), Variation("profile", field.name, "high", 1.5)]
    for name, step in (("im_threshold", 0.5), ("interrupt_threshold", 0.5), ("system1_prob", 0.3)):
        found += [Variation("speaking", name, "low", -step), Variation("speaking", name, "high", step)]
    return found


def sensitivity_cells() -> list[Cell]:
    """The grid every variation replays: every case, the sensitivity modes, all three mediators."""
    return grid(PROMEDIATE_CASES, SENSITIVITY_MODES)


def run_sensitivity(
    seeds: Sequence[int],
    *,
    jobs: int = 1,
    chosen: Sequence[Variation] | None = None,
    on_progress: Callable[[int, int], None] | None = None,
) -> dict[str, list[dict[str, Any]]]:
    """Rows of the sensitivity grid with the defaults and with each variation, by variation label
    ("defaults" first), played through the batch layer in `jobs` processes."""
    wanted: list[Variation | None] = [None, *(chosen if chosen is not None else variations())]
    specs = [
        ConversationSpec(cell, seed, v) for v in wanted for cell in sensitivity_cells() for seed in seeds
    ]
    finished = 0

    def advance(count: int) -> None:
        nonlocal finished
        finished += count
        if on_progress is not None:
            on_progress(finished, len(specs))

    results = map_specs(specs, play_task, None, jobs=jobs, on_progress=advance)
    grouped: dict[str, list[dict[str, Any]]] = {}
    for spec, rows in zip(specs, results, strict=True):
        label = spec.variation.label if spec.variation is not None else "defaults"
        grouped.setdefault(label, []).extend(rows)
    return grouped


def ranking(
    rows: Sequence[Row], metric: str, mediators: Sequence[str] = ("social", "generic", "none")
) -> str:
    """Mediators ordered by the mean of metric ("social > generic > none"; those without values left out)."""
    means: dict[str, float] = {}
    for mediator in mediators:
        values = [
            float(r[metric]) for r in rows if r["mediator"] == mediator and math.isfinite(float(r[metric]))
        ]
        if values:
            means[mediator] = float(np.mean(values))
    order = sorted(means, key=lambda m: (-means[m], mediators.index(m)))
    return " > ".join(order)


def metric_means(rows: Sequence[Row], metric: str, mediator: str) -> float:
    """Mean of metric over a mediator's rows (nan without a finite value)."""
    values = [float(r[metric]) for r in rows if r["mediator"] == mediator and math.isfinite(float(r[metric]))]
    return float(np.mean(values)) if values else math.nan


def sensitivity_table(grouped: Mapping[str, Sequence[Row]]) -> list[str]:
    """Markdown: per variation, each metric's Social/Generic/NoAgent means and ranking; ✗ where the
    ranking differs from the defaults'."""
    baseline = {m: ranking(grouped["defaults"], m) for m in SENSITIVITY_METRICS}
    header = "| parameter | " + " | ".join(f"{m}: S / G / N (ranking)" for m in SENSITIVITY_METRICS) + " |"
    lines = [header, "|---|" + "---|" * len(SENSITIVITY_METRICS)]
    for label, rows in grouped.items():
        cells: list[str] = []
        for metric in SENSITIVITY_METRICS:
            scale = 1.0 if metric in ("interventions",) else 100.0
            means = [metric_means(rows, metric, m) for m in ("social", "generic", "none")]
            shown = " / ".join("—" if math.isnan(v) else f"{v * scale:.2f}" for v in means)
            order = ranking(rows, metric)
            mark = "" if order == baseline[metric] else " ✗"
            cells.append(f"{shown} ({_short(order)}){mark}")
        lines.append(f"| {label} | " + " | ".join(cells) + " |")
    return lines


def _short(order: str) -> str:
    return order.replace("social", "S").replace("generic", "G").replace("none", "N")


def ranking_holds(grouped: Mapping[str, Sequence[Row]]) -> dict[str, tuple[int, int]]:
    """Per metric: variations whose ranking equals the defaults', and variations in all."""
    baseline = {m: ranking(grouped["defaults"], m) for m in SENSITIVITY_METRICS}
    varied = [rows for label, rows in grouped.items() if label != "defaults"]
    return {
        m: (sum(1 for rows in varied if ranking(rows, m) == baseline[m]), len(varied))
        for m in SENSITIVITY_METRICS
    }


def plot_sensitivity(grouped: Mapping[str, Sequence[Row]], path: Path) -> Path:
    """Per metric, Social minus Generic under every variation (a bar each), the defaults as a line."""
    from parley.experiments.plots import plt, save_figure  # (matplotlib only when plotting)

    labels = [label for label in grouped if label != "defaults"]
    figure, axes = plt.subplots(
        1, len(SENSITIVITY_METRICS), figsize=(16, max(6.0, 0.14 * len(labels))), sharey=True
    )
    positions = np.arange(len(labels))
    for axis, metric in zip(axes, SENSITIVITY_METRICS, strict=True):
        gaps = [
            100 * (metric_means(grouped[k], metric, "social") - metric_means(grouped[k], metric, "generic"))
            for k in labels
        ]
        base = 100 * (
            metric_means(grouped["defaults"], metric, "social")
            - metric_means(grouped["defaults"], metric, "generic")
        )
        colours = ["#2a9d8f" if (g > 0) == (base > 0) else "#e63946" for g in gaps]
        axis.barh(positions, np.nan_to_num(gaps), color=colours)
        axis.axvline(base, color="black", linewidth=1)
        axis.axvline(0, color="0.6", linewidth=0.8)
        axis.set_title(f"{metric}: Social − Generic (×100)")
    axes[0].set_yticks(positions, labels, fontsize=6)
    axes[0].invert_yaxis()
    return save_figure(figure, path)
