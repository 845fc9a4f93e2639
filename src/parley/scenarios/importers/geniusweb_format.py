"""The GeniusWeb JSON format's shared pieces: strict, bounded reading, its keys, and how GeniusWeb
scores a number value and a bid (used by the importer in `geniusweb` and the writer in
`geniusweb_export`)."""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from decimal import ROUND_HALF_UP, Decimal
from pathlib import Path
from typing import Any, Literal

from parley.domain.issues import Value
from parley.domain.utility import LinearAdditiveUtility
from parley.errors import ScenarioError
from parley.scenarios.importers.additive import read_bounded

PROFILE_KEY = "LinearAdditiveUtilitySpace"
DISCRETE_KEYS = ("DiscreteValueSetUtilities", "discreteutils")
NUMBER_KEYS = ("NumberValueSetUtilities", "numberutils")
EIGHT_DECIMALS = Decimal("1.00000000")

IssueKind = Literal["discrete", "number"]


def _no_duplicates(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    result: dict[str, Any] = {}
    for key, value in pairs:
        if key in result:
            raise ValueError(f"duplicate key {key!r}")
        result[key] = value
    return result


def _no_constants(name: str) -> Any:
    raise ValueError(f"{name} is not a JSON number")


def read_json(path: Path) -> Any:
    """A file's JSON (numbers with a fraction as exact decimals), strictly and boundedly parsed.

    Raises:
        ScenarioError: missing, too large, not UTF-8, malformed, too deep, duplicate keys or NaN.
    """
    data = read_bounded(path)
    source = str(path)
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as error:
        raise ScenarioError(f"not UTF-8 text ({error.reason} at byte {error.start})", source=source) from None
    try:
        return json.loads(
            text, parse_float=Decimal, parse_constant=_no_constants, object_pairs_hook=_no_duplicates
        )
    except RecursionError:  # (the decoder refuses nesting deeper than the interpreter's limit)
        raise ScenarioError("invalid JSON: nesting too deep", source=source) from None
    except ValueError as error:
        raise ScenarioError(f"invalid JSON: {error}", source=source) from None


def plain_number(value: Decimal) -> int | float:
    """A decimal as parley holds an option: an int when it is whole, else a float."""
    return int(value) if value == value.to_integral_value() else float(value)


def range_options(exact: Sequence[Decimal]) -> list[int | float]:
    """A range's values as parley options: all ints when every one is whole, else all floats."""
    if all(value == value.to_integral_value() for value in exact):
        return [int(value) for value in exact]
    return [float(value) for value in exact]


def number_utility(
    low: Decimal, low_utility: Decimal, high: Decimal, high_utility: Decimal, x: Decimal
) -> float:
    """GeniusWeb's utility of x under NumberValueSetUtilities: linear from (low, low_utility) to
    (high, high_utility), 0 outside [low, high], rounded half-up to 8 decimals."""
    if x < low or x > high:
        return 0.0
    value = low_utility + (high_utility - low_utility) * (x - low) / (high - low)
    return float(value.quantize(EIGHT_DECIMALS, rounding=ROUND_HALF_UP))


def bid_utility(utility: LinearAdditiveUtility, bid: Mapping[str, Value]) -> float:
    """The bid's utility, summed as `evaluate` sums it; a missing issue counts 0 (GeniusWeb)."""
    if len(bid) == len(utility.space.issues):
        return utility.evaluate(bid)
    total = utility.offset
    for issue, table in zip(utility.space.issues, utility.weighted_tables, strict=True):
        if issue.name in bid:
            total += float(table[issue.index_of(bid[issue.name])])
    return total
