"""The owner's ranked outcome space shared by the baselines: every outcome sorted by utility once,
with the caches a move reads instead of recomputing (package worth, packages by rank, concession plans).
"""

from __future__ import annotations

import threading
from bisect import bisect_left, bisect_right
from collections.abc import Callable, Hashable, Mapping
from functools import cached_property

import numpy as np
from numpy.typing import NDArray

from parley.domain.issues import Value
from parley.domain.ranking import RankedOutcomes
from parley.domain.space import IndexArray, OutcomeSpace
from parley.domain.utility import FloatArray, UtilityFunction

TOLERANCE = 1e-9
"""Slack when comparing utilities, so rounding never turns an acceptable package into a rejection."""

SHARED_RANKING_LIMIT = 100_000
"""Rankings of spaces up to this size are shared between negotiators holding the same utility object."""
SHARED_RANKINGS = 64
"""How many shared rankings are kept (oldest dropped first)."""
ESTIMATE_CHUNK = 1 << 16
"""Large spaces estimate this many ranks at a time, so no (n, k) array is ever built."""
PYTHON_BAND = 64
"""Bands of up to this many candidates are scored in pure Python on small spaces (numpy beyond)."""
PYTHON_SUM_TERMS = 7
"""numpy adds up to this many terms one by one (more are summed pairwise), so the pure-Python
scoring path, which adds them one by one, is used only up to this many issues and opponents."""
KNOWN_PACKAGES = 4096
"""How many packages' worth and option slots a ranking remembers (all forgotten when full)."""
CURVES = 64
"""How many concession curves' plans a ranking keeps (all forgotten when full)."""
PLANS = 4096
"""How many rounds' plans one concession curve keeps per ranking (all forgotten when full)."""

Plan = tuple[float, range]
"""A concession target and the ranks of the packages a negotiator may propose for it."""
Assessment = tuple[float, tuple[int, ...]]
"""A package's worth to the owner (exactly `utility.evaluate`) and its flat option slot per issue."""
_NEGATIVE_INFINITY = float("-inf")


