"""Everything the delegate says goes out here: guidance is merged, the drafter writes, the preflight
checks the draft, and it is sent, rewritten as non-binding, or held for the principal's approval.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

from parley.governance.critic import MergedGuidance, merge_channels, safety_guidance
from parley.governance.delegate.core import DelegateCore
from parley.governance.delegate.records import DELEGATE, SEVERITY, Step
from parley.governance.drafting import ContextualDrafter, Draft, DraftContext, Intent
from parley.governance.escalation import Trigger
from parley.governance.machine import ACTIVE, TERMINAL, Action, State
from parley.governance.moderator import Label
from parley.governance.preflight import PreflightResult, preflight
from parley.governance.stcc import Question


def ask(core: DelegateCore, question: Question, prefix: str = "") -> Step:
    """Send a question and remember what it asked (the context for reading the answer)."""
    core.memory.asked = {
        "kind": question.kind,
        "fields": list(question.fields),
        "choices": {k: list(v) for k, v in question.choices.items()},
    }
    core.record(
        "question",
        {
            "kind": question.kind,
            "fields": list(question.fields),
            "expected_gain": round(question.expected_gain, 6),
        },
        "question chosen by IG",
    )
    return send(core, Intent("text", {"text": question.text}, prefix=prefix))


def send(core: DelegateCore, intent: Intent) -> Step:
    """Draft intent and send it if the preflight allows, else pause for the principal."""
    merged = _guidance(core)
    if _conflict_limit_reached(core):
        core.memory.conflict_escalated = True
        return core.escalate(Trigger.CONFLICT, "The critic keeps suggesting tactics your guidance rules out.")
    intent = _complete(core, intent, merged)
    draft = _draft(core, intent, merged)
    if not core.options.preflight:
        core.record("preflight", {"skipped": True}, "preflight disabled (ablation)")
        return emit(core, draft.text, draft.slips)
    result = preflight(
        draft.text,
        core.config,
        overrides=core.memory.limits,
        allow_binding=intent.approved,
        declared=draft.declared,
    )
    core.record(
        "preflight", result.to_json(), "requires approval" if result.requires_approval else "safe to send"
    )
    sendable = result.sendable
    if sendable is not None:
        return _send_checked(core, draft, sendable)
    if core.state in TERMINAL:
        return _withhold(core, draft)
    return _hold_for_approval(core, intent, draft, result)


def emit(core: DelegateCore, text: str, slips: Sequence[str], approved: bool = False) -> Step:
    """Send text to the counterparty; unapproved slips in it are recorded as violations."""
    core.transcript.append((DELEGATE, text))
    core.record("delegate_message", {"text": text, "state": core.state.value}, "sent to counterparty")
    if slips and not approved:
        severities = sorted({SEVERITY.get(s, "medium") for s in slips})
        core.record(
            "violation",
            {"slips": list(slips), "severity": severities},
            "unsafe text reached the counterparty",
            audience=DELEGATE,
        )
    return Step(text, core.state)


def close(core: DelegateCore, target: State, template: str, rationale: str) -> Step:
    """End the session in target with a closing message."""
    core.transition(Action.DECLINE, target, rationale)
    step = send(core, Intent(template))
    return Step(step.outgoing, core.state)


# -- the steps of `send` ----------------------------------------------------------------------------
def _guidance(core: DelegateCore) -> MergedGuidance:
    gate = core.gate_open() and core.state in (State.NEGOTIATE, State.SUMMARIZE)
    memory = core.memory
    critic = core.critic.suggest(core.tci, gate, core.turn, frozenset(memory.muted))
    merged = merge_channels(
        critic,
        memory.human,
        safety_guidance(core.config),
        budget=core.config.thresholds.token_budget,
        gate_open=gate,
        turn=core.turn,
    )
    if merged.conflicts:
        memory.conflicts += 1
    core.record(
        "guidance",
        {
            "kept": [g.to_json() for g in merged.kept],
            "dropped": [d.to_json() for d in merged.dropped],
            "tokens": merged.tokens,
        },
        "MergeChannels: human > safety > clarity > persuasion",
    )
    return merged


def _conflict_limit_reached(core: DelegateCore) -> bool:
    """Whether critic-vs-principal conflicts just reached the limit (escalated once per session)."""
    memory = core.memory
    limit_reached = memory.conflicts >= core.config.thresholds.conflict_limit
    return limit_reached and not memory.conflict_escalated and core.state in ACTIVE


def _complete(core: DelegateCore, intent: Intent, merged: MergedGuidance) -> Intent:
    """The intent with its term's current limit and, for a proposal, the first persuasion line."""
    if intent.term is not None:
        intent = replace(intent, limit=core.band(intent.term)[1])
    if intent.kind == "proposal":
        says = [item.say for item in merged.persuasion() if item.say]
        if says:
            intent = replace(intent, suffix=says[0])
    return intent


