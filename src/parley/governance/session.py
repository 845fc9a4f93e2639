"""Running delegate sessions against a counterparty and a principal, persisted step by step.

`run_session` drives a new session until it ends or pauses for a principal who defers;
`decide` stores a decision for a paused session and resumes it from storage (also after the
process that started it was killed).

A decision names the request it answers. One that names a request no longer pending changes
nothing and raises `StaleDecision`; an identical replay of a decision already applied returns the
session's standing without a second effect. The decision, the step it produced and the next
escalation request are stored in one transaction (see `SessionStore.save_step`).
"""

from __future__ import annotations

import json
import logging
import sqlite3
from collections.abc import Callable, Mapping
from dataclasses import dataclass, replace
from typing import Any

from parley.errors import InternalError, ScenarioError, StaleDecision
from parley.governance.config import DomainConfig
from parley.governance.counterparties import Counterparty, DetachedCounterparty, counterparty_from_json
from parley.governance.critic import Critic
from parley.governance.delegate import Delegate, DelegateOptions, Step
from parley.governance.drafting import Drafter, format_amount
from parley.governance.escalation import Decision, EscalationRequest, Principal, StoredPrincipal, Trigger
from parley.governance.extraction import Extractor
from parley.governance.machine import TERMINAL, State
from parley.governance.memory import PrincipalMemory
from parley.governance.moderator import Classifier, max_message_chars
from parley.governance.normalize import check_size
from parley.governance.store import SessionStore
from parley.protocol.clock import Clock, FakeClock
from parley.protocol.governed import DelegateMessage

logger = logging.getLogger(__name__)
MAX_STEPS = 400
"""Steps (counterparty turns and decisions) after which a session that neither ends nor pauses is a bug."""


@dataclass(frozen=True, slots=True)
class DelegateRoles:
    """Replacements for the delegate's pluggable roles (None keeps the rule-based default).

    Attributes:
        extractor: Field extractor.
        moderator: Message classifier.
        drafter: Message drafter.
        critic: Tactics critic.
    """

    extractor: Extractor | None = None
    moderator: Classifier | None = None
    drafter: Drafter | None = None
    critic: Critic | None = None


@dataclass(frozen=True, slots=True)
class SessionOutcome:
    """Where a session stands after `run_session` or `decide` returns.

    Attributes:
        session_id: The session.
        state: Final (or paused) state.
        pending: The open escalation request when paused.
        turns: Counterparty turns played.
        terms: Agreed terms (AGREE only).
        version: The stored session's version (every stored step increments it).
        replayed: Whether the call repeated a decision already applied (nothing changed).
    """

    session_id: str
    state: State
    pending: EscalationRequest | None
    turns: int
    terms: dict[str, Any]
    version: int = 0
    replayed: bool = False

    @property
    def paused(self) -> bool:
        """Whether the session waits for a principal's decision."""
        return self.state == State.ESCALATE


def _ignore(speaker: str, text: str) -> None:
    return None


