"""Which term a figure states, and its value in the term's canonical unit.

A figure is attributed by what it is (money, a count, a duration, a percentage), its rate or unit
(converted: "$10,250 a month" is 123,000 a year, "60 days" is 8.6 weeks, "four weeks of vacation" is
20 working days), the nearest keyword of each term in its sentence (a keyword in another clause or
across commas counts less) and its magnitude against the term's usual range. A bare number no keyword
claims is read as the value of the term just named in the same sentence ("24 months standard; we can
extend to 30"), of the term the delegate asked about, or of the term under negotiation when its
magnitude fits ("we can offer 120" is $120K for a salary).
"""

from __future__ import annotations

import bisect
import math
import re
from collections.abc import Sequence
from dataclasses import dataclass, replace
from functools import cache

from parley.governance.amounts import convert_duration, convert_rate
from parley.governance.config import load_yaml_data
from parley.governance.draft import Draft
from parley.governance.term_figures import Figure
from parley.governance.term_guard import conditional_markers
from parley.governance.term_vocabulary import TermDef
from parley.governance.text import phrase_pattern

_SLACK = 3.0
"""A usual range is widened by this factor on both sides before a value counts as out of range."""
_MISFIT_LIMIT = 1.2
"""Log-ratio beyond which a figure without a unit is not the term's (a factor of 3.3 past the slack)."""
_TYPED_MISFIT_LIMIT = 4.0
_NAMED_MISFIT_LIMIT = 4.0
"""Log-ratio a figure without a unit may lie past the slack when its term's keyword stands right by it
("quantity has to be at least 250k"): as far as a figure with its unit written."""
_COUNTED_MISFIT_LIMIT = 5.5
"""Log-ratio a count may lie above the slack when its unit is written by it ("1 million units", "a
million pieces" in a domain whose orders run to thousands): some 250 times past its usual band is still
the term's (the boundary check, not the reader, judges its size). A figure with no unit written keeps
the narrower limits ("14 Mill Lane" is no 14 million sq ft)."""
_ADDED_AFTER = re.compile(
    r"^\s*,?\s*(?:plus|\+|and|as well as|excluding|exclusive of|not including|on top of)\s+"
    r"(?:an?\s+|the\s+|any\s+|all\s+|some\s+)?(?:[\w-]+\s+){0,2}$"
)
"""Between a figure and a cost word after it: the cost is added to the figure, not what it is."""
_JUST_BEFORE = re.compile(r"^[^\d,;.!?()\n]{0,30}$")
"""Between a keyword and the figure it names outright: a few words, no other figure or clause break."""
_WORKDAYS = {"days": 1.0, "workdays": 1.0, "weeks": 5.0, "months": 21.0, "years": 250.0}
_COUNT_UNITS = frozenset({"units", "sqft", "spaces"})
_PRICED_FALLBACK = 2.5
"""How far (a log ratio) money written with a currency and cents may lie outside the negotiated term's
usual range and still be read as it with no keyword beside it."""
_UNNAMED_COST = 1.5
"""What it costs a term that no keyword names to claim a figure by its unit and magnitude alone."""
_SHORT_SPANS = frozenset({"days", "workdays", "weeks"})
_LONG_SPANS = frozenset({"months", "years"})
"""A span of days or weeks is no term counted in months or years ("7 weeks" is no warranty) unless the
term's keyword names it: writers state such terms in months or years."""
_CLAUSE_COST = 1.2
"""What a keyword in another clause of the sentence costs (characters cost 1/40 each)."""
_FIGURE_COST = 1.5
"""What a keyword costs per other figure between it and the figure ("$140K plus $40K in RSUs")."""
_OFFICE = re.compile(
    r"\b(?:in|at|from) (?:the |our )?(?:office|building|hq|headquarters)\b"
    r"|\bon-?site\b|\bin[- ]person\b|\bin-office\b|\b(?:in[- ])?office days?\b|\bdays? in office\b"
)
_REMOTE = re.compile(r"\bremote(?:ly)?\b|\bfrom home\b|\bwfh\b|\bhome[- ]office\b")
_OFFICE_NOUNS = frozenset({"office", "in-office", "onsite", "on-site"})
_OFFICE_DAYS = re.compile(r"[ -]+(?:in[- ])?(?:office|on-?site)[ -]+days?\b")
_WORK_WEEK = 5.0
"""Working days in a week: days in the office leave the rest remote."""
_PERCENT_PERIODS = {
    ("day", "%/week"): 7.0,
    ("month", "%/week"): 12.0 / 52.0,
    ("week", "%/day"): 1.0 / 7.0,
    ("week", "%/month"): 52.0 / 12.0,
}
"""A percentage per period in another period (calendar days: "0.5% per day of delay" is 3.5% a week)."""
_SEPARATORS = re.compile(r"[,;\u2013\u2014]|\s-\s")


