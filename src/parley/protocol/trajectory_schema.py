"""The published trajectory event schema, generated from the payload types.

``.venv/bin/python -m parley.protocol.trajectory_schema`` rewrites
``docs/schemas/trajectory-event.schema.json``; ``--check`` exits 1 when the file is out of date.
"""

from __future__ import annotations

import dataclasses
import json
import re
import sys
import types
import typing
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any, Literal, Union

from parley.domain.issues import Value
from parley.protocol.artefact import NoDealReason
from parley.protocol.events import SUPPORTED_VERSIONS, TRAJECTORY_VERSION, VERSION_KEY
from parley.protocol.payloads import ACTIONS, EXTRA, PAYLOADS, json_key, type_hints

JSONSchema = dict[str, Any]

PUBLISHED = Path(__file__).resolve().parents[3] / "docs" / "schemas" / "trajectory-event.schema.json"
"""Where the schema is published in a source checkout."""

_NAMED: tuple[tuple[Any, str, JSONSchema], ...] = (
    (Value, "value", {"description": "One option of an issue.", "type": ["string", "number"]}),
    (NoDealReason, "no_deal_reason", {"enum": list(typing.get_args(NoDealReason))}),
)
"""Type aliases published once under $defs and referred to by name."""

_DESCRIPTIONS = {
    "agreement": "The agreed package, checked against every party's BATNA.",
    "no_deal": "Why the session ended without agreement and who, if anyone, walked.",
    "action": "A party's move.",
}
"""Definition descriptions shared with result.schema.json (elsewhere a class's first doc line)."""

_SIMPLE = {str: "string", int: "integer", float: "number", bool: "boolean", type(None): "null"}

_ENVELOPE: JSONSchema = {
    "seq": {"type": "integer", "minimum": 0, "description": "Position in the trajectory, from 0."},
    "kind": {"type": "string", "minLength": 1, "description": "What happened."},
    "round": {"type": "integer", "minimum": 0, "description": "Protocol round (or conversation turn)."},
    "party": {"type": ["string", "null"], "description": "Who caused it, if anyone."},
    "audience": {
        "type": "string",
        "description": '"public", or the one party allowed to see it (private traces).',
    },
    "time": {"type": "number", "minimum": 0, "description": "Seconds on the session's clock."},
    "data": {"type": "object", "description": "Kind-specific payload."},
}


def trajectory_event_schema() -> JSONSchema:
    """The JSON Schema (draft 2020-12) of one line of a trajectory.jsonl."""
    defs: dict[str, JSONSchema] = {name: dict(schema) for _, name, schema in _NAMED}
    rules: list[JSONSchema] = [_action_rule(defs), _trace_rule()]
    for kind, candidates in PAYLOADS.items():
        if kind == "trace":
            continue
        refs = [_define(defs, kind if i == 0 else _snake(c.__name__), c) for i, c in enumerate(candidates)]
        data = refs[0] if len(refs) == 1 else {"anyOf": refs}
        rules.append({"if": _kind_is(kind), "then": {"properties": {"data": data}}})
    versions = list(SUPPORTED_VERSIONS)
    return {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "title": "parley trajectory event",
        "description": (
            "One line of a trajectory.jsonl (`parley run --save`, `parley mediate --save`, the web "
            "console's download): one event of a session, in order. Every kind of session shares the "
            "envelope; the data of each kind parley writes is described below (generated from "
            "parley.protocol.payloads), other kinds (plugins) carry any JSON object. A saved file "
            f'puts "{VERSION_KEY}": {TRAJECTORY_VERSION} on its first line; a file without it is '
            "version 1. Strict JSON: numbers are always finite."
        ),
        "type": "object",
        "required": ["seq", "kind", "round", "party", "audience", "time", "data"],
        "additionalProperties": False,
        "properties": {
            **_ENVELOPE,
            VERSION_KEY: {
                "enum": versions,
                "description": "First line of a saved file only: the trajectory format version.",
            },
        },
        "allOf": rules,
        "$defs": dict(sorted(defs.items())),
    }


def _kind_is(kind: str) -> JSONSchema:
    return {"properties": {"kind": {"const": kind}}}


