"""The terms a domain's counterparty may state, gathered once from its config for the term reader.

Every boundary term, every required field with a value the reader can read (money, counts, durations,
dates, options) and every extra `TermSpec` of the config becomes one `TermDef` with its canonical unit,
keywords, options and usual magnitude. A field that a boundary term covers is read under the term's
name (`compensation` is read as `annual_salary` or `hourly_rate`), so a message's terms and the
boundary speak one vocabulary.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Mapping
from dataclasses import dataclass, replace
from typing import Literal

from parley.governance.config import BoundaryTerm, DomainConfig, FieldSpec, TermSpec

TermShape = Literal["money", "count", "duration", "percent", "date", "enum"]
DURATION_UNITS = frozenset({"days", "weeks", "months", "years", "workdays"})
"""Units that make a quantity a duration ("a deposit of 2 months")."""


@dataclass(frozen=True, slots=True)
class TermDef:
    """One term the reader can attribute a value to.

    Attributes:
        name: Term name (a boundary term, a field, or an extra term of the config).
        label: What a person calls it.
        shape: "money", "count", "duration", "percent", "date" or "enum".
        unit: Canonical unit: a money rate ("year", "month", "hour", "unit"; None for a lump sum), a
            count unit ("units", "sqft", "spaces", "days/week") or a duration unit ("weeks", "months",
            "days", "workdays").
        keywords: Words that tie a figure to the term.
        field: The required field the term informs (None for an extra term).
        options: Option → phrases (enumerated terms).
        patterns: (option, pattern) pairs; "{1}" in the option takes the first group.
        typical: Usual magnitude in the canonical unit (low, high), or None.
        implies: Values of other terms a stated value implies (stated with it).
        restate: For a lump sum: ("as", "per") terms, restating it as a multiple of another term.
        negotiated: Whether the term is the one bargained over (or its alternative by contract type).
        switches: Values of other terms a stated value lets the delegate infer without their being
            stated (`negotiation.term_when`: an hourly rate says the contract is by the hour).
    """

    name: str
    label: str
    shape: TermShape
    unit: str | None = None
    keywords: tuple[str, ...] = ()
    field: str | None = None
    options: Mapping[str, tuple[str, ...]] = dataclasses.field(default_factory=lambda: {})
    patterns: tuple[tuple[str, re.Pattern[str]], ...] = ()
    typical: tuple[float, float] | None = None
    implies: Mapping[str, str] = dataclasses.field(default_factory=lambda: {})
    restate: tuple[str, str] | None = None
    negotiated: bool = False
    switches: Mapping[str, str] = dataclasses.field(default_factory=lambda: {})


_SHAPES: dict[str, TermShape] = {
    "money": "money",
    "duration": "duration",
    "percent": "percent",
    "date": "date",
    "enum": "enum",
}


def _shape(kind: str, unit: str | None) -> TermShape | None:
    if kind == "quantity":
        return "duration" if unit in DURATION_UNITS else "count"
    return _SHAPES.get(kind)


def _band(low: float | None, high: float | None) -> tuple[float, float] | None:
    """A usual magnitude from a band with one or two ends (one end: a factor of four on the other side)."""
    if low is None and high is None:
        return None
    if low is None:
        assert high is not None
        return high / 4.0, high
    return low, high if high is not None else low * 4.0


def _field_band(spec: FieldSpec) -> tuple[float, float] | None:
    """A usual magnitude from a field's answer bands, leaving out their open ends."""
    lows = [b.low for b in spec.bands if b.low is not None and b.low > 0]
    highs = [b.high for b in spec.bands if b.high is not None]
    if not lows and not highs:
        return None
    low = min(lows) / 2.0 if lows else min(highs) / 4.0
    high = max(lows) * 4.0 if lows else max(highs)
    return low, high


def _from_boundary(config: DomainConfig, term: BoundaryTerm, negotiated: set[str]) -> TermDef | None:
    shape = _shape(term.kind, term.unit)
    if shape is None:
        return None
    spec = config.field(term.field) if term.field is not None else None
    options = dict(spec.options) if spec is not None and shape == "enum" else {}
    keywords = tuple(term.keywords)
    if spec is not None and spec.kind != "money":
        keywords += tuple(spec.keywords)
    return TermDef(
        term.name,
        term.label,
        shape,
        term.unit,
        keywords,
        term.field,
        options,
        typical=_band(term.minimum, term.maximum),
        negotiated=term.name in negotiated,
    )