class SessionRunner:
    """Drives one delegate, persisting every step.

    Args:
        delegate: The delegate.
        counterparty: Who it talks to.
        store: Persistence.
        config_source: Config name or path (recorded with the session).
        clock: Clock for persistence timestamps.
        on_message: Callback for every message (speaker, text), e.g. for a terminal display.
        version: The stored version this runner was loaded at (0 for a new session).
    """

    def __init__(
        self,
        delegate: Delegate,
        counterparty: Counterparty,
        store: SessionStore,
        *,
        config_source: str,
        clock: Clock,
        on_message: Callable[[str, str], None] | None = None,
        version: int = 0,
    ) -> None:
        self.delegate = delegate
        self.counterparty = counterparty
        self.store = store
        self.config_source = config_source
        self.clock = clock
        self.on_message: Callable[[str, str], None] = on_message or _ignore
        self.version = version
        if delegate.recall is None:  # escalations consult the principal's memory in this store
            delegate.recall = PrincipalMemory(store)

    def persist(
        self, decision: Decision | None = None, *, check: Callable[[sqlite3.Connection], None] | None = None
    ) -> None:
        """Commit one step: the decision behind it, the snapshot, new events with their audit entries,
        the seal when the session ended and the escalation request it opened, all or nothing.

        Args:
            decision: The principal's decision behind the step, if any.
            check: A condition checked inside the write transaction (`SessionStore.save_step`).

        Raises:
            StaleDecision: if another process changed the session since this runner read it.
        """
        delegate = self.delegate
        snapshot = {
            "delegate": delegate.to_json(),
            "counterparty": self.counterparty.to_json(),
            "config": delegate.config.model_dump(mode="json"),
        }
        events = delegate.new_events()
        opened = delegate.pending if delegate.state == State.ESCALATE else None
        self.version = self.store.save_step(
            delegate.session_id,
            config=self.config_source,
            persona=self.counterparty.name,
            seed=delegate.seed,
            state=delegate.state.value,
            snapshot=snapshot,
            events=events,
            now=self.clock.now(),
            seal=delegate.machine.terminal,
            expected_version=self.version,
            decision=decision,
            request=opened,
            check=check,
        )
        delegate.mark_flushed()

    def start(self) -> Step:
        """Open the session and persist."""
        step = self.delegate.open()
        self.persist()
        return step

    def run(self, principal: Principal, step: Step) -> SessionOutcome:
        """Play until the session ends or a principal defers a decision.

        Raises:
            InternalError: if the session neither ends nor pauses within the step bound (a liveness bug).
        """
        for _ in range(MAX_STEPS):
            following = self.advance(principal, step)
            if following is None:
                break
            step = following
        else:
            raise InternalError(f"session {self.delegate.session_id} did not end within {MAX_STEPS} steps")
        return self.outcome()

    def advance(self, principal: Principal, step: Step) -> Step | None:
        """Show step's message and play one move: the principal's decision on its request, or the
        counterparty's reply and the delegate's answer (persisted).

        Returns:
            The next step, or None when the session ended, paused for a deferred decision, or waits
            for a detached counterparty. Several sessions interleave by calling this in turn
            (`parley.governance.portfolio`).
        """
        if step.outgoing is not None:
            self.on_message("delegate", step.outgoing)
        if step.terminal:
            return None
        if step.state == State.ESCALATE and step.request is not None:
            decision = principal.decide(step.request, self.clock.now())
            if decision is None:
                logger.info(
                    "session %s paused for request %s", self.delegate.session_id, step.request.request_id
                )
                return None
            return self.apply(decision)
        if isinstance(self.counterparty, DetachedCounterparty):
            return None  # the counterparty answers on its own schedule (see `reply`)
        reply = self.counterparty.respond(step.outgoing)
        if reply is not None:
            self.on_message("counterparty", reply)
        following = self.delegate.receive(reply)
        self.persist()
        return following

    def apply(self, decision: Decision, *, check: Callable[[sqlite3.Connection], None] | None = None) -> Step:
        """Resume the delegate with a decision and store both in one transaction (in which check, if
        given, is run first)."""
        step = self.delegate.resume(decision)
        self.persist(decision, check=check)
        return step

    def outcome(self) -> SessionOutcome:
        """The session's current standing."""
        delegate = self.delegate
        return SessionOutcome(
            delegate.session_id,
            delegate.state,
            delegate.pending,
            delegate.turn,
            dict(delegate.terms),
            self.version,
        )


def start_session(
    config: DomainConfig,
    counterparty: Counterparty,
    store: SessionStore,
    *,
    config_source: str,
    seed: int = 0,
    options: DelegateOptions | None = None,
    clock: Clock | None = None,
    session_id: str | None = None,
    on_message: Callable[[str, str], None] | None = None,
    roles: DelegateRoles | None = None,
) -> tuple[SessionRunner, Step]:
    """Create a delegate for a new session, open it, and persist the first step.

    roles replaces the delegate's extractor, moderator, drafter or critic (e.g. LLM-backed ones).
    """
    the_clock = clock or FakeClock()
    if session_id is not None and store.load_version(session_id) is not None:
        raise ScenarioError(f"session {session_id!r} exists already", source=store.path, field="session")
    identifier = session_id or store.reserve_session_id(
        f"{config.name}-{counterparty.name}-s{seed}", config=config_source, now=the_clock.now()
    )
    plugged = roles or DelegateRoles()
    delegate = Delegate(
        config,
        identifier,
        clock=the_clock,
        options=options,
        seed=seed,
        extractor=plugged.extractor,
        moderator=plugged.moderator,
        drafter=plugged.drafter,
        critic=plugged.critic,
    )
    runner = SessionRunner(
        delegate,
        counterparty,
        store,
        config_source=config_source,
        clock=the_clock,
        on_message=on_message,
    )
    return runner, runner.start()  # a new (or just reserved) session is at version 0


