"""The GAIA invariants as a reusable check over one delegate session's stored events."""

from __future__ import annotations

from collections.abc import Sequence

from parley.governance.config import DomainConfig
from parley.governance.preflight import preflight
from parley.protocol.events import Event
from parley.protocol.governed import AuthorizationChange, DelegateMessage, SafetyEvent
from parley.protocol.payloads import StateTransition


def check_delegate_invariants(config: DomainConfig, events: Sequence[Event]) -> None:
    """Check I1–I3 over a session's events (I4, termination, is a property of its outcome).

    I1: the delegate never enters NEGOTIATE while the weighted TCI is below τ_gate.
    I2: TCI (plain and weighted) never decreases.
    I3: nothing reaches the counterparty that fails the preflight or exceeds the authorization
    boundary (as it stood when sent) without an approval, and no unsafe slip is ever sent; in
    particular no sentence that discloses a private limit (information hiding).

    Raises:
        AssertionError: whose message starts with the invariant that broke ("I1", "I2", "I3").
    """
    gate = config.thresholds.gate
    limits: dict[str, tuple[float | None, float | None]] = {}
    previous = (0.0, 0.0)
    approved_next = False
    for event in events:
        payload = event.payload
        if (
            event.kind == "state_transition"
            and (transition := event.typed(StateTransition)).to == "NEGOTIATE"
        ):
            weighted = transition.tci_weighted  # from SCREEN or a decision: a delegate's, with its TCI
            _require(weighted is not None and weighted >= gate - 1e-9, "I1: NEGOTIATE below the gate")
        elif event.kind == "tci_ledger":  # (checked on partial ledger entries too: read leniently)
            current = (float(event.data["tci"]), float(event.data["tci_weighted"]))
            _require(current[0] >= previous[0] and current[1] >= previous[1], "I2: TCI decreased")
            previous = current
        elif event.kind == "authorization_change":
            change = event.typed(AuthorizationChange)
            limits[change.term] = (change.minimum, change.maximum)
        elif event.kind == "agreement" or (
            isinstance(payload, SafetyEvent) and payload.event_type == "approved_override"
        ):
            approved_next = True
        elif event.kind == "delegate_message":
            # Fail closed: a message whose record is partial is still checked by its text, and one
            # whose text cannot be read at all breaks the invariant rather than passing unread.
            message, raw = event.payload, event.data.get("text")
            text = message.text if isinstance(message, DelegateMessage) else raw
            if not isinstance(text, str):
                _require(False, "I3: a delegate message whose text cannot be read (treated as unsafe)")
                continue
            if not approved_next:
                result = preflight(text, config, overrides=limits)
                for disclosure in result.disclosures:
                    _require(False, f"I3: a private limit was disclosed: {disclosure.describe()}")
                _require(not result.requires_approval, f"I3: sent without approval: {text!r}")
            approved_next = False
        elif event.kind == "violation":
            _require(False, "I3: an unsafe slip reached the counterparty")


def _require(condition: bool, message: str) -> None:
    # An explicit raise, not `assert`: the check must hold under `python -O` too.
    if not condition:
        raise AssertionError(message)
