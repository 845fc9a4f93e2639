"""The generic LLM role: template → client → parse/repair/validate → re-ask once → twin fallback.

Every LLM-backed participant is a `Role` over a pydantic output model plus a prompt template; the
caller supplies a validator for checks pydantic cannot make (legal packages, facts) and runs the
role's deterministic twin whenever `RoleOutcome.value` is None. The role records the fallback
(an ``llm_fallback`` event and a usage count) so callers only decide what the twin does.
"""

from __future__ import annotations

import logging
import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, Generic

from parley.errors import InternalError, LLMError
from parley.llm.cache import ReplayMiss
from parley.llm.client import EndpointError
from parley.llm.context import LLMSession
from parley.llm.prompts import PromptTemplate, load_template
from parley.llm.structured import (
    OutputT,
    ReplyInvalid,
    example_text,
    max_reply_chars,
    parse_reply,
    schema_of,
    schema_text,
    strict_schema,
)
from parley.llm.types import LLMRequest, LLMResponse, Message, conversation
from parley.protocol.events import PUBLIC

logger = logging.getLogger(__name__)

Validator = Callable[[OutputT], OutputT]
"""Checks (and may repair) a parsed output; raises ValueError with a message the model can act on."""

SchemaOverrides = Mapping[str, Mapping[str, Any]]
"""Per-call schemas of properties by name (a package as enums of the legal options, ...)."""

MAX_DETAIL = 300
"""Characters of an error kept in an ``llm_fallback`` event."""

MAX_QUOTE = 2000
"""Characters of an unusable reply quoted back in a re-ask (the rest is cut, so a runaway reply
never makes the re-ask huge)."""

DEFAULT_MAX_TOKENS = 800
"""Reply-token cap of a role whose output schema leaves a string or a list open."""

CHARS_PER_TOKEN = 3
"""Characters of compact JSON per token assumed when sizing a cap from a schema (English prose
runs about 4; JSON punctuation and enum names nearer 3)."""


def reply_cap(schema: Mapping[str, Any]) -> int | None:
    """The default reply-token cap for schema: the longest reply it allows (every string at its
    maxLength, every list at its maxItems) at `CHARS_PER_TOKEN`, plus 10 % and 10 tokens for
    whitespace (at least 32); None when schema leaves a string or a list open.

    Every built-in reply schema is bounded, so a cap is small (32–800 tokens, most under 260) and
    never cuts off a reply the schema allows; a reply cut off at the cap is invalid and re-asked.
    """
    longest = max_reply_chars(schema)
    return None if longest is None else max(32, math.ceil(longest / CHARS_PER_TOKEN * 1.1) + 10)


REASK_TEMPERATURE = 0.7
"""Lowest sampling temperature of a re-ask: at temperature 0 a re-ask mostly got the same invalid
reply back (6 of 13 in the smoke run). The re-ask also moves the seed on by one; both are in the
request, so a recording replays it exactly."""

_INVALID_CAUSES = {
    "malformed": "no JSON object in the reply",
    "schema_invalid": "the reply failed validation",
    "truncated": "the reply was cut off at max_tokens",
}


@dataclass(frozen=True, slots=True)
class RoleOutcome(Generic[OutputT]):
    """What one role call produced.

    Attributes:
        value: The validated output, or None when the caller must use the twin.
        fallback: Why the twin is needed ("malformed", "schema_invalid", "truncated",
            "endpoint_error", "circuit_open", "budget_exhausted"), or None.
        detail: The last error, for logs.
        calls: LLM calls made (1, or 2 after a re-ask).
        repaired: The accepted reply needed JSON extraction or repair.
    """

    value: OutputT | None
    fallback: str | None = None
    detail: str = ""
    calls: int = 0
    repaired: bool = False