def run_session(
    config: DomainConfig,
    counterparty: Counterparty,
    principal: Principal,
    store: SessionStore,
    *,
    config_source: str,
    seed: int = 0,
    options: DelegateOptions | None = None,
    clock: Clock | None = None,
    on_message: Callable[[str, str], None] | None = None,
    roles: DelegateRoles | None = None,
) -> SessionOutcome:
    """Run one new session to its end (or until the principal defers a decision)."""
    runner, step = start_session(
        config,
        counterparty,
        store,
        config_source=config_source,
        seed=seed,
        options=options,
        clock=clock,
        on_message=on_message,
        roles=roles,
    )
    return runner.run(principal, step)


PORTFOLIO_KIND = "portfolio"
"""The `kind` of a stored snapshot that holds a portfolio (several sessions for one principal) rather
than a delegate; `parley.governance.portfolio` writes it, `decide` and `resume_session` hand it over."""


def is_portfolio(row: Mapping[str, Any]) -> bool:
    """Whether a stored session row (`SessionStore.load_session`) is a portfolio."""
    return isinstance(row.get("snapshot"), dict) and row["snapshot"].get("kind") == PORTFOLIO_KIND


def portfolio_members(row: Mapping[str, Any]) -> list[str]:
    """The session ids of a stored portfolio row."""
    return [str(member["session_id"]) for member in row["snapshot"].get("members", [])]


def load_runner(
    store: SessionStore,
    session_id: str,
    *,
    clock: Clock | None = None,
    on_message: Callable[[str, str], None] | None = None,
) -> SessionRunner:
    """Rebuild a stored session's delegate and counterparty from storage.

    Raises:
        ScenarioError: if there is no such session, or session_id names a portfolio (a group of
            sessions, `parley.governance.portfolio`), which has no delegate of its own.
    """
    row = store.load_session(session_id)
    snapshot = row["snapshot"]
    if is_portfolio(row):
        raise ScenarioError(
            f"{session_id!r} is a portfolio of sessions ({', '.join(portfolio_members(row))}), not one "
            "session: decide or resume it, or address one of its sessions",
            source=store.path,
            field="session",
        )
    config = DomainConfig.model_validate(snapshot["config"])
    the_clock = clock or FakeClock()
    delegate = Delegate.from_json(
        config, snapshot["delegate"], store.load_events(session_id), clock=the_clock
    )
    counterparty = counterparty_from_json(config, snapshot["counterparty"])
    return SessionRunner(
        delegate,
        counterparty,
        store,
        config_source=str(row["config"]),
        clock=the_clock,
        on_message=on_message,
        version=int(row["version"]),
    )


def check_decision(
    store: SessionStore,
    request_id: str,
    *,
    pending: str | None,
    version: int,
    expected_version: int | None,
    decision: tuple[str | None, str, str],
    what: str,
) -> bool:
    """Whether a decision may be applied to request_id: the one check for sessions and portfolios.

    Args:
        store: Where decisions are recorded.
        request_id: The request the decision answers.
        pending: The request pending now (None when nothing is).
        version: The session's (or portfolio's) version now.
        expected_version: The version the decider saw, if it said.
        decision: (option, guidance, decided_by) of this decision.
        what: How errors name the session ("session ID", "portfolio ID").

    Returns:
        True when this exact decision was already applied (a replay: apply nothing), else False.

    Raises:
        StaleDecision: request_id is answered (differently), unknown or superseded, or the version
            changed since expected_version.
    """
    stored = store.decision(request_id)
    if stored is not None and request_id != pending:
        if (stored.option, stored.guidance, stored.decided_by) == decision:
            return True
        raise StaleDecision(
            f"request {request_id} was already answered by {stored.decided_by} "
            f"({f'option {stored.option}' if stored.option else 'guidance'})",
            pending=pending,
            source=store.path,
        )
    if request_id != pending:
        raise StaleDecision(f"request {request_id!r} is not pending", pending=pending, source=store.path)
    if expected_version is not None and expected_version != version:
        raise StaleDecision(
            f"{what} changed since version {expected_version} (now {version})",
            pending=pending,
            source=store.path,
        )
    return False


