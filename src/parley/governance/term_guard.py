"""Fail-closed term reading: no conditional construction and no amount of a message vanishes.

The term reader (`governance.terms`) attributes values and conditions to terms; where it cannot, this
module makes sure the principal still sees what was said:

- every conditional construction ("provided", "as long as", "if", "only if", "unless", "subject to",
  "assuming", "contingent on", "in exchange for", "under the condition", "fine ... when", "should you
  ...", "otherwise", "but only at",
  "assumes", "throw in ... and", "... and we have a deal", "to hold the price", "nothing less", "or
  no deal", ..., in any word order) that no condition of the reading covers becomes a condition on
  no term (`term == "other"`) quoting its clause;
- every amount of money that no term claims, and that the message does not set aside for a stated
  reason (a competing offer, the market, the past, a total, the principal's own figure), is quoted as
  "unread";
- a message too long to read at all is reported as unread, and its conditional constructions are
  still quoted (found by one linear scan).

Beyond the known connectives, a grammar (`conditional_grammar` in data/term_cues.yaml) finds the
constructions that make acceptance depend on something whatever their wording: connectives as an open
class with their variants ("on the assumption that", "not without", "nur wenn"), a price paid for what
is given ("for an expedite fee of 0.30"), a requirement the counterparty names in a message that
states a term ("but needs 10 yr"), a sentence that restricts the offer before it ("for the weekend
shifts only", "That price is only good with ..."), a consequence ("Sign by the 20th or the free months
come off the table", "We'd then price at 1.15"), an elliptic answer ("At 20k, yes.") and a conjunct
going on with a condition ("... that the order is placed by the 20th and payment is net 30").

The markers are searched in the normalised text (homoglyphs folded, zero-width characters removed), so
a condition cannot hide behind a Cyrillic "і" in "if".
"""

from __future__ import annotations

import bisect
import heapq
import re
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from functools import cache
from typing import Any, Literal

from parley.errors import InternalError
from parley.governance.config import load_yaml_data
from parley.governance.draft import Clause, Draft
from parley.governance.normalize import normalize
from parley.governance.term_roles import UNCLAIMED, Hit, condition_ends

__all__ = [
    "MAX_QUOTE",
    "MAX_QUOTED",
    "UNEXPLAINED",
    "Construction",
    "Glue",
    "Quote",
    "conditional_constructions",
    "conditional_markers",
    "glue",
    "has_conditional_marker",
    "refused_quotes",
    "uncovered_conditions",
    "unexplained_sentences",
    "unread_amounts",
]

MAX_QUOTE = 240
"""Longest quote of a clause put to the principal (characters; longer ones are cut with "…")."""
MAX_QUOTED = 40
"""Most quotes one message yields; past that, one more quote says how many were left out."""

