"""Reading stated priorities ("firewood matters most to me, then water") from text."""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import cache

from parley.language.lexicon import phrase_pattern
from parley.language.scan import Mention, find_mentions, gap, is_negated, sentence_bounds
from parley.language.vocabulary import Vocabulary

_REACH = 48
"""Maximum characters between a priority cue and the issue it ranks."""

_FOLLOW_REACH = 16
_PRONOUN = re.compile(
    r"\b(?:(i|i'm|i'd|i'll|i've|me|my|mine|myself|we|we're|us|our)|(you|your|yours|u|you're))\b"
)
_QUANTITY_BEFORE = re.compile(r"(?:\d+|\bone|\btwo|\bthree|\bfour|\bfive|\ball|\bno)\s+(?:\w+\s+){0,2}$")
"""Maximum characters between "then" and the issue it continues the ranking with."""


@dataclass(frozen=True, slots=True)
class PriorityReading:
    """Priorities stated in a text.

    Attributes:
        ranking: Issue names from most important down, as far as stated (or inferred).
        least: Issues stated as least important, in order of mention.
    """

    ranking: tuple[str, ...]
    least: tuple[str, ...]

    @property
    def stated(self) -> bool:
        """Whether the text states any priority."""
        return bool(self.ranking or self.least)


@dataclass(frozen=True, slots=True)
class _Cue:
    start: int
    end: int
    role: str  # "top", "second", "least", "need", "next"


@dataclass(frozen=True, slots=True)
class _Patterns:
    top: re.Pattern[str]
    need: re.Pattern[str]
    second: re.Pattern[str]
    least: re.Pattern[str]
    after: re.Pattern[str]
    negation: re.Pattern[str]


@cache
def _patterns(vocabulary: Vocabulary) -> _Patterns:
    lexicon = vocabulary.lexicon
    return _Patterns(
        top=phrase_pattern(lexicon.priority_top),
        need=phrase_pattern(lexicon.priority_need),
        second=phrase_pattern(lexicon.priority_second),
        least=phrase_pattern(lexicon.priority_least),
        after=re.compile(phrase_pattern([n for n in lexicon.priority_next if n != ">"]).pattern + r"|>"),
        negation=phrase_pattern(lexicon.negations),
    )


def read_priorities(text: str, vocabulary: Vocabulary, *, needs: bool = True) -> PriorityReading:
    """The priorities a normalized text states.

    Args:
        text: Normalized text.
        vocabulary: The scenario's words.
        needs: Also read "I really need firewood" as a top priority when nothing is ranked explicitly.
    """
    patterns = _patterns(vocabulary)
    names = vocabulary.space.names
    ranked: dict[str, int] = {}
    least: list[str] = []
    all_mentions = find_mentions(text, vocabulary)
    weak = needs and patterns.top.search(text) is None
    for start, end in sentence_bounds(text):
        mentions = [m for m in all_mentions if start <= m.start < end]
        if mentions:
            _read_sentence(text, (start, end), mentions, patterns, ranked, least, weak=weak)
    return _complete(names, ranked, least)


def _cues(text: str, span: tuple[int, int], patterns: _Patterns, *, weak: bool) -> list[_Cue]:
    roles = [("least", patterns.least), ("top", patterns.top), ("second", patterns.second)]
    if weak:
        roles.append(("need", patterns.need))
    cues: list[_Cue] = []
    for role, pattern in roles:
        for match in pattern.finditer(text, *span):
            if not _cue_counts(text, span, match, cues, patterns):
                continue
            cues.append(_Cue(match.start(), match.end(), role))
    for match in patterns.after.finditer(text, *span):
        if not any(c.start < match.end() and match.start() < c.end for c in cues):
            cues.append(_Cue(match.start(), match.end(), "next"))
    return sorted(cues, key=lambda c: c.start)


def _cue_counts(
    text: str, span: tuple[int, int], match: re.Match[str], cues: list[_Cue], patterns: _Patterns
) -> bool:
    """Not overlapping a longer cue, not negated, about the speaker, and not "the last (item)"."""
    if any(c.start < match.end() and match.start() < c.end for c in cues):
        return False
    if patterns.negation.search(match.group()) is None and is_negated(text, match.start(), patterns.negation):
        return False
    if match.group() == "last" and re.search(r"\b(?:the|at|for)\s+$", text[: match.start()]):
        return False
    if match.group().startswith(("have", "has", "got")) and re.search(r"\bto\s+$", text[: match.start()]):
        return False  # "I would like to have plenty of food" wants it
    return _subject(text, span, match.start(), match.end()) != "listener"


