"""Every outcome of a space ranked by one party's utility, held as two flat arrays.

The memory-lean building block for agents on large spaces: 16 bytes per outcome (an order and the
sorted utilities), never an (n, k) index array; packages and index rows are built only for the
ranks an agent actually looks at.
"""

from __future__ import annotations

import weakref
from dataclasses import dataclass, field

import numpy as np
from numpy.typing import NDArray

from parley.domain.issues import Value
from parley.domain.space import IndexArray, OutcomeSpace
from parley.domain.utility import FloatArray, UtilityFunction

_CACHE: weakref.WeakKeyDictionary[UtilityFunction, RankedOutcomes] = weakref.WeakKeyDictionary()


@dataclass(frozen=True, eq=False)
class RankedOutcomes:
    """Outcomes sorted best first for one utility (ties keep index order, so ranks are stable).

    Attributes:
        space: The outcome space.
        order: Integer index of the outcome at each rank, shape (n,).
        utilities: Utility at each rank, non-increasing, shape (n,).
    """

    space: OutcomeSpace
    order: NDArray[np.int64]
    utilities: FloatArray
    _ascending: FloatArray = field(repr=False)

    @classmethod
    def build(cls, utility: UtilityFunction) -> RankedOutcomes:
        """Rank every outcome of utility's space (one evaluation pass and one stable sort).

        Raises:
            ValueError: the space has more outcomes than the enumeration limit.
        """
        values = utility.evaluate_space()
        order = descending_order(values)
        ranked = values[order]
        del values
        ascending = -ranked
        for array in (order, ranked, ascending):
            array.flags.writeable = False  # shared through the cache: nobody may edit it in place
        return cls(utility.space, order, ranked, ascending)

    @classmethod
    def of(cls, utility: UtilityFunction) -> RankedOutcomes:
        """The ranking of utility, built once per utility object and shared while it lives.

        Reuse across sessions (tournaments replay one scenario many times) assumes, as everywhere
        in parley, that a utility function is not modified after construction.
        """
        ranking = _CACHE.get(utility)
        if ranking is None:
            ranking = _CACHE[utility] = cls.build(utility)
        return ranking

    @property
    def size(self) -> int:
        """Number of outcomes."""
        return int(self.order.shape[0])

    @property
    def best(self) -> float:
        """The highest utility."""
        return float(self.utilities[0])

    @property
    def worst(self) -> float:
        """The lowest utility."""
        return float(self.utilities[-1])

    def utility_at(self, rank: int) -> float:
        """Utility of the outcome at a rank (0 = best)."""
        return float(self.utilities[rank])

    def index_at(self, rank: int) -> int:
        """Integer outcome index at a rank."""
        return int(self.order[rank])

    def outcome(self, rank: int) -> dict[str, Value]:
        """The package at a rank, built on demand."""
        return self.space.outcome(int(self.order[rank]))

    def indices(self, start: int, stop: int) -> IndexArray:
        """Option-index rows of the outcomes ranked start..stop-1, shape (stop - start, k)."""
        return self.space.indices_at(self.order[start:stop])

    def ranks_between(self, low: float, high: float) -> range:
        """Ranks of the outcomes whose utility lies in [low, high] (empty when none does)."""
        start = int(np.searchsorted(self._ascending, -high, side="left"))
        stop = int(np.searchsorted(self._ascending, -low, side="right"))
        return range(start, max(start, stop))

    def count_at_least(self, low: float) -> int:
        """How many outcomes are worth at least low (they are ranks 0..count-1)."""
        return int(np.searchsorted(self._ascending, -low, side="right"))

    def option_means(self) -> tuple[FloatArray, ...]:
        """Per issue, the mean utility of the outcomes holding each option (marginal values).

        Computed by reshaping the utilities to the space's shape, so no index array is built.
        """
        values = np.empty(self.size, dtype=np.float64)
        values[self.order] = self.utilities
        grid = values.reshape(self.space.shape)
        axes = range(grid.ndim)
        return tuple(grid.mean(axis=tuple(a for a in axes if a != issue)) for issue in axes)


def descending_order(values: FloatArray) -> NDArray[np.int64]:
    """Indices that sort values best first, ties in index order: `np.argsort(-values, kind="stable")`.

    Bit for bit the same permutation, about twice as fast on large arrays: numpy's vectorised
    (unstable) sort, then, only when values tie, one integer sort of (tie group, index) keys
    puts each group back in index order.
    """
    negated = -values
    size = int(negated.shape[0])
    if size < 1024 or size > _KEY_LIMIT or bool(np.isnan(negated).any()):
        return np.argsort(negated, kind="stable").astype(np.int64, copy=False)
    order = np.argsort(negated).astype(np.int64, copy=False)
    ranked = negated[order]
    group = np.empty(size, dtype=np.int64)
    group[0] = 0
    np.cumsum(ranked[1:] != ranked[:-1], out=group[1:])
    del ranked, negated
    if int(group[-1]) == size - 1:  # no ties: the order is already the stable one
        return order
    group *= size
    group += order
    del order
    group.sort()
    group %= size
    return group


_KEY_LIMIT = 3_000_000_000
"""(tie group, index) keys fit in int64 while size² does."""
