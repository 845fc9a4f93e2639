"""Private utility functions: linear-additive, explicit table, ranked preferences, and linear-additive
with a bonus on a set of outcomes.

Each evaluates one outcome or many at once (rows of option indices, vectorised with numpy),
carries its owner's reservation value (the BATNA's worth) and time-discount factor, and can be
normalised to [0, 1].

Time discounting follows GENIUS/ANAC: a party with discount factor d in (0, 1] values a package
worth u at normalised time t in [0, 1] at u·d^t, and its reservation value r at r·d^t (d = 1: no
discounting). The undiscounted `evaluate` is what analyses (Pareto frontier, Nash point) use, as in
GENIUS; `discounted` applies the factor where an agreement or a no-deal is scored.

The built-in utilities are immutable: frozen dataclasses whose mappings are read-only views and
whose numpy arrays are not writeable. The engine hands a party's own utility object to its
negotiator in every view, and the same object is shared by every game of a scenario (and by the
rankings cached for it), so a negotiator must not be able to change it: assignments raise
`dataclasses.FrozenInstanceError`, item assignments raise `TypeError` or `ValueError`. Copies
(`affine`, `normalized`, `with_reservation`, `dataclasses.replace`, pickling, `copy.deepcopy`)
are built through the constructor, so they are frozen too.
"""

from __future__ import annotations

import math
from abc import ABC, abstractmethod
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from functools import cached_property
from types import MappingProxyType
from typing import Any, Self

import numpy as np
from numpy.typing import NDArray

from parley.domain.issues import Outcome, Value
from parley.domain.space import DEFAULT_ENUMERATION_LIMIT, IndexArray, OutcomeSpace
from parley.errors import ScenarioError

FloatArray = NDArray[np.float64]


def _frozen_array(values: Any) -> FloatArray:
    """A float copy of values that nobody can write to (the caller's array stays its own)."""
    array = np.array(values, dtype=np.float64)
    array.flags.writeable = False
    return array


def _frozen_floats(mapping: Mapping[str, float]) -> Mapping[str, float]:
    return MappingProxyType({str(name): float(value) for name, value in mapping.items()})


def _frozen_lists(mapping: Mapping[str, Sequence[Any]]) -> Mapping[str, tuple[Any, ...]]:
    return MappingProxyType({str(name): tuple(values) for name, values in mapping.items()})


def _set(instance: object, name: str, value: object) -> None:
    """Set a field of a frozen dataclass while it is being built."""
    object.__setattr__(instance, name, value)


def checked_discount(discount: float) -> float:
    """A time-discount factor as a float in (0, 1].

    Raises:
        ScenarioError: the factor is not a number in (0, 1] (1 means no discounting).
    """
    try:
        value = float(discount)
    except (TypeError, ValueError):
        raise ScenarioError(
            f"expected a discount factor in (0, 1], got {discount!r}", field="discount"
        ) from None
    if not 0.0 < value <= 1.0:  # (also rejects NaN)
        raise ScenarioError(
            f"expected a discount factor in (0, 1] (1: no discounting), got {discount!r}", field="discount"
        )
    return value


def _mixed_radix(space: OutcomeSpace) -> NDArray[np.int64]:
    """Per issue, the stride of its option index in the space's flat index (rows @ radix → index)."""
    shape = np.array(space.shape, dtype=np.int64)
    return np.concatenate([np.cumprod(shape[::-1])[::-1][1:], [1]]).astype(np.int64)


def normalised_time(round_number: int, max_rounds: int) -> float:
    """GENIUS's normalised time of a round: round / max_rounds, clamped to [0, 1].

    Args:
        round_number: The round (1-based) in which the session was decided.
        max_rounds: The session's round bound (its deadline).
    """
    if max_rounds <= 0:
        return 1.0
    return min(1.0, max(0.0, round_number / max_rounds))


