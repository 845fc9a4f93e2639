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
"""

from __future__ import annotations

import bisect
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from functools import cache
from typing import Any, Literal

from parley.governance.amounts import TermAmount
from parley.governance.attribution import (
    Limits,
    enum_mentions,
    quotes_counterparty,
)
from parley.governance.config import BoundaryTerm, DomainConfig, load_yaml_data
from parley.governance.draft import Draft, attribute_amounts, parse
from parley.governance.text import find_phrases, keyword_distance

DisclosureKind = Literal["figure", "allowed_set", "structural"]
_OWNER_WINDOW = 4


@dataclass(frozen=True, slots=True)
class DisclosureFinding:
    """A sentence that states (or points at) one of the principal's private limits.

    Attributes:
        sentence: The disclosing sentence.
        cue: The words that present a value as our limit.
        kind: "figure" (a number for a term), "allowed_set" (options of an enumerated term) or
            "structural" (no figure: it points at the figure on the table).
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
        if self.kind == "structural":
            what = "points at the figure on the table as our limit" + (f" ({self.term})" if self.term else "")
        elif self.kind == "allowed_set":
            what = f"{self.term} {self.value} (allowed set {self.limit})"
        else:
            what = f"{self.term} {self.value} (private limit {self.limit})"
        return f"{self.cue!r} in {self.sentence!r}: {what}"


