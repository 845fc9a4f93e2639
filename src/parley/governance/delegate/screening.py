"""Reading a counterparty message into the TCI ledger (extraction, moderation, contradictions) and
the screening phase it leads to: the next question by information gain, clarifications,
re-confirmations, and the hand-over to negotiation once the gate opens.
"""

from __future__ import annotations

from collections.abc import Sequence

from parley.governance.delegate.core import DelegateCore
from parley.governance.delegate.negotiation import negotiate_step, propose
from parley.governance.delegate.outbox import ask, send
from parley.governance.delegate.records import Step
from parley.governance.drafting import Intent
from parley.governance.escalation import Trigger
from parley.governance.extraction import ExtractionContext, FieldReading
from parley.governance.machine import Action, State
from parley.governance.moderator import ADVERSARIAL, Classification, Label
from parley.governance.offers import describe
from parley.governance.stcc import screening_question, total_entropy


def process(core: DelegateCore, message: str) -> Step:
    """Update the ledger from message, label it, and route to the next move."""
    before = total_entropy(core.config, core.tci)
    readings, resolved = _extract(core, message)
    classification = core.moderator.classify(message, relevant=bool(readings))
    core.memory.last_label = classification.label
    core.record("moderator_label", classification.to_json(), f"label {classification.label.value}")
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
        },
        f"TCI {entry.tci:.2f} (weighted {entry.tci_weighted:.2f}); missing {len(entry.missing)}",
    )
    core.memory.no_info = 0 if (entry.revealed or resolved) else core.memory.no_info + 1
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


def _extract(core: DelegateCore, message: str) -> tuple[list[FieldReading], list[str]]:
    """Field readings from message, and the contradicted field it resolved (if it answered one)."""
    asked = core.memory.asked
    context = ExtractionContext(tuple(asked["fields"]), {k: tuple(v) for k, v in asked["choices"].items()})
    negotiable = {t.field for t in core.config.boundary.terms if t.kind == "money"}
    # A new amount for an already-known negotiable field is a counter-offer, not a contradiction.
    readings = [
        r
        for r in core.extractor.extract(message, context)
        if not (r.field in negotiable and r.field in core.tci.confirmed)
    ]
    resolved: list[str] = []
    name = core.memory.reconfirming
    if name is not None:
        answers = sorted((r for r in readings if r.field == name), key=lambda r: -r.confidence)
        if answers:
            core.tci.resolve(name, answers[0].value)
            core.record("reconfirmed", {"field": name, "value": answers[0].value}, "contradiction resolved")
            core.memory.reconfirming = None
            resolved.append(name)
        readings = [r for r in readings if r.field != name]
    return readings, resolved


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
    question = screening_question(core.config, core.tci, core.templates, ranked=core.options.use_stcc)
    if question is None:
        return propose(core, prefix, "all fields known")
    core.transition(Action.ASK, State.SCREEN, f"screening {list(question.fields)}")
    return ask(core, question, prefix)


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
