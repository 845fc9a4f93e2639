"""The one JSON writer: every JSON text parley writes goes through `dumps`, so none holds NaN or Infinity.

Python's `json` writes bare ``NaN``, ``Infinity`` and ``-Infinity`` by default; they are not JSON and
strict parsers (JavaScript's ``JSON.parse``, jq, most databases) reject the whole file. Here a
non-finite float is written only where its meaning is declared: a field named in ``no_value`` whose
NaN means "there is no value" (a distance to the frontier when there was no deal) is written as
``null``; any other non-finite float is a bug and raises `JSONValueError` naming where it is.

Importing this module costs nothing beyond the standard library (the tournament's workers, the web
server and the CLI all import it).
"""

from __future__ import annotations

import json
import math
from collections.abc import Collection, Mapping
from typing import Any, NoReturn

from parley.errors import InternalError

NO_VALUE_FIELDS: frozenset[str] = frozenset({"pareto_distance", "nash_distance"})
"""Fields of `parley run` results and tournament rows whose NaN means "no value": there was no deal
(no final point to measure), no Nash point, or the space was too large to analyse. Written as null."""

FAILED_GAME_NO_VALUE_FIELDS: frozenset[str] = NO_VALUE_FIELDS | {
    "utility",
    "normalized_utility",
    "discounted_utility",
}
"""The same for the row of a tournament game that failed (``"failed": true``): a game that could not
be played has no utility either. In any other row a NaN utility is a bug and raises."""

CONVERSATION_NO_VALUE_FIELDS: frozenset[str] = frozenset({"TLE", "RL_turns", "RL_seconds", "ME", "MI"})
"""ProMediate metrics whose NaN means "no value": TLE with no topic mentioned, RL with no drop in
consensus, ME and MI with no intervention. (An infinite RL, "no drop was ever answered", has no
JSON form: the writer of metrics.json gives it as null too; drops > 0 then tells the cases apart.)"""

_COMPACT = (",", ":")


class JSONValueError(InternalError, ValueError):
    """A value cannot be written as strict JSON: a non-finite float with no declared meaning, a
    type JSON has no form for, or a cycle: a bug in the code that built the value (parley's, or an
    agent's that put it in its trace).

    Attributes:
        detail: What is wrong, without the place.
        path: Where in the value the problem is, as ``$.parties[0].utility``.
    """

    def __init__(self, detail: str, path: str) -> None:
        self.detail = detail
        self.path = path
        super().__init__(f"cannot write JSON: {detail} at {path}")


def dumps(
    value: object,
    *,
    no_value: Collection[str] = (),
    indent: int | None = None,
    compact: bool = False,
    ensure_ascii: bool = True,
    sort_keys: bool = False,
) -> str:
    """value as strict JSON text (RFC 8259): never NaN, Infinity or -Infinity.

    Args:
        value: dicts (and other mappings), lists, tuples, str, int, float, bool, None; numpy
            scalars and arrays are written as their Python values.
        no_value: Keys whose NaN means "no value": written as null wherever they occur.
            Infinities are never "no value".
        indent: Pretty-print with this indent (None: one line).
        compact: No spaces after separators (one-line records: JSONL).
        ensure_ascii: Escape every non-ASCII character (safe on any terminal encoding).
        sort_keys: Keys in sorted order (canonical forms for hashing: with compact=True).

    Raises:
        JSONValueError: a non-finite float outside no_value, an unwritable type, or a cycle.
    """
    separators = _COMPACT if compact else None
    try:  # the common case: nothing to convert, json's C encoder checks every float itself
        return json.dumps(
            value,
            allow_nan=False,
            default=_plain,
            indent=indent,
            separators=separators,
            ensure_ascii=ensure_ascii,
            sort_keys=sort_keys,
        )
    except (ValueError, TypeError, RecursionError):
        pass
    clean = _clean(value, (), None, frozenset(no_value), set())
    return json.dumps(
        clean,
        allow_nan=False,
        indent=indent,
        separators=separators,
        ensure_ascii=ensure_ascii,
        sort_keys=sort_keys,
    )


def dumps_line(value: object, *, no_value: Collection[str] = ()) -> str:
    """One compact line of strict JSON ending in a newline: a record of a JSONL file."""
    return dumps(value, no_value=no_value, compact=True) + "\n"


def result_row_line(row: Mapping[str, Any]) -> str:
    """A tournament result row as one line of ``results.jsonl``.

    NaN distances are written as null, and so are the NaN utilities of a failed game's row; the
    row's form is published in ``docs/schemas/results-row.schema.json``.

    Raises:
        JSONValueError: a non-finite float in any other field (a bug).
    """
    return dumps_line(row, no_value=FAILED_GAME_NO_VALUE_FIELDS if row.get("failed") else NO_VALUE_FIELDS)


def loads(text: str | bytes) -> Any:
    """Parse strict JSON: NaN, Infinity and -Infinity are refused, as any strict parser does.

    Raises:
        ValueError: text is not strict JSON (json.JSONDecodeError when it is not JSON at all).
    """
    return json.loads(text, parse_constant=_refuse_constant)


def _refuse_constant(name: str) -> NoReturn:
    raise ValueError(f"{name} is not JSON (strict parsers reject it)")


def _is_numpy(value: object) -> bool:
    return type(value).__module__ == "numpy" and hasattr(value, "tolist")


def _plain(value: object) -> Any:
    """json's `default`: the few non-JSON types parley's values may hold, as plain JSON values."""
    if isinstance(value, Mapping):
        return dict(value)  # e.g. MappingProxyType
    if _is_numpy(value):
        return value.tolist()  # type: ignore[attr-defined]
    raise TypeError(type(value).__name__)


def _where(path: tuple[str | int, ...]) -> str:
    return "$" + "".join(f"[{part}]" if isinstance(part, int) else f".{part}" for part in path)


def _clean(
    value: object,
    path: tuple[str | int, ...],
    key: str | None,
    no_value: frozenset[str],
    active: set[int],
) -> Any:
    """value with declared NaNs as None, checked throughout (the slow path: only after a failure)."""
    if value is None or isinstance(value, str | bool | int):
        return value
    if isinstance(value, float):
        if math.isfinite(value):
            return float(value)
        if math.isnan(value) and key in no_value:
            return None
        raise JSONValueError(
            f"non-finite number {value!r} (strict JSON has no NaN or Infinity)", _where(path)
        )
    if _is_numpy(value):
        return _clean(value.tolist(), path, key, no_value, active)  # type: ignore[attr-defined]
    if not isinstance(value, Mapping | list | tuple):
        raise JSONValueError(f"a {type(value).__name__} has no JSON form", _where(path))
    if id(value) in active:
        raise JSONValueError("circular reference", _where(path))
    active.add(id(value))
    try:
        if isinstance(value, Mapping):
            items: dict[Any, Any] = {}
            for name, item in value.items():
                if name is not None and not isinstance(name, str | int | float | bool):
                    raise JSONValueError(f"a {type(name).__name__} key has no JSON form", _where(path))
                if isinstance(name, float) and not math.isfinite(name):
                    raise JSONValueError(f"non-finite key {name!r}", _where(path))
                items[name] = _clean(item, (*path, str(name)), str(name), no_value, active)
            return items
        return [_clean(item, (*path, i), None, no_value, active) for i, item in enumerate(value)]
    finally:
        active.discard(id(value))
