"""Information hiding: finds outgoing sentences that tell the counterparty where a private limit lies.

The principal's limits (each boundary term's minimum and maximum, an enumerated term's allowed set,
and any limit the principal widened) are private. A sentence discloses one when a cue from
`data/disclosure.yaml` speaks for our side and is tied to a value of a boundary term ("our ceiling is
$14", "I can't go above $85 an hour", "the only payment terms we can accept are net 60 or net 90") or
points at the figure on the table ("that's our absolute maximum", "I can't go any higher"). A plain
offer at the limit carries no cue, so it is not a disclosure.

Figures are read by `amounts.term_amounts` once for the whole draft, so every written form counts
("up to one hundred thousand dollars", "12k/month", "$8,333 a month" for a yearly salary) and the scan
is linear. A figure discloses only when it lies within the margin of `data/disclosure.yaml` (a fraction
of the limit) of a private limit: "we can't go beyond $70K" against a $100K maximum gives nothing away.
A cue that points back at a figure of an earlier sentence ("We can offer $100,000. That's as high as we
go.") is judged on that figure; with no figure anywhere it still counts (the figure on the table).

Bound cues come in named families (`bounds` in the YAML: negated moves, "nothing beyond", "at most",
"tops out", "as far as", superlatives, authority, escalation, walking away, "that's it", labels), so
`tests/governance/measure_disclosure_cv.py --families` can measure what each adds per labelled source.
The check fails closed: a cue tied in its clause to a figure the amount reader attributes to no term
("the band tops out at 100", "fourteen is as far as we can stretch", "anything past six figures") is
held as an "unread" disclosure, since it cannot be judged against the limits. Third parties as subjects
("market rents go up to 12,000") and asides to the other side ("just so you know") are read before the
owner of a cue is decided. A noun that is a limit only when ours ("floor", "range", "number") must
be determined by our possessive ("our floor", "my range") or granted to us ("approved a band of"), not
by an article ("we'll take the whole floor", "we're exploring a range"). Each cue reads a bounded
window before it and each clause is scanned once, so the check is linear in the draft.
"""

from __future__ import annotations

import bisect
import re
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from functools import cache, lru_cache
from typing import Any, Literal

from parley.governance.amounts import MAX_READ_CHARS, TermAmount
from parley.governance.attribution import (
    Limits,
    enum_mentions,
    quotes_counterparty,
)
from parley.governance.config import BoundaryTerm, DomainConfig, load_yaml_data
from parley.governance.draft import LONGEST_CLAUSE, MAX_CLAUSES, MAX_FIGURES, Draft, attribute_amounts, parse
from parley.governance.text import find_phrases, keyword_distance

DisclosureKind = Literal["figure", "allowed_set", "structural", "unread"]
_OWNER_WINDOW = 4
_OWNER_REACH = 160  # characters before a cue read for its possessor, a refusal or a quote
_NEXT_WORD = re.compile(r"[ \t]*([A-Za-z][\w'-]*)")  # the word right after a figure, if one follows


@dataclass(frozen=True, slots=True)
class DisclosureFinding:
    """A sentence that states (or points at) one of the principal's private limits.

    Attributes:
        sentence: The disclosing sentence.
        cue: The words that present a value as our limit.
        kind: "figure" (a number for a term), "allowed_set" (options of an enumerated term),
            "structural" (no figure: it points at the figure on the table) or "unread" (a figure the
            amount reader attributes to no term, stated as our limit: held, since it cannot be judged).
        term: The boundary term whose limit is disclosed, when known.
        value: The figure (in the term's unit) or the options named.
        limit: The private limit nearest the figure, or the allowed set.
    """

    sentence: str
    cue: str
    kind: DisclosureKind
    term: str | None = None
    value: float | str | None = None
    limit: float | str | None = None

    def to_json(self) -> dict[str, Any]:
        """A JSON-ready dict."""
        return {
            "sentence": self.sentence,
            "cue": self.cue,
            "kind": self.kind,
            "term": self.term,
            "value": self.value,
            "limit": self.limit,
        }

    def describe(self) -> str:
        """One line for people: the cue, the sentence and what it gives away."""
        if self.cue == UNCHECKED:
            return f"the text could not be checked whole ({self.value}): held as a possible disclosure"
        if self.kind == "structural":
            what = "points at the figure on the table as our limit" + (f" ({self.term})" if self.term else "")
        elif self.kind == "unread":
            what = f"states {self.value!r} as our limit, a figure that could not be read"
        elif self.kind == "allowed_set":
            what = f"{self.term} {self.value} (allowed set {self.limit})"
        else:
            what = f"{self.term} {self.value} (private limit {self.limit})"
        return f"{self.cue!r} in {self.sentence!r}: {what}"


