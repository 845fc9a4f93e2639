"""The outcome space: the cartesian product of issues, enumerated lazily or as numpy index arrays."""

from __future__ import annotations

import itertools
import operator
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from functools import cached_property

import numpy as np
from numpy.typing import NDArray

from parley.domain.issues import Issue, Value
from parley.errors import ScenarioError

IndexArray = NDArray[np.int64]
"""Outcomes as rows of option indices, shape (n_outcomes, n_issues)."""

DEFAULT_ENUMERATION_LIMIT = 20_000_000
"""Spaces larger than this are never materialised as one array (about 1.3 GB for 8 issues)."""


@dataclass(frozen=True)
class OutcomeSpace:
    """All packages over a tuple of issues.

    Outcomes are numbered in mixed radix (the last issue varies fastest), so an outcome, its
    row of option indices and its integer index are interchangeable.
    """

    issues: tuple[Issue, ...]
    _by_name: dict[str, int] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        if not self.issues:
            raise ScenarioError("an outcome space needs at least one issue")
        by_name = {issue.name: i for i, issue in enumerate(self.issues)}
        if len(by_name) != len(self.issues):
            raise ScenarioError(f"duplicate issue names: {[i.name for i in self.issues]}")
        object.__setattr__(self, "_by_name", by_name)

    @classmethod
    def of(cls, issues: Sequence[Issue]) -> OutcomeSpace:
        """Build a space from a sequence of issues."""
        return cls(tuple(issues))

    @cached_property
    def names(self) -> tuple[str, ...]:
        """Issue names in order."""
        return tuple(issue.name for issue in self.issues)

    @cached_property
    def shape(self) -> tuple[int, ...]:
        """Number of options per issue."""
        return tuple(issue.cardinality for issue in self.issues)

    @cached_property
    def size(self) -> int:
        """Number of outcomes (may exceed what fits in memory)."""
        return int(np.prod(np.array(self.shape, dtype=object)))

    def issue(self, name: str) -> Issue:
        """The issue called name.

        Raises:
            KeyError: no such issue.
        """
        try:
            return self.issues[self._by_name[name]]
        except KeyError:
            raise KeyError(f"no issue {name!r}; issues are {list(self.names)}") from None

    def validate(self, outcome: Mapping[str, Value]) -> None:
        """Check that outcome names every issue exactly once with a legal option.

        Raises:
            ValueError: with what was expected and what arrived.
        """
        try:  # fast path: a set comparison of the key views, in C
            same_names = outcome.keys() == self._by_name.keys()
        except AttributeError:
            same_names = False
        if not same_names:
            self._report_names(outcome)
        for issue, positions in self._position_maps:
            value = outcome[issue.name]
            if value not in positions:  # the slow path explains (or accepts 2.0 for 2)
                issue.index_of(value)

    def _report_names(self, outcome: Mapping[str, Value]) -> None:
        missing = [n for n in self.names if n not in outcome]
        extra = [n for n in outcome if n not in self._by_name]
        if missing or extra:
            raise ValueError(
                f"package must name issues {list(self.names)}; missing {missing}, unknown {extra}"
            )

    def indices_of(self, outcome: Mapping[str, Value]) -> tuple[int, ...]:
        """`validate` and `to_indices` in one pass: the option indices of a checked outcome.

        Raises:
            ValueError: with what was expected and what arrived.
        """
        # Every issue named (the values are found) and nothing else (as many names as issues):
        # two C-level checks, cheaper than comparing key sets. The engine checks every proposal.
        try:
            values = self.values_in_order(outcome)
        except (KeyError, TypeError, AttributeError):
            values = None
        if values is None or len(outcome) != len(self._positions):
            self._report_names(outcome)
            values = self.values_in_order(outcome)
        try:  # one C-level lookup per issue
            return tuple(map(dict.__getitem__, self._positions, values))
        except (KeyError, TypeError):  # the slow path explains (or accepts 2.0 for 2)
            return tuple([issue.index_of(outcome[issue.name]) for issue in self.issues])

    @cached_property
    def _positions(self) -> tuple[dict[Value, int], ...]:
        return tuple(positions for _, positions in self._position_maps)

    @cached_property
    def values_in_order(self) -> Callable[[Mapping[str, Value]], tuple[Value, ...]]:
        """A function giving an outcome's values in issue order, as a tuple (looked up in C).

        The tuple is a cheap key for per-package caches; equal options (2.0 and 2) give equal keys.
        """
        if len(self.issues) == 1:
            name = self.issues[0].name
            return lambda outcome: (outcome[name],)
        return operator.itemgetter(*self.names)

    def to_indices(self, outcome: Mapping[str, Value]) -> tuple[int, ...]:
        """Option indices of a (valid) outcome."""
        try:
            return tuple([positions[outcome[issue.name]] for issue, positions in self._position_maps])
        except KeyError:  # a missing issue or an option spelled differently: the slow path decides
            return tuple([issue.index_of(outcome[issue.name]) for issue in self.issues])

    @cached_property
    def _position_maps(self) -> tuple[tuple[Issue, dict[Value, int]], ...]:
        # Option → position per issue, looked up inline by the per-move hot paths above.
        return tuple((issue, {value: i for i, value in enumerate(issue.values)}) for issue in self.issues)

    def from_indices(self, indices: Sequence[int | np.integer] | NDArray[np.integer]) -> dict[str, Value]:
        """The outcome for a row of option indices."""
        return {issue.name: issue.values[int(i)] for issue, i in zip(self.issues, indices, strict=True)}

    def index(self, outcome: Mapping[str, Value]) -> int:
        """Integer index of an outcome in mixed radix."""
        index = 0
        for issue in self.issues:  # mixed radix by hand: far cheaper than numpy for one outcome
            index = index * issue.cardinality + issue.index_of(outcome[issue.name])
        return index

    def outcome(self, index: int) -> dict[str, Value]:
        """The outcome with the given integer index (built without touching the enumeration cache)."""
        index = operator.index(index)
        if not 0 <= index < self.size:
            raise IndexError(f"outcome index {index} outside 0..{self.size - 1}")
        positions: list[int] = []
        for cardinality in reversed(self.shape):
            index, position = divmod(index, cardinality)
            positions.append(position)
        return self.from_indices(positions[::-1])

    def __iter__(self) -> Iterator[dict[str, Value]]:
        """Every outcome, lazily, in index order."""
        for combo in itertools.product(*(issue.values for issue in self.issues)):
            yield dict(zip(self.names, combo, strict=True))

    def __len__(self) -> int:
        return self.size

    def fits_in_memory(self, limit: int = DEFAULT_ENUMERATION_LIMIT) -> bool:
        """Whether the whole space can be enumerated as one index array."""
        return self.size <= limit

    def enumerate_indices(self, limit: int = DEFAULT_ENUMERATION_LIMIT) -> IndexArray:
        """All outcomes as an (n, k) array of option indices, cached after the first call.

        The array is shared by everyone holding the space, so it is read-only.

        Raises:
            ValueError: the space has more than limit outcomes.
        """
        if self.size > limit:
            raise ValueError(
                f"outcome space has {self.size:,} outcomes, more than the enumeration limit {limit:,}"
            )
        return self._all_indices

    @cached_property
    def _all_indices(self) -> IndexArray:
        grids = np.indices(self.shape, dtype=np.int64 if self.size > 2**31 else np.int32)
        indices = grids.reshape(len(self.shape), -1).T.astype(np.int64, copy=False)
        indices.flags.writeable = False  # shared by every user of the space: nobody may edit it in place
        return indices

    def indices_at(self, flat: NDArray[np.integer]) -> IndexArray:
        """Option-index rows of the outcomes with the given integer indices, shape (m,) → (m, k).

        Memory-lean companion of `enumerate_indices`: only the requested rows are built.
        """
        flat = np.asarray(flat)
        if flat.size and (flat.min() < 0 or flat.max() >= self.size):
            raise IndexError(f"outcome indices must lie in 0..{self.size - 1}")
        return np.stack(np.unravel_index(flat, self.shape), axis=-1).astype(np.int64, copy=False)

    def index_chunks(self, chunk_size: int = 1 << 16) -> Iterator[IndexArray]:
        """Every outcome as option-index rows, chunk_size rows at a time, in index order.

        Lets a caller sweep a large space holding one chunk, never the whole (n, k) array.
        """
        if "_all_indices" in self.__dict__:  # already enumerated: slicing it costs nothing
            everything = self._all_indices
            for start in range(0, self.size, chunk_size):
                yield everything[start : start + chunk_size]
            return
        for start in range(0, self.size, chunk_size):
            yield self.indices_at(np.arange(start, min(start + chunk_size, self.size), dtype=np.int64))

    def sample_indices(self, count: int, rng: np.random.Generator) -> IndexArray:
        """count outcomes drawn uniformly (with replacement) as index rows."""
        columns = [rng.integers(0, n, size=count) for n in self.shape]
        return np.stack(columns, axis=1).astype(np.int64)
