"""The delegate's value types: party names, deployment switches, what one step produced, and the
working memory a stored session carries between turns.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from parley.governance.critic import Guidance
from parley.governance.escalation import EscalationRequest
from parley.governance.machine import State
from parley.governance.moderator import Label

DELEGATE = "delegate"
COUNTERPARTY = "counterparty"
PRINCIPAL = "principal"
SEVERITY = {"binding": "high", "over_boundary": "high", "prohibited": "medium"}


@dataclass(frozen=True, slots=True)
class DelegateOptions:
    """Switches for ablations and deployment.

    Attributes:
        use_stcc: Open with the STCC question (False: free-form opener, unranked screening).
        preflight: Run the preflight on outgoing drafts (False only for the safety ablation).
        slip_rate: Probability that the simulated drafter slips on a proposal.
        reply_timeout: Seconds of counterparty silence that count as one missed round.
        strategy: The negotiation strategy ("principal" or "legacy"); None takes the config's
            `negotiation.strategy` when the session starts. Stored with the session, so a session
            resumes with the strategy it started with.
    """

    use_stcc: bool = True
    preflight: bool = True
    slip_rate: float = 0.0
    reply_timeout: float | None = None
    strategy: str | None = None


@dataclass(frozen=True, slots=True)
class Step:
    """What one delegate step produced: a message to send, the new state, an escalation request."""

    outgoing: str | None
    state: State
    request: EscalationRequest | None = None

    @property
    def terminal(self) -> bool:
        """Whether the session has ended."""
        return self.state in (State.AGREE, State.NO_DEAL, State.STALL)


def _nothing_asked() -> dict[str, Any]:
    return {"kind": "none", "fields": [], "choices": {}}


@dataclass(slots=True)
class Memory:
    """What the delegate remembers between turns besides its TCI ledger and transcript.

    Every field is part of the stored snapshot, so a paused session resumes with nothing lost.

    Attributes:
        asked: The last question: kind, fields and multiple-choice options (extraction context).
        silent: Consecutive rounds without a reply.
        no_info: Consecutive replies that revealed nothing new.
        recap_sent: Whether the stall recap went out since the last reply.
        adversarial: Adversarial messages seen in the session (a principal's decision does not reset it).
        adversarial_since_decision: Adversarial messages since the principal's last decision (the
            repeated-attempts escalation counts these, so a decided session does not re-escalate on
            the next message).
        flags: The attack family (or label) of every adversarial message, in order.
        conflicts: Drafts for which the critic contradicted the principal's guidance.
        conflict_escalated: Whether those conflicts were already put to the principal.
        proposal: The range on the table (term, low, high), if any.
        last_ask: The counterparty's last named amount for the negotiated term.
        limits: Bands the principal widened, by term name.
        human: The principal's guidance (human overrides for MergeChannels).
        muted: Critic topics the principal muted.
        pending: The open escalation request.
        origin: The state the flow paused from.
        held: A draft held back by the preflight (intent, text, slips).
        reconfirming: The contradicted field being re-confirmed.
        last_label: The moderator's label for the last message.
        escalations: Escalations so far (numbers the request ids).
        paused_this_turn: Escalations within the current counterparty turn (loop guard).
    """

    asked: dict[str, Any] = field(default_factory=_nothing_asked)
    silent: int = 0
    no_info: int = 0
    recap_sent: bool = False
    adversarial: int = 0
    adversarial_since_decision: int = 0
    flags: list[str] = field(default_factory=list[str])
    conflicts: int = 0
    conflict_escalated: bool = False
    proposal: dict[str, Any] | None = None
    last_ask: float | None = None
    limits: dict[str, tuple[float | None, float | None]] = field(
        default_factory=dict[str, tuple[float | None, float | None]]
    )
    human: list[Guidance] = field(default_factory=list[Guidance])
    muted: set[str] = field(default_factory=set[str])
    pending: EscalationRequest | None = None
    origin: State | None = None
    held: dict[str, Any] | None = None
    reconfirming: str | None = None
    last_label: Label = Label.COOPERATIVE
    escalations: int = 0
    paused_this_turn: int = 0