@dataclass(frozen=True, slots=True)
class Bound:
    """One pattern of a family of bound cues in data/disclosure.yaml."""

    family: str
    pattern: re.Pattern[str]


_WORD_RUN = re.compile(r"\w+")


@dataclass(frozen=True, slots=True)
class Phrases:
    """A phrase list with the words of each: a text holds a phrase only if it holds each of its words as a
    whole run of word characters, so a window is split into words once and only the phrases whose words
    it holds are searched for (most windows hold none), instead of one search per phrase.

    Attributes:
        phrases: The phrases.
        runs: The runs of word characters of each phrase, lowercased (in the order of phrases).
    """

    phrases: tuple[str, ...]
    runs: tuple[frozenset[str], ...]

    @classmethod
    def of(cls, phrases: Iterable[str]) -> Phrases:
        """The phrases and their words."""
        kept = tuple(p for p in phrases if _WORD_RUN.search(p))
        return cls(kept, tuple(frozenset(_WORD_RUN.findall(p.lower())) for p in kept))

    def __iter__(self) -> Iterator[str]:
        return iter(self.phrases)

    def __contains__(self, phrase: object) -> bool:
        return phrase in self.phrases

    def find(self, text: str) -> list[tuple[int, str]]:
        """Start offsets and phrases found in text, in order (as `text.find_phrases`)."""
        words = set(_WORD_RUN.findall(text.lower()))
        held = [phrase for phrase, runs in zip(self.phrases, self.runs, strict=True) if runs <= words]
        return find_phrases(text, held) if held else []


@dataclass(frozen=True, slots=True)
class Lexicon:
    """The cue lists of data/disclosure.yaml, compiled."""

    bounds: tuple[Bound, ...]
    nouns: Phrases
    owned_nouns: Phrases
    compounds: Phrases
    others: tuple[str, ...]
    ours: tuple[str, ...]
    relations: Phrases
    proximity: Phrases
    anchors: tuple[re.Pattern[str], ...]
    restrictions: tuple[re.Pattern[str], ...]
    refusals: Phrases
    margin: float
    directed_margin: float
    asides: Phrases
    numbers: re.Pattern[str]
    valued: tuple[re.Pattern[str], ...]
    followers: frozenset[str]
    unread_units: frozenset[str]
    bare_margin: float = -1.0
    safe_frames: tuple[tuple[str, re.Pattern[str]], ...] = ()


@dataclass(frozen=True, slots=True)
class _Cue:
    start: int
    end: int
    text: str
    kind: Literal["bound", "noun", "restriction"]
    owned: bool = False  # a noun that is a limit only when our side owns it


@dataclass(frozen=True, slots=True)
class _Value:
    term: BoundaryTerm
    value: float | str
    start: int


@dataclass(frozen=True, slots=True)
class _Sentence:
    """One sentence of the parsed draft with the boundary-term values it names (figures and enumerated
    options); positions are relative to the sentence, and its clauses are the draft's.

    Attributes:
        text: The sentence (normalised).
        start: Its offset in the draft.
        draft: The parsed draft it belongs to.
        figures: Figures of boundary terms near a private limit (positions relative to the sentence).
        options: Options of enumerated boundary terms it names.
        claimed: Draft offsets of the amounts attributed to a boundary term.
    """

    text: str
    start: int
    draft: Draft
    figures: tuple[_Value, ...] = ()
    options: tuple[_Value, ...] = ()
    claimed: frozenset[int] = frozenset()

    def clause(self, start: int, end: int | None = None) -> tuple[int, int]:
        """(start, end), relative to the sentence, of the draft's clauses holding start and end."""
        first = self.draft.clause_at(self.start + start)
        last = self.draft.clause_at(self.start + (start if end is None else end))
        low = first.start - self.start if first is not None else 0
        high = last.end - self.start if last is not None else len(self.text)
        return max(0, low), min(len(self.text), max(high, low))

    def negated(self, position: int) -> bool:
        """Whether a negator governs the word at position (relative) in its clause."""
        return self.draft.negated_at(self.start + position)

    def has_value(self, start: int, end: int) -> bool:
        """Whether the draft reads any value mention within [start, end) of the sentence."""
        return bool(self.draft.amounts_in(self.start + start, self.start + end))


