"""Value mentions for the term reader: figures, percentages, dates and options in one parsed message.

Figures come from the draft's amounts (`governance.amounts`, read once by `governance.draft`), with
what a term needs on top: the noun a bare number counts ("48 people"), a rate per square foot, a
period named elsewhere in the clause ("Year one will cost $84,000"), small counts in words ("two
remote days"). Dates, phone numbers and option phrases ("ISO 9001", "net 60") are found first and
their digits are not read as figures.
"""

from __future__ import annotations

import calendar
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace
from datetime import date, timedelta
from functools import cache
from typing import Any, Literal

from parley.governance.amounts import ONES_WORDS, TENS_WORDS, Amount, find_amounts
from parley.governance.config import load_yaml_data
from parley.governance.draft import Draft
from parley.governance.term_vocabulary import TermDef
from parley.governance.text import phrase_pattern
from parley.governance.values import RELATIVE_DATES

FigureKind = Literal["money", "count", "duration", "number", "percent"]


@dataclass(frozen=True, slots=True)
class Figure:
    """A figure in the message, before it is attributed to a term.

    Attributes:
        kind: "money", "count", "duration", "number" (a bare figure) or "percent".
        low: The value, or the low end of a range.
        high: The high end (equal to low for one value).
        start: Offset in the draft's text.
        end: End offset.
        per: A money rate's period or "unit" ("year", "hour", ...).
        unit: What a count or duration counts ("units", "sqft", "weeks", "shafts", ...).
        scaled: A multiplier was written ("114k", "ten grand").
        currency: A currency was written.
        noun: The word a bare number counts, when one follows it ("48 people").
        per_area: A money rate per square foot.
        context_per: A period named elsewhere in the clause, for a rate term.
        per_week: A count of days per week ("3 days/week").
        alternative: The other reading of "121.000" (121).
        inherited: Its unit was carried over from the figure before it ("24 months; we can extend to 30").
        cents: It is written with two decimals ("3.05", "2,90"), as money is and counts are not.
    """

    kind: FigureKind
    low: float
    high: float
    start: int
    end: int
    per: str | None = None
    unit: str | None = None
    scaled: bool = False
    currency: bool = False
    noun: str | None = None
    per_area: bool = False
    context_per: str | None = None
    per_week: bool = False
    alternative: tuple[float, float] | None = None
    inherited: bool = False
    cents: bool = False


@dataclass(frozen=True, slots=True)
class DateMention:
    """A date: an ISO date, a day and month ("July 6", "3 January") or a label ("january", "next_week")."""

    value: str
    start: int
    end: int


@dataclass(frozen=True, slots=True)
class OptionMention:
    """An option of an enumerated term (or a pattern's value) named in the text."""

    term: str
    value: str
    start: int
    end: int
    pattern: bool = False


@dataclass(frozen=True, slots=True)
class Cues:
    """The reader's cue lexicon (package data: term_cues.yaml), compiled."""

    patterns: dict[str, re.Pattern[str]]
    periods: dict[str, re.Pattern[str]]
    condition_frames: frozenset[str]
    hypothetical_frames: frozenset[str]
    unit_nouns: dict[str, str]
    other_costs: tuple[str, ...]
    not_nouns: frozenset[str]

    def search(self, name: str, text: str) -> re.Match[str] | None:
        """The first match of cue name in text (lower-cased by the caller)."""
        return self.patterns[name].search(text)


@cache
def cues() -> Cues:
    """The cue lexicon of the term reader."""
    raw: dict[str, Any] = load_yaml_data("term_cues.yaml")
    special = {
        "condition_frames",
        "hypothetical_frames",
        "periods",
        "unit_nouns",
        "other_costs",
        "not_nouns",
        "condition_forms",  # patterns with a named group each, read by `term_clauses`
        "absence_forms",  # patterns with a named group each, read by `term_clauses`
        "descriptive_terms",  # term names, read by `term_clauses`
        "facts",  # term names, read by `terms`
        "not_ordered",  # nouns, read by `term_attribution`
        "conditional_grammar",  # symbols and families of rules, read by `term_guard`
    }
    patterns = {
        key: re.compile("|".join(f"(?:{alternative})" for alternative in value))
        for key, value in raw.items()
        if key not in special
    }
    return Cues(
        patterns,
        {period: re.compile(str(regex)) for period, regex in raw["periods"].items()},
        frozenset(str(w) for w in raw["condition_frames"]),
        frozenset(str(w) for w in raw["hypothetical_frames"]),
        {str(k): str(v) for k, v in raw["unit_nouns"].items()},
        tuple(str(w) for w in raw["other_costs"]),
        frozenset(str(w) for w in raw["not_nouns"]),
    )


