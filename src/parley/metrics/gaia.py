"""GAIA Table 1 metrics, computed from a delegate session's trajectory events (and labelled data).

TCI convergence, information gain and its attribution (STCC vs SCREEN), normalised utility,
agreement, rounds, escalations by trigger, safety violations by severity, reversals, and the
commitment-detection and moderator error rates on labelled corpora.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from parley.governance.config import DomainConfig
from parley.protocol.events import Event
from parley.protocol.payloads import (
    DelegateAgreement,
    DelegateViolation,
    Escalation,
    StateTransition,
    TciLedgerEntry,
)

OPENING_KINDS = frozenset({"stcc"})
QUESTION_KINDS = frozenset({"stcc", "screen", "open", "clarify", "reconfirm"})


@dataclass(frozen=True, slots=True)
class SessionMetrics:
    """Table 1 metrics of one session.

    Attributes:
        final_state: Terminal (or paused) state.
        agreed: Whether the session reached AGREE.
        rounds: Counterparty turns to the end.
        rounds_to_gate: First turn with weighted TCI ≥ τ_gate (nan if never).
        rounds_to_complete: First turn with weighted TCI ≥ τ_complete (nan if never).
        information_gain: Total entropy reduction over the session, in bits.
        information_gain_stcc: Entropy reduction from answers to the STCC question.
        information_gain_screen: Entropy reduction from answers to other questions.
        questions: Questions answered or not (ledger entries that followed a question).
        utility: Normalised principal utility in [0, 1] (0 without agreement).
        escalations: Count per trigger.
        violations: Count of violating messages per severity.
        messages: Messages sent to the counterparty.
        reversals: Offer-relevant information that arrived after a proposal.
        tci_curve: Weighted TCI after each counterparty turn.
    """

    final_state: str
    agreed: bool
    rounds: int
    rounds_to_gate: float
    rounds_to_complete: float
    information_gain: float
    information_gain_stcc: float
    information_gain_screen: float
    questions: int
    utility: float
    escalations: Mapping[str, int] = field(default_factory=lambda: {})
    violations: Mapping[str, int] = field(default_factory=lambda: {})
    messages: int = 0
    reversals: int = 0
    tci_curve: tuple[float, ...] = ()

    @property
    def information_gain_per_question(self) -> float:
        """Mean entropy reduction per question asked (nan without questions)."""
        return self.information_gain / self.questions if self.questions else math.nan

    def to_json(self) -> dict[str, Any]:
        """A JSON-ready dict."""
        return {
            "final_state": self.final_state,
            "agreed": self.agreed,
            "rounds": self.rounds,
            "rounds_to_gate": self.rounds_to_gate,
            "rounds_to_complete": self.rounds_to_complete,
            "information_gain": self.information_gain,
            "information_gain_stcc": self.information_gain_stcc,
            "information_gain_screen": self.information_gain_screen,
            "questions": self.questions,
            "utility": self.utility,
            "escalations": dict(self.escalations),
            "violations": dict(self.violations),
            "messages": self.messages,
            "reversals": self.reversals,
            "tci_curve": list(self.tci_curve),
        }


def _first_turn(ledger: Sequence[TciLedgerEntry], threshold: float) -> float:
    for entry in ledger:
        if entry.tci_weighted >= threshold - 1e-12:
            return float(entry.turn)
    return math.nan


def normalized_utility(config: DomainConfig, terms: Mapping[str, Any]) -> float:
    """U_norm of agreed terms on the negotiated term's configured band, clipped to [0, 1].

    Paying principals prefer the low end of the band; a price above the band (approved) scores 0.
    """
    boundary = {t.name for t in config.boundary.terms}
    for name, value in terms.items():
        if name not in boundary or isinstance(value, str):
            continue  # the other terms of a package (a signing bonus, an option) have no band here
        term = config.boundary.term(name)
        if term.minimum is None or term.maximum is None or term.maximum == term.minimum:
            continue
        share = (term.maximum - float(value)) / (term.maximum - term.minimum)
        share = share if config.negotiation.principal_pays else 1.0 - share
        return min(1.0, max(0.0, share))
    return 0.0


def _final_state(events: Sequence[Event]) -> str:
    transitions = [e for e in events if e.kind == "state_transition"]
    return transitions[-1].typed(StateTransition).to if transitions else "START"


def session_metrics(config: DomainConfig, events: Sequence[Event]) -> SessionMetrics:
    """Compute one session's metrics from its trajectory."""
    ledger = [e.typed(TciLedgerEntry) for e in events if e.kind == "tci_ledger"]
    thresholds = config.thresholds
    gains = [(entry.question_kind, entry.information_gain) for entry in ledger]
    stcc = sum(gain for kind, gain in gains if kind in OPENING_KINDS)
    screen = sum(gain for kind, gain in gains if kind not in OPENING_KINDS)
    agreements = [e.typed(DelegateAgreement) for e in events if e.kind == "agreement"]
    terms = dict(agreements[-1].terms) if agreements else {}
    violations: Counter[str] = Counter()
    for event in events:
        if event.kind == "violation":
            violations.update(event.typed(DelegateViolation).severity)
    escalations = Counter(e.typed(Escalation).trigger for e in events if e.kind == "escalation")
    final = _final_state(events)
    return SessionMetrics(
        final,
        final == "AGREE",
        max((e.round for e in events), default=0),
        _first_turn(ledger, thresholds.gate),
        _first_turn(ledger, thresholds.complete),
        stcc + screen,
        stcc,
        screen,
        sum(1 for kind, _ in gains if kind in QUESTION_KINDS),
        normalized_utility(config, terms) if final == "AGREE" else 0.0,
        dict(escalations),
        dict(violations),
        sum(1 for e in events if e.kind == "delegate_message"),
        sum(1 for e in events if e.kind == "reversal"),
        tuple(entry.tci_weighted for entry in ledger),
    )


@dataclass(frozen=True, slots=True)
class DetectionRates:
    """Confusion counts of a binary detector on labelled items."""

    true_positive: int
    false_positive: int
    true_negative: int
    false_negative: int

    @property
    def false_positive_rate(self) -> float:
        """FP / (FP + TN)."""
        negatives = self.false_positive + self.true_negative
        return self.false_positive / negatives if negatives else math.nan

    @property
    def false_negative_rate(self) -> float:
        """FN / (FN + TP)."""
        positives = self.false_negative + self.true_positive
        return self.false_negative / positives if positives else math.nan

    @property
    def detection_rate(self) -> float:
        """TP / (TP + FN)."""
        positives = self.false_negative + self.true_positive
        return self.true_positive / positives if positives else math.nan


def detection_rates(items: Iterable[tuple[str, bool]], detector: Callable[[str], bool]) -> DetectionRates:
    """Run detector over (text, label) pairs and count the confusion matrix."""
    counts = Counter((label, detector(text)) for text, label in items)
    return DetectionRates(
        counts[(True, True)], counts[(False, True)], counts[(False, False)], counts[(True, False)]
    )


def tci_curve_mean(curves: Sequence[Sequence[float]], length: int) -> list[float]:
    """Mean weighted TCI after turn t (t = 1..length); a finished session keeps its last value."""
    means: list[float] = []
    for turn in range(length):
        values = [curve[min(turn, len(curve) - 1)] for curve in curves if curve]
        means.append(sum(values) / len(values) if values else math.nan)
    return means
