"""Playing a portfolio: one session per counterparty, started together and played interleaved turn by
turn (a deterministic round-robin) or one after another; resuming it after a stop; and the principal's
inbox, each portfolio's sessions listed under it."""

from __future__ import annotations

import logging
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from parley.errors import ParleyError, ScenarioError
from parley.governance.config import DomainConfig
from parley.governance.counterparties import PERSONAS, Counterparty
from parley.governance.delegate import DelegateOptions, Step
from parley.governance.escalation import Decision, EscalationRequest, Principal, StoredPrincipal, Trigger
from parley.governance.machine import ACTIVE, TERMINAL, State
from parley.governance.portfolio.comparison import Member
from parley.governance.portfolio.recommendation import apply_decision, recommend, record_decision
from parley.governance.portfolio.record import (
    MessageCallback,
    PortfolioOutcome,
    PortfolioRecord,
    labelled,
    outcome_of,
    two_part,
)
from parley.governance.session import (
    MAX_STEPS,
    DelegateRoles,
    SessionRunner,
    decide,
    is_portfolio,
    resume_session,
    start_session,
)
from parley.governance.store import SessionStore
from parley.protocol.clock import Clock, FakeClock

logger = logging.getLogger(__name__)


MAX_COUNTERPARTIES = 20
"""Counterparties in one portfolio at most (one comparison a person can read)."""


def parse_counterparties(spec: str) -> tuple[str, ...]:
    """The personas of a comma list ("cooperative,adversarial,slow"); a name may repeat, and each
    occurrence is a counterparty of its own (seeded apart, see `member_seed`).

    Raises:
        ScenarioError: for an empty name, an unknown persona, or more than `MAX_COUNTERPARTIES` names.
    """
    names = tuple(part.strip() for part in spec.split(","))
    for position, name in enumerate(names, 1):
        if not name:
            raise ScenarioError(
                f"name {position} of {spec!r} is empty; give persona names separated by commas",
                field="counterparty",
            )
        if name not in PERSONAS:
            raise ScenarioError(
                f"unknown persona {name!r}; expected names from {', '.join(PERSONAS)}", field="counterparty"
            )
    if len(names) > MAX_COUNTERPARTIES:
        raise ScenarioError(
            f"{len(names)} counterparties; at most {MAX_COUNTERPARTIES} in one run", field="counterparty"
        )
    return names


def member_seed(seed: int, index: int) -> int:
    """The seed of the index-th counterparty of a run seeded with seed: each one differs, so two
    counterparties of one persona are two different people; the first one plays as a lone run would."""
    return seed + index


class OfferHold:
    """The principal as the portfolio's sessions see it: every request is put to principal, except a
    session's final approval, which is held (stored, unanswered) until the offers are compared.

    Args:
        principal: Who decides everything else.
    """

    def __init__(self, principal: Principal) -> None:
        self.principal = principal
        self.name = principal.name

    def decide(self, request: EscalationRequest, now: float) -> Decision | None:
        """None for a final approval (held for the comparison); the principal's answer otherwise."""
        if request.trigger == Trigger.FINAL_APPROVAL:
            return None
        return self.principal.decide(request, now)


@dataclass(slots=True)
class _Play:
    """One session while the portfolio plays it."""

    member: Member
    runner: SessionRunner
    step: Step | None
    steps: int = 0


def run_portfolio(
    config: DomainConfig,
    counterparties: Sequence[Counterparty],
    principal: Principal,
    store: SessionStore,
    *,
    config_source: str,
    seed: int = 0,
    parallel: bool = True,
    options: DelegateOptions | None = None,
    clock: Clock | None = None,
    on_message: MessageCallback | None = None,
    roles: Callable[[int], DelegateRoles | None] | None = None,
) -> PortfolioOutcome:
    """Screen and negotiate with several counterparties for one principal, then recommend an offer.

    Args:
        config: Domain config.
        counterparties: One per session, in order (the i-th session is seeded `member_seed(seed, i)`).
        principal: Decides the sessions' escalations (each session's final approval is held for the
            comparison) and the recommendation.
        store: Persistence for the sessions and the portfolio.
        config_source: Config name or path (recorded).
        seed: The run's seed.
        parallel: Interleave the sessions turn by turn, in order (deterministic); False plays them one
            after another. The sessions' transcripts are the same either way.
        options: Delegate switches for every session.
        clock: Clock for every session and the portfolio.
        on_message: Called with (session id, speaker, text) for every message.
        roles: The delegate roles of the i-th session (e.g. its own LLM-backed drafter); None: rule-based.

    Raises:
        ScenarioError: if counterparties is empty.
    """
    if not counterparties:
        raise ScenarioError("a portfolio needs at least one counterparty", field="counterparty")
    the_clock = clock or FakeClock()
    plays: list[_Play] = []
    for index, party in enumerate(counterparties):
        plugged = roles(index) if roles is not None else None
        session_seed = member_seed(seed, index)
        runner, step = start_session(
            config, party, store, config_source=config_source, seed=session_seed, options=options,
            clock=the_clock, roles=plugged,
        )  # fmt: skip
        session_id = runner.delegate.session_id
        runner.on_message = labelled(on_message, session_id) or runner.on_message
        plays.append(_Play(Member(session_id, party.name, session_seed), runner, step))
    record = PortfolioRecord.create(
        store, config, [p.member for p in plays], config_source=config_source, seed=seed,
        parallel=parallel, clock=the_clock,
    )  # fmt: skip
    _play(plays, OfferHold(principal), parallel, record)
    return recommend(record, principal, on_message)