@cache
def lexicon() -> Lexicon:
    """The cue lists of data/disclosure.yaml (read once)."""
    raw = load_yaml_data("disclosure.yaml")

    def patterns(key: str) -> tuple[re.Pattern[str], ...]:
        return tuple(re.compile(p, re.IGNORECASE) for p in raw[key])

    def words(key: str) -> tuple[str, ...]:
        return tuple(str(w) for w in raw[key])

    def phrases(key: str) -> Phrases:
        return Phrases.of(words(key))

    bounds = tuple(
        Bound(str(family), re.compile(p, re.IGNORECASE))
        for family, group in raw["bounds"].items()
        for p in group
    )
    # a figure glued to Latin letters is a label ("Q3", "v2"); glued to letters of another script
    # ("1Ж2,000", "ЖЖ,000") it is a figure the amount reader does not read, so it counts here (fail closed)
    digits = (
        r"(?<![A-Za-z0-9_])(?<![A-Za-z0-9_][.,])(?!(?:19|20)\d\d\b)\d(?:[\d,.]*\d)?(?![A-Za-z0-9_%-]|\s*%)"
    )
    spelled = "|".join(re.escape(w) for w in words("number_words"))
    return Lexicon(
        bounds,
        phrases("nouns"),
        phrases("owned_nouns"),
        phrases("compounds"),
        words("others"),
        words("ours"),
        phrases("relations"),
        phrases("proximity"),
        patterns("anchors"),
        patterns("restrictions"),
        phrases("refusals"),
        float(raw.get("margin", 0.05)),
        float(raw.get("directed_margin", raw.get("margin", 0.05))),
        phrases("asides"),
        re.compile(rf"{digits}|\b(?:{spelled})\b", re.IGNORECASE),
        patterns("valued"),
        frozenset(words("figure_followers")),
        frozenset(words("unread_units")),
        float(raw.get("bare_margin", -1.0)),
        tuple(
            (str(frame), re.compile(p, re.IGNORECASE))
            for frame, group in raw.get("safe_frames", {}).items()
            for p in group
        ),
    )


# -- values of boundary terms ---------------------------------------------------------------------------
_QUOTE_REACH = 100  # characters before a figure searched for a quote of the counterparty


def _figures(
    config: DomainConfig, sentence: _Sentence, found: list[TermAmount], starts: list[int]
) -> list[_Value]:
    """Term amounts of the draft (sorted by offset, starts: their offsets) that lie in sentence and are
    not quoted from the counterparty; positions relative to the sentence. Linear: the amounts of the
    sentence are found by bisection and each quote check reads a bounded window of the figure's clause."""
    terms = {t.name: t for t in config.boundary.terms}
    offset, text = sentence.start, sentence.text
    first, last = bisect.bisect_left(starts, offset), bisect.bisect_left(starts, offset + len(text))
    values: list[_Value] = []
    for amount in found[first:last]:
        start = amount.start - offset
        clause_start, _ = sentence.clause(start)
        window = text[max(clause_start, start - _QUOTE_REACH) : start]
        if sentence.draft.quoted(amount.start) or quotes_counterparty(window):
            continue
        values.append(_Value(terms[amount.term], amount.high, start))
    return sorted(values + _per_unit_totals(config, sentence), key=lambda v: v.start)


def _per_unit_totals(config: DomainConfig, sentence: _Sentence) -> list[_Value]:
    """A total for a stated number of units, as the price of one ("For 1,000 units our budget caps out
    at $14,000 in total" names $14 a unit): each money figure of the sentence with no rate that no term
    claims, divided by the one count of units the sentence names, for the term priced per unit."""
    priced = next((t for t in config.boundary.terms if t.kind == "money" and t.unit == "unit"), None)
    if priced is None:
        return []
    offset = sentence.start
    amounts = sentence.draft.amounts_in(offset, offset + len(sentence.text))
    counts = {a.high for a in amounts if a.kind == "count" and a.unit == "units" and not a.is_range}
    if len(counts) != 1 or next(iter(counts)) < 2:
        return []
    count = next(iter(counts))
    return [
        _Value(priced, a.high / count, a.start - offset)
        for a in amounts
        if a.kind == "money"
        and a.per is None
        and a.start not in sentence.claimed
        and not a.is_range
        and not sentence.draft.quoted(a.start)
    ]


def _options(config: DomainConfig, sentence: str) -> list[_Value]:
    """Options of enumerated boundary terms named in sentence (not as quotes of the counterparty)."""
    return [_Value(term, option, start) for term, option, start, _ in enum_mentions(config, sentence)]


