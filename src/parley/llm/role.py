"""The generic LLM role: template → client → parse/repair/validate → re-ask once → twin fallback.

Every LLM-backed participant is a `Role` over a pydantic output model plus a prompt template; the
caller supplies a validator for checks pydantic cannot make (legal packages, facts) and runs the
role's deterministic twin whenever `RoleOutcome.value` is None. The role records the fallback
(an ``llm_fallback`` event and a usage count) so callers only decide what the twin does.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, Generic

from parley.errors import LLMError
from parley.llm.cache import ReplayMiss
from parley.llm.context import LLMSession
from parley.llm.prompts import PromptTemplate, load_template
from parley.llm.structured import OutputT, ReplyInvalid, parse_reply, schema_of, schema_text
from parley.llm.types import LLMRequest, LLMResponse, Message, conversation
from parley.protocol.events import PUBLIC

logger = logging.getLogger(__name__)

Validator = Callable[[OutputT], OutputT]
"""Checks (and may repair) a parsed output; raises ValueError with a message the model can act on."""

MAX_DETAIL = 300
"""Characters of an error kept in an ``llm_fallback`` event."""


@dataclass(frozen=True, slots=True)
class RoleOutcome(Generic[OutputT]):
    """What one role call produced.

    Attributes:
        value: The validated output, or None when the caller must use the twin.
        fallback: Why the twin is needed ("malformed", "schema_invalid", "endpoint_error"), or None.
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
        output: The pydantic model every reply must validate against.
        template: Prompt template, or the name of a file in ``parley/llm/prompts``. The variable
            ``output_schema`` (the model's JSON schema) is always supplied.
        llm: The session's LLM side.
        party: Party whose private event stream fallbacks go to (None: public events).
    """

    def __init__(
        self,
        name: str,
        output: type[OutputT],
        template: PromptTemplate | str,
        llm: LLMSession,
        *,
        party: str | None = None,
    ) -> None:
        self.name = name
        self.output = output
        self.template = load_template(template) if isinstance(template, str) else template
        self.llm = llm
        self.party = party
        self._reask = load_template("reask")

    def messages(self, variables: Mapping[str, Any]) -> tuple[Message, ...]:
        """The first request's conversation for these variables."""
        system, user = self.template.render({**variables, "output_schema": schema_text(self.output)})
        return conversation(system, user)

    def request(self, messages: tuple[Message, ...]) -> LLMRequest:
        """A request for messages with this session's sampling settings."""
        return LLMRequest(
            model=self.llm.client(self.name).model,
            messages=messages,
            schema=schema_of(self.output),
            schema_name=self.output.__name__,
            temperature=self.llm.temperature,
            max_tokens=self.llm.max_tokens,
            seed=self.llm.seed,
        )

    def call(
        self, variables: Mapping[str, Any], *, validate: Validator[OutputT] | None = None, round: int = 0
    ) -> RoleOutcome[OutputT]:
        """Synchronous `acall` (runs on the session's event-loop thread; never nests loops)."""
        return self.llm.bridge.run(self.acall(variables, validate=validate, round=round))

    async def acall(
        self, variables: Mapping[str, Any], *, validate: Validator[OutputT] | None = None, round: int = 0
    ) -> RoleOutcome[OutputT]:
        """Ask the model, re-ask once on an unusable reply, and report a fallback otherwise.

        Raises:
            ReplayMiss: replaying and this request was never recorded (also kept for `LLMSession.finish`).
        """
        messages = self.messages(variables)
        failure = ReplyInvalid("malformed", "no reply")
        for calls in (1, 2):
            try:
                response = await self._complete(messages)
            except ReplayMiss:
                raise
            except LLMError as error:
                return self._fallback("endpoint_error", str(error), calls, round)
            try:
                parsed = parse_reply(response.text, self.output)
                value = validate(parsed.value) if validate is not None else parsed.value
                return RoleOutcome(value, calls=calls, repaired=parsed.repaired)
            except ReplyInvalid as error:
                failure = error
            except ValueError as error:
                failure = ReplyInvalid("schema_invalid", str(error))
            logger.info("%s reply unusable (%s: %s)", self.name, failure.kind, failure)
            _, error_text = self._reask.render({"error": str(failure)})
            messages = (*messages, Message("assistant", response.text), Message("user", error_text))
        return self._fallback(failure.kind, str(failure), 2, round)

    async def _complete(self, messages: tuple[Message, ...]) -> LLMResponse:
        try:
            response = await self.llm.client(self.name).complete(self.request(messages))
        except ReplayMiss as miss:
            self.llm.fail(miss)
            raise
        self.llm.ledger.record(self.llm.session_id, self.name, response)
        return response

    def _fallback(self, reason: str, detail: str, calls: int, round: int) -> RoleOutcome[OutputT]:
        logger.warning("%s falls back to its deterministic twin (%s)", self.name, reason)
        self.llm.ledger.record_fallback(self.llm.session_id, self.name)
        self.llm.note(
            "llm_fallback",
            {"role": self.name, "reason": reason, "detail": detail[:MAX_DETAIL], "calls": calls},
            round=round,
            party=self.party,
            audience=self.party or PUBLIC,
        )
        return RoleOutcome(None, reason, detail, calls)
