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


ACCEPT_TOLERANCE = 1e-9
"""A party accepts an outcome worth at least its reservation value minus this."""

TIE_TOLERANCE = 1e-12
"""Normalised scores (products, shares, sums) this close to the best count as tied."""


@dataclass(frozen=True)
class OutcomeAnalysis:
    """Bargaining analysis of a (fully enumerated) outcome space.

    Every solution concept (Nash, Kalai–Smorodinsky, max welfare) is taken over the same ground:
    the individually rational outcomes (each party at or above its reservation value), with each
    party's utility normalised to [0, 1] by `normalized`: 0 at its reservation value (BATNA), 1 at
    its best outcome in the space. When no outcome is acceptable to every party, every concept is
    None. Nash and Kalai–Smorodinsky are invariant to each party's scale anyway; normalising is
    what makes max welfare comparable across parties whose utilities use different scales.

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
        return np.all(self.points >= self.reservation - ACCEPT_TOLERANCE, axis=1)

    def acceptable(self, required: int | None = None, vetoes: Sequence[int] = ()) -> NDArray[np.bool_]:
        """Mask of the outcomes that pass a k-of-n acceptance rule.

        A party accepts exactly the outcomes at or above its reservation value; an outcome passes
        when at least `required` parties accept it, every veto party among them. With the
        default (unanimity) this is `individually_rational`.

        Args:
            required: How many parties must accept (None: all of them).
            vetoes: Column indices of the parties whose acceptance is always needed.

        Raises:
            ValueError: required is not between 1 and the number of parties, or a veto index is
                not a party's.
        """
        parties = self.points.shape[1]
        if required is not None and not 1 <= required <= parties:
            raise ValueError(f"an acceptance rule needs between 1 and {parties} parties, not {required}")
        outside = [v for v in vetoes if not 0 <= v < parties]
        if outside:
            raise ValueError(f"veto index {outside[0]} is not one of the {parties} parties")
        if required is None or required == parties:
            return self.individually_rational
        accepts = self.points >= self.reservation - ACCEPT_TOLERANCE
        passed = np.count_nonzero(accepts, axis=1) >= required
        if vetoes:
            passed &= np.all(accepts[:, list(dict.fromkeys(vetoes))], axis=1)
        return passed

    @cached_property
    def best(self) -> FloatArray:
        """Each party's highest utility over the whole space, shape (n_parties,)."""
        # Column by column: a reduction along axis 0 of the (n_outcomes, n_parties) array is an
        # order of magnitude slower on a million outcomes.
        return np.array([self.points[:, j].max() for j in range(self.points.shape[1])], dtype=np.float64)

    @cached_property
    def worst(self) -> FloatArray:
        """Each party's lowest utility over the whole space, shape (n_parties,)."""
        return np.array([self.points[:, j].min() for j in range(self.points.shape[1])], dtype=np.float64)

    @cached_property
    def _normal_scale(self) -> tuple[FloatArray, FloatArray]:
        # Zero and unit of each party's normalised utility. A reservation value that is not finite
        # (no BATNA to speak of) gives way to the party's worst outcome; an empty span (the BATNA
        # is the party's best outcome, or better) keeps the raw unit.
        zero = self.reservation
        if not np.isfinite(zero).all():
            zero = np.where(np.isfinite(zero), zero, self.worst)
        span = self.best - zero
        return zero, np.where(span > 0, span, 1.0)

    def normalized(self, points: FloatArray) -> FloatArray:
        """Utilities rescaled per party: 0 at its reservation value, 1 at its best outcome.

        The convention of every solution concept here: u' = (u − r) / (max u − r), with r the
        party's reservation value (its worst utility when r is not finite) and max u its best
        utility over the space (a span of 1 when max u ≤ r). Outcomes below the BATNA are < 0.

        Args:
            points: Utilities, shape (..., n_parties): one point or many.
        """
        zero, span = self._normal_scale
        return (np.asarray(points, dtype=np.float64) - zero) / span

    @cached_property
    def _rational_candidates(self) -> tuple[IntArray, FloatArray]:
        # The individually rational frontier outcomes and their normalised utilities. Anything
        # that dominates a rational outcome is rational too, so each solution below lies here.
        rational = np.all(self.frontier_points >= self.reservation - ACCEPT_TOLERANCE, axis=1)
        candidates = self.frontier[rational]
        return candidates, self.normalized(self.points[candidates])

    def _best_of(self, candidates: IntArray, normal: FloatArray, score: FloatArray) -> int:
        # The candidate with the highest score; ties go to the highest normalised welfare, then
        # to the lowest outcome index.
        tied = np.flatnonzero(score >= score.max() - TIE_TOLERANCE)
        welfare = normal[tied].sum(axis=1)
        return int(candidates[tied[np.argmax(welfare >= welfare.max() - TIE_TOLERANCE)]])

    @cached_property
    def max_welfare(self) -> int | None:
        """Outcome with the highest sum of normalised utilities over the rational outcomes.

        None when no outcome is acceptable to every party.
        """
        candidates, normal = self._rational_candidates
        if candidates.size == 0:
            return None
        return self._best_of(candidates, normal, normal.sum(axis=1))

    @cached_property
    def nash(self) -> int | None:
        """Nash bargaining outcome: maximises Π(u_i − r_i) over rational outcomes (None if none is).

        Computed on normalised utilities (the same argmax: each factor is only rescaled).
        """
        candidates, normal = self._rational_candidates
        if candidates.size == 0:
            return None
        return self._best_of(candidates, normal, np.prod(np.maximum(normal, 0.0), axis=1))

    @cached_property
    def kalai(self) -> int | None:
        """Kalai–Smorodinsky outcome: maximises the smallest share of each party's ideal gain.

        A party's ideal gain is its best normalised utility over the rational outcomes.
        """
        candidates, normal = self._rational_candidates
        if candidates.size == 0:
            return None
        gains = np.maximum(normal, 0.0)
        ideal = gains.max(axis=0)
        shares = np.where(ideal > 0, gains / np.where(ideal > 0, ideal, 1.0), 1.0)
        return self._best_of(candidates, normal, shares.min(axis=1))

    def outcome(self, index: int) -> dict[str, object]:
        """The package with this outcome index."""
        return dict(self.space.outcome(index))

    def utilities_of(self, outcome: Outcome) -> FloatArray:
        """Every party's utility of one package."""
        return self.points[self.space.index(outcome)]

    @property
    def _utility_ranges(self) -> tuple[FloatArray, FloatArray]:
        # Lowest and highest utility per party (each computed once, then reused per call).
        return self.worst, self.best

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