class UtilityFunction(ABC):
    """How one party scores packages. Private to its owner: never placed in another party's view."""

    space: OutcomeSpace
    reservation_value: float
    discount: float = 1.0
    """Time-discount factor d in (0, 1]: u·d^t at normalised time t (1: no discounting)."""

    @abstractmethod
    def evaluate_indices(self, indices: IndexArray) -> FloatArray:
        """Utilities of many outcomes given as rows of option indices, shape (n, k) → (n,)."""

    @abstractmethod
    def bounds(self) -> tuple[float, float]:
        """The lowest and highest utility over the whole space (exact, without enumerating)."""

    @abstractmethod
    def affine(self, scale: float, shift: float) -> Self:
        """The utility u' = scale·u + shift (reservation value transformed alike)."""

    def evaluate(self, outcome: Outcome) -> float:
        """Utility of one full package.

        Raises:
            ValueError: the package is not an outcome of this space.
        """
        row = np.array([self.space.to_indices(outcome)], dtype=np.int64)
        return float(self.evaluate_indices(row)[0])

    def evaluate_space(self) -> FloatArray:
        """Utilities of every outcome in index order, as one float array of shape (n,).

        Memory-lean: the space is swept in chunks, so the (n, k) index array is never built
        (subclasses with more structure compute it directly). The space must fit in memory.

        Raises:
            ValueError: the space has more outcomes than the enumeration limit.
        """
        space = self.space
        if not space.fits_in_memory():
            raise ValueError(
                f"outcome space has {space.size:,} outcomes, more than the enumeration limit "
                f"{DEFAULT_ENUMERATION_LIMIT:,}"
            )
        result = np.empty(space.size, dtype=np.float64)
        start = 0
        for chunk in space.index_chunks():
            result[start : start + chunk.shape[0]] = self.evaluate_indices(chunk)
            start += chunk.shape[0]
        return result

    def is_acceptable(self, outcome: Outcome) -> bool:
        """Whether the package is at least as good as walking away (the BATNA)."""
        return self.evaluate(outcome) >= self.reservation_value - 1e-9

    def normalized(self) -> Self:
        """This utility rescaled so the worst outcome is 0 and the best is 1."""
        low, high = self.bounds()
        if high - low <= 0:
            return self.affine(0.0, 1.0)
        return self.affine(1.0 / (high - low), -low / (high - low))

    def with_reservation(self, reservation_value: float) -> Self:
        """A copy with a different reservation value."""
        copy = self.affine(1.0, 0.0)
        _set(copy, "reservation_value", float(reservation_value))  # (a fresh object, frozen or not)
        return copy

    def with_discount(self, discount: float) -> Self:
        """A copy with a different time-discount factor (the utilities themselves unchanged).

        Raises:
            ScenarioError: the factor is not in (0, 1].
        """
        factor = checked_discount(discount)
        copy = self.affine(1.0, 0.0)
        _set(copy, "discount", factor)  # (a fresh object, frozen or not)
        return copy

    def discounted(self, utility: float, time: float) -> float:
        """utility·d^t: a utility (or the reservation value) as worth at normalised time t.

        Args:
            utility: An undiscounted utility of this party.
            time: Normalised time in [0, 1] (clamped), e.g. `normalised_time(round, max_rounds)`.
        """
        if self.discount == 1.0:
            return float(utility)
        return float(utility) * self.discount ** min(1.0, max(0.0, float(time)))