_MARKER = re.compile(
    r"\b(?:"
    r"if|unless|provid(?:ed|ing)|assuming|presuming|as long as|so long as|subject to"
    r"|(?:on|under) (?:the |one |a |this |that )?conditions?|conditional(?:ly)? (?:on|upon)"
    r"|conditioned (?:on|upon)"
    r"|(?:ok|okay|fine|acceptable|happy|doable|agreeable|workable)"
    r"(?: for (?:me|us|him|her|them|my client|our client))?,? (?:but )?(?:only )?(?:when|once)"
    r"|contingent"
    r"|dependent (?:on|upon)|depend(?:s|ing)? (?:on|upon)|in (?:exchange|return)\b(?: for)?"
    r"|on (?:the )?(?:understanding|proviso|basis) that|with the proviso"
    r"|in (?:the )?(?:case|event) (?:of|that)"
    r"|in case|only (?:with|once|when|after|for)|as a condition|pre-?conditions?|prerequisites?"
    r"|otherwise|or else|failing (?:that|this|which)|without (?:which|it|that|this|them)"
    r"|nothing less|or nothing|or no deal|deal-?breakers?|or we(?:'ll| will)? walk"
    r"|(?:tied|linked|pegged|subject) to|but then|in that case"
    r"|(?:but|and) only (?:at|on|for)|assumes|presumes|presupposes|hinges on|(?:predicated|premised) on"
    r"|throw in|and (?:we|you)(?:'ve| have)? (?:got )?(?:a|our) deal"
    r"|(?:in order )?to (?:hold|lock in) (?:the|this|that|our)"
    r"|(?:^|(?<=[.;:!?]\s))(?:give|add|take|make|sign|include|commit to|bump|raise|lower|drop|get|put|meet"
    r"|match|order|pay|accept|agree to|bring|cut|extend|shorten|knock)\b(?=[^.;!?\n]{1,80}?,?\s+and "
    r"(?:i|we|you|they|he|she|it)(?:'ll| will| can| could| would|'d|'ve got| have got| have| get)\b)"
    r"|only (?:do|go to|offer|accept|agree to|manage|pay|hold|stretch to|meet|match|sign|take)\b"
    r"(?=[^.;!?\n]{1,40}?\b(?:with|once|if)\b)"
    r")\b"
    r"|(?:^|[.;:!?,(]\s*)(?:should|were|had) (?:you|we|they|he|she|it|your \w+|the \w+)\b"
    r"|(?<=[a-z0-9] )should (?:you|he|she|they|your client|the (?:tenant|buyer|candidate|client))\b"
    r"(?= (?!be\b|have\b|not\b)[a-z]+)",
    re.IGNORECASE | re.MULTILINE,
)
"""Conditional constructions. "if" after a verb of asking or knowing ("let me know if") is "whether",
not a condition (`_COMPLEMENT`); "if possible" carries nothing (`_EMPTY`)."""
_COMPLEMENT = re.compile(
    r"\b(?:know|see|check|ask|asks|asked|asking|wonder|wonders|wondered|wondering|tell|confirm|sure|"
    r"find out|unclear|clarify|whether|doubt)\s+(?:me\s+|us\s+|him\s+|her\s+|them\s+)?$",
    re.IGNORECASE,
)
_EMPTY = re.compile(
    r"^\s*(?:possible|needed|necessary|any|applicable|required|so desired|you have (?:any )?questions"
    r"|anything(?: else)?|you(?:'d| would)? (?:like|want|wish|prefer))\b",
    re.IGNORECASE,
)
_NOT_A_PROVISO = re.compile(r"^\s*(?:by|for|in|to|with|on|at|from|under|herein|above|below|here)\b", re.I)
""""provided by us", "services provided to": a participle, not "on condition that"."""
_CONSEQUENCE = re.compile(
    r"^(?:otherwise|or else|failing|without|nothing less|or nothing|or no deal|deal-?breaker|or we)",
    re.IGNORECASE,
)


@dataclass(frozen=True, slots=True)
class Quote:
    """A stretch of the message put to the principal as written.

    Attributes:
        start: Offset in the (normalised) text.
        text: The words, cut to `MAX_QUOTE` characters.
    """

    start: int
    text: str


def conditional_markers(text: str) -> Iterator[re.Match[str]]:
    """The conditional constructions of an already normalised text, in order."""
    for match in _MARKER.finditer(text):
        word = match.group(0).strip(" .;:!?,(").lower()
        if word == "if":
            if _COMPLEMENT.search(text[max(0, match.start() - 30) : match.start()]):
                continue
            if _EMPTY.match(text[match.end() : match.end() + 40]):
                continue
        if word.startswith("provid") and _NOT_A_PROVISO.match(text[match.end() : match.end() + 12]):
            continue
        if word.split()[0] in ("should", "were", "had") and _asks(text, match.end()):
            continue  # "Should we schedule a call?" asks; "Should you sign today, ..." conditions
        yield match


Scope = Literal["clause", "sentence", "rest"]
"""What a construction restricts: its clause; its whole sentence (it restricts what was said before it);
or the rest of its sentence (a conjunct going on with a condition), the sentence being quoted."""


@dataclass(frozen=True, slots=True)
class Construction:
    """A conditional construction found in a text.

    Attributes:
        at: Offset where it stands.
        family: The family of the grammar it belongs to ("connective" for the known markers).
        scope: What it restricts (`Scope`).
    """

    at: int
    family: str
    scope: Scope


@dataclass(frozen=True, slots=True)
class _Family:
    name: str
    scope: Scope
    pattern: re.Pattern[str]


_SYMBOL = re.compile(r"\{([a-z_]+)\}")
_SCOPES: tuple[Scope, ...] = ("clause", "sentence", "rest")


def _expand(pattern: str, symbols: Mapping[str, str], depth: int = 0) -> str:
    """pattern with every {name} replaced by its symbol (symbols may use symbols, 8 levels at most)."""
    if depth > 8:
        raise InternalError(f"conditional_grammar: symbols nest too deep in {pattern!r}")

    def one(match: re.Match[str]) -> str:
        name = match.group(1)
        if name not in symbols:
            raise InternalError(f"conditional_grammar: unknown symbol {{{name}}}")
        return _expand(symbols[name], symbols, depth + 1)

    return _SYMBOL.sub(one, pattern)


