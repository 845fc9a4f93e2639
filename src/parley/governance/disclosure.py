"""Information hiding: finds outgoing sentences that tell the counterparty where a private limit lies.

The principal's limits (each boundary term's minimum and maximum, an enumerated term's allowed set,
and any limit the principal widened) are private. A sentence discloses one when a cue from
`data/disclosure.yaml` speaks for our side and is tied to a value of a boundary term ("our ceiling is
$14", "I can't go above $85 an hour", "the only payment terms we can accept are net 60 or net 90") or
points at the figure on the table ("that's our absolute maximum", "I can't go any higher"). A plain
offer at the limit carries no cue, so it is not a disclosure.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass
from functools import cache
from typing import Any, Literal

from parley.governance.attribution import (
    NUMERIC_KINDS,
    Limits,
    enum_mentions,
    match_term,
    quotes_counterparty,
)
from parley.governance.config import BoundaryTerm, DomainConfig, load_yaml_data
from parley.governance.text import (
    ascii_quotes,
    clause_end,
    clause_start,
    find_phrases,
    is_negated,
    keyword_distance,
    sentences,
)
from parley.governance.values import Mention, convert_days, find_mentions, find_numbers

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
    """One sentence with the boundary-term values it names (figures and enumerated options)."""

    text: str
    figures: tuple[_Value, ...]
    options: tuple[_Value, ...]


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
    )


# -- values of boundary terms ---------------------------------------------------------------------------
def _figures(config: DomainConfig, sentence: str) -> list[_Value]:
    """Numbers in sentence attributed to a numeric boundary term (quotes of the counterparty excluded)."""
    mentions = find_mentions(sentence, None)
    taken = [(m.start, m.end) for m in mentions] + _option_spans(config, sentence)
    bare = [n for n in find_numbers(sentence) if not any(s <= n.start < e for s, e in taken)]
    values: list[_Value] = []
    for mention in [m for m in mentions if m.kind in NUMERIC_KINDS] + bare:
        term = match_term(config, sentence, mention)
        if term is None or quotes_counterparty(
            sentence[clause_start(sentence, mention.start) : mention.start]
        ):
            continue
        values.append(_Value(term, _in_unit(term, mention), mention.start))
    return values


def _in_unit(term: BoundaryTerm, mention: Mention) -> float:
    return convert_days(mention.high, term.unit) if mention.kind == "duration" else mention.high


def _option_spans(config: DomainConfig, sentence: str) -> list[tuple[int, int]]:
    phrases = [p for spec in config.fields for options in spec.options.values() for p in options]
    return [(start, start + len(phrase)) for start, phrase in find_phrases(sentence, phrases)]


def _options(config: DomainConfig, sentence: str) -> list[_Value]:
    """Options of enumerated boundary terms named in sentence (not as quotes of the counterparty)."""
    return [_Value(term, option, start) for term, option, start, _ in enum_mentions(config, sentence)]


def _has_value(text: str) -> bool:
    return bool(find_mentions(text, None) or find_numbers(text))


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


def _refused(sentence: str, start: int, before: str, lexicon: _Lexicon) -> bool:
    """Whether a negated verb of telling precedes the cue in its clause ("I can't share our budget")."""
    offset = start - len(before)
    return any(is_negated(sentence, offset + s) for s, _ in find_phrases(before, lexicon.refusals))


def _speaks_for_us(config: DomainConfig, sentence: str, cue: _Cue, lexicon: _Lexicon) -> bool:
    before = sentence[clause_start(sentence, cue.start) : cue.start]
    owner = _owner(config, before, lexicon)
    if owner == "theirs" or (cue.owned and owner != "ours"):
        return False
    return not quotes_counterparty(before) and not _refused(sentence, cue.start, before, lexicon)


def _clause(sentence: str, cue: _Cue) -> tuple[int, int]:
    return clause_start(sentence, cue.start), clause_end(sentence, cue.end)


def _placement(sentence: str, cue: _Cue, lexicon: _Lexicon) -> str | None:
    """How the words before a noun place a figure: pinned to it ("near"), or a bare "one-sided" comparison."""
    before = " ".join(sentence[clause_start(sentence, cue.start) : cue.start].split()[-6:])
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
    config: DomainConfig, sentence: _Sentence, cue: _Cue, overrides: Limits, lexicon: _Lexicon
) -> DisclosureFinding | None:
    """What cue discloses in sentence, if anything.

    A bound reaches a value anywhere in the sentence, a restriction an enumerated option, a noun a
    value in its own clause; without a value, a cue pointed at the figure on the table still counts.
    """
    text = sentence.text
    if cue.kind == "restriction":
        option = _nearest(list(sentence.options), cue.start)
        return _finding(sentence, cue, option, overrides) if option else None
    start, end = (0, len(text)) if cue.kind == "bound" else _clause(text, cue)
    placement = _placement(text, cue, lexicon) if cue.kind == "noun" else None
    if placement == "one-sided":
        return None
    values = [v for v in (*sentence.figures, *sentence.options) if start <= v.start < end]
    value = _nearest(values, cue.start)
    if value is not None:
        return _finding(sentence, cue, value, overrides)
    clause = text[slice(*_clause(text, cue))]
    if _has_value(clause):
        return None  # the figure beside the cue belongs to a term without a boundary
    if placement == "near" or _anchored(clause, lexicon):
        return _structural(config, text, cue)
    return None


def find_disclosures(
    text: str, config: DomainConfig, overrides: Limits | None = None
) -> list[DisclosureFinding]:
    """Sentences of an outgoing text that disclose one of the principal's private limits.

    Args:
        text: The outgoing draft.
        config: Domain config (the boundary holds the limits).
        overrides: Limits the principal widened; they are as private as the configured ones.
    """
    lexicon, limits = _lexicon(), overrides or {}
    findings = (_disclosure(config, part, limits, lexicon) for part in sentences(ascii_quotes(text)))
    return [finding for finding in findings if finding is not None]


def _disclosure(
    config: DomainConfig, text: str, overrides: Limits, lexicon: _Lexicon
) -> DisclosureFinding | None:
    """The first cue of one sentence that speaks for us and discloses something, if any."""
    cues = [cue for cue in _cues(text, lexicon) if _speaks_for_us(config, text, cue, lexicon)]
    if not cues:
        return None  # most sentences: no need to look for values
    sentence = _Sentence(text, tuple(_figures(config, text)), tuple(_options(config, text)))
    found = (_link(config, sentence, cue, overrides, lexicon) for cue in cues)
    return next((finding for finding in found if finding is not None), None)