@dataclass(eq=False, frozen=True)
class LinearAdditiveUtility(UtilityFunction):
    """u(x) = offset + Σ_i weight_i · value_i(x_i), with one value table per issue.

    Attributes:
        space: The outcome space.
        weights: Weight per issue name (missing issues weigh 0); kept as a read-only mapping.
        values: Per issue, the value of each option in the issue's option order; kept as a
            read-only mapping of tuples.
        reservation_value: Utility of walking away (the BATNA).
        offset: Constant added to every outcome.
        discount: Time-discount factor in (0, 1] (1: none); see the module docstring.
    """

    space: OutcomeSpace
    weights: Mapping[str, float]
    values: Mapping[str, Sequence[float]]
    reservation_value: float = 0.0
    offset: float = 0.0
    discount: float = 1.0
    _tables: tuple[FloatArray, ...] = field(init=False, repr=False)
    _lookups: tuple[tuple[str, dict[Value, float]], ...] = field(init=False, repr=False)

    def __post_init__(self) -> None:
        unknown = sorted(set(self.weights) | set(self.values) - set(self.space.names))
        unknown = [name for name in unknown if name not in self.space.names]
        if unknown:
            raise ScenarioError(f"utility names issues that do not exist: {unknown}")
        tables: list[FloatArray] = []
        for issue in self.space.issues:
            table = np.asarray(self.values.get(issue.name, [0.0] * issue.cardinality), dtype=np.float64)
            if table.shape != (issue.cardinality,):
                raise ScenarioError(
                    f"issue {issue.name!r} has {issue.cardinality} options but {table.size} values"
                )
            with np.errstate(over="ignore", invalid="ignore"):
                weighted = table * float(self.weights.get(issue.name, 0.0))
            if not np.isfinite(weighted).all():
                raise ScenarioError(
                    f"issue {issue.name!r}: its weight times its values is not a finite number "
                    f"(weight {self.weights.get(issue.name, 0.0)!r}); use weights and values of an "
                    "ordinary size"
                )
            tables.append(_frozen_array(weighted))
        with np.errstate(over="ignore", invalid="ignore"):
            span = float(self.offset) + sum(float(np.abs(t).max(initial=0.0)) for t in tables)
        if not math.isfinite(span):
            raise ScenarioError(
                "the utility's weights and values add up beyond a finite number; scale them down"
            )
        _set(self, "_tables", tuple(tables))
        # (Plain dicts, private: `evaluate` looks them up on every call, and a read-only proxy
        # costs about a fifth more per evaluation.)
        _set(
            self,
            "_lookups",
            tuple(
                (issue.name, dict(zip(issue.values, table.tolist(), strict=True)))
                for issue, table in zip(self.space.issues, tables, strict=True)
            ),
        )
        _set(self, "weights", _frozen_floats(self.weights))
        _set(self, "values", _frozen_lists(self.values))
        _set(self, "reservation_value", float(self.reservation_value))
        _set(self, "offset", float(self.offset))
        _set(self, "discount", checked_discount(self.discount))

    def __reduce__(self) -> tuple[Any, ...]:
        # Rebuilt through the constructor, so a copy or an unpickled utility is frozen again.
        values = {name: list(table) for name, table in self.values.items()}
        arguments = (
            self.space,
            dict(self.weights),
            values,
            self.reservation_value,
            self.offset,
            self.discount,
        )
        return (type(self), arguments)

    def with_discount(self, discount: float) -> Self:
        """A copy with a different time-discount factor (weights and values kept as given)."""
        return replace(self, discount=checked_discount(discount))

    def with_reservation(self, reservation_value: float) -> Self:
        """A copy with a different reservation value (weights and values kept as given)."""
        return replace(self, reservation_value=float(reservation_value))

    @classmethod
    def from_tables(
        cls, space: OutcomeSpace, tables: Mapping[str, Sequence[float]], reservation_value: float = 0.0
    ) -> LinearAdditiveUtility:
        """A linear-additive utility whose tables already include the weights."""
        return cls(space, {name: 1.0 for name in tables}, tables, reservation_value)

    @property
    def weighted_tables(self) -> tuple[FloatArray, ...]:
        """Per issue, weight × value of each option (what solvers optimise over)."""
        return self._tables

    def evaluate(self, outcome: Outcome) -> float:
        # Plain dict lookups of Python floats: the same sums as the tables, without numpy scalars.
        total = self.offset
        try:
            for name, lookup in self._lookups:
                total += lookup[outcome[name]]
        except (KeyError, TypeError):
            return self._evaluate_checked(outcome)
        return total

    def _evaluate_checked(self, outcome: Outcome) -> float:
        total = self.offset
        for issue, table in zip(self.space.issues, self._tables, strict=True):
            total += float(table[issue.index_of(outcome[issue.name])])
        return total

    def evaluate_indices(self, indices: IndexArray) -> FloatArray:
        result = np.full(indices.shape[0], self.offset, dtype=np.float64)
        for column, table in enumerate(self._tables):
            result += table[indices[:, column]]
        return result

    def evaluate_space(self) -> FloatArray:
        """Utilities of every outcome in index order, by broadcasting the per-issue tables.

        Sums in the same order as `evaluate_indices` (offset, then issue by issue), so the
        values are bit-identical, but no index array is ever built: peak memory is about two
        float arrays of the space's size.
        """
        if not self.space.fits_in_memory():
            raise ValueError(
                f"outcome space has {self.space.size:,} outcomes, more than the enumeration limit "
                f"{DEFAULT_ENUMERATION_LIMIT:,}"
            )
        total: FloatArray = np.full(1, self.offset, dtype=np.float64)
        for table in self._tables:
            total = np.add.outer(total, table).ravel()
        return total

    def bounds(self) -> tuple[float, float]:
        low = self.offset + sum(float(t.min()) for t in self._tables)
        high = self.offset + sum(float(t.max()) for t in self._tables)
        return low, high

    def affine(self, scale: float, shift: float) -> Self:
        scaled = {
            issue.name: (table * scale).tolist()
            for issue, table in zip(self.space.issues, self._tables, strict=True)
        }
        return replace(
            self,
            weights={name: 1.0 for name in scaled},
            values=scaled,
            offset=self.offset * scale + shift,
            reservation_value=self.reservation_value * scale + shift,
        )