@dataclass(frozen=True, slots=True)
class Attributed:
    """A figure read as a term's value.

    Attributes:
        term: The term.
        low: Value (or low end) in the term's canonical unit.
        high: High end.
        confidence: In [0, 1].
        figure: The figure as found.
        weak: Only a keyword in another clause ties it to the term (a default may be better).
        keyed: A keyword of the term stands by it (in its clause).
    """

    term: TermDef
    low: float
    high: float
    confidence: float
    figure: Figure
    weak: bool = False
    keyed: bool = False


@cache
def keyword_pattern(keyword: str) -> re.Pattern[str]:
    """keyword on word boundaries, also inflected ("start" finds "starts", "starting")."""
    base = phrase_pattern(keyword.lower()).pattern
    if keyword[-1:].isalpha():
        base = base.removesuffix(r"\b") + r"(?:s|es|d|ed|ing)?\b"
    return re.compile(base)


_WINDOW = 480
"""Characters around a figure within which keyword distances are weighed one by one: a keyword farther
away costs over 12 (beyond every threshold) and only the nearest such one on each side is weighed, so a
long sentence full of keywords is read in linear time."""


def _near(
    spans: Sequence[tuple[int, int]], start: int, end: int, first: int, last: int
) -> list[tuple[int, int]]:
    """The spans (sorted by start) that begin in [first, last) within `_WINDOW` of [start, end), and the
    nearest one of that stretch beyond the window on each side."""
    low, high = max(first, start - _WINDOW), min(last, end + _WINDOW)
    i = bisect.bisect_left(spans, (low, -1))
    j = bisect.bisect_left(spans, (high, -1))
    found = list(spans[i:j])
    if i > 0 and spans[i - 1][0] >= first:
        found.append(spans[i - 1])
    if j < len(spans) and spans[j][0] < last:
        found.append(spans[j])
    return found