def _from_field(spec: FieldSpec) -> TermDef | None:
    shape = _shape(spec.kind, spec.unit)
    if shape is None:
        return None
    unit = spec.unit if shape != "date" else None
    typical = _field_band(spec) if shape in ("money", "count", "duration") else None
    return TermDef(
        spec.name, spec.label, shape, unit, tuple(spec.keywords), spec.name, dict(spec.options), (), typical
    )


def _compile(patterns: Mapping[str, str]) -> tuple[tuple[str, re.Pattern[str]], ...]:
    return tuple((option, re.compile(regex, re.IGNORECASE)) for option, regex in patterns.items())


def _extend(base: TermDef, spec: TermSpec) -> TermDef:
    options = {name: tuple(phrases) for name, phrases in base.options.items()}
    for name, phrases in spec.options.items():
        options[name] = (*options.get(name, ()), *phrases)
    return replace(
        base,
        label=spec.label or base.label,
        keywords=(*base.keywords, *spec.keywords),
        options=options,
        patterns=(*base.patterns, *_compile(spec.patterns)),
        typical=spec.typical or base.typical,
        implies={**base.implies, **spec.implies},
        restate=_restate(spec) or base.restate,
    )


def _restate(spec: TermSpec) -> tuple[str, str] | None:
    return (spec.restate["as"], spec.restate["per"]) if spec.restate else None


def _new(spec: TermSpec) -> TermDef:
    assert spec.kind is not None  # checked when the config was loaded
    shape = _shape(spec.kind, spec.unit)
    assert shape is not None
    return TermDef(
        spec.name,
        spec.label or spec.name.replace("_", " "),
        shape,
        spec.unit,
        tuple(spec.keywords),
        None,
        {name: tuple(phrases) for name, phrases in spec.options.items()},
        _compile(spec.patterns),
        spec.typical,
        dict(spec.implies),
        _restate(spec),
    )


def build_vocabulary(config: DomainConfig) -> tuple[TermDef, ...]:
    """Every term of config the reader can read, boundary terms first."""
    negotiated = {config.negotiation.term, *config.negotiation.term_when.values()}
    terms: dict[str, TermDef] = {}
    for term in config.boundary.terms:
        made = _from_boundary(config, term, negotiated)
        if made is not None:
            terms[term.name] = made
    covered = {t.field for t in config.boundary.terms if t.field is not None}
    for spec in config.fields:
        made = _from_field(spec) if spec.name not in covered else None
        if made is not None:
            terms[spec.name] = made
    for extra in config.terms:
        if extra.name in terms:
            terms[extra.name] = _extend(terms[extra.name], extra)
        elif extra.kind is not None:
            terms[extra.name] = _new(extra)
    return tuple(_with_no_remote(_abbreviated(t)) for t in _with_switches(config, terms).values())


_ABBREVIATIONS: Mapping[str, tuple[str, ...]] = {
    "quantity": ("qty", "menge", "stuckzahl", "cantidad", "quantite", "quantita"),
    "minimum order": ("min order",),
    # A tenancy begins with the keys, its commencement or its start ("keys by March 1st", "lease
    # commencement 2027-05-01", "start of lease 1.2.2027", "we could start the lease on 15 March"); not
    # "the lease starts no later than May 1", a deadline the spent sets label as a condition on no term.
    "move-in": (
        "keys",
        "commencement",
        "start of lease",
        "start of the lease",
        "start the lease",
        # The keys handed over, the tenant moving in, or the same words in German and French ("Key
        # handover 1 April", "if we moved in on 1 February", "Einzug 1. Januar", "Mietbeginn wäre der
        # 1. Februar", "l'entrée dans les lieux le 1er mars").
        "handover",
        "hand-over",
        "moved in",
        "moving in",
        "einzug",
        "mietbeginn",
        "entree dans les lieux",  # matched on the normalised text, without accents
        "start",
        "yours from",
    ),
    # The same words in German, French, Spanish and Italian, as the normalised text writes them (without
    # accents): "30 Urlaubstage", "2 mietfreie Monate", "Menge 5.000", "Lieferung in 4 Wochen".
    # A start or a move-in in German, French, Spanish and Italian, as the normalised text writes them
    # ("Startdatum 15. Februar", "wenn er im April anfangt", "Debut possible le 4 janvier", "Puedo
    # empezar el 1 de marzo", "entree le 1er mars", "Queremos entrar el 1 de febrero").
    "start": (
        "startdatum",
        "arbeitsbeginn",
        "eintritt",
        "anfangen",
        "anfangt",
        "beginnen",
        "debut",
        "commencer",
        "empezar",
        "comenzar",
        "incorporarme",
        "iniziare",
    ),
    "move in": ("entree", "entrar", "einziehen"),
    "pto": ("urlaubstage", "urlaub", "conges payes", "vacaciones", "ferie"),
    "rent-free": ("mietfrei", "mietfreie", "mietfreien", "franchise de loyer"),
    "deposit": ("kaution", "depot de garantie"),
    # Money toward the works names the allowance by the works themselves ("will contribute $45,000
    # towards the fit-out", "40.000 EUR to fit-out costs", "$60,000 toward the build-out").
    "fit-out allowance": (
        *(
            f"{to} {works}"
            for to in ("towards the", "toward the", "to the", "towards", "toward", "to")
            for works in ("fit-out", "fit out", "build-out", "build out")
        ),
        "fit-out costs",
        "build-out costs",
    ),
    "delivery": ("lieferung", "lieferzeit", "livraison", "entrega", "consegna"),
}
"""Shorthand and synonyms writers use for a keyword ("qty 60k", "min order 5k", "the keys by March 1"),
and the same keyword in the languages counterparties write in: the term is named by them too."""