# -- cues -----------------------------------------------------------------------------------------------
_DAY = r"(?:0?[1-9]|[12]\d|3[01])"
_MONTHS = r"(?:jan|feb|mar|apr|may|jun|jul|aug|sep|sept|oct|nov|dec)[a-z]*\.?"
# A calendar date right after a bound ("no later than 20 December", "at the latest by March 3rd", "no later
# than Friday"): the bound governs that date, not a price or a quantity elsewhere in the sentence.
_DATE_NEXT = re.compile(
    r"\s*(?:(?:on|by|the)\s+){0,2}(?:"
    rf"\d{{1,2}}(?:st|nd|rd|th)?\s+(?:of\s+)?{_MONTHS}(?![a-z])"
    rf"|{_MONTHS}\s+\d{{1,2}}(?:st|nd|rd|th)?\b"
    r"|(?:mon|tues|wednes|thurs|fri|satur|sun)day\b"
    # a day and a month, each 1 to 31 (not "14.00", a price with its cents: set v13)
    rf"|{_DAY}[/.-]{_DAY}(?:[/.-]\d{{2,4}})?\b(?![.,]?\d)"
    r"|(?:end|close) of (?:the )?(?:day|week|month|quarter|year)\b|tomorrow\b|today\b|tonight\b"
    r")",
    re.IGNORECASE,
)


def _cues(sentence: str, lexicon: Lexicon) -> list[_Cue]:
    cues = [
        _Cue(m.start(), m.end(), m.group(0), "bound")
        for bound in lexicon.bounds
        for m in bound.pattern.finditer(sentence)
        if not _DATE_NEXT.match(sentence, m.end())  # a deadline bounds its date, not our figures
    ]
    compounds = sorted((s, s + len(c)) for s, c in lexicon.compounds.find(sentence))
    compound_starts = [s for s, _ in compounds]
    for names, owned in ((lexicon.nouns, False), (lexicon.owned_nouns, True)):
        for start, noun in names.find(sentence):
            # compounds do not nest: the one starting last at or before the noun is the only candidate
            at = bisect.bisect_right(compound_starts, start) - 1
            if at < 0 or start >= compounds[at][1]:
                cues.append(_Cue(start, start + len(noun), noun, "noun", owned))
    cues += [
        _Cue(m.start(), m.end(), m.group(0), "restriction")
        for p in lexicon.restrictions
        for m in p.finditer(sentence)
    ]
    return sorted(cues, key=lambda cue: cue.start)


@cache
def _possessors(names: tuple[str, ...]) -> frozenset[str]:
    """The names and their possessives ("landlord", "landlord's")."""
    return frozenset((*names, *(f"{name}'s" for name in names)))


def _owner(config: DomainConfig, before: str, lexicon: Lexicon) -> str | None:
    """Whose limit the nearest possessor or subject before a cue makes it: ours, theirs or None."""
    theirs = _possessors((*lexicon.others, config.counterparty_role.split()[-1].lower()))
    ours = _possessors((*lexicon.ours, config.principal_role.split()[-1].lower()))
    lowered = before.lower()
    for start, aside in lexicon.asides.find(lowered):
        lowered = lowered[:start] + " " * len(aside) + lowered[start + len(aside) :]
    found = re.findall(r"[\w'-]+", lowered)[-_OWNER_WINDOW - 1 :]
    for index in range(len(found) - 1, max(len(found) - 1 - _OWNER_WINDOW, -1), -1):
        word, previous = found[index], found[index - 1] if index > 0 else ""
        if word == "you" and previous in _ADDRESSING:
            continue  # the one addressed owns nothing: "I should tell you that finance capped us at" (v11)
        if word in theirs:  # "our rates" stays ours, "market rates" does not
            return "ours" if previous in ("our", "my") else "theirs"
        if word in ours:  # "our client's number" is ours, "your client's number" is not (set v12)
            return "theirs" if previous in _THEIR_DETERMINERS else "ours"
    return None


# Words after which "you" is the one addressed, not a subject or possessor ("let you know", "level with you").
_ADDRESSING = frozenset(
    {"tell", "told", "telling", "let", "assure", "remind", "warn", "inform", "promise", "advise", "with"}
)
# Determiners of the other side that own a possessor of ours in turn ("your client's", "their company's").
_THEIR_DETERMINERS = frozenset({"your", "their", "his", "her"})


_ARTICLES = frozenset(
    {"a", "an", "the", "this", "that", "whole", "entire", "any", "every", "each", "another"}
)