class KeywordIndex:
    """Where each term's keywords occur in one message (found once)."""

    def __init__(
        self,
        draft: Draft,
        terms: Sequence[TermDef],
        other_costs: Sequence[str] = (),
        boundaries: Sequence[int] = (),
    ) -> None:
        """Index draft's keywords of terms (and of other costs); boundaries are offsets where a condition
        ends that no conditional marker shows, which separate like a marker."""
        self._draft = draft
        terms = [*terms, TermDef(OTHER_COST, "another cost", "money", keywords=tuple(other_costs))]
        lowered = draft.text.lower()
        self.spans: dict[str, list[tuple[int, int]]] = {
            term.name: sorted(
                (m.start(), m.end())
                for k in set(term.keywords)
                for m in keyword_pattern(k).finditer(lowered)
                if term.name != OTHER_COST
                or not (
                    _SUBJECT_BEFORE.search(lowered[max(0, m.start() - 14) : m.start()])
                    or _OBJECT_AFTER.match(lowered, m.end())
                )
            )
            for term in terms
        }
        # A conditional marker opens a clause of its own for keyword distances, also where the parse
        # keeps it in one ("Happy with 107k so long as the sign-on is 10k": "sign-on" is far from 107k).
        self._markers = sorted(
            {
                *(
                    m.start() + len(m.group(0)) - len(m.group(0).lstrip(" .;:!?,("))
                    for m in conditional_markers(lowered)
                ),
                *boundaries,
            }
        )
        self._clause_starts = sorted({c.start for c in draft.clauses()} | set(self._markers))
        self._figures: list[int] = []

    def separated(self, start: int, end: int) -> bool:
        """Whether a conditional marker stands in [start, end) (a condition and what it conditions)."""
        index = bisect.bisect_left(self._markers, start)
        return index < len(self._markers) and self._markers[index] < end

    def mark_figures(self, starts: Sequence[int], spans: Sequence[tuple[int, int]] = ()) -> None:
        """Where the message's figures stand: a keyword beyond another figure belongs to that one, and
        a cost word inside another figure ("2 parking spots, 3,150/mo") is that figure's noun."""
        self._figures = sorted(starts)
        self.spans[OTHER_COST] = [
            (k_start, k_end)
            for k_start, k_end in self.spans[OTHER_COST]
            if not any(start <= k_start and k_end <= end for start, end in spans)
        ]

    def cost_penalty(self, start: int, end: int) -> float | None:
        """`penalty` of the other-cost words for [start, end), leaving out a cost added after the figure
        ("$7,250 per month plus utilities": the utilities are another cost, not what the figure is)."""
        sentence = self._draft.sentence_at(start)
        if sentence is None:
            return None
        text = self._draft.text.lower()
        near = _near(self.spans[OTHER_COST], start, end, sentence.start, sentence.end)
        kept = [(a, b) for a, b in near if a < end or not _ADDED_AFTER.match(text[end:a])]
        return self._nearest(kept, start, end, outside=False)

    def penalty(self, term: str, start: int, end: int, *, outside: bool = False) -> float | None:
        """How far the nearest keyword of term is from [start, end) within its sentence (None: none).

        Characters count 1/40 each; a comma, semicolon or dash between them 0.5; another clause
        `_CLAUSE_COST` (not across a colon: "PTO: 25 days"). With outside, a keyword within [start, end)
        (the "month" of "$600 per month") does not count.
        """
        return self._nearest(self.spans[term], start, end, outside=outside)

    def _nearest(
        self, spans: Sequence[tuple[int, int]], start: int, end: int, *, outside: bool
    ) -> float | None:
        sentence = self._draft.sentence_at(start)
        if sentence is None:
            return None
        best: float | None = None
        for k_start, k_end in _near(spans, start, end, sentence.start, sentence.end):
            if outside and start <= k_start < end:
                continue
            lo, hi = (
                (k_end, start) if k_end <= start else (end, k_start) if k_start >= end else (start, start)
            )
            between = self._draft.text[lo:hi] if hi > lo else ""
            cost = (
                len(between) / 40.0
                + 0.5 * len(_SEPARATORS.findall(between))
                + self._clauses_crossed(lo, hi, between)
            )
            cost += _FIGURE_COST * (
                bisect.bisect_left(self._figures, hi) - bisect.bisect_left(self._figures, lo)
            )
            best = cost if best is None else min(best, cost)
        return best

    def _clauses_crossed(self, lo: int, hi: int, between: str) -> float:
        if hi <= lo:
            return 0.0
        crossed = bisect.bisect_right(self._clause_starts, hi) - bisect.bisect_right(self._clause_starts, lo)
        stripped = between.strip()
        if crossed <= 0 or stripped.startswith(":") or (stripped.endswith(":") and len(stripped) <= 16):
            return 0.0  # "PTO: 25 days", "remote days: 2"
        if stripped in ("\u2014", "\u2013", "-"):
            return 0.0  # "more free rent \u2014 three months": a dash spells out what it follows
        return _CLAUSE_COST * crossed

    def adjacent(self, term: str, start: int) -> bool:
        """Whether a keyword of term ends right before offset start ("bonus 10", "bonus: 10")."""
        text = self._draft.text
        return any(k_end <= start and not text[k_end:start].strip(" :") for _, k_end in self.spans[term])

    def office_noun(self, figure: Figure) -> bool:
        """Whether a count is of days in the office written as a compound ("3 office days", "two
        in-office days a week", "4 onsite days")."""
        return (
            figure.noun in _OFFICE_NOUNS
            and _OFFICE_DAYS.match(self._draft.text.lower(), figure.end) is not None
        )

    def office_days(self, start: int, end: int) -> bool:
        """Whether the days at [start, end) are days in the office ("1 day in the office", "onsite 3
        days"): an office phrase stands nearer to them than any word of remote work, in their sentence."""
        sentence = self._draft.sentence_at(start)
        if sentence is None:
            return False
        text = self._draft.text.lower()
        low, high = max(sentence.start, start - 40), min(sentence.end, end + 40)

        def distance(pattern: re.Pattern[str]) -> float:
            found = [
                (m.start() - end if m.start() >= end else start - m.end() if m.end() <= start else 0)
                for m in pattern.finditer(text, low, high)
            ]
            return min(found, default=math.inf)

        office = distance(_OFFICE)
        return office < math.inf and office < distance(_REMOTE)

    def named_just_before(self, term: str, start: int) -> bool:
        """Whether a keyword of term stands a few words before offset start in its clause ("the quantity
        has to be at least 250k"), with no figure, clause break or conditional marker between."""
        text = self._draft.text
        for k_start, k_end in self.spans[term]:
            if (
                k_end <= start
                and _JUST_BEFORE.match(text[k_end:start])
                and not self.separated(k_start, start)
            ):
                clauses = bisect.bisect_right(self._clause_starts, start) - bisect.bisect_right(
                    self._clause_starts, k_start
                )
                if clauses == 0:
                    return True
        return False

    def named_before_in_sentence(self, term: str, start: int) -> int | None:
        """Where the last keyword of term before offset start stands in its sentence (None: none)."""
        sentence = self._draft.sentence_at(start)
        if sentence is None:
            return None
        found = [k for k, _ in self.spans[term] if sentence.start <= k < start]
        return found[-1] if found else None

    def named_before(self, term: str, start: int) -> int | None:
        """Where the last keyword of term stands in the sentence before the one at start (None: none)."""
        sentence = self._draft.sentence_at(start)
        if sentence is None:
            return None
        index = self._draft.sentences.index(sentence)
        if index == 0:
            return None
        previous = self._draft.sentences[index - 1]
        found = [k for k, _ in self.spans[term] if previous.start <= k < previous.end]
        return found[-1] if found else None

    def nearest(self, start: int, end: int, terms: Sequence[TermDef]) -> TermDef | None:
        """The term whose keyword is nearest to [start, end) in its sentence, if any."""
        scored = [(p, t) for t in terms if (p := self.penalty(t.name, start, end)) is not None]
        return min(scored, key=lambda item: item[0])[1] if scored else None