# -- masks: phone numbers, dates, options -------------------------------------------------------------
_PHONE = re.compile(r"\(?\b\d{3}\)?[\s.-]?\d{3}[\s.-]\d{4}\b|\b\d{3}-\d{4}\b|\bext\.?\s*\d+")
_CODE = re.compile(
    r"\b[a-z]{1,5}-?\d[\w-]*|\b(?:year|month|week|day|phase|stage|round|option|tier|level|step)\s+(?:one|two|three|four|five|\d)\b",
    re.IGNORECASE,
)
"""Letters glued to digits name a thing, not an amount ("W2", "H1B", "AS9100", "Q3"); so does a
number after "year" or "phase" ("after year one")."""
_MONTH_NAMES = {name.lower(): i for i, name in enumerate(calendar.month_name) if name}
_MONTH_NAMES.update({name.lower(): i for i, name in enumerate(calendar.month_abbr) if name})
_MONTH_NAMES["sept"] = 9
_FOREIGN_MONTHS = {
    **dict.fromkeys(("januar", "janvier", "enero", "gennaio"), 1),
    **dict.fromkeys(("februar", "fevrier", "febrero", "febbraio"), 2),
    **dict.fromkeys(("marz", "maerz", "mars", "marzo"), 3),
    **dict.fromkeys(("avril", "abril", "aprile"), 4),
    **dict.fromkeys(("mai", "mayo", "maggio"), 5),
    **dict.fromkeys(("juni", "juin", "junio", "giugno"), 6),
    **dict.fromkeys(("juli", "juillet", "julio", "luglio"), 7),
    **dict.fromkeys(("aout", "agosto"), 8),
    **dict.fromkeys(("septembre", "septiembre", "settembre"), 9),
    **dict.fromkeys(("oktober", "octobre", "octubre", "ottobre"), 10),
    **dict.fromkeys(("novembre", "noviembre"), 11),
    **dict.fromkeys(("dezember", "decembre", "diciembre", "dicembre"), 12),
}
"""Months in German, French, Spanish and Italian as the normalised text writes them (without accents:
"fevrier", "marz"), read only after a day ("1. Januar", "le 1er mars", "15 de marzo"): alone, "mars" or
"mai" is another word."""
_MONTH = "(" + "|".join(sorted(_MONTH_NAMES, key=len, reverse=True)) + r")\.?"
_ANY_MONTH = "(" + "|".join(sorted({**_MONTH_NAMES, **_FOREIGN_MONTHS}, key=len, reverse=True)) + r")\.?"
_DAY = r"(\d{1,2})(?:st|nd|rd|th)?"
_YEAR = r"(?:,?\s+(\d{4}))?"
_ISO = re.compile(r"\b(\d{4})-(\d{2})-(\d{2})\b")
_MONTH_DAY = re.compile(rf"\b{_MONTH}\s+{_DAY}\b{_YEAR}", re.IGNORECASE)
_DAY_MONTH = re.compile(
    rf"\b(?:the\s+|le\s+|el\s+|il\s+|der\s+|den\s+|am\s+)?(\d{{1,2}})(?:st|nd|rd|th|er|\.)?\s+(?:of\s+|de\s+)?"
    rf"{_ANY_MONTH}(?![^\W\d_]){_YEAR}",
    re.IGNORECASE,
)
"""A day before its month: "3 January", "the 1st of March", "1. Februar 2027", "le 1er mars"."""
_DOTTED_DATE = re.compile(r"(?<![\d.,])\b(\d{1,2})\.(\d{1,2})\.(\d{4})\b(?![.,]\d)")
"""A date written day first with dots and a full year ("1.2.2027"); without the year it is a decimal."""
_NUMERIC_DATE = re.compile(
    r"(?<![\d/.,$])\b(\d{1,2})/(\d{1,2})(?:/(\d{4}|\d{2}))?\b(?![/\d%]|\s*(?:of|th)\b)"
)
"""A date in digits ("start 1/18", "12/1/2026"): month first unless the first number cannot be one."""
_MONTH_ONLY = re.compile(
    r"\b(?:(?:early|mid|late|end of|in|from|by)[\s-]+)?("
    + "|".join(n for n in _MONTH_NAMES if len(n) > 3)
    + r")\b|\b(?:early|mid|late|end of|in|from|by)[\s-]+(may)\b",
    re.IGNORECASE,
)
"""A month on its own ("in January", "March"); "May" only after a preposition (else it is the verb)."""


_WEEKDAY_NAMES = {name.lower(): i for i, name in enumerate(calendar.day_name)}
_WEEKDAY = "(" + "|".join(_WEEKDAY_NAMES) + ")"
_ORDINALS = {
    "first": 1,
    "1st": 1,
    "second": 2,
    "2nd": 2,
    "third": 3,
    "3rd": 3,
    "fourth": 4,
    "4th": 4,
    "last": -1,
}
_COUNT_WORDS = {"one": 1, "a": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "eight": 8, "ten": 10}
_NTH_DAY_OF = re.compile(
    r"\b(?:the\s+)?(first|1st|second|2nd|third|3rd|fourth|4th|last)\s+"
    rf"(?:{_WEEKDAY}|(business|working|work|week)[\s-]?day)\s+(?:of|in)\s+{_MONTH}(?:\s+(\d{{4}}))?\b",
    re.IGNORECASE,
)
"""A weekday counted in a month ("the first Monday in January", "first business day of February")."""
_HOLIDAYS = {"new year": (1, 1), "christmas": (12, 25)}
_AFTER_HOLIDAY = re.compile(
    rf"\b(?:the\s+)?{_WEEKDAY}\s+(?:right\s+|just\s+)?after\s+(?:the\s+)?(new\s+year|christmas)"
    r"(?:['\u2019]s)?(?:\s+(?:day|eve|holidays?|break))?\b",
    re.IGNORECASE,
)
"""A weekday after a fixed holiday ("the Monday after New Year's", "the Tuesday after Christmas")."""
_WEEKS_FROM = re.compile(
    r"\b(\d{1,2}|one|a|two|three|four|five|six|eight|ten)\s+(weeks?|days?)\s+from\s+"
    rf"(?:(today|now|this\s+week)|(?:next\s+|this\s+|the\s+coming\s+)?{_WEEKDAY})\b",
    re.IGNORECASE,
)
"""A span counted from today or a weekday ("two weeks from today", "10 days from Monday"); not from an
event ("two weeks from signing" depends on a day not yet known)."""


