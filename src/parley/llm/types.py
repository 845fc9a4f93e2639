"""Value objects exchanged with an LLM endpoint: messages, requests, responses and token usage.

A request is hashable into a stable key (`request_key`) used by the cache and by record/replay.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

MessageRole = Literal["system", "user", "assistant"]
ResponseMode = Literal["json_schema", "json_object", "text"]
"""How structured output is asked for: the endpoint's JSON-schema format, JSON mode, or plain text."""


@dataclass(frozen=True, slots=True)
class Message:
    """One chat message.

    Attributes:
        role: "system", "user" or "assistant".
        content: The text.
    """

    role: MessageRole
    content: str

    def to_json(self) -> dict[str, str]:
        """The OpenAI wire form."""
        return {"role": self.role, "content": self.content}


@dataclass(frozen=True, slots=True)
class LLMRequest:
    """Everything that determines a completion (and so its cache key).

    Attributes:
        model: Model name at the endpoint.
        messages: The conversation, system prompt first.
        schema: JSON schema the reply must satisfy, or None for free text.
        schema_name: Name sent with the schema (letters, digits, _ and -).
        temperature: Sampling temperature.
        max_tokens: Cap on reply tokens, or None for the endpoint's default.
        seed: Sampling seed passed to endpoints that honour it, or None.
        mode: How structured output is requested (the client may downgrade it).
        format_hint: Text the client appends to the system prompt when the endpoint does not
            enforce schema (JSON mode or plain text): a compact example of the reply. An endpoint
            that enforces the schema never sees it, so prompts carry no schema text there.
    """

    model: str
    messages: tuple[Message, ...]
    schema: Mapping[str, Any] | None = None
    schema_name: str = "reply"
    temperature: float = 0.0
    max_tokens: int | None = None
    seed: int | None = None
    mode: ResponseMode = "json_schema"
    format_hint: str | None = None

    def to_json(self) -> dict[str, Any]:
        """A JSON-ready dict with every field (secrets are never part of a request; an absent
        format hint is left out, so requests without one keep their keys)."""
        data: dict[str, Any] = {
            "model": self.model,
            "messages": [m.to_json() for m in self.messages],
            "schema": dict(self.schema) if self.schema is not None else None,
            "schema_name": self.schema_name,
            "temperature": self.temperature,
            "max_tokens": self.max_tokens,
            "seed": self.seed,
            "mode": self.mode,
        }
        if self.format_hint is not None:
            data["format_hint"] = self.format_hint
        return data

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> LLMRequest:
        """Inverse of to_json."""
        return cls(
            model=str(data["model"]),
            messages=tuple(Message(m["role"], m["content"]) for m in data["messages"]),
            schema=data.get("schema"),
            schema_name=str(data.get("schema_name", "reply")),
            temperature=float(data.get("temperature", 0.0)),
            max_tokens=data.get("max_tokens"),
            seed=data.get("seed"),
            mode=data.get("mode", "json_schema"),
            format_hint=data.get("format_hint"),
        )

    @property
    def key(self) -> str:
        """Stable SHA-256 of the full request (hex)."""
        return request_key(self)


def request_key(request: LLMRequest) -> str:
    """SHA-256 (hex) of the request's canonical JSON: model, messages, schema, sampling settings."""
    canonical = json.dumps(request.to_json(), sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return hashlib.sha256(canonical.encode("utf-8")).hexdigest()


@dataclass(frozen=True, slots=True)
class TokenUsage:
    """Tokens one call consumed.

    Attributes:
        prompt_tokens: Tokens in.
        completion_tokens: Tokens out.
        estimated: True when the endpoint reported nothing and the counts are estimates.
    """

    prompt_tokens: int = 0
    completion_tokens: int = 0
    estimated: bool = False


@dataclass(frozen=True, slots=True)
class LLMResponse:
    """One completion.

    Attributes:
        text: The reply content.
        model: Model that answered (as the endpoint reports it).
        usage: Token counts.
        latency_s: Seconds the live call took (as recorded, so replays report the same).
        finish_reason: The endpoint's finish reason, if given.
        source: Where the reply came from: "endpoint", "cache", "replay" or "fake".
    """

    text: str
    model: str
    usage: TokenUsage = field(default_factory=TokenUsage)
    latency_s: float = 0.0
    finish_reason: str | None = None
    source: str = "endpoint"

    def to_json(self) -> dict[str, Any]:
        """A JSON-ready dict (source omitted: it describes this process, not the reply)."""
        return {
            "text": self.text,
            "model": self.model,
            "usage": {
                "prompt_tokens": self.usage.prompt_tokens,
                "completion_tokens": self.usage.completion_tokens,
                "estimated": self.usage.estimated,
            },
            "latency_s": round(self.latency_s, 6),
            "finish_reason": self.finish_reason,
        }

    @classmethod
    def from_json(cls, data: Mapping[str, Any], *, source: str) -> LLMResponse:
        """Inverse of to_json, tagging where the reply came from."""
        usage = data.get("usage", {})
        return cls(
            text=str(data["text"]),
            model=str(data.get("model", "")),
            usage=TokenUsage(
                int(usage.get("prompt_tokens", 0)),
                int(usage.get("completion_tokens", 0)),
                bool(usage.get("estimated", False)),
            ),
            latency_s=float(data.get("latency_s", 0.0)),
            finish_reason=data.get("finish_reason"),
            source=source,
        )


def conversation(system: str, user: str, history: Sequence[Message] = ()) -> tuple[Message, ...]:
    """System prompt, optional earlier turns, then the user prompt."""
    return (Message("system", system), *history, Message("user", user))