def decide(
    store: SessionStore,
    session_id: str,
    *,
    request_id: str,
    option: str | None,
    guidance: str = "",
    decided_by: str = "principal",
    expected_version: int | None = None,
    confirm_limit: float | None = None,
    principal: Principal | None = None,
    clock: Clock | None = None,
    on_message: Callable[[str, str], None] | None = None,
    through: str | None = None,
) -> SessionOutcome:
    """Answer one escalation request of a paused session and resume it from storage.

    Args:
        store: Persistence.
        session_id: The paused session.
        request_id: The request this decision answers (as shown to the principal).
        option: Chosen option key (or None with guidance).
        guidance: Free-text guidance.
        decided_by: Recorded as the decider.
        expected_version: The session version the principal saw (None: do not check).
        confirm_limit: The new limit, repeated to confirm a raise far beyond the current one.
        principal: Who answers any later escalations (default: none, the session pauses again).
        clock: Clock for timestamps.
        on_message: Message callback.
        through: The portfolio recommendation this decision applies (set by the portfolio only): a
            portfolio member's final approval is decided through its portfolio, never on its own.

    Returns:
        Where the session stands; `replayed` is set when this exact decision was already applied.

    Raises:
        StaleDecision: if request_id is not the pending request (answered, unknown or superseded),
            or the session changed since expected_version; nothing is applied then.
        ScenarioError: if neither option nor guidance is given, the option is unknown, or it raises a
            limit out of scale (over RAISE_CONFIRM_RATIO times the current one) without confirm_limit.
    """
    if option is None and not guidance.strip():
        raise ScenarioError("give --option or --guidance", field="decision")
    if is_portfolio(store.load_session(session_id)):
        from parley.governance.portfolio import decide_portfolio  # (it builds on this module)

        return decide_portfolio(
            store,
            session_id,
            request_id=request_id,
            option=option,
            guidance=guidance,
            decided_by=decided_by,
            expected_version=expected_version,
            clock=clock,
            on_message=on_message,
        )
    chosen = option.strip().upper() if option else None
    runner = load_runner(store, session_id, clock=clock, on_message=on_message)
    request = runner.delegate.pending
    pending = request.request_id if request is not None and runner.delegate.state == State.ESCALATE else None
    if check_decision(
        store,
        request_id,
        pending=pending,
        version=runner.version,
        expected_version=expected_version,
        decision=(chosen, guidance, decided_by),
        what=f"session {session_id}",
    ):
        return replace(runner.outcome(), replayed=True)
    assert request is not None  # (pending names it)
    claim: Callable[[sqlite3.Connection], None] | None = None
    if through is None and request.trigger == Trigger.FINAL_APPROVAL:
        effect = request.option(chosen).effect if chosen is not None else None
        _check_not_held(store, session_id, declining=effect == "decline")
        owner = portfolio_of(store, session_id)
        if owner is not None and effect != "decline":  # checked again where it is committed
            claim = _role_free(store.path, owner, session_id, request.request_id)
    if chosen is not None and request.option(chosen).effect == "raise_limit":
        _check_raise(runner.delegate.config, request, confirm_limit)
    the_clock = clock or FakeClock()
    decision = Decision(request.request_id, chosen, guidance, decided_by, the_clock.now())
    step = runner.apply(decision, check=claim)
    return runner.run(_deciding(store, session_id, principal), step)


