"""Structured output: pull a JSON object out of a reply, repair it, validate it with pydantic.

Order of attempts: the reply as JSON; the first fenced or braced block in it; `json_repair` over
the whole reply. Whatever parses must then validate against the role's output model.
"""

from __future__ import annotations

import functools
import json
import math
import re
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Annotated, Any, Generic, TypeVar, cast

import json_repair
from pydantic import BaseModel, BeforeValidator, Field, ValidationError, WithJsonSchema

OutputT = TypeVar("OutputT", bound=BaseModel)

NOTE_CHARS = 120
"""Characters asked for in a free-text note (a reason, a rationale, evidence)."""

NAME_CHARS = 60
"""Most characters of a name a reply gives (a topic, an option, a field) where no enum narrows it."""


def _clip(value: Any) -> Any:
    return value[:NOTE_CHARS] if isinstance(value, str) else value


Note = Annotated[str, BeforeValidator(_clip), WithJsonSchema({"type": "string", "maxLength": NOTE_CHARS})]
"""A free-text note only kept for logs and traces (reasons, rationales): the schema asks for at most
`NOTE_CHARS` characters, and a longer one from an endpoint that does not enforce it is cut there
rather than re-asked."""

Name = Annotated[str, Field(max_length=NAME_CHARS)]
"""A name a reply gives (topic, option, party, field), bounded where no per-call enum narrows it."""

_FENCE = re.compile(r"```(?:json)?\s*(.*?)```", re.DOTALL | re.IGNORECASE)


class ReplyInvalid(ValueError):
    """A reply could not be turned into the role's output model.

    Attributes:
        kind: "malformed" (no JSON object found) or "schema_invalid" (JSON that fails validation,
            or fails the role's own checks).
    """

    def __init__(self, kind: str, detail: str) -> None:
        self.kind = kind
        super().__init__(detail)


@dataclass(frozen=True, slots=True)
class Parsed(Generic[OutputT]):
    """A validated reply.

    Attributes:
        value: The output model instance.
        repaired: True when the JSON had to be extracted from prose or repaired.
    """

    value: OutputT
    repaired: bool


def extract_json(text: str) -> tuple[dict[str, Any], bool]:
    """The JSON object in text and whether it needed extraction or repair.

    Raises:
        ReplyInvalid: no JSON object could be recovered (kind "malformed").
    """
    stripped = text.strip()
    try:
        data = json.loads(stripped)
        if isinstance(data, dict):
            return data, False
    except ValueError:
        pass
    fenced = _FENCE.search(stripped)
    candidates = [fenced.group(1)] if fenced else []
    start, end = stripped.find("{"), stripped.rfind("}")
    if start != -1:
        candidates.append(stripped[start : end + 1] if end > start else stripped[start:])
    candidates.append(stripped)
    for candidate in candidates:
        repaired = json_repair.loads(candidate)
        if isinstance(repaired, dict) and repaired:
            return repaired, True
    raise ReplyInvalid("malformed", f"no JSON object found in the reply (starts {stripped[:80]!r})")


def parse_reply(text: str, output: type[OutputT]) -> Parsed[OutputT]:
    """Validate a reply against an output model.

    Raises:
        ReplyInvalid: malformed JSON, or JSON that does not match the model (kind "schema_invalid").
    """
    data, repaired = extract_json(text)
    try:
        return Parsed(output.model_validate(data), repaired)
    except ValidationError as error:
        raise ReplyInvalid("schema_invalid", _short(error)) from None


def _short(error: ValidationError) -> str:
    parts = [f"{'.'.join(str(p) for p in e['loc']) or '(root)'}: {e['msg']}" for e in error.errors()[:5]]
    return "; ".join(parts)


def schema_of(output: type[BaseModel]) -> dict[str, Any]:
    """The output model's own JSON schema (pydantic's, with titles and descriptions)."""
    return output.model_json_schema()


def schema_text(output: type[BaseModel]) -> str:
    """The strict schema as compact, stable JSON (for custom templates that still show it)."""
    return json.dumps(strict_schema(output), sort_keys=True, separators=(",", ":"))


_DROPPED = frozenset({"title", "description", "default", "examples"})
"""Schema keywords never sent: prose a small model parrots back."""

LENGTH_KEYWORDS = frozenset({"maxLength", "minLength"})
"""String-length keywords: sent, because a grammar-constrained server (llama.cpp) stops a string at
its maxLength instead of letting a small model loop to the token cap; `lean_schema` strips them for
endpoints whose strict mode refuses them."""

GRID_POINTS = 11
"""Most values a bounded number is offered as (see `number_grid`)."""

_STEPS = (0.1, 0.2, 0.25, 0.5, 1.0, 2.0, 2.5, 5.0, 10.0, 20.0, 25.0, 50.0, 100.0)
_INTEGER_ENUM = 40  # integer ranges up to this many values are sent as the full enum


