"""Shared text scanning for the parser: issue mentions, sentence spans and negation checks."""

from __future__ import annotations

import re
from dataclasses import dataclass

from parley.language.vocabulary import Vocabulary

_SENTENCE_END = re.compile(r"[.!?;\n]+(?=\s|$)|\n")


@dataclass(frozen=True, slots=True)
class Mention:
    """A span of text naming an issue.

    Attributes:
        start: Offset of the first character.
        end: Offset just past the last character.
        issue: The issue name.
    """

    start: int
    end: int
    issue: str


def find_mentions(text: str, vocabulary: Vocabulary) -> list[Mention]:
    """Every issue alias in normalized text, in order."""
    mentions: list[Mention] = []
    for match in vocabulary.issue_pattern.finditer(text):
        issue = vocabulary.issue_of_alias(match.group())
        if issue is not None:
            mentions.append(Mention(match.start(), match.end(), issue))
    return mentions


def sentence_bounds(text: str) -> list[tuple[int, int]]:
    """(start, end) offsets of the sentences of a text."""
    bounds: list[tuple[int, int]] = []
    start = 0
    for match in _SENTENCE_END.finditer(text):
        if match.start() > start:
            bounds.append((start, match.start()))
        start = match.end()
    if start < len(text):
        bounds.append((start, len(text)))
    return bounds or [(0, len(text))]


def sentence_of(bounds: list[tuple[int, int]], position: int) -> tuple[int, int]:
    """The sentence span containing position (or the nearest one before it)."""
    for start, end in bounds:
        if start <= position <= end:
            return start, end
    before = [b for b in bounds if b[1] <= position]
    return before[-1] if before else bounds[0]


def gap(a_start: int, a_end: int, b_start: int, b_end: int) -> int:
    """Characters between two spans (0 when they touch or overlap)."""
    return max(0, max(a_start, b_start) - min(a_end, b_end))


def is_negated(text: str, start: int, negation: re.Pattern[str], window: int = 24) -> bool:
    """Whether a negation word occurs shortly before offset start within the same clause."""
    before = text[max(0, start - window) : start]
    before = re.split(r"[,.;!?]|\bbut\b", before)[-1]
    return negation.search(before) is not None
