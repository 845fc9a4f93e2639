"""The LLM side of one session: which client each role uses, its usage ledger and its llm events.

Roles note events (``llm_fallback``, ``llm_guard``) here while the session runs; `finish` appends
them, then an ``llm_usage`` summary, to the session's trajectory once it has ended.
"""

from __future__ import annotations

import threading
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from parley.errors import LLMError
from parley.llm.accounting import UsageLedger, UsageSummary
from parley.llm.bridge import EventLoopThread, default_bridge
from parley.llm.client import LLMClient
from parley.protocol.events import PUBLIC, Trajectory

DEFAULT_ROLE = "default"
"""Key of the client used by roles without an override."""


@dataclass(frozen=True, slots=True)
class PendingEvent:
    """An llm event waiting to be appended to the trajectory.

    Attributes:
        kind: Event kind ("llm_fallback", "llm_guard", ...).
        round: Round it happened in.
        party: The party concerned, if any.
        data: JSON payload.
        audience: "public" or the one party that may see it.
    """

    kind: str
    round: int
    party: str | None
    data: Mapping[str, Any]
    audience: str = PUBLIC


class LLMSession:
    """Clients, accounting and llm events for one negotiation session.

    Args:
        clients: One client for every role, or clients by role name ("default" for the rest; a
            session may have role clients only, e.g. just a judge).
        session_id: Name of the session in usage summaries.
        ledger: Usage ledger (share one across a batch; default: a new one).
        bridge: Event-loop thread synchronous calls run on (default: the process-wide one).
        temperature: Sampling temperature for every role.
        seed: Sampling seed passed to endpoints (None: not sent).
        max_tokens: Cap on reply tokens for every role, or caps by role or output model name (see
            `LLMSettings.max_tokens`; None: each role's own default).
        strict: The first fallback to a twin is an error (`LLMSession.finish` raises it).

    Raises:
        LLMError: no client was given.
    """

    def __init__(
        self,
        clients: LLMClient | Mapping[str, LLMClient],
        *,
        session_id: str = "session",
        ledger: UsageLedger | None = None,
        bridge: EventLoopThread | None = None,
        temperature: float = 0.0,
        seed: int | None = None,
        max_tokens: int | Mapping[str, int] | None = None,
        strict: bool = False,
    ) -> None:
        self._clients = dict(clients) if isinstance(clients, Mapping) else {DEFAULT_ROLE: clients}
        if not self._clients:
            raise LLMError("no LLM configured; pass --llm SPEC or --llm-role ROLE=SPEC")
        self.session_id = session_id
        self.ledger = ledger or UsageLedger()
        self.bridge = bridge or default_bridge()
        self.temperature = temperature
        self.seed = seed
        self.max_tokens = max_tokens
        self.strict = strict
        self._lock = threading.Lock()
        self._events: list[PendingEvent] = []
        self._fatal: LLMError | None = None

    def client(self, role: str) -> LLMClient:
        """The client for role (its override, else the default).

        Raises:
            LLMError: neither the role nor the default has a client.
        """
        client = self._clients.get(role) or self._clients.get(DEFAULT_ROLE)
        if client is None:
            raise LLMError(
                f"no LLM configured for role {role!r} (only for {', '.join(sorted(self._clients))}); "
                f"pass --llm SPEC or --llm-role {role}=SPEC"
            )
        return client

    def note(
        self,
        kind: str,
        data: Mapping[str, Any],
        *,
        round: int = 0,
        party: str | None = None,
        audience: str = PUBLIC,
    ) -> None:
        """Queue an llm event for the trajectory."""
        with self._lock:
            self._events.append(PendingEvent(kind, round, party, dict(data), audience))

    def fail(self, error: LLMError) -> None:
        """Remember an error that must surface after the session (a replay miss, a strict fallback)."""
        with self._lock:
            self._fatal = self._fatal or error

    @property
    def events(self) -> tuple[PendingEvent, ...]:
        """Events queued so far."""
        with self._lock:
            return tuple(self._events)

    def usage(self) -> UsageSummary:
        """This session's usage."""
        return self.ledger.summary(self.session_id)

    def finish(self, trajectory: Trajectory) -> UsageSummary:
        """Append the queued llm events and an ``llm_usage`` event to a finished session's trajectory.

        Returns:
            This session's usage summary.

        Raises:
            LLMError: an error that must not pass silently happened during the session (a replay
                miss, or a fallback under ``strict``).
        """
        time = trajectory[-1].time if len(trajectory) else 0.0
        last_round = trajectory[-1].round if len(trajectory) else 0
        with self._lock:
            events, self._events = self._events, []
            fatal = self._fatal
        for event in events:
            trajectory.append(
                event.kind,
                round=event.round,
                party=event.party,
                data=event.data,
                audience=event.audience,
                time=time,
            )
        summary = self.usage()
        trajectory.append("llm_usage", round=last_round, data=summary.to_json(), time=time)
        if fatal is not None:
            raise fatal
        return summary
