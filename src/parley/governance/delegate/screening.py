"""Reading a counterparty message into the TCI ledger (terms, extraction, moderation, contradictions,
changed facts) and the screening phase it leads to: the next question by information gain,
clarifications, re-confirmations, and the hand-over to negotiation once the gate opens.

Every message is read once by the term reader (`governance.terms`); what it states is recorded
("terms_read": terms, conditions, competing offers, corrections), and fields it names only in a
competing offer, a quoted figure or a hypothesis get no reading. Known facts follow the counterparty:
a new amount for a negotiated term, or any corrected value, replaces the known one (the last stated
value wins, recorded as "fact_updated"); a contradiction otherwise is put to the counterparty once.
A question the counterparty has answered is not asked again, even when the answer could not be read
(it is kept, soft, in its words), and none is asked more than twice.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import UTC, date, datetime

from parley.governance.delegate.core import DelegateCore
from parley.governance.delegate.negotiation import negotiate_step, propose
from parley.governance.delegate.outbox import ask, send
from parley.governance.delegate.questions import SCREENING_KINDS, not_to_ask
from parley.governance.delegate.records import Step
from parley.governance.drafting import Intent
from parley.governance.escalation import Trigger
from parley.governance.extraction import ExtractionContext, FieldReading, apply_reading
from parley.governance.machine import Action, State
from parley.governance.moderator import (
    ADVERSARIAL,
    Classification,
    Label,
    max_message_chars,
    refused_too_long,
)
from parley.governance.offers import describe
from parley.governance.stcc import screening_question, total_entropy
from parley.governance.terms import TermReading, reader_for
from parley.governance.text import find_phrases, sentences

_EPOCH_CLOCK = 1e9
"""Clock readings below this (a fake clock near 1970) give no calendar date to resolve dates against."""


def process(core: DelegateCore, message: str) -> Step:
    """Update the ledger from message, label it, and route to the next move.

    A message over the moderator's size limit is refused before any scan (no term reading, no
    extraction): labelled adversarial ("too long") and routed as such (issue 14).
    """
    if len(message) > getattr(core.moderator, "max_chars", max_message_chars()):
        refused = refused_too_long()
        core.memory.last_label = refused.label
        core.record("moderator_label", refused.to_json(), f"label {refused.label.value}")
        return _route(core, message, refused, False)
    before = total_entropy(core.config, core.tci)
    reading = _read_terms(core, message)
    readings, resolved, updated = _extract(core, message, reading)
    classification = core.moderator.classify(message, relevant=bool(readings))
    core.memory.last_label = classification.label
    core.record("moderator_label", classification.to_json(), f"label {classification.label.value}")
    if classification.label not in ADVERSARIAL:
        readings += _unreadable_answers(core, message, readings)
    entry = core.tci.update(core.turn, readings)
    after = total_entropy(core.config, core.tci)
    core.record(
        "tci_ledger",
        {
            **entry.to_json(),
            "entropy_before": round(before, 6),
            "entropy_after": round(after, 6),
            "information_gain": round(before - after, 6),
            "question_kind": core.memory.asked["kind"],
            "resolved": resolved,
            "updated": updated,
        },
        f"TCI {entry.tci:.2f} (weighted {entry.tci_weighted:.2f}); missing {len(entry.missing)}",
    )
    core.memory.no_info = 0 if (entry.revealed or resolved or updated) else core.memory.no_info + 1
    _track_reversal(core, [*entry.revealed, *entry.conflicts, *resolved])
    return _route(core, message, classification, bool(readings))


def advance(core: DelegateCore, message: str | None, prefix: str = "") -> Step:
    """The next move in the current phase (after STCC is answered, screening continues)."""
    if core.state == State.STCC:
        core.transition(Action.ASK, State.SCREEN, "STCC answered")
    if core.tci.disputed:
        return _reconfirm(core, prefix)
    if core.state == State.SCREEN:
        return _screen_step(core, prefix)
    return negotiate_step(core, message, prefix)


def _read_terms(core: DelegateCore, message: str) -> TermReading:
    """The term reading of message, recorded when it says anything about terms."""
    reading = reader_for(core.config).read(message, today=_today(core), asked=core.memory.asked["fields"])
    if not reading.empty or reading.question:
        core.record("terms_read", reading.to_json(), "what the message states about terms")
    return reading


def _today(core: DelegateCore) -> date | None:
    """The day of the message (its event's time; None under a fake clock near 1970)."""
    events = core.trajectory.of_kind("counterparty_message")
    moment = events[-1].time if events else None
    if moment is None or moment < _EPOCH_CLOCK:
        return None
    return datetime.fromtimestamp(moment, UTC).date()


def _extract(
    core: DelegateCore, message: str, reading: TermReading
) -> tuple[list[FieldReading], list[str], list[str]]:
    """Field readings from message, the contradicted field it resolved (if it answered one), and the
    known facts it changed."""
    asked = core.memory.asked
    context = ExtractionContext(tuple(asked["fields"]), {k: tuple(v) for k, v in asked["choices"].items()})
    readings = apply_reading(core.extractor.extract(message, context), reading, core.config)
    updated = _update_facts(core, readings, reading)
    negotiable = _negotiable(core)
    # A new amount for an already-known negotiable field is a counter-offer, not a contradiction.
    readings = [
        r
        for r in readings
        if r.field not in updated and not (r.field in negotiable and r.field in core.tci.confirmed)
    ]
    resolved: list[str] = []
    name = core.memory.reconfirming
    if name is not None:
        answers = sorted((r for r in readings if r.field == name), key=lambda r: -r.confidence)
        if answers:
            core.tci.resolve(name, answers[0].value)
            core.record("reconfirmed", {"field": name, "value": answers[0].value}, "contradiction resolved")
            resolved.append(name)
        elif name in core.tci.disputed:
            _keep_later(core, name)
            updated.append(name)
        core.memory.reconfirming = None
        readings = [r for r in readings if r.field != name]
    return readings, resolved, updated


def _negotiable(core: DelegateCore) -> set[str]:
    return {t.field for t in core.config.boundary.terms if t.kind == "money" and t.field is not None}


def _update_facts(core: DelegateCore, readings: Sequence[FieldReading], reading: TermReading) -> list[str]:
    """Replace known facts the counterparty changed: a negotiated amount it restates, or any value it
    corrects ("sorry, I meant 95"). The last stated value wins; other contradictions are asked about."""
    negotiable = _negotiable(core)
    updated: list[str] = []
    for candidate in sorted(readings, key=lambda r: -r.confidence):
        name = candidate.field
        known = core.tci.confirmed.get(name)
        if name in updated or known is None or candidate.value == known:
            continue
        if candidate.confidence < core.config.field(name).confidence:
            continue
        if name in negotiable or reading.correction:
            core.tci.resolve(name, candidate.value)
            reason = "correction" if reading.correction else "new value"
            core.record(
                "fact_updated",
                {"field": name, "old": known, "new": candidate.value, "reason": reason},
                f"{name} changed by the counterparty ({reason}): the last stated value is kept",
            )
            updated.append(name)
    return updated


def _keep_later(core: DelegateCore, name: str) -> None:
    """A re-confirmation left unanswered: the later statement stands (no second identical question)."""
    old, new = core.tci.confirmed[name], core.tci.disputed[name]
    core.tci.resolve(name, new)
    core.record(
        "fact_updated",
        {"field": name, "old": old, "new": new, "reason": "re-confirmation unanswered"},
        f"{name}: the re-confirmation went unanswered; the later statement is kept",
    )


def _unreadable_answers(
    core: DelegateCore, message: str, readings: Sequence[FieldReading]
) -> list[FieldReading]:
    """Answers to the last screening question that name the field but could not be read: kept soft,
    in the counterparty's words, so the question is not asked again."""
    asked = core.memory.asked
    if asked["kind"] not in SCREENING_KINDS:
        return []
    read = {r.field for r in readings}
    found: list[FieldReading] = []
    for name in asked["fields"]:
        if name in read or name in core.tci.confirmed:
            continue
        spec = core.config.field(name)
        said = [text for text in sentences(message) if find_phrases(text, spec.keywords)]
        if said:
            found.append(FieldReading(name, f"said: {said[0][:160]}", 0.4, "answer", said[0]))
    return found


def _track_reversal(core: DelegateCore, fields: Sequence[str]) -> None:
    if core.memory.proposal is None:
        return
    relevant = [f for f in fields if core.config.field(f).affects_offer]
    if relevant:
        core.reversals += 1
        core.record("reversal", {"fields": relevant}, "offer-relevant information arrived after a proposal")


def _route(core: DelegateCore, message: str, classification: Classification, informative: bool) -> Step:
    """Refuse or escalate adversarial and hostile messages, clarify unclear ones, else advance."""
    prefix = ""
    label = classification.label
    if label in ADVERSARIAL:
        memory = core.memory
        memory.adversarial += 1
        memory.adversarial_since_decision += 1
        kind = classification.family or classification.reason or label.value
        memory.flags.append(kind)
        core.record(
            "safety_event",
            {
                "type": label.value,
                "family": classification.family,
                "reason": classification.reason,
                "count": memory.adversarial,
                "since_decision": memory.adversarial_since_decision,
            },
            f"suspected adversarial message ({kind.replace('_', ' ')})",
        )
        if memory.adversarial_since_decision > core.config.thresholds.adversarial_tolerance:
            kinds = ", ".join(dict.fromkeys(f.replace("_", " ") for f in memory.flags))
            return core.escalate(
                Trigger.ADVERSARIAL,
                f"Repeated {label.value.replace('_', ' ')} attempts "
                f"({memory.adversarial} in this session: {kinds}).",
                safety=tuple(dict.fromkeys((label.value, kind))),
            )
        key = "refuse_sensitive" if label == Label.SOCIAL_ENGINEERING else "refuse_injection"
        prefix = core.templates[key].format(subject=core.config.subject)
    elif label == Label.NEGATIVE_SENTIMENT:
        return core.escalate(
            Trigger.SENTIMENT,
            "The counterparty's last message was strongly negative.",
            safety=("negative_sentiment",),
        )
    elif label == Label.CLARIFY and not informative:
        return _clarify(core)
    return advance(core, message, prefix)


def _screen_step(core: DelegateCore, prefix: str) -> Step:
    if core.gate_open():
        return propose(core, prefix, "TCI reached τ_gate")
    if core.memory.no_info >= core.config.thresholds.stall_rounds:
        return core.escalate(Trigger.AMBIGUITY, f"No new information for {core.memory.no_info} rounds.")
    skip = not_to_ask(core)
    question = screening_question(
        core.config, core.tci, core.templates, ranked=core.options.use_stcc, exclude=skip
    )
    if question is None and skip:
        return core.escalate(Trigger.AMBIGUITY, _exhausted(core, skip))
    if question is None:
        return propose(core, prefix, "all fields known")
    core.transition(Action.ASK, State.SCREEN, f"screening {list(question.fields)}")
    return ask(core, question, prefix)


def _exhausted(core: DelegateCore, skip: Sequence[str]) -> str:
    role = core.config.counterparty_role
    vague = [core.config.field(n).label for n in skip if n in core.tci.soft]
    unanswered = [core.config.field(n).label for n in skip if n not in core.tci.soft]
    parts = [f"answered {', '.join(vague)} only in words I could not read" if vague else ""]
    parts.append(f"did not answer {', '.join(unanswered)} when asked twice" if unanswered else "")
    return f"Screening has nothing left to ask: the {role} " + " and ".join(p for p in parts if p) + "."


def _clarify(core: DelegateCore) -> Step:
    core.transition(Action.ASK, State.SCREEN, "moderator confidence below τ_classify: clarify")
    core.memory.asked = {"kind": "clarify", "fields": [], "choices": {}}
    return send(core, Intent("clarify"))


def _reconfirm(core: DelegateCore, prefix: str) -> Step:
    name = next(iter(core.tci.disputed))
    core.memory.reconfirming = name
    core.transition(Action.ASK, State.SCREEN, f"contradiction on {name}: re-screen")
    core.memory.asked = {"kind": "reconfirm", "fields": [name], "choices": {}}
    values = {
        "old": describe(core.config, name, core.tci.confirmed[name]),
        "new": describe(core.config, name, core.tci.disputed[name]),
        "label": core.config.field(name).label,
    }
    return send(core, Intent("reconfirm", values, prefix=prefix))
