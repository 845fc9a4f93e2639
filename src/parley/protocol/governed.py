"""Payload types of governed delegation's audit records (`parley.governance`), one per event kind.

Every record a delegate, a portfolio or the principal's memory writes carries a `rationale` (the
audit's "why") and may carry keys a type does not declare: those land in `extra`, so a record that
gains a field stays typed. The types hold plain JSON values (strings, numbers, mappings): the
governance enums and value objects live above the protocol layer, which imports nothing of them.
`parley.protocol.payloads` registers these types by kind.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Literal

from parley.protocol.fields import meta

FactValue = str | float
"""A screening fact's value as recorded (a category, a free text, or an amount)."""


def _rationale() -> Any:
    """The `rationale` field every governance record carries (absent in hand-made data)."""
    return field(default="", metadata=meta("Why the record was written.", optional=True))


def _extra() -> Any:
    """The lenient `extra` field: keys the type does not declare, as recorded."""
    return field(default_factory=dict[str, Any])


def _none() -> Any:
    """An optional field that may be absent (None then), never null."""
    return field(default=None, metadata=meta(optional=True))


def _nullable() -> Any:
    """An optional field that may be absent or null (a factory rather than a None default, so the
    published schema keeps null: `trajectory_schema` reads a None default as "absent, never null")."""
    return field(default_factory=lambda: None, metadata=meta(optional=True))


# -- the session's frame --------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class DelegateSessionStarted:
    """A governed delegation began: its domain configuration and options."""

    config: str
    options: Mapping[str, Any] = field(default_factory=lambda: {}, metadata=meta(optional=True))
    rationale: str = _rationale()
    extra: Mapping[str, Any] = _extra()
    kind: Literal["session_started"] = field(default="session_started", init=False)


@dataclass(frozen=True, slots=True)
class SessionEnded:
    """A delegation (or a portfolio) ended: its final state and terms (a portfolio: the chosen session)."""

    state: str
    terms: Mapping[str, Any] | None = field(
        default=None, metadata=meta("The terms on the table when it ended (a delegate's).", optional=True)
    )
    chosen: str | None = field(
        default_factory=lambda: None,  # (may be null: see `_nullable`)
        metadata=meta("The session whose offer was approved (a portfolio's), if any.", optional=True),
    )
    rationale: str = _rationale()
    extra: Mapping[str, Any] = _extra()
    kind: Literal["session_ended"] = field(default="session_ended", init=False)


@dataclass(frozen=True, slots=True)
class StateTransition:
    """The delegate's state machine moved."""

    source: str = field(metadata=meta(key="from"))
    to: str
    action: str | None = field(
        default=None, metadata=meta("The machine's action (a delegate's).", optional=True)
    )
    tci: float | None = field(default=None, metadata=meta("TCI when it moved (a delegate's).", optional=True))
    tci_weighted: float | None = field(default=None, metadata=meta("Weighted TCI then.", optional=True))
    rationale: str = _rationale()
    extra: Mapping[str, Any] = _extra()
    kind: Literal["state_transition"] = field(default="state_transition", init=False)


# -- pausing for the principal ----------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class EscalationChoice:
    """One option an escalation offers the principal, with its trade-offs."""

    key: str
    title: str
    trade_offs: str
    effect: str
    parameters: Mapping[str, Any]
    extra: Mapping[str, Any] = _extra()


@dataclass(frozen=True, slots=True)
class Escalation:
    """The delegate paused for its principal: the stored request (§3.4: situation, problem, options)."""

    request_id: str
    session_id: str
    trigger: str
    state: str = field(metadata=meta("The delegate's state when it escalated."))
    last_messages: tuple[tuple[str, ...], ...] = field(metadata=meta("The last messages: [speaker, text]."))
    ledger: Mapping[str, Any] = field(metadata=meta("The TCI snapshot shown to the principal."))
    problem: str
    boundary_at_risk: Mapping[str, Any]
    safety_events: tuple[str, ...]
    options: tuple[EscalationChoice, ...]
    ask: str
    created: float = field(metadata=meta("Clock time of the request."))
    suggested: Mapping[str, Any] = field(
        default_factory=lambda: {},
        metadata=meta(
            "What the principal's earlier decisions suggest (shown, never applied).", optional=True
        ),
    )
    rationale: str = _rationale()
    extra: Mapping[str, Any] = _extra()
    kind: Literal["escalation"] = field(default="escalation", init=False)

    def request_json(self) -> dict[str, Any]:
        """The request as `EscalationRequest.to_json` wrote it (without rationale and extra keys)."""
        suggested = {"suggested": dict(self.suggested)} if self.suggested else {}
        return {
            "request_id": self.request_id,
            "session_id": self.session_id,
            "trigger": self.trigger,
            "state": self.state,
            "last_messages": [list(message) for message in self.last_messages],
            "ledger": dict(self.ledger),
            "problem": self.problem,
            "boundary_at_risk": dict(self.boundary_at_risk),
            "safety_events": list(self.safety_events),
            "options": [
                {
                    "key": o.key,
                    "title": o.title,
                    "trade_offs": o.trade_offs,
                    "effect": o.effect,
                    "parameters": dict(o.parameters),
                }
                for o in self.options
            ],
            "ask": self.ask,
            "created": self.created,
            **suggested,
        }