def _draft(core: DelegateCore, intent: Intent, merged: MergedGuidance) -> Draft:
    injection = core.memory.last_label == Label.PROMPT_INJECTION
    context = _draft_context(core, merged, injection) if isinstance(core.drafter, ContextualDrafter) else None
    draft = core.draft(intent, injection=injection, context=context)
    core.record(
        "draft",
        {"text": draft.text, "slips": list(draft.slips), "intent": intent.kind},
        "drafted",
        audience=DELEGATE,
    )
    return draft


def _draft_context(core: DelegateCore, merged: MergedGuidance, injection: bool) -> DraftContext:
    return DraftContext(
        core.state.value,
        core.turn,
        core.tci.value,
        core.tci.weighted,
        dict(core.tci.confirmed),
        {k: tuple(v) for k, v in core.tci.soft.items()},
        core.tci.missing,
        tuple((item.channel, item.text) for item in merged.kept),
        tuple(core.transcript[-4:]),
        injection,
    )


def _send_checked(core: DelegateCore, draft: Draft, sendable: str) -> Step:
    """Send what the preflight passed; a rewrite removed the binding slip it reworded."""
    residual = tuple(s for s in draft.slips if not (s == "binding" and sendable != draft.text))
    if sendable != draft.text:
        core.record(
            "safety_event",
            {"type": "rewritten_non_binding", "rewrite": sendable},
            "binding language rewritten before sending",
        )
    return emit(core, sendable, residual)


def _withhold(core: DelegateCore, draft: Draft) -> Step:
    # The session has ended (AGREE / NO_DEAL / STALL): nothing is left to approve, so a
    # closing note that fails the preflight is withheld rather than escalated.
    core.record(
        "safety_event",
        {"type": "withheld_after_end", "text": draft.text},
        "closing message failed the preflight after the session ended; not sent",
    )
    return Step(None, core.state)


def _hold_for_approval(core: DelegateCore, intent: Intent, draft: Draft, result: PreflightResult) -> Step:
    core.memory.held = {"intent": intent.to_json(), "text": draft.text, "slips": list(draft.slips)}
    findings = (
        [f"{b.kind} {b.term}={b.value}" for b in result.breaches]
        + [f"prohibited {t.topic}" for t in result.topics]
        + [f"binding: {c.cue}" for c in result.commitments]
        + [f"limit disclosure: {d.describe()}" for d in result.disclosures]
    )
    problem = _disclosure_problem(core, result) if result.disclosures else None
    return core.escalate(
        Trigger.PREFLIGHT, problem or "A drafted message failed the preflight check.", safety=tuple(findings)
    )


def _disclosure_problem(core: DelegateCore, result: PreflightResult) -> str:
    """Record the held disclosure as a safety event and say what it would have revealed."""
    core.record(
        "safety_event",
        {"type": "limit_disclosure", "findings": [d.to_json() for d in result.disclosures]},
        "draft would reveal a private limit to the counterparty; held for the principal",
    )
    terms = sorted({d.term for d in result.disclosures if d.term})
    which = f" on {', '.join(terms)}" if terms else ""
    return (
        f"A drafted message would reveal your private limit{which} to the "
        f"{core.config.counterparty_role}; it was held, not sent."
    )