def number_grid(low: float, high: float, *, integer: bool = False) -> list[float | int]:
    """The values a number in [low, high] is offered as: every integer of a small integer range,
    else an even grid of at most `GRID_POINTS` values on a round step (0.1 for 0–1, 0.5 for 1–5).

    llama.cpp's grammars ignore minimum and maximum (a 0–1 number came back as 5), but honour an
    enum; integral values are sent as integers.
    """
    if integer and high - low + 1 <= _INTEGER_ENUM:
        return list(range(math.ceil(low), math.floor(high) + 1))
    step = next((s for s in _STEPS if (high - low) / s + 1 <= GRID_POINTS + 1e-9), _STEPS[-1])
    count = math.floor((high - low) / step + 1e-9) + 1
    return [_tidy(low + k * step) for k in range(count)]


def _tidy(value: float) -> float | int:
    rounded = round(value, 6)
    return int(rounded) if rounded == int(rounded) else rounded


def strict_schema(
    output: type[BaseModel], overrides: Mapping[str, Mapping[str, Any]] | None = None
) -> dict[str, Any]:
    """The schema sent to endpoints for one call.

    References are inlined; titles, descriptions and defaults are dropped; every object lists all
    its properties as required and forbids others (what OpenAI's ``strict: true`` demands); a
    property a reply may leave empty is given as nullable by its model. String lengths and list
    sizes stay, and a number with both bounds becomes an enum (`number_grid`): a grammar-constrained
    server enforces those, so a small model cannot loop in an open field until the token cap.
    overrides replace the schema of every property of that name, at any depth (packages as enums of
    the legal options, issue names as enums), built per call.
    """
    raw = _model_schema(output)
    definitions: Mapping[str, Any] = raw.get("$defs", {})
    return _strict(raw, definitions, overrides or {})


def lean_schema(schema: Any) -> Any:
    """schema without the string-length keywords (`LENGTH_KEYWORDS`), for strict modes that refuse them."""
    if isinstance(schema, list):
        return [lean_schema(item) for item in cast(list[Any], schema)]
    if not isinstance(schema, Mapping):
        return schema
    node = cast(Mapping[str, Any], schema)
    return {k: lean_schema(v) for k, v in node.items() if k not in LENGTH_KEYWORDS}


def has_length_keywords(schema: Any) -> bool:
    """Whether schema holds any of `LENGTH_KEYWORDS`."""
    return any(LENGTH_KEYWORDS & set(node) for node in _nodes(schema))


def unbounded(schema: Any, path: str = "$") -> list[str]:
    """Paths of the fields in schema a reply could fill without end: a free string without
    maxLength or an array without maxItems (llama.cpp's grammars bound a number's digits).

    Every reply model's sent schema should have none (tests check it): those are where small models
    loop until the token cap.
    """
    if isinstance(schema, list):
        return [p for k, item in enumerate(cast(list[Any], schema)) for p in unbounded(item, f"{path}[{k}]")]
    if not isinstance(schema, Mapping):
        return []
    node = cast(Mapping[str, Any], schema)
    found: list[str] = []
    if "enum" not in node and "const" not in node:
        kind = node.get("type")
        if kind == "string" and "maxLength" not in node:
            found.append(path)
        if kind == "array" and "maxItems" not in node:
            found.append(path)
    for key, value in node.items():
        if key == "properties":
            for name, sub in cast(Mapping[str, Any], value).items():
                found += unbounded(sub, f"{path}.{name}")
        elif key == "items":
            found += unbounded(value, f"{path}[]")
        elif key == "anyOf":
            found += unbounded(value, path)
    return found


def max_reply_chars(schema: Mapping[str, Any]) -> int | None:
    """Characters of the longest compact JSON reply schema allows (None: schema leaves it open).

    Counts every string at its maxLength, every list at its maxItems and a number at 17 characters
    (llama.cpp's grammar allows 16 digits); used to check that a role's token cap never cuts off a
    reply its schema allows.
    """
    if unbounded(schema):
        return None
    return _longest(schema)


def _longest(node: Mapping[str, Any]) -> int:
    if "enum" in node:
        return max(len(json.dumps(value, ensure_ascii=False)) for value in node["enum"])
    if "anyOf" in node:
        return max(_longest(branch) for branch in node["anyOf"])
    kind = node.get("type")
    if kind == "object" or "properties" in node:
        fields = cast(Mapping[str, Any], node.get("properties", {}))
        return 2 + sum(len(json.dumps(name)) + 3 + _longest(sub) for name, sub in fields.items())
    if kind == "array":
        items = int(node.get("maxItems", 0))
        return 2 + items * (_longest(node.get("items", {})) + 2)
    if kind == "string":
        return int(node.get("maxLength", 0)) + 2
    return {"boolean": 5, "null": 4}.get(str(kind), 17)