def misfit(term: TermDef, value: float, slack: float = _SLACK) -> float:
    """How far value lies outside the term's usual range (widened by slack), as a log ratio."""
    if term.typical is None:
        return 0.0
    low, high = term.typical[0] / slack, term.typical[1] * slack
    if value <= 0:
        return 0.0 if term.shape in ("count", "duration") and value == 0 else 10.0
    if low <= value <= high:
        return 0.0
    return abs(math.log(value / (low if value < low else high)))


def _duration(value: float, unit: str, to: str) -> float | None:
    if to == "workdays":
        return value * _WORKDAYS[unit] if unit in _WORKDAYS else None
    if to == "days/week":
        return value if unit == "days" else None
    if unit == "workdays" and to in ("weeks", "days"):
        return value / _WORK_WEEK if to == "weeks" else value  # "15 working days" is 3 weeks
    if unit == "days" and to == "months" and value > 0 and value % 15 == 0:
        return value / 30.0  # "the first 90 days rent-free" is 3 months; a count of days in months
    converted = convert_duration(value, unit, to)
    if converted is None:
        return None
    return round(converted, 1) if unit != to else converted  # "60 days" is 8.6 weeks, as people write it


def _money(term: TermDef, figure: Figure) -> tuple[float, float, bool] | None:
    per = figure.per or (figure.context_per if term.unit is not None else None)
    if per is None:
        return figure.low, figure.high, False
    if term.unit is None:
        return None
    low, high = convert_rate(figure.low, per, term.unit), convert_rate(figure.high, per, term.unit)
    return None if low is None or high is None else (low, high, True)


