"""Negotiation issues: named sets of ordered options (categorical values or integer ranges)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from parley.errors import ScenarioError

Value = str | int | float
"""One option of an issue: a label, a quantity or an amount."""

Outcome = Mapping[str, Value]
"""A full package: every issue name mapped to one of its options."""


@dataclass(frozen=True, slots=True)
class Issue:
    """One negotiable issue with a finite, ordered list of options.

    Attributes:
        name: Unique issue name within a scenario (used as the key in outcomes).
        values: The options, in their natural order (low to high for numeric issues).
        unit: Optional unit label for display ("USD", "days", "units").
    """

    name: str
    values: tuple[Value, ...]
    unit: str = ""
    _positions: dict[Value, int] = field(init=False, repr=False, compare=False, hash=False)

    def __post_init__(self) -> None:
        if not self.name:
            raise ScenarioError("an issue needs a non-empty name")
        if not self.values:
            raise ScenarioError(f"issue {self.name!r} has no options")
        positions = {value: i for i, value in enumerate(self.values)}
        if len(positions) != len(self.values):
            raise ScenarioError(f"issue {self.name!r} lists the same option twice: {list(self.values)}")
        object.__setattr__(self, "_positions", positions)

    @classmethod
    def integer_range(cls, name: str, low: int, high: int, *, step: int = 1, unit: str = "") -> Issue:
        """An issue whose options are the integers low, low+step, ..., high (inclusive)."""
        if high < low or step <= 0:
            raise ScenarioError(f"issue {name!r}: empty range {low}..{high} (step {step})")
        return cls(name, tuple(range(low, high + 1, step)), unit)

    @classmethod
    def options(cls, name: str, values: Sequence[Value], *, unit: str = "") -> Issue:
        """An issue over the given ordered options."""
        return cls(name, tuple(values), unit)

    @property
    def cardinality(self) -> int:
        """Number of options."""
        return len(self.values)

    @property
    def is_numeric(self) -> bool:
        """True when every option is a number (so amounts can be compared)."""
        return all(isinstance(v, int | float) and not isinstance(v, bool) for v in self.values)

    def index_of(self, value: Value) -> int:
        """Position of an option.

        Raises:
            ValueError: the value is not one of this issue's options.
        """
        position = self._positions.get(value)
        if position is None and isinstance(value, float) and value.is_integer():
            position = self._positions.get(int(value))
        if position is None:
            raise ValueError(
                f"{value!r} is not an option of issue {self.name!r} (options: {list(self.values)})"
            )
        return position

    def contains(self, value: Value) -> bool:
        """Whether value is one of the options."""
        try:
            self.index_of(value)
        except ValueError:
            return False
        return True