def _subject(text: str, span: tuple[int, int], start: int, end: int) -> str:
    """Whose priority a cue states: the pronoun nearest to it in the sentence ("my", "to you")."""
    nearest: tuple[int, str] | None = None
    for match in _PRONOUN.finditer(text, *span):
        distance = gap(match.start(), match.end(), start, end)
        who = "speaker" if match.group(1) else "listener"
        if nearest is None or distance < nearest[0]:
            nearest = (distance, who)
    return nearest[1] if nearest else "speaker"


def _read_sentence(
    text: str,
    span: tuple[int, int],
    mentions: list[Mention],
    patterns: _Patterns,
    ranked: dict[str, int],
    least: list[str],
    *,
    weak: bool,
) -> None:
    cues = _cues(text, span, patterns, weak=weak)
    mentions = (
        [m for m in mentions if not _QUANTITY_BEFORE.search(text, max(0, m.start - 24), m.start)]
        if weak
        else mentions
    )
    claimed: set[int] = set()
    pairs = sorted(
        (c.role == "need", gap(c.start, c.end, m.start, m.end), i, j)
        for i, c in enumerate(cues)
        if c.role != "next"
        for j, m in enumerate(mentions)
    )
    cue_done: set[int] = set()
    for _, distance, i, j in pairs:
        if distance > _REACH or i in cue_done or j in claimed:
            continue
        if cues[i].role == "need" and not _may_precede(cues[i], mentions[j], text):
            continue
        cue_done.add(i)
        claimed.add(j)
        _place(cues[i].role, mentions[j].issue, ranked, least)
    _follow_chains(cues, mentions, claimed, ranked)


def _may_precede(cue: _Cue, mention: Mention, text: str) -> bool:
    """A need verb ("I really need firewood") ranks what follows it; "firewood is essential" what precedes."""
    verb_like = not text[cue.start : cue.end].startswith(("important", "crucial", "essential"))
    return mention.start >= cue.end if verb_like else True


def _place(role: str, issue: str, ranked: dict[str, int], least: list[str]) -> None:
    if issue in ranked or issue in least:
        return
    if role == "least":
        least.append(issue)
    elif role in ("top", "need") and 1 not in ranked.values():
        ranked[issue] = 1
    elif role == "second" and 2 not in ranked.values():
        ranked[issue] = 2


def _follow_chains(
    cues: list[_Cue], mentions: list[Mention], claimed: set[int], ranked: dict[str, int]
) -> None:
    """ "A, then B, then C" and "A > B > C": each issue after a "next" cue ranks below the one before it."""
    for cue in (c for c in cues if c.role == "next"):
        after = [
            (j, m)
            for j, m in enumerate(mentions)
            if m.start >= cue.end and m.start - cue.end <= _FOLLOW_REACH
        ]
        before = [m for m in mentions if m.end <= cue.start]
        if not after or not before or after[0][0] in claimed:
            continue
        previous = before[-1].issue
        if previous not in ranked and not ranked and cue.end - cue.start == 1:
            ranked[previous] = 1
        if previous in ranked and after[0][1].issue not in ranked:
            ranked[after[0][1].issue] = ranked[previous] + 1
            claimed.add(after[0][0])


def _complete(names: tuple[str, ...], ranked: dict[str, int], least: list[str]) -> PriorityReading:
    ranking: list[str] = []
    for rank in range(1, len(names) + 1):
        issue = next((name for name, r in ranked.items() if r == rank), None)
        if issue is None:
            break
        ranking.append(issue)
    unplaced = [n for n in names if n not in ranking and n not in least]
    if least and len(least) <= 1 and len(unplaced) <= 1 and ranking:
        ranking = [*ranking, *unplaced, *least]
    elif not ranking and len(unplaced) == 1 and len(least) == len(names) - 1:
        ranking = unplaced
    return PriorityReading(tuple(ranking), tuple(least))