@cache
def _not_ordered_nouns() -> frozenset[str]:
    return frozenset(str(w) for w in load_yaml_data("term_cues.yaml").get("not_ordered", []))


def _not_ordered(noun: str | None) -> bool:
    """Whether a counted noun is no part ordered but how an order is split or who makes it ("4 shipments",
    "3 shifts", "12 OEMs": `not_ordered` in term_cues.yaml)."""
    return noun is not None and noun.lower() in _not_ordered_nouns()


def convert(term: TermDef, figure: Figure) -> tuple[float, float, bool] | None:
    """figure in term's canonical unit: (low, high, whether its unit or rate says so), or None."""
    kind, unit = figure.kind, figure.unit
    if figure.per_area:
        return None
    if term.shape == "money":
        if kind == "money" or (kind == "number" and figure.noun is None):
            return _money(term, figure)
        return None
    if term.shape == "percent":
        if kind != "percent":
            return None
        factor = _PERCENT_PERIODS.get((figure.per or "", term.unit or ""), 1.0)
        return figure.low * factor, figure.high * factor, True
    if term.shape in ("count", "duration") and kind == "number" and figure.cents:
        return None  # "quoted us 3.05 delivered in 5 weeks": a figure in cents is no count or duration
    if term.shape == "count":
        if kind == "count" and unit == term.unit:
            return figure.low, figure.high, True
        if kind == "count" and term.unit == "units" and unit not in _COUNT_UNITS and not _not_ordered(unit):
            return figure.low, figure.high, True  # "6,000 shafts" (not "4 shipments")
        if term.unit == "days/week" and kind == "duration" and unit == "days":
            return figure.low, figure.high, figure.per_week
        return (figure.low, figure.high, False) if kind == "number" else None
    if term.shape == "duration" and term.unit is not None:
        if kind == "duration" and unit is not None:
            low, high = _duration(figure.low, unit, term.unit), _duration(figure.high, unit, term.unit)
            return None if low is None or high is None else (low, high, True)
        return (figure.low, figure.high, False) if kind == "number" else None
    return None


def _scaled(term: TermDef, figure: Figure, low: float, high: float) -> tuple[float, float]:
    """A bare "140" for a yearly salary is 140,000, a bare "20" for a bonus 20,000 (figures in thousands)."""
    if term.shape != "money" or figure.scaled or figure.currency or figure.per is not None or high >= 1000:
        return low, high
    if term.unit == "year" and high >= 20:
        return low * 1000.0, high * 1000.0
    if term.unit is None and misfit(term, high, 1.0) > 0 and misfit(term, high * 1000.0, 1.0) == 0:
        return low * 1000.0, high * 1000.0
    return low, high


