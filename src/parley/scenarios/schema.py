"""Pydantic models of the scenario YAML format, and one-line error messages for bad files.

These models check the file's shape (keys, types, bounds); `parley.scenarios.loader` checks
meaning (issue names, option lists, table lengths) while building the domain objects.
"""

from __future__ import annotations

import difflib
from collections.abc import Mapping, Sequence
from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from parley.errors import ScenarioError
from parley.protocol.rules import DEFAULT_COALITION_ROUNDS

UTILITY_TYPES = ("linear_additive", "table", "ranked", "additive_bonus")
"""The `type` tags a party's utility may carry."""


def _check_value(value: Any) -> str | int | float:
    """An option must be text or a number (YAML booleans are rejected: quote yes/no)."""
    if isinstance(value, bool) or not isinstance(value, str | int | float):
        raise ValueError(f"expected text or a number, got {_describe(value)}")
    return value


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True, allow_inf_nan=False)


class RangeSpec(_Strict):
    """An integer range of options: min, min+step, ..., max (inclusive)."""

    min: int
    max: int
    step: int = Field(default=1, ge=1)


class IssueSpec(_Strict):
    """One issue: `options` or `range`, an optional unit, and for divisions the party it counts for."""

    name: str = Field(min_length=1)
    options: list[Any] | None = None
    range: RangeSpec | None = None
    unit: str = ""
    allocated_to: str | None = None
    description: str = ""

    @field_validator("options")
    @classmethod
    def _options_are_values(cls, options: list[Any] | None) -> list[Any] | None:
        if options is not None:
            for value in options:
                _check_value(value)
        return options


class SignalsSpec(_Strict):
    """Coarse public signals a mediator may see."""

    priorities: list[str] = Field(default_factory=lambda: [])
    must_haves: dict[str, list[Any]] = Field(default_factory=lambda: {})


class LinearAdditiveSpec(_Strict):
    """u(x) = offset + Σ weight_i · value_i(x_i).

    `values` per issue is a list aligned with the options, a mapping option → value, or the
    quantity shorthand `{per_unit: p}` (value = p × quantity) / `{per_unit: p, complement_of: n}`
    (value = p × (n − quantity)). Issues with values but no weight weigh 1.
    """

    type: Literal["linear_additive"]
    weights: dict[str, float] = Field(default_factory=lambda: {})
    values: dict[str, Any] = Field(default_factory=lambda: {})
    offset: float = 0.0


class TableEntrySpec(_Strict):
    """One listed outcome and its utility."""

    outcome: dict[str, Any]
    utility: float


class TableSpec(_Strict):
    """An explicit utility per listed outcome; unlisted outcomes get `default`."""

    type: Literal["table"]
    default: float = 0.0
    entries: list[TableEntrySpec] = Field(default_factory=lambda: [])


class RankingSpec(_Strict):
    """One issue's ranked choices (best first) and rejected options."""

    ranking: list[Any] = Field(default_factory=lambda: [])
    unacceptable: list[Any] = Field(default_factory=lambda: [])


class RankedSpec(_Strict):
    """Ranked choices per issue (first choice scores rank_scores[0], ...), with optional weights."""

    type: Literal["ranked"]
    preferences: dict[str, RankingSpec]
    weights: dict[str, float] = Field(default_factory=lambda: {})
    rank_scores: list[float] | None = None
    unacceptable_score: float = -1.0


class AdditiveBonusSpec(_Strict):
    """A linear-additive utility (`weights`, `values`, `offset` as in `linear_additive`) plus `bonus`
    points on each outcome listed in `bonus_outcomes` (every issue named, no outcome twice)."""

    type: Literal["additive_bonus"]
    weights: dict[str, float] = Field(default_factory=lambda: {})
    values: dict[str, Any] = Field(default_factory=lambda: {})
    offset: float = 0.0
    bonus: float
    bonus_outcomes: list[dict[str, Any]] = Field(default_factory=lambda: [])