class RankedSpace:
    """Every outcome of a space sorted once by the owner's utility, best first.

    Built on a negotiator's first move of a session; afterwards every query is a bisection or a
    slice, so no move enumerates the space again.

    Spaces up to `SHARED_RANKING_LIMIT` outcomes keep their option-index rows (also as Python
    tuples, so a move on a small space scores a narrow band without numpy calls). Larger spaces
    hold only the memory-lean `RankedOutcomes` (16 bytes per outcome) and build the index rows of
    the few ranks a move looks at on demand. Both layouts give bit-identical results.

    A ranking is shared by every negotiator holding its utility object (see `ranked_space`), so
    it also keeps what moves would otherwise recompute: the worth and option slots of each
    package seen (`assess`) and the plans of each concession curve (`plans`).

    Args:
        space: The outcome space (must fit in memory).
        utility: The owner's utility function.

    Raises:
        ValueError: the space is too large to enumerate.
    """

    def __init__(self, space: OutcomeSpace, utility: UtilityFunction) -> None:
        if not space.fits_in_memory():
            raise ValueError(f"baselines need an enumerable space; this one has {space.size:,} outcomes")
        self.space = space
        self.utility = utility
        # Flat per-option layout: option j of issue i sits at offsets[i] + j, so an estimate over
        # many outcomes is one gather and one sum, whatever the number of issues.
        self.cardinalities = np.array(space.shape, dtype=np.int64)
        self.offsets = np.concatenate([[0], np.cumsum(self.cardinalities)[:-1]]).astype(np.int64)
        self.issue_offsets = list(zip(space.issues, self.offsets.tolist(), strict=True))
        self.lean = space.size > SHARED_RANKING_LIMIT and utility.space == space
        if self.lean:
            ranking = self._ranking = RankedOutcomes.of(utility)
            self.order: NDArray[np.int64] = ranking.order
            self.utilities: FloatArray = ranking.utilities
            marginals = self._lean_marginal_values(ranking)
            self._negated: list[float] | None = None
        else:
            indices = space.enumerate_indices()
            utilities = utility.evaluate_indices(indices)
            order = np.argsort(-utilities, kind="stable")
            self.order = order.astype(np.int64, copy=False)
            self.utilities = utilities[order]
            self._negated = (-self.utilities).tolist()
            flat = indices + self.offsets
            self.__dict__["indices"] = indices[order]
            self.__dict__["flat_indices"] = flat[order]
            marginals = self._marginal_values(flat, utilities)
        self._size = int(self.utilities.shape[0])
        self.best = float(self.utilities[0])
        self.worst = float(self.utilities[-1])
        self.reservation = float(utility.reservation_value)
        self.acceptable_from = self.reservation - TOLERANCE
        """The least worth an acceptable offer may have (the BATNA, less the rounding slack)."""
        self.floor = max(self.reservation, self.worst)
        self.hopeless = self.best < self.reservation - TOLERANCE  # no package is worth the BATNA
        # Bands may be scored in pure Python (see `SessionMemory.band_scores`).
        self.python_scoring = not self.lean and len(space.issues) <= PYTHON_SUM_TERMS
        self.priorities, self.reversed_marginals = self._digest(marginals)
        self.reversed_marginal_list: list[float] = self.reversed_marginals.tolist()
        # Where every opponent model of this ranking starts (equal issue weights, nothing counted),
        # built once here rather than per model and session.
        self.equal_weights: list[float] = [1.0 / len(space.issues)] * len(self.reversed_marginal_list)
        self.equal_weight_numerators = slot_numerators(
            self.equal_weights, self.reversed_marginal_list, [0.0] * len(self.equal_weights)
        )
        # What moves look up by rank or by package, remembered; per-move paths index these
        # dicts directly (no call when the entry exists), other code goes through `package`
        # and `assess`.
        self.packages = _Packages(space, self.order)
        self.values_of = space.values_in_order
        """A package's values in issue order: its key in `assessments`."""
        self.assessments = _Assessments(space, utility.evaluate, tuple(self.offsets.tolist()))
        self._plans: dict[Hashable, dict[tuple[int, int], Plan]] = {}

    @cached_property
    def indices(self) -> IndexArray:
        """Option-index rows of every outcome, in rank order, shape (n, k) (built on first use)."""
        return self.space.indices_at(self.order)

    @cached_property
    def flat_indices(self) -> IndexArray:
        """Rank-ordered rows of flat option slots (option index + issue offset), shape (n, k)."""
        return self.indices + self.offsets

    @cached_property
    def flat_rows(self) -> list[tuple[int, ...]]:
        """The rows of `flat_indices` as Python tuples (small spaces' pure-Python fast path)."""
        return [tuple(row) for row in self.flat_indices.tolist()]

    def lean_estimate(self, table: FloatArray, start: int, stop: int) -> FloatArray:
        """`table[flat_indices[start:stop]].sum(axis=1)` without the rank-ordered index array.

        With few issues numpy adds each row's terms one by one, so adding one gathered column
        per issue gives the same floats; with more it sums pairwise, so the rows are built.
        """
        digits = np.unravel_index(self.order[start:stop], self.space.shape)
        if len(digits) > PYTHON_SUM_TERMS:
            return table[np.stack(digits, axis=-1) + self.offsets].sum(axis=1)
        total = np.zeros(stop - start, dtype=np.float64)
        for (issue, offset), column in zip(self.issue_offsets, digits, strict=True):
            total += table[offset : offset + issue.cardinality][column]
        return total

    @cached_property
    def unit_utilities(self) -> FloatArray:
        """The owner's utilities rescaled to [0, 1] over the space (worst 0, best 1), in rank order."""
        span = self.best - self.worst
        return (self.utilities - self.worst) / span if span > 0 else np.ones(self.size)

    @cached_property
    def acceptable(self) -> NDArray[np.bool_]:
        """Mask of the outcomes at or above the owner's BATNA, in rank order."""
        return self.utilities >= self.reservation - TOLERANCE

    @property
    def size(self) -> int:
        """Number of outcomes."""
        return self._size

    def matches(self, space: OutcomeSpace, utility: UtilityFunction) -> bool:
        """Whether this ranking was built for exactly this space and utility object."""
        return (
            space is self.space
            and utility is self.utility
            and utility.reservation_value == self.reservation  # a BATNA changed in place
        )

    def package(self, rank: int) -> dict[str, Value]:
        """The outcome at a rank (0 = best for the owner), as a fresh package."""
        return self.packages[rank].copy()

    def plans(self, curve: Hashable) -> dict[tuple[int, int], Plan]:
        """The plans of a concession curve by (round, round budget), shared by every negotiator.

        A plan is a pure function of this ranking, the curve and the round, so every session
        with this utility and curve can share it. The caller fills the dict (see `PLANS`).

        Args:
            curve: What the plans depend on besides the ranking (the negotiator's class and
                parameters, say).
        """
        plans = self._plans.get(curve)
        if plans is None:
            if len(self._plans) >= CURVES:
                self._plans.clear()
            plans = self._plans[curve] = {}
        return plans

    def assess(self, package: Mapping[str, Value]) -> Assessment:
        """The owner's utility of a package (exactly `utility.evaluate`) and its flat option slots.

        Remembered by the package's values, so a package seen before (common: offers repeat,
        and each is assessed when read and again when answered) costs one dict lookup.

        Raises:
            ValueError: an option is not one of its issue's.
            KeyError: an issue is missing.
            TypeError: an option is not hashable.
        """
        return self.assessments[self.values_of(package)]

    def utility_at(self, rank: int) -> float:
        """The owner's utility of the outcome at a rank."""
        negated = self._negated
        return -negated[rank] if negated is not None else float(self.utilities[rank])

    def ranks_between(self, low: float, high: float) -> range:
        """Ranks of the outcomes whose utility lies in [low, high]."""
        negated = self._negated
        if negated is not None:  # bisecting a short Python list beats a numpy call
            start = bisect_left(negated, -high - TOLERANCE)
            stop = bisect_right(negated, -low + TOLERANCE)
        else:  # -(high + TOLERANCE) is -high - TOLERANCE exactly, and likewise for low
            return self._ranking.ranks_between(low - TOLERANCE, high + TOLERANCE)
        return range(start, max(start, stop))

    def lowest_rank_at_least(self, low: float) -> int:
        """Rank of the worst outcome still worth at least low (rank 0 when none is)."""
        negated = self._negated
        if negated is not None:
            return max(bisect_right(negated, -low + TOLERANCE) - 1, 0)
        return max(self._ranking.count_at_least(low - TOLERANCE) - 1, 0)

    def _marginal_values(self, flat: IndexArray, utilities: FloatArray) -> FloatArray:
        """Per option (flat layout), the owner's mean utility of the outcomes holding it."""
        size, issues = flat.shape
        totals = np.bincount(
            flat.ravel(), weights=np.repeat(utilities, issues), minlength=int(self.cardinalities.sum())
        )
        # In a full product space every option of issue i appears size / cardinality_i times.
        return totals * np.repeat(self.cardinalities, self.cardinalities) / size

    def _lean_marginal_values(self, ranking: RankedOutcomes) -> FloatArray:
        """`_marginal_values` without any (n, k) array, bit for bit.

        bincount adds each option's utilities one by one in outcome index order; counting one
        issue at a time (its option index of every outcome, in index order) performs exactly the
        same additions, with one integer column of the space's size alive at a time.
        """
        values = np.empty(ranking.size, dtype=np.float64)
        values[ranking.order] = ranking.utilities
        shape = self.space.shape
        parts: list[FloatArray] = []
        before = 1
        for cardinality in shape:
            after = ranking.size // (before * cardinality)
            options = np.arange(cardinality, dtype=np.intp)[None, :, None]
            column = np.broadcast_to(options, (before, cardinality, after)).reshape(-1)
            parts.append(np.bincount(column, weights=values, minlength=cardinality).astype(np.float64))
            del column
            before *= cardinality
        del values
        totals = np.concatenate(parts)
        return totals * np.repeat(self.cardinalities, self.cardinalities) / ranking.size

    def _digest(self, marginals: FloatArray) -> tuple[tuple[str, ...], FloatArray]:
        """Issue names by importance (spread of marginal values), and the marginals reversed into [0, 1]."""
        high = np.maximum.reduceat(marginals, self.offsets)
        low = np.minimum.reduceat(marginals, self.offsets)
        spread = high - low
        names = self.space.names
        priorities = tuple(names[i] for i in np.argsort(-spread, kind="stable").tolist())
        spans = np.repeat(spread, self.cardinalities)
        flat_spans = np.where(spans > 0, spans, 1.0)
        reversed_unit = np.where(
            spans > 0, (np.repeat(high, self.cardinalities) - marginals) / flat_spans, 0.5
        )
        return priorities, reversed_unit

    def share(self, utility: float) -> float:
        """Where a utility lies between the floor (0) and the best outcome (1)."""
        span = self.best - self.floor
        return 1.0 if span <= 0 else (utility - self.floor) / span

    def at_share(self, share: float) -> float:
        """The utility lying at a share of the way from the floor to the best outcome."""
        return self.floor + share * (self.best - self.floor)


