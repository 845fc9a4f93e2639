"""Pure helpers for the delegate's offers: which term is negotiated, opening ranges, asks, summaries."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from parley.governance.attribution import match_term
from parley.governance.config import DomainConfig
from parley.governance.drafting import format_amount, format_range, nice_step
from parley.governance.escalation import EscalationOption
from parley.governance.extraction import FieldValue
from parley.governance.text import sentences
from parley.governance.values import find_money

Band = tuple[float | None, float | None]


def negotiation_term(config: DomainConfig, confirmed: Mapping[str, FieldValue]) -> str:
    """The boundary term under negotiation, switched by revealed values (e.g. contract → hourly rate)."""
    for condition, term_name in config.negotiation.term_when.items():
        field_name, value = condition.split("=", 1)
        if str(confirmed.get(field_name, "")) == value:
            return term_name
    return config.negotiation.term


def opening_range(config: DomainConfig, term_name: str, band: Band) -> dict[str, Any]:
    """The first non-binding range: the configured share of the band, rounded down to a round step."""
    low, high = band
    base_low = low if low is not None else 0.0
    base_high = high if high is not None else base_low
    step = nice_step(base_high - base_low)
    negotiation = config.negotiation
    opening_low = base_low + negotiation.opening_low * (base_high - base_low)
    opening_high = base_low + negotiation.opening_high * (base_high - base_low)
    return {
        "term": term_name,
        "low": float((opening_low // step) * step),
        "high": float(min(base_high, (opening_high // step) * step)),
    }


def counterparty_ask(config: DomainConfig, message: str, term_name: str) -> float | None:
    """The amount the counterparty names for term_name (the low end of a range), if any."""
    for sentence in sentences(message):
        for mention in find_money(sentence):
            term = match_term(config, sentence, mention)
            if term is not None and term.name == term_name:
                return mention.low
    return None


def terms_text(config: DomainConfig, terms: Mapping[str, Any]) -> str:
    """Agreed terms as a message shows them ("annual salary $105K")."""
    names = {t.name for t in config.boundary.terms}
    parts = [
        f"{config.boundary.term(name).label} {format_amount(float(value), config.boundary.term(name).unit)}"
        for name, value in terms.items()
        if name in names
    ]
    return "; ".join(parts) or "terms as discussed"


def recap_text(
    config: DomainConfig, confirmed: Mapping[str, FieldValue], proposal: Mapping[str, Any] | None
) -> str:
    """A short recap of what is known and what is on the table."""
    known = [config.field(name).label for name in confirmed]
    text = f"you shared your {', '.join(known[:4])}" if known else "we have just started"
    if proposal is not None:
        term = config.boundary.term(str(proposal["term"]))
        text += f", and we're exploring {format_range(proposal['low'], proposal['high'], term.unit)}"
    return text


def describe(config: DomainConfig, name: str, value: FieldValue) -> str:
    """A field value as a person reads it (the band label for an option name)."""
    for band in config.field(name).bands:
        if band.option is not None and band.option == value:
            return band.label.lower()
    return str(value)


def escalation_options(
    config: DomainConfig, raw_options: list[dict[str, str]], boundary: Mapping[str, Any] | None
) -> tuple[EscalationOption, ...]:
    """The options of one trigger (package data), filled with the boundary at risk."""
    term = config.boundary.term(str(boundary["term"])) if boundary else None
    fill = {
        "counterparty_role": config.counterparty_role,
        "limit": format_amount(float(boundary["maximum"]), term.unit) if boundary and term else "",
        "ask": format_amount(float(boundary["ask"]), term.unit) if boundary and term else "",
    }
    return tuple(
        EscalationOption(
            chr(ord("A") + i),
            raw["title"].format(**fill),
            raw["trade_offs"].format(**fill),
            raw["effect"],
            dict(boundary or {}),
        )
        for i, raw in enumerate(raw_options)
    )
