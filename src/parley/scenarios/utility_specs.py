"""Build a party's utility function from its validated spec, checking names, options and table sizes.

Every problem becomes a one-line `ScenarioError` naming the field path under
`parties[i].utility` and what was expected versus what arrived.
"""

from __future__ import annotations

import difflib
import math
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from parley.domain.issues import Issue, Value
from parley.domain.space import OutcomeSpace
from parley.domain.utility import (
    DEFAULT_RANK_SCORES,
    AdditiveBonusUtility,
    LinearAdditiveUtility,
    RankedPreferenceUtility,
    TableUtility,
    UtilityFunction,
)
from parley.errors import ScenarioError
from parley.scenarios.schema import AdditiveBonusSpec, LinearAdditiveSpec, RankedSpec, TableSpec, UtilitySpec

MAX_TABLE_OUTCOMES = 1_000_000
"""A `type: table` utility stores one number per outcome, so its space must stay this small."""

QUANTITY_KEYS = frozenset({"per_unit", "complement_of"})


class SpecContext:
    """Where a spec came from, for error messages: the source file and a field path prefix."""

    def __init__(self, source: str | None, prefix: str) -> None:
        self.source = source
        self.prefix = prefix

    def error(self, suffix: str, message: str) -> ScenarioError:
        """A ScenarioError at prefix + suffix."""
        return ScenarioError(message, source=self.source, field=self.prefix + suffix)

    def issue(self, space: OutcomeSpace, name: str, suffix: str) -> Issue:
        """The issue called name, or an error at prefix + suffix naming the known issues."""
        if name in space.names:
            return space.issue(name)
        raise self.error(suffix, unknown_name_message("issue", name, space.names))


def unknown_name_message(kind: str, name: object, known: Sequence[str]) -> str:
    """'unknown issue 'x' (did you mean 'y'? issues: a, b)'."""
    close = difflib.get_close_matches(str(name), list(known), n=1)
    hint = f"did you mean {close[0]!r}? " if close else ""
    return f"unknown {kind} {name!r} ({hint}{kind}s: {', '.join(known)})"


def option_index(issue: Issue, value: Any, context: SpecContext, suffix: str) -> int:
    """Position of value among the issue's options, or an error naming the options."""
    if isinstance(value, bool) or not isinstance(value, str | int | float):
        raise context.error(suffix, f"expected an option of {issue.name!r}, got {type(value).__name__}")
    try:
        return issue.index_of(value)
    except ValueError:
        options = ", ".join(str(v) for v in issue.values[:12]) + (", ..." if issue.cardinality > 12 else "")
        raise context.error(
            suffix, f"{value!r} is not an option of issue {issue.name!r} (options: {options})"
        ) from None


def finite_number(value: Any, context: SpecContext, suffix: str) -> float:
    """value as a finite float, or an error."""
    if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value):
        raise context.error(suffix, f"expected a finite number, got {value!r}")
    return float(value)


def build_utility(
    spec: UtilitySpec, space: OutcomeSpace, reservation_value: float, context: SpecContext
) -> UtilityFunction:
    """The utility function a spec describes, over space.

    Raises:
        ScenarioError: an unknown issue or option, a table of the wrong length, a space too large.
    """
    match spec:
        case LinearAdditiveSpec():
            return _linear(spec, space, reservation_value, context)
        case TableSpec():
            return _table(spec, space, reservation_value, context)
        case RankedSpec():
            return _ranked(spec, space, reservation_value, context)
        case AdditiveBonusSpec():
            return _additive_bonus(spec, space, reservation_value, context)


def _linear(
    spec: LinearAdditiveSpec | AdditiveBonusSpec,
    space: OutcomeSpace,
    reservation_value: float,
    context: SpecContext,
) -> LinearAdditiveUtility:
    for name in spec.weights:
        context.issue(space, name, f".weights.{name}")
        if name not in spec.values:
            raise context.error(f".weights.{name}", f"issue {name!r} has a weight but no values")
    tables: dict[str, list[float]] = {}
    for name, raw in spec.values.items():
        issue = context.issue(space, name, f".values.{name}")
        tables[name] = value_table(issue, raw, context, f".values.{name}")
    weights = {name: float(spec.weights.get(name, 1.0)) for name in tables}
    return LinearAdditiveUtility(space, weights, tables, reservation_value, spec.offset)


def value_table(issue: Issue, raw: Any, context: SpecContext, suffix: str) -> list[float]:
    """One issue's values, aligned with its options, from a list, a mapping or the quantity shorthand."""
    if isinstance(raw, list):
        return _listed_values(issue, raw, context, suffix)
    if isinstance(raw, Mapping) and "per_unit" in raw:
        return _quantity_values(issue, raw, context, suffix)
    if isinstance(raw, Mapping):
        return _mapped_values(issue, raw, context, suffix)
    raise context.error(
        suffix,
        f"expected a list of {issue.cardinality} numbers, a mapping option → number or "
        f"{{per_unit: ...}}, got {type(raw).__name__} {raw!r}",
    )


def _listed_values(issue: Issue, raw: list[Any], context: SpecContext, suffix: str) -> list[float]:
    if len(raw) != issue.cardinality:
        raise context.error(
            suffix,
            f"expected {issue.cardinality} values (one per option of {issue.name!r}), got {len(raw)}",
        )
    return [finite_number(value, context, f"{suffix}[{i}]") for i, value in enumerate(raw)]