@dataclass(frozen=True, slots=True)
class Decision:
    """The principal answered an escalation: an option's key, guidance, or both."""

    request_id: str
    option: str | None
    guidance: str
    decided_by: str
    decided_at: float
    trigger: str = field(metadata=meta("The trigger of the request answered."))
    rationale: str = _rationale()
    extra: Mapping[str, Any] = _extra()
    kind: Literal["decision"] = field(default="decision", init=False)


@dataclass(frozen=True, slots=True)
class HumanOverride:
    """The principal's guidance, stored as an override of the delegate's own guidance."""

    text: str
    by: str
    rationale: str = _rationale()
    extra: Mapping[str, Any] = _extra()
    kind: Literal["human_override"] = field(default="human_override", init=False)


@dataclass(frozen=True, slots=True)
class AuthorizationChange:
    """The principal widened the authorised band of a boundary term."""

    term: str
    minimum: float | None
    maximum: float
    rationale: str = _rationale()
    extra: Mapping[str, Any] = _extra()
    kind: Literal["authorization_change"] = field(default="authorization_change", init=False)


# -- reading the counterparty ------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class CounterpartyMessage:
    """A message from the counterparty, as received."""

    text: str
    rationale: str = _rationale()
    extra: Mapping[str, Any] = _extra()
    kind: Literal["counterparty_message"] = field(default="counterparty_message", init=False)


@dataclass(frozen=True, slots=True)
class NoReply:
    """A round passed without a counterparty reply."""

    silent_rounds: int = field(metadata=meta(minimum=0))
    rationale: str = _rationale()
    extra: Mapping[str, Any] = _extra()
    kind: Literal["no_reply"] = field(default="no_reply", init=False)


@dataclass(frozen=True, slots=True)
class ModeratorLabel:
    """The moderator's label of a counterparty message (other keys the moderator adds go to extra)."""

    label: str
    top_label: str = field(metadata=meta("The best-scoring label before abstention."))
    confidence: float
    family: str | None = field(metadata=meta("The attack family, for adversarial labels."))
    scores: Mapping[str, float]
    cues: Mapping[str, tuple[str, ...]]
    reason: str = field(default="", metadata=meta("Why, when a rule decided it.", optional=True))
    rationale: str = _rationale()
    extra: Mapping[str, Any] = _extra()
    kind: Literal["moderator_label"] = field(default="moderator_label", init=False)


@dataclass(frozen=True, slots=True)
class TermsRead:
    """What a counterparty message states about terms (other keys the term reader adds go to extra).

    The stated terms and conditions stay JSON objects: `parley.governance.terms.TermReading.from_json`
    reads them into its own types.
    """

    terms: tuple[Mapping[str, Any], ...]
    conditions: tuple[Mapping[str, Any], ...]
    question: bool
    correction: bool
    competing: tuple[Mapping[str, Any], ...]
    set_aside: tuple[str, ...]
    unread: tuple[str, ...] = field(
        default=(), metadata=meta("What the reader could not place.", optional=True)
    )
    rationale: str = _rationale()
    extra: Mapping[str, Any] = _extra()
    kind: Literal["terms_read"] = field(default="terms_read", init=False)