def _determined_by_us(config: DomainConfig, before: str, lexicon: Lexicon) -> bool:
    """Whether an owned noun ("floor", "range", "number") is determined by a possessive of our side within
    the three words before it ("our floor", "my top end", "our salary range"), not by an article ("we'll
    take the whole floor", "we're exploring a range"): only a possessed one names our limit."""
    ours = _possessors((*lexicon.ours, config.principal_role.split()[-1].lower()))
    words = re.findall(r"[\w'-]+", before.lower())[-4:]
    for index in range(len(words) - 1, max(len(words) - 4, -1), -1):
        if words[index] in _ARTICLES:
            # a granted one is ours all the same: "the hiring manager approved a salary range of $80K"
            return index > 0 and words[index - 1] in _GRANTED
        if words[index] in ours:
            return True
    return False


_GRANTED = frozenset(
    {
        "approved",
        "authorised",
        "authorized",
        "gave",
        "given",
        "set",
        "allotted",
        "allocated",
        "budgeted",
        "got",
    }
)


def _refused(sentence: _Sentence, start: int, before: str, lexicon: Lexicon) -> bool:
    """Whether a negated verb of telling precedes the cue in its clause ("I can't share our budget")."""
    offset = start - len(before)
    return any(sentence.negated(offset + s) for s, _ in lexicon.refusals.find(before))


_OUR_POSSESSIVE = re.compile(r"\b(?:our|my)\b", re.IGNORECASE)


def _speaks_for_us(config: DomainConfig, sentence: _Sentence, cue: _Cue, lexicon: Lexicon) -> bool:
    clause_start, _ = sentence.clause(cue.start)
    # a bounded window of the clause before the cue: each cue costs the same, so the scan stays linear
    before = sentence.text[max(clause_start, cue.start - _OWNER_REACH) : cue.start]
    owner = _owner(config, before, lexicon)
    if _OUR_POSSESSIVE.search(cue.text) is not None:
        owner = "ours"  # the cue names its owner: "we'll meet you at our maximum" (set v8)
    if owner == "theirs" or (
        cue.owned and (owner != "ours" or not _determined_by_us(config, before, lexicon))
    ):
        return False
    return not quotes_counterparty(before) and not _refused(sentence, cue.start, before, lexicon)


def _placement(sentence: _Sentence, cue: _Cue, lexicon: Lexicon) -> str | None:
    """How the words before a noun place a figure: pinned to it ("near"), or a bare "one-sided" comparison."""
    clause_start, _ = sentence.clause(cue.start)
    before = " ".join(sentence.text[max(clause_start, cue.start - _OWNER_REACH) : cue.start].split()[-6:])
    if lexicon.proximity.find(before):
        return "near"
    if any(p.match(sentence.text, cue.end) for p in lexicon.valued):
        return None  # the noun's own value follows it ("within a budget of $100K")
    return "one-sided" if lexicon.relations.find(" ".join(before.split()[-3:])) else None


# -- linking a cue to what it discloses -----------------------------------------------------------------
def _nearest(values: list[_Value], position: int) -> _Value | None:
    return min(values, key=lambda v: abs(v.start - position)) if values else None


Direction = Literal["ceiling", "floor"] | None

# Words of a cue that say which end of the band it names: a ceiling ("can't go above", "the most", "up
# to", "our cap") or a floor ("at least", "can't go below", "our minimum"); neither: the nearest limit.
_CEILING = re.compile(
    r"\b(?:above|over|beyond|past|exceed\w*|higher|highest|more|most|further|north|excess|max\w*|top\w*|"
    r"cap|caps|capped|capping|ceiling|up to|as (?:high|much|far|long) as|longer|longest|latest|peak\w*|"
    r"upper|outer|far)\b",
    re.IGNORECASE,
)
_FLOOR = re.compile(
    r"\b(?:below|under|lower|lowest|less|least|fewer|fewest|south|min\w*|floor|bottom(?![ -]line)|"
    r"as (?:low|little|few|short) as|shorter|shortest)\b",
    re.IGNORECASE,
)
# "at or below $14", "$14 or less": the figure bounds the other way from "can't go below $14".
_OR_BEYOND = re.compile(r"\bat or\b|^\W*or\b", re.IGNORECASE)


@lru_cache(maxsize=4096)
def direction(cue: str) -> Direction:
    """Which end of a term's band a cue names: "ceiling" ("can't go above", "the most", "up to", "our
    cap", "$14 or less"), "floor" ("at least", "can't go below", "our minimum", "500 units or more"), or
    None when it names neither or both ("our limit", "our bottom line")."""
    ceiling, floor = _CEILING.search(cue) is not None, _FLOOR.search(cue) is not None
    if _OR_BEYOND.search(cue):
        ceiling, floor = floor, ceiling
    return "ceiling" if ceiling and not floor else "floor" if floor and not ceiling else None