def _next_weekday(after: date, weekday: int, strictly: bool = True) -> date:
    ahead = (weekday - after.weekday()) % 7
    return after + timedelta(days=ahead if ahead or not strictly else 7)


def _nth_day(year: int, month: int, ordinal: int, weekday: int | None) -> date | None:
    """The ordinal-th weekday (or, weekday None, the ordinal-th Monday-to-Friday day) of a month."""
    days = [
        date(year, month, d)
        for d in range(1, calendar.monthrange(year, month)[1] + 1)
        if (
            date(year, month, d).weekday() == weekday
            if weekday is not None
            else date(year, month, d).weekday() < 5
        )
    ]
    if ordinal == -1:
        return days[-1]
    return days[ordinal - 1] if ordinal <= len(days) else None


def anchored_dates(text: str, today: date | None) -> list[DateMention]:
    """Dates said by an anchor rather than a figure, resolved against today: a weekday counted in a
    month, a weekday after a fixed holiday, a span from today or a weekday. Without today, none.
    Linear: each pattern is a bounded sequence of words, scanned once."""
    if today is None:
        return []
    found: list[DateMention] = []
    for m in _NTH_DAY_OF.finditer(text):
        month = _MONTH_NAMES[m.group(4).lower()]
        year = int(m.group(5)) if m.group(5) else None
        weekday = _WEEKDAY_NAMES[m.group(2).lower()] if m.group(2) else None
        for candidate_year in [year] if year else [today.year, today.year + 1]:
            day = _nth_day(candidate_year, month, _ORDINALS[m.group(1).lower()], weekday)
            if day is not None and (year or day >= today):
                found.append(DateMention(day.isoformat(), m.start(), m.end()))
                break
    for m in _AFTER_HOLIDAY.finditer(text):
        month, day_of = _HOLIDAYS[" ".join(m.group(2).lower().split())]
        holiday = date(today.year, month, day_of)
        holiday = holiday if holiday >= today else date(today.year + 1, month, day_of)
        found.append(
            DateMention(
                _next_weekday(holiday, _WEEKDAY_NAMES[m.group(1).lower()]).isoformat(), m.start(), m.end()
            )
        )
    for m in _WEEKS_FROM.finditer(text):
        raw = m.group(1).lower()
        count = int(raw) if raw.isdigit() else _COUNT_WORDS[raw]
        start = today if m.group(3) else _next_weekday(today, _WEEKDAY_NAMES[m.group(4).lower()])
        span = timedelta(weeks=count) if m.group(2).lower().startswith("week") else timedelta(days=count)
        found.append(DateMention((start + span).isoformat(), m.start(), m.end()))
    return found


def phone_spans(text: str) -> list[tuple[int, int]]:
    """Spans of phone numbers, extensions and codes ("W2", "AS9100"): their digits are no amounts."""
    return [(m.start(), m.end()) for pattern in (_PHONE, _CODE) for m in pattern.finditer(text)]


def _resolve(month: int, day: int, year: int | None, today: date | None) -> str | None:
    if not 1 <= day <= calendar.monthrange(year or 2028, month)[1]:
        return None
    if year is not None:
        return f"{year:04d}-{month:02d}-{day:02d}"
    if today is None:
        return f"--{month:02d}-{day:02d}"
    candidate = date(today.year, month, min(day, calendar.monthrange(today.year, month)[1]))
    chosen = candidate if candidate >= today else date(today.year + 1, month, day)
    return chosen.isoformat()


def _list_number(text: str, match: re.Match[str], day_group: int) -> bool:
    """Whether the day of a "1. April" date opens its line: the number of a list item ("1. April
    rent is agreed"), not a day."""
    end = match.end(day_group)
    if text[end : end + 1] != ".":
        return False
    line_start = text.rfind("\n", 0, match.start(day_group)) + 1
    return not text[line_start : match.start(day_group)].strip()


def find_dates(text: str, today: date | None) -> list[DateMention]:
    """Dates in text: ISO dates, days of a month (resolved to the next such day after today; without
    today, "--MM-DD"), months ("in January" → "january") and relative dates ("next week")."""
    found: list[DateMention] = []
    for m in _ISO.finditer(text):
        value = (
            _resolve(int(m.group(2)), int(m.group(3)), int(m.group(1)), today)
            if 1 <= int(m.group(2)) <= 12
            else None
        )
        if value is not None:
            found.append(DateMention(value, m.start(), m.end()))
    for m in _NUMERIC_DATE.finditer(text):
        first, second = int(m.group(1)), int(m.group(2))
        month, day = (second, first) if first > 12 else (first, second)  # "1/18"; "18/1" day first
        year = int(m.group(3)) if m.group(3) else None
        year = year + 2000 if year is not None and year < 100 else year
        value = _resolve(month, day, year, today) if 1 <= month <= 12 else None
        if value is not None and not any(d.start <= m.start() < d.end for d in found):
            found.append(DateMention(value, m.start(), m.end()))
    for m in _DOTTED_DATE.finditer(text):
        day, month, year = int(m.group(1)), int(m.group(2)), int(m.group(3))
        value = _resolve(month, day, year, today) if 1 <= month <= 12 else None
        if value is not None and not any(d.start <= m.start() < d.end for d in found):
            found.append(DateMention(value, m.start(), m.end()))
    found += [a for a in anchored_dates(text, today) if not any(d.start <= a.start < d.end for d in found)]
    months = {**_MONTH_NAMES, **_FOREIGN_MONTHS}
    for pattern, month_group, day_group in ((_MONTH_DAY, 1, 2), (_DAY_MONTH, 2, 1)):
        for m in pattern.finditer(text):
            if any(d.start <= m.start() < d.end for d in found) or _list_number(text, m, day_group):
                continue
            year = int(m.group(3)) if m.group(3) else None
            value = _resolve(months[m.group(month_group).lower()], int(m.group(day_group)), year, today)
            if value is not None:
                found.append(DateMention(value, m.start(), m.end()))
    for m in _MONTH_ONLY.finditer(text):
        group = 1 if m.group(1) else 2
        if not any(d.start <= m.start(group) < d.end for d in found):
            name = calendar.month_name[_MONTH_NAMES[m.group(group).lower()]].lower()
            found.append(DateMention(name, m.start(group), m.end(group)))
    lowered = text.lower()
    for phrase, label in RELATIVE_DATES:
        for m in phrase_pattern(phrase).finditer(lowered):
            if not any(d.start <= m.start() < d.end or m.start() <= d.start < m.end() for d in found):
                found.append(DateMention(label, m.start(), m.end()))
    return sorted(found, key=lambda d: d.start)