@dataclass(frozen=True, slots=True)
class TciLedgerEntry:
    """One turn of the task-completeness index (TCI) ledger."""

    turn: int
    tci: float
    tci_weighted: float
    question_kind: str
    information_gain: float
    rationale: str = _rationale()
    extra: Mapping[str, Any] = _extra()
    kind: Literal["tci_ledger"] = field(default="tci_ledger", init=False)


@dataclass(frozen=True, slots=True)
class FactUpdated:
    """A confirmed fact was replaced (a correction, a new value, an unanswered re-confirmation)."""

    name: str = field(metadata=meta("The screening field.", key="field"))
    old: FactValue
    new: FactValue
    reason: str
    rationale: str = _rationale()
    extra: Mapping[str, Any] = _extra()
    kind: Literal["fact_updated"] = field(default="fact_updated", init=False)


@dataclass(frozen=True, slots=True)
class Reconfirmed:
    """A contradicted fact was asked about again and answered."""

    name: str = field(metadata=meta("The screening field.", key="field"))
    value: FactValue
    rationale: str = _rationale()
    extra: Mapping[str, Any] = _extra()
    kind: Literal["reconfirmed"] = field(default="reconfirmed", init=False)


@dataclass(frozen=True, slots=True)
class Reversal:
    """Offer-relevant information arrived after the delegate had proposed."""

    fields: tuple[str, ...]
    rationale: str = _rationale()
    extra: Mapping[str, Any] = _extra()
    kind: Literal["reversal"] = field(default="reversal", init=False)


@dataclass(frozen=True, slots=True)
class ClaimVerification:
    """A verifier checked a claim the counterparty made."""

    name: str = field(metadata=meta("The screening field.", key="field"))
    claim: str
    status: str
    detail: str = field(default="", metadata=meta(optional=True))
    source: str = field(default="", metadata=meta(optional=True))
    rationale: str = _rationale()
    extra: Mapping[str, Any] = _extra()
    kind: Literal["claim_verification"] = field(default="claim_verification", init=False)


@dataclass(frozen=True, slots=True)
class SafetyEvent:
    """Something the delegate's safety checks did: an adversarial message, a rewrite, a held draft.

    Which optional fields are present depends on `event_type` ("type" in the data).
    """

    event_type: str = field(metadata=meta("What happened.", key="type"))
    family: str | None = _nullable()
    reason: str | None = _nullable()
    count: int | None = _none()
    since_decision: int | None = _none()
    text: str | None = _none()
    rewrite: str | None = _none()
    findings: tuple[Mapping[str, Any], ...] = field(default=(), metadata=meta(optional=True))
    rationale: str = _rationale()
    extra: Mapping[str, Any] = _extra()
    kind: Literal["safety_event"] = field(default="safety_event", init=False)


# -- speaking ------------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Question:
    """A screening question chosen by expected information gain.

    (No tag field: this data's "kind" is the question's kind.)
    """

    question_kind: str = field(metadata=meta("What the question asks for.", key="kind"))
    fields: tuple[str, ...]
    expected_gain: float
    rationale: str = _rationale()
    extra: Mapping[str, Any] = _extra()


@dataclass(frozen=True, slots=True)
class StrategyMove:
    """A move of the negotiation strategy."""

    move: str = field(metadata=meta('"offer", "accept", "escalate", "confirm", ...', key="kind"))
    package: Mapping[str, Any]
    target: float
    time: float
    rationale: str
    extra: Mapping[str, Any] = _extra()


@dataclass(frozen=True, slots=True)
class NegotiationStrategy:
    """The negotiation strategy's position and move (private to the delegate)."""

    position: Mapping[str, Any] = field(
        metadata=meta("The strategy's state (`parley.governance.strategy.Position.from_json` reads it).")
    )
    move: StrategyMove
    term: str = field(metadata=meta("The money term negotiated."))
    in_play: tuple[str, ...]
    left_to_principal: tuple[str, ...]
    rationale: str = _rationale()
    extra: Mapping[str, Any] = _extra()
    kind: Literal["negotiation_strategy"] = field(default="negotiation_strategy", init=False)


@dataclass(frozen=True, slots=True)
class GuidanceRecord:
    """The guidance merged for the next message: kept in precedence order, and dropped."""

    kept: tuple[Mapping[str, Any], ...]
    dropped: tuple[Mapping[str, Any], ...]
    tokens: int
    rationale: str = _rationale()
    extra: Mapping[str, Any] = _extra()
    kind: Literal["guidance"] = field(default="guidance", init=False)