def _private_limit(
    term: BoundaryTerm, value: float, overrides: Limits, toward: Direction = None
) -> float | None:
    """The private limit of term nearest value: among the maxima for a ceiling, the minima for a floor
    (all of them when the term has none of that end, or the cue names neither)."""
    low, high = overrides.get(term.name, (None, None))
    ends = {"floor": (term.minimum, low), "ceiling": (term.maximum, high)}
    limits = [x for x in ends.get(toward or "", ()) if x is not None] if toward else []
    if not limits:
        limits = [x for x in (term.minimum, term.maximum, low, high) if x is not None]
    return min(limits, key=lambda x: abs(x - value)) if limits else None


def _within(value: float, limit: float | None, margin: float) -> bool:
    return limit is not None and abs(value - limit) <= margin * max(abs(limit), 1e-9) + 1e-9


def _near_limit(
    term: BoundaryTerm, value: float, overrides: Limits, lexicon: Lexicon, toward: Direction = None
) -> bool:
    """Whether value lies within the margin (a fraction of the limit) of one of term's private limits,
    or within the wider directed margin of the limit at the end of the band the cue names (of the
    nearest limit when it names neither end): "the most we can pay is 10,500 a month" or "our limit is
    11,000 per month" against a 12,000 maximum, not "we can go up to $80,000" against a $100,000 maximum
    (at an $80,000 minimum it is within the margin)."""
    if _within(value, _private_limit(term, value, overrides), lexicon.margin):
        return True
    return _within(value, _private_limit(term, value, overrides, toward), lexicon.directed_margin)


def _finding(
    sentence: _Sentence, cue: _Cue, value: _Value, overrides: Limits, toward: Direction = None
) -> DisclosureFinding:
    term = value.term
    if isinstance(value.value, str):
        named = ",".join(dict.fromkeys(str(o.value) for o in sentence.options if o.term == term))
        allowed = ",".join(term.allowed)
        return DisclosureFinding(sentence.text, cue.text, "allowed_set", term.name, named, allowed)
    limit = _private_limit(term, value.value, overrides)
    if toward is not None and not _within(value.value, limit, lexicon().margin):
        limit = _private_limit(term, value.value, overrides, toward)  # within the directed margin
    return DisclosureFinding(sentence.text, cue.text, "figure", term.name, value.value, limit)


def _structural(config: DomainConfig, sentence: str, cue: _Cue) -> DisclosureFinding:
    scored = [(keyword_distance(sentence, cue.start, t.keywords), t.name) for t in config.boundary.terms]
    near = sorted((d, name) for d, name in scored if d is not None)
    return DisclosureFinding(sentence, cue.text, "structural", near[0][1] if near else None)


def _anchored(clause: str, lexicon: Lexicon) -> bool:
    return any(p.search(clause) for p in lexicon.anchors)


@dataclass(slots=True)
class _Scope:
    """What the cues of one sentence share: its values by offset, and what was read of each clause
    (each clause is scanned once however many cues it holds, so a sentence costs linear time)."""

    values: list[_Value]
    starts: list[int] = field(default_factory=list[int])
    unread: dict[tuple[int, int], str | None] = field(default_factory=dict[tuple[int, int], str | None])
    anchored: dict[tuple[int, int], bool] = field(default_factory=dict[tuple[int, int], bool])

    def __post_init__(self) -> None:
        self.values.sort(key=lambda v: v.start)
        self.starts = [v.start for v in self.values]

    def between(self, start: int, end: int) -> list[_Value]:
        return self.values[bisect.bisect_left(self.starts, start) : bisect.bisect_left(self.starts, end)]


def _link(
    config: DomainConfig,
    sentence: _Sentence,
    cue: _Cue,
    overrides: Limits,
    lexicon: Lexicon,
    scope: _Scope,
    earlier: _Value | None = None,
) -> DisclosureFinding | None:
    """What cue discloses in sentence, if anything.

    A bound reaches a value anywhere in the sentence, a restriction an enumerated option, a noun a
    value in its own clause; without a value, a cue pointed at the figure on the table counts: the
    figure of an earlier sentence when there is one (if it lies near a limit), else the cue alone.
    """
    text = sentence.text
    if cue.kind == "restriction":
        option = _nearest(list(sentence.options), cue.start)
        return _finding(sentence, cue, option, overrides) if option else None
    clause_start, clause_end = sentence.clause(cue.start, cue.end)
    start, end = (0, len(text)) if cue.kind == "bound" else (clause_start, clause_end)
    placement = _placement(sentence, cue, lexicon) if cue.kind == "noun" else None
    if placement == "one-sided":
        return None
    toward = direction(cue.text)
    value = _nearest(scope.between(start, end), cue.start)
    if value is not None:
        return _finding(sentence, cue, value, overrides, toward)
    span = (clause_start, clause_end)
    if span not in scope.unread:
        scope.unread[span] = _unread(sentence, clause_start, clause_end, lexicon)
    unread = scope.unread[span]
    if unread is not None:  # fail closed: a figure stated as our limit that no term claims
        guess = _structural(config, text, cue)
        return DisclosureFinding(text, cue.text, "unread", guess.term, unread)
    if sentence.has_value(clause_start, clause_end):
        return None  # the figure beside the cue belongs to a term without a boundary, or lies far off
    if span not in scope.anchored:
        scope.anchored[span] = _anchored(text[clause_start:clause_end], lexicon)
    if placement == "near" or scope.anchored[span]:
        if earlier is None or not isinstance(earlier.value, float):
            return _structural(config, text, cue)
        if _near_limit(earlier.term, earlier.value, overrides, lexicon, toward):
            return _finding(sentence, cue, earlier, overrides, toward)
    return None