class _Packages(dict[int, dict[str, Value]]):
    """Packages by rank, each built on first use (a dict subclass: a hit is one C lookup)."""

    def __init__(self, space: OutcomeSpace, order: NDArray[np.int64]) -> None:
        super().__init__()
        self._space = space
        self._order = order

    def __missing__(self, rank: int) -> dict[str, Value]:
        package = self[rank] = self._space.outcome(int(self._order[rank]))
        return package


class _Assessments(dict[tuple[Value, ...], Assessment]):
    """Assessments by a package's values in issue order, each computed on first use.

    A dict subclass, so a package seen before costs one C lookup and no call. Equal values find
    the same entry (2.0 for 2, say) as they find the same option, so they assess alike.
    """

    def __init__(
        self,
        space: OutcomeSpace,
        evaluate: Callable[[Mapping[str, Value]], float],
        offsets: tuple[int, ...],
    ) -> None:
        super().__init__()
        self._space = space
        self._evaluate = evaluate
        self._offsets = offsets

    def __missing__(self, values: tuple[Value, ...]) -> Assessment:
        package = dict(zip(self._space.names, values, strict=True))
        indices = self._space.to_indices(package)  # the slow path also accepts 2.0 for 2
        slots = tuple([index + offset for index, offset in zip(indices, self._offsets, strict=True)])
        assessment = (self._evaluate(package), slots)
        if len(self) >= KNOWN_PACKAGES:
            self.clear()
        self[values] = assessment
        return assessment