@dataclass(frozen=True, slots=True)
class _Lexicon:
    bounds: tuple[re.Pattern[str], ...]
    nouns: tuple[str, ...]
    owned_nouns: tuple[str, ...]
    compounds: tuple[str, ...]
    others: tuple[str, ...]
    ours: tuple[str, ...]
    relations: tuple[str, ...]
    proximity: tuple[str, ...]
    anchors: tuple[re.Pattern[str], ...]
    restrictions: tuple[re.Pattern[str], ...]
    refusals: tuple[str, ...]
    margin: float


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
    """

    text: str
    start: int
    draft: Draft
    figures: tuple[_Value, ...] = ()
    options: tuple[_Value, ...] = ()

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
def _lexicon() -> _Lexicon:
    raw = load_yaml_data("disclosure.yaml")

    def patterns(key: str) -> tuple[re.Pattern[str], ...]:
        return tuple(re.compile(p, re.IGNORECASE) for p in raw[key])

    def words(key: str) -> tuple[str, ...]:
        return tuple(str(w) for w in raw[key])

    return _Lexicon(
        patterns("bounds"),
        words("nouns"),
        words("owned_nouns"),
        words("compounds"),
        words("others"),
        words("ours"),
        words("relations"),
        words("proximity"),
        patterns("anchors"),
        patterns("restrictions"),
        words("refusals"),
        float(raw.get("margin", 0.05)),
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
    return values


def _options(config: DomainConfig, sentence: str) -> list[_Value]:
    """Options of enumerated boundary terms named in sentence (not as quotes of the counterparty)."""
    return [_Value(term, option, start) for term, option, start, _ in enum_mentions(config, sentence)]


# -- cues -----------------------------------------------------------------------------------------------
def _cues(sentence: str, lexicon: _Lexicon) -> list[_Cue]:
    cues = [
        _Cue(m.start(), m.end(), m.group(0), "bound") for p in lexicon.bounds for m in p.finditer(sentence)
    ]
    compounds = [(s, s + len(c)) for s, c in find_phrases(sentence, lexicon.compounds)]
    for names, owned in ((lexicon.nouns, False), (lexicon.owned_nouns, True)):
        for start, noun in find_phrases(sentence, names):
            if not any(s <= start < e for s, e in compounds):
                cues.append(_Cue(start, start + len(noun), noun, "noun", owned))
    cues += [
        _Cue(m.start(), m.end(), m.group(0), "restriction")
        for p in lexicon.restrictions
        for m in p.finditer(sentence)
    ]
    return sorted(cues, key=lambda cue: cue.start)


def _possessive(word: str, names: Iterable[str]) -> bool:
    return any(word in (name, f"{name}'s") for name in names)


def _owner(config: DomainConfig, before: str, lexicon: _Lexicon) -> str | None:
    """Whose limit the nearest possessor or subject before a cue makes it: ours, theirs or None."""
    theirs = (*lexicon.others, config.counterparty_role.split()[-1].lower())
    ours = (*lexicon.ours, config.principal_role.split()[-1].lower())
    for word in reversed(re.findall(r"[\w'-]+", before.lower())[-_OWNER_WINDOW:]):
        if _possessive(word, theirs):
            return "theirs"
        if _possessive(word, ours):
            return "ours"
    return None


def _refused(sentence: _Sentence, start: int, before: str, lexicon: _Lexicon) -> bool:
    """Whether a negated verb of telling precedes the cue in its clause ("I can't share our budget")."""
    offset = start - len(before)
    return any(sentence.negated(offset + s) for s, _ in find_phrases(before, lexicon.refusals))


def _speaks_for_us(config: DomainConfig, sentence: _Sentence, cue: _Cue, lexicon: _Lexicon) -> bool:
    clause_start, _ = sentence.clause(cue.start)
    before = sentence.text[clause_start : cue.start]
    owner = _owner(config, before, lexicon)
    if owner == "theirs" or (cue.owned and owner != "ours"):
        return False
    return not quotes_counterparty(before) and not _refused(sentence, cue.start, before, lexicon)


def _placement(sentence: _Sentence, cue: _Cue, lexicon: _Lexicon) -> str | None:
    """How the words before a noun place a figure: pinned to it ("near"), or a bare "one-sided" comparison."""
    clause_start, _ = sentence.clause(cue.start)
    before = " ".join(sentence.text[clause_start : cue.start].split()[-6:])
    if find_phrases(before, lexicon.proximity):
        return "near"
    return "one-sided" if find_phrases(" ".join(before.split()[-3:]), lexicon.relations) else None


# -- linking a cue to what it discloses -----------------------------------------------------------------
def _nearest(values: list[_Value], position: int) -> _Value | None:
    return min(values, key=lambda v: abs(v.start - position)) if values else None


def _private_limit(term: BoundaryTerm, value: float, overrides: Limits) -> float | None:
    limits = [
        x for x in (term.minimum, term.maximum, *overrides.get(term.name, (None, None))) if x is not None
    ]
    return min(limits, key=lambda x: abs(x - value)) if limits else None


def _near_limit(term: BoundaryTerm, value: float, overrides: Limits, margin: float) -> bool:
    """Whether value lies within margin (a fraction of the limit) of one of term's private limits."""
    limit = _private_limit(term, value, overrides)
    return limit is not None and abs(value - limit) <= margin * max(abs(limit), 1e-9) + 1e-9


def _finding(sentence: _Sentence, cue: _Cue, value: _Value, overrides: Limits) -> DisclosureFinding:
    term = value.term
    if isinstance(value.value, str):
        named = ",".join(dict.fromkeys(str(o.value) for o in sentence.options if o.term == term))
        allowed = ",".join(term.allowed)
        return DisclosureFinding(sentence.text, cue.text, "allowed_set", term.name, named, allowed)
    limit = _private_limit(term, value.value, overrides)
    return DisclosureFinding(sentence.text, cue.text, "figure", term.name, value.value, limit)


def _structural(config: DomainConfig, sentence: str, cue: _Cue) -> DisclosureFinding:
    scored = [(keyword_distance(sentence, cue.start, t.keywords), t.name) for t in config.boundary.terms]
    near = sorted((d, name) for d, name in scored if d is not None)
    return DisclosureFinding(sentence, cue.text, "structural", near[0][1] if near else None)


def _anchored(clause: str, lexicon: _Lexicon) -> bool:
    return any(p.search(clause) for p in lexicon.anchors)