def portfolio_of(store: SessionStore, session_id: str) -> str | None:
    """The portfolio session_id is a member of, if any. Every reply, decision and resume asks, so SQLite
    keeps only the portfolios whose stored snapshot names the id (as `save_step` wrote it, JSON-quoted)
    and only those are loaded and checked; the rest are never parsed."""
    rows = store.execute(
        "SELECT session_id FROM sessions WHERE persona = ? AND instr(snapshot, ?) > 0",
        (PORTFOLIO_KIND, json.dumps(session_id)),
    )
    for (portfolio_id,) in rows:
        if session_id in portfolio_members(store.load_session(str(portfolio_id))):
            return str(portfolio_id)
    return None


def _deciding(store: SessionStore, session_id: str, principal: Principal | None) -> Principal:
    """Who answers a session's later escalations: principal (default: none, it pauses), except that a
    portfolio member's final approval is held for its portfolio even when the member plays on alone."""
    who = principal or StoredPrincipal()
    if portfolio_of(store, session_id) is None:
        return who
    from parley.governance.portfolio import OfferHold  # (it builds on this module)

    return OfferHold(who)


def _check_not_held(store: SessionStore, session_id: str, *, declining: bool = False) -> None:
    """Refuse a direct decision on a portfolio member's final approval: its offer is held for the
    portfolio's comparison, and only the portfolio's recommendation decides it (so one role is never
    committed twice, in whatever order or at the same time the two are answered).

    Once the portfolio has ended nothing decides through it any more, so an offer that reached its final
    approval after that is released to a direct decision: in full when the portfolio approved no member
    and no other member was approved on its own, otherwise (the role is committed) to a decline only."""
    owner = portfolio_of(store, session_id)
    if owner is None:
        return
    if str(store.load_session(owner)["state"]) in {s.value for s in TERMINAL}:
        committed = [
            member
            for member in (owner, *portfolio_members(store.load_session(owner)))
            if member != session_id and str(store.load_session(member)["state"]) == State.AGREE.value
        ]
        if not committed or declining:
            return
        raise ScenarioError(
            f"portfolio {owner} has ended with an offer approved ({committed[0]}): the offer of {session_id} "
            "can only be declined now (choose its Decline option)",
            source=store.path,
            field="session",
        )
    waiting = store.open_request(owner)
    where = (
        f"answer its request {waiting.request_id} (parley delegate decide {owner} --request "
        f"{waiting.request_id} --option ...)"
        if waiting is not None
        else f"resume {owner} to compare the offers"
    )
    raise ScenarioError(
        f"the offer of {session_id} is held by portfolio {owner}; it is decided through the portfolio: "
        f"{where}",
        source=store.path,
        field="session",
    )


def _role_free(
    path: str, owner: str, session_id: str, request_id: str
) -> Callable[[sqlite3.Connection], None]:
    """The check, run inside the transaction that commits a direct (non-decline) final approval of a
    member of portfolio owner, that the portfolio has still ended and no other member (nor the portfolio)
    has agreed: writers are serialised there, so of two such approvals made at once (two processes, two
    web requests) exactly one commits the role. It fails closed: a portfolio or member it cannot read
    refuses the approval too; nothing is written then."""

    def refuse(why: str) -> StaleDecision:
        return StaleDecision(
            f"the offer of {session_id} was not approved: portfolio {owner} {why}",
            pending=request_id,
            source=path,
        )

    def check(db: sqlite3.Connection) -> None:
        def state(session: str) -> str:
            row = db.execute("SELECT state FROM sessions WHERE session_id = ?", (session,)).fetchone()
            if row is None:
                raise refuse(f"could not be checked (no session {session})")
            return str(row[0])

        try:
            row = db.execute("SELECT state, snapshot FROM sessions WHERE session_id = ?", (owner,)).fetchone()
            if row is None:
                raise refuse("could not be checked (it is not stored)")
            members = [str(member["session_id"]) for member in json.loads(str(row[1]))["members"]]
            if session_id not in members:
                raise refuse(f"could not be checked (it does not list {session_id})")
            if str(row[0]) not in {s.value for s in TERMINAL}:
                raise refuse("has not ended: the offer is decided through the portfolio")
            committed = [s for s in (owner, *members) if s != session_id and state(s) == State.AGREE.value]
        except (sqlite3.Error, ValueError, KeyError, TypeError) as error:
            raise refuse(f"could not be checked ({type(error).__name__})") from None
        if committed:
            raise refuse(
                f"has an offer approved meanwhile ({committed[0]}), so only its Decline option is open now"
            )

    return check