def _unread(sentence: _Sentence, start: int, end: int, lexicon: Lexicon) -> str | None:
    """The first figure in [start, end) of the sentence that no term claims: digits or a number word
    outside every amount read with a unit or currency and every amount attributed to a boundary term,
    not followed by a word that makes it a count of something else ("six people"), and not inside a
    quotation. Linear in the span (the amounts are found by bisection; each figure reads one word)."""
    offset, text = sentence.start, sentence.text
    read = [
        (a.start, a.end)
        for a in sentence.draft.amounts_in(offset + start, offset + end)
        if (a.kind != "number" or a.start in sentence.claimed) and a.unit not in lexicon.unread_units
    ]
    for match in lexicon.numbers.finditer(text, start, end):
        at = offset + match.start()
        if any(s <= at < e for s, e in read) or sentence.draft.quoted(at):
            continue
        following = _NEXT_WORD.match(text, match.end())
        if following is None or following.group(1).lower() in lexicon.followers:
            return match.group(0)
    return None


def find_disclosures(
    text: str, config: DomainConfig, overrides: Limits | None = None
) -> list[DisclosureFinding]:
    """Sentences of an outgoing text that disclose one of the principal's private limits.

    The text is normalised and parsed once (`draft.parse`, no size limit) and read by
    `find_disclosures_in`; the preflight, which already holds the parsed draft, calls that directly.

    A text longer than the amount reader reads (`amounts.MAX_READ_CHARS`) is not parsed: it fails closed
    with one "unread" finding (`unchecked`), in time independent of its length.

    Args:
        text: The outgoing draft.
        config: Domain config (the boundary holds the limits).
        overrides: Limits the principal widened; they are as private as the configured ones.
    """
    if len(text) > MAX_READ_CHARS:
        return [unchecked(text, f"{len(text):,} characters (at most {MAX_READ_CHARS:,} are checked)")]
    return find_disclosures_in(parse(text, config.non_binding_phrases, max_chars=None), config, overrides)


UNCHECKED = "(not checked)"
"""The cue of the finding a text gets when it cannot be checked whole (see `unchecked`)."""


def unchecked(text: str, why: str) -> DisclosureFinding:
    """The one finding of a text the check cannot read whole (too long, too many figures or clauses, a
    clause too long): an "unread" disclosure, so the text is held, never passed unchecked."""
    return DisclosureFinding(text[:200], UNCHECKED, "unread", None, why)


def _unreadable(draft: Draft) -> str | None:
    """Why a parsed draft cannot be checked whole (the preflight's own limits), or None."""
    if len(draft.text) > MAX_READ_CHARS:
        return f"{len(draft.text):,} characters (at most {MAX_READ_CHARS:,} are checked)"
    if draft.too_many_figures:
        return f"{draft.figures:,} figures (at most {MAX_FIGURES} are read)"
    if draft.unread:
        return f"more than {MAX_CLAUSES:,} clauses"
    longest = max((c.end - c.start for c in draft.clauses()), default=0)
    if longest > LONGEST_CLAUSE:
        return f"a clause of {longest:,} characters (at most {LONGEST_CLAUSE:,})"
    return None