_OPTION_SYNONYMS: Mapping[str, tuple[str, ...]] = {
    # A job done at the workplace every day ("an onsite job", "in-office role", "on site five days a week").
    "onsite": (
        "onsite job",
        "on-site job",
        "in-office job",
        "in-office role",
        "in-office position",
        "on site five days",
        "onsite five days",
        "on site 5 days",
        "onsite 5 days",
        "five days in the office",
        "5 days in the office",
    ),
    # A place handed over as it stands, its fit-out the tenant's to pay ("handed over as it is", "in its
    # current shell condition", "the fit-out is at the tenant's expense").
    "as_is": (
        "as it is",
        "as it stands",
        "current condition",
        "current shell condition",
        "existing condition",
        "present condition",
        "tenant's expense",
        "tenant's cost",
        "tenant's own cost",
        "at the tenant's expense",
        "does the fit-out at its own cost",
        "covers the fit-out themselves",
        "covers the fit-out",
        "a la charge du preneur",
    ),
    # Work on contract, through an agency, or "for contractors".
    "contract": ("on contract", "agency contract", "contractors"),
    # A contract without an end ("contract unlimited", "unbefristeter Vertrag", "CDI").
    "permanent": (
        "contract unlimited",
        "unlimited contract",
        "unbefristet",
        "unbefristeter",
        "unbefristeten",
    ),
}
"""Phrases that name an option of an enumerated term in any domain that has that option."""


_NO_REMOTE_DAYS = re.compile(
    r"\bon-?\s?site (?:(?:five|5) days(?: a week| per week)?|full[- ]?time|every (?:working )?day)\b",
    re.IGNORECASE,
)
"""Work at the workplace all week ("onsite five days a week", "on site full-time"): no remote days."""


def _with_no_remote(term: TermDef) -> TermDef:
    """A count of remote days a week that has a pattern for none gets the forms of a full week on site."""
    if term.unit != "days/week" or not any(option == "0" for option, _ in term.patterns):
        return term
    return replace(term, patterns=(*term.patterns, ("0", _NO_REMOTE_DAYS)))


def _abbreviated(term: TermDef) -> TermDef:
    """term with the shorthand and synonyms of its keywords (`_ABBREVIATIONS`) among its keywords, and
    the phrases of its options (`_OPTION_SYNONYMS`) among its options'."""
    extra = [a for k in term.keywords for a in _ABBREVIATIONS.get(k.lower(), ()) if a not in term.keywords]
    options = {
        name: (*phrases, *(p for p in _OPTION_SYNONYMS.get(name, ()) if p not in phrases))
        for name, phrases in term.options.items()
    }
    # A synonym names its term as the option's own phrase does not always: it is a keyword too, so the
    # option stands without another word of the term beside it ("handed over as it is").
    named = [p for name in term.options for p in _OPTION_SYNONYMS.get(name, ()) if p not in term.keywords]
    keywords = (*term.keywords, *dict.fromkeys(extra), *dict.fromkeys(p for p in named if p not in extra))
    return replace(term, keywords=keywords, options=options)


def _with_switches(config: DomainConfig, terms: dict[str, TermDef]) -> dict[str, TermDef]:
    """An alternative negotiated term implies the condition that switches to it (`negotiation.term_when`:
    an hourly rate asked says the contract is by the hour, so the delegate need not wait to be told)."""
    for condition, name in config.negotiation.term_when.items():
        field_name, _, option = condition.partition("=")
        target = terms.get(field_name)
        if name in terms and target is not None and option in target.options:
            terms[name] = replace(terms[name], switches={field_name: option})
    return terms