@dataclass(eq=False, frozen=True)
class TableUtility(UtilityFunction):
    """An explicit utility per outcome, for spaces small enough to list.

    Attributes:
        space: The outcome space.
        table: Utility of each outcome in the space's index order (a read-only copy of the array
            given).
        reservation_value: Utility of walking away.
        discount: Time-discount factor in (0, 1] (1: none); see the module docstring.
    """

    space: OutcomeSpace
    table: FloatArray
    reservation_value: float = 0.0
    discount: float = 1.0

    def __post_init__(self) -> None:
        table = _frozen_array(self.table)
        if table.shape != (self.space.size,):
            raise ScenarioError(
                f"utility table has {table.size} entries for a space of {self.space.size} outcomes"
            )
        _set(self, "table", table)
        _set(self, "reservation_value", float(self.reservation_value))
        _set(self, "discount", checked_discount(self.discount))

    def __reduce__(self) -> tuple[Any, ...]:
        return (type(self), (self.space, self.table, self.reservation_value, self.discount))

    @classmethod
    def from_mapping(
        cls,
        space: OutcomeSpace,
        utilities: Mapping[tuple[Value, ...], float],
        *,
        default: float = 0.0,
        reservation_value: float = 0.0,
    ) -> TableUtility:
        """Build from {(value per issue, in issue order): utility}; unlisted outcomes get default."""
        table = np.full(space.size, default, dtype=np.float64)
        for values, utility in utilities.items():
            table[space.index(dict(zip(space.names, values, strict=True)))] = utility
        return cls(space, table, reservation_value)

    @cached_property
    def _radix(self) -> NDArray[np.int64]:
        return _mixed_radix(self.space)

    def evaluate_indices(self, indices: IndexArray) -> FloatArray:
        return self.table[indices @ self._radix]

    def evaluate_space(self) -> FloatArray:
        """A copy of the table (it already lists every outcome in index order)."""
        return self.table.copy()

    def bounds(self) -> tuple[float, float]:
        return float(self.table.min()), float(self.table.max())

    def affine(self, scale: float, shift: float) -> Self:
        return replace(
            self, table=self.table * scale + shift, reservation_value=self.reservation_value * scale + shift
        )


