"""The utility-leak guard: finds a party's private numbers or BATNA talk in outgoing prose.

A sentence leaks when it states the reservation value or an issue weight (in digits, as a
percentage or in words), states a private score next to scoring vocabulary, or names the BATNA
or reservation value outright. Leaking sentences are removed before the message is sent.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass

from parley.domain.utility import LinearAdditiveUtility, RankedPreferenceUtility, UtilityFunction

_SENTENCE = re.compile(r"(?<=[.!?;])\s+|\n+")
_NUMBER = re.compile(r"(?<![\w.])-?\d+(?:[.,]\d+)?(?:\s*(?:%|percent\b|per cent\b))?", re.IGNORECASE)
_DISCLOSURE = re.compile(
    r"\b(?:my|our)\s+(?:batna|reservation|walk[- ]?away|bottom[- ]line|minimum acceptable|utility|utilities|"
    r"weights?|weighting|scores?|scoring|floor)\b|\bbatna\b|\breservation (?:value|price|point)\b|"
    r"\bwalk[- ]?away (?:value|point|price|threshold)\b|\bbottom[- ]line\b",
    re.IGNORECASE,
)
_SCORING = re.compile(r"\b(?:utilit(?:y|ies)|weight(?:s|ed|ing)?|points?|score[sd]?|worth)\b", re.IGNORECASE)

_UNITS = {
    w: i
    for i, w in enumerate(
        [
            "zero",
            "one",
            "two",
            "three",
            "four",
            "five",
            "six",
            "seven",
            "eight",
            "nine",
            "ten",
            "eleven",
            "twelve",
            "thirteen",
            "fourteen",
            "fifteen",
            "sixteen",
            "seventeen",
            "eighteen",
            "nineteen",
        ]
    )
}
_TENS = {
    w: 10 * i
    for i, w in enumerate(
        ["_", "_", "twenty", "thirty", "forty", "fifty", "sixty", "seventy", "eighty", "ninety"]
    )
    if i > 1
}
_WORD_NUMBER = re.compile(
    r"\b(?:(?:"
    + "|".join(_TENS)
    + r")(?:[- ](?:"
    + "|".join(list(_UNITS)[1:10])
    + r"))?|"
    + "|".join(_UNITS)
    + r"|a hundred|one hundred|half)"
    + r"(?:\s+point(?:\s+(?:"
    + "|".join(list(_UNITS)[:10])
    + r"))+)?"
    + r"(?:\s*(?:%|percent\b|per cent\b))?",
    re.IGNORECASE,
)


@dataclass(frozen=True, slots=True)
class LeakReport:
    """What the guard found and the message it would send instead.

    Attributes:
        findings: One label per leaking sentence ("reservation_value", "weight", "score", "disclosure").
        cleaned: The message with leaking sentences removed.
    """

    findings: tuple[str, ...]
    cleaned: str

    @property
    def leaked(self) -> bool:
        """Whether anything was removed."""
        return bool(self.findings)


@dataclass(frozen=True, slots=True)
class PrivateNumbers:
    """The numbers a party must not state.

    Attributes:
        reservation: The reservation value (BATNA).
        weights: Issue weights and each weight's share of the total.
        scores: Per-option points (flagged only next to scoring words).
        public: Numbers anyone may say (numeric options of the issues).
    """

    reservation: float
    weights: tuple[float, ...]
    scores: tuple[float, ...]
    public: tuple[float, ...]

    @classmethod
    def of(cls, utility: UtilityFunction) -> PrivateNumbers:
        """Collect the private numbers of a utility function."""
        weights: list[float] = []
        scores: list[float] = []
        if isinstance(utility, LinearAdditiveUtility | RankedPreferenceUtility):
            raw = [abs(float(w)) for w in utility.weights.values() if float(w) != 0]
            total = sum(raw)
            weights = raw + ([w / total for w in raw] if total > 0 and len(raw) > 1 else [])
        if isinstance(utility, LinearAdditiveUtility):
            scores = [float(v) for table in utility.weighted_tables for v in table.tolist() if v != 0]
        public = [
            float(v)
            for issue in utility.space.issues
            for v in issue.values
            if isinstance(v, int | float) and not isinstance(v, bool)
        ]
        return cls(float(utility.reservation_value), tuple(weights), tuple(scores), tuple(public))


def check_message(message: str, private: PrivateNumbers) -> LeakReport:
    """Find leaking sentences in message and remove them."""
    kept: list[str] = []
    findings: list[str] = []
    for sentence in (s for s in _SENTENCE.split(message) if s.strip()):
        label = _leak_label(sentence, private)
        if label is None:
            kept.append(sentence.strip())
        else:
            findings.append(label)
    return LeakReport(tuple(findings), " ".join(kept))


def _leak_label(sentence: str, private: PrivateNumbers) -> str | None:
    if _DISCLOSURE.search(sentence):
        return "disclosure"
    numbers = [n for n in stated_numbers(sentence) if not _matches(n, private.public)]
    if private.reservation != 0 and _matches_any(numbers, [private.reservation]):
        return "reservation_value"
    if _matches_any(numbers, private.weights):
        return "weight"
    if numbers and _SCORING.search(sentence):
        return "score"
    return None


def stated_numbers(text: str) -> list[float]:
    """Every number in text, in digits or words; a percentage also counts as its fraction."""
    found: list[float] = []
    for match in _NUMBER.finditer(text):
        found.extend(_with_percent(match.group(0), _digits(match.group(0))))
    for match in _WORD_NUMBER.finditer(text):
        value = _words(match.group(0))
        if value is not None:
            found.extend(_with_percent(match.group(0), value))
    return found


def _digits(token: str) -> float:
    core = re.sub(r"[^\d.,-]", "", token).replace(",", ".")
    return float(core)


def _with_percent(token: str, value: float) -> list[float]:
    lowered = token.lower()
    if "%" in lowered or "percent" in lowered or "per cent" in lowered:
        return [value / 100.0, value]
    return [value]


def _words(token: str) -> float | None:
    words = re.sub(r"(%|percent|per cent)", "", token.lower()).replace("-", " ").split()
    if words in (["half"],):
        return 0.5
    if "point" in words:
        head, tail = words[: words.index("point")], words[words.index("point") + 1 :]
        whole = _integer(head) if head else 0
        digits = "".join(str(_UNITS[w]) for w in tail if w in _UNITS)
        return None if whole is None or not digits else float(f"{whole}.{digits}")
    value = _integer(words)
    return None if value is None else float(value)


def _integer(words: list[str]) -> int | None:
    if words in (["a", "hundred"], ["one", "hundred"]):
        return 100
    total = 0
    for word in words:
        if word in _TENS:
            total += _TENS[word]
        elif word in _UNITS:
            total += _UNITS[word]
        else:
            return None
    return total


def _matches(value: float, targets: Iterable[float]) -> bool:
    return any(abs(value - t) <= 0.005 * max(1.0, abs(t)) for t in targets)


def _matches_any(values: Iterable[float], targets: Iterable[float]) -> bool:
    target_list = list(targets)
    return any(_matches(v, target_list) for v in values)