def _alternative(term: TermDef, figure: Figure, low: float, high: float) -> tuple[float, float]:
    if figure.alternative is None or misfit(term, high) == 0.0:
        return low, high
    alt = replace(figure, low=figure.alternative[0], high=figure.alternative[1], alternative=None)
    converted = convert(term, alt)
    if converted is not None and misfit(term, converted[1]) < misfit(term, high):
        return converted[0], converted[1]
    return low, high


def _names(term: TermDef, noun: str) -> bool:
    """Whether noun is (the first word of) one of term's keywords or a word of its label."""
    words = {k.lower().split()[0] for k in term.keywords if k.strip()} | set(term.label.lower().split())
    return noun in _GENERIC_NOUNS or noun in words or noun.rstrip("s") in words


_GENERIC_NOUNS = frozenset(
    {"minimum", "maximum", "min", "max", "period", "term", "window", "duration", "length", "limit", "cap",
     "floor", "ceiling", "horizon", "timeframe", "time", "stretch", "initial", "fixed", "firm", "extension"}
)  # fmt: skip
"""Nouns a compound duration may modify and still state the term ("an 18-month minimum")."""


def _candidate(term: TermDef, figure: Figure, index: KeywordIndex) -> tuple[float, Attributed] | None:
    keywords = {k.lower() for k in term.keywords}
    if term.unit == "days/week" and figure.kind == "number" and index.office_noun(figure):
        # "3 office days": days in the office, converted to remote days below
        figure = replace(figure, kind="duration", unit="days", noun=None)
    noun_keyword = figure.noun is not None and figure.noun in keywords
    if noun_keyword or figure.scaled:
        figure = replace(figure, noun=None)  # "24 PTO days", "the 12k signing bonus"
    if figure.kind == "count" and figure.unit in keywords and term.unit != figure.unit:
        figure = replace(figure, kind="number", unit=None)  # "20 bonus": the noun names the term
        noun_keyword = True
    money_named = term.shape == "money" and index.adjacent(term.name, figure.start)
    if figure.kind == "number" and figure.noun is not None and money_named:
        figure = replace(figure, noun=None)  # "bonus 10 upfront": the keyword just before names it
    if figure.kind == "number" and figure.noun is not None:
        return None  # "85 CNC machines", "3 business days": a count of something else
    if figure.kind == "duration" and figure.noun is not None and not _names(term, figure.noun):
        return None  # "a two-year supply agreement" is no lead time; "a 36-month warranty" is a warranty
    converted = convert(term, figure)
    if converted is None:
        return None
    low, high, explicit = converted
    low, high = _alternative(term, figure, low, high)
    if term.unit == "days/week" and figure.kind == "duration" and index.office_days(figure.start, figure.end):
        if high > _WORK_WEEK:
            return None
        low, high, explicit = _WORK_WEEK - high, _WORK_WEEK - low, True  # "1 day in the office": 4 remote
        noun_keyword = True
    penalty = 0.0 if noun_keyword else index.penalty(term.name, figure.start, figure.end)
    if penalty is None and figure.unit in _SHORT_SPANS and term.unit in _LONG_SPANS:
        return None  # "that's 7 weeks out": a span in weeks names no warranty counted in months
    if penalty is None and not (
        explicit and (term.field is not None or figure.kind == "count") and figure.unit != "workdays"
    ):
        return None  # ("pricing may take 3 business days": working days name their term or none)
    if penalty is not None and not explicit:
        low, high = _scaled(term, figure, low, high)
    bare = term.shape == "money" and term.unit is None and not (figure.currency or figure.scaled)
    off = misfit(term, high, 1.0 if bare else _SLACK)  # a bare "118" is no $118 bonus
    # A rate written for the negotiated term is read however large ("$80,000/hour"): the boundary
    # check puts it to the principal rather than the delegate ignoring it.
    limit = _TYPED_MISFIT_LIMIT if explicit else _MISFIT_LIMIT
    named_shape = term.shape == "count" or (term.shape == "money" and figure.currency)
    if (
        not explicit
        and named_shape
        and (index.named_just_before(term.name, figure.start) or index.adjacent(term.name, figure.start))
    ):  # "the quantity has to be at least 250k", "Unit price: USD 0.64": its keyword names it
        limit = _NAMED_MISFIT_LIMIT
    if explicit and term.shape == "count" and term.typical is not None and high > term.typical[1]:
        limit = _COUNTED_MISFIT_LIMIT  # "1 million units", "2,000,000 units": counted in the term's unit
    if off > limit and not (explicit and term.negotiated):
        return None
    score = off + (0.0 if explicit else 0.3) + (penalty if penalty is not None else _UNNAMED_COST)
    confidence = (
        0.95 if explicit and penalty is not None else 0.9 if penalty is not None and penalty < 1.0 else 0.85
    )
    keyed = penalty is not None and penalty < _CLAUSE_COST
    return score, Attributed(term, low, high, confidence, figure, not explicit and not keyed, keyed)


