"""The recommendation: the best held offer by the principal's preferences, put to the principal as the
portfolio's final_approval request, and the principal's decision applied to the sessions it names (each
through `parley.governance.session.decide`, so every session's own audit chain records it)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import replace

from parley.errors import ScenarioError, StaleDecision
from parley.governance.config import DomainConfig
from parley.governance.delegate import PRINCIPAL
from parley.governance.escalation import Decision, EscalationOption, EscalationRequest, Principal, Trigger
from parley.governance.machine import State
from parley.governance.portfolio.comparison import Candidate, describe_terms, rank, summarize
from parley.governance.portfolio.record import (
    MessageCallback,
    PortfolioOutcome,
    PortfolioRecord,
    labelled,
    outcome_of,
    two_part,
)
from parley.governance.session import SessionOutcome, check_decision, decide
from parley.governance.store import SessionStore
from parley.protocol.clock import Clock, FakeClock

APPROVE, KEEP_OPEN, DECLINE_ALL = "approve_offer", "keep_open", "decline_all"
"""Effects of the recommendation's options."""

_ALTERNATIVE_KEYS = "DEFGHIJKLMNOPQRSTUVWXYZ"
"""A, B and C mean what they mean on a session's final approval (approve, not yet, decline); the
other offers, next best first, take the letters after them."""


def recommend(
    record: PortfolioRecord, principal: Principal, on_message: MessageCallback | None
) -> PortfolioOutcome:
    """Compare the sessions, record the comparison, and put the best held offer to the principal."""
    candidates = record.compare()
    ranking = rank(candidates)
    record.record(
        "portfolio_comparison",
        {"candidates": [c.to_json() for c in candidates], "ranking": [c.member.session_id for c in ranking]},
        "held offers ranked by the principal's utility, then TCI, then turns",
    )
    if not ranking:
        if all(c.ended for c in candidates):
            record.transition(State.NO_DEAL, "no offer to approve: every session ended without one")
            record.record(
                "session_ended", {"state": State.NO_DEAL.value, "terms": {}}, "nothing to recommend"
            )
        record.save()
        return outcome_of(record, candidates)
    request = _request(record, candidates, ranking, record.clock.now())
    record.transition(State.ESCALATE, "recommendation put to the principal")
    record.record("escalation", request.to_json(), "paused for the principal: recommendation")
    record.save(request=request)
    decision = principal.decide(request, record.clock.now())
    if decision is None:
        return outcome_of(record, candidates)
    return record_decision(record, request, decision, on_message)


def _request(
    record: PortfolioRecord, candidates: Sequence[Candidate], ranking: Sequence[Candidate], now: float
) -> EscalationRequest:
    """The final_approval request of the portfolio: approve the best held offer (A), keep every offer
    open (B), decline them all (C), or approve another one (D, E, ...)."""
    config, best = record.config, ranking[0]
    runner_up = f"; next best {ranking[1].score or 0.0:.2f}" if len(ranking) > 1 else ""
    flagged = (
        f" Its {config.counterparty_role}'s messages were flagged: {best.flags_text()}." if best.flags else ""
    )
    waiting = f"{len(ranking)} offers wait" if len(ranking) > 1 else "1 offer waits"
    open_ids = [c.member.session_id for c in candidates if not c.ended and not c.held]
    unfinished = f" Not finished yet: {', '.join(open_ids)}." if open_ids else ""
    problem = (
        f"{len(candidates)} sessions compared; {waiting} for your approval. Recommended: "
        f"{best.member.session_id} ({best.member.counterparty}), {describe_terms(config, best.terms)}: the "
        f"best for you by your preferences (score {best.score or 0.0:.2f}{runner_up}).{flagged} Approving "
        f"one offer declines the other held offers; nothing is closed until you decide.{unfinished}"
    )
    options = [
        _approve("A", best, ranking, config, "Best for you by your preferences"),
        EscalationOption(
            "B",
            "Keep every offer open",
            "Nothing is closed or declined; the offers stay in your inbox, and resuming the portfolio "
            "compares them again.",
            KEEP_OPEN,
        ),
        EscalationOption(
            "C",
            "Decline every held offer",
            "Ends these engagements without a deal.",
            DECLINE_ALL,
            {"decline": [[c.member.session_id, c.request_id] for c in ranking]},
        ),
        *(
            _approve(
                key, other, ranking, config, f"Score {other.score or 0.0:.2f} against {best.score or 0.0:.2f}"
            )
            for key, other in zip(_ALTERNATIVE_KEYS, ranking[1:], strict=False)
        ),
    ]
    ledger = {
        **{k: v for k, v in best.ledger.items() if k in ("tci", "tci_weighted", "revealed", "missing")},
        "candidates": [c.to_json() for c in candidates],
        "ranking": [c.member.session_id for c in ranking],
    }
    return EscalationRequest(
        f"{record.portfolio_id}-e{len(record.trajectory.of_kind('escalation')) + 1}",
        record.portfolio_id,
        Trigger.FINAL_APPROVAL,
        record.state.value,
        tuple((c.member.session_id, summarize(config, c)) for c in candidates),
        ledger,
        problem,
        tuple(options),
        "Approve one option by its letter.",
        safety_events=tuple(f"{c.member.session_id}: {c.flags_text()}" for c in candidates if c.flags),
        created=now,
    )


