"""Resuming after an escalation: the principal's decision is recorded, its guidance stored as a
human override, and the chosen option's effect applied (counter, raise the limit, send a compliant
or approved draft, approve the final terms, decline, pause, or continue where the flow paused).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace
from typing import Any

from parley.errors import ScenarioError
from parley.governance.critic import human_guidance
from parley.governance.delegate.core import DelegateCore
from parley.governance.delegate.negotiation import final_approval, summarize
from parley.governance.delegate.outbox import close, emit, send
from parley.governance.delegate.records import DELEGATE, PRINCIPAL, Step
from parley.governance.delegate.screening import advance
from parley.governance.drafting import Intent, TemplateDrafter, format_amount
from parley.governance.escalation import Decision, EscalationOption, EscalationRequest, Trigger
from parley.governance.machine import Action, State
from parley.governance.offers import terms_text
from parley.governance.preflight import preflight
from parley.governance.values import find_money

_COUNTERS = ("counter_at_limit", "raise_limit", "revise_terms", "counter_at_guidance")


def apply_decision(core: DelegateCore, decision: Decision) -> Step:
    """Apply the principal's decision to the pending escalation and continue.

    Raises:
        ScenarioError: if nothing is pending, the request id differs, or the option is unknown.
    """
    request = core.memory.pending
    if request is None or core.state != State.ESCALATE:
        raise ScenarioError(f"session {core.session_id} is not waiting for a decision", field="session")
    if decision.request_id != request.request_id:
        raise ScenarioError(
            f"decision is for {decision.request_id!r}, pending request is {request.request_id!r}",
            field="request_id",
        )
    option = request.option(decision.option) if decision.option else None
    core.record(
        "decision",
        {**decision.to_json(), "trigger": request.trigger.value},
        f"{decision.decided_by} chose {decision.option or 'guidance'}",
        party=PRINCIPAL,
    )
    if decision.guidance:
        core.memory.human.append(human_guidance(core.config, decision.guidance, core.turn))
        core.record(
            "human_override",
            {"text": decision.guidance, "by": decision.decided_by},
            "principal guidance stored as a human override",
            party=PRINCIPAL,
        )
    core.memory.pending = None
    return _apply(core, request, option, decision.guidance)


def _apply(
    core: DelegateCore, request: EscalationRequest, option: EscalationOption | None, guidance: str
) -> Step:
    effect = option.effect if option else _guidance_effect(request, guidance)
    origin = core.memory.origin or State.SCREEN
    back = State.SCREEN if origin in (State.STCC, State.START) else origin
    if effect == "decline":
        return close(core, State.NO_DEAL, "decline_close", f"principal declined ({request.trigger.value})")
    if effect == "stall":
        core.transition(Action.DECLINE, State.STALL, "principal paused the engagement")
        return Step(None, core.state)
    if effect == "approve_terms":
        return _approve_terms(core)
    if effect in _COUNTERS:
        return _counter(core, effect, request, guidance)
    core.transition(Action.APPROVE, back, f"principal chose {effect}")
    held = core.memory.held
    if effect == "send_compliant" and held is not None:
        return _send_compliant(core, held, back)
    if effect == "approve_draft" and held is not None:
        return _send_approved_draft(core, held)
    return _continue(core, effect, request, back)


def _guidance_effect(request: EscalationRequest, guidance: str) -> str:
    """The effect of guidance without an option: a named amount at a boundary is a counter."""
    if request.trigger == Trigger.BOUNDARY and find_money(guidance):
        return "counter_at_guidance"
    return request.options[0].effect


def _approve_terms(core: DelegateCore) -> Step:
    """Record the human-approved agreement and send the closing message (binding wording allowed)."""
    core.transition(Action.APPROVE, State.AGREE, "principal approved the final terms")
    core.record(
        "agreement",
        {"terms": core.terms, "facts": dict(core.tci.confirmed)},
        "human-approved agreement artefact",
    )
    intent = Intent("approved_close", {"terms": terms_text(core.config, core.terms)}, approved=True)
    text = core.draft(intent).text
    result = preflight(text, core.config, overrides=core.memory.limits, allow_binding=True)
    core.record("preflight", result.to_json(), "final terms: binding wording approved by the principal")
    if result.sendable is None and not isinstance(core.drafter, TemplateDrafter):
        # The principal approved the terms, not whatever a plugged-in drafter wrote around them: wording
        # that fails even the approved preflight is replaced by the template's, and the log says so.
        text = TemplateDrafter(core.config).draft(intent).text
        core.record(
            "safety_event",
            {"type": "approved_close_reworded", "reasons": list(result.reasons)},
            "the drafter's closing wording failed the preflight; the template's wording was sent",
            audience=DELEGATE,
        )
    return emit(core, text, ())


def _counter(core: DelegateCore, effect: str, request: EscalationRequest, guidance: str) -> Step:
    """Propose one amount (the limit, the ask, the guidance's amount or the proposal's top)."""
    memory = core.memory
    term_name = str(request.boundary_at_risk.get("term", core.term_name()))
    term = core.config.boundary.term(term_name)
    low, high = core.band(term_name)
    amount = high if high is not None else 0.0
    template = "counter_at_limit"
    if effect == "raise_limit":
        amount, template = float(request.boundary_at_risk["ask"]), "raised_limit"
    elif effect == "counter_at_guidance":
        amount = find_money(guidance)[0].high
    elif effect == "revise_terms" and memory.proposal is not None:
        amount = float(memory.proposal["high"])
    if amount > (high or 0.0):
        memory.limits[term_name] = (low, amount)
        core.record(
            "authorization_change",
            {"term": term_name, "minimum": low, "maximum": amount},
            "principal approved a wider limit",
            party=PRINCIPAL,
        )
    memory.proposal = {"term": term_name, "low": amount, "high": amount}
    core.transition(Action.APPROVE, State.NEGOTIATE, f"principal chose {effect}")
    return send(
        core,
        Intent(
            template,
            {"amount": format_amount(amount, term.unit)},
            term_name,
            amount,
            memory.last_ask,
            slippable=True,
        ),
    )


def _send_compliant(core: DelegateCore, held_draft: Mapping[str, Any], back: State) -> Step:
    """Send the held intent without slips; if even that needs approval, a neutral holding note."""
    intent = replace(Intent.from_json(held_draft["intent"]), slippable=False, verbatim=True)
    core.memory.held = None
    if preflight(core.draft(intent).text, core.config, overrides=core.memory.limits).sendable is None:
        # Even the clean wording needs approval: send a neutral holding note instead of looping.
        core.record("safety_event", {"type": "holding_fallback"}, "compliant draft still failed")
        if back == State.SUMMARIZE:
            return core.end(State.NO_DEAL, "final terms cannot be stated within authority")
        intent = Intent("holding")
    step = send(core, intent)
    return final_approval(core, step) if core.state == State.SUMMARIZE else step


def _send_approved_draft(core: DelegateCore, held_draft: Mapping[str, Any]) -> Step:
    held_text, core.memory.held = str(held_draft["text"]), None
    core.record(
        "safety_event",
        {"type": "approved_override", "text": held_text},
        "principal approved a draft beyond the boundary",
    )
    return emit(core, held_text, (), approved=True)


def _continue(core: DelegateCore, effect: str, request: EscalationRequest, back: State) -> Step:
    """Continue where the flow paused (muting the conflicting tactics first, if so chosen)."""
    memory = core.memory
    if effect == "mute_conflicts":
        memory.muted.update(topic for item in memory.human for topic in item.topics)
    # The cumulative adversarial count survives a decision (figures from a flagged session stay
    # flagged); only the count that triggers the repeated-attempts escalation starts again.
    memory.adversarial_since_decision, memory.no_info = 0, 0
    if back == State.SUMMARIZE:
        return summarize(core, core.terms)
    return advance(core, None, _resume_prefix(core, request))


def _resume_prefix(core: DelegateCore, request: EscalationRequest) -> str:
    if request.trigger == Trigger.SENTIMENT:
        return core.templates["acknowledge_concern"]
    if request.trigger == Trigger.ADVERSARIAL:
        return core.templates["refuse_injection"].format(subject=core.config.subject)
    return ""