def find_disclosures_in(
    draft: Draft,
    config: DomainConfig,
    overrides: Limits | None = None,
    attributed: Sequence[TermAmount] | None = None,
) -> list[DisclosureFinding]:
    """Sentences of a parsed draft that disclose one of the principal's private limits (one finding
    per disclosing sentence).

    Reads the draft's sentences, clauses and value mentions; it splits and reads nothing again. A draft
    that cannot be read whole (longer than `amounts.MAX_READ_CHARS`, more figures or clauses than the
    parse reads, a clause over `draft.LONGEST_CLAUSE`) gets one "unread" finding (`unchecked`) instead.

    Args:
        draft: The parsed outgoing draft.
        config: Domain config (the boundary holds the limits).
        overrides: Limits the principal widened; they are as private as the configured ones.
        attributed: The draft's amounts attributed to terms (`draft.attribute_amounts`), when the
            caller already has them.
    """
    why = _unreadable(draft)
    if why is not None:
        return [unchecked(draft.text, why)]
    cues, limits = lexicon(), overrides or {}
    found = list(attribute_amounts(draft, config) if attributed is None else attributed)
    starts = [amount.start for amount in found]
    findings: list[DisclosureFinding] = []
    earlier: _Value | None = None  # the last figure of an earlier sentence: the figure on the table
    claimed = frozenset(starts)
    for part in draft.sentences:
        sentence = _Sentence(part.text, part.start, draft, claimed=claimed)
        figures = _figures(config, sentence, found, starts)
        finding = _disclosure(config, sentence, figures, limits, cues, earlier)
        if finding is None:
            finding = _bare_limit(sentence, figures, limits, cues)
        if finding is not None:
            findings.append(finding)
        if figures:
            earlier = figures[-1]
    return findings


def _disclosure(
    config: DomainConfig,
    sentence: _Sentence,
    figures: list[_Value],
    overrides: Limits,
    lexicon: Lexicon,
    earlier: _Value | None,
) -> DisclosureFinding | None:
    """The first cue of one sentence that speaks for us and discloses something, if any."""
    text = sentence.text
    cues = [cue for cue in _cues(text, lexicon) if _speaks_for_us(config, sentence, cue, lexicon)]
    if not cues:
        return None  # most sentences: no need to look for values
    options = tuple(_options(config, text))
    scopes: dict[Direction, tuple[_Sentence, _Scope]] = {}
    for cue in cues:
        toward = direction(cue.text)
        if toward not in scopes:  # the figures near the limit of the end the cue names
            near = tuple(
                v
                for v in figures
                if isinstance(v.value, float) and _near_limit(v.term, v.value, overrides, lexicon, toward)
            )
            linked = _Sentence(text, sentence.start, sentence.draft, near, options, sentence.claimed)
            scopes[toward] = (linked, _Scope([*near, *options]))
        linked, scope = scopes[toward]
        finding = _link(config, linked, cue, overrides, lexicon, scope, _on_the_table(figures, cue, earlier))
        if finding is not None:
            return finding
    return None


def _on_the_table(figures: Sequence[_Value], cue: _Cue, earlier: _Value | None) -> _Value | None:
    """The figure a cue without one of its own points back at: the last one before it in its sentence
    ("We can do $14 per unit; that's our ceiling"), else the last one of an earlier sentence."""
    before = [v for v in figures if v.start < cue.start]
    return before[-1] if before else earlier


BARE = "(limit-valued figure)"
"""The cue of a finding for a figure at a private limit that no frame places as anything but our bound."""


def safe_frame(sentence: _Sentence, start: int, lexicon: Lexicon) -> str | None:
    """The frame that places the figure at start (relative to the sentence) as something other than our
    bound, if any (`safe_frames` in data/disclosure.yaml): a question (read over the sentence), our offer
    or acceptance, the counterparty's ask or quote, a market fact or another deal (read over the figure's
    clause). Each pattern is searched once over a bounded span, so the cost is linear in the clause."""
    del start  # the frame is read over the whole sentence (a clause is too short: "Agreed: 12,000 a month")
    for frame, pattern in lexicon.safe_frames:
        if pattern.search(sentence.text):
            return frame
    return None


def _bare_limit(
    sentence: _Sentence, figures: Sequence[_Value], overrides: Limits, lexicon: Lexicon
) -> DisclosureFinding | None:
    """Fail closed by structure: the first figure of the sentence at a private limit (within
    `bare_margin` of it) that no safe frame of its clause places as an offer, a question, their ask, a
    market fact or another deal: a limit stated bare ("Fourteen bucks a piece is the roof for us", "le
    plafond pour ce poste, c'est 100 000 par an") discloses it whatever words frame it."""
    if lexicon.bare_margin < 0:
        return None
    for value in figures:
        if not isinstance(value.value, float):
            continue
        limit = _private_limit(value.term, value.value, overrides)
        if (
            _within(value.value, limit, lexicon.bare_margin)
            and safe_frame(sentence, value.start, lexicon) is None
        ):
            return DisclosureFinding(sentence.text, BARE, "figure", value.term.name, value.value, limit)
    return None
