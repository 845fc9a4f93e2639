"""Pydantic payloads of the web console's JSON API (requests and responses), built from governance objects.

The web layer only translates: every model is filled from `parley.governance` values, never computed.
Every answer model derives from `Served`, which passes each string it is built from (also inside
nested dicts and lists) through `printable`: counterparty text reaches the page without control
characters, terminal escape sequences or bidi overrides.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Annotated, Any, Literal, cast

from pydantic import BaseModel, ConfigDict, Field, StringConstraints, ValidationError, model_validator

from parley.governance.audit import VerifyReport
from parley.governance.escalation import Decision, EscalationOption, EscalationRequest
from parley.governance.safe_text import printable
from parley.governance.session import SessionOutcome
from parley.governance.tci import TaskCompletenessIndex
from parley.governance.term_guard import MAX_QUOTE, UNEXPLAINED
from parley.protocol import governed
from parley.protocol.events import Event

OptionKey = Annotated[
    str, StringConstraints(strip_whitespace=True, to_upper=True, min_length=1, max_length=8)
]
RequestId = Annotated[str, StringConstraints(strip_whitespace=True, min_length=1, max_length=300)]


def _printable_values(value: Any) -> Any:
    """value with every string in it (dict keys too) passed through `printable`; models are left alone."""
    if isinstance(value, str):
        return printable(value)
    if isinstance(value, dict):
        return {_printable_values(key): _printable_values(item) for key, item in value.items()}
    if isinstance(value, list | tuple):
        return [_printable_values(item) for item in value]
    return value


class Served(BaseModel):
    """Base of every answer: strings are made printable before they are validated into the model."""

    @model_validator(mode="before")
    @classmethod
    def _printable(cls, data: Any) -> Any:
        return _printable_values(data)


class ErrorBody(Served):
    """Every error answer: one human-readable sentence."""

    detail: str


class Health(Served):
    """`GET /api/health` (database and sessions only for a signed-in principal)."""

    status: Literal["ok"] = "ok"
    version: str
    database: str | None = None
    sessions: int | None = None


class SessionInfo(Served):
    """`GET /api/session-info`: who is signed in, until when, and the CSRF token for writes."""

    principal: str
    expires: float
    csrf_token: str


class LoginBody(BaseModel):
    """`POST /api/login`: the principal's token (printed once by `parley web --init`)."""

    model_config = ConfigDict(extra="forbid")
    token: Annotated[str, StringConstraints(strip_whitespace=True, min_length=1, max_length=200)]


class Message(Served):
    """One message of a conversation."""

    speaker: str
    text: str


class Option(Served):
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


class Ledger(Served):
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


class ComparisonRow(Served):
    """One counterparty's session in a portfolio's recommendation, as the comparison table shows it."""

    session_id: str
    counterparty: str
    state: str
    turns: int
    tci: float
    terms: dict[str, Any]
    score: float | None
    flags: dict[str, int]
    note: str
    rank: int | None = Field(
        description="Place in the recommendation (1 = recommended); None: no offer held."
    )

    @classmethod
    def rows(cls, ledger: Mapping[str, Any]) -> list[ComparisonRow]:
        """The rows of a portfolio request's ledger (ranked ones first), [] for any other request;
        a row that does not fit is left out rather than shown half read."""
        raw: object = ledger.get("candidates")
        ranking: object = ledger.get("ranking")
        if not isinstance(raw, list):
            return []
        order = [str(r) for r in cast(list[object], ranking)] if isinstance(ranking, list) else []
        rows: list[ComparisonRow] = []
        for item in cast(list[object], raw):
            if not isinstance(item, dict):
                continue
            data = cast(dict[str, Any], item)
            sid = str(data.get("session_id", ""))
            try:
                rows.append(
                    cls.model_validate({**data, "rank": order.index(sid) + 1 if sid in order else None})
                )
            except ValidationError:
                continue
        return sorted(rows, key=lambda r: (r.rank is None, r.rank or 0))


class ConditionShown(Served):
    """A condition the counterparty attached, or a sentence quoted for the principal, as stored in the
    request's ledger (`Condition.to_json`); source says what quoted it ("unexplained": a sentence the
    reader could not fully read, issue 17)."""

    term: str
    value: Any = None
    high: float | None = None
    text: str = ""
    quoted: bool = False
    source: str = ""

    @classmethod
    def split(cls, ledger: Mapping[str, Any]) -> tuple[list[ConditionShown], list[ConditionShown]]:
        """The ledger's conditions the reader attributed or quoted as conditional clauses, and apart
        the sentences it could not fully read (source "unexplained"); an entry that does not fit is
        shown as a quoted sentence of its own, never dropped."""
        raw: object = ledger.get("conditions")
        attached: list[ConditionShown] = []
        unexplained: list[ConditionShown] = []
        for item in cast(list[object], raw) if isinstance(raw, list) else []:
            try:
                condition = cls.model_validate(item)
            except ValidationError:
                condition = cls(term="other", text=str(item)[:MAX_QUOTE], quoted=True, source=UNEXPLAINED)
            (unexplained if condition.source == UNEXPLAINED else attached).append(condition)
        return attached, unexplained


