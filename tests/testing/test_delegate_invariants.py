"""`check_delegate_invariants` names the invariant each broken event stream violates."""

from __future__ import annotations

from typing import Any

import pytest

from parley.governance import load_config
from parley.protocol.events import Event
from parley.testing import check_delegate_invariants

STAFFING = load_config("staffing")


def _events(*items: tuple[str, dict[str, Any]]) -> list[Event]:
    return [Event(seq, kind, data=data) for seq, (kind, data) in enumerate(items)]


def test_a_clean_stream_passes() -> None:
    check_delegate_invariants(
        STAFFING,
        _events(
            ("tci_ledger", {"tci": 0.5, "tci_weighted": 0.6}),
            ("tci_ledger", {"tci": 0.8, "tci_weighted": 0.9}),
            ("state_transition", {"from": "SCREEN", "to": "NEGOTIATE", "tci_weighted": 0.9}),
            ("delegate_message", {"text": "Could you tell us when you could start?"}),
        ),
    )


@pytest.mark.parametrize(
    ("events", "invariant"),
    [
        (_events(("state_transition", {"from": "SCREEN", "to": "NEGOTIATE", "tci_weighted": 0.1})), "I1"),
        (
            _events(
                ("tci_ledger", {"tci": 0.8, "tci_weighted": 0.8}),
                ("tci_ledger", {"tci": 0.7, "tci_weighted": 0.8}),
            ),
            "I2",
        ),
        (_events(("delegate_message", {"text": "We will pay you $150,000. Deal."})), "I3"),
        (_events(("violation", {"slips": ["binding"]})), "I3"),
    ],
)
def test_each_broken_invariant_is_named(events: list[Event], invariant: str) -> None:
    with pytest.raises(AssertionError, match=f"^{invariant}"):
        check_delegate_invariants(STAFFING, events)


def test_an_approved_message_may_carry_commitments() -> None:
    check_delegate_invariants(
        STAFFING,
        _events(
            ("safety_event", {"type": "approved_override"}),
            ("delegate_message", {"text": "We will pay you $150,000. Deal."}),
        ),
    )


def test_a_delegate_message_whose_text_cannot_be_read_breaks_the_invariant() -> None:
    with pytest.raises(AssertionError, match=r"^I3: a delegate message whose text cannot be read"):
        check_delegate_invariants(STAFFING, _events(("delegate_message", {"text": ["We accept."]})))