def _scope(name: str) -> Scope | None:
    for scope in _SCOPES:
        if scope == name:
            return scope
    return None


@cache
def _grammar() -> tuple[_Family, ...]:
    """The families of the conditional grammar (data/term_cues.yaml `conditional_grammar`), compiled."""
    raw: dict[str, Any] = load_yaml_data("term_cues.yaml")["conditional_grammar"]
    symbols = {str(k): str(v) for k, v in raw["symbols"].items()}
    families: list[_Family] = []
    for name, family in raw["families"].items():
        scope = _scope(str(family["scope"]))
        if scope is None:
            raise InternalError(f"conditional_grammar: family {name} has no scope of {_SCOPES}")
        rules = [_expand(str(rule), symbols) for rule in family["rules"]]
        pattern = "|".join(f"(?:{rule})" for rule in rules)
        families.append(_Family(str(name), scope, re.compile(pattern, re.MULTILINE | re.IGNORECASE)))
    return tuple(families)


def _found(family: _Family, text: str) -> Iterator[Construction]:
    marks = [name for name in family.pattern.groupindex if name == "at" or name.startswith("at_")]
    for match in family.pattern.finditer(text):
        # A rule marks where its construction stands with a group "at" (or "at_...": one name a rule).
        at = next((match.start(name) for name in marks if match.group(name)), None)
        if at is None:
            at = match.start() + len(match.group(0)) - len(match.group(0).lstrip(" .;:!?,(\n"))
        yield Construction(at, family.name, family.scope)


def conditional_constructions(text: str) -> Iterator[Construction]:
    """Every conditional construction of an already normalised text, in order: the known markers
    (`conditional_markers`) and what the grammar of data/term_cues.yaml finds (one linear scan each)."""
    known = (
        Construction(m.start() + len(m.group(0)) - len(m.group(0).lstrip(" .;:!?,(")), "connective", "clause")
        for m in conditional_markers(text)
    )
    streams = [known, *(_found(f, text) for f in _grammar())]
    yield from heapq.merge(*streams, key=lambda c: c.at)


_SENTENCE_STOP = re.compile(r"[.!?\n]")


def _asks(text: str, offset: int) -> bool:
    """Whether the sentence going on at offset ends with a question mark (within 300 characters)."""
    stop = _SENTENCE_STOP.search(text, offset, offset + 300)
    return stop is not None and stop.group(0) == "?"


def has_conditional_marker(text: str) -> bool:
    """Whether a text (raw: it is normalised here, without a size limit) holds a conditional construction."""
    return next(conditional_markers(normalize(text, max_chars=None).text), None) is not None


def _cut(text: str) -> str:
    text = " ".join(text.split()).strip(" .,;:")
    return text if len(text) <= MAX_QUOTE else text[: MAX_QUOTE - 1].rstrip() + "…"