def _play(plays: Sequence[_Play], principal: Principal, parallel: bool, record: PortfolioRecord) -> None:
    """Round-robin, one move per live session in order (parallel), or each session to its end."""
    live = [p for p in plays if p.step is not None]
    while live:
        for play in live if parallel else live[:1]:
            _advance(play, principal, record)
        live = [p for p in live if p.step is not None]


def _advance(play: _Play, principal: Principal, record: PortfolioRecord) -> None:
    """One move of one session; a session that fails stops alone (the others play on)."""
    if play.step is None:
        return
    try:
        play.step = play.runner.advance(principal, play.step)
    except ParleyError as error:
        play.step = None
        _stopped(record, play.member, str(error))
        return
    play.steps += 1
    if play.step is not None and play.steps >= MAX_STEPS:
        play.step = None
        _stopped(record, play.member, f"did not end within {MAX_STEPS} steps")


def _stopped(record: PortfolioRecord, member: Member, why: str) -> None:
    """Record that a session stopped (noted in the comparison while it stays unfinished)."""
    logger.warning("session %s stopped: %s", member.session_id, why)
    record.record(
        "session_stopped",
        {"session_id": member.session_id, "error": why},
        "the session stopped; the others play on, and resuming the portfolio continues it",
    )


def resume_portfolio(
    store: SessionStore,
    portfolio_id: str,
    *,
    principal: Principal | None = None,
    clock: Clock | None = None,
    on_message: Callable[[str, str], None] | None = None,
) -> PortfolioOutcome:
    """Continue a portfolio after its process stopped, or compare its offers again.

    A decision stored but not yet applied to the sessions (the process was killed between the two) is
    applied. Otherwise every unfinished session continues (one after another; a paused one gets
    principal's decision, final approvals stay held); then a recommendation that still waits is put to
    principal again, or, if none waits, the offers are compared again, with a new recommendation if
    there is an offer to approve (a portfolio whose recommendation was answered B, "keep every offer
    open", is compared again this way). An ended portfolio is returned as it stands; its sessions can
    still be resumed one by one.

    Raises:
        ScenarioError: if portfolio_id is no portfolio.
    """
    the_clock = clock or FakeClock()
    record = PortfolioRecord.load(store, portfolio_id, the_clock)
    who = principal or StoredPrincipal()
    shown = two_part(on_message)
    latest = record.latest_request() if record.state == State.ESCALATE else None
    if record.state in TERMINAL:
        return outcome_of(record)
    interrupted = store.decision(latest.request_id) if latest is not None else None
    if latest is not None and interrupted is not None:
        return apply_decision(record, latest, interrupted, shown)
    hold = OfferHold(who)
    for member in record.members:
        try:
            _continue(store, member, hold, the_clock, shown)
        except ParleyError as error:
            _stopped(record, member, str(error))
    if latest is None:
        return recommend(record, who, shown)
    decision = who.decide(latest, the_clock.now())  # the recommendation still waits
    if decision is not None:
        return record_decision(record, latest, decision, shown)
    record.save_if_changed()
    return outcome_of(record)


def _continue(
    store: SessionStore,
    member: Member,
    principal: Principal,
    clock: Clock,
    on_message: MessageCallback | None,
) -> None:
    """Play one stored session on: an active one from its last message, a paused one with principal's
    decision (held final approvals stay held)."""
    state = str(store.load_session(member.session_id)["state"])
    shown = labelled(on_message, member.session_id)
    if state in {s.value for s in ACTIVE}:
        resume_session(store, member.session_id, principal=principal, clock=clock, on_message=shown)
        return
    pending = store.open_request(member.session_id) if state == State.ESCALATE.value else None
    decision = principal.decide(pending, clock.now()) if pending is not None else None
    if pending is not None and decision is not None:
        decide(
            store, member.session_id, request_id=pending.request_id, option=decision.option,
            guidance=decision.guidance, decided_by=decision.decided_by, principal=principal, clock=clock,
            on_message=shown,
        )  # fmt: skip


@dataclass(frozen=True, slots=True)
class InboxEntry:
    """A stored session as the principal's inbox lists it.

    Attributes:
        session_id: The session (or portfolio).
        counterparty: Its counterparty's name ("portfolio of 3" for a portfolio).
        group: The portfolio it belongs to (its own id for a portfolio), None for a lone session.
    """

    session_id: str
    counterparty: str
    group: str | None


def _row(store: SessionStore, session_id: str) -> dict[str, Any]:
    """A session's stored row; an unreadable one (edited by hand) as a lone session the inbox then
    shows as refused, from its verified record."""
    try:
        return store.load_session(session_id)
    except (ScenarioError, ValueError):
        return {"persona": None, "snapshot": {}}


def inbox_entries(store: SessionStore) -> list[InboxEntry]:
    """Every stored session, each portfolio first among its own sessions, the rest in creation order."""
    rows = {session_id: _row(store, session_id) for session_id, _ in store.sessions()}
    owner = {
        member.session_id: session_id
        for session_id, row in rows.items()
        if is_portfolio(row)
        for member in (Member.from_json(m) for m in row["snapshot"]["members"])
    }
    entries: list[InboxEntry] = []
    for session_id, row in rows.items():
        if session_id in owner and owner[session_id] in rows:
            continue  # listed under its portfolio
        if not is_portfolio(row):
            entries.append(InboxEntry(session_id, str(row["persona"] or "?"), None))
            continue
        members = [Member.from_json(m) for m in row["snapshot"]["members"]]
        entries.append(InboxEntry(session_id, f"portfolio of {len(members)}", session_id))
        entries += [
            InboxEntry(m.session_id, m.counterparty, session_id) for m in members if m.session_id in rows
        ]
    return entries