_SUBJECT_BEFORE = re.compile(
    r"\b(?:i|we|they|he|she|you|i'd|we'd|we'll|i'll|would|will|to"
    r"|inclusive of|including|includes|incl\.?)\s+$"
)
"""Before a cost word, a subject or auxiliary makes it a verb ("I charge 95/hr"), not another cost; so
does "inclusive of" make it part of the figure ("Rent inclusive of utilities: $3,450/month")."""
_OBJECT_AFTER = re.compile(r"\w*\s+(?:us|you|him|her|them|me)\b")
"""After a cost word, an object makes it a verb ("The previous supplier charged us $8.10")."""
OTHER_COST = "_other_cost"
"""The pseudo-term of money named beside another cost (a fee, freight, parking): no term's value."""


def attribute(figure: Figure, terms: Sequence[TermDef], index: KeywordIndex) -> Attributed | None:
    """The term figure states, by unit, keyword and magnitude (None when no term claims it, or when
    it is money named beside another cost)."""
    scored = [
        c for term in terms if term.shape not in ("enum", "date") if (c := _candidate(term, figure, index))
    ]
    if not scored:
        return None
    score, best = min(scored, key=lambda item: item[0])
    if figure.kind == "money" or best.term.shape == "money":
        other = index.cost_penalty(figure.start, figure.end)
        named = index.penalty(best.term.name, figure.start, figure.end, outside=True)
        # A keyword right before the figure ("Rent is $9,000 a month plus a one-time fee") names it
        # closer than the cost word after it.
        if other is not None and other < 0.75 and other < (9.0 if named is None else named):
            return None
    return best if score < 9.0 else None


def attribute_across(figure: Figure, terms: Sequence[TermDef], index: KeywordIndex) -> Attributed | None:
    """A figure with a unit no term in its sentence claims, read as the term named last in the sentence
    before when its unit converts to that term's ("20 days PTO is low... we'd sign with 25 days")."""
    if figure.kind not in ("duration", "count") or figure.unit is None:
        return None
    best: tuple[int, Attributed] | None = None
    for term in terms:
        at = index.named_before(term.name, figure.start)
        converted = convert(term, figure) if at is not None else None
        if at is None or converted is None or not converted[2] or misfit(term, converted[1]) > 0:
            continue
        if best is None or at > best[0]:
            best = (at, Attributed(term, converted[0], converted[1], 0.7, figure))
    return best[1] if best is not None else None


def names_other_cost(figure: Figure, index: KeywordIndex) -> bool:
    """Whether money is named right beside another cost ("a $300 per diem", "$40 freight"): no term's
    value, and no default term's either."""
    if figure.kind != "money":
        return False
    other = index.penalty(OTHER_COST, figure.start, figure.end)
    return other is not None and other < 0.75