def _action_rule(defs: dict[str, JSONSchema]) -> JSONSchema:
    defs["action"] = {
        "description": _DESCRIPTIONS["action"],
        "oneOf": [_dataclass_schema(cls, defs, with_tag=True) for cls in ACTIONS],
    }
    then = {
        "required": ["party"],
        "properties": {"party": {"type": "string"}, "data": {"$ref": "#/$defs/action"}},
    }
    return {"if": _kind_is("action"), "then": then}


def _trace_rule() -> JSONSchema:
    then = {
        "description": "An agent's private decision trace: only its own party sees it (free-form data).",
        "properties": {"party": {"type": "string"}},
    }
    return {"if": _kind_is("trace"), "then": then}


def _define(defs: dict[str, JSONSchema], name: str, cls: type[Any]) -> JSONSchema:
    schema = _dataclass_schema(cls, defs, with_tag=False)
    doc = _DESCRIPTIONS.get(name) or (cls.__doc__ or "").strip().splitlines()[0]
    defs[name] = {"description": doc, **schema}
    return {"$ref": f"#/$defs/{name}"}


def _dataclass_schema(cls: type[Any], defs: dict[str, JSONSchema], *, with_tag: bool) -> JSONSchema:
    hints = type_hints(cls)
    properties: dict[str, JSONSchema] = {}
    required: list[str] = []
    lenient = False
    for spec in dataclasses.fields(cls):
        if spec.name == EXTRA:
            lenient = True
            continue
        if spec.name == "kind" and not spec.init and not with_tag:
            continue  # an event's kind is its tag: its data does not repeat it
        key, hint = json_key(spec), hints[spec.name]
        optional = bool(spec.metadata.get("optional"))
        if optional and spec.default is None:
            hint = _without_none(hint)  # absent rather than null
        schema = schema_of(hint, defs)
        for name in ("minimum", "maximum", "description"):
            if name in spec.metadata:
                schema[name] = spec.metadata[name]
        properties[key] = schema
        if not optional:
            required.append(key)
    result: JSONSchema = {"type": "object", "required": required}
    if not lenient:
        result["additionalProperties"] = False
    result["properties"] = properties
    return result


def schema_of(hint: Any, defs: dict[str, JSONSchema]) -> JSONSchema:
    """The JSON Schema of values of a payload field's type (dataclasses inline, aliases by $ref)."""
    for alias, name, schema in _NAMED:
        if hint == alias:
            defs.setdefault(name, dict(schema))
            return {"$ref": f"#/$defs/{name}"}
    if hint is Any:
        return {}
    if hint in _SIMPLE:
        return {"type": _SIMPLE[hint]}
    if dataclasses.is_dataclass(hint):
        return _dataclass_schema(typing.cast(type[Any], hint), defs, with_tag=True)
    origin, args = typing.get_origin(hint), typing.get_args(hint)
    if origin is Literal:
        return {"const": args[0]} if len(args) == 1 else {"enum": list(args)}
    if origin in (Union, types.UnionType):
        return _union_schema(args, defs)
    if origin is tuple:
        return {"type": "array", "items": schema_of(args[0], defs)}
    if origin in (Mapping, dict):
        values = schema_of(args[1], defs)
        return {"type": "object", "additionalProperties": values} if values else {"type": "object"}
    raise TypeError(f"no schema for type {hint!r}")


def _union_schema(args: Sequence[Any], defs: dict[str, JSONSchema]) -> JSONSchema:
    if all(arg in _SIMPLE for arg in args):
        return {"type": [_SIMPLE[arg] for arg in args]}
    return {"anyOf": [schema_of(arg, defs) for arg in args]}


def _without_none(hint: Any) -> Any:
    args = tuple(arg for arg in typing.get_args(hint) if arg is not type(None))
    return args[0] if len(args) == 1 else hint


def _snake(name: str) -> str:
    return re.sub(r"(?<!^)(?=[A-Z])", "_", name).lower()


def render() -> str:
    """The schema as published: two-space indented JSON with a final newline."""
    return json.dumps(trajectory_event_schema(), indent=2, ensure_ascii=False) + "\n"


def main(argv: Sequence[str] = ()) -> int:
    """Write the published schema, or with --check report whether it is up to date."""
    text = render()
    if "--check" in argv:
        current = PUBLISHED.read_text(encoding="utf-8") if PUBLISHED.is_file() else ""
        if current != text:
            print(f"{PUBLISHED} is out of date: run python -m parley.protocol.trajectory_schema")
            return 1
        return 0
    PUBLISHED.write_text(text, encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
