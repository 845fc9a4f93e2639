"""Summary statistics with honest uncertainty: means with Student-t 95% confidence intervals."""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import dataclass

from scipy import stats


@dataclass(frozen=True, slots=True)
class Estimate:
    """A sample mean with its 95% confidence half-width.

    Attributes:
        mean: Sample mean (nan for an empty sample).
        half_width: Half-width of the 95% Student-t interval (nan below two finite observations).
        count: Number of finite observations.
    """

    mean: float
    half_width: float
    count: int

    def __str__(self) -> str:
        if self.count == 0:
            return "—"
        if math.isnan(self.half_width):
            return f"{self.mean:.3g}"
        return f"{self.mean:.3g} ± {self.half_width:.2g}"

    @property
    def low(self) -> float:
        """Lower end of the interval."""
        return self.mean - self.half_width

    @property
    def high(self) -> float:
        """Upper end of the interval."""
        return self.mean + self.half_width


def mean_ci(values: Iterable[float | None], confidence: float = 0.95) -> Estimate:
    """Mean and Student-t confidence half-width of the finite values.

    None (a missing value, as JSON results write a no-deal game's distances), inf and nan are skipped.
    """
    sample = [float(v) for v in values if v is not None and math.isfinite(float(v))]
    count = len(sample)
    if count == 0:
        return Estimate(math.nan, math.nan, 0)
    mean = sum(sample) / count
    if count < 2:
        return Estimate(mean, math.nan, count)
    variance = sum((v - mean) ** 2 for v in sample) / (count - 1)
    critical = float(stats.t.ppf(0.5 + confidence / 2, count - 1))
    return Estimate(mean, critical * math.sqrt(variance / count), count)


class RunningEstimate:
    """`mean_ci` over a stream: finite values are added one at a time and never kept.

    Welford's update holds the count, the mean and the sum of squared deviations, so memory stays
    constant however many values arrive; non-finite values (and None, as JSON's null) are skipped,
    as `mean_ci` skips them.
    """

    __slots__ = ("_squares", "count", "mean")

    def __init__(self) -> None:
        self.count = 0
        self.mean = 0.0
        self._squares = 0.0

    def add(self, value: float | None) -> None:
        """Take one value into the estimate (skipped unless finite)."""
        if value is None:
            return
        number = float(value)
        if not math.isfinite(number):
            return
        self.count += 1
        delta = number - self.mean
        self.mean += delta / self.count
        self._squares += delta * (number - self.mean)

    def estimate(self, confidence: float = 0.95) -> Estimate:
        """The mean with its Student-t confidence half-width, as `mean_ci` gives it."""
        if self.count == 0:
            return Estimate(math.nan, math.nan, 0)
        if self.count < 2:
            return Estimate(self.mean, math.nan, 1)
        variance = max(self._squares, 0.0) / (self.count - 1)
        critical = float(stats.t.ppf(0.5 + confidence / 2, self.count - 1))
        return Estimate(self.mean, critical * math.sqrt(variance / self.count), self.count)
