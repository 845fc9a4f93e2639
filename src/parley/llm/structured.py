"""Structured output: pull a JSON object out of a reply, repair it, validate it with pydantic.

Order of attempts: the reply as JSON; the first fenced or braced block in it; `json_repair` over
the whole reply. Whatever parses must then validate against the role's output model.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any, Generic, TypeVar

import json_repair
from pydantic import BaseModel, ValidationError

OutputT = TypeVar("OutputT", bound=BaseModel)

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
    """The JSON schema sent to endpoints and shown in prompts."""
    return output.model_json_schema()


def schema_text(output: type[BaseModel]) -> str:
    """The schema as compact, stable JSON for a prompt."""
    return json.dumps(schema_of(output), sort_keys=True, separators=(",", ":"))