@dataclass(frozen=True, slots=True)
class DraftRecord:
    """A message drafted for an intent (private to the delegate; slips are deliberate test faults)."""

    text: str
    slips: tuple[str, ...]
    intent: str
    rationale: str = _rationale()
    extra: Mapping[str, Any] = _extra()
    kind: Literal["draft"] = field(default="draft", init=False)


@dataclass(frozen=True, slots=True)
class Preflight:
    """The preflight check of a draft (other keys the preflight adds go to extra)."""

    draft: str
    binding: bool
    commitments: tuple[Mapping[str, Any], ...]
    breaches: tuple[Mapping[str, Any], ...]
    approaching: tuple[Mapping[str, Any], ...]
    prohibited: tuple[Mapping[str, Any], ...]
    disclosures: tuple[Mapping[str, Any], ...]
    rewrite: str | None
    requires_approval: bool
    sendable: str | None
    problems: tuple[str, ...]
    normalization: tuple[str, ...]
    refused: bool
    classifier: Mapping[str, Any] | None
    cleared: tuple[Mapping[str, Any], ...]
    rationale: str = _rationale()
    extra: Mapping[str, Any] = _extra()
    kind: Literal["preflight"] = field(default="preflight", init=False)


@dataclass(frozen=True, slots=True)
class PreflightSkipped:
    """The preflight was turned off (an ablation)."""

    skipped: Literal[True]
    rationale: str = _rationale()
    extra: Mapping[str, Any] = _extra()
    kind: Literal["preflight"] = field(default="preflight", init=False)


@dataclass(frozen=True, slots=True)
class DelegateMessage:
    """A message the delegate sent to the counterparty."""

    text: str
    state: str
    rationale: str = _rationale()
    extra: Mapping[str, Any] = _extra()
    kind: Literal["delegate_message"] = field(default="delegate_message", init=False)


@dataclass(frozen=True, slots=True)
class DelegateViolation:
    """Unapproved slips that reached the counterparty, with their severities."""

    slips: tuple[str, ...]
    severity: tuple[str, ...]
    rationale: str = _rationale()
    extra: Mapping[str, Any] = _extra()
    kind: Literal["violation"] = field(default="violation", init=False)


@dataclass(frozen=True, slots=True)
class DelegateAgreement:
    """The human-approved terms of a governed delegation, with the facts confirmed on the way."""

    terms: Mapping[str, Any]
    facts: Mapping[str, Any] = field(default_factory=lambda: {}, metadata=meta(optional=True))
    rationale: str = _rationale()
    extra: Mapping[str, Any] = _extra()
    kind: Literal["agreement"] = field(default="agreement", init=False)


# -- portfolios (several counterparties for one principal) -------------------------------------------


@dataclass(frozen=True, slots=True)
class PortfolioStarted:
    """A portfolio of sessions began (members: session id, counterparty, seed)."""

    config: str
    members: tuple[Mapping[str, Any], ...]
    parallel: bool
    rationale: str = _rationale()
    extra: Mapping[str, Any] = _extra()
    kind: Literal["portfolio_started"] = field(default="portfolio_started", init=False)


@dataclass(frozen=True, slots=True)
class PortfolioComparison:
    """The sessions compared, and the held offers ranked."""

    candidates: tuple[Mapping[str, Any], ...]
    ranking: tuple[str, ...] = field(metadata=meta("Session ids, best held offer first."))
    rationale: str = _rationale()
    extra: Mapping[str, Any] = _extra()
    kind: Literal["portfolio_comparison"] = field(default="portfolio_comparison", init=False)


@dataclass(frozen=True, slots=True)
class MemberDecision:
    """The principal's decision on a recommendation, applied to one member session."""

    session_id: str
    request_id: str
    effect: str
    state: str
    note: str
    rationale: str = _rationale()
    extra: Mapping[str, Any] = _extra()
    kind: Literal["member_decision"] = field(default="member_decision", init=False)


@dataclass(frozen=True, slots=True)
class SessionStopped:
    """A member session stopped (an error); the others play on."""

    session_id: str
    error: str
    rationale: str = _rationale()
    extra: Mapping[str, Any] = _extra()
    kind: Literal["session_stopped"] = field(default="session_stopped", init=False)


# -- the principal's memory (its own audit chain) ------------------------------------------------------


