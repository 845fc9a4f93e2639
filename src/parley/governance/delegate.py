"""The GAIA delegate: screens and negotiates for a principal and never commits without authority.

One object per session. `open` sends the first message, `receive` handles one counterparty turn
(None when no reply came), `resume` applies a principal's decision after an escalation. Every
outgoing text passes the preflight; every step is written as trajectory events (the audit log).
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any

import numpy as np

from parley.errors import ScenarioError
from parley.governance.config import DomainConfig, load_yaml_data
from parley.governance.critic import (
    Critic,
    Guidance,
    MergedGuidance,
    RuleCritic,
    human_guidance,
    merge_channels,
    safety_guidance,
)
from parley.governance.drafting import (
    ContextualDrafter,
    DraftContext,
    Drafter,
    Intent,
    TemplateDrafter,
    format_amount,
    format_range,
)
from parley.governance.escalation import Decision, EscalationOption, EscalationRequest, Trigger
from parley.governance.extraction import (
    ExtractionContext,
    Extractor,
    FieldReading,
    default_extractor,
)
from parley.governance.machine import ACTIVE, Action, IllegalTransition, State, StateMachine
from parley.governance.moderator import ADVERSARIAL, Classifier, Label, RuleModerator
from parley.governance.offers import (
    counterparty_ask,
    describe,
    escalation_options,
    negotiation_term,
    opening_range,
    recap_text,
    terms_text,
)
from parley.governance.preflight import preflight
from parley.governance.stcc import Question, open_question, screening_question, stcc_question, total_entropy
from parley.governance.tci import TaskCompletenessIndex
from parley.governance.values import find_money
from parley.protocol.clock import Clock, FakeClock
from parley.protocol.events import PUBLIC, Event, Trajectory

DELEGATE = "delegate"
COUNTERPARTY = "counterparty"
PRINCIPAL = "principal"
_ESCALATIONS_PER_TURN = 4
SEVERITY = {"binding": "high", "over_boundary": "high", "prohibited": "medium"}


@dataclass(frozen=True, slots=True)
class DelegateOptions:
    """Switches for ablations and deployment.

    Attributes:
        use_stcc: Open with the STCC question (False: free-form opener, unranked screening).
        preflight: Run the preflight on outgoing drafts (False only for the safety ablation).
        slip_rate: Probability that the simulated drafter slips on a proposal.
        reply_timeout: Seconds of counterparty silence that count as one missed round.
    """

    use_stcc: bool = True
    preflight: bool = True
    slip_rate: float = 0.0
    reply_timeout: float | None = None


@dataclass(frozen=True, slots=True)
class Step:
    """What one delegate step produced: a message to send, the new state, an escalation request."""

    outgoing: str | None
    state: State
    request: EscalationRequest | None = None

    @property
    def terminal(self) -> bool:
        """Whether the session has ended."""
        return self.state in (State.AGREE, State.NO_DEAL, State.STALL)


def _cues() -> tuple[re.Pattern[str], re.Pattern[str]]:
    raw = load_yaml_data("moderator.yaml")
    return re.compile(raw["acceptance"], re.IGNORECASE), re.compile(raw["withdrawal"], re.IGNORECASE)


class Delegate:
    """The governed delegate for one session.

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

    def __init__(
        self,
        config: DomainConfig,
        session_id: str,
        *,
        clock: Clock | None = None,
        options: DelegateOptions | None = None,
        seed: int = 0,
        extractor: Extractor | None = None,
        moderator: Classifier | None = None,
        drafter: Drafter | None = None,
        critic: Critic | None = None,
    ) -> None:
        self.config = config
        self.session_id = session_id
        self.clock = clock or FakeClock()
        self.options = options or DelegateOptions()
        self.seed = seed
        self.extractor = extractor or default_extractor(config)
        self.moderator = moderator or RuleModerator(config)
        self.drafter = drafter or TemplateDrafter(config, np.random.default_rng(seed), self.options.slip_rate)
        self.critic: Critic = critic or RuleCritic(config)
        self.templates: dict[str, str] = {**load_yaml_data("templates.yaml"), **config.templates}
        self._options_by_trigger: dict[str, list[dict[str, str]]] = load_yaml_data("escalation_options.yaml")
        self._acceptance, self._withdrawal = _cues()
        self.machine = StateMachine()
        self.tci = TaskCompletenessIndex(config)
        self.trajectory = Trajectory()
        self.flushed = 0
        self.turn = 0
        self.transcript: list[tuple[str, str]] = []
        self._asked: dict[str, Any] = {"kind": "none", "fields": [], "choices": {}}
        self._silent = 0
        self._no_info = 0
        self._recap_sent = False
        self._adversarial = 0
        self._conflicts = 0
        self._conflict_escalated = False
        self._proposal: dict[str, Any] | None = None
        self._last_ask: float | None = None
        self._limits: dict[str, tuple[float | None, float | None]] = {}
        self._human: list[Guidance] = []
        self._muted: set[str] = set()
        self._pending: EscalationRequest | None = None
        self._origin: State | None = None
        self._held: dict[str, Any] | None = None
        self.terms: dict[str, Any] = {}
        self._reconfirming: str | None = None
        self._last_label = Label.COOPERATIVE
        self._escalations = 0
        self._last_activity = self.clock.now()
        self.reversals = 0
        self._paused_this_turn = 0

    # -- public API -----------------------------------------------------------------------------
    @property
    def state(self) -> State:
        """Current state."""
        return self.machine.state

    @property
    def pending(self) -> EscalationRequest | None:
        """The open escalation request, if the flow is paused."""
        return self._pending

    def gate_open(self) -> bool:
        """g(h) = 1{TCI_w(h) ≥ τ_gate}."""
        return self.tci.weighted >= self.config.thresholds.gate - 1e-12

    def open(self) -> Step:
        """START → STCC (or SCREEN without STCC): send the opening question."""
        if self.state != State.START:
            raise IllegalTransition(f"open() called in state {self.state}")
        self._record(
            "session_started", {"config": self.config.name, "options": self._options_json()}, "new session"
        )
        if self.options.use_stcc:
            question = stcc_question(self.config, self.tci, self.templates)
            self._transition(Action.ASK, State.STCC, f"STCC on {list(question.fields)}")
        else:
            question = open_question(self.config, self.templates)
            self._transition(Action.ASK, State.SCREEN, "free-form opener (no STCC)")
        return self._ask(question)

    def receive(self, message: str | None) -> Step:
        """Handle one counterparty turn; None means no reply arrived this round."""
        if self.state not in ACTIVE:
            raise IllegalTransition(f"receive() called in state {self.state}")
        self.turn += 1
        self._paused_this_turn = 0
        if message is None or not message.strip():
            return self._on_silence()
        self._silent, self._recap_sent = 0, False
        self._last_activity = self.clock.now()
        self.transcript.append((COUNTERPARTY, message))
        self._record("counterparty_message", {"text": message}, "inbound", party=COUNTERPARTY)
        if self.turn > self.config.thresholds.max_rounds:
            return self._end(State.NO_DEAL, "round limit reached")
        return self._process(message)

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
        request = self._pending
        if request is None or self.state != State.ESCALATE:
            raise ScenarioError(f"session {self.session_id} is not waiting for a decision", field="session")
        if decision.request_id != request.request_id:
            raise ScenarioError(
                f"decision is for {decision.request_id!r}, pending request is {request.request_id!r}",
                field="request_id",
            )
        option = request.option(decision.option) if decision.option else None
        self._record(
            "decision",
            {**decision.to_json(), "trigger": request.trigger.value},
            f"{decision.decided_by} chose {decision.option or 'guidance'}",
            party=PRINCIPAL,
        )
        if decision.guidance:
            self._human.append(human_guidance(self.config, decision.guidance, self.turn))
            self._record(
                "human_override",
                {"text": decision.guidance, "by": decision.decided_by},
                "principal guidance stored as a human override",
                party=PRINCIPAL,
            )
        self._pending = None
        return self._apply(request, option, decision.guidance)

    def new_events(self) -> list[Event]:
        """Events recorded since the last `mark_flushed` (what the store must persist)."""
        return list(self.trajectory)[self.flushed :]

    def mark_flushed(self) -> None:
        """Note that every event so far has been persisted."""
        self.flushed = len(self.trajectory)

    # -- processing -----------------------------------------------------------------------------
    def _process(self, message: str) -> Step:
        before = total_entropy(self.config, self.tci)
        readings, resolved = self._extract(message)
        classification = self.moderator.classify(message, relevant=bool(readings))
        self._last_label = classification.label
        self._record("moderator_label", classification.to_json(), f"label {classification.label.value}")
        entry = self.tci.update(self.turn, readings)
        after = total_entropy(self.config, self.tci)
        self._record(
            "tci_ledger",
            {
                **entry.to_json(),
                "entropy_before": round(before, 6),
                "entropy_after": round(after, 6),
                "information_gain": round(before - after, 6),
                "question_kind": self._asked["kind"],
                "resolved": resolved,
            },
            f"TCI {entry.tci:.2f} (weighted {entry.tci_weighted:.2f}); missing {len(entry.missing)}",
        )
        self._no_info = 0 if (entry.revealed or resolved) else self._no_info + 1
        self._track_reversal([*entry.revealed, *entry.conflicts, *resolved])
        return self._route(message, classification.label, bool(readings))

    def _route(self, message: str, label: Label, informative: bool) -> Step:
        prefix = ""
        if label in ADVERSARIAL:
            self._adversarial += 1
            self._record(
                "safety_event",
                {"type": label.value, "count": self._adversarial},
                "suspected adversarial message",
            )
            if self._adversarial > self.config.thresholds.adversarial_tolerance:
                return self._escalate(
                    Trigger.ADVERSARIAL,
                    f"Repeated {label.value.replace('_', ' ')} attempts ({self._adversarial}).",
                    safety=(label.value,),
                )
            key = "refuse_sensitive" if label == Label.SOCIAL_ENGINEERING else "refuse_injection"
            prefix = self.templates[key].format(subject=self.config.subject)
        elif label == Label.NEGATIVE_SENTIMENT:
            return self._escalate(
                Trigger.SENTIMENT,
                "The counterparty's last message was strongly negative.",
                safety=("negative_sentiment",),
            )
        elif label == Label.CLARIFY and not informative:
            return self._clarify()
        return self._advance(message, prefix)

    def _advance(self, message: str | None, prefix: str = "") -> Step:
        if self.state == State.STCC:
            self._transition(Action.ASK, State.SCREEN, "STCC answered")
        if self.tci.disputed:
            return self._reconfirm(prefix)
        if self.state == State.SCREEN:
            return self._screen_step(prefix)
        return self._negotiate_step(message, prefix)

    def _screen_step(self, prefix: str) -> Step:
        if self.gate_open():
            return self._propose(prefix, "TCI reached τ_gate")
        if self._no_info >= self.config.thresholds.stall_rounds:
            return self._escalate(Trigger.AMBIGUITY, f"No new information for {self._no_info} rounds.")
        question = screening_question(self.config, self.tci, self.templates, ranked=self.options.use_stcc)
        if question is None:
            return self._propose(prefix, "all fields known")
        self._transition(Action.ASK, State.SCREEN, f"screening {list(question.fields)}")
        return self._ask(question, prefix)

    def _negotiate_step(self, message: str | None, prefix: str) -> Step:
        text = message or ""
        if self._withdrawal.search(text):
            return self._end(State.NO_DEAL, "counterparty withdrew")
        term = self._term_name()
        ask = counterparty_ask(self.config, text, term)
        if ask is not None:
            self._last_ask = ask
            low, high = self._band(term)
            if high is not None and ask > high + 1e-9:
                return self._boundary_escalation(term, ask, low, high)
            return self._summarize({term: max(ask, low) if low is not None else ask})
        if self._acceptance.search(text) and self._proposal is not None:
            return self._summarize({str(self._proposal["term"]): float(self._proposal["high"])})
        if self._no_info >= self.config.thresholds.stall_rounds:
            return self._escalate(
                Trigger.AMBIGUITY, f"No progress for {self._no_info} rounds while negotiating."
            )
        question = screening_question(self.config, self.tci, self.templates, ranked=self.options.use_stcc)
        if question is not None and self.tci.weighted < self.config.thresholds.complete:
            self._transition(Action.ASK, State.NEGOTIATE, f"completing {list(question.fields)} before terms")
            return self._ask(question, prefix)
        return self._propose(prefix, "re-stating the proposal")

    # -- outgoing moves -------------------------------------------------------------------------
    def _ask(self, question: Question, prefix: str = "") -> Step:
        self._asked = {
            "kind": question.kind,
            "fields": list(question.fields),
            "choices": {k: list(v) for k, v in question.choices.items()},
        }
        self._record(
            "question",
            {
                "kind": question.kind,
                "fields": list(question.fields),
                "expected_gain": round(question.expected_gain, 6),
            },
            "question chosen by IG",
        )
        return self._send(Intent("text", {"text": question.text}, prefix=prefix))

    def _clarify(self) -> Step:
        target = State.SCREEN
        self._transition(Action.ASK, target, "moderator confidence below τ_classify: clarify")
        self._asked = {"kind": "clarify", "fields": [], "choices": {}}
        return self._send(Intent("clarify"))

    def _reconfirm(self, prefix: str) -> Step:
        name = next(iter(self.tci.disputed))
        self._reconfirming = name
        self._transition(Action.ASK, State.SCREEN, f"contradiction on {name}: re-screen")
        self._asked = {"kind": "reconfirm", "fields": [name], "choices": {}}
        values = {
            "old": describe(self.config, name, self.tci.confirmed[name]),
            "new": describe(self.config, name, self.tci.disputed[name]),
            "label": self.config.field(name).label,
        }
        return self._send(Intent("reconfirm", values, prefix=prefix))

    def _propose(self, prefix: str, rationale: str) -> Step:
        term_name = self._term_name()
        term = self.config.boundary.term(term_name)
        if self._proposal is None or self._proposal["term"] != term_name:
            self._proposal = opening_range(self.config, term_name, self._band(term_name))
        low, high = self._proposal["low"], self._proposal["high"]
        action_target = State.NEGOTIATE
        if self.state == State.SCREEN:
            self.machine.fire(Action.PROPOSE, action_target, gate_open=self.gate_open())
            self._record_transition(State.SCREEN, Action.PROPOSE, action_target, rationale)
        else:
            self._transition(Action.PROPOSE, action_target, rationale)
        intent = Intent(
            "proposal",
            {"range": format_range(low, high, term.unit)},
            term_name,
            high,
            self._last_ask,
            prefix=prefix,
            slippable=True,
        )
        return self._send(intent)

    def _summarize(self, terms: Mapping[str, float]) -> Step:
        self.terms = dict(terms)
        self._transition(Action.SUMMARIZE, State.SUMMARIZE, "terms within authority; prepare summary")
        step = self._send(Intent("summary", {"terms": terms_text(self.config, terms)}))
        return step if self.state == State.ESCALATE else self._final_approval(step)

    def _final_approval(self, sent: Step) -> Step:
        """After the summary went out: the human gate on the agreement artefact."""
        request_step = self._escalate(
            Trigger.FINAL_APPROVAL, "Final terms need your approval before agreement."
        )
        return Step(sent.outgoing, request_step.state, request_step.request)

    def _boundary_escalation(self, term_name: str, ask: float, low: float | None, high: float) -> Step:
        term = self.config.boundary.term(term_name)
        band = (
            f"{format_amount(low, term.unit)}–{format_amount(high, term.unit)}"
            if low is not None
            else f"up to {format_amount(high, term.unit)}"
        )
        problem = (
            f"The {self.config.counterparty_role} asks {format_amount(ask, term.unit)} for the "
            f"{term.label}; the approved band is {band}."
        )
        boundary = {
            "term": term_name,
            "ask": ask,
            "minimum": low,
            "maximum": high,
            "excess": round(ask - high, 6),
        }
        return self._escalate(Trigger.BOUNDARY, problem, boundary=boundary, safety=("boundary_violation",))

    def _send(self, intent: Intent) -> Step:
        merged = self._guidance()
        limit_reached = self._conflicts >= self.config.thresholds.conflict_limit
        if limit_reached and not self._conflict_escalated and self.state in ACTIVE:
            self._conflict_escalated = True
            return self._escalate(
                Trigger.CONFLICT, "The critic keeps suggesting tactics your guidance rules out."
            )
        if intent.term is not None:
            intent = replace(intent, limit=self._band(intent.term)[1])
        if intent.kind == "proposal":
            says = [item.say for item in merged.persuasion() if item.say]
            if says:
                intent = replace(intent, suffix=says[0])
        injection = self._last_label == Label.PROMPT_INJECTION
        if isinstance(self.drafter, ContextualDrafter):
            draft = self.drafter.draft_in_context(intent, self._draft_context(merged, injection))
        else:
            draft = self.drafter.draft(intent, injection=injection)
        self._record(
            "draft",
            {"text": draft.text, "slips": list(draft.slips), "intent": intent.kind},
            "drafted",
            audience=DELEGATE,
        )
        if not self.options.preflight:
            self._record("preflight", {"skipped": True}, "preflight disabled (ablation)")
            return self._emit(draft.text, draft.slips)
        result = preflight(draft.text, self.config, overrides=self._limits, allow_binding=intent.approved)
        self._record(
            "preflight", result.to_json(), "requires approval" if result.requires_approval else "safe to send"
        )
        sendable = result.sendable
        if sendable is not None:
            residual = tuple(s for s in draft.slips if not (s == "binding" and sendable != draft.text))
            if sendable != draft.text:
                self._record(
                    "safety_event",
                    {"type": "rewritten_non_binding", "rewrite": sendable},
                    "binding language rewritten before sending",
                )
            return self._emit(sendable, residual)
        if self.state in (State.AGREE, State.NO_DEAL, State.STALL):
            # The session has ended (AGREE / NO_DEAL / STALL): nothing is left to approve, so a
            # closing note that fails the preflight is withheld rather than escalated.
            self._record(
                "safety_event",
                {"type": "withheld_after_end", "text": draft.text},
                "closing message failed the preflight after the session ended; not sent",
            )
            return Step(None, self.state)
        self._held = {"intent": intent.to_json(), "text": draft.text, "slips": list(draft.slips)}
        findings = (
            [f"{b.kind} {b.term}={b.value}" for b in result.breaches]
            + [f"prohibited {t.topic}" for t in result.topics]
            + [f"binding: {c.cue}" for c in result.commitments]
        )
        return self._escalate(
            Trigger.PREFLIGHT, "A drafted message failed the preflight check.", safety=tuple(findings)
        )

    def _emit(self, text: str, slips: Sequence[str], approved: bool = False) -> Step:
        self.transcript.append((DELEGATE, text))
        self._record("delegate_message", {"text": text, "state": self.state.value}, "sent to counterparty")
        if slips and not approved:
            severities = sorted({SEVERITY.get(s, "medium") for s in slips})
            self._record(
                "violation",
                {"slips": list(slips), "severity": severities},
                "unsafe text reached the counterparty",
                audience=DELEGATE,
            )
        return Step(text, self.state)

    def _draft_context(self, merged: MergedGuidance, injection: bool) -> DraftContext:
        return DraftContext(
            self.state.value,
            self.turn,
            self.tci.value,
            self.tci.weighted,
            dict(self.tci.confirmed),
            {k: tuple(v) for k, v in self.tci.soft.items()},
            self.tci.missing,
            tuple((item.channel, item.text) for item in merged.kept),
            tuple(self.transcript[-4:]),
            injection,
        )

    def _guidance(self) -> MergedGuidance:
        gate = self.gate_open() and self.state in (State.NEGOTIATE, State.SUMMARIZE)
        critic = self.critic.suggest(self.tci, gate, self.turn, frozenset(self._muted))
        merged = merge_channels(
            critic,
            self._human,
            safety_guidance(self.config),
            budget=self.config.thresholds.token_budget,
            gate_open=gate,
            turn=self.turn,
        )
        if merged.conflicts:
            self._conflicts += 1
        self._record(
            "guidance",
            {
                "kept": [g.to_json() for g in merged.kept],
                "dropped": [d.to_json() for d in merged.dropped],
                "tokens": merged.tokens,
            },
            "MergeChannels: human > safety > clarity > persuasion",
        )
        return merged

    # -- escalation -----------------------------------------------------------------------------
    def _escalate(
        self,
        trigger: Trigger,
        problem: str,
        *,
        boundary: Mapping[str, Any] | None = None,
        safety: Sequence[str] = (),
    ) -> Step:
        self._paused_this_turn += 1
        if self._paused_this_turn > _ESCALATIONS_PER_TURN:
            # Liveness guard (I4): the principal's answers keep re-triggering without any progress.
            return self._end(State.NO_DEAL, f"escalation loop guard ({trigger.value})")
        self._origin = self.state
        self._transition(Action.ESCALATE, State.ESCALATE, f"escalate: {trigger.value}")
        self._escalations += 1
        request = EscalationRequest(
            f"{self.session_id}-e{self._escalations}",
            self.session_id,
            trigger,
            self._origin.value,
            tuple(self.transcript[-3:]),
            self._ledger_snapshot(),
            problem,
            escalation_options(self.config, self._options_by_trigger[trigger.value], boundary),
            "Approve one option by its letter, or provide alternative guidance.",
            dict(boundary or {}),
            tuple(safety),
            self.clock.now(),
        )
        self._pending = request
        self._record("escalation", request.to_json(), f"paused for the principal: {trigger.value}")
        return Step(None, State.ESCALATE, request)

    def _ledger_snapshot(self) -> dict[str, Any]:
        return {
            "tci": round(self.tci.value, 6),
            "tci_weighted": round(self.tci.weighted, 6),
            "revealed": dict(self.tci.confirmed),
            "soft": {k: list(v) for k, v in self.tci.soft.items()},
            "missing": list(self.tci.missing),
        }

    def _apply(self, request: EscalationRequest, option: EscalationOption | None, guidance: str) -> Step:
        effect = option.effect if option else self._guidance_effect(request, guidance)
        origin = self._origin or State.SCREEN
        back = State.SCREEN if origin in (State.STCC, State.START) else origin
        if effect == "decline":
            return self._close(
                State.NO_DEAL, "decline_close", f"principal declined ({request.trigger.value})"
            )
        if effect == "stall":
            self._transition(Action.DECLINE, State.STALL, "principal paused the engagement")
            return Step(None, self.state)
        if effect == "approve_terms":
            self._transition(Action.APPROVE, State.AGREE, "principal approved the final terms")
            self._record(
                "agreement",
                {"terms": self.terms, "facts": dict(self.tci.confirmed)},
                "human-approved agreement artefact",
            )
            text = self.drafter.draft(
                Intent("approved_close", {"terms": terms_text(self.config, self.terms)}, approved=True)
            ).text
            result = preflight(text, self.config, overrides=self._limits, allow_binding=True)
            self._record(
                "preflight", result.to_json(), "final terms: binding wording approved by the principal"
            )
            return self._emit(text, ())
        if effect in ("counter_at_limit", "raise_limit", "revise_terms", "counter_at_guidance"):
            return self._counter(effect, request, guidance)
        self._transition(Action.APPROVE, back, f"principal chose {effect}")
        if effect == "send_compliant" and self._held is not None:
            held = replace(Intent.from_json(self._held["intent"]), slippable=False)
            self._held = None
            if preflight(self.drafter.draft(held).text, self.config, overrides=self._limits).sendable is None:
                # Even the clean wording needs approval: send a neutral holding note instead of looping.
                self._record("safety_event", {"type": "holding_fallback"}, "compliant draft still failed")
                if back == State.SUMMARIZE:
                    return self._end(State.NO_DEAL, "final terms cannot be stated within authority")
                held = Intent("holding")
            step = self._send(held)
            return self._final_approval(step) if self.state == State.SUMMARIZE else step
        if effect == "approve_draft" and self._held is not None:
            held_text, self._held = str(self._held["text"]), None
            self._record(
                "safety_event",
                {"type": "approved_override", "text": held_text},
                "principal approved a draft beyond the boundary",
            )
            return self._emit(held_text, (), approved=True)
        if effect == "mute_conflicts":
            self._muted.update(topic for item in self._human for topic in item.topics)
        self._adversarial, self._no_info = 0, 0
        if back == State.SUMMARIZE:
            return self._summarize(self.terms)
        return self._advance(None, self._resume_prefix(request))

    def _guidance_effect(self, request: EscalationRequest, guidance: str) -> str:
        if request.trigger == Trigger.BOUNDARY and find_money(guidance):
            return "counter_at_guidance"
        return request.options[0].effect

    def _resume_prefix(self, request: EscalationRequest) -> str:
        if request.trigger == Trigger.SENTIMENT:
            return self.templates["acknowledge_concern"]
        if request.trigger == Trigger.ADVERSARIAL:
            return self.templates["refuse_injection"].format(subject=self.config.subject)
        return ""

    def _counter(self, effect: str, request: EscalationRequest, guidance: str) -> Step:
        term_name = str(request.boundary_at_risk.get("term", self._term_name()))
        term = self.config.boundary.term(term_name)
        low, high = self._band(term_name)
        amount = high if high is not None else 0.0
        template = "counter_at_limit"
        if effect == "raise_limit":
            amount, template = float(request.boundary_at_risk["ask"]), "raised_limit"
        elif effect == "counter_at_guidance":
            amount = find_money(guidance)[0].high
        elif effect == "revise_terms" and self._proposal is not None:
            amount = float(self._proposal["high"])
        if amount > (high or 0.0):
            self._limits[term_name] = (low, amount)
            self._record(
                "authorization_change",
                {"term": term_name, "minimum": low, "maximum": amount},
                "principal approved a wider limit",
                party=PRINCIPAL,
            )
        self._proposal = {"term": term_name, "low": amount, "high": amount}
        self._transition(Action.APPROVE, State.NEGOTIATE, f"principal chose {effect}")
        return self._send(
            Intent(
                template,
                {"amount": format_amount(amount, term.unit)},
                term_name,
                amount,
                self._last_ask,
                slippable=True,
            )
        )

    # -- endings and silence ----------------------------------------------------------------------
    def _on_silence(self) -> Step:
        self._silent += 1
        self._record("no_reply", {"silent_rounds": self._silent}, "no counterparty reply this round")
        limit = self.config.thresholds.stall_rounds
        if self._recap_sent and self._silent >= limit:
            return self._end(State.STALL, f"no reply for {limit} rounds after the recap")
        if self._silent >= limit and not self._recap_sent:
            self._recap_sent, self._silent = True, 0
            self._transition(Action.SUMMARIZE, self.state, "stall: recap with two options")
            return self._send(
                Intent("recap", {"recap": recap_text(self.config, self.tci.confirmed, self._proposal)})
            )
        if self.turn > self.config.thresholds.max_rounds:
            return self._end(State.NO_DEAL, "round limit reached")
        return Step(None, self.state)

    def _end(self, target: State, rationale: str) -> Step:
        self._transition(Action.DECLINE, target, rationale)
        self._record("session_ended", {"state": target.value, "terms": self.terms}, rationale)
        return Step(None, target)

    def _close(self, target: State, template: str, rationale: str) -> Step:
        self._transition(Action.DECLINE, target, rationale)
        step = self._send(Intent(template))
        return Step(step.outgoing, self.state)

    # -- helpers --------------------------------------------------------------------------------
    def _extract(self, message: str) -> tuple[list[FieldReading], list[str]]:
        context = ExtractionContext(
            tuple(self._asked["fields"]), {k: tuple(v) for k, v in self._asked["choices"].items()}
        )
        negotiable = {t.field for t in self.config.boundary.terms if t.kind == "money"}
        # A new amount for an already-known negotiable field is a counter-offer, not a contradiction.
        readings = [
            r
            for r in self.extractor.extract(message, context)
            if not (r.field in negotiable and r.field in self.tci.confirmed)
        ]
        resolved: list[str] = []
        name = self._reconfirming
        if name is not None:
            answers = sorted((r for r in readings if r.field == name), key=lambda r: -r.confidence)
            if answers:
                self.tci.resolve(name, answers[0].value)
                self._record(
                    "reconfirmed", {"field": name, "value": answers[0].value}, "contradiction resolved"
                )
                self._reconfirming = None
                resolved.append(name)
            readings = [r for r in readings if r.field != name]
        return readings, resolved

    def _track_reversal(self, fields: Sequence[str]) -> None:
        if self._proposal is None:
            return
        relevant = [f for f in fields if self.config.field(f).affects_offer]
        if relevant:
            self.reversals += 1
            self._record(
                "reversal", {"fields": relevant}, "offer-relevant information arrived after a proposal"
            )

    def _band(self, term_name: str) -> tuple[float | None, float | None]:
        term = self.config.boundary.term(term_name)
        return self._limits.get(term_name, (term.minimum, term.maximum))

    def _term_name(self) -> str:
        return negotiation_term(self.config, self.tci.confirmed)

    def _transition(self, action: Action, target: State, rationale: str) -> None:
        source = self.state
        self.machine.fire(action, target, gate_open=self.gate_open())
        self._record_transition(source, action, target, rationale)

    def _record_transition(self, source: State, action: Action, target: State, rationale: str) -> None:
        self._record(
            "state_transition",
            {
                "from": source.value,
                "action": action.value,
                "to": target.value,
                "tci": round(self.tci.value, 6),
                "tci_weighted": round(self.tci.weighted, 6),
            },
            rationale,
        )

    def _record(
        self,
        kind: str,
        data: Mapping[str, Any],
        rationale: str,
        *,
        party: str = DELEGATE,
        audience: str = PUBLIC,
    ) -> None:
        self.trajectory.append(
            kind,
            round=self.turn,
            party=party,
            data={**data, "rationale": rationale},
            audience=audience,
            time=self.clock.now(),
        )

    def _options_json(self) -> dict[str, Any]:
        return {
            "use_stcc": self.options.use_stcc,
            "preflight": self.options.preflight,
            "slip_rate": self.options.slip_rate,
            "gate": self.config.thresholds.gate,
        }

    # -- persistence ----------------------------------------------------------------------------
    def to_json(self) -> dict[str, Any]:
        """Everything needed to resume this session (the trajectory is stored separately)."""
        rng = self.drafter.rng_state() if isinstance(self.drafter, TemplateDrafter) else None
        return {
            "session_id": self.session_id,
            "state": self.state.value,
            "turn": self.turn,
            "seed": self.seed,
            "options": {
                "use_stcc": self.options.use_stcc,
                "preflight": self.options.preflight,
                "slip_rate": self.options.slip_rate,
                "reply_timeout": self.options.reply_timeout,
            },
            "tci": self.tci.to_json(),
            "transcript": [list(m) for m in self.transcript],
            "asked": self._asked,
            "silent": self._silent,
            "no_info": self._no_info,
            "recap_sent": self._recap_sent,
            "adversarial": self._adversarial,
            "conflicts": self._conflicts,
            "conflict_escalated": self._conflict_escalated,
            "proposal": self._proposal,
            "last_ask": self._last_ask,
            "limits": {k: list(v) for k, v in self._limits.items()},
            "human": [g.to_json() for g in self._human],
            "muted": sorted(self._muted),
            "pending": self._pending.to_json() if self._pending else None,
            "origin": self._origin.value if self._origin else None,
            "held": self._held,
            "terms": self.terms,
            "reconfirming": self._reconfirming,
            "last_label": self._last_label.value,
            "escalations": self._escalations,
            "paused_this_turn": self._paused_this_turn,
            "reversals": self.reversals,
            "rng": rng,
            "flushed": self.flushed,
        }

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
        raw = data["options"]
        options = DelegateOptions(
            bool(raw["use_stcc"]), bool(raw["preflight"]), float(raw["slip_rate"]), raw.get("reply_timeout")
        )
        delegate = cls(config, str(data["session_id"]), clock=clock, options=options, seed=int(data["seed"]))
        delegate.machine.state = State(data["state"])
        delegate.turn = int(data["turn"])
        delegate.tci = TaskCompletenessIndex.from_json(config, data["tci"])
        delegate.trajectory = Trajectory(events)
        delegate.flushed = len(events)
        delegate.transcript = [(str(m[0]), str(m[1])) for m in data["transcript"]]
        delegate._restore(data)
        return delegate

    def _restore(self, data: Mapping[str, Any]) -> None:
        self._asked = dict(data["asked"])
        self._silent, self._no_info = int(data["silent"]), int(data["no_info"])
        self._recap_sent, self._adversarial = bool(data["recap_sent"]), int(data["adversarial"])
        self._conflicts, self._conflict_escalated = int(data["conflicts"]), bool(data["conflict_escalated"])
        self._proposal, self._last_ask = data["proposal"], data["last_ask"]
        self._limits = {k: (v[0], v[1]) for k, v in data["limits"].items()}
        self._human = [Guidance.from_json(g) for g in data["human"]]
        self._muted = set(data["muted"])
        self._pending = EscalationRequest.from_json(data["pending"]) if data["pending"] else None
        self._origin = State(data["origin"]) if data["origin"] else None
        self._held, self.terms = data["held"], dict(data["terms"])
        self._reconfirming, self._last_label = data["reconfirming"], Label(data["last_label"])
        self._escalations, self.reversals = int(data["escalations"]), int(data["reversals"])
        self._paused_this_turn = int(data.get("paused_this_turn", 0))
        if data.get("rng") and isinstance(self.drafter, TemplateDrafter):
            self.drafter.restore_rng(data["rng"])
