"""Intent cues in text: accepting, rejecting, walking away and asking for priorities."""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import cache

from parley.language.lexicon import Lexicon, phrase_pattern
from parley.language.scan import is_negated

_SHORT_MESSAGE_WORDS = 5
"""A weak cue ("ok", "sure") accepts only in a message at most this many words long."""

_BARE_NO = re.compile(r"^(?:no+|nope|nah)(?:\s*,?\s*(?:thanks|thank you|way|sorry))?\s*(?:[,.!]|$)")
_NOT_A_NO = re.compile(r"^no+\s*(?:problem|worries|doubt|need|wonder)")
_NEED_WORDS = re.compile(
    r"\b(?:need|needs|want|wants|priorit\w*|important|matters?|value|valuable|care|looking for|interested|"
    r"prefer|most|least|greatest)\b"
)
_WHAT_YOURS = re.compile(r"\b(?:what|which)(?:'s| is| are)?\s+(?:your|you)\b")
_WH_YOU = re.compile(r"\b(?:what|which)\b.*\b(?:you|your|u)\b")
_YOU = re.compile(r"\b(?:you|your|u)\b")
_SENTENCE = re.compile(r"[^.!?]+[.!?]*")
_WALK_WITH = re.compile(r"\s+with\b")
_WEAK_ASK = re.compile(r"(?:how about you|what about you|and you|and yourself)\s*(?:\?|[.!]|$)")


@dataclass(frozen=True, slots=True)
class Cues:
    """Which intent cues a text contains.

    Attributes:
        accept: A strong acceptance cue, or a weak one in a short message.
        reject: A rejection cue.
        walk: A (not negated) walk-away cue.
        asks_priorities: A question about the listener's priorities.
        question: The text asks something.
    """

    accept: bool
    reject: bool
    walk: bool
    asks_priorities: bool
    question: bool


@dataclass(frozen=True, slots=True)
class _Patterns:
    accept_strong: re.Pattern[str]
    accept_weak: re.Pattern[str]
    reject: re.Pattern[str]
    walk: re.Pattern[str]
    ask: re.Pattern[str]
    negation: re.Pattern[str]


@cache
def _patterns(lexicon: Lexicon) -> _Patterns:
    return _Patterns(
        accept_strong=phrase_pattern(lexicon.accept_strong),
        accept_weak=phrase_pattern(lexicon.accept_weak),
        reject=phrase_pattern([r for r in lexicon.reject if r not in ("no", "nope")]),
        walk=phrase_pattern(lexicon.walk),
        ask=phrase_pattern(lexicon.ask_priorities),
        negation=phrase_pattern(lexicon.negations),
    )


def find_cues(text: str, lexicon: Lexicon, *, ranking_stated: bool = False) -> Cues:
    """The intent cues in a normalized text.

    Args:
        text: Normalized text.
        lexicon: Word lists.
        ranking_stated: The text states the speaker's own priorities (so "and you?" asks for theirs).
    """
    patterns = _patterns(lexicon)
    reject_spans = [m.span() for m in patterns.reject.finditer(text)]
    reject = bool(reject_spans) or (_BARE_NO.match(text) is not None and _NOT_A_NO.match(text) is None)
    walk = any(
        not is_negated(text, m.start(), patterns.negation) and not _WALK_WITH.match(text, m.end())
        for m in patterns.walk.finditer(text)
    )
    accept = _accepts(text, patterns, reject_spans)
    asks = patterns.ask.search(text) is not None or _asks_needs(text)
    asks = asks or (ranking_stated and _WEAK_ASK.search(text) is not None)
    return Cues(accept and not reject, reject, walk, asks, "?" in text)


def _accepts(text: str, patterns: _Patterns, reject_spans: list[tuple[int, int]]) -> bool:
    for pattern, strong in ((patterns.accept_strong, True), (patterns.accept_weak, False)):
        for match in pattern.finditer(text):
            inside_reject = any(s <= match.start() < e for s, e in reject_spans)
            asked = re.match(r"\s*\?", text[match.end() :]) is not None
            if inside_reject or asked or is_negated(text, match.start(), patterns.negation):
                continue
            if strong or _is_short(text):
                return True
    return False


def _is_short(text: str) -> bool:
    words = re.findall(r"[a-z']+", text)
    return len(words) <= _SHORT_MESSAGE_WORDS and " but " not in f" {text} "


def _asks_needs(text: str) -> bool:
    """A question about the listener that mentions needs or importance ("which do you value most?")."""
    for match in _SENTENCE.finditer(text):
        sentence = match.group()
        if _YOU.search(sentence) is None or _NEED_WORDS.search(sentence) is None:
            continue
        question = sentence.rstrip().endswith("?")
        unterminated = match.end() == len(text) and sentence.rstrip()[-1:] not in ".!"
        if question or (unterminated and _WH_YOU.search(sentence)) or _WHAT_YOURS.search(sentence):
            return True
    return False