_JOINER = re.compile(r"\\?[-\s]+")


@cache
def _option_pattern(phrase: str) -> re.Pattern[str]:
    """An option phrase, its words joined by a hyphen, a space or nothing alike ("on-site full time"
    finds "onsite full-time")."""
    escaped = phrase_pattern(phrase).pattern
    return re.compile(_JOINER.sub(lambda _: r"[-\s]?", escaped), re.IGNORECASE)


def find_options(text: str, terms: Iterable[TermDef]) -> list[OptionMention]:
    """Options of enumerated terms (phrases and patterns) named in text, longest phrase first where
    two overlap."""
    hits: list[OptionMention] = []
    for term in terms:
        for option, phrases in term.options.items():
            for phrase in phrases:
                hits += [
                    OptionMention(term.name, option, m.start(), m.end())
                    for m in _option_pattern(phrase).finditer(text)
                ]
                loose = _loose_negation(phrase) if option == "none" else None
                if loose is not None:
                    hits += [
                        OptionMention(term.name, option, m.start(), m.end()) for m in loose.finditer(text)
                    ]
        for option, pattern in term.patterns:
            for m in pattern.finditer(text):
                group = next((g for g in m.groups() if g), None)  # the alternative that matched
                value = option.replace("{1}", group) if group is not None else option
                hits.append(OptionMention(term.name, value, m.start(), m.end(), pattern=True))
        hits += _payment_days(text, term)
        hits += _weekday_days(text, term)
    hits.sort(key=lambda h: (h.start, -(h.end - h.start)))
    kept: list[OptionMention] = []
    for hit in hits:
        if not any(k.term == hit.term and k.start <= hit.start < k.end for k in kept):
            kept.append(hit)
    return _without_prospects(text, kept)


_NEGATED_PHRASE = re.compile(r"^(not|no) ([a-z][a-z-]*)$")
_NEGATION_GAP = r"(?:yet |currently |presently |formally )?(?:(?!(?:but|and|or|yet)\b)[a-z][\w-]* ){0,2}"


@cache
def _loose_negation(phrase: str) -> re.Pattern[str] | None:
    """A "none" option phrase "not certified" or "no certification" with up to two words inside ("not
    ISO certified", "no formal quality certification", "not yet certified")."""
    found = _NEGATED_PHRASE.match(phrase.lower())
    if found is None:
        return None
    word = re.escape(found.group(2))
    return re.compile(rf"\b{found.group(1)} {_NEGATION_GAP}{word}\b", re.IGNORECASE)


_PROSPECT = re.compile(
    r"\b(?:yet|scheduled|planned|planning|working (?:on|towards?)|could look at|will look at|next year|"
    r"in 20\d\d|audit)\b",
    re.IGNORECASE,
)
_SENTENCE_STOP = re.compile(r"[.;!?\n](?!\d)")
_PROSPECT_REACH = 300
"""How far after a "none" the sentence that speaks of the future may reach (characters)."""


def _without_prospects(text: str, mentions: list[OptionMention]) -> list[OptionMention]:
    """Mentions less the options of a term named after its "none" in the same sentence when that
    sentence speaks of the future ("we're not certified yet; our ISO 9001 audit is in March": none)."""
    nones = [m for m in mentions if m.value == "none"]
    if not nones:
        return mentions
    dropped: set[int] = set()
    for none in nones:
        reach = min(len(text), none.end + _PROSPECT_REACH)  # bounded, so a long text reads in linear time
        stop = _SENTENCE_STOP.search(text, none.end, reach)
        end = stop.start() if stop is not None else reach
        if stop is not None and stop.group(0) == ";":
            more = _SENTENCE_STOP.search(text, stop.end(), reach)  # "not certified yet; we could look at"
            end = more.start() if more is not None else reach
        if not _PROSPECT.search(text, none.start, end):
            continue
        dropped |= {
            i
            for i, m in enumerate(mentions)
            if m.term == none.term and m.value != "none" and none.end <= m.start < end
        }
    return [m for i, m in enumerate(mentions) if i not in dropped]