class Role(Generic[OutputT]):
    """One LLM-backed role bound to a session.

    Args:
        name: Role name; picks the client (per-role overrides) and labels usage ("negotiator").
        output: The pydantic model every reply must validate against; it must have required
            fields, so an empty or unrelated JSON object is never a valid answer.
        template: Prompt template, or the name of a file in ``parley/llm/prompts``. Shipped
            templates carry no schema: the endpoint enforces it, or the client appends a compact
            example reply (``format``). The variable ``output_schema`` (the strict schema as JSON)
            is still supplied for custom templates.
        llm: The session's LLM side.
        party: Party whose private event stream fallbacks go to (None: public events).
        max_tokens: Reply-token cap (default: `reply_cap` of each call's schema, else
            `DEFAULT_MAX_TOKENS`; the session's ``max_tokens`` overrides it, for every role or by
            role or model name).

    Raises:
        InternalError: the output model has no required field.
        LLMError: the session has no client for this role.
    """

    def __init__(
        self,
        name: str,
        output: type[OutputT],
        template: PromptTemplate | str,
        llm: LLMSession,
        *,
        party: str | None = None,
        max_tokens: int | None = None,
    ) -> None:
        if not schema_of(output).get("required"):
            raise InternalError(f"output model {output.__name__} of role {name!r} has no required field")
        llm.client(name)  # no client for this role is a set-up error, not a fallback on every call
        self.name = name
        self.output = output
        self.template = load_template(template) if isinstance(template, str) else template
        self.llm = llm
        self.party = party
        self.max_tokens = max_tokens
        self._reask = load_template("reask")
        self._format = load_template("format")

    def messages(self, variables: Mapping[str, Any]) -> tuple[Message, ...]:
        """The first request's conversation for these variables."""
        system, user = self.template.render({**variables, "output_schema": schema_text(self.output)})
        return conversation(system, user)

    def request(
        self,
        messages: tuple[Message, ...],
        overrides: SchemaOverrides | None = None,
        *,
        reask: bool = False,
    ) -> LLMRequest:
        """A request for messages with the call's strict schema and this session's sampling
        settings (a re-ask samples at `REASK_TEMPERATURE` or above, with the next seed)."""
        schema = strict_schema(self.output, overrides)
        _, hint = self._format.render({"example": example_text(schema)})
        temperature, seed = self.llm.temperature, self.llm.seed
        if reask:
            temperature = max(temperature, REASK_TEMPERATURE)
            seed = None if seed is None else seed + 1
        return LLMRequest(
            model=self.llm.client(self.name).model,
            messages=messages,
            schema=schema,
            schema_name=self.output.__name__,
            temperature=temperature,
            max_tokens=self.cap(schema),
            seed=seed,
            format_hint=hint,
        )

    def cap(self, schema: Mapping[str, Any]) -> int:
        """The reply-token cap sent with schema: the session's setting for this role, else the
        role's own, else `reply_cap` of the schema (`DEFAULT_MAX_TOKENS` for an open one)."""
        setting = self.llm.max_tokens
        if isinstance(setting, int):
            return setting
        caps = setting or {}
        chosen = caps.get(self.output.__name__) or caps.get(self.name) or self.max_tokens
        return chosen or reply_cap(schema) or DEFAULT_MAX_TOKENS

    def call(
        self,
        variables: Mapping[str, Any],
        *,
        validate: Validator[OutputT] | None = None,
        round: int = 0,
        overrides: SchemaOverrides | None = None,
    ) -> RoleOutcome[OutputT]:
        """Synchronous `acall` (runs on the session's event-loop thread; never nests loops)."""
        return self.llm.bridge.run(self.acall(variables, validate=validate, round=round, overrides=overrides))

    async def acall(
        self,
        variables: Mapping[str, Any],
        *,
        validate: Validator[OutputT] | None = None,
        round: int = 0,
        overrides: SchemaOverrides | None = None,
    ) -> RoleOutcome[OutputT]:
        """Ask the model, re-ask once on an unusable reply, and report a fallback otherwise.

        A reply cut off at the token cap (finish_reason "length") is unusable like malformed JSON.
        overrides narrow the sent schema for this call (see `strict_schema`); the reply is still
        validated against the output model and by validate.

        Raises:
            ReplayMiss: replaying and this request was never recorded (also kept for `LLMSession.finish`).
            LLMError: the session is strict and the role fell back (also kept for `LLMSession.finish`).
        """
        messages = self.messages(variables)
        failure = ReplyInvalid("malformed", "no reply")
        for calls in (1, 2):
            try:
                request = self.request(messages, overrides, reask=calls > 1)
                response = await self._complete(request)
            except ReplayMiss:
                raise
            except EndpointError as error:
                return self._fallback(error.kind, str(error), calls, round, error.root)
            except LLMError as error:
                return self._fallback("endpoint_error", str(error), calls, round, str(error)[:MAX_DETAIL])
            try:
                if response.finish_reason == "length":
                    raise ReplyInvalid(
                        "truncated",
                        f"the reply was cut off at the limit of {request.max_tokens} tokens; "
                        "answer with a shorter JSON object",
                    )
                parsed = parse_reply(response.text, self.output)
                value = validate(parsed.value) if validate is not None else parsed.value
                self.llm.ledger.record_decision(self.llm.session_id, self.name)
                return RoleOutcome(value, calls=calls, repaired=parsed.repaired)
            except ReplyInvalid as error:
                failure = error
            except ValueError as error:
                failure = ReplyInvalid("schema_invalid", str(error))
            logger.info("%s reply unusable (%s: %s)", self.name, failure.kind, failure)
            _, error_text = self._reask.render({"error": str(failure)})
            messages = (*messages, Message("assistant", _quote(response.text)), Message("user", error_text))
        return self._fallback(
            failure.kind, str(failure), 2, round, _INVALID_CAUSES.get(failure.kind, failure.kind)
        )

    async def _complete(self, request: LLMRequest) -> LLMResponse:
        try:
            response = await self.llm.client(self.name).complete(request)
        except ReplayMiss as miss:
            self.llm.fail(miss)
            raise
        self.llm.ledger.record(self.llm.session_id, self.name, response)
        return response

    def _fallback(self, reason: str, detail: str, calls: int, round: int, cause: str) -> RoleOutcome[OutputT]:
        logger.info("%s falls back to its deterministic twin (%s: %s)", self.name, reason, cause)
        self.llm.ledger.record_decision(self.llm.session_id, self.name, cause)
        self.llm.note(
            "llm_fallback",
            {"role": self.name, "reason": reason, "detail": detail[:MAX_DETAIL], "calls": calls},
            round=round,
            party=self.party,
            audience=self.party or PUBLIC,
        )
        if self.llm.strict:
            error = LLMError(
                f"llm: --llm-strict: role {self.name} fell back to its rule twin ({reason}: {cause})"
            )
            self.llm.fail(error)
            raise error
        return RoleOutcome(None, reason, detail, calls)


def _quote(text: str) -> str:
    """An unusable reply as quoted back in a re-ask: at most `MAX_QUOTE` characters."""
    if len(text) <= MAX_QUOTE:
        return text
    return text[:MAX_QUOTE] + f"… [{len(text) - MAX_QUOTE} more characters cut]"
