"""Pure helpers for the delegate's offers: which term is negotiated, opening ranges, asks, summaries."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from parley.governance.config import DomainConfig
from parley.governance.drafting import format_amount, format_range, nice_step
from parley.governance.escalation import EscalationOption
from parley.governance.extraction import FieldValue
from parley.governance.terms import reader_for

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
    """The amount the counterparty states for term_name as its own (the low end of a range), if any.

    Read by the term reader: a competing offer it reports, the principal's figure quoted back ("is
    $100K really your ceiling?"), another term's value ("provided the relocation package of 20k is
    included") or a figure it corrects ("sorry, I meant 95") is not its ask.
    """
    stated = reader_for(config).read(message).get(term_name)
    return float(stated.value) if stated is not None and isinstance(stated.value, float) else None


def terms_text(config: DomainConfig, terms: Mapping[str, Any]) -> str:
    """Agreed terms as a message shows them, without a closing period: "annual salary $105K", and any
    other terms one sentence each ("...$87K. That would come with a signing bonus of $3K. It would
    also come with 2 remote days a week"), the form the preflight and the term reader read term by term.
    """
    money = [n for n in terms if n in {t.name for t in config.boundary.terms if t.kind == "money"}]
    others = {n: v for n, v in terms.items() if n not in money and _label(config, n)}
    head = "; ".join(f"{_label(config, name)} {value_text(config, name, terms[name])}" for name in money)
    if not others:
        return head or "terms as discussed"
    return (
        f"{head}. {package_text(config, others)}".removesuffix(".") if head else package_text(config, others)
    )


def _label(config: DomainConfig, name: str) -> str:
    """A term's label ("" for a name the domain does not know)."""
    for term in config.boundary.terms:
        if term.name == name:
            return term.label
    for spec in config.terms:
        if spec.name == name and spec.kind is not None:
            return spec.label or name.replace("_", " ")
    return config.field(name).label if name in config.field_names else ""


def _unit(config: DomainConfig, name: str) -> tuple[str | None, bool]:
    """A term's unit and whether it is money."""
    for term in config.boundary.terms:
        if term.name == name:
            return term.unit, term.kind == "money"
    for spec in config.terms:
        if spec.name == name and spec.kind is not None:
            return spec.unit, spec.kind == "money"
    if name in config.field_names:
        return config.field(name).unit, config.field(name).kind == "money"
    return None, False


def option_text(config: DomainConfig, name: str, option: str) -> str:
    """An option as a message names it: the first phrase of its lexicon ("net 90"), else its name."""
    lexicons = [spec.options for spec in config.terms if spec.name == name]
    if name in config.field_names:
        lexicons.append(config.field(name).options)
    for lexicon in lexicons:
        if lexicon.get(option):
            return lexicon[option][0]
    return option.replace("_", " ")


def value_text(config: DomainConfig, name: str, value: Any) -> str:
    """One term's value as a message shows it: "$85K", "$2,000", "4 weeks", "net 90"."""
    if isinstance(value, str):
        return option_text(config, name, value)
    unit, money = _unit(config, name)
    if money:
        return format_amount(float(value), unit)
    return f"{float(value):g} {unit}" if unit else f"{float(value):g}"


def term_phrase(config: DomainConfig, name: str, value: Any) -> str:
    """One term as an offer states it: the preference's phrase ("a signing bonus of $2,000", "2 remote
    days a week"), "no <label>" for nothing, else "a <label> of <value>"."""
    if not isinstance(value, str) and float(value) == 0.0:
        return f"no {_label(config, name)}"
    phrase = next((p.phrase for p in config.negotiation.preferences if p.term == name and p.phrase), "")
    unit, money = _unit(config, name)
    bare = option_text(config, name, value) if isinstance(value, str) else f"{float(value):g}"
    amount = format_amount(float(value), unit) if money and not isinstance(value, str) else bare
    text = value_text(config, name, value)
    return (phrase or "a {label} of {text}").format(
        value=bare, amount=amount, label=_label(config, name), text=text
    )


def package_text(config: DomainConfig, package: Mapping[str, Any]) -> str:
    """Terms besides the amount as an offer states them, one sentence each ("That would come with a
    signing bonus of $2K. It would also come with 2 remote days a week."); empty for none."""
    parts = [term_phrase(config, name, value) for name, value in package.items()]
    return " ".join(
        f"{'That would come with' if i == 0 else 'It would also come with'} {part}."
        for i, part in enumerate(parts)
    )


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
