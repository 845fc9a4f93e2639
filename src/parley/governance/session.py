"""Running delegate sessions against a counterparty and a principal, persisted step by step.

`run_session` drives a new session until it ends or pauses for a principal who defers;
`decide` stores a decision for a paused session and resumes it from storage (also after the
process that started it was killed).
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from parley.errors import InternalError, ScenarioError
from parley.governance.config import DomainConfig
from parley.governance.counterparties import Counterparty, DetachedCounterparty, counterparty_from_json
from parley.governance.critic import Critic
from parley.governance.delegate import Delegate, DelegateOptions, Step
from parley.governance.drafting import Drafter
from parley.governance.escalation import Decision, EscalationRequest, Principal, StoredPrincipal
from parley.governance.extraction import Extractor
from parley.governance.machine import State
from parley.governance.moderator import Classifier
from parley.governance.store import SessionStore
from parley.protocol.clock import Clock, FakeClock

logger = logging.getLogger(__name__)
_MAX_STEPS = 400


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
    """

    session_id: str
    state: State
    pending: EscalationRequest | None
    turns: int
    terms: dict[str, Any]

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
    ) -> None:
        self.delegate = delegate
        self.counterparty = counterparty
        self.store = store
        self.config_source = config_source
        self.clock = clock
        self.on_message: Callable[[str, str], None] = on_message or _ignore

    def persist(self) -> None:
        """Commit the snapshot, new events and audit entries (and the seal when the session ended)."""
        delegate = self.delegate
        snapshot = {
            "delegate": delegate.to_json(),
            "counterparty": self.counterparty.to_json(),
            "config": delegate.config.model_dump(mode="json"),
        }
        events = delegate.new_events()
        self.store.save_step(
            delegate.session_id,
            config=self.config_source,
            persona=self.counterparty.name,
            seed=delegate.seed,
            state=delegate.state.value,
            snapshot=snapshot,
            events=events,
            now=self.clock.now(),
            seal=delegate.machine.terminal,
        )
        delegate.mark_flushed()
        if delegate.pending is not None and delegate.state == State.ESCALATE:
            self.store.save_request(delegate.pending)

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
        for _ in range(_MAX_STEPS):
            if step.outgoing is not None:
                self.on_message("delegate", step.outgoing)
            if step.terminal:
                break
            if step.state == State.ESCALATE and step.request is not None:
                decision = principal.decide(step.request, self.clock.now())
                if decision is None:
                    logger.info(
                        "session %s paused for request %s", self.delegate.session_id, step.request.request_id
                    )
                    break
                step = self.apply(decision)
                continue
            if isinstance(self.counterparty, DetachedCounterparty):
                break  # the counterparty answers on its own schedule (see `reply`)
            reply = self.counterparty.respond(step.outgoing)
            if reply is not None:
                self.on_message("counterparty", reply)
            step = self.delegate.receive(reply)
            self.persist()
        else:
            raise InternalError(f"session {self.delegate.session_id} did not end within {_MAX_STEPS} steps")
        return self.outcome()

    def apply(self, decision: Decision) -> Step:
        """Store a decision and resume the delegate with it."""
        self.store.save_decision(self.delegate.session_id, decision)
        step = self.delegate.resume(decision)
        self.persist()
        return step

    def outcome(self) -> SessionOutcome:
        """The session's current standing."""
        delegate = self.delegate
        return SessionOutcome(
            delegate.session_id, delegate.state, delegate.pending, delegate.turn, dict(delegate.terms)
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
    identifier = session_id or store.new_session_id(f"{config.name}-{counterparty.name}-s{seed}")
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
        delegate, counterparty, store, config_source=config_source, clock=the_clock, on_message=on_message
    )
    return runner, runner.start()


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


def load_runner(
    store: SessionStore,
    session_id: str,
    *,
    clock: Clock | None = None,
    on_message: Callable[[str, str], None] | None = None,
) -> SessionRunner:
    """Rebuild a stored session's delegate and counterparty from storage."""
    row = store.load_session(session_id)
    snapshot = row["snapshot"]
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
    )


def decide(
    store: SessionStore,
    session_id: str,
    *,
    option: str | None,
    guidance: str = "",
    decided_by: str = "principal",
    principal: Principal | None = None,
    clock: Clock | None = None,
    on_message: Callable[[str, str], None] | None = None,
) -> SessionOutcome:
    """Answer a paused session's open request and resume it from storage.

    Args:
        store: Persistence.
        session_id: The paused session.
        option: Chosen option key (or None with guidance).
        guidance: Free-text guidance.
        decided_by: Recorded as the decider.
        principal: Who answers any later escalations (default: none, the session pauses again).
        clock: Clock for timestamps.
        on_message: Message callback.

    Raises:
        ScenarioError: if the session is not paused, or neither option nor guidance is given.
    """
    if option is None and not guidance.strip():
        raise ScenarioError("give --option or --guidance", field="decision")
    runner = load_runner(store, session_id, clock=clock, on_message=on_message)
    request = runner.delegate.pending
    if request is None:
        raise ScenarioError(
            f"session {session_id!r} is in state {runner.delegate.state}, not waiting for a decision",
            source=store.path,
            field="session",
        )
    if option is not None:
        request.option(option)
    the_clock = clock or FakeClock()
    decision = Decision(
        request.request_id, option.upper() if option else None, guidance, decided_by, the_clock.now()
    )
    step = runner.apply(decision)
    return runner.run(principal or StoredPrincipal(), step)


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
        ScenarioError: if the session is paused for a decision or has ended.
    """
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
    return runner.run(principal or StoredPrincipal(), step)