def _mapped_values(issue: Issue, raw: Mapping[Any, Any], context: SpecContext, suffix: str) -> list[float]:
    table: list[float | None] = [None] * issue.cardinality
    for option, value in raw.items():
        position = option_index(issue, option, context, f"{suffix}.{option}")
        table[position] = finite_number(value, context, f"{suffix}.{option}")
    missing = [issue.values[i] for i, value in enumerate(table) if value is None]
    if missing:
        raise context.error(suffix, f"expected a value for every option of {issue.name!r}; missing {missing}")
    return [value for value in table if value is not None]


def _quantity_values(issue: Issue, raw: Mapping[Any, Any], context: SpecContext, suffix: str) -> list[float]:
    unknown = sorted(str(key) for key in raw if key not in QUANTITY_KEYS)
    if unknown:
        raise context.error(
            f"{suffix}.{unknown[0]}", f"unknown key {unknown[0]!r} (allowed with per_unit: complement_of)"
        )
    if not issue.is_numeric:
        raise context.error(suffix, f"per_unit needs an issue of quantities; {issue.name!r} has text options")
    per_unit = finite_number(raw["per_unit"], context, f"{suffix}.per_unit")
    total = raw.get("complement_of")
    if total is None:
        quantities = [float(v) for v in issue.values]
    else:
        base = finite_number(total, context, f"{suffix}.complement_of")
        quantities = [base - float(v) for v in issue.values]
    table = [per_unit * quantity for quantity in quantities]
    if not all(math.isfinite(value) for value in table):
        raise context.error(suffix, "per_unit × quantity overflows; expected finite values")
    return table


def _table(
    spec: TableSpec, space: OutcomeSpace, reservation_value: float, context: SpecContext
) -> TableUtility:
    if space.size > MAX_TABLE_OUTCOMES:
        raise context.error(
            "", f"a table utility needs at most {MAX_TABLE_OUTCOMES:,} outcomes, the space has {space.size:,}"
        )
    table = np.full(space.size, spec.default, dtype=np.float64)
    seen: dict[int, int] = {}
    for row, entry in enumerate(spec.entries):
        index = _outcome_index(space, entry.outcome, context, f".entries[{row}].outcome")
        if index in seen:
            raise context.error(f".entries[{row}].outcome", f"the same outcome as entries[{seen[index]}]")
        seen[index] = row
        table[index] = entry.utility
    return TableUtility(space, table, reservation_value)


def _additive_bonus(
    spec: AdditiveBonusSpec, space: OutcomeSpace, reservation_value: float, context: SpecContext
) -> AdditiveBonusUtility:
    if space.size > MAX_TABLE_OUTCOMES:
        raise context.error(
            ".bonus_outcomes",
            f"a bonus region is listed outcome by outcome: at most {MAX_TABLE_OUTCOMES:,} outcomes, "
            f"the space has {space.size:,}",
        )
    region = np.zeros(space.size, dtype=bool)
    seen: dict[int, int] = {}
    for row, outcome in enumerate(spec.bonus_outcomes):
        index = _outcome_index(space, outcome, context, f".bonus_outcomes[{row}]")
        if index in seen:
            raise context.error(
                f".bonus_outcomes[{row}]", f"the same outcome as bonus_outcomes[{seen[index]}]"
            )
        seen[index] = row
        region[index] = True
    base = _linear(spec, space, reservation_value, context)
    return AdditiveBonusUtility(space, base, spec.bonus, region, reservation_value)


def _outcome_index(space: OutcomeSpace, outcome: Mapping[str, Any], context: SpecContext, suffix: str) -> int:
    for name in outcome:
        context.issue(space, name, f"{suffix}.{name}")
    missing = [name for name in space.names if name not in outcome]
    if missing:
        raise context.error(suffix, f"expected a value for every issue; missing {missing}")
    indices = [
        option_index(issue, outcome[issue.name], context, f"{suffix}.{issue.name}") for issue in space.issues
    ]
    return space.index(space.from_indices(indices))


def _ranked(
    spec: RankedSpec, space: OutcomeSpace, reservation_value: float, context: SpecContext
) -> RankedPreferenceUtility:
    for name in spec.weights:
        context.issue(space, name, f".weights.{name}")
    rankings: dict[str, tuple[Value, ...]] = {}
    unacceptable: dict[str, tuple[Value, ...]] = {}
    for name, preference in spec.preferences.items():
        issue = context.issue(space, name, f".preferences.{name}")
        prefix = f".preferences.{name}"
        rankings[name] = _distinct_options(issue, preference.ranking, context, f"{prefix}.ranking")
        unacceptable[name] = _distinct_options(
            issue, preference.unacceptable, context, f"{prefix}.unacceptable"
        )
        both = [value for value in unacceptable[name] if value in rankings[name]]
        if both:
            raise context.error(f"{prefix}.unacceptable", f"{both[0]!r} is both ranked and unacceptable")
    scores = DEFAULT_RANK_SCORES if spec.rank_scores is None else tuple(spec.rank_scores)
    if not scores:
        raise context.error(".rank_scores", "expected at least one score, got an empty list")
    return RankedPreferenceUtility(
        space,
        rankings,
        unacceptable,
        dict(spec.weights),
        scores,
        spec.unacceptable_score,
        reservation_value,
    )


def _distinct_options(issue: Issue, raw: list[Any], context: SpecContext, suffix: str) -> tuple[Value, ...]:
    positions: list[int] = []
    for i, value in enumerate(raw):
        position = option_index(issue, value, context, f"{suffix}[{i}]")
        if position in positions:
            raise context.error(f"{suffix}[{i}]", f"option {value!r} is listed twice")
        positions.append(position)
    return tuple(issue.values[position] for position in positions)