@dataclass(eq=False, frozen=True)
class AdditiveBonusUtility(UtilityFunction):
    """u(x) = base(x) + bonus · [x earns the bonus]: a linear-additive utility plus a fixed bonus on a
    set of outcomes.

    For rewards that depend on the deal as a whole rather than issue by issue, such as the +10 that
    LLM-Deliberation's p1 earns on every deal all the other parties agree with. `evaluate`,
    `evaluate_indices`, `evaluate_space` and `bounds` are exact, bonus included: they are what a
    party's acceptance, the analyses and the metrics use. `additive` is the linear-additive part
    alone, for components that reason issue by issue (per-topic positions, solvers) and so cannot
    see the bonus; they must say so where they use it.

    The bonus region is listed outcome by outcome, so the space must be small enough to list
    (`OutcomeSpace.fits_in_memory`).

    Attributes:
        space: The outcome space.
        base: The linear-additive part. It is rebuilt with this utility's reservation value and
            discount, so `additive` scores exactly what this utility scores off the region.
        bonus: Points added on the region (a finite number; may be negative).
        region: Per outcome in the space's index order, whether it earns the bonus (a read-only
            boolean copy of the array given).
        reservation_value: Utility of walking away (the BATNA), bonus or not.
        discount: Time-discount factor in (0, 1] (1: none); see the module docstring.
    """

    space: OutcomeSpace
    base: LinearAdditiveUtility
    bonus: float
    region: NDArray[np.bool_]
    reservation_value: float = 0.0
    discount: float = 1.0

    def __post_init__(self) -> None:
        if self.base.space != self.space:
            raise ScenarioError("the bonus utility's linear-additive part is over a different outcome space")
        bonus = float(self.bonus)
        if not math.isfinite(bonus):
            raise ScenarioError(f"expected a finite bonus, got {self.bonus!r}", field="bonus")
        _set(self, "bonus", bonus)
        _set(self, "region", _frozen_region(self.region, self.space))
        _set(self, "reservation_value", float(self.reservation_value))
        _set(self, "discount", checked_discount(self.discount))
        if (self.base.reservation_value, self.base.discount) != (self.reservation_value, self.discount):
            _set(
                self,
                "base",
                replace(self.base, reservation_value=self.reservation_value, discount=self.discount),
            )

    def __reduce__(self) -> tuple[Any, ...]:
        arguments = (self.space, self.base, self.bonus, self.region, self.reservation_value, self.discount)
        return (type(self), arguments)

    @property
    def additive(self) -> LinearAdditiveUtility:
        """The linear-additive part without the bonus (same reservation value and discount)."""
        return self.base

    def earns_bonus(self, outcome: Outcome) -> bool:
        """Whether the package is in the bonus region.

        Raises:
            ValueError: the package is not an outcome of this space.
        """
        try:
            return bool(self.region[self.space.index(outcome)])
        except KeyError as error:
            raise ValueError(f"package does not name issue {error}") from None

    @cached_property
    def _radix(self) -> NDArray[np.int64]:
        return _mixed_radix(self.space)

    def evaluate(self, outcome: Outcome) -> float:
        value = self.base.evaluate(outcome)
        return value + self.bonus if self.earns_bonus(outcome) else value

    def evaluate_indices(self, indices: IndexArray) -> FloatArray:
        earned = self.region[indices @ self._radix]
        return self.base.evaluate_indices(indices) + np.where(earned, self.bonus, 0.0)

    def evaluate_space(self) -> FloatArray:
        """The linear-additive part over the whole space, plus the bonus on the region."""
        return self.base.evaluate_space() + np.where(self.region, self.bonus, 0.0)

    @cached_property
    def _bounds(self) -> tuple[float, float]:
        values = self.evaluate_space()
        return float(values.min()), float(values.max())

    def bounds(self) -> tuple[float, float]:
        """Exact lowest and highest utility, bonus included (one sweep of the space, then cached)."""
        return self._bounds

    def affine(self, scale: float, shift: float) -> Self:
        return replace(
            self,
            base=self.base.affine(scale, shift),
            bonus=self.bonus * scale,
            reservation_value=self.reservation_value * scale + shift,
        )

    def with_reservation(self, reservation_value: float) -> Self:
        """A copy with a different reservation value (its linear-additive part alike)."""
        return replace(self, reservation_value=float(reservation_value))

    def with_discount(self, discount: float) -> Self:
        """A copy with a different time-discount factor (its linear-additive part alike).

        Raises:
            ScenarioError: the factor is not in (0, 1].
        """
        return replace(self, discount=checked_discount(discount))