UtilitySpec = Annotated[
    LinearAdditiveSpec | TableSpec | RankedSpec | AdditiveBonusSpec, Field(discriminator="type")
]


class PartySpec(_Strict):
    """One party: private utility, BATNA (in utility units) and time-discount factor, persona,
    brief, public signals."""

    name: str = Field(min_length=1)
    role: str = ""
    utility: UtilitySpec
    batna: float
    discount: float = Field(default=1.0, gt=0.0, le=1.0)
    persona: dict[str, Any] = Field(default_factory=lambda: {})
    brief: str = ""
    signals: SignalsSpec = Field(default_factory=SignalsSpec)


class AcceptanceSpec(_Strict):
    """How many parties must accept (null: all) and whose acceptance is always needed."""

    required: int | None = Field(default=None, ge=1)
    vetoes: list[str] = Field(default_factory=lambda: [])


class StagnationSpec(_Strict):
    """Rounds without movement before the detector fires (null or left out: two thirds of
    max_rounds, at least 3), the movement threshold and the policy."""

    rounds: int | None = Field(default=None, ge=1)
    epsilon: float = Field(default=0.0, ge=0.0, lt=1.0)
    on_stagnation: Literal["walk", "mediate", "continue"] = "walk"


class ProtocolSpec(_Strict):
    """Protocol settings, mapped onto `parley.protocol.Rules`."""

    max_rounds: int = Field(default=20, ge=1)
    max_offers: int | None = Field(default=None, ge=1)
    deadline_seconds: float | None = Field(default=None, gt=0)
    acceptance: AcceptanceSpec = Field(default_factory=AcceptanceSpec)
    stagnation: StagnationSpec = Field(default_factory=StagnationSpec)
    act_timeout: float | None = Field(default=None, gt=0)
    proposer_order: list[str] | None = None
    coalition_rounds: int = Field(default=DEFAULT_COALITION_ROUNDS, ge=0, le=10_000)


class ScenarioFile(_Strict):
    """A whole scenario file."""

    name: str = Field(min_length=1)
    title: str = ""
    description: str = ""
    issues: list[IssueSpec] = Field(min_length=1)
    parties: list[PartySpec] = Field(min_length=2)
    protocol: ProtocolSpec = Field(default_factory=ProtocolSpec)
    metadata: dict[str, Any] = Field(default_factory=lambda: {})


def parse_scenario_file(data: Any, source: str | None) -> ScenarioFile:
    """Validate raw YAML data against the format.

    Raises:
        ScenarioError: one line naming the source, the field path, what was expected and what arrived.
    """
    if not isinstance(data, Mapping):
        raise ScenarioError(f"expected a mapping at the top level, got {_describe(data)}", source=source)
    try:
        return ScenarioFile.model_validate(data)
    except ValidationError as error:
        raise scenario_error_from(error, source) from None


def scenario_error_from(error: ValidationError, source: str | None) -> ScenarioError:
    """The first validation problem as a one-line ScenarioError (the rest are counted, not listed)."""
    details = error.errors(include_url=False)
    first = details[0]
    location = _clean_location(first["loc"])
    message = _explain(first, first["loc"])
    if len(details) > 1:
        message += f" (and {len(details) - 1} more problem{'s' if len(details) > 2 else ''})"
    return ScenarioError(message, source=source, field=format_path(location) or None)


def format_path(location: Sequence[str | int]) -> str:
    """A field path such as `parties[1].utility.weights.price`."""
    text = ""
    for part in location:
        text += f"[{part}]" if isinstance(part, int) else (f".{part}" if text else str(part))
    return text


def _clean_location(location: Sequence[str | int]) -> list[str | int]:
    """Drop the tag pydantic inserts after a discriminated-union field (utility.<type>)."""
    cleaned: list[str | int] = []
    for position, part in enumerate(location):
        if position > 0 and location[position - 1] == "utility" and part in UTILITY_TYPES:
            continue
        if part == "[key]":  # pydantic's marker for a bad mapping key
            continue
        cleaned.append(part)
    return cleaned


