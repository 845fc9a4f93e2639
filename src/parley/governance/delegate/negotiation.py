"""The negotiation phase: non-binding offers, reading the counterparty's asks and acceptances, and
the summary that goes to the principal for final approval.

Two strategies (`negotiation.strategy` in the domain config): "principal" (the default) makes offers
from the principal's preferences across terms (`parley.governance.strategy`); "legacy" proposes a
share of the authorised band, as the delegate did before, and is kept as the experiment's baseline.
The principal strategy's position (the counterparty's asks, the offers made) is rebuilt from the
trajectory's `negotiation_strategy` events, so a stored session resumes with it.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from functools import cache
from typing import Any

from parley.governance.config import load_yaml_data
from parley.governance.delegate.core import DelegateCore
from parley.governance.delegate.outbox import ask, send
from parley.governance.delegate.questions import not_to_ask
from parley.governance.delegate.records import DELEGATE, Step
from parley.governance.drafting import Intent, format_amount, format_range
from parley.governance.escalation import Trigger
from parley.governance.machine import Action, State
from parley.governance.moderator import ADVERSARIAL, Label
from parley.governance.offers import counterparty_ask, opening_range, package_text, terms_text
from parley.governance.stcc import screening_question
from parley.governance.strategy import RESTATED, Move, Position, PrincipalStrategy, TermValue
from parley.governance.terms import reader_for
from parley.protocol.governed import CounterpartyMessage, NegotiationStrategy

_FLAG_NAMES = {Label.PROMPT_INJECTION: "injection", Label.SOCIAL_ENGINEERING: "social-engineering attempt"}
STRATEGY_EVENT = "negotiation_strategy"
"""Trajectory event (delegate-only) holding the principal strategy's position after each move."""


@cache
def _cues() -> tuple[re.Pattern[str], re.Pattern[str]]:
    """The acceptance and withdrawal cues (package data: moderator.yaml)."""
    raw = load_yaml_data("moderator.yaml")
    return re.compile(raw["acceptance"], re.IGNORECASE), re.compile(raw["withdrawal"], re.IGNORECASE)


def negotiate_step(core: DelegateCore, message: str | None, prefix: str) -> Step:
    """The next negotiation move after message: summarise, escalate, complete screening or re-propose."""
    _, withdrawal = _cues()
    text = message or ""
    if withdrawal.search(text):
        return core.end(State.NO_DEAL, "counterparty withdrew")
    if core.options.strategy == "legacy":
        return _legacy_step(core, text, prefix)
    return _principal_step(core, text, prefix)


def propose(core: DelegateCore, prefix: str, rationale: str) -> Step:
    """Move to (or stay in) NEGOTIATE and put the offer forward, opening one if needed."""
    if core.options.strategy == "legacy":
        return _legacy_propose(core, prefix, rationale)
    strategy = _strategy(core)
    position = _position(core)
    if not position.offers:
        position = _with_screening_ask(core, strategy, position)
        return _offer(core, strategy, position, strategy.opening(position), prefix, rationale)
    # Back from another phase (a re-confirmation): answer what was said meanwhile, if anything.
    heard = _heard(core, strategy, position, _unheard(core, answering=False))
    if heard.moves == position.moves:
        return _offer(core, strategy, position, strategy.opening(position), prefix, rationale)
    return _respond(core, strategy, heard, prefix)


# -- the principal strategy -------------------------------------------------------------------------------
def _strategy(core: DelegateCore) -> PrincipalStrategy:
    bands = {term.name: core.band(term.name) for term in core.config.boundary.terms}
    return PrincipalStrategy(core.config, core.term_name(), bands)


def _position(core: DelegateCore) -> Position:
    """The strategy's position after its last move (empty before the first offer, or when the
    negotiated term has changed since, e.g. to an hourly rate), with the rounds that passed without a
    reply since then."""
    events = list(core.trajectory)
    silences = sum(1 for event in events if event.kind == "no_reply")
    waited = 0
    for event in reversed(events):
        if event.kind == "no_reply":
            waited += 1
        if event.kind == STRATEGY_EVENT and isinstance(record := event.payload, NegotiationStrategy):
            if record.term != core.term_name():
                return Position().with_silences(silences)
            return Position.from_json(record.position).with_wait(waited).with_silences(silences)
    return Position().with_silences(silences)