def _window(draft: Draft, construction: Construction, ends: dict[int, int]) -> tuple[int, int, int]:
    """The stretch a construction covers, as (quote start, check start, end): its clause and the clauses
    of time that continue it; for "otherwise", "without it" and the like (which condition what came
    before), and for a construction that restricts its sentence, the whole sentence; for a conjunct
    going on with a condition, the rest of the sentence (checked) and the whole sentence (quoted); when
    the clause holds little after the marker, the rest of the sentence."""
    offset = construction.at
    clause = draft.clause_at(offset)
    sentence = draft.sentence_at(offset)
    if sentence is None:
        start, end = max(0, offset - MAX_QUOTE // 2), min(len(draft.text), offset + MAX_QUOTE // 2)
        return start, start, end
    if construction.scope == "rest":
        return sentence.start, offset, sentence.end
    consequence = _CONSEQUENCE.match(draft.text[offset : offset + 12].lower())
    if clause is None or construction.scope == "sentence" or consequence:
        return sentence.start, sentence.start, sentence.end
    end = ends.get(clause.start, clause.end)
    if len(draft.text[offset : min(end, offset + 60)].split()) < 3:
        end = sentence.end
    return clause.start, clause.start, end


def uncovered_conditions(
    draft: Draft, covered: Sequence[int], *, stated: Sequence[int] | None = None
) -> list[Quote]:
    """Conditional constructions of draft that no condition of the reading covers, quoted.

    Args:
        draft: The parsed message.
        covered: Offsets of what the reading's conditions were read from (a term's value, the start
            of a condition's text).
        stated: Offsets of the values the message states or accepts (None: unknown, any). A
            requirement it names ("but needs 10 yr") is the price of a term, and quoted, only when a
            value stands outside the requirement's sentence ("We'd need a 3-year term" alone states
            the term, it conditions nothing).
    """
    windows: list[tuple[int, int]] = []
    ends = condition_ends(draft)
    offsets = sorted(covered)
    for construction in conditional_constructions(draft.text):
        start, check, end = _window(draft, construction, ends)
        if construction.family in _ASKS_NOTHING and _in_question(draft, construction.at):
            continue
        if construction.family == "requirement" and not _attached(draft, construction.at, stated):
            continue
        index = bisect.bisect_left(offsets, check)
        if index < len(offsets) and offsets[index] < end:
            continue
        windows.append((start, _announced(draft, end)))
    quotes = [
        Quote(start, _cut(draft.text[start:end]) if i < MAX_QUOTED else "")
        for i, (start, end) in enumerate(_merged(windows))
    ]
    return _bounded(quotes, "conditional clauses")


def _announced(draft: Draft, end: int) -> int:
    """end, or the end of its sentence when a colon follows it: what the colon announces is what the
    clause before it names ("we need to add one thing: the sign-off from our parent company")."""
    if not draft.text[end : end + 3].lstrip(" ").startswith(":"):
        return end
    sentence = draft.sentence_at(end)
    return max(end, sentence.end) if sentence is not None else end


def _merged(windows: list[tuple[int, int]]) -> list[tuple[int, int]]:
    """The windows with those that overlap joined (a clause and the sentence holding it are one quote)."""
    merged: list[tuple[int, int]] = []
    for start, end in sorted(windows):
        if merged and start < merged[-1][1]:
            merged[-1] = (merged[-1][0], max(end, merged[-1][1]))
        else:
            merged.append((start, end))
    return merged


_ASKS_NOTHING = frozenset({"consequence", "ellipsis", "restriction", "precondition"})
"""Families that condition nothing in a question ("Is 7,200 including CAM or is that extra?")."""


def _in_question(draft: Draft, offset: int) -> bool:
    sentence = draft.sentence_at(offset)
    return sentence is not None and sentence.text.rstrip().endswith("?")


def _attached(draft: Draft, offset: int, stated: Sequence[int] | None) -> bool:
    """Whether a requirement at offset is attached to a value stated outside its sentence."""
    if stated is None:
        return True
    sentence = draft.sentence_at(offset)
    if sentence is None:
        return bool(stated)
    return any(not sentence.start <= at < sentence.end for at in stated)


def _bounded(quotes: list[Quote], what: str) -> list[Quote]:
    if len(quotes) <= MAX_QUOTED:
        return quotes
    left = len(quotes) - MAX_QUOTED + 1
    return [*quotes[: MAX_QUOTED - 1], Quote(quotes[MAX_QUOTED - 1].start, f"{left} more {what} not quoted")]


def unread_amounts(draft: Draft, hits: Sequence[Hit]) -> list[Quote]:
    """Amounts of money no term claims and the message does not set aside for a reason, quoted with
    their clause ("a $500 per-day late fee" where no term takes a fee per day)."""
    quotes: list[Quote] = []
    for hit in hits:
        figure = hit.figure
        if hit.term is not UNCLAIMED or hit.role not in ("own", "condition") or figure is None:
            continue
        if figure.kind != "money" or not (figure.currency or figure.per or figure.scaled):
            continue
        clause: Clause | None = draft.clause_at(hit.start)
        text = clause.text if clause is not None else draft.text[hit.start : hit.end]
        quotes.append(Quote(hit.start, _cut(text)))
    return _bounded(quotes, "amounts")


_SENTENCE_END = re.compile(r"[.!?;\n]")


def refused_quotes(message: str) -> list[Quote]:
    """The conditional constructions of a message too long to parse, each quoted with the words around
    it up to the nearest sentence ends (one linear scan of the normalised text)."""
    text = normalize(message, max_chars=None).text
    quotes: list[Quote] = []
    reach = -1
    for construction in conditional_constructions(text):
        if construction.at < reach:
            continue  # inside the last quote already
        begin = max(0, construction.at - MAX_QUOTE // 2)
        ends = [m.end() for m in _SENTENCE_END.finditer(text, begin, construction.at)]
        start = ends[-1] if ends else begin
        after = _SENTENCE_END.search(text, construction.at + 1, construction.at + MAX_QUOTE)
        reach = after.start() if after else min(len(text), construction.at + MAX_QUOTE)
        quotes.append(Quote(start, _cut(text[start:reach]) if len(quotes) < MAX_QUOTED else ""))
    return _bounded(quotes, "conditional clauses")


# -- what the reader cannot explain is quoted (issue 17) ---------------------------------------------------
UNEXPLAINED = "unexplained"
"""`Condition.source` of a sentence quoted because the reader could not explain it: it holds a figure or a
term word, and a figure no term claims or a word that is not the glue of a plain statement of terms."""

_TOKEN = re.compile(r"[^\W\d_]+|\d")
"""A word (letters only) or one digit: one linear scan."""
_SIGN_OFF = re.compile(
    r"^[ \t]*(?:best|best regards|kind regards|warm regards|regards|cheers|thanks|thank you|many thanks"
    r"|sincerely|yours(?: sincerely| faithfully| truly)?|all the best|talk soon|br)[ \t]*[,.!]?[ \t]*$",
    re.IGNORECASE | re.MULTILINE,
)
"""A sign-off line: what follows it is the signature block (names, titles, companies, numbers)."""


_FUNCTION = frozenset(
    [
        "a",
        "an",
        "and",
        "any",
        "are",
        "at",
        "be",
        "by",
        "can",
        "could",
        "do",
        "for",
        "from",
        "has",
        "have",
        "in",
        "is",
        "it",
        "its",
        "my",
        "no",
        "not",
        "of",
        "off",
        "on",
        "or",
        "our",
        "the",
        "this",
        "that",
        "to",
        "us",
        "we",
        "will",
        "with",
        "would",
        "you",
        "your",
    ]
)
"""Function words: some stand in a term's keywords or options, none makes a sentence about terms."""


@dataclass(frozen=True, slots=True)
class Glue:
    """The allow-list of an explained sentence (data/term_glue.yaml).

    Attributes:
        words: The words a plain statement of terms is made of besides its figures and term words
            (learned from the plain statements of many writers: `benchmarks/build_term_glue.py`).
        figures: Words that are figures ("two", "dozen"): a sentence holding one is about terms, and one
            no term claims is not explained.
    """

    words: frozenset[str]
    figures: frozenset[str]


@cache
def glue() -> Glue:
    """The shipped allow-list (data/term_glue.yaml)."""
    raw: dict[str, Any] = load_yaml_data("term_glue.yaml")
    figures = frozenset(str(w).lower() for w in raw["figures"])
    return Glue(frozenset(str(w).lower() for w in raw["words"]) - figures, figures)


def unexplained_sentences(
    draft: Draft,
    spans: Sequence[tuple[int, int]],
    term_words: frozenset[str],
    quoted: Sequence[str] = (),
    allow: Glue | None = None,
) -> list[Quote]:
    """The sentences of draft the reader could not explain, quoted as written (fail closed).

    A sentence is explained when every figure in it lies in a span the reader attributed to a term or
    a condition, and every other word is a term word or glue of a plain statement of terms (`Glue`).
    Only a sentence holding a figure or a term word is put to the principal (small talk is not); none
    of the signature block after a sign-off line, none of a line quoted from an earlier message, none
    that an existing quote already holds or lies in.

    Args:
        draft: The parsed message.
        spans: The (start, end) offsets of what the reader attributed (sorted or not).
        term_words: The words of the domain's terms (keywords, labels, options), lower case.
        quoted: The texts already quoted (a sentence inside one, or holding one, is not quoted again).
        allow: The allow-list (None: the shipped one).
    """
    allow = allow or glue()
    text = draft.text
    attributed = bytearray(len(text))
    for start, end in spans:
        start, end = max(0, start), min(len(text), end)
        if start < end:
            attributed[start:end] = b"\x01" * (end - start)
    sign_off = _SIGN_OFF.search(text)
    stop = sign_off.start() if sign_off is not None else len(text)
    said = [" ".join(q.lower().split()) for q in quoted if q]
    quotes: list[Quote] = []
    for sentence in draft.sentences:
        if sentence.start >= stop or sentence.text.lstrip().startswith(">"):
            continue
        about_terms, explained = False, True
        for token in _TOKEN.finditer(text, sentence.start, min(sentence.end, len(text))):
            word = token.group(0).lower()
            if attributed[token.start()]:
                about_terms = True
                continue
            if word.isdigit() or word in allow.figures:
                about_terms, explained = True, False
            elif word in term_words:
                about_terms = about_terms or (len(word) > 1 and word not in _FUNCTION)
            elif word not in allow.words:
                explained = False
        if not about_terms or explained:
            continue
        quote = _cut(sentence.text)
        key = " ".join(quote.lower().split())
        if any(key in s or s in key for s in said):
            continue
        said.append(key)
        quotes.append(Quote(sentence.start, quote))
    return _bounded(quotes, "unexplained sentences")
