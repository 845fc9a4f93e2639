"""A check shared by the mediator tests: whether a view reaches a utility function anywhere."""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping

from parley.domain.utility import UtilityFunction
from parley.protocol.view import Record


def holds_a_utility(value: object, depth: int = 0) -> bool:
    """Whether value reaches a utility function through fields, mappings or sequences."""
    if depth > 6:
        return False
    if isinstance(value, UtilityFunction):
        return True
    if isinstance(value, Mapping):
        return any(holds_a_utility(v, depth + 1) for v in value.values())  # pyright: ignore[reportUnknownVariableType, reportUnknownArgumentType]
    if isinstance(value, list | tuple | set | frozenset | Record):
        return any(holds_a_utility(v, depth + 1) for v in value)  # pyright: ignore[reportUnknownVariableType, reportUnknownArgumentType]
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return any(holds_a_utility(getattr(value, f.name), depth + 1) for f in dataclasses.fields(value))
    return False
