"""The parley exception tree, split by whose fault an error is."""

from __future__ import annotations

from typing import Any


class ParleyError(Exception):
    """Root of every error parley raises on purpose."""


class ScenarioError(ParleyError):
    """A scenario or configuration file (or object) is invalid.

    Attributes:
        source: The file (or other origin) the bad input came from, if known.
        field: Dotted path to the offending field, if known.
    """

    def __init__(self, message: str, *, source: str | None = None, field: str | None = None) -> None:
        self.source = source
        self.field = field
        where = ": ".join(part for part in (source, field) if part)
        super().__init__(f"{where}: {message}" if where else message)


class StaleDecision(ScenarioError):
    """A decision or message was meant for a session state that is no longer current.

    Raised when a decision names a request that is not the pending one (answered already, unknown,
    or superseded) or when the session changed since the caller read it; nothing was applied.

    Attributes:
        pending: The request pending now, if any.
    """

    def __init__(self, message: str, *, pending: str | None, source: str | None = None) -> None:
        self.pending = pending
        now = f"; pending now: {pending}" if pending else "; no request is pending now"
        super().__init__(message + now, source=source, field="request_id")


class ProtocolViolation(ParleyError):
    """A party broke the rules of the protocol (illegal action, malformed package, exception, timeout).

    Attributes:
        party: The offending party.
        action: The offending action (or a description of it), if any.
    """

    def __init__(self, message: str, *, party: str, action: Any = None) -> None:
        self.party = party
        self.action = action
        super().__init__(f"{party}: {message}")


class LLMError(ParleyError):
    """An LLM endpoint failed, or returned unusable output after retries."""


class InternalError(ParleyError):
    """A bug in parley itself: an invariant that should always hold did not."""