def _explain(detail: Any, raw_location: Sequence[str | int]) -> str:
    kind: str = detail["type"]
    got = _describe(detail.get("input"))
    context: dict[str, Any] = detail.get("ctx") or {}
    if kind == "missing":
        return "required field is missing"
    if kind == "extra_forbidden":
        return _unknown_key(raw_location)
    if kind == "union_tag_invalid":
        return f"expected type one of {', '.join(UTILITY_TYPES)}, got {_describe(context.get('tag'))}"
    if kind == "union_tag_not_found":
        return f"missing 'type' (one of {', '.join(UTILITY_TYPES)})"
    if raw_location and raw_location[-1] == "[key]":
        return f"expected text keys, got key {got}"
    if kind == "value_error":
        return str(detail["msg"]).removeprefix("Value error, ")
    expected = _EXPECTED.get(kind)
    if expected is not None:
        return f"expected {expected.format(**context)}, got {got}"
    return f"{detail['msg']}, got {got}"


_EXPECTED: dict[str, str] = {
    "int_type": "an integer",
    "int_parsing": "an integer",
    "int_from_float": "a whole number",
    "float_type": "a number",
    "float_parsing": "a number",
    "finite_number": "a finite number",
    "string_type": "text",
    "bool_type": "true or false",
    "bool_parsing": "true or false",
    "list_type": "a list",
    "dict_type": "a mapping",
    "model_type": "a mapping",
    "model_attributes_type": "a mapping",
    "literal_error": "one of {expected}",
    "greater_than": "a value > {gt}",
    "greater_than_equal": "a value >= {ge}",
    "less_than": "a value < {lt}",
    "less_than_equal": "a value <= {le}",
    "too_short": "at least {min_length} item(s)",
    "string_too_short": "non-empty text",
}


def _unknown_key(location: Sequence[str | int]) -> str:
    key = str(location[-1]) if location else "?"
    allowed = _allowed_keys(location[:-1])
    if not allowed:
        return f"unknown key {key!r}"
    close = difflib.get_close_matches(key, allowed, n=1)
    hint = f"did you mean {close[0]!r}? " if close else ""
    return f"unknown key {key!r} ({hint}allowed: {', '.join(allowed)})"


def _allowed_keys(location: Sequence[str | int]) -> list[str]:
    """The keys allowed at a location, found by walking the models (best effort)."""
    model: type[BaseModel] | None = ScenarioFile
    path = list(location)
    while path and model is not None:
        part = path.pop(0)
        if isinstance(part, int):
            continue
        if part == "utility" and path and isinstance(path[0], str):
            model = _UTILITY_MODELS.get(path[0])
            path.pop(0)
            continue
        if part == "utility":
            return []
        model = _FIELD_MODELS.get((model, part))
        if model is RankingSpec and path:  # preferences.<issue>
            path.pop(0)
    return list(model.model_fields) if model is not None else []


_UTILITY_MODELS: dict[str, type[BaseModel]] = {
    "linear_additive": LinearAdditiveSpec,
    "table": TableSpec,
    "ranked": RankedSpec,
    "additive_bonus": AdditiveBonusSpec,
}

_FIELD_MODELS: dict[tuple[type[BaseModel], str], type[BaseModel]] = {
    (ScenarioFile, "issues"): IssueSpec,
    (ScenarioFile, "parties"): PartySpec,
    (ScenarioFile, "protocol"): ProtocolSpec,
    (IssueSpec, "range"): RangeSpec,
    (PartySpec, "signals"): SignalsSpec,
    (ProtocolSpec, "acceptance"): AcceptanceSpec,
    (ProtocolSpec, "stagnation"): StagnationSpec,
    (TableSpec, "entries"): TableEntrySpec,
    (RankedSpec, "preferences"): RankingSpec,
}


def _describe(value: Any) -> str:
    """A short rendering of what arrived: the value, or its type for containers."""
    if isinstance(value, Mapping):
        return "a mapping"
    if isinstance(value, list | tuple):
        return "a list"
    if value is None:
        return "nothing (null)"
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."