def _link(
    config: DomainConfig,
    sentence: _Sentence,
    cue: _Cue,
    overrides: Limits,
    lexicon: _Lexicon,
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
    values = [v for v in (*sentence.figures, *sentence.options) if start <= v.start < end]
    value = _nearest(values, cue.start)
    if value is not None:
        return _finding(sentence, cue, value, overrides)
    if sentence.has_value(clause_start, clause_end):
        return None  # the figure beside the cue belongs to a term without a boundary
    if placement == "near" or _anchored(text[clause_start:clause_end], lexicon):
        if earlier is None or not isinstance(earlier.value, float):
            return _structural(config, text, cue)
        if _near_limit(earlier.term, earlier.value, overrides, lexicon.margin):
            return _finding(sentence, cue, earlier, overrides)
    return None


def find_disclosures(
    text: str, config: DomainConfig, overrides: Limits | None = None
) -> list[DisclosureFinding]:
    """Sentences of an outgoing text that disclose one of the principal's private limits.

    The text is normalised and parsed once (`draft.parse`, no size limit) and read by
    `find_disclosures_in`; the preflight, which already holds the parsed draft, calls that directly.

    Args:
        text: The outgoing draft.
        config: Domain config (the boundary holds the limits).
        overrides: Limits the principal widened; they are as private as the configured ones.
    """
    return find_disclosures_in(parse(text, config.non_binding_phrases, max_chars=None), config, overrides)


def find_disclosures_in(
    draft: Draft,
    config: DomainConfig,
    overrides: Limits | None = None,
    attributed: Sequence[TermAmount] | None = None,
) -> list[DisclosureFinding]:
    """Sentences of a parsed draft that disclose one of the principal's private limits (one finding
    per disclosing sentence).

    Reads the draft's sentences, clauses and value mentions; it splits and reads nothing again.

    Args:
        draft: The parsed outgoing draft.
        config: Domain config (the boundary holds the limits).
        overrides: Limits the principal widened; they are as private as the configured ones.
        attributed: The draft's amounts attributed to terms (`draft.attribute_amounts`), when the
            caller already has them.
    """
    lexicon, limits = _lexicon(), overrides or {}
    found = list(attribute_amounts(draft, config) if attributed is None else attributed)
    starts = [amount.start for amount in found]
    findings: list[DisclosureFinding] = []
    earlier: _Value | None = None  # the last figure of an earlier sentence: the figure on the table
    for part in draft.sentences:
        sentence = _Sentence(part.text, part.start, draft)
        figures = _figures(config, sentence, found, starts)
        finding = _disclosure(config, sentence, figures, limits, lexicon, earlier)
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
    lexicon: _Lexicon,
    earlier: _Value | None,
) -> DisclosureFinding | None:
    """The first cue of one sentence that speaks for us and discloses something, if any."""
    text = sentence.text
    cues = [cue for cue in _cues(text, lexicon) if _speaks_for_us(config, sentence, cue, lexicon)]
    if not cues:
        return None  # most sentences: no need to look for values
    near = tuple(
        v
        for v in figures
        if isinstance(v.value, float) and _near_limit(v.term, v.value, overrides, lexicon.margin)
    )
    linked = _Sentence(text, sentence.start, sentence.draft, near, tuple(_options(config, text)))
    found = (
        _link(config, linked, cue, overrides, lexicon, _on_the_table(figures, cue, earlier)) for cue in cues
    )
    return next((finding for finding in found if finding is not None), None)


def _on_the_table(figures: Sequence[_Value], cue: _Cue, earlier: _Value | None) -> _Value | None:
    """The figure a cue without one of its own points back at: the last one before it in its sentence
    ("We can do $14 per unit; that's our ceiling"), else the last one of an earlier sentence."""
    before = [v for v in figures if v.start < cue.start]
    return before[-1] if before else earlier