_DAY_ABBREVIATIONS = {"mon": 0, "tue": 1, "tues": 1, "wed": 2, "thu": 3, "thur": 3, "thurs": 3, "fri": 4}
_WORKDAY_INDEX = {name: i for name, i in _WEEKDAY_NAMES.items() if i < 5} | _DAY_ABBREVIATIONS
_WORKDAY = r"(?:" + "|".join(sorted(_WORKDAY_INDEX, key=len, reverse=True)) + r")s?\b\.?"
_WORKDAY_SET = re.compile(
    rf"\b({_WORKDAY})(?:\s*(?:-|\u2013|\u2014|to|through|thru|till|until)\s*({_WORKDAY})"
    rf"|((?:\s*(?:/|,|&|\+|and|or)\s*{_WORKDAY}){{1,4}}))?",
    re.IGNORECASE,
)
"""Working days named as a set: a span ("Tue-Thu", "Tuesday to Thursday"), a list ("Mon/Fri", "Monday,
Wednesday and Friday") or one day."""
_WORKDAY_WORD = re.compile(_WORKDAY, re.IGNORECASE)
_AT_OFFICE = (
    r"(?:in|at|into)\s+(?:the\s+|our\s+)?(?:[a-z]+\s+){0,2}(?:office|building|hq|headquarters|site)\b"
    r"|on-?\s?site\b|in-office\b|in[- ]person\b"
)
_AT_HOME = r"(?:from|at)\s+home\b|remote(?:ly)?\b|wfh\b|work[- ]from[- ]home\b|home[- ]?office\b"
_DAYS_THEN_PLACE = re.compile(
    rf"(?:\s+(?:are|is|will\s+be|stay|as\s+an?|as)\b)?\s*(?:\(\s*)?(?:(?P<office>{_AT_OFFICE})|(?P<home>{_AT_HOME}))",
    re.IGNORECASE,
)
"""After a set of working days, where they are worked ("Tue-Thu in the Austin office", "Fridays as a
work-from-home day")."""
_PLACE_THEN_DAYS = re.compile(
    rf"(?:(?P<office>{_AT_OFFICE})|(?P<home>{_AT_HOME}))(?:\s+(?:on|every|each))?[\s,:(]*$",
    re.IGNORECASE,
)
"""Before a set of working days, where they are worked ("in the office Tuesday to Thursday", "remote
Fridays", "fully onsite, Mon-Fri")."""
_EVERY = re.compile(r"\b(?:every|each)\s+$", re.IGNORECASE)
_PLACE_REACH = 40
"""How far before a set of days its place may be written (characters): bounded, so reading is linear."""


def _weekday_days(text: str, term: TermDef) -> list[OptionMention]:
    """Days of a working week named by weekday, as the count of remote days (a term counted in
    days/week): a span or list of days in the office leaves the rest of the five remote ("in the office
    Tuesday to Thursday": 2), days from home count themselves ("Mon/Fri from home": 2, "remote Fridays":
    1). One weekday in the office says nothing of the others ("Fridays are in the office": none), and
    one weekday from home counts only as a habit (plural, or after "every").
    Linear: each set of days is matched once, its place looked up within a bounded reach."""
    if term.unit != "days/week":
        return []
    found: list[OptionMention] = []
    for m in _WORKDAY_SET.finditer(text):
        first = _WORKDAY_INDEX[_day_key(m.group(1))]
        if m.group(2):
            last = _WORKDAY_INDEX[_day_key(m.group(2))]
            if last <= first:
                continue
            count = last - first + 1
        elif m.group(3):
            days = {first} | {
                _WORKDAY_INDEX[_day_key(d.group(0))] for d in _WORKDAY_WORD.finditer(m.group(3))
            }
            count = len(days)
        else:
            count = 1
        after = _DAYS_THEN_PLACE.match(text, m.end())
        before = _PLACE_THEN_DAYS.search(text, max(0, m.start() - _PLACE_REACH), m.start())
        place = after or before
        if place is None:
            continue
        office = place.group("office") is not None
        if count == 1:
            habit = _day_key(m.group(1)) != m.group(1).lower().rstrip(".") or (
                _EVERY.search(text, max(0, m.start() - 8), m.start()) is not None
            )
            if office or not habit:
                continue
        value = 5 - count if office else count
        start, end = (m.start(), place.end()) if after is not None else (place.start(), m.end())
        found.append(OptionMention(term.name, str(value), start, end, pattern=True))
    return found


def _day_key(raw: str) -> str:
    """The index key of a weekday as written ("Tuesdays", "Thu.", "tues")."""
    key = raw.lower().rstrip(".")
    return key if key in _WORKDAY_INDEX else key[:-1]


_DAY_WORDS = {"thirty": "30", "forty-five": "45", "forty five": "45", "sixty": "60", "ninety": "90"}


def _payment_days(text: str, term: TermDef) -> list[OptionMention]:
    """Days to pay written without "net" (cue `payment_days`), as the term's option net<days> where it
    has that option."""
    if not any(name.startswith("net") for name in term.options):
        return []
    lowered = text.lower()
    if len(lowered) != len(text):
        return []  # a case fold that changes lengths would shift the offsets
    found: list[OptionMention] = []
    for m in cues().patterns["payment_days"].finditer(lowered):
        raw = next((g for g in m.groups() if g), None)
        option = f"net{_DAY_WORDS.get(raw, raw)}" if raw is not None else None
        if option is not None and option in term.options:
            found.append(OptionMention(term.name, option, m.start(), m.end(), pattern=True))
    return found


