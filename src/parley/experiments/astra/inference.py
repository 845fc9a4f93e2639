"""Statistics for the ASTRA report: Wilson intervals for rates, paired tests for comparisons on
the same seeds (Wilcoxon signed-rank for scores, exact McNemar for yes/no outcomes), the Wilson
score test against a rate the seed reports, Holm's adjustment across a family of claims, and the
reproduced / refuted / inconclusive label that follows from a test."""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Literal, cast

import numpy as np
from scipy import stats

from parley.metrics.stats import mean_ci

ALPHA = 0.05
"""Significance level of every test (after Holm's adjustment within a family)."""

Label = Literal["reproduced", "refuted", "inconclusive"]


@dataclass(frozen=True, slots=True)
class Rate:
    """A proportion with its Wilson 95% interval (nan bounds when total is 0)."""

    hits: int
    total: int
    low: float
    high: float

    @property
    def share(self) -> float:
        """hits / total (nan when total is 0)."""
        return self.hits / self.total if self.total else math.nan

    def percent(self) -> str:
        """ "12% [7, 20]" (percent, interval in percent), or "—" for an empty sample."""
        if self.total == 0:
            return "—"
        return f"{100 * self.share:.0f}% [{100 * self.low:.0f}, {100 * self.high:.0f}]"


def wilson(hits: int, total: int) -> Rate:
    """hits of total with its Wilson score 95% interval (never zero-width for total > 0).

    Raises:
        ValueError: hits is not in [0, total].
    """
    if not 0 <= hits <= total:
        raise ValueError(f"hits must be in [0, {total}], got {hits}")
    if total == 0:
        return Rate(0, 0, math.nan, math.nan)
    interval = stats.binomtest(hits, total).proportion_ci(1 - ALPHA, method="wilson")
    return Rate(hits, total, float(interval.low), float(interval.high))


@dataclass(frozen=True, slots=True)
class TestResult:
    """One test: its name, statistic, two-sided p-value (before and after Holm), n and effect.

    Attributes:
        test: The test's name, as the report prints it.
        statistic: The test statistic (nan where none applies, e.g. no discordant pairs).
        p: Two-sided p-value (1.0 where the data hold no evidence either way).
        n: Sample size behind it (pairs or sessions).
        effect: The measured effect in the claim's units (mean difference, or a rate).
        low: Lower end of the effect's 95% interval.
        high: Upper end of the effect's 95% interval.
        p_adjusted: p after Holm's adjustment within its family (p until adjusted).
    """

    __test__ = False  # a result, not a pytest test class

    test: str
    statistic: float
    p: float
    n: int
    effect: float
    low: float
    high: float
    p_adjusted: float = math.nan

    @property
    def decisive_p(self) -> float:
        """The p-value labels use: the adjusted one when set."""
        return self.p if math.isnan(self.p_adjusted) else self.p_adjusted


def paired_wilcoxon(first: Sequence[float], second: Sequence[float]) -> TestResult:
    """Wilcoxon signed-rank test of first - second over pairs (zero differences dropped), with the
    mean difference and its Student-t 95% interval.

    Raises:
        ValueError: the samples differ in length.
    """
    if len(first) != len(second):
        raise ValueError(f"paired samples differ in length: {len(first)} vs {len(second)}")
    differences = np.asarray(first, dtype=float) - np.asarray(second, dtype=float)
    estimate = mean_ci(differences.tolist())
    low, high = _interval(estimate.mean, estimate.half_width, len(differences))
    if not np.any(differences != 0):  # every pair equal (or none): no evidence of a difference
        return TestResult("Wilcoxon signed-rank", math.nan, 1.0, len(differences), estimate.mean, low, high)
    statistic, pvalue = cast(
        "tuple[float, float]", stats.wilcoxon(differences, zero_method="wilcox", alternative="two-sided")
    )
    return TestResult(
        "Wilcoxon signed-rank",
        float(statistic),
        float(pvalue),
        len(differences),
        estimate.mean,
        low,
        high,
    )


def mcnemar(first: Sequence[bool], second: Sequence[bool]) -> TestResult:
    """Exact McNemar test of paired yes/no outcomes (binomial test on the discordant pairs); the
    effect is the difference of the two rates, with a Student-t interval on the paired differences.

    Raises:
        ValueError: the samples differ in length.
    """
    if len(first) != len(second):
        raise ValueError(f"paired samples differ in length: {len(first)} vs {len(second)}")
    only_first = sum(a and not b for a, b in zip(first, second, strict=True))
    only_second = sum(b and not a for a, b in zip(first, second, strict=True))
    differences = [float(a) - float(b) for a, b in zip(first, second, strict=True)]
    estimate = mean_ci(differences)
    low, high = _interval(estimate.mean, estimate.half_width, len(differences))
    discordant = only_first + only_second
    if discordant == 0:
        return TestResult("exact McNemar", math.nan, 1.0, len(first), estimate.mean, low, high)
    p = float(stats.binomtest(only_first, discordant, 0.5).pvalue)
    return TestResult("exact McNemar", float(only_first), p, len(first), estimate.mean, low, high)


def score_test(rate: Rate, claimed: float) -> TestResult:
    """Wilson score test of rate against the claimed share (p < 0.05 exactly when the claimed
    share lies outside the Wilson 95% interval).

    Raises:
        ValueError: claimed is not strictly between 0 and 1.
    """
    if not 0 < claimed < 1:
        raise ValueError(f"claimed share must be in (0, 1), got {claimed}")
    if rate.total == 0:
        return TestResult("Wilson score", math.nan, 1.0, 0, math.nan, math.nan, math.nan)
    z = (rate.share - claimed) / math.sqrt(claimed * (1 - claimed) / rate.total)
    p = float(2 * stats.norm.sf(abs(z)))
    return TestResult("Wilson score", z, p, rate.total, rate.share, rate.low, rate.high)


def holm(results: Sequence[TestResult]) -> list[TestResult]:
    """The results with Holm's step-down adjusted p-values (same order)."""
    order = sorted(range(len(results)), key=lambda i: results[i].p)
    adjusted = [math.nan] * len(results)
    running = 0.0
    for rank, index in enumerate(order):
        running = max(running, min(1.0, (len(results) - rank) * results[index].p))
        adjusted[index] = running
    return [replace(result, p_adjusted=value) for result, value in zip(results, adjusted, strict=True)]


def directional_label(result: TestResult, direction: int) -> Label:
    """For a claim that the effect has sign direction (+1 or -1): reproduced when significant that
    way, refuted when significant the other way, else inconclusive (also for n = 0)."""
    if result.n == 0 or result.decisive_p >= ALPHA or result.effect == 0:
        return "inconclusive"
    return "reproduced" if (result.effect > 0) == (direction > 0) else "refuted"


def point_label(result: TestResult, *, widest: float = 0.2) -> Label:
    """For a claimed rate: refuted when significantly different (adjusted p); reproduced only when
    the claimed rate is inside our unadjusted 95% interval (unadjusted p >= 0.05: the adjustment
    never helps a claim pass) and the interval is at most widest wide; else inconclusive."""
    if result.n == 0:
        return "inconclusive"
    if result.decisive_p < ALPHA:
        return "refuted"
    if result.p >= ALPHA and result.high - result.low <= widest:
        return "reproduced"
    return "inconclusive"


def _interval(mean: float, half_width: float, count: int) -> tuple[float, float]:
    """The Student-t interval's ends (nan below two observations)."""
    if count < 2:
        return math.nan, math.nan
    return mean - half_width, mean + half_width