class Escalation(Served):
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
    comparison: list[ComparisonRow] = Field(
        default_factory=lambda: [],
        description="A portfolio's sessions side by side (its recommendation only).",
    )
    conditions: list[ConditionShown] = Field(
        default_factory=lambda: [],
        description="The conditions the counterparty attached, as the delegate read them (a conditional "
        "clause it could not tie to a term is quoted: quoted true).",
    )
    unexplained: list[ConditionShown] = Field(
        default_factory=lambda: [],
        description="Sentences the delegate could not fully read, quoted as written for the principal to "
        'check (source "unexplained"): never conditions it read.',
    )
    unread: list[str] = Field(
        default_factory=lambda: [],
        description="What the counterparty stated that the delegate could not place (amounts), as written.",
    )

    @classmethod
    def of(cls, request: EscalationRequest, status: str = "open") -> Escalation:
        """From a governance request and its stored status."""
        data = request.to_json()
        data["last_messages"] = [{"speaker": s, "text": t} for s, t in request.last_messages]
        attached, unexplained = ConditionShown.split(request.ledger)
        unread: object = request.ledger.get("unread")
        return cls.model_validate(
            {
                **data,
                "status": status,
                "comparison": [r.model_dump() for r in ComparisonRow.rows(request.ledger)],
                "conditions": [c.model_dump() for c in attached],
                "unexplained": [c.model_dump() for c in unexplained],
                "unread": [str(u) for u in cast(list[object], unread)] if isinstance(unread, list) else [],
            }
        )


class DecisionRecord(Served):
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


class InboxItem(Served):
    """A session waiting for the principal, with its open request."""

    session_id: str
    config: str
    counterparty: str | None
    version: int
    request: Escalation


class Inbox(Served):
    """`GET /api/inbox`."""

    items: list[InboxItem]


class SessionSummary(Served):
    """One line of `GET /api/sessions`."""

    session_id: str
    config: str
    counterparty: str | None
    seed: int | None
    state: str
    pending_request: str | None


class SessionList(Served):
    """`GET /api/sessions`."""

    sessions: list[SessionSummary]


class TranscriptEntry(Served):
    """One public event of the conversation: a message, an escalation or a decision."""

    seq: int
    time: float
    kind: Literal["message", "escalation", "decision"]
    speaker: str
    text: str
    request_id: str | None = None


class SessionDetail(Served):
    """`GET /api/sessions/{id}`."""

    session_id: str
    config: str
    counterparty: str | None
    seed: int | None
    version: int
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
    """`POST /api/sessions/{id}/decide`: the request answered, the session version the principal saw,
    and an option letter, guidance text, or both. Who decides is the signed-in principal, never a field.
    """

    model_config = ConfigDict(extra="forbid")
    request_id: RequestId
    version: Annotated[int, Field(ge=0)]
    option: OptionKey | None = None
    guidance: Annotated[str, StringConstraints(strip_whitespace=True, max_length=4000)] = ""
    confirm_limit: float | None = Field(
        default=None, description="The new limit, repeated to confirm a raise far beyond the current one."
    )


class ReplyBody(BaseModel):
    """`POST /api/sessions/{id}/reply`: one inbound counterparty message (e-mail body, chat line)."""

    model_config = ConfigDict(extra="forbid")
    message: Annotated[str, StringConstraints(strip_whitespace=True, min_length=1, max_length=20000)]


class StepResult(Served):
    """Where a session stands after a decision or a reply, and the messages that step produced."""

    session_id: str
    version: int
    state: str
    paused: bool
    turns: int
    terms: dict[str, Any]
    pending: Escalation | None
    messages: list[Message]
    replayed: bool = False

    @classmethod
    def of(cls, outcome: SessionOutcome, messages: list[Message]) -> StepResult:
        """From a governance outcome."""
        pending = Escalation.of(outcome.pending) if outcome.pending is not None else None
        return cls(
            session_id=outcome.session_id,
            version=outcome.version,
            state=outcome.state.value,
            paused=outcome.paused,
            turns=outcome.turns,
            terms=dict(outcome.terms),
            pending=pending,
            messages=messages,
            replayed=outcome.replayed,
        )


class AuditStatus(Served):
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


def _transcript_entry(event: Event) -> TranscriptEntry | None:
    """The transcript line of a message, escalation or decision (None for other records, and for
    data no payload type fits)."""
    payload = event.payload
    if isinstance(payload, governed.DelegateMessage | governed.CounterpartyMessage):
        speaker = event.party or event.kind.removesuffix("_message")
        return TranscriptEntry(
            seq=event.seq, time=event.time, kind="message", speaker=speaker, text=payload.text
        )
    if isinstance(payload, governed.Escalation):
        return TranscriptEntry(
            seq=event.seq,
            time=event.time,
            kind="escalation",
            speaker="delegate",
            text=f"escalated ({payload.trigger}): {payload.problem}",
            request_id=payload.request_id,
        )
    if isinstance(payload, governed.Decision):
        chosen = f"chose option {payload.option}" if payload.option else "gave guidance"
        guidance = f": {payload.guidance}" if payload.guidance else ""
        return TranscriptEntry(
            seq=event.seq,
            time=event.time,
            kind="decision",
            speaker=payload.decided_by,
            text=chosen + guidance,
            request_id=payload.request_id,
        )
    return None


def transcript_of(events: Sequence[Event]) -> list[TranscriptEntry]:
    """The public messages, escalations and decisions of a delegate session, as transcript entries."""
    entries = (_transcript_entry(event) for event in events if event.is_public)
    return [entry for entry in entries if entry is not None]
