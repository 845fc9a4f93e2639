"""Pydantic payloads of the web console's JSON API (requests and responses), built from governance objects.

The web layer only translates: every model is filled from `parley.governance` values, never computed.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, StringConstraints

from parley.governance.audit import VerifyReport
from parley.governance.escalation import Decision, EscalationOption, EscalationRequest
from parley.governance.session import SessionOutcome
from parley.governance.tci import TaskCompletenessIndex

OptionKey = Annotated[
    str, StringConstraints(strip_whitespace=True, to_upper=True, min_length=1, max_length=8)
]
Name = Annotated[str, StringConstraints(strip_whitespace=True, min_length=1, max_length=200)]


class ErrorBody(BaseModel):
    """Every error answer: one human-readable sentence."""

    detail: str


class Health(BaseModel):
    """`GET /api/health`."""

    status: Literal["ok"] = "ok"
    version: str
    database: str
    sessions: int


class Message(BaseModel):
    """One message of a conversation."""

    speaker: str
    text: str


class Option(BaseModel):
    """One option put to the principal, with its trade-offs."""

    key: str
    title: str
    trade_offs: str
    effect: str
    parameters: dict[str, Any]

    @classmethod
    def of(cls, option: EscalationOption) -> Option:
        """From a governance option."""
        return cls.model_validate(option.to_json())


class Ledger(BaseModel):
    """TCI (Task Completeness Index) snapshot: what is known and what is missing."""

    tci: float
    tci_weighted: float
    revealed: dict[str, Any]
    soft: dict[str, list[Any]] = Field(default_factory=lambda: {})
    missing: list[str]

    @classmethod
    def of(cls, index: TaskCompletenessIndex) -> Ledger:
        """From a session's live TCI state."""
        return cls(
            tci=round(index.value, 6),
            tci_weighted=round(index.weighted, 6),
            revealed=dict(index.confirmed),
            soft={name: list(values) for name, values in index.soft.items()},
            missing=list(index.missing),
        )


class Escalation(BaseModel):
    """A stored escalation request (§3.4: situation, problem, options with trade-offs, explicit ask)."""

    request_id: str
    session_id: str
    trigger: str
    status: Literal["open", "decided"]
    state: str
    last_messages: list[Message]
    ledger: Ledger
    problem: str
    boundary_at_risk: dict[str, Any]
    safety_events: list[str]
    options: list[Option]
    ask: str
    created: float

    @classmethod
    def of(cls, request: EscalationRequest, status: str = "open") -> Escalation:
        """From a governance request and its stored status."""
        data = request.to_json()
        data["last_messages"] = [{"speaker": s, "text": t} for s, t in request.last_messages]
        return cls.model_validate({**data, "status": status})


class DecisionRecord(BaseModel):
    """A stored decision: who decided what, and when."""

    request_id: str
    option: str | None
    guidance: str
    decided_by: str
    decided_at: float

    @classmethod
    def of(cls, decision: Decision) -> DecisionRecord:
        """From a governance decision."""
        return cls.model_validate(decision.to_json())


class InboxItem(BaseModel):
    """A session waiting for the principal, with its open request."""

    session_id: str
    config: str
    counterparty: str | None
    request: Escalation


class Inbox(BaseModel):
    """`GET /api/inbox`."""

    items: list[InboxItem]


class SessionSummary(BaseModel):
    """One line of `GET /api/sessions`."""

    session_id: str
    config: str
    counterparty: str | None
    seed: int | None
    state: str
    pending_request: str | None


class SessionList(BaseModel):
    """`GET /api/sessions`."""

    sessions: list[SessionSummary]


class TranscriptEntry(BaseModel):
    """One public event of the conversation: a message, an escalation or a decision."""

    seq: int
    time: float
    kind: Literal["message", "escalation", "decision"]
    speaker: str
    text: str
    request_id: str | None = None


class SessionDetail(BaseModel):
    """`GET /api/sessions/{id}`."""

    session_id: str
    config: str
    counterparty: str | None
    seed: int | None
    state: str
    paused: bool
    terminal: bool
    turns: int
    terms: dict[str, Any]
    tci: Ledger
    pending: Escalation | None
    transcript: list[TranscriptEntry]
    escalations: list[Escalation]
    decisions: list[DecisionRecord]


class DecideBody(BaseModel):
    """`POST /api/sessions/{id}/decide`: an option letter, guidance text, or both; and who decides."""

    model_config = ConfigDict(extra="forbid")
    option: OptionKey | None = None
    guidance: Annotated[str, StringConstraints(strip_whitespace=True, max_length=4000)] = ""
    decided_by: Name


class ReplyBody(BaseModel):
    """`POST /api/sessions/{id}/reply`: one inbound counterparty message (e-mail body, chat line)."""

    model_config = ConfigDict(extra="forbid")
    message: Annotated[str, StringConstraints(strip_whitespace=True, min_length=1, max_length=20000)]


class StepResult(BaseModel):
    """Where a session stands after a decision or a reply, and the messages that step produced."""

    session_id: str
    state: str
    paused: bool
    turns: int
    terms: dict[str, Any]
    pending: Escalation | None
    messages: list[Message]

    @classmethod
    def of(cls, outcome: SessionOutcome, messages: list[Message]) -> StepResult:
        """From a governance outcome."""
        pending = Escalation.of(outcome.pending) if outcome.pending is not None else None
        return cls(
            session_id=outcome.session_id,
            state=outcome.state.value,
            paused=outcome.paused,
            turns=outcome.turns,
            terms=dict(outcome.terms),
            pending=pending,
            messages=messages,
        )


class AuditStatus(BaseModel):
    """`GET /api/sessions/{id}/audit`: the hash chain is intact, or where it breaks."""

    session_id: str
    ok: bool
    entries: int
    head: str
    first_bad: int | None
    problems: list[str]

    @classmethod
    def of(cls, session_id: str, report: VerifyReport) -> AuditStatus:
        """From a governance verification report."""
        return cls(
            session_id=session_id,
            ok=report.ok,
            entries=report.entries,
            head=report.head,
            first_bad=report.first_bad,
            problems=list(report.problems),
        )