@dataclass(frozen=True, slots=True)
class MemoryRecorded:
    """A decision remembered for its principal (`parley.governance.memory.MemoryEntry`)."""

    principal: str
    domain: str
    session_id: str
    request_id: str
    trigger: str
    option: str | None
    effect: str
    rejected: tuple[str, ...]
    approved: Mapping[str, float] = field(metadata=meta("Term to the amount the decision approved."))
    guidance: str
    decided_at: float
    rationale: str = _rationale()
    extra: Mapping[str, Any] = _extra()
    kind: Literal["memory_recorded"] = field(default="memory_recorded", init=False)


@dataclass(frozen=True, slots=True)
class MemoryForgotten:
    """Memory entries removed (filtered by principal and domain; null matched all)."""

    principal: str | None
    domain: str | None
    request_ids: tuple[str, ...]
    by: str
    rationale: str = _rationale()
    extra: Mapping[str, Any] = _extra()
    kind: Literal["memory_forgotten"] = field(default="memory_forgotten", init=False)


GOVERNED: Mapping[str, tuple[type[Any], ...]] = {
    "state_transition": (StateTransition,),
    "escalation": (Escalation,),
    "decision": (Decision,),
    "human_override": (HumanOverride,),
    "authorization_change": (AuthorizationChange,),
    "session_ended": (SessionEnded,),
    "counterparty_message": (CounterpartyMessage,),
    "no_reply": (NoReply,),
    "moderator_label": (ModeratorLabel,),
    "terms_read": (TermsRead,),
    "tci_ledger": (TciLedgerEntry,),
    "fact_updated": (FactUpdated,),
    "reconfirmed": (Reconfirmed,),
    "reversal": (Reversal,),
    "claim_verification": (ClaimVerification,),
    "safety_event": (SafetyEvent,),
    "question": (Question,),
    "negotiation_strategy": (NegotiationStrategy,),
    "guidance": (GuidanceRecord,),
    "draft": (DraftRecord,),
    "preflight": (Preflight, PreflightSkipped),
    "delegate_message": (DelegateMessage,),
    "portfolio_started": (PortfolioStarted,),
    "portfolio_comparison": (PortfolioComparison,),
    "member_decision": (MemberDecision,),
    "session_stopped": (SessionStopped,),
    "memory_recorded": (MemoryRecorded,),
    "memory_forgotten": (MemoryForgotten,),
}
"""Payload types of the kinds only governance writes (it also writes `session_started`, `violation`
and `agreement`, registered beside the engine's types in `parley.protocol.payloads.PAYLOADS`)."""

GovernedPayload = (
    DelegateSessionStarted
    | SessionEnded
    | StateTransition
    | Escalation
    | Decision
    | HumanOverride
    | AuthorizationChange
    | CounterpartyMessage
    | NoReply
    | ModeratorLabel
    | TermsRead
    | TciLedgerEntry
    | FactUpdated
    | Reconfirmed
    | Reversal
    | ClaimVerification
    | SafetyEvent
    | Question
    | NegotiationStrategy
    | GuidanceRecord
    | DraftRecord
    | Preflight
    | PreflightSkipped
    | DelegateMessage
    | DelegateViolation
    | DelegateAgreement
    | PortfolioStarted
    | PortfolioComparison
    | MemberDecision
    | SessionStopped
    | MemoryRecorded
    | MemoryForgotten
)

__all__ = [
    "GOVERNED",
    "AuthorizationChange",
    "ClaimVerification",
    "CounterpartyMessage",
    "Decision",
    "DelegateAgreement",
    "DelegateMessage",
    "DelegateSessionStarted",
    "DelegateViolation",
    "DraftRecord",
    "Escalation",
    "EscalationChoice",
    "FactUpdated",
    "FactValue",
    "GovernedPayload",
    "GuidanceRecord",
    "HumanOverride",
    "MemberDecision",
    "MemoryForgotten",
    "MemoryRecorded",
    "ModeratorLabel",
    "NegotiationStrategy",
    "NoReply",
    "PortfolioComparison",
    "PortfolioStarted",
    "Preflight",
    "PreflightSkipped",
    "Question",
    "Reconfirmed",
    "Reversal",
    "SafetyEvent",
    "SessionEnded",
    "SessionStopped",
    "StateTransition",
    "StrategyMove",
    "TciLedgerEntry",
    "TermsRead",
]