@functools.cache
def _model_schema(output: type[BaseModel]) -> dict[str, Any]:
    """pydantic's schema of an output model, built once (`_strict` copies, never changes it)."""
    return output.model_json_schema()


def _strict(node: Any, definitions: Mapping[str, Any], overrides: Mapping[str, Mapping[str, Any]]) -> Any:
    if isinstance(node, list):
        return [_strict(item, definitions, overrides) for item in cast(list[Any], node)]
    if not isinstance(node, dict):
        return node
    ref = node.get("$ref")
    if isinstance(ref, str):
        return _strict(definitions[ref.rsplit("/", 1)[-1]], definitions, overrides)
    out: dict[str, Any] = {}
    for key, value in node.items():
        if key in _DROPPED or key in {"$defs", "required"}:
            continue
        if key == "properties":
            out[key] = {
                name: dict(overrides[name]) if name in overrides else _strict(sub, definitions, overrides)
                for name, sub in value.items()
            }
        else:
            out[key] = _strict(value, definitions, overrides)
    if "properties" in out:
        out["required"] = list(out["properties"])
        out["additionalProperties"] = False
    return _as_enum(out)


def _as_enum(node: dict[str, Any]) -> dict[str, Any]:
    """A number with both bounds as an enum of its grid (other nodes unchanged)."""
    kind = node.get("type")
    if kind not in ("number", "integer") or "enum" in node:
        return node
    low, high = node.get("minimum"), node.get("maximum")
    if not isinstance(low, int | float) or not isinstance(high, int | float):
        return node
    rest = {k: v for k, v in node.items() if k not in ("minimum", "maximum")}
    return {**rest, "enum": number_grid(float(low), float(high), integer=kind == "integer")}


def is_strict(schema: Mapping[str, Any]) -> bool:
    """Whether every object in schema names its properties, requires all of them and forbids others.

    A free mapping (an object with no properties) cannot be sent with ``strict: true``.
    """
    for node in _nodes(schema):
        if node.get("type") == "object" or "properties" in node:
            properties = node.get("properties")
            if not isinstance(properties, Mapping) or node.get("additionalProperties") is not False:
                return False
            if sorted(node.get("required", [])) != sorted(properties):
                return False
    return True


def _nodes(node: Any) -> Iterator[Mapping[str, Any]]:
    if isinstance(node, Mapping):
        yield node
        for value in node.values():
            yield from _nodes(value)
    elif isinstance(node, list):
        for item in node:
            yield from _nodes(item)


def example_of(schema: Mapping[str, Any]) -> Any:
    """A small value that has schema's shape (the first option of an enum, "..." for text).

    Shown instead of the schema to endpoints that do not enforce it: a compact example is
    followed far better by small models than a JSON schema, which they tend to echo.
    """
    if "enum" in schema:
        return schema["enum"][0]
    if "const" in schema:
        return schema["const"]
    if "anyOf" in schema:
        branches = [b for b in schema["anyOf"] if b.get("type") != "null"] or schema["anyOf"]
        return example_of(branches[0])
    kind = schema.get("type")
    if kind == "object" or "properties" in schema:
        return {name: example_of(sub) for name, sub in schema.get("properties", {}).items()}
    if kind == "array":
        items = schema.get("items", {})
        return [example_of(items) for _ in range(max(1, int(schema.get("minItems", 1))))]
    if kind in ("number", "integer"):
        low = schema.get("minimum", schema.get("exclusiveMinimum", 0))
        return int(low) if kind == "integer" else low
    if kind == "boolean":
        return False
    if kind == "null":
        return None
    return "..."


def example_text(schema: Mapping[str, Any]) -> str:
    """`example_of` as one line of JSON."""
    return json.dumps(example_of(schema), ensure_ascii=False)


def package_schema(issues: Mapping[str, Sequence[Any]], *, nullable: bool = False) -> dict[str, Any]:
    """A package as an object with one required property per issue, each an enum of its options.

    Args:
        issues: Issue (or topic) name → its legal options, in order.
        nullable: Allow null instead of a package.
    """
    package: dict[str, Any] = {
        "type": "object",
        "properties": {name: {"enum": list(options)} for name, options in issues.items()},
        "required": list(issues),
        "additionalProperties": False,
    }
    return {"anyOf": [package, {"type": "null"}]} if nullable else package


def names_schema(names: Sequence[str]) -> dict[str, Any]:
    """A list of names, each one of names, at most as many as there are (issue names in priority
    order, for example)."""
    return {"type": "array", "items": {"enum": list(names)}, "maxItems": len(names)}


def sized_list(items: Mapping[str, Any], count: int) -> dict[str, Any]:
    """A list of exactly count items of schema items (one score per thought, a full ranking)."""
    return {"type": "array", "items": dict(items), "minItems": count, "maxItems": count}