# -- figures --------------------------------------------------------------------------------------------
_PERCENT = re.compile(
    r"\b(?:(\d+(?:\.\d+|,\d{1,2}(?!\d))?)"
    r"|(half|a half|a quarter|quarter|three quarters)\s+(?:of\s+)?(?:a|one)?"
    r"|([a-z]+(?:-[a-z]+)?))\s*(?:%|percent\b|per cent\b)",
    re.IGNORECASE,
)
_FRACTIONS = {"half": 0.5, "a half": 0.5, "a quarter": 0.25, "quarter": 0.25, "three quarters": 0.75}
_WORD_VALUES = {w: float(i) for i, w in enumerate(ONES_WORDS)} | {
    w: 10.0 * (i + 2) for i, w in enumerate(TENS_WORDS)
}
_WORD_COUNT = re.compile(r"\b(" + "|".join(ONES_WORDS) + r"|half a|half an)\b", re.IGNORECASE)
_DURATION = re.compile(
    r"\b(\d+(?:\.\d+)?|an?|" + "|".join((*ONES_WORDS[1:], *TENS_WORDS)) + r")\s*"
    r"(?:(calendar|business|working)\s+)?(days?|weeks?|months?|years?)\b",
    re.IGNORECASE,
)
_RATE_BEFORE = re.compile(r"(?:\bper|\ba|\ban|\beach|\bevery|/)\s*$", re.IGNORECASE)
_NEXT_WORD = re.compile(r"^[ \t-]*([a-z][a-z'-]*)", re.IGNORECASE)


def _word_value(raw: str) -> float | None:
    lowered = raw.lower()
    if lowered in _WORD_VALUES:
        return _WORD_VALUES[lowered]
    if "-" in lowered:
        tens, _, ones = lowered.partition("-")
        if tens in _WORD_VALUES and ones in _WORD_VALUES:
            return _WORD_VALUES[tens] + _WORD_VALUES[ones]
    return None


_PERCENT_PER = re.compile(
    r"^\s*(?:of (?:the )?(?:order|contract|invoice|po|delivery|shipment)(?: value| price| amount)?\s+)?"
    r"(?:per|a|an|each|every|/)\s*(?:calendar\s+|working\s+|business\s+)?(day|week|month)\b"
    r"|^\s*(daily|weekly|monthly)\b",
    re.IGNORECASE,
)
"""A period after a percentage ("0.5% per day of delay", "1% weekly"): the rate's period."""


def find_percents(text: str) -> list[Figure]:
    """Percentages ("1%", "0.75 percent", "two percent", "half a percent"), in percent, with the period
    written after them, if any ("0.5% per day": per "day")."""
    found: list[Figure] = []
    for m in _PERCENT.finditer(text):
        if m.group(1):
            value: float | None = float(m.group(1).replace(",", "."))  # "0,5%": a decimal comma
        elif m.group(2):
            value = _FRACTIONS[m.group(2).lower()]
        else:
            value = _word_value(m.group(3))
        if value is not None:
            period = _PERCENT_PER.match(text[m.end() : m.end() + 30])
            per = _PERIODS.get((period.group(1) or period.group(2)).lower()) if period else None
            found.append(Figure("percent", value, value, m.start(), m.end(), per=per, unit="%"))
    return found


_PERIODS = {
    "day": "day",
    "daily": "day",
    "week": "week",
    "weekly": "week",
    "month": "month",
    "monthly": "month",
}


def _overlaps(start: int, end: int, spans: Sequence[tuple[int, int]]) -> bool:
    return any(s < end and start < e for s, e in spans)


_COUNTED_BEFORE = re.compile(
    r"(?:\d[\d,.]*|one|two|three|four|five|six|seven|eight|nine|ten|a couple of)\s*-?\s*"
    r"[a-z][a-z-]*(?:\s+[a-z][a-z-]*)?\s*$"
)
"""Before a period phrase, a count of something else makes the period that count's ("1 day a week",
"3 releases a week"): it is no period of another figure in the clause."""


_FIGURE_BEFORE = re.compile(r"\d[\d,.]*\s*(?:k\b|%|percent\b)?\s*$")
"""Right before a period word: a figure it belongs to ("$6,000/month", "3% annual")."""
_OBJECT_AFTER = re.compile(r"^\s*(?:me|us|him|her|them|you)\b")
"""A word after a number followed by an object pronoun is a verb ("102 suits me"), no counted noun."""


def _clause_period(draft: Draft, offset: int) -> str | None:
    clause = draft.clause_at(offset)
    sentence = draft.sentence_at(offset)
    holder = clause if clause is not None else sentence
    if holder is None:
        return None
    text = holder.text.lower()
    for period, pattern in cues().periods.items():
        for match in pattern.finditer(text):
            begin = max(0, match.start() - 30)
            attached = _FIGURE_BEFORE.search(text, begin, match.start())
            if attached is not None and not (
                holder.start + attached.start() <= offset < holder.start + match.start()
            ):
                continue  # "$12,000 against rent of $6,000/month", "3% annual escalation": another's period
            counted = _COUNTED_BEFORE.search(text, begin, match.start())
            own = (
                counted is not None
                and holder.start + counted.start() <= offset < holder.start + match.start()
            )
            if counted is None or own:  # "9,000 a month": the count before the period is the figure itself
                return period
    return None


def _period_taken(draft: Draft, offset: int) -> bool:
    """Whether the last period word before offset in its sentence belongs to another figure ("a 3%
    annual escalation: 6,650 to start": "annual" is the escalation's)."""
    sentence = draft.sentence_at(offset)
    if sentence is None:
        return False
    text = draft.text.lower()
    words = [m for pattern in cues().periods.values() for m in pattern.finditer(text, sentence.start, offset)]
    if not words:
        return False
    last = max(words, key=lambda m: m.start())
    return _FIGURE_BEFORE.search(text, max(sentence.start, last.start() - 30), last.start()) is not None


def _noun_after(text: str, end: int, keywords: frozenset[str]) -> str | None:
    """The word after a bare number when it names what is counted ("48 people"), else None; a term
    keyword one word further counts ("2 extra PTO days" counts PTO days)."""
    match = _NEXT_WORD.match(text[end : end + 30])
    if match is None:
        return None
    word = match.group(1).lower()
    if word in cues().not_nouns or word.endswith(("ing", "ed", "ly")):
        return None
    second = _NEXT_WORD.match(text[end + match.end() : end + match.end() + 30])
    if word not in keywords and second is not None and second.group(1).lower() in keywords:
        return second.group(1).lower()
    return word


