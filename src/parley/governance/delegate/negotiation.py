"""The negotiation phase: non-binding proposals within the authorised band, reading the
counterparty's asks and acceptances, and the summary that goes to the principal for final approval.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from functools import cache

from parley.governance.config import load_yaml_data
from parley.governance.delegate.core import DelegateCore
from parley.governance.delegate.outbox import ask, send
from parley.governance.delegate.records import Step
from parley.governance.drafting import Intent, format_amount, format_range
from parley.governance.escalation import Trigger
from parley.governance.machine import Action, State
from parley.governance.moderator import ADVERSARIAL, Label
from parley.governance.offers import counterparty_ask, opening_range, terms_text
from parley.governance.stcc import screening_question

_FLAG_NAMES = {Label.PROMPT_INJECTION: "injection", Label.SOCIAL_ENGINEERING: "social-engineering attempt"}


@cache
def _cues() -> tuple[re.Pattern[str], re.Pattern[str]]:
    """The acceptance and withdrawal cues (package data: moderator.yaml)."""
    raw = load_yaml_data("moderator.yaml")
    return re.compile(raw["acceptance"], re.IGNORECASE), re.compile(raw["withdrawal"], re.IGNORECASE)


def negotiate_step(core: DelegateCore, message: str | None, prefix: str) -> Step:
    """The next negotiation move after message: summarise, escalate, complete screening or re-propose."""
    acceptance, withdrawal = _cues()
    text = message or ""
    if withdrawal.search(text):
        return core.end(State.NO_DEAL, "counterparty withdrew")
    term = core.term_name()
    counter = counterparty_ask(core.config, text, term)
    if counter is not None:
        return _answer_ask(core, term, counter)
    proposal = core.memory.proposal
    if acceptance.search(text) and proposal is not None:
        return summarize(core, {str(proposal["term"]): float(proposal["high"])})
    if core.memory.no_info >= core.config.thresholds.stall_rounds:
        return core.escalate(
            Trigger.AMBIGUITY, f"No progress for {core.memory.no_info} rounds while negotiating."
        )
    question = screening_question(core.config, core.tci, core.templates, ranked=core.options.use_stcc)
    if question is not None and core.tci.weighted < core.config.thresholds.complete:
        core.transition(Action.ASK, State.NEGOTIATE, f"completing {list(question.fields)} before terms")
        return ask(core, question, prefix)
    return propose(core, prefix, "re-stating the proposal")


def _answer_ask(core: DelegateCore, term: str, amount: float) -> Step:
    """Summarise an ask within the band (raised to its minimum); escalate one above it."""
    core.memory.last_ask = amount
    low, high = core.band(term)
    if high is not None and amount > high + 1e-9:
        return _boundary_escalation(core, term, amount, low, high)
    return summarize(core, {term: max(amount, low) if low is not None else amount})


def propose(core: DelegateCore, prefix: str, rationale: str) -> Step:
    """Move to (or stay in) NEGOTIATE and state the non-binding range, opening one if needed."""
    memory = core.memory
    term_name = core.term_name()
    term = core.config.boundary.term(term_name)
    if memory.proposal is None or memory.proposal["term"] != term_name:
        memory.proposal = opening_range(core.config, term_name, core.band(term_name))
    low, high = memory.proposal["low"], memory.proposal["high"]
    core.transition(Action.PROPOSE, State.NEGOTIATE, rationale)
    intent = Intent(
        "proposal",
        {"range": format_range(low, high, term.unit)},
        term_name,
        high,
        memory.last_ask,
        prefix=prefix,
        slippable=True,
    )
    return send(core, intent)


def summarize(core: DelegateCore, terms: Mapping[str, float]) -> Step:
    """Send the summary of terms within authority and ask the principal for final approval."""
    core.terms = dict(terms)
    core.transition(Action.SUMMARIZE, State.SUMMARIZE, "terms within authority; prepare summary")
    step = send(core, Intent("summary", {"terms": terms_text(core.config, terms)}))
    return step if core.state == State.ESCALATE else final_approval(core, step)


def final_approval(core: DelegateCore, sent: Step) -> Step:
    """After the summary went out: the human gate on the agreement artefact."""
    request_step = core.escalate(Trigger.FINAL_APPROVAL, "Final terms need your approval before agreement.")
    return Step(sent.outgoing, request_step.state, request_step.request)


def _boundary_escalation(
    core: DelegateCore, term_name: str, amount: float, low: float | None, high: float
) -> Step:
    term = core.config.boundary.term(term_name)
    band = (
        f"{format_amount(low, term.unit)}–{format_amount(high, term.unit)}"
        if low is not None
        else f"up to {format_amount(high, term.unit)}"
    )
    problem = (
        f"The {core.config.counterparty_role} asks {format_amount(amount, term.unit)} for the "
        f"{term.label}; the approved band is {band}."
    )
    safety = ["boundary_violation"]
    memory = core.memory
    if memory.last_label in ADVERSARIAL and memory.flags:
        # The figure came in a flagged message: it must not reach the principal as a plain ask.
        family = memory.flags[-1]
        problem = (
            f"The {core.config.counterparty_role}'s message naming {format_amount(amount, term.unit)} was "
            f"flagged as a possible {_FLAG_NAMES.get(memory.last_label, 'manipulation')} "
            f"({family.replace('_', ' ')}): treat the figure as unverified. {problem}"
        )
        safety += [memory.last_label.value, family]
    elif memory.adversarial:
        families = ", ".join(dict.fromkeys(f.replace("_", " ") for f in memory.flags)) or "adversarial"
        problem = (
            f"{problem} Earlier messages from the {core.config.counterparty_role} in this session were "
            f"flagged as adversarial ({memory.adversarial}: {families})."
        )
        safety += ["adversarial_session", *dict.fromkeys(memory.flags)]
    boundary = {
        "term": term_name,
        "ask": amount,
        "minimum": low,
        "maximum": high,
        "excess": round(amount - high, 6),
    }
    return core.escalate(Trigger.BOUNDARY, problem, boundary=boundary, safety=tuple(dict.fromkeys(safety)))
