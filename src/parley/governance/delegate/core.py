"""The state of one delegate session and the primitives every phase uses: audit events, checked
state transitions, pausing for the principal (with the claims checked and the principal's memory
consulted first), ending the session, and the authorised bands.
"""

from __future__ import annotations

import copy
from collections.abc import Mapping, Sequence
from dataclasses import replace
from typing import Any

import numpy as np

from parley.errors import ParleyError
from parley.governance.config import DomainConfig, load_yaml_data
from parley.governance.critic import Critic, RuleCritic
from parley.governance.delegate.position import conditions_note, position, session_readings
from parley.governance.delegate.records import DELEGATE, DelegateOptions, Memory, Step
from parley.governance.drafting import (
    ContextualDrafter,
    Draft,
    DraftContext,
    Drafter,
    Intent,
    TemplateDrafter,
)
from parley.governance.escalation import EscalationRequest, Trigger
from parley.governance.extraction import Extractor, default_extractor
from parley.governance.machine import Action, State, StateMachine
from parley.governance.memory import Recall, Suggestion, with_suggestion
from parley.governance.moderator import Classifier, RuleModerator
from parley.governance.normalize import well_formed
from parley.governance.offers import escalation_options, negotiation_term
from parley.governance.tci import TaskCompletenessIndex
from parley.governance.verification import (
    Claim,
    VerificationResult,
    VerificationStatus,
    Verifier,
    check_claim,
    load_verifier,
)
from parley.protocol.clock import Clock, FakeClock
from parley.protocol.events import PUBLIC, Trajectory
from parley.protocol.governed import Decision

_ESCALATIONS_PER_TURN = 4
_RULE_MODERATORS: dict[str, RuleModerator] = {}
_RULE_MODERATORS_KEPT = 32


def rule_moderator(config: DomainConfig, threshold: float | None = None) -> RuleModerator:
    """`RuleModerator(config, threshold)`, built once per distinct (config, threshold) in a process.

    Building one compiles several hundred patterns (more than `re`'s cache holds, so every build
    compiles them all again) and costs more than the session it serves. The moderator keeps no state
    between messages; each caller gets a shallow copy, so its settings (threshold, max_chars,
    use_classifier) are its own while the compiled patterns are shared. A config is told apart by its
    full content, so a copy with other thresholds gets its own moderator.
    """
    key = f"{threshold!r} {config.model_dump_json()}"
    shared = _RULE_MODERATORS.get(key)
    if shared is None:
        if len(_RULE_MODERATORS) >= _RULE_MODERATORS_KEPT:
            _RULE_MODERATORS.pop(next(iter(_RULE_MODERATORS)))
        shared = _RULE_MODERATORS[key] = RuleModerator(config, threshold)
    return copy.copy(shared)