_COMPOUND = re.compile(
    r"[a-z0-9]-(?:[a-z]+-)?(?:days?|weeks?|wks?|months?|mos?|years?|yrs?)\b", re.IGNORECASE
)
"""A duration written as a compound ("two-year", "18-month", "twenty-four-month"), not a range ("2-3
months") nor a number spelled with a hyphen ("Twenty-eight days")."""


_LOT_BEFORE = re.compile(
    r"\b(?:the|a|this|that|your|our|each)\s+(?:whole\s+|full\s+|entire\s+|first\s+|next\s+)?"
    r"(?:run|lot|batch|production run|shipment|consignment|call-off)\s+of\s*$",
    re.IGNORECASE,
)
"""Before a bare number: it counts what is ordered ("for the lot of 4,000", "the batch of 2,500")."""
_WORKDAYS_AFTER = re.compile(r"^\s*(calendar|business|working|work)\s+days?\b")
_FOREIGN_WEEKS = frozenset({"semana", "semanas", "semaine", "semaines", "settimana", "settimane"})
"""(issue 17, sets v5 and v13) weeks in Spanish, Portuguese, French and Italian counted by a number
("entrega 5 semanas", "lead time 9 semanas", "délai 6 semaines"): a span of weeks, not a count."""
_CENTS = re.compile(r"^\D*\d+[.,]\d{2}(?!\d)")
"""A figure written with two decimals ("2.90", "3,05"): money, not a count or a span of time."""


def _counted_later(text: str, end: int, keywords: frozenset[str]) -> str | None:
    """A term keyword or unit noun one word after a bare number ("5 reserved parking spaces")."""
    match = _NEXT_WORDS.match(text[end : end + 40])
    if match is None or match.group(2) is None:
        return None
    word = match.group(2).lower()
    return word if word in keywords or word in cues().unit_nouns else None


def _compound_noun(text: str, end: int) -> str | None:
    """The noun a compound duration modifies ("two-year agreement" → "agreement"; the first noun
    word after it)."""
    match = _NEXT_WORD.match(text[end : end + 30])
    return match.group(1).lower() if match else None


def _figure(draft: Draft, amount: Amount, keywords: frozenset[str]) -> Figure:
    text = draft.text
    after = text[amount.end : amount.end + 40].lower()
    kind: FigureKind = amount.kind
    per = amount.per if _rate_written(amount) else None
    area = cues().search("per_area", after) if kind in ("money", "number") and amount.per is None else None
    context = (
        _clause_period(draft, amount.start) if amount.per is None and kind in ("money", "number") else None
    )
    if amount.per is not None and per is None and not _period_taken(draft, amount.start):
        # "an annual base of $122,500, a signing bonus of $9,000": "annual" is the base's period
        context = amount.per
    if area is not None:
        rest = after[area.end() :].lstrip()
        named = (p for p, pattern in cues().periods.items() if pattern.match(rest))
        context = next(named, "year")  # a rent per square foot is quoted by the year unless it says so
    noun = _noun_after(text, amount.end, keywords) if kind == "number" and amount.per is None else None
    unit = amount.unit
    if (
        kind == "count"
        and unit is not None
        and (unit.lower() in cues().not_nouns or _OBJECT_AFTER.match(after))
    ):
        kind, unit = "number", None  # "105 works for me", "102 suits me": a verb, not what is counted
    if kind == "count" and unit is not None and unit.lower() in cues().unit_nouns:
        unit = cues().unit_nouns[unit.lower()]  # "2 places in the courtyard": parking spaces
    if noun is not None and noun in cues().unit_nouns:
        kind, unit, noun = "count", cues().unit_nouns[noun], None  # "1,600-sq-ft", "10 parking spots"
    lot = _LOT_BEFORE.search(text[max(0, amount.start - 40) : amount.start])
    if kind == "number" and noun is None and lot is not None:
        kind, unit = "count", "units"  # "$48,000 for the run of 16,000": the run counts units
    if kind == "duration" and _COMPOUND.search(text[amount.start : amount.end]):
        noun = _compound_noun(text, amount.end)  # "a two-year supply agreement" is no lead time
    inherited = amount.inherited
    cents = bool(_CENTS.search(amount.text))
    workdays = _WORKDAYS_AFTER.match(after) if kind == "number" and amount.per is None else None
    if workdays is not None:  # "15 working days", "45 calendar days"
        kind, unit, noun = "duration", "days" if workdays.group(1) == "calendar" else "workdays", None
    if kind == "count" and unit is not None and unit.lower() in _FOREIGN_WEEKS and amount.per is None:
        kind, unit, noun = "duration", "weeks", None
    if kind in ("duration", "count") and amount.end == amount.figure_end:
        counted = _noun_after(text, amount.end, keywords) or _counted_later(text, amount.end, keywords)
        if (inherited and counted is not None) or cents:
            # "one month, and 5 reserved parking spaces", "an 18-month warranty ... a deal at 6.40",
            # "2.90 and 8 weeks": a unit carried over from another figure does not hold for a figure
            # counting a noun of its own or written in cents
            kind, unit, noun, inherited = "number", None, counted, False
    if amount.scaled and not amount.inherited:
        noun = None  # "the 116k offer stands": a figure in thousands counts no noun
    per_week = (
        kind == "duration"
        and amount.unit == "days"
        and ("week" in amount.text.lower() or bool(cues().search("per_week", after)))
    )
    low, high = _unscaled(amount, noun)
    if high != low and cues().search("change_from", text[max(0, amount.start - 60) : amount.start].lower()):
        low = high  # "extend the warranty from 12 to 18 months": the range is a change, 18 its value
    return Figure(
        kind,
        low,
        high,
        amount.start,
        amount.end,
        per,
        unit,
        amount.scaled,
        amount.currency is not None,
        noun,
        area is not None,
        context,
        per_week,
        amount.alternative,
        inherited,
        cents,
    )


