"""Numbers in free text: digits ("90,000", "1.5k", "$95"), number words ("twenty five") and scales."""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import cache

from parley.language.lexicon import Lexicon

_CURRENCY_SYMBOLS = {"$": "usd", "€": "eur", "£": "gbp"}
_DIGITS = r"\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d+(?:\.\d+)?"
_SCALES = {"hundred", "thousand", "million"}


@dataclass(frozen=True, slots=True)
class Amount:
    """A number found in text.

    Attributes:
        start: Offset of the first character (including a currency symbol).
        end: Offset just past the last character (including a scale suffix).
        value: The number, with scale applied ("90k" -> 90000.0).
        currency: Unit key of a leading currency symbol ("usd" for "$"), or "".
    """

    start: int
    end: int
    value: float
    currency: str = ""


@dataclass(frozen=True, slots=True)
class _NumberPatterns:
    digits: re.Pattern[str]
    words: re.Pattern[str]


@cache
def _patterns(lexicon: Lexicon) -> _NumberPatterns:
    scale_words = sorted(lexicon.multipliers, key=len, reverse=True)
    scale = "|".join(re.escape(word) for word in scale_words)
    digits = re.compile(
        rf"(?P<currency>[$€£])?\s?(?P<number>{_DIGITS})(?:\s?(?P<scale>{scale}))?(?![\w.,]\d)(?!\w)"
    )
    cardinal = sorted([*lexicon.numbers, *_SCALES], key=len, reverse=True)
    word = "|".join(re.escape(w) for w in cardinal)
    words = re.compile(rf"(?<![\w-])(?:{word})(?:(?:[\s-]+(?:and[\s-]+)?)(?:{word}))*(?![\w-])")
    return _NumberPatterns(digits, words)


def word_number_value(phrase: str, lexicon: Lexicon) -> int | None:
    """The value of a number written in words ("two hundred and five" -> 205), or None."""
    total = current = 0
    seen = False
    for word in re.split(r"[\s-]+", phrase.strip()):
        if word == "and":
            continue
        if word in lexicon.numbers:
            current += lexicon.numbers[word]
        elif word == "hundred":
            current = max(current, 1) * 100
        elif word in ("thousand", "million"):
            total += max(current, 1) * lexicon.multipliers[word]
            current = 0
        else:
            return None
        seen = True
    return total + current if seen else None


def find_amounts(text: str, lexicon: Lexicon) -> list[Amount]:
    """Every number in normalized (lower-case) text, in order, without overlaps."""
    patterns = _patterns(lexicon)
    amounts: list[Amount] = []
    for match in patterns.digits.finditer(text):
        value = float(match["number"].replace(",", ""))
        if match["scale"]:
            value *= lexicon.multipliers[match["scale"]]
        currency = _CURRENCY_SYMBOLS.get(match["currency"] or "", "")
        amounts.append(Amount(match.start(), match.end(), value, currency))
    for match in patterns.words.finditer(text):
        if any(a.start < match.end() and match.start() < a.end for a in amounts):
            continue
        value = word_number_value(match.group(), lexicon)
        if value is not None:
            amounts.append(Amount(match.start(), match.end(), float(value)))
    return sorted(amounts, key=lambda a: a.start)