def _approve(
    key: str, chosen: Candidate, ranking: Sequence[Candidate], config: DomainConfig, why: str
) -> EscalationOption:
    others = [[c.member.session_id, c.request_id] for c in ranking if c is not chosen]
    return EscalationOption(
        key,
        f"Approve {chosen.member.session_id} ({chosen.member.counterparty}): "
        f"{describe_terms(config, chosen.terms)}",
        f"{why}; declines the other held offers." if others else f"{why}.",
        APPROVE,
        {"session_id": chosen.member.session_id, "request_id": chosen.request_id, "decline": others},
    )


def record_decision(
    record: PortfolioRecord,
    request: EscalationRequest,
    decision: Decision,
    on_message: MessageCallback | None,
) -> PortfolioOutcome:
    """Store the principal's decision on a recommendation, then apply it to the sessions."""
    record.record(
        "decision",
        {**decision.to_json(), "trigger": request.trigger.value},
        f"{decision.decided_by} chose {decision.option}",
        party=PRINCIPAL,
    )
    record.save(decision=decision)
    return apply_decision(record, request, decision, on_message)


def apply_decision(
    record: PortfolioRecord,
    request: EscalationRequest,
    decision: Decision,
    on_message: MessageCallback | None,
) -> PortfolioOutcome:
    """Apply a stored decision to the sessions it names (again after a kill: what was applied is
    skipped), then record the portfolio's outcome."""
    option = request.option(str(decision.option))
    by = (decision.decided_by, request.request_id)  # (the principal's own name: memory finds it)
    declines: list[list[str]] = list(option.parameters.get("decline", []))
    chosen: str | None = None
    target = State.NO_DEAL if option.effect == DECLINE_ALL else State.NEGOTIATE
    if option.effect == APPROVE:
        session_id, held = str(option.parameters["session_id"]), str(option.parameters["request_id"])
        if _settle(record, session_id, held, "approve_terms", by, on_message) == State.AGREE.value:
            chosen, target = session_id, State.AGREE
        else:
            declines = []  # the offer could not be approved: nothing else is declined either
    for session_id, held in declines if option.effect != KEEP_OPEN else []:
        _settle(record, str(session_id), str(held), "decline", by, on_message)
    if target == State.NEGOTIATE:
        record.transition(target, f"{option.title}: the portfolio stays open")
    else:
        record.transition(target, option.title)
        record.record("session_ended", {"state": target.value, "chosen": chosen}, option.title)
    record.save()
    return outcome_of(record, decision=decision, chosen=chosen)


