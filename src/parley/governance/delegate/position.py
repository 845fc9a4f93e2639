"""The counterparty's position over a session, as the principal sees it in an escalation: each term as
last stated and every condition attached, read back from the "terms_read" events of the trajectory
(so a resumed session shows exactly what an uninterrupted one would).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

from parley.governance.config import DomainConfig
from parley.governance.drafting import format_range
from parley.governance.term_guard import UNEXPLAINED
from parley.governance.terms import (
    Condition,
    TermReading,
    TermValue,
    all_conditions,
    latest_terms,
    reader_for,
)
from parley.protocol.events import Event
from parley.protocol.governed import TermsRead

_UNIT_WORDS = {"%/week": "% per week", "days/week": "days a week", "workdays": "working days"}


def session_readings(events: Iterable[Event]) -> list[TermReading]:
    """The term readings recorded over a session, in order (a record no `TermsRead` fits is skipped;
    `TermReading.from_json` reads the stated terms and conditions into the reader's own types)."""
    read = [e for e in events if e.kind == "terms_read" and isinstance(e.payload, TermsRead)]
    return [TermReading.from_json(e.data) for e in read]


def describe_term(config: DomainConfig, term: str, value: TermValue | None, high: float | None = None) -> str:
    """A term's value as a person reads it ("relocation package $20K", "lease term 60 months")."""
    spec = reader_for(config).term(term)
    if value is None:
        return spec.label
    if isinstance(value, str):
        return f"{spec.label} {value.replace('_', ' ')}"
    if spec.shape == "money":
        return f"{spec.label} {format_range(value, high if high is not None else value, spec.unit)}"
    unit = _UNIT_WORDS.get(spec.unit or "", spec.unit or "")
    amount = f"{value:g}" if high is None else f"{value:g}–{high:g}"
    said = set(spec.label.lower().replace("(", " ").split())
    if unit and not said & set(unit.split()):
        amount = f"{amount} {unit}"
    return f"{spec.label}: {amount}"


def _condition_text(config: DomainConfig, condition: Condition) -> str:
    said = condition.text.strip()
    if condition.quoted:
        found = f", flagged by the {condition.source}" if condition.source else ""
        return f'"{said}" (not read by the delegate{found}: check it yourself)'
    if condition.term == "other":
        return f'"{said}"'
    stated = describe_term(config, condition.term, condition.value, condition.high)
    return f'{stated} ("{said}")' if said else stated


def conditions_note(config: DomainConfig, readings: Sequence[TermReading]) -> str:
    """What the principal must see beside the problem: every condition the counterparty attached in
    the session (a conditional clause the reader could not tie to a term is quoted), the terms it
    named that are no required field (a signing bonus, free months), each as last stated, and what it
    stated that the reader could not place ("" if there is nothing)."""
    every = all_conditions(readings)
    conditions = [c for c in every if c.source != UNEXPLAINED]
    unexplained = [c.text.strip() for c in every if c.source == UNEXPLAINED]
    reader = reader_for(config)
    conditional = {c.term for c in conditions}
    extra = [
        describe_term(config, t.term, t.value, t.high)
        for t in latest_terms(readings).values()
        if reader.term(t.term).field is None and t.term not in conditional
    ]
    role = config.counterparty_role
    parts = [f"Conditions the {role} attached: {'; '.join(_condition_text(config, c) for c in conditions)}."]
    parts = parts if conditions else []
    if extra:
        parts.append(f"Other terms the {role} named: {'; '.join(extra)}.")
    if unexplained:  # sentences the reader could not fully explain (issue 17): not conditions it read
        said = "; ".join(f'"{text}"' for text in unexplained)
        parts.append(f"Not fully read by the delegate, as written (check them yourself): {said}.")
    unread = all_unread(readings)
    if unread:
        quoted = "; ".join(f'"{text}"' for text in unread)
        parts.append(f"Stated by the {role} but not read by the delegate (check them yourself): {quoted}.")
    return " ".join(parts)


def all_unread(readings: Sequence[TermReading]) -> list[str]:
    """Everything the reader could not place over a session, once each, in the order first stated."""
    return list(dict.fromkeys(text for reading in readings for text in reading.unread))


def position(config: DomainConfig, readings: Sequence[TermReading]) -> dict[str, Any]:
    """The counterparty's stated terms (last value each) and conditions, JSON-ready."""
    stated = latest_terms(readings)
    return {
        "stated": {
            name: [t.value, t.high] if t.high is not None else t.value for name, t in sorted(stated.items())
        },
        "conditions": [c.to_json() for c in all_conditions(readings)],
        **({"unread": unread} if (unread := all_unread(readings)) else {}),
    }
