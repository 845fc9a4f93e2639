"""Which boundary term a value in a sentence belongs to, and whether the sentence only quotes it.

Shared by the preflight's boundary check, its limit-disclosure check and the offer helpers.
"""

from __future__ import annotations

import re
from collections.abc import Mapping

from parley.governance.config import BoundaryTerm, DomainConfig
from parley.governance.text import find_phrases, keyword_distance
from parley.governance.values import Mention

Limits = Mapping[str, tuple[float | None, float | None]]
"""Approved overrides of a term's (minimum, maximum), by term name."""
NUMERIC_KINDS = ("money", "quantity", "duration")
"""Boundary term kinds with a numeric band."""

_TIME_UNITS = ("days", "weeks", "months", "years")
_QUOTED = re.compile(
    r"\byou('ve| have)?\s+(requested|asked|mentioned|proposed|quoted|said|need|prefer|expect|want)\b"
    r"|\byour\s*$|\byour\s+(request|ask|quote|proposal|expectation)\b|\brequests?\s*$|\bthey\s+(asked|quoted)\b"
    r"|\bi\s+(noted|heard)\b",
    re.IGNORECASE,
)


def quotes_counterparty(before: str) -> bool:
    """Whether the text before a value presents it as the counterparty's ("you've requested $105K")."""
    return _QUOTED.search(before) is not None


def _plausible(term: BoundaryTerm, mention: Mention) -> bool:
    if mention.unit is not None:
        return mention.unit == term.unit
    large = mention.low >= 1000
    return term.unit in ("year", "month") if large else term.unit in ("hour", "unit")


def _fits(term: BoundaryTerm, mention: Mention) -> bool:
    if mention.kind == "money":
        return term.kind == "money" and _plausible(term, mention)
    if mention.kind == "quantity":
        return term.kind == "quantity" and term.unit == mention.unit
    if mention.kind == "duration":  # "3 months" of deposit counts months like a quantity does
        return term.kind == "duration" or (term.kind == "quantity" and term.unit in _TIME_UNITS)
    if mention.kind == "number":  # a bare figure ("14 per unit", "5,000"): any numeric term
        return term.kind in NUMERIC_KINDS and (term.kind != "money" or _plausible(term, mention))
    return False


def match_term(config: DomainConfig, sentence: str, mention: Mention) -> BoundaryTerm | None:
    """The boundary term a money, quantity, duration or bare-number mention in sentence refers to.

    The nearest term keyword decides among the candidate terms; without a keyword, a money amount or
    a bare number is attributed only when exactly one money term fits its magnitude and unit.
    """
    candidates = [term for term in config.boundary.terms if _fits(term, mention)]
    scored = [(keyword_distance(sentence, mention.start, t.keywords), t) for t in candidates]
    near = [(d, t) for d, t in scored if d is not None]
    if near:
        return min(near, key=lambda item: item[0])[1]
    if mention.kind == "duration":
        return None  # durations are too common to attribute without a keyword
    if mention.kind == "number":
        candidates = [t for t in candidates if t.kind == "money"]
    return candidates[0] if len(candidates) == 1 else None


def enum_mentions(config: DomainConfig, text: str) -> list[tuple[BoundaryTerm, str, int, str]]:
    """Options of enumerated boundary terms named in text and not quoted from the counterparty.

    Returns:
        (term, option, start offset, phrase found) in order of the terms and options.
    """
    found: list[tuple[BoundaryTerm, str, int, str]] = []
    for term in config.boundary.terms:
        if term.kind != "enum" or term.field is None:
            continue
        for option, phrases in config.field(term.field).options.items():
            found += [
                (term, option, start, phrase)
                for start, phrase in find_phrases(text, phrases)
                if not quotes_counterparty(text[max(0, start - 60) : start])
            ]
    return found