def _unheard(core: DelegateCore, *, answering: bool) -> list[str]:
    """Counterparty messages since the strategy's last move that another phase answered (a
    re-confirmation, a clarification), oldest first; with answering, the latest message (the one
    being answered now) is left out."""
    texts: list[str] = []
    for event in reversed(list(core.trajectory)):
        if event.kind == STRATEGY_EVENT:
            break
        if event.kind == "counterparty_message" and isinstance(message := event.payload, CounterpartyMessage):
            texts.append(message.text)
    return texts[1 if answering else 0 :][::-1]


def _heard(core: DelegateCore, strategy: PrincipalStrategy, position: Position, texts: list[str]) -> Position:
    """The position after the terms the texts state (each one a move of the counterparty)."""
    for text in texts if position.offers else ():
        stated = _stated(core, strategy, text)
        position = position.with_move(stated) if stated else position
    return position


def _stated(core: DelegateCore, strategy: PrincipalStrategy, text: str) -> dict[str, TermValue]:
    """The terms a counterparty message states (those the principal has preferences on)."""
    if not text:
        return {}
    reading = reader_for(core.config).read(text, asked=tuple(core.memory.asked["fields"]))
    stated = strategy.known({t.term: t.value for t in reading.terms})
    if strategy.money_term not in stated:
        amount = counterparty_ask(core.config, text, strategy.money_term)
        if amount is not None:
            stated[strategy.money_term] = amount
    return stated


def _with_screening_ask(core: DelegateCore, strategy: PrincipalStrategy, position: Position) -> Position:
    """The position with what the counterparty asked on the negotiated term while being screened
    ("I'm looking for around $80K"): the opening offer is anchored on it."""
    for speaker, text in core.transcript:
        if speaker == DELEGATE:
            continue
        figure = _stated(core, strategy, text).get(strategy.money_term)
        if figure is not None and not strategy.beyond_best(figure):  # (a figure below the band: misread)
            position = position.with_move({strategy.money_term: figure})
    return position


def _principal_step(core: DelegateCore, text: str, prefix: str) -> Step:
    acceptance, _ = _cues()
    strategy = _strategy(core)
    position = _heard(core, strategy, _position(core), _unheard(core, answering=True))
    stated = _stated(core, strategy, text)
    low_figure = stated.get(strategy.money_term)
    if low_figure is not None and strategy.beyond_best(low_figure):
        return _confirm(core, strategy, position, float(low_figure))
    current = _current_offer(core, strategy, position)
    if current is not None and acceptance.search(text) and _agrees(stated, current):
        return _settle(core, position, current, "the counterparty accepted the offer on the table")
    if stated:
        core.memory.no_info = 0
        money = stated.get(strategy.money_term)
        if isinstance(money, float | int):
            core.memory.last_ask = float(money)
        return _respond(core, strategy, position.with_move(stated), prefix)
    return _idle(core, strategy, position, prefix)


def _confirm(core: DelegateCore, strategy: PrincipalStrategy, position: Position, figure: float) -> Step:
    """A figure below the band was read: ask the counterparty to say it again, then the principal.

    Accepting it would go beyond the band, answering at the band's end would state a private limit,
    and offering more than it asks would overpay; it may also be a misreading. It is not kept as an ask.
    """
    term = core.config.boundary.term(strategy.money_term)
    again = _last_move(core) == "confirm"
    rationale = "a figure below the band was read again" if again else "a figure below the band was read"
    _record(
        core,
        position,
        Move("confirm", {term.name: figure}, 1.0, strategy.time(position), rationale),
        strategy,
    )
    if again:
        return core.escalate(
            Trigger.AMBIGUITY,
            f"The {core.config.counterparty_role}'s messages read as {format_amount(figure, term.unit)} for "
            f"the {term.label}, below the approved band; decide how the delegate should answer.",
        )
    core.transition(Action.ASK, core.state, "confirm a figure below the band")
    core.memory.asked = {"kind": "clarify", "fields": [], "choices": {}}
    return send(core, Intent("clarify"))


def _last_move(core: DelegateCore) -> str | None:
    for event in reversed(list(core.trajectory)):
        if event.kind == STRATEGY_EVENT and isinstance(record := event.payload, NegotiationStrategy):
            return record.move.move
    return None


