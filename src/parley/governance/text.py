"""Small text helpers shared by the extractors, the moderator and the preflight check."""

from __future__ import annotations

import bisect
import re
import warnings
from collections.abc import Callable, Iterable
from functools import lru_cache
from typing import Any

with warnings.catch_warnings():
    # The standard library's own parser of regular expressions, under its typed public name (an alias
    # of re._parser since 3.11, deprecated by name only).
    warnings.simplefilter("ignore", DeprecationWarning)
    import sre_constants
    import sre_parse

_SENTENCE_BREAK = re.compile(r"(?<=[!?;\n])\s*|(?<=[.])\s+(?=[A-Z(\"'$])|\s+[-—]\s+(?=[A-Z])")
_NEGATORS = re.compile(
    r"\b(not|no|nothing|none|never|cannot|can't|cant|won't|wont|don't|dont|doesn't|isn't|aren't|unable|without|nor)\b"
    r"|n't\b",
    re.IGNORECASE,
)
# A comma inside a figure ("$12,000") does not break a clause.
_CLAUSE_BREAK = re.compile(
    r"(?<!\d),|,(?!\d{3})|[;:]|\b(but|however|although|though|whereas)\b", re.IGNORECASE
)
_TYPOGRAPHIC = str.maketrans({"\u2019": "'", "\u2018": "'", "\u201c": '"', "\u201d": '"'})


def ascii_quotes(text: str) -> str:
    """Typographic apostrophes and quotes as ASCII, so contractions match ("we’ll" → "we'll")."""
    return text.translate(_TYPOGRAPHIC)


def sentences(text: str) -> list[str]:
    """Split text into sentences (keeps "U.S." and "$12.50" intact)."""
    return [part.strip() for part in _SENTENCE_BREAK.split(text) if part and part.strip()]


@lru_cache(maxsize=8192)
def phrase_pattern(phrase: str) -> re.Pattern[str]:
    """A case-insensitive pattern matching phrase on word boundaries (phrase may hold punctuation)."""
    escaped = re.escape(phrase.strip())
    left = r"\b" if phrase.strip()[:1].isalnum() else ""
    right = r"\b" if phrase.strip()[-1:].isalnum() else ""
    return re.compile(left + escaped + right, re.IGNORECASE)


def find_phrases(text: str, phrases: Iterable[str]) -> list[tuple[int, str]]:
    """Start offsets and phrases found in text, in order of appearance."""
    hits = [(match.start(), phrase) for phrase in phrases for match in phrase_pattern(phrase).finditer(text)]
    return sorted(hits)


def clause_start(text: str, position: int) -> int:
    """Offset where the clause holding position begins (after the last comma or contrast word)."""
    start = 0
    for match in _CLAUSE_BREAK.finditer(text, 0, position):
        start = match.end()
    return start


def clause_end(text: str, position: int) -> int:
    """Offset where the clause holding position ends (at the next comma or contrast word)."""
    match = _CLAUSE_BREAK.search(text, position)
    return match.start() if match else len(text)


_WORD = re.compile(r"\S+")
_TAIL = 8  # characters before a position whose breaks are read as text[:position] reads them


@lru_cache(maxsize=64)
def _negation_index(text: str) -> tuple[list[int], list[int], list[int], list[int]]:
    """Where text's clause breaks end, its words start, and its negators start and end: one scan each
    per text, however many positions `is_negated` then asks about (a message of many option phrases
    asks once per phrase; rescanning from the start each time was quadratic)."""
    breaks = [match.end() for match in _CLAUSE_BREAK.finditer(text)]
    words = [match.start() for match in _WORD.finditer(text)]
    negators = list(_NEGATORS.finditer(text))
    return breaks, words, [m.start() for m in negators], [m.end() for m in negators]


def is_negated(text: str, position: int, window_words: int = 5) -> bool:
    """Whether a negator governs the word at position (same clause, at most window_words before it).

    A negator counts when it lies wholly between position and the later of the clause's start and the
    start of the window_words-th word before position. The offsets are found once per text (cached)
    and looked up by bisection, so asking about every hit of a text stays linear in it."""
    breaks, words, negator_starts, negator_ends = _negation_index(text)
    # the clause holds position: it starts after the last break that ends at or before position
    k = bisect.bisect_right(breaks, position) - 1
    start = breaks[k] if k >= 0 else 0
    # read as text[:position] reads, a comma just before position is a break even before three digits
    for match in _CLAUSE_BREAK.finditer(text, max(0, position - _TAIL), position):
        start = max(start, match.end())
    last = bisect.bisect_left(words, position) - 1  # the last word starting before position
    if last < 0:
        return False
    start = max(start, words[max(0, last - window_words + 1)])
    n = bisect.bisect_left(negator_starts, start)
    return n < len(negator_starts) and negator_ends[n] <= position


@lru_cache(maxsize=512)
def _phrase_starts(text: str, phrases: tuple[str, ...]) -> tuple[int, ...]:
    """Sorted start offsets of phrases in text: one scan per text and phrase set, however many
    positions are then looked up (a text of many figures asks once per figure)."""
    return tuple(start for start, _ in find_phrases(text, phrases))