def _settle(
    record: PortfolioRecord,
    session_id: str,
    request_id: str,
    effect: str,
    decider: tuple[str, str],
    on_message: MessageCallback | None,
) -> str:
    """Answer one session's held final approval with the option of effect, as decider (the principal,
    the portfolio request); returns its state after. A request answered meanwhile (before a kill) is
    left as it is; the member_decision event links the member's request to the portfolio's."""
    decided_by, through = decider
    store = record.store
    answered = store.decision(request_id)
    pending = store.open_request(session_id)
    if answered is None and pending is not None and pending.request_id == request_id:
        key = next(o.key for o in pending.options if o.effect == effect)
        outcome = decide(
            store, session_id, request_id=request_id, option=key, decided_by=decided_by,
            clock=record.clock, on_message=labelled(on_message, session_id), through=through,
        )  # fmt: skip
        state, note = outcome.state.value, ""
    else:
        state = str(store.load_session(session_id)["state"])
        note = "answered before" if answered is not None else "no longer pending"
    record.record(
        "member_decision",
        {"session_id": session_id, "request_id": request_id, "effect": effect, "state": state, "note": note},
        f"{effect} on {request_id}" + (f" ({note})" if note else ""),
    )
    return state


def decide_portfolio(
    store: SessionStore,
    portfolio_id: str,
    *,
    request_id: str,
    option: str | None,
    guidance: str = "",
    decided_by: str = "principal",
    expected_version: int | None = None,
    clock: Clock | None = None,
    on_message: Callable[[str, str], None] | None = None,
) -> SessionOutcome:
    """Answer a portfolio's recommendation (what `parley.governance.session.decide` does for one).

    Raises:
        StaleDecision: if request_id is not the pending recommendation, the portfolio changed since
            expected_version, or the offer to approve is no longer waiting (answered in its session).
        ScenarioError: without an option letter, or with an unknown one.
    """
    the_clock = clock or FakeClock()
    record = PortfolioRecord.load(store, portfolio_id, the_clock)
    pending = store.open_request(portfolio_id)
    pending_id = pending.request_id if pending is not None else None
    chosen = option.strip().upper() if option else None
    if check_decision(
        store,
        request_id,
        pending=pending_id,
        version=record.version,
        expected_version=expected_version,
        decision=(chosen, guidance, decided_by),
        what=f"portfolio {portfolio_id}",
    ):
        return _replay(record, on_message).standing
    assert pending is not None  # (check_decision passed: it is the request answered)
    if chosen is None:
        raise ScenarioError("a recommendation is answered with an option letter (--option)", field="option")
    picked = pending.option(chosen)
    if picked.effect == APPROVE:
        _check_waiting(store, pending, picked)
    decision = Decision(pending.request_id, chosen, guidance, decided_by, the_clock.now())
    return record_decision(record, pending, decision, two_part(on_message)).standing


def _check_waiting(store: SessionStore, request: EscalationRequest, picked: EscalationOption) -> None:
    """Refuse to approve an offer whose session no longer waits on the request the option names."""
    session_id, held = str(picked.parameters["session_id"]), str(picked.parameters["request_id"])
    waiting = store.open_request(session_id)
    if waiting is None or waiting.request_id != held:
        raise StaleDecision(
            f"the offer of {session_id} no longer waits for approval ({held} was answered in its "
            f"session); resume {request.session_id} to compare the offers again",
            pending=request.request_id,
            source=store.path,
        )


def _replay(record: PortfolioRecord, on_message: Callable[[str, str], None] | None) -> PortfolioOutcome:
    """The standing after a repeated decision; one interrupted by a kill is finished first."""
    latest = record.latest_request()
    stored = record.store.decision(latest.request_id) if latest is not None else None
    if record.state == State.ESCALATE and latest is not None and stored is not None:
        return apply_decision(record, latest, stored, two_part(on_message))
    return replace(outcome_of(record), replayed=True)
