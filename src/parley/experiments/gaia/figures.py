"""An audit of the figures a delegate sent, read back from its trajectory: none beyond the principal's
authority, none equal to one of its private limits unless the principal approved that figure or the
counterparty named it first, and no offer beyond what the counterparty asked on a term where more
is worse for the principal.

The figures are read as the preflight reads them (`draft.parse`, `draft.attribute_amounts`); the
counterparty's figures with the term reader. The delegate's offers are the moves of its
`negotiation_strategy` events; a legacy session has none, so its ranges are checked against the
counterparty's asks directly.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from parley.governance.config import DomainConfig
from parley.governance.draft import attribute_amounts, parse
from parley.governance.strategy import preferences
from parley.governance.terms import reader_for
from parley.governance.values import find_money
from parley.protocol.artefact import Agreement
from parley.protocol.events import Event
from parley.protocol.governed import (
    AuthorizationChange,
    CounterpartyMessage,
    Decision,
    DelegateMessage,
    DraftRecord,
    Escalation,
    Question,
)
from parley.protocol.payloads import DelegateAgreement

_APPROVING = ("counter_at_limit", "raise_limit", "counter_at_guidance", "approve_terms", "approve_draft")
"""Decision effects that name a figure the principal approved (or approve a draft as written)."""


@dataclass(frozen=True, slots=True)
class FigureProblem:
    """One figure a delegate message should not have carried.

    Attributes:
        turn: The counterparty turn it was sent at.
        term: The boundary term.
        value: The figure, in the term's unit.
        rule: "beyond_authority", "private_limit" or "beyond_ask".
        text: The message.
    """

    turn: int
    term: str
    value: float
    rule: str
    text: str


@dataclass(slots=True)
class _Audit:
    config: DomainConfig
    limits: dict[str, tuple[float | None, float | None]]
    private: dict[str, set[float]]
    approved: dict[str, set[float]] = field(default_factory=lambda: {})
    named: dict[str, set[float]] = field(default_factory=lambda: {})
    asks: dict[str, float] = field(default_factory=lambda: {})
    requests: dict[str, Escalation] = field(default_factory=lambda: {})
    approved_draft: bool = False
    problems: list[FigureProblem] = field(default_factory=lambda: [])

    def read_counterparty(self, text: str) -> None:
        for stated in reader_for(self.config).read(text).terms:
            if stated.term in self.limits and isinstance(stated.value, float):
                values = {stated.value, *((stated.high,) if stated.high is not None else ())}
                self.named.setdefault(stated.term, set()).update(values)
                if not self._beyond_best(stated.term, stated.value):
                    self.asks[stated.term] = stated.value  # (below the band: confirmed first, see strategy)

    def decide(self, decision: Decision) -> None:
        request = self.requests.get(decision.request_id)
        effects = {o.key: o.effect for o in request.options} if request is not None else {}
        effect = effects.get(str(decision.option), "")
        boundary = request.boundary_at_risk if request is not None else {}
        term = str(boundary.get("term", ""))
        if effect == "counter_at_limit" and boundary.get("maximum") is not None:
            self.approved.setdefault(term, set()).add(float(boundary["maximum"]))
        if effect == "raise_limit" and boundary.get("ask") is not None:
            self.approved.setdefault(term, set()).add(float(boundary["ask"]))
        if effect == "counter_at_guidance" or (decision.guidance and term):
            self.approved.setdefault(term, set()).update(m.high for m in find_money(decision.guidance))
        self.approved_draft = effect in _APPROVING

    def agree(self, terms: Mapping[str, Any]) -> None:
        for name, value in terms.items():
            if isinstance(value, int | float):
                self.approved.setdefault(name, set()).add(float(value))

    def widen(self, change: AuthorizationChange) -> None:
        self.limits[change.term] = (change.minimum, change.maximum)
        self.private.setdefault(change.term, set()).update(
            v for v in (change.minimum, change.maximum) if v is not None
        )

    def check(self, turn: int, text: str, offer: Mapping[str, Any] | None) -> None:
        approved, self.approved_draft = self.approved_draft, False
        # The engagement's name ("office space for a 40-person team") is no figure the delegate states.
        read = parse(text.replace(self.config.subject, "it"), self.config.non_binding_phrases, max_chars=None)
        for found in attribute_amounts(read, self.config):
            for value in {found.low, found.high}:
                self._judge(turn, found.term, value, text, approved, offer)

    def _judge(
        self, turn: int, term: str, value: float, text: str, approved: bool, offer: Mapping[str, Any] | None
    ) -> None:
        low, high = self.limits.get(term, (None, None))
        outside = (low is not None and value < low - 1e-9) or (high is not None and value > high + 1e-9)
        echoed = any(abs(value - v) < 1e-9 for v in self.named.get(term, ()))  # its own figure, quoted
        if outside and not (approved or echoed):
            self.problems.append(FigureProblem(turn, term, value, "beyond_authority", text))
        private = any(abs(value - limit) < 1e-9 for limit in self.private.get(term, ()))
        granted = any(abs(value - v) < 1e-9 for v in self.approved.get(term, ()))
        if private and not (echoed or granted or approved):
            self.problems.append(FigureProblem(turn, term, value, "private_limit", text))
        ask = self.asks.get(term)
        if offer is not None and ask is not None and not granted and self._worse_than_ask(term, value, ask):
            self.problems.append(FigureProblem(turn, term, value, "beyond_ask", text))

    def _beyond_best(self, term: str, value: float) -> bool:
        """Whether a figure is better for the principal than its band allows (not taken as an ask)."""
        low, high = self.limits.get(term, (None, None))
        if self._better(term) == "lower":
            return low is not None and value < low - 1e-9
        return high is not None and value > high + 1e-9

    def _better(self, term: str) -> str:
        better = next((p.better for p in preferences(self.config) if p.term == term), None)
        return better or ("lower" if self.config.negotiation.principal_pays else "higher")

    def _worse_than_ask(self, term: str, value: float, ask: float) -> bool:
        """Whether an offered value is worse for the principal than what the counterparty asked."""
        return value > ask + 1e-9 if self._better(term) == "lower" else value < ask - 1e-9


def figure_problems(config: DomainConfig, events: Iterable[Event]) -> list[FigureProblem]:
    """The figures of a session's delegate messages that break the rules above (empty: none).

    Every delegate message but a question (a screening question's figures are the answer bands of the
    domain's question ontology; a re-confirmation quotes the counterparty) is checked for the first
    two rules; an offer (a proposal, from either
    strategy) also for the third: an offer's figure for a term must not be worse for the principal
    than the counterparty's latest ask for it, unless the principal approved that figure.
    """
    audit = _Audit(
        config,
        {t.name: (t.minimum, t.maximum) for t in config.boundary.terms},
        {t.name: {v for v in (t.minimum, t.maximum) if v is not None} for t in config.boundary.terms},
    )
    offer: Mapping[str, Any] | None = None
    question = False  # a screening question: its figures are answer bands of the ontology, not ours
    for event in events:
        payload = event.payload  # (data no payload type fits is skipped)
        if isinstance(payload, CounterpartyMessage):
            audit.read_counterparty(payload.text)
        elif isinstance(payload, Escalation):
            audit.requests[payload.request_id] = payload
        elif isinstance(payload, Decision):
            audit.decide(payload)
        elif isinstance(payload, AuthorizationChange):
            audit.widen(payload)
        elif isinstance(payload, Agreement | DelegateAgreement):
            audit.agree(payload.terms)
        elif isinstance(payload, DraftRecord) and payload.intent == "proposal":
            offer = {}
        elif isinstance(payload, Question) or (
            isinstance(payload, DraftRecord) and payload.intent == "reconfirm"
        ):
            question = True  # a re-confirmation quotes the two values the counterparty gave
        elif isinstance(payload, DelegateMessage):
            if not question:
                audit.check(event.round, payload.text, offer)
            offer, question = None, False
    return audit.problems