RAISE_CONFIRM_RATIO = 1.5
"""A limit raise to more than this many times the current limit needs the new limit confirmed."""


def _check_raise(config: DomainConfig, request: EscalationRequest, confirm_limit: float | None) -> None:
    """Refuse an out-of-scale limit raise unless the principal repeated the new limit."""
    boundary = request.boundary_at_risk
    ask, maximum = boundary.get("ask"), boundary.get("maximum")
    if not isinstance(ask, int | float) or not isinstance(maximum, int | float) or maximum <= 0:
        return
    if ask <= maximum * RAISE_CONFIRM_RATIO:
        return
    if confirm_limit is not None and abs(confirm_limit - ask) <= 1e-9 * max(1.0, abs(ask)):
        return
    term = config.boundary.term(str(boundary.get("term", config.negotiation.term)))
    old, new = format_amount(float(maximum), term.unit), format_amount(float(ask), term.unit)
    raise ScenarioError(
        f"this raises the {term.label} limit from {old} to {new} ({ask / maximum:,.1f} times the "
        f"current limit); if that is meant, repeat the new limit: --confirm-limit {ask:g}",
        source=request.request_id,
        field="confirm_limit",
    )


def resume_session(
    store: SessionStore,
    session_id: str,
    *,
    principal: Principal | None = None,
    clock: Clock | None = None,
    on_message: Callable[[str, str], None] | None = None,
) -> SessionOutcome:
    """Continue a stored session whose process stopped between steps (e.g. a killed `delegate run`).

    The delegate's last stored message is handed to its stored counterparty again; a session waiting
    for a decision or for a detached counterparty's message is returned as it stands.

    A portfolio is resumed as a whole (`parley.governance.portfolio.resume_portfolio`): its unfinished
    sessions continue, and their offers are compared again.

    Raises:
        ScenarioError: if there is no such session.
    """
    if is_portfolio(store.load_session(session_id)):
        from parley.governance.portfolio import resume_portfolio  # (it builds on this module)

        return resume_portfolio(
            store, session_id, principal=principal, clock=clock, on_message=on_message
        ).standing
    runner = load_runner(store, session_id, clock=clock, on_message=on_message)
    delegate = runner.delegate
    if delegate.machine.terminal or delegate.state == State.ESCALATE:
        return runner.outcome()
    if isinstance(runner.counterparty, DetachedCounterparty):
        return runner.outcome()
    sent = [e.payload for e in delegate.trajectory if e.kind == "delegate_message"]
    texts = [message.text for message in sent if isinstance(message, DelegateMessage)]
    last = texts[-1] if texts else None
    return runner.run(_deciding(store, session_id, principal), Step(last, delegate.state, delegate.pending))


def reply(
    store: SessionStore,
    session_id: str,
    message: str,
    *,
    principal: Principal | None = None,
    clock: Clock | None = None,
    on_message: Callable[[str, str], None] | None = None,
) -> SessionOutcome:
    """Feed one inbound counterparty message to a stored session and run until it needs the next one.

    Raises:
        TextRefused: message is over the configured size (moderator.yaml's max_chars): refused with
            a one-line error before the session is loaded or the message scanned (issue 14).
        ScenarioError: if the session is paused for a decision or has ended.
    """
    check_size(message, max_message_chars())
    runner = load_runner(store, session_id, clock=clock, on_message=on_message)
    state = runner.delegate.state
    if state == State.ESCALATE or runner.delegate.machine.terminal:
        raise ScenarioError(
            f"session {session_id!r} is in state {state}; it cannot take a message now",
            source=store.path,
            field="session",
        )
    runner.counterparty = DetachedCounterparty(runner.counterparty.name)
    step = runner.delegate.receive(message)
    runner.persist()
    return runner.run(_deciding(store, session_id, principal), step)