def _respond(core: DelegateCore, strategy: PrincipalStrategy, position: Position, prefix: str) -> Step:
    """The strategy's answer to what the counterparty asks: accept, escalate, or counter."""
    move = strategy.respond(position)
    if move.kind == "accept":
        return _settle(core, position, move.package, move.rationale, move)
    if move.kind == "escalate":
        _record(core, position, move, strategy)
        low, high = core.band(strategy.money_term)
        ask = float(position.asks[strategy.money_term])
        return _boundary_escalation(core, strategy.money_term, ask, low, high or 0.0)
    return _offer(core, strategy, position, move, prefix, "counter-offer on the concession schedule")


def _stall_or_question(core: DelegateCore, prefix: str) -> Step | None:
    """While negotiating: escalate a stall, or ask a screening question still open (never one already
    answered or asked too often: `not_to_ask`) while the TCI is below complete; else None."""
    if core.memory.no_info >= core.config.thresholds.stall_rounds:
        return core.escalate(
            Trigger.AMBIGUITY, f"No progress for {core.memory.no_info} rounds while negotiating."
        )
    question = screening_question(
        core.config, core.tci, core.templates, ranked=core.options.use_stcc, exclude=not_to_ask(core)
    )
    if question is not None and core.tci.weighted < core.config.thresholds.complete:
        core.transition(Action.ASK, State.NEGOTIATE, f"completing {list(question.fields)} before terms")
        return ask(core, question, prefix)
    return None


def _idle(core: DelegateCore, strategy: PrincipalStrategy, position: Position, prefix: str) -> Step:
    """A reply that states no terms: stall handling, open screening questions, or the offer again."""
    if (step := _stall_or_question(core, prefix)) is not None:
        return step
    return _offer(core, strategy, position, strategy.opening(position), prefix, "re-stating the offer")


def _current_offer(
    core: DelegateCore, strategy: PrincipalStrategy, position: Position
) -> dict[str, TermValue] | None:
    """The offer on the table: the strategy's last, with the amount the principal chose after a
    boundary escalation (a counter at the limit, a raised limit) when that came later."""
    offer = strategy.current_offer(position)
    proposal = core.memory.proposal
    if offer is None or proposal is None or proposal["term"] != strategy.money_term:
        return offer
    return {**offer, strategy.money_term: float(proposal["high"])}


def _agrees(stated: Mapping[str, TermValue], offer: Mapping[str, TermValue]) -> bool:
    """Whether the terms an accepting message names are those of the offer (or it names none)."""
    for name, value in stated.items():
        ours = offer.get(name)
        if ours is None:
            continue
        if isinstance(value, str) or isinstance(ours, str):
            if str(value) != str(ours):
                return False
        elif abs(float(value) - float(ours)) > 1e-6 * max(1.0, abs(float(ours))):
            return False
    return True


def _record(core: DelegateCore, position: Position, move: Move, strategy: PrincipalStrategy) -> None:
    core.record(
        STRATEGY_EVENT,
        {
            "position": position.to_json(),
            "move": move.to_json(),
            "term": strategy.money_term,
            "in_play": [s.name for s in strategy.in_play(position)],
            "left_to_principal": list(strategy.outside(position)),
        },
        f"{move.kind}: {move.rationale}",
        audience=DELEGATE,
    )


def _offer(
    core: DelegateCore,
    strategy: PrincipalStrategy,
    position: Position,
    move: Move,
    prefix: str,
    rationale: str,
) -> Step:
    """Send the strategy's offer (recorded first, so a held draft still counts as made)."""
    package = dict(move.package)
    if move.kind == "offer" and move.rationale != RESTATED:
        position = position.with_offer(package)  # a new round of the schedule, even at the same package
    _record(core, position, move, strategy)
    term = core.config.boundary.term(strategy.money_term)
    money = float(package[strategy.money_term])
    core.memory.proposal = {"term": strategy.money_term, "low": money, "high": money}
    core.transition(Action.PROPOSE, State.NEGOTIATE, rationale)
    others = {name: value for name, value in package.items() if name != strategy.money_term}
    extras = package_text(core.config, others)
    values = {
        "range": format_amount(money, term.unit),
        "extras": f" {extras}" if extras else "",
    }
    intent = Intent("proposal", values, term.name, money, core.memory.last_ask, prefix=prefix, slippable=True)
    return send(core, intent)