def _frozen_region(region: Any, space: OutcomeSpace) -> NDArray[np.bool_]:
    """A read-only boolean copy of a bonus region, one entry per outcome of space.

    Raises:
        ScenarioError: not one entry per outcome, or entries that are neither booleans nor 0/1.
    """
    array = np.array(region)
    if array.shape != (space.size,):
        raise ScenarioError(
            f"bonus region has {array.size} entries for a space of {space.size} outcomes", field="region"
        )
    if array.dtype != np.bool_:
        if array.dtype.kind not in "iu" or not np.isin(array, (0, 1)).all():
            raise ScenarioError("expected the bonus region as booleans (or 0 and 1)", field="region")
        array = array.astype(np.bool_)
    array.flags.writeable = False
    return array


DEFAULT_RANK_SCORES: tuple[float, ...] = (1.0, 0.6, 0.3)
"""Worth of a first, second and third choice; unranked options are worth 0."""


@dataclass(eq=False, frozen=True)
class RankedPreferenceUtility(UtilityFunction):
    """Preferences stated as ranked choices per issue, as in mediation briefs.

    Per issue a party names its first, second, third ... choice and options it finds unacceptable.
    u(x) = Σ_i weight_i · score(rank of x_i), where score follows rank_scores, an unranked option
    scores 0 and an unacceptable one scores unacceptable_score, or less when needed so that any
    package containing an unacceptable option is below the BATNA (reservation value, default 0).

    Attributes:
        space: The outcome space.
        rankings: Per issue, options from most to least preferred (ties not allowed).
        unacceptable: Per issue, options the party rejects outright.
        weights: Importance per issue (default 1 each).
        rank_scores: Worth of the 1st, 2nd, ... choice.
        unacceptable_score: Worth of an unacceptable option at most (lowered when needed so it dominates).
        reservation_value: Utility of walking away.
        discount: Time-discount factor in (0, 1] (1: none); see the module docstring.
    """

    space: OutcomeSpace
    rankings: Mapping[str, Sequence[Value]]
    unacceptable: Mapping[str, Sequence[Value]] = field(default_factory=lambda: {})
    weights: Mapping[str, float] = field(default_factory=lambda: {})
    rank_scores: tuple[float, ...] = DEFAULT_RANK_SCORES
    unacceptable_score: float = -1.0
    reservation_value: float = 0.0
    discount: float = 1.0
    _inner: LinearAdditiveUtility = field(init=False, repr=False)

    def __post_init__(self) -> None:
        unknown = sorted({*self.rankings, *self.unacceptable, *self.weights} - set(self.space.names))
        if unknown:
            raise ScenarioError(
                f"preferences name issues that do not exist: {unknown}; issues are {list(self.space.names)}",
                field=f"preferences.{unknown[0]}",
            )
        tables: dict[str, list[float]] = {}
        for issue in self.space.issues:
            table = [0.0] * issue.cardinality
            for rank, value in enumerate(self.rankings.get(issue.name, ())):
                table[self._position(issue.name, value)] = self._rank_score(rank)
            tables[issue.name] = table
        weights = {name: float(self.weights.get(name, 1.0)) for name in self.space.names}
        best = sum(max(0.0, weights[name] * max(table)) for name, table in tables.items())
        for issue in self.space.issues:
            for value in self.unacceptable.get(issue.name, ()):
                worth = self._unacceptable_worth(weights[issue.name], best)
                tables[issue.name][self._position(issue.name, value)] = worth
        _set(self, "rankings", _frozen_lists(self.rankings))
        _set(self, "unacceptable", _frozen_lists(self.unacceptable))
        _set(self, "weights", _frozen_floats(self.weights))
        _set(self, "rank_scores", tuple(float(score) for score in self.rank_scores))
        _set(self, "discount", checked_discount(self.discount))
        inner = LinearAdditiveUtility(
            self.space, weights, tables, self.reservation_value, discount=self.discount
        )
        _set(self, "_inner", inner)

    def __reduce__(self) -> tuple[Any, ...]:
        # Through the constructor (frozen again), then the inner utility, which `affine` rescales.
        arguments = (
            self.space,
            {name: list(values) for name, values in self.rankings.items()},
            {name: list(values) for name, values in self.unacceptable.items()},
            dict(self.weights),
            self.rank_scores,
            self.unacceptable_score,
            self.reservation_value,
            self.discount,
        )
        return (_rebuild_ranked, (arguments, self._inner))

    def _unacceptable_worth(self, weight: float, best: float) -> float:
        # Low enough that even the best of everything else cannot lift the package to the BATNA.
        if weight <= 0:
            return self.unacceptable_score
        return min(self.unacceptable_score, (self.reservation_value - best) / weight - 1.0)

    def _position(self, issue_name: str, value: Value) -> int:
        try:
            return self.space.issue(issue_name).index_of(value)
        except (KeyError, ValueError) as error:
            raise ScenarioError(str(error), field=f"preferences.{issue_name}") from None

    def _rank_score(self, rank: int) -> float:
        if rank < len(self.rank_scores):
            return self.rank_scores[rank]
        return self.rank_scores[-1] * 0.5 ** (rank - len(self.rank_scores) + 1)

    @property
    def linear(self) -> LinearAdditiveUtility:
        """The equivalent linear-additive utility (for solvers)."""
        return self._inner

    def rank_of(self, issue_name: str, value: Value) -> int | None:
        """0 for a first choice, 1 for a second ...; None when unranked."""
        ranking = list(self.rankings.get(issue_name, ()))
        return ranking.index(value) if value in ranking else None

    def is_unacceptable(self, issue_name: str, value: Value) -> bool:
        """Whether the party rejects this option outright."""
        return value in self.unacceptable.get(issue_name, ())

    def evaluate(self, outcome: Outcome) -> float:
        return self._inner.evaluate(outcome)

    def evaluate_indices(self, indices: IndexArray) -> FloatArray:
        return self._inner.evaluate_indices(indices)

    def evaluate_space(self) -> FloatArray:
        return self._inner.evaluate_space()

    def bounds(self) -> tuple[float, float]:
        return self._inner.bounds()

    def affine(self, scale: float, shift: float) -> Self:
        copy = replace(self, reservation_value=self.reservation_value * scale + shift)
        _set(copy, "_inner", self._inner.affine(scale, shift))
        return copy

    def with_discount(self, discount: float) -> Self:
        """A copy with a different time-discount factor (its inner linear utility alike)."""
        factor = checked_discount(discount)
        copy = replace(self, discount=factor)
        _set(copy, "_inner", self._inner.with_discount(factor))
        return copy


def _rebuild_ranked(arguments: tuple[Any, ...], inner: LinearAdditiveUtility) -> RankedPreferenceUtility:
    """Unpickle (or copy) a ranked utility: built as given, with the inner utility it had."""
    utility = RankedPreferenceUtility(*arguments)
    _set(utility, "_inner", inner)
    return utility
