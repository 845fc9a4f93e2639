"""Outcome analysis for n parties: Pareto frontier, Nash, Kalai–Smorodinsky, max welfare, distances."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from functools import cached_property

import numpy as np
from numpy.typing import NDArray

from parley.domain.issues import Outcome
from parley.domain.space import OutcomeSpace
from parley.domain.utility import FloatArray, UtilityFunction

IntArray = NDArray[np.int64]


def pareto_frontier(points: FloatArray) -> IntArray:
    """Row indices of the non-dominated points, in ascending order.

    A point dominates another when it is at least as good for every party and strictly better
    for one; identical points do not dominate each other, so duplicates of a frontier point are
    all on the frontier.

    Args:
        points: Utilities, shape (n_outcomes, n_parties).
    """
    points = np.asarray(points, dtype=np.float64)
    if points.ndim != 2 or points.shape[0] == 0:
        return np.zeros(0, dtype=np.int64)
    if points.shape[1] == 1:
        return np.flatnonzero(points[:, 0] == points[:, 0].max()).astype(np.int64)
    if points.shape[1] == 2:
        first, second = points[:, 0], points[:, 1]
        survivors = _undominated_by_bins(first, second)
        if survivors is None:
            return _frontier_2d(first, second)
        return survivors[_frontier_2d(first[survivors], second[survivors])]
    return _frontier_nd(points)


PREFILTER_MIN_POINTS = 4096
"""Below this many points the exact sort-based frontier is cheap enough on its own."""

PREFILTER_BINS = 4096
"""Buckets along the first utility used to discard dominated points before sorting."""


def _undominated_by_bins(first: FloatArray, second: FloatArray) -> IntArray | None:
    """Indices of the points that survive an exact O(n) dominance prefilter (None: not worth it).

    Points are bucketed by their first utility (bucketing is monotone). A point whose second
    utility does not exceed the best second utility in any strictly higher bucket is dominated
    by that bucket's best point (strictly better first utility, at least as good second), so it
    can be dropped. Anything dominating a survivor is itself a survivor (dominance is
    transitive), hence the frontier of the survivors is exactly the frontier of all points.
    """
    if first.size < PREFILTER_MIN_POINTS:
        return None
    low, high = float(first.min()), float(first.max())
    if not (np.isfinite(low) and np.isfinite(high) and high > low) or not np.isfinite(second).all():
        return None
    buckets = ((first - low) * (PREFILTER_BINS / (high - low))).astype(np.intp)
    np.minimum(buckets, PREFILTER_BINS - 1, out=buckets)
    best = np.full(PREFILTER_BINS, -np.inf)
    np.maximum.at(best, buckets, second)
    best_above = np.empty_like(best)  # best second utility over strictly higher buckets
    best_above[:-1] = np.maximum.accumulate(best[:0:-1])[::-1]
    best_above[-1] = -np.inf
    return np.flatnonzero(second > best_above[buckets]).astype(np.int64)


def _frontier_2d(first: FloatArray, second: FloatArray) -> IntArray:
    order = np.lexsort((-second, -first))  # by first desc, then second desc
    a, b = first[order], second[order]
    group_start = np.ones(a.size, dtype=bool)
    group_start[1:] = a[1:] != a[:-1]
    start_index = np.maximum.accumulate(np.where(group_start, np.arange(a.size), 0))
    group_best = b[start_index]  # best second-utility among points sharing this first-utility
    running = np.maximum.accumulate(b)
    # best second-utility over all points with strictly larger first-utility
    before_group = np.where(start_index > 0, running[np.maximum(start_index - 1, 0)], -np.inf)
    keep = (b == group_best) & (b > before_group)
    return np.sort(order[keep]).astype(np.int64)


def _frontier_nd(points: FloatArray) -> IntArray:
    unique, inverse = np.unique(points, axis=0, return_inverse=True)
    # Highest sum first; on equal (rounded) sums, lexicographically larger first, so that a
    # dominating point always precedes every point it dominates and the greedy pass stays exact.
    keys = (*(-unique[:, j] for j in reversed(range(unique.shape[1]))), -unique.sum(axis=1))
    remaining = np.lexsort(keys)
    kept: list[int] = []
    while remaining.size:
        best = remaining[0]
        kept.append(int(best))
        candidate = unique[remaining]
        dominated = np.all(candidate <= unique[best], axis=1) & np.any(candidate < unique[best], axis=1)
        dominated[0] = True  # drop the chosen point itself
        remaining = remaining[~dominated]
    on_frontier = np.zeros(unique.shape[0], dtype=bool)
    on_frontier[kept] = True
    return np.flatnonzero(on_frontier[inverse.ravel()]).astype(np.int64)


@dataclass(frozen=True)
class OutcomeAnalysis:
    """Bargaining analysis of a (fully enumerated) outcome space.

    Attributes:
        space: The outcome space.
        points: Utility of every outcome for every party, shape (n_outcomes, n_parties).
        reservation: Each party's reservation value (BATNA), shape (n_parties,).
    """

    space: OutcomeSpace
    points: FloatArray
    reservation: FloatArray

    @classmethod
    def of(cls, utilities: Sequence[UtilityFunction]) -> OutcomeAnalysis:
        """Analyse the shared space of the given utilities (one per party)."""
        if not utilities:
            raise ValueError("outcome analysis needs at least one utility function")
        space = utilities[0].space
        points = np.empty((space.size, len(utilities)), dtype=np.float64)
        for column, utility in enumerate(utilities):  # broadcast per utility, no index array
            points[:, column] = utility.evaluate_space()
        reservation = np.array([u.reservation_value for u in utilities], dtype=np.float64)
        return cls(space, points, reservation)

    @cached_property
    def frontier(self) -> IntArray:
        """Outcome indices on the Pareto frontier."""
        return pareto_frontier(self.points)

    @cached_property
    def frontier_points(self) -> FloatArray:
        """Utilities of the frontier outcomes, shape (n_frontier, n_parties)."""
        return self.points[self.frontier]

    @cached_property
    def individually_rational(self) -> NDArray[np.bool_]:
        """Mask of outcomes at least as good as every party's BATNA."""
        return np.all(self.points >= self.reservation - 1e-9, axis=1)

    def _rational_frontier(self) -> IntArray:
        rational = np.all(self.frontier_points >= self.reservation - 1e-9, axis=1)
        return self.frontier[rational]

    @cached_property
    def max_welfare(self) -> int:
        """Outcome index with the highest utility sum."""
        return int(self.frontier[np.argmax(self.frontier_points.sum(axis=1))])

    @cached_property
    def nash(self) -> int | None:
        """Nash bargaining outcome: maximises Π(u_i − r_i) over rational outcomes (None if none is)."""
        candidates = self._rational_frontier()
        if candidates.size == 0:
            return None
        gains = self.points[candidates] - self.reservation
        products = np.prod(np.maximum(gains, 0.0), axis=1)
        best = np.flatnonzero(products == products.max())
        welfare = self.points[candidates[best]].sum(axis=1)
        return int(candidates[best[np.argmax(welfare)]])

    @cached_property
    def kalai(self) -> int | None:
        """Kalai–Smorodinsky outcome: maximises the smallest share of each party's ideal gain."""
        candidates = self._rational_frontier()
        if candidates.size == 0:
            return None
        gains = self.points[candidates] - self.reservation
        ideal = gains.max(axis=0)
        shares = np.where(ideal > 0, gains / np.where(ideal > 0, ideal, 1.0), 1.0)
        worst = shares.min(axis=1)
        best = np.flatnonzero(worst >= worst.max() - 1e-12)
        welfare = self.points[candidates[best]].sum(axis=1)
        return int(candidates[best[np.argmax(welfare)]])

    def outcome(self, index: int) -> dict[str, object]:
        """The package with this outcome index."""
        return dict(self.space.outcome(index))

    def utilities_of(self, outcome: Outcome) -> FloatArray:
        """Every party's utility of one package."""
        return self.points[self.space.index(outcome)]

    @cached_property
    def _utility_ranges(self) -> tuple[FloatArray, FloatArray]:
        # Lowest and highest utility per party: one pass over all points, then reused per call.
        return self.points.min(axis=0), self.points.max(axis=0)

    def distance_to_outcome(
        self, point: Sequence[float] | FloatArray, index: int, *, normalized: bool = False
    ) -> float:
        """Euclidean distance from a utility point to the utilities of the outcome with this index.

        Args:
            point: One utility per party.
            index: Outcome index (e.g. `nash`).
            normalized: Measure in units of each party's utility range (so parties weigh equally).
        """
        gap = np.asarray(point, dtype=np.float64) - self.points[index]
        if normalized:
            low, high = self._utility_ranges
            gap = gap / np.where(high > low, high - low, 1.0)
        return float(np.sqrt((gap**2).sum()))

    def distance_to_frontier(self, point: Sequence[float] | FloatArray, *, normalized: bool = False) -> float:
        """Euclidean distance from a utility point to the nearest Pareto-frontier point.

        Args:
            point: One utility per party.
            normalized: Measure in units of each party's utility range (so parties weigh equally).
        """
        target = np.asarray(point, dtype=np.float64)
        frontier = self.frontier_points
        if normalized:
            low, high = self._utility_ranges
            span = np.where(high > low, high - low, 1.0)
            frontier, target = (frontier - low) / span, (target - low) / span
        return float(np.sqrt(((frontier - target) ** 2).sum(axis=1)).min())