def _settle(
    core: DelegateCore,
    position: Position,
    package: Mapping[str, TermValue],
    rationale: str,
    move: Move | None = None,
) -> Step:
    """Summarise agreed terms for the principal's final approval."""
    if core.state == State.SCREEN:  # the terms came while a fact was being re-confirmed
        core.transition(Action.PROPOSE, State.NEGOTIATE, "back to the terms after re-screening")
    strategy = _strategy(core)
    _record(
        core,
        position,
        move or Move("accept", dict(package), 0.0, strategy.time(position), rationale),
        strategy,
    )
    return summarize(core, dict(package))


# -- the legacy strategy ----------------------------------------------------------------------------------
def _legacy_step(core: DelegateCore, text: str, prefix: str) -> Step:
    acceptance, _ = _cues()
    term = core.term_name()
    counter = counterparty_ask(core.config, text, term)
    if counter is not None:
        return _answer_ask(core, term, counter)
    proposal = core.memory.proposal
    if acceptance.search(text) and proposal is not None:
        return summarize(core, {str(proposal["term"]): float(proposal["high"])})
    if (step := _stall_or_question(core, prefix)) is not None:
        return step
    return _legacy_propose(core, prefix, "re-stating the proposal")


def _answer_ask(core: DelegateCore, term: str, amount: float) -> Step:
    """Summarise an ask within the band (raised to its minimum); escalate one above it."""
    core.memory.last_ask = amount
    low, high = core.band(term)
    if high is not None and amount > high + 1e-9:
        return _boundary_escalation(core, term, amount, low, high)
    return summarize(core, {term: max(amount, low) if low is not None else amount})


def _legacy_propose(core: DelegateCore, prefix: str, rationale: str) -> Step:
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


def summarize(core: DelegateCore, terms: Mapping[str, Any]) -> Step:
    """Send the summary of terms within authority and ask the principal for final approval."""
    core.terms = dict(terms)
    core.transition(Action.SUMMARIZE, State.SUMMARIZE, "terms within authority; prepare summary")
    step = send(core, Intent("summary", {"terms": terms_text(core.config, terms)}))
    return step if core.state == State.ESCALATE else final_approval(core, step)


def final_approval(core: DelegateCore, sent: Step) -> Step:
    """After the summary went out: the human gate on the agreement artefact (with any flag beside it)."""
    before, after, flagged = _flags(core, terms_text(core.config, core.terms))
    request_step = core.escalate(
        Trigger.FINAL_APPROVAL,
        f"{before}Final terms need your approval before agreement.{after}",
        safety=tuple(dict.fromkeys(flagged)),
    )
    return Step(sent.outgoing, request_step.state, request_step.request)


def _flags(core: DelegateCore, figure: str) -> tuple[str, str, list[str]]:
    """What the principal reads beside a figure from a flagged session: (before, after, safety events).

    A figure from a flagged message is marked unverified; after earlier flagged messages, the
    session's count and families follow the problem. A principal's decision resets neither.
    """
    memory = core.memory
    role = core.config.counterparty_role
    if memory.last_label in ADVERSARIAL and memory.flags:
        family = memory.flags[-1]
        before = (
            f"The {role}'s message naming {figure} was flagged as a possible "
            f"{_FLAG_NAMES.get(memory.last_label, 'manipulation')} ({family.replace('_', ' ')}): "
            "treat the figure as unverified. "
        )
        return before, "", [memory.last_label.value, family]
    if memory.adversarial:
        families = ", ".join(dict.fromkeys(f.replace("_", " ") for f in memory.flags)) or "adversarial"
        after = (
            f" Earlier messages from the {role} in this session were flagged as adversarial "
            f"({memory.adversarial}: {families})."
        )
        return "", after, ["adversarial_session", *dict.fromkeys(memory.flags)]
    return "", "", []


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
    # A figure from a flagged message must not reach the principal as a plain ask.
    before, after, flagged = _flags(core, format_amount(amount, term.unit))
    problem = f"{before}{problem}{after}"
    safety = ["boundary_violation", *flagged]
    boundary = {
        "term": term_name,
        "ask": amount,
        "minimum": low,
        "maximum": high,
        "excess": round(amount - high, 6),
    }
    return core.escalate(Trigger.BOUNDARY, problem, boundary=boundary, safety=tuple(dict.fromkeys(safety)))