def _rate_written(amount: Amount) -> bool:
    """Whether a rate is written with the figure ("$95/hr", "9,000 a month"), not taken from a period
    word earlier in the sentence ("Annual base $122,500, signing bonus $9,000"): the amount reader gives
    the figures after such a word its period, which a lump sum beside the rate does not have."""
    return amount.per is None or amount.kind != "money" or amount.end > amount.figure_end


_PLAIN_DIGITS = re.compile(r"\d{1,3}(?:,\d{3})*(?:\.\d+)?|\d+(?:\.\d+)?")


def _unscaled(amount: Amount, noun: str | None) -> tuple[float, float]:
    """A bare number that took the previous figure's multiplier but counts a noun of its own ("99k,
    20 PTO days" is 20 days, not 20,000) keeps its digits as written."""
    written = amount.text.strip()
    if amount.inherited and amount.kind == "number" and noun is not None:
        value = float(written.replace(",", "")) if _PLAIN_DIGITS.fullmatch(written) else _word_value(written)
        if value is not None:  # "a 15k sign-on, with four remote days": four days, not 4,000
            return value, value
    return amount.low, amount.high


_NEXT_WORDS = re.compile(r"^[\s-]*(?:of\s+)?([a-z][a-z'-]*)(?:[\s-]+([a-z][a-z'-]*))?", re.IGNORECASE)


def _names_term_after(text: str, end: int, keywords: frozenset[str]) -> bool:
    """Whether a term keyword follows a duration the amount reader set aside as no term of a deal
    ("12 months free", "6 months of free rent": the span is the term the keyword names)."""
    match = _NEXT_WORDS.match(text[end : end + 40])
    if match is None:
        return False
    return any(w is not None and w.lower() in keywords for w in match.groups())


def _listed_spans(amount: Amount) -> list[Amount]:
    """amount, or the two spans of time a list gives one after the other that the amount reader joined
    into one ("5 yrs, 2 mo deposit", "two years, one month deposit", "10 Jahre, 6 Monate mietfrei": a
    term of 60 months and a deposit of 2, not 62 months)."""
    comma = amount.text.find(",")
    if amount.kind != "duration" or comma < 0 or amount.is_range:
        return [amount]
    first = find_amounts(amount.text[:comma])
    rest = amount.text[comma + 1 :]
    second = find_amounts(rest)
    if len(first) != 1 or len(second) != 1 or not all(a.kind == "duration" for a in (*first, *second)):
        return [amount]
    return [_shifted(first[0], amount.start), _shifted(second[0], amount.start + comma + 1)]


def _shifted(amount: Amount, offset: int) -> Amount:
    """amount, found in a piece of the text that starts at offset, with its spans into the whole text."""
    end = amount.figure_end + offset if amount.figure_end >= 0 else -1
    return replace(amount, start=amount.start + offset, end=amount.end + offset, figure_end=end)


def find_figures(draft: Draft, masked: Sequence[tuple[int, int]], keywords: Iterable[str]) -> list[Figure]:
    """Every figure of the message that is not inside a masked span (dates, phones, options), plus
    percentages and small counts in words followed by a term keyword ("two remote days")."""
    words = frozenset(k.lower() for k in keywords)
    amounts = [
        a
        for a in (part for whole in draft.amounts for part in _listed_spans(whole))
        if (not a.incidental or _names_term_after(draft.text, a.end, words))
        and not _overlaps(a.start, a.end, masked)
        and not (a.inherited and a.text.isalpha() and draft.text[a.end : a.end + 1] == "-")
    ]  # "a one-time tooling charge": a word joined to the next is no amount
    figures = [_figure(draft, a, words) for a in amounts]
    figures += [f for f in find_percents(draft.text) if not _overlaps(f.start, f.end, masked)]
    taken = [(f.start, f.end) for f in figures] + list(masked)
    for m in _DURATION.finditer(draft.text):
        if _overlaps(m.start(), m.end(), taken) or _RATE_BEFORE.search(
            draft.text[max(0, m.start() - 8) : m.start()]
        ):
            continue  # a rate ("$9,500 a month") is not a duration
        raw = m.group(1).lower()
        value = float(raw) if raw[0].isdigit() else 1.0 if raw in ("a", "an") else _WORD_VALUES[raw]
        unit = m.group(3).lower().rstrip("s") + "s"
        if m.group(2) is not None and m.group(2).lower() != "calendar" and unit == "days":
            unit = "workdays"  # "ten business days"
        figures.append(Figure("duration", value, value, m.start(), m.end(), unit=unit))
    lowered = draft.text.lower()
    for m in _WORD_COUNT.finditer(lowered):
        if _overlaps(m.start(), m.end(), taken):
            continue
        following = lowered[m.end() : m.end() + 30].split()
        if any(w.strip(".,;:'") in words for w in following[:2]):
            value = 0.5 if m.group(1).startswith("half") else _WORD_VALUES[m.group(1)]
            figures.append(
                Figure("number", value, value, m.start(), m.end(), noun=following[0].strip(".,;:'"))
            )
    return sorted(figures, key=lambda f: f.start)
