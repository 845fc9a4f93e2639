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


def mean_ci(values: Iterable[float], confidence: float = 0.95) -> Estimate:
    """Mean and Student-t confidence half-width of the finite values (inf and nan are skipped)."""
    sample = [float(v) for v in values if math.isfinite(float(v))]
    count = len(sample)
    if count == 0:
        return Estimate(math.nan, math.nan, 0)
    mean = sum(sample) / count
    if count < 2:
        return Estimate(mean, math.nan, count)
    variance = sum((v - mean) ** 2 for v in sample) / (count - 1)
    critical = float(stats.t.ppf(0.5 + confidence / 2, count - 1))
    return Estimate(mean, critical * math.sqrt(variance / count), count)
