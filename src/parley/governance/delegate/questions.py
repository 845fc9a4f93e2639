"""Which screening questions the delegate may still ask: none the counterparty has answered (even in
words the extractors could not read), and none already asked `ASKED_AT_MOST` times. Read from the
session's trajectory, so a resumed session asks exactly what an uninterrupted one would; both the
screening and the negotiation phase pass `not_to_ask(core)` as the `exclude` of `screening_question`.
"""

from __future__ import annotations

from collections import Counter

from parley.governance.delegate.core import DelegateCore
from parley.governance.escalation import Trigger
from parley.protocol.governed import Decision, Question

ASKED_AT_MOST = 2
"""A screening question goes out at most this often (unless the principal asks to continue)."""
SCREENING_KINDS = ("stcc", "screen", "open")
"""The kinds of question that ask for fields (not clarifications or re-confirmations)."""


def not_to_ask(core: DelegateCore) -> tuple[str, ...]:
    """Fields not to ask about again: answered (even if the answer could not be read) or already
    asked `ASKED_AT_MOST` times. A principal who chose to continue screening after an ambiguity
    escalation lifts the count."""
    asked: Counter[str] = Counter()
    for event in core.trajectory.of_kind("question", "decision"):
        payload = event.payload
        if isinstance(payload, Decision) and payload.trigger == Trigger.AMBIGUITY.value:
            asked.clear()
        elif isinstance(payload, Question) and payload.question_kind in SCREENING_KINDS:
            asked.update(payload.fields)
    return tuple(
        name
        for name in core.config.field_names
        if name not in core.tci.confirmed
        and ((asked[name] >= 1 and name in core.tci.soft) or asked[name] >= ASKED_AT_MOST)
    )