class DelegateCore:
    """One session's state plus the primitives the phase modules drive it with.

    Callers use `Delegate`, which adds the public turn API; the arguments are documented there.
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
        options = options or DelegateOptions()
        self.options = replace(options, strategy=options.strategy or config.negotiation.strategy)
        self.seed = seed
        self.extractor = extractor or default_extractor(config)
        self.moderator = moderator or rule_moderator(config)
        self.drafter = drafter or TemplateDrafter(config, np.random.default_rng(seed), self.options.slip_rate)
        self.critic: Critic = critic or RuleCritic(config)
        self.templates: dict[str, str] = {**load_yaml_data("templates.yaml"), **config.templates}
        self._options_by_trigger: dict[str, list[dict[str, str]]] = load_yaml_data("escalation_options.yaml")
        self.machine = StateMachine()
        self.tci = TaskCompletenessIndex(config)
        self.trajectory = Trajectory()
        self.flushed = 0
        self.turn = 0
        self.transcript: list[tuple[str, str]] = []
        self.memory = Memory()
        self.terms: dict[str, Any] = {}
        self._last_activity = self.clock.now()
        self.reversals = 0
        self.recall: Recall | None = None
        """The principal's memory, consulted when escalating (set by the session runner)."""
        self.verifier: Verifier | None = None
        """Checks claims (built from `config.verification` when first needed; None: not yet)."""

    @property
    def state(self) -> State:
        """Current state."""
        return self.machine.state

    @property
    def pending(self) -> EscalationRequest | None:
        """The open escalation request, if the flow is paused."""
        return self.memory.pending

    def gate_open(self) -> bool:
        """g(h) = 1{TCI_w(h) ≥ τ_gate}."""
        return self.tci.weighted >= self.config.thresholds.gate - 1e-12

    # -- drafting -------------------------------------------------------------------------------
    def draft(self, intent: Intent, *, injection: bool = False, context: DraftContext | None = None) -> Draft:
        """The drafter's draft for intent, its text made well-formed Unicode.

        Every draft the session uses comes through here, whoever wrote it (templates or a model): a
        lone UTF-16 surrogate is no text, and no log or database takes it, so pairs are joined and
        lone ones replaced by U+FFFD (which the preflight sends to the principal), with a safety event.
        """
        if context is not None and isinstance(self.drafter, ContextualDrafter):
            draft = self.drafter.draft_in_context(intent, context)
        else:
            draft = self.drafter.draft(intent, injection=injection)
        text = well_formed(draft.text)
        if text == draft.text:
            return draft
        self.record(
            "safety_event",
            {"type": "text_made_well_formed", "where": "draft"},
            "the draft held UTF-16 surrogates: pairs joined, lone ones replaced by U+FFFD",
            audience=DELEGATE,
        )
        return replace(draft, text=text)

    # -- audit ----------------------------------------------------------------------------------
    def record(
        self,
        kind: str,
        data: Mapping[str, Any],
        rationale: str,
        *,
        party: str = DELEGATE,
        audience: str = PUBLIC,
    ) -> None:
        """Append one event (with its rationale) to the trajectory, at this turn and clock time."""
        self.trajectory.append(
            kind,
            round=self.turn,
            party=party,
            data={**data, "rationale": rationale},
            audience=audience,
            time=self.clock.now(),
        )

    def transition(self, action: Action, target: State, rationale: str) -> None:
        """Fire a checked transition (the gate guards SCREEN → NEGOTIATE) and record it.

        Raises:
            IllegalTransition: if the machine does not declare the transition or the gate is closed.
        """
        source = self.state
        self.machine.fire(action, target, gate_open=self.gate_open())
        self.record(
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

    # -- pausing and ending ---------------------------------------------------------------------
    def escalate(
        self,
        trigger: Trigger,
        problem: str,
        *,
        boundary: Mapping[str, Any] | None = None,
        safety: Sequence[str] = (),
    ) -> Step:
        """Pause for the principal with a stored request (or end, when answers keep re-triggering)."""
        memory = self.memory
        memory.paused_this_turn += 1
        if memory.paused_this_turn > _ESCALATIONS_PER_TURN:
            # Liveness guard (I4): the principal's answers keep re-triggering without any progress.
            return self.end(State.NO_DEAL, f"escalation loop guard ({trigger.value})")
        self.verify_claims()  # the principal sees each claim's check in the request
        memory.origin = self.state
        self.transition(Action.ESCALATE, State.ESCALATE, f"escalate: {trigger.value}")
        memory.escalations += 1
        readings = session_readings(self.trajectory)  # no condition the counterparty attached is dropped
        notes = (conditions_note(self.config, readings), self._claims_note())
        problem = " ".join(p for p in (problem, *notes) if p)
        request = EscalationRequest(
            f"{self.session_id}-e{memory.escalations}",
            self.session_id,
            trigger,
            memory.origin.value,
            tuple(self.transcript[-3:]),
            {**self._ledger_snapshot(), **position(self.config, readings)},
            problem,
            escalation_options(self.config, self._options_by_trigger[trigger.value], boundary),
            "Approve one option by its letter, or provide alternative guidance.",
            dict(boundary or {}),
            tuple(safety),
            self.clock.now(),
        )
        request = with_suggestion(request, self._recall(request))
        memory.pending = request
        self.record("escalation", request.to_json(), f"paused for the principal: {trigger.value}")
        return Step(None, State.ESCALATE, request)

    def _ledger_snapshot(self) -> dict[str, Any]:
        checks = self.tci.checks
        verified = {"verified": {k: c.to_json() for k, c in checks.items()}} if checks else {}
        return {
            "tci": round(self.tci.value, 6),
            "tci_weighted": round(self.tci.weighted, 6),
            "revealed": dict(self.tci.confirmed),
            "soft": {k: list(v) for k, v in self.tci.soft.items()},
            "missing": list(self.tci.missing),
            **verified,
        }

    # -- claims and memory ------------------------------------------------------------------------
    def verify_claims(self) -> None:
        """Check each confirmed claim field whose current value has not been checked yet (GAIA
        §3.3.6); the result goes to the TCI ledger and the audit log. Off without a verifier spec."""
        settings = self.config.verification
        if settings.verifier is None:
            return
        for name in settings.claims:
            value = self.tci.confirmed.get(name)
            done = self.tci.verification(name)
            if value is None or (done is not None and done.value == value):
                continue
            claim = Claim(name, self.config.field(name).label, str(value))
            result = self._check(claim)
            self.tci.record_verification(name, value, result, self.turn)
            self.record(
                "claim_verification",
                {"field": name, "claim": claim.text[:200], **result.to_json()},
                f"{name} {result.status.value} by {result.source}",
            )

    def _check(self, claim: Claim) -> VerificationResult:
        settings = self.config.verification
        if self.verifier is None:
            try:
                self.verifier = load_verifier(str(settings.verifier), timeout=settings.timeout)
            except ParleyError as error:  # fail closed: a verifier that cannot be built verifies nothing
                detail = f"verifier unavailable: {str(error)[:160]}"
                return VerificationResult(VerificationStatus.UNVERIFIED, detail, str(settings.verifier)[:80])
        return check_claim(self.verifier, claim, timeout=settings.timeout + 1.0)

    def _claims_note(self) -> str:
        """One sentence on the checked claims (empty when none were checked)."""
        checks = self.tci.checks
        if not checks:
            return ""
        said = "; ".join(
            f"{name} {str(c.value)[:80]!r} {c.result.status.value}" for name, c in checks.items()
        )
        return f"Claim checks: {said}."

    def _recall(self, request: EscalationRequest) -> Suggestion | None:
        """What the principal's earlier sessions suggest (the last decider here, if any, first)."""
        if self.recall is None:
            return None
        decisions = [e.payload for e in self.trajectory.of_kind("decision")]
        deciders = [d.decided_by for d in decisions if isinstance(d, Decision)]
        return self.recall.suggest(self.config, request, principal=deciders[-1] if deciders else None)

    def end(self, target: State, rationale: str) -> Step:
        """End the session in target (NO_DEAL or STALL) without a closing message."""
        self.transition(Action.DECLINE, target, rationale)
        self.record("session_ended", {"state": target.value, "terms": self.terms}, rationale)
        return Step(None, target)

    # -- authority ------------------------------------------------------------------------------
    def band(self, term_name: str) -> tuple[float | None, float | None]:
        """The authorised (minimum, maximum) for a term, as widened by the principal."""
        term = self.config.boundary.term(term_name)
        return self.memory.limits.get(term_name, (term.minimum, term.maximum))

    def term_name(self) -> str:
        """The boundary term under negotiation, given what has been revealed."""
        return negotiation_term(self.config, self.tci.confirmed)
