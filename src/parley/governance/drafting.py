"""Drafting outgoing messages: a `Drafter` protocol and a template drafter with a seeded slip model.

The slip model stands in for an imperfect (LLM) drafter: with probability `slip_rate` a proposal
comes out binding, out of band, echoing the counterparty's ask, or raising a forbidden topic. Each
draft carries its ground-truth slip labels so safety violations can be measured independently of
the preflight that is meant to catch them.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol, runtime_checkable

import numpy as np

from parley.governance.config import BoundaryTerm, DomainConfig, load_yaml_data
from parley.governance.preflight import DeclaredIntent


@dataclass(frozen=True, slots=True)
class Intent:
    """What the delegate wants to say.

    Attributes:
        kind: Template name ("proposal", "counter_at_limit", "recap", ...), or "text" for prepared text.
        values: Template fields.
        term: The boundary term at stake, for proposals and counters.
        amount: The amount put forward (the top of a range), if any.
        ask: The counterparty's last ask on that term, if any.
        prefix: Text to place before the rendered template (a refusal, an acknowledgement).
        suffix: Text to place after it (a persuasion sentence).
        approved: The principal approved binding wording for this message.
        slippable: Whether the slip model may corrupt this draft.
        limit: The currently authorised maximum for term (the configured one unless the principal widened it).
        verbatim: Send the template wording as is (the compliant re-send the principal chose after a
            preflight failure): a drafter that rewords from context must not reword it.
    """

    kind: str
    values: Mapping[str, Any] = field(default_factory=lambda: {})
    term: str | None = None
    amount: float | None = None
    ask: float | None = None
    prefix: str = ""
    suffix: str = ""
    approved: bool = False
    slippable: bool = False
    limit: float | None = None
    verbatim: bool = False

    def to_json(self) -> dict[str, Any]:
        """A JSON-ready dict (held drafts are stored with the session)."""
        return {
            "kind": self.kind,
            "values": dict(self.values),
            "term": self.term,
            "amount": self.amount,
            "ask": self.ask,
            "prefix": self.prefix,
            "suffix": self.suffix,
            "approved": self.approved,
            "slippable": self.slippable,
            "limit": self.limit,
            "verbatim": self.verbatim,
        }

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> Intent:
        """Inverse of to_json."""
        return cls(
            str(data["kind"]),
            dict(data["values"]),
            data["term"],
            data["amount"],
            data["ask"],
            str(data["prefix"]),
            str(data["suffix"]),
            bool(data["approved"]),
            bool(data["slippable"]),
            data.get("limit"),
            bool(data.get("verbatim", False)),
        )


@dataclass(frozen=True, slots=True)
class Draft:
    """A drafted message and its ground-truth slip labels ("binding", "over_boundary", "prohibited").

    Attributes:
        text: The message.
        slips: Ground-truth slip labels of the slip model.
        declared: What the drafter says the message does and which terms it mentions (an LLM
            drafter's structured output); the preflight checks the text against it. None: no
            declaration (template drafts; the text is checked on its own).
    """

    text: str
    slips: tuple[str, ...] = ()
    declared: DeclaredIntent | None = None


class Drafter(Protocol):
    """Turns an intent into message text."""

    def draft(self, intent: Intent, *, injection: bool = False) -> Draft:
        """Draft the message for intent (injection: the last inbound message was a prompt injection)."""
        ...


@dataclass(frozen=True, slots=True)
class DraftContext:
    """What the delegate knows when it drafts: for drafters that write from the situation (an LLM).

    Attributes:
        state: The delegate's state ("SCREEN", "NEGOTIATE", ...).
        turn: Counterparty turn number.
        tci: Unweighted TCI.
        tci_weighted: Weighted TCI.
        confirmed: Confirmed field values.
        soft: Fields with unconfirmed candidate values.
        missing: Required fields not yet confirmed.
        guidance: The merged guidance kept for this message, as (channel, text) pairs.
        last_messages: The most recent messages as (speaker, text), oldest first.
        injection: The last inbound message was labelled a prompt injection.
    """

    state: str
    turn: int
    tci: float
    tci_weighted: float
    confirmed: Mapping[str, Any] = field(default_factory=lambda: {})
    soft: Mapping[str, Sequence[Any]] = field(default_factory=lambda: {})
    missing: tuple[str, ...] = ()
    guidance: tuple[tuple[str, str], ...] = ()
    last_messages: tuple[tuple[str, str], ...] = ()
    injection: bool = False


@runtime_checkable
class ContextualDrafter(Protocol):
    """A `Drafter` that also reads the situation; the delegate calls `draft_in_context` when present."""

    def draft(self, intent: Intent, *, injection: bool = False) -> Draft:
        """Draft without context (the delegate uses this for re-checks of held drafts)."""
        ...

    def draft_in_context(self, intent: Intent, context: DraftContext) -> Draft:
        """Draft the message for intent given the situation."""
        ...


def nice_step(span: float) -> float:
    """A round step for quoting amounts within a band of the given width."""
    if span <= 0:
        return 1.0
    return 10 ** math.floor(math.log10(span)) / 2


def format_amount(value: float, unit: str | None) -> str:
    """Money as a message shows it: "$90K", "$85/hour", "$9,500 per month", "$12.50 per unit"."""
    if unit == "year" or (unit is None and value >= 1000 and value % 1000 == 0):
        return f"${value / 1000:g}K"
    body = f"${value:,.2f}".removesuffix(".00")
    suffix = {"hour": "/hour", "month": " per month", "unit": " per unit"}.get(unit or "", "")
    return body + suffix


def format_range(low: float, high: float, unit: str | None) -> str:
    """A range as a message shows it ("$90K–$100K", "$75–$85/hour")."""
    if low == high:
        return format_amount(high, unit)
    if unit == "year":
        return f"{format_amount(low, unit)}–{format_amount(high, unit)}"
    low_text = f"${low:,.2f}".removesuffix(".00")
    return f"{low_text}–{format_amount(high, unit)}"


class TemplateDrafter:
    """Renders the package templates; optionally slips with a seeded probability.

    Args:
        config: Domain config (subject, roles, templates).
        rng: Random generator (only used when slip_rate > 0).
        slip_rate: Probability that a slippable draft is corrupted.
    """

    def __init__(
        self, config: DomainConfig, rng: np.random.Generator | None = None, slip_rate: float = 0.0
    ) -> None:
        self._config = config
        self._templates = {**load_yaml_data("templates.yaml"), **config.templates}
        self._slips: dict[str, list[str]] = load_yaml_data("slips.yaml")
        self._rng = rng if rng is not None else np.random.default_rng(0)
        self.slip_rate = slip_rate

    def render(self, intent: Intent) -> str:
        """The clean text for intent."""
        values = {
            "subject": self._config.subject,
            "principal_role": self._config.principal_role,
            "extras": "",  # optional in the proposal template: an offer's other terms
            **intent.values,
        }
        body = (
            intent.values["text"] if intent.kind == "text" else self._templates[intent.kind].format(**values)
        )
        return " ".join(part for part in (intent.prefix, body, intent.suffix) if part)

    def draft(self, intent: Intent, *, injection: bool = False) -> Draft:
        clean = self.render(intent)
        rate = min(1.0, self.slip_rate * (2.0 if injection else 1.0))
        if not intent.slippable or rate <= 0.0 or self._rng.random() >= rate:
            return Draft(clean)
        return self._slip(intent, injection)

    def _term(self, intent: Intent) -> BoundaryTerm | None:
        return self._config.boundary.term(intent.term) if intent.term else None

    def _slip(self, intent: Intent, injection: bool) -> Draft:
        term = self._term(intent)
        kinds = ["binding", "over_boundary", "prohibited"] + (["echo"] if intent.ask is not None else [])
        kind = "injection" if injection else kinds[int(self._rng.integers(len(kinds)))]
        amount = intent.amount or 0.0
        unit = term.unit if term else None
        configured = term.maximum if term and term.maximum is not None else amount
        limit = intent.limit if intent.limit is not None else configured
        step = nice_step(limit * 0.08) if limit else 1.0
        over = math.ceil(limit * 1.08 / step) * step if limit else amount
        topics = [p.phrases[0] for p in self._config.boundary.prohibited_topics] or ["exclusivity"]
        fill: dict[str, Any] = {
            "subject": self._config.subject,
            "amount": format_amount(over if kind in ("over_boundary", "injection") else amount, unit),
            "ask": format_amount(intent.ask or amount, unit),
            "topic": topics[int(self._rng.integers(len(topics)))],
        }
        text = self._pick(self._slips[kind]).format(**fill)
        return Draft(" ".join(p for p in (intent.prefix, text) if p), self._labels(kind, intent, limit))

    def _pick(self, options: Sequence[str]) -> str:
        return options[int(self._rng.integers(len(options)))]

    @staticmethod
    def _labels(kind: str, intent: Intent, limit: float) -> tuple[str, ...]:
        if kind == "binding":
            return ("binding",)
        if kind == "over_boundary":
            return ("over_boundary",)
        if kind == "prohibited":
            return ("prohibited",)
        if kind == "injection":
            return ("binding", "over_boundary")
        over = intent.ask is not None and intent.ask > limit
        return ("binding", "over_boundary") if over else ("binding",)

    def rng_state(self) -> dict[str, Any]:
        """The generator state (stored with the session so a resumed session continues identically)."""
        return dict(self._rng.bit_generator.state)

    def restore_rng(self, state: Mapping[str, Any]) -> None:
        """Restore a stored generator state."""
        self._rng.bit_generator.state = dict(state)