_shared: dict[int, RankedSpace] = {}
_shared_lock = threading.Lock()


def ranked_space(space: OutcomeSpace, utility: UtilityFunction) -> RankedSpace:
    """The ranking of space by utility, reused when this very utility object was ranked before.

    A tournament plays one scenario many times with fresh negotiators; sharing the ranking (a pure
    function of the space and the utility object) saves re-sorting the space in every session.
    Entries hold their utility, so an id is never reused while its entry lives.
    """
    if space.size > SHARED_RANKING_LIMIT:
        return RankedSpace(space, utility)
    ranked = _shared.get(id(utility))  # a single read is atomic: the lock guards the updates below
    if ranked is not None and ranked.matches(space, utility):
        return ranked
    ranked = RankedSpace(space, utility)
    with _shared_lock:
        if len(_shared) >= SHARED_RANKINGS:
            del _shared[next(iter(_shared))]
        _shared[id(utility)] = ranked
    return ranked


def slot_numerators(weights: list[float], priors: list[float], counts: list[float]) -> list[float]:
    """weight · (prior + count) per option slot: an opponent model's estimates times (1 + offers).

    (zip without strict=True: the three lists are built the same length, and checking costs
    about a tenth of this comprehension.)
    """
    return [weight * (prior + count) for weight, prior, count in zip(weights, priors, counts)]  # noqa: B905
