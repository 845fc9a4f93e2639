"""Typed value mentions found in free text: money, quantities, durations, dates and time zones.

Pure functions over one text; field assignment and confidence live in `extraction`.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from parley.governance.amounts import Amount, find_amounts

# A figure starts where a digit run starts: tried inside a run ("1111…") each start rescanned the rest
# of the run, quadratic in it (red team 15); a group of thousands starts after no digit and no comma.
_NUMBER = r"((?<![\d,])\d{1,3}(?:,\d{3})+|(?<!\d)\d+(?:\.\d+)?)"
_QUANTITY = re.compile(
    _NUMBER + r"\s*(units?|pieces?|pcs|bars?|sq\.?\s?ft|square feet|sqft|sf\b|parking spaces|spaces|stalls|"
    r"months?(?:'|’)?\s+(?:of\s+rent|rent|deposit|security))",
    re.IGNORECASE,
)
_QUANTITY_UNITS = (
    ("unit", "units"),
    ("piece", "units"),
    ("pcs", "units"),
    ("bar", "units"),
    ("sq", "sqft"),
    ("square", "sqft"),
    ("sf", "sqft"),
    ("parking", "spaces"),
    ("space", "spaces"),
    ("stall", "spaces"),
    ("month", "months"),
)
_WORD_NUMBERS = {
    "one": 1,
    "two": 2,
    "three": 3,
    "four": 4,
    "five": 5,
    "six": 6,
    "eight": 8,
    "ten": 10,
    "twelve": 12,
    "a": 1,
}
_DURATION = re.compile(
    r"((?<!\d)\d+(?:\.\d+)?|one|two|three|four|five|six|eight|ten|twelve)[\s-]*(day|week|month|year)s?",
    re.IGNORECASE,
)
_DAYS_PER = {"day": 1.0, "week": 7.0, "month": 30.0, "year": 365.0}
_MONTHS = (
    "january",
    "february",
    "march",
    "april",
    "may",
    "june",
    "july",
    "august",
    "september",
    "october",
    "november",
    "december",
)
_DATE = re.compile(r"\b(?:(early|mid|late|end of)[\s-]+)?(" + "|".join(_MONTHS) + r")\b", re.IGNORECASE)
RELATIVE_DATES: tuple[tuple[str, str], ...] = (
    # (phrase, label): start dates said relative to today, shared with the term reader
    ("next week", "next_week"),
    ("in two weeks", "in_two_weeks"),
    ("in 2 weeks", "in_two_weeks"),
    ("immediately", "immediately"),
    ("right away", "immediately"),
    ("asap", "immediately"),
    ("next month", "next_month"),
    ("in a month", "next_month"),
    ("next quarter", "next_quarter"),
)
_OVERLAP = re.compile(
    r"((?<!\d)\d+|one|two|three|four|five|six|eight)[\s-]*(?:hours?|hrs?)(?:\s+of)?\s+(?:of\s+)?overlap"
    r"|overlap(?:\s+(?:of|by))?\s+(\d+|one|two|three|four|five|six|eight)[\s-]*(?:hours?|hrs?)",
    re.IGNORECASE,
)
_ZONES = {
    "pst": -8,
    "pt": -8,
    "pdt": -8,
    "mst": -7,
    "cst": -6,
    "ct": -6,
    "est": -5,
    "et": -5,
    "edt": -5,
    "gmt": 0,
    "utc": 0,
    "bst": 0,
    "cet": 1,
    "cest": 1,
    "eet": 2,
    "ist": 5.5,
}
_ZONE = re.compile(r"\b(" + "|".join(_ZONES) + r")\b", re.IGNORECASE)
_WORKING_HOURS = 8.0


@dataclass(frozen=True, slots=True)
class Mention:
    """One typed value found in text.

    Attributes:
        kind: "money", "quantity", "duration", "date", "timezone" or "number" (a bare figure).
        low: The value (or the low end of a range); durations in days, overlaps in hours.
        high: The high end of a range (equal to low for single values).
        unit: Unit ("year", "hour", "month", "unit" for money; "units", "sqft", ... for quantities).
        start: Character offset of the mention in the text.
        end: End offset.
        text: The matched text.
        label: Canonical label for dates ("march", "next_week").
    """

    kind: str
    low: float
    high: float
    unit: str | None
    start: int
    end: int
    text: str
    label: str = ""


def _number(text: str) -> float:
    return float(text.replace(",", ""))


def _word_number(text: str) -> float:
    lowered = text.lower()
    return float(_WORD_NUMBERS[lowered]) if lowered in _WORD_NUMBERS else float(lowered)


def _as_mention(amount: Amount, kind: str) -> Mention:
    end = amount.figure_end if amount.figure_end >= 0 else amount.end
    return Mention(
        kind, amount.low, amount.high, amount.per, amount.start, end, amount.text[: end - amount.start]
    )


def find_money(text: str) -> list[Mention]:
    """Money amounts and ranges, read by `amounts.find_amounts` ("$90K–$110K", "$95/hour", "$12.50 per
    unit", "90K", "ninety-five thousand dollars a year", "120.000 €").

    The unit is the rate ("year", "hour", "month", "week", "day", "unit") or None; the span covers
    the figures and the currency, not the rate. A figure with "k"/"thousand" and no unit counts as money.
    """
    return [
        _as_mention(a, "money")
        for a in find_amounts(text)
        if a.kind == "money" or (a.kind == "number" and a.scaled and not a.inherited)
    ]


def find_numbers(text: str) -> list[Mention]:
    """Every figure as a bare number ("14 per unit", "100K", "5,000", "fourteen dollars").

    Kind "number", with a money unit when one follows: nothing says what it counts; callers
    attribute it by keyword (see `attribution`). Spelled-out numbers count when a currency, a rate,
    a unit or a scale word goes with them (see `amounts.find_amounts`); dates, years, ordinals,
    percentages and identifiers do not count.
    """
    return [_as_mention(a, "number") for a in find_amounts(text)]


def _quantity_unit(raw: str) -> str:
    lowered = raw.lower()
    for prefix, unit in _QUANTITY_UNITS:
        if lowered.startswith(prefix):
            return unit
    return lowered


def find_quantities(text: str) -> list[Mention]:
    """Counted amounts with a unit ("1,500 units", "4,200 sq ft", "2 months' deposit")."""
    return [
        Mention(
            "quantity",
            _number(m.group(1)),
            _number(m.group(1)),
            _quantity_unit(m.group(2)),
            m.start(),
            m.end(),
            m.group(0),
        )
        for m in _QUANTITY.finditer(text)
    ]


def find_durations(text: str) -> list[Mention]:
    """Durations, in days ("6 weeks" → 42.0, "a 3-year lease" → 1095.0)."""
    mentions: list[Mention] = []
    for match in _DURATION.finditer(text):
        days = _word_number(match.group(1)) * _DAYS_PER[match.group(2).lower()]
        mentions.append(Mention("duration", days, days, "days", match.start(), match.end(), match.group(0)))
    return mentions


def convert_days(days: float, unit: str | None) -> float:
    """Days expressed in unit ("days", "weeks", "months", "years")."""
    divisor = {"weeks": 7.0, "months": 30.0, "years": 365.0}.get(unit or "days", 1.0)
    return round(days / divisor, 2)


def find_dates(text: str) -> list[Mention]:
    """Calendar months ("mid-March") and relative dates ("next week", "immediately")."""
    mentions = [
        Mention("date", 0.0, 0.0, None, m.start(), m.end(), m.group(0), m.group(2).lower())
        for m in _DATE.finditer(text)
        if not (m.group(2).lower() == "may" and m.group(1) is None)
    ]
    lowered = text.lower()
    for phrase, label in RELATIVE_DATES:
        position = lowered.find(phrase)
        if position >= 0:
            mentions.append(Mention("date", 0.0, 0.0, None, position, position + len(phrase), phrase, label))
    return mentions


def find_overlaps(text: str, reference_zone: str | None = "PT") -> list[Mention]:
    """Working-hour overlap, in hours, stated outright or implied by a named time zone."""
    mentions = [
        Mention("timezone", h, h, "hours", m.start(), m.end(), m.group(0))
        for m in _OVERLAP.finditer(text)
        for h in [_word_number(m.group(1) or m.group(2))]
    ]
    if mentions or reference_zone is None:
        return mentions
    reference = _ZONES.get(reference_zone.lower(), -8)
    for match in _ZONE.finditer(text):
        offset = abs(_ZONES[match.group(1).lower()] - reference)
        hours = max(0.0, _WORKING_HOURS - offset)
        mentions.append(
            Mention(
                "timezone",
                hours,
                hours,
                "hours",
                match.start(),
                match.end(),
                match.group(0),
                match.group(1).upper(),
            )
        )
    return mentions


def find_mentions(text: str, reference_zone: str | None = "PT") -> list[Mention]:
    """Every typed mention in text, in order of appearance."""
    quantities = find_quantities(text)
    durations = [
        d
        for d in find_durations(text)
        if not any(q.start <= d.start < q.end or d.start <= q.start < d.end for q in quantities)
    ]
    found = find_money(text) + quantities + durations + find_dates(text) + find_overlaps(text, reference_zone)
    return sorted(found, key=lambda mention: (mention.start, mention.kind))
