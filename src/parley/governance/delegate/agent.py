"""The GAIA delegate: screens and negotiates for a principal and never commits without authority.

One object per session. `open` sends the first message, `receive` handles one counterparty turn
(None when no reply came), `resume` applies a principal's decision after an escalation.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from parley.governance.config import DomainConfig
from parley.governance.delegate.core import DelegateCore
from parley.governance.delegate.outbox import ask, send
from parley.governance.delegate.records import COUNTERPARTY, Step
from parley.governance.delegate.resume import apply_decision
from parley.governance.delegate.screening import process
from parley.governance.delegate.snapshot import options_from_json, restore, snapshot
from parley.governance.drafting import Intent
from parley.governance.escalation import Decision
from parley.governance.machine import ACTIVE, Action, IllegalTransition, State
from parley.governance.normalize import well_formed
from parley.governance.offers import recap_text
from parley.governance.stcc import open_question, stcc_question
from parley.protocol.clock import Clock
from parley.protocol.events import Event


class Delegate(DelegateCore):
    """The governed delegate for one session.

    Every outgoing text passes the preflight; every step is written as trajectory events (the
    audit log).

    Args:
        config: Domain configuration.
        session_id: Session id (also prefixes escalation request ids).
        clock: Injected clock (timestamps, timeouts).
        options: Ablation and deployment switches.
        seed: Seed for the drafter's slip model.
        extractor: Field extractor (default: pattern + lexicon, dual rule).
        moderator: Message classifier (default: rule-based).
        drafter: Message drafter (default: templates with the configured slip rate); a
            `ContextualDrafter` also gets the situation (`DraftContext`) for every message.
        critic: Tactics critic (default: rule-based).
    """

    def open(self) -> Step:
        """START → STCC (or SCREEN without STCC): send the opening question."""
        if self.state != State.START:
            raise IllegalTransition(f"open() called in state {self.state}")
        self.record(
            "session_started", {"config": self.config.name, "options": self._options_json()}, "new session"
        )
        if self.options.use_stcc:
            question = stcc_question(self.config, self.tci, self.templates)
            self.transition(Action.ASK, State.STCC, f"STCC on {list(question.fields)}")
        else:
            question = open_question(self.config, self.templates)
            self.transition(Action.ASK, State.SCREEN, "free-form opener (no STCC)")
        return ask(self, question)

    def receive(self, message: str | None) -> Step:
        """Handle one counterparty turn; None means no reply arrived this round."""
        if self.state not in ACTIVE:
            raise IllegalTransition(f"receive() called in state {self.state}")
        self.turn += 1
        self.memory.paused_this_turn = 0
        if message is None or not message.strip():
            return self._on_silence()
        self.memory.silent, self.memory.recap_sent = 0, False
        self._last_activity = self.clock.now()
        given, message = message, well_formed(message)  # a lone UTF-16 surrogate is no text (nor storable)
        self.transcript.append((COUNTERPARTY, message))
        self.record("counterparty_message", {"text": message}, "inbound", party=COUNTERPARTY)
        if message != given:
            self.record(
                "safety_event",
                {"type": "text_made_well_formed", "where": "counterparty_message"},
                "the message held UTF-16 surrogates: pairs joined, lone ones replaced by U+FFFD",
            )
        if self.turn > self.config.thresholds.max_rounds:
            return self.end(State.NO_DEAL, "round limit reached")
        return process(self, message)

    def check_timeout(self) -> Step | None:
        """Count a missed round when the reply timeout (wall-clock, injected) has passed."""
        timeout = self.options.reply_timeout
        if timeout is None or self.state not in ACTIVE or self.clock.now() - self._last_activity < timeout:
            return None
        self._last_activity = self.clock.now()
        return self.receive(None)

    def resume(self, decision: Decision) -> Step:
        """Apply the principal's decision to the pending escalation and continue.

        Raises:
            ScenarioError: if nothing is pending, the request id differs, or the option is unknown.
        """
        return apply_decision(self, decision)

    def new_events(self) -> list[Event]:
        """Events recorded since the last `mark_flushed` (what the store must persist)."""
        return list(self.trajectory)[self.flushed :]

    def mark_flushed(self) -> None:
        """Note that every event so far has been persisted."""
        self.flushed = len(self.trajectory)

    # -- persistence ----------------------------------------------------------------------------
    def to_json(self) -> dict[str, Any]:
        """Everything needed to resume this session (the trajectory is stored separately)."""
        return snapshot(self)

    @classmethod
    def from_json(
        cls,
        config: DomainConfig,
        data: Mapping[str, Any],
        events: Sequence[Event],
        *,
        clock: Clock | None = None,
    ) -> Delegate:
        """Rebuild a stored session (after a restart) from its snapshot and trajectory."""
        options = options_from_json(data["options"])
        delegate = cls(config, str(data["session_id"]), clock=clock, options=options, seed=int(data["seed"]))
        restore(delegate, data, events)
        return delegate

    # -- silence --------------------------------------------------------------------------------
    def _on_silence(self) -> Step:
        """A missed round: after stall_rounds a recap with two options, after as many more the end."""
        memory = self.memory
        memory.silent += 1
        self.record("no_reply", {"silent_rounds": memory.silent}, "no counterparty reply this round")
        limit = self.config.thresholds.stall_rounds
        if memory.recap_sent and memory.silent >= limit:
            return self.end(State.STALL, f"no reply for {limit} rounds after the recap")
        if memory.silent >= limit and not memory.recap_sent:
            memory.recap_sent, memory.silent = True, 0
            self.transition(Action.SUMMARIZE, self.state, "stall: recap with two options")
            recap = recap_text(self.config, self.tci.confirmed, memory.proposal)
            return send(self, Intent("recap", {"recap": recap}))
        if self.turn > self.config.thresholds.max_rounds:
            return self.end(State.NO_DEAL, "round limit reached")
        return Step(None, self.state)

    def _options_json(self) -> dict[str, Any]:
        return {
            "use_stcc": self.options.use_stcc,
            "preflight": self.options.preflight,
            "slip_rate": self.options.slip_rate,
            "gate": self.config.thresholds.gate,
        }
