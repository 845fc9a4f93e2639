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
owner of a cue is decided. Each cue reads a bounded window before it and each clause is scanned once,
so the check is linear in the draft.
"""

from __future__ import annotations

import bisect
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
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


@dataclass(frozen=True, slots=True)
class Lexicon:
    """The cue lists of data/disclosure.yaml, compiled."""

    bounds: tuple[Bound, ...]
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
    asides: tuple[str, ...]
    numbers: re.Pattern[str]
    valued: tuple[re.Pattern[str], ...]
    followers: frozenset[str]
    unread_units: frozenset[str]


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

    bounds = tuple(
        Bound(str(family), re.compile(p, re.IGNORECASE))
        for family, group in raw["bounds"].items()
        for p in group
    )
    digits = r"(?<![\w.,])(?!(?:19|20)\d\d\b)\d(?:[\d,.]*\d)?(?![\w%-]|\s*%)"
    spelled = "|".join(re.escape(w) for w in words("number_words"))
    return Lexicon(
        bounds,
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
        words("asides"),
        re.compile(rf"{digits}|\b(?:{spelled})\b", re.IGNORECASE),
        patterns("valued"),
        frozenset(words("figure_followers")),
        frozenset(words("unread_units")),
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
def _cues(sentence: str, lexicon: Lexicon) -> list[_Cue]:
    cues = [
        _Cue(m.start(), m.end(), m.group(0), "bound")
        for bound in lexicon.bounds
        for m in bound.pattern.finditer(sentence)
    ]
    compounds = sorted((s, s + len(c)) for s, c in find_phrases(sentence, lexicon.compounds))
    compound_starts = [s for s, _ in compounds]
    for names, owned in ((lexicon.nouns, False), (lexicon.owned_nouns, True)):
        for start, noun in find_phrases(sentence, names):
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


def _possessive(word: str, names: Iterable[str]) -> bool:
    return any(word in (name, f"{name}'s") for name in names)


def _owner(config: DomainConfig, before: str, lexicon: Lexicon) -> str | None:
    """Whose limit the nearest possessor or subject before a cue makes it: ours, theirs or None."""
    theirs = (*lexicon.others, config.counterparty_role.split()[-1].lower())
    ours = (*lexicon.ours, config.principal_role.split()[-1].lower())
    lowered = before.lower()
    for start, aside in find_phrases(lowered, lexicon.asides):
        lowered = lowered[:start] + " " * len(aside) + lowered[start + len(aside) :]
    found = re.findall(r"[\w'-]+", lowered)[-_OWNER_WINDOW - 1 :]
    for index in range(len(found) - 1, max(len(found) - 1 - _OWNER_WINDOW, -1), -1):
        word = found[index]
        if _possessive(word, theirs):  # "our rates" stays ours, "market rates" does not
            return "ours" if index > 0 and found[index - 1] in ("our", "my") else "theirs"
        if _possessive(word, ours):
            return "ours"
    return None


def _refused(sentence: _Sentence, start: int, before: str, lexicon: Lexicon) -> bool:
    """Whether a negated verb of telling precedes the cue in its clause ("I can't share our budget")."""
    offset = start - len(before)
    return any(sentence.negated(offset + s) for s, _ in find_phrases(before, lexicon.refusals))


def _speaks_for_us(config: DomainConfig, sentence: _Sentence, cue: _Cue, lexicon: Lexicon) -> bool:
    clause_start, _ = sentence.clause(cue.start)
    # a bounded window of the clause before the cue: each cue costs the same, so the scan stays linear
    before = sentence.text[max(clause_start, cue.start - _OWNER_REACH) : cue.start]
    owner = _owner(config, before, lexicon)
    if owner == "theirs" or (cue.owned and owner != "ours"):
        return False
    return not quotes_counterparty(before) and not _refused(sentence, cue.start, before, lexicon)


def _placement(sentence: _Sentence, cue: _Cue, lexicon: Lexicon) -> str | None:
    """How the words before a noun place a figure: pinned to it ("near"), or a bare "one-sided" comparison."""
    clause_start, _ = sentence.clause(cue.start)
    before = " ".join(sentence.text[max(clause_start, cue.start - _OWNER_REACH) : cue.start].split()[-6:])
    if find_phrases(before, lexicon.proximity):
        return "near"
    if any(p.match(sentence.text, cue.end) for p in lexicon.valued):
        return None  # the noun's own value follows it ("within a budget of $100K")
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
    value = _nearest(scope.between(start, end), cue.start)
    if value is not None:
        return _finding(sentence, cue, value, overrides)
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
        if _near_limit(earlier.term, earlier.value, overrides, lexicon.margin):
            return _finding(sentence, cue, earlier, overrides)
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
    near = tuple(
        v
        for v in figures
        if isinstance(v.value, float) and _near_limit(v.term, v.value, overrides, lexicon.margin)
    )
    options = tuple(_options(config, text))
    linked = _Sentence(text, sentence.start, sentence.draft, near, options, sentence.claimed)
    scope = _Scope([*near, *options])
    found = (
        _link(config, linked, cue, overrides, lexicon, scope, _on_the_table(figures, cue, earlier))
        for cue in cues
    )
    return next((finding for finding in found if finding is not None), None)


def _on_the_table(figures: Sequence[_Value], cue: _Cue, earlier: _Value | None) -> _Value | None:
    """The figure a cue without one of its own points back at: the last one before it in its sentence
    ("We can do $14 per unit; that's our ceiling"), else the last one of an earlier sentence."""
    before = [v for v in figures if v.start < cue.start]
    return before[-1] if before else earlier