def inherit(figure: Figure, previous: Attributed) -> Attributed | None:
    """A figure whose unit was carried over from the one before ("24 months standard; we can extend
    to 30") states the same term, when its magnitude fits."""
    converted = convert(previous.term, figure)
    if converted is None or misfit(previous.term, converted[1]) > _MISFIT_LIMIT:
        return None
    return Attributed(previous.term, converted[0], converted[1], 0.85, figure)


def fallback(
    figure: Figure, previous: Attributed | None, asked: Sequence[TermDef], negotiated: Sequence[TermDef]
) -> Attributed | None:
    """A bare figure no keyword claims: the term just named, the term asked about, or the negotiated one."""
    if figure.kind not in ("number", "money") or figure.noun is not None or figure.per is not None:
        return None
    if (
        previous is not None
        and figure.kind == "number"
        and not (figure.cents and previous.term.shape in ("count", "duration"))
    ):  # "an 18-month warranty and we're at 7.15": a figure in cents is no count or span of time
        source = previous.figure
        inherited = replace(
            figure, kind=source.kind, per=source.per, unit=source.unit, context_per=source.context_per
        )
        converted = convert(previous.term, inherited)
        if converted is not None:
            low, high = _scaled(previous.term, figure, converted[0], converted[1])
            if misfit(previous.term, high) <= _MISFIT_LIMIT:
                return Attributed(previous.term, low, high, 0.8, inherited)
    for group in (asked, negotiated):
        best: tuple[float, Attributed] | None = None
        for term in group:
            converted = convert(term, figure) if term.shape != "enum" else None
            if converted is None:
                continue
            low, high = _scaled(term, figure, converted[0], converted[1])
            off = misfit(term, high)
            # Money written as money ("$0.96", "USD 6.35", or a bare "0.92" in cents) is the negotiated
            # price further from the principal's band than a bare figure is: its cents say what it is.
            tolerance = _PRICED_FALLBACK if _priced(figure) else 1.0
            if off <= tolerance and (best is None or off < best[0]):
                best = (off, Attributed(term, low, high, 0.8, figure))
        if best is not None:
            return best[1]
    return None


def _priced(figure: Figure) -> bool:
    """Whether a figure is written as money: with a currency and cents, or in cents alone ("we can
    shave to 0.92", "no deal at 3.20"), as money is written and counts and spans of time are not."""
    return figure.cents and (figure.kind == "number" or (figure.kind == "money" and figure.currency))


_FOR_QUANTITY = re.compile(
    r"(?:^|[^\w$\u20ac\u00a3.,])(?:for|at|on)\s+(?:the\s+)?(?:whole\s+|full\s+|entire\s+|total\s+)?$"
    r"|\b(?:you|they|we|i)\s+(?:also\s+)?(?:take|order|buy|purchase|commit\s+to)\s+(?:the\s+|all\s+)?"
    r"(?:whole\s+|full\s+|entire\s+|total\s+)?$",
    re.IGNORECASE,
)
"""Right before a bare quantity a price is for ("3.70 for 30k", "0.92 each for the 100k run", "$21,000 for
the 50,000"), or that a party takes ("if you take the full 9,000", "we order 12,000")."""
_QUANTITY_MISFIT_LIMIT = 2.5


def quantity_for(figure: Figure, terms: Sequence[TermDef], text: str) -> Attributed | None:
    """A bare whole number after "for" or "at" as the count of units an order is for, in a domain with one
    such term, when its magnitude is near that term's: the price of the clause is for that many."""
    if figure.kind != "number" or figure.currency or figure.cents or figure.per is not None:
        return None
    if figure.noun is not None or figure.low != figure.high or figure.low < 1000:
        return None
    units = [t for t in terms if t.shape == "count" and t.unit == "units"]
    if len(units) != 1 or not _FOR_QUANTITY.search(text[max(0, figure.start - 30) : figure.start]):
        return None
    term = units[0]
    if misfit(term, figure.high) > _QUANTITY_MISFIT_LIMIT:
        return None
    return Attributed(term, figure.low, figure.high, 0.8, figure)