def keyword_distance(text: str, position: int, keywords: Iterable[str]) -> int | None:
    """Characters between position and the nearest keyword in text, or None if no keyword occurs.

    The keywords' offsets are found once per text (cached) and the nearest looked up by bisection,
    so asking for every figure of a text stays linear in it (issue 14: "$1,$1,…" was quadratic).
    """
    starts = _phrase_starts(text, tuple(keywords))
    at = bisect.bisect_left(starts, position)
    distances = [abs(start - position) for start in starts[max(0, at - 1) : at + 1]]
    return min(distances) if distances else None


def count_tokens(text: str) -> int:
    """A cheap token estimate (words and punctuation runs), used for context budgets."""
    return len(re.findall(r"\w+|[^\w\s]+", text))


Literals = frozenset[str] | None
"""Lower-case strings of which every match of a pattern contains at least one (None: no such set)."""

_REPEATS = (sre_constants.MAX_REPEAT, sre_constants.MIN_REPEAT, sre_constants.POSSESSIVE_REPEAT)
_ZERO_WIDTH = (sre_constants.AT, sre_constants.ASSERT, sre_constants.ASSERT_NOT)


def _parse(pattern: re.Pattern[str]) -> Any:
    """The standard library's parse tree of pattern (None if it does not parse)."""
    try:
        return sre_parse.parse(pattern.pattern, pattern.flags)
    except re.error:  # pragma: no cover - the pattern compiled, so it parses
        return None


def required_literals(pattern: re.Pattern[str]) -> Literals:
    """The strings of which every match of pattern contains one, lower-cased (None when unknown).

    Read from the standard library's parse of the pattern: a run of literal characters is a string;
    a group, or a repeat at least once, requires what its content requires; an alternation requires
    one of its branches' strings (nothing, when one branch requires nothing); in a sequence the most
    selective item's strings are kept. Assertions, classes, wildcards and optional parts require
    nothing. Sound by construction: a text holding none of the strings holds no match.
    """
    tree = _parse(pattern)
    return None if tree is None else _sequence_literals(tree.data)


def first_literals(pattern: re.Pattern[str]) -> Literals:
    """The strings one of which every match of pattern starts with, lower-cased (None when unknown).

    Leading assertions (\\b, lookarounds) consume nothing and are passed over; the first item that
    consumes must be a literal run, a class of single characters, a group or a repeat of one, or an
    alternation whose every branch has such a start.
    """
    tree = _parse(pattern)
    return None if tree is None else _sequence_start(tree.data)


def _selectivity(literals: frozenset[str]) -> tuple[int, int]:
    return min(len(literal) for literal in literals), -len(literals)


def _sequence_literals(items: Any) -> Literals:
    """What a sequence requires: the most selective of its items' strings."""
    candidates: list[frozenset[str]] = []
    run: list[str] = []
    for op, argument in items:
        if op is sre_constants.LITERAL:
            run.append(chr(argument).lower())
            continue
        if run:
            candidates.append(frozenset(["".join(run)]))
            run = []
        found = _node(op, argument, _sequence_literals)
        if found:
            candidates.append(found)
    if run:
        candidates.append(frozenset(["".join(run)]))
    return max(candidates, key=_selectivity) if candidates else None


def _sequence_start(items: Any) -> Literals:
    """What a sequence starts with: its leading literal run, else its first consuming item's start."""
    run: list[str] = []
    items = list(items)
    for index, (op, argument) in enumerate(items):
        if op is sre_constants.LITERAL:
            run.append(chr(argument).lower())
            continue
        if run:
            return frozenset(["".join(run)])
        if op in _ZERO_WIDTH:
            continue
        if op in _REPEATS and argument[0] == 0 and argument[1] == 1:
            # An optional first item: the match starts with it or with what follows it.
            own, rest = _sequence_start(argument[2].data), _sequence_start(items[index + 1 :])
            return own | rest if own and rest else None
        return _node(op, argument, _sequence_start)
    return frozenset(["".join(run)]) if run else None


def _node(op: Any, argument: Any, sequence: Callable[[Any], Literals]) -> Literals:
    """One node of the parse tree as sequence reads its sequences (`_sequence_literals`: the strings
    every match contains; `_sequence_start`: the strings every match starts with).

    A group, an atomic group or a repeat at least once gives what its content gives; an alternation
    gives the union of its branches' strings (None when one branch has none); a class of single
    literal characters gives those characters; anything else gives None.
    """
    if op is sre_constants.SUBPATTERN:
        return sequence(argument[-1].data)
    if op in _REPEATS:
        return sequence(argument[2].data) if argument[0] >= 1 else None
    if op is sre_constants.ATOMIC_GROUP:
        return sequence(argument.data)
    if op is sre_constants.BRANCH:
        union: set[str] = set()
        for branch in argument[1]:
            found = sequence(branch.data)
            if not found:
                return None
            union |= found
        return frozenset(union)
    if op is sre_constants.IN and all(kind is sre_constants.LITERAL for kind, _ in argument):
        return frozenset(chr(code).lower() for _, code in argument)
    return None
