"""The utility-leak guard: finds a party's private numbers or BATNA talk in outgoing prose.

A sentence leaks when it states one of the speaker's own private numbers in a valuation frame:
a number (digits or words, "five", "a 5-pointer", "40%", "a quarter of my total") next to
valuation words ("worth", "points", "scores", "gives me N", "I get N from", "N per package",
"BATNA", "walk away", "bottom line", "under N", ...) or stated as the value of an item ("water is 5
for me", "food: 5", "wood's a 4"), and equal to or near (within 1 or 20 %) a true per-package
value, a total derivable from the true values, an issue's weight share or the BATNA. The pronoun
does not matter: said of the listener in a valuation frame ("your walk-away value is: 5", "worth 3
points to you"), a number leaks when it equals one of the speaker's own numbers (a model copies
its private block that way, and cannot know the other side's); only questions and quotes of the
other side ("you said ...") are exempt. Quantities ("I'll take 2 firewood", "12 hours", "split
2-1") are not valuation frames; an option value of the issues is exempt only outside one.
A decimal or a percentage equal to the reservation value or a weight leaks in any frame, and
naming one's BATNA or reservation value outright leaks even without a number. The categories a
party's policy allows it to disclose (`PrivateNumbers.may_disclose`) are never flagged.

Leaking sentences are removed before the message is sent. Time is linear in the message length.
"""

from __future__ import annotations

import re
from bisect import bisect_left
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from importlib import resources
from typing import Any, cast

import yaml

from parley.domain.utility import LinearAdditiveUtility, RankedPreferenceUtility, UtilityFunction
from parley.governance.amounts import ONES_WORDS, TENS_WORDS

DISCLOSABLE = frozenset({"values", "weights", "reservation"})
"""What a policy may allow a party to state: its per-package values and totals, its weights, its BATNA."""

_TOTALS_LIMIT = 50_000  # outcome spaces up to this size contribute every package's total

_SENTENCE = re.compile(r"(?<=[.!?;])\s+|\n+")
_NUMBER = re.compile(r"(?<![\w.])-?\d+(?:[.,]\d+)?(?:\s*(?:%|percent\b|per cent\b))?", re.IGNORECASE)
_DISCLOSURE_RESERVATION = re.compile(
    r"\b(?:my|our)\s+(?:batna|walk[- ]?away|bottom[- ]line|minimum acceptable|floor)\b|"
    r"(?<!your )(?<!their )(?<!his )(?<!her )\bbatna\b|"
    r"\b(?:my|our)\s+reservation (?:value|price|point|level)\b|"
    r"(?<!your )(?<!their )\breservation (?:value|price|point)\b|"
    r"(?<!your )(?<!their )\bwalk[- ]?away (?:value|point|price|threshold)\b|"
    r"(?<!your )(?<!their )\bbottom[- ]line\b",
    re.IGNORECASE,
)
_NOT_DISCLOSED = re.compile(
    r"\b(?:is|are|stays|remains|'s)\s+"
    r"(?:(?:kind of|pretty|quite|a|my|very|much|way|far|strictly|totally)\s+)*"
    r"(?:secret|private|confidential|none of|not (?:your|something|for)|my (?:business|own)|"
    r"(?:better|worse|stronger|weaker|higher|lower) than)",
    re.IGNORECASE,
)
_DISCLOSURE_SCORES = re.compile(
    r"\b(?:my|our)\s+(?:utility|utilities|weights?|weighting|scores?|scoring)\b", re.IGNORECASE
)

_UNITS = {w: i for i, w in enumerate(ONES_WORDS)}
_TENS = {w: 10 * (i + 2) for i, w in enumerate(TENS_WORDS)}
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
_FRACTIONS = {
    "half": 2,
    "halves": 2,
    "third": 3,
    "thirds": 3,
    "quarter": 4,
    "quarters": 4,
    "fifth": 5,
    "fifths": 5,
}

# --- vocabulary of valuation frames (data: leak_cues.yaml beside this module) ---------------------


def _load_cues() -> tuple[dict[str, frozenset[str]], dict[str, tuple[tuple[str, ...], ...]]]:
    raw = cast(
        dict[str, Any],
        yaml.safe_load(resources.files("parley.llm").joinpath("leak_cues.yaml").read_text("utf-8")),
    )
    words = {str(k): frozenset(str(v).split()) for k, v in cast(dict[str, Any], raw["words"]).items()}
    phrases = {
        str(k): tuple(tuple(str(p).split()) for p in cast(list[Any], v))
        for k, v in cast(dict[str, Any], raw["phrases"]).items()
    }
    return words, phrases


_WORDS, _PHRASES = _load_cues()
_POINT_UNITS = _WORDS["point_units"]
_RESERVATION_HEADS = _WORDS["reservation_heads"]
_VALUE_NOUNS = _WORDS["value_nouns"]
_UNIT_NOUNS = _WORDS["unit_nouns"]
_HEAD_SKIP = _WORDS["head_skip"]
_STOPWORDS = _WORDS["stopwords"]
_FIRST_PERSON = _WORDS["first_person"]
_SECOND_PERSON = _WORDS["second_person"]
_LABEL_NOUNS = _WORDS["label_nouns"]
_TIME_WORDS = _WORDS["time_words"]
_PRONOUN_ONE = _WORDS["pronoun_one"]
_PRICE_WORDS = _WORDS["price_words"]
_CURRENCY = _WORDS["currency"]
_COPULAS = _WORDS["copulas"]
_FRAME_FILLERS = _WORDS["frame_fillers"]
_RATE_CUES = _WORDS["rate_cues"]
_STRONG_CUES = _PHRASES["strong_cues"]
_RESERVATION_CUES = _PHRASES["reservation_cues"]
_WEAK_CUES = _PHRASES["weak_cues"]
_HEARSAY = _PHRASES["hearsay"]
_ALLOCATION_TAIL = _PHRASES["allocation"]
_CUE_BEFORE = 10  # tokens between a cue and the number it frames
_CUE_AFTER = 6
_PRONOUN_SCAN = 10


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
        scores: Per-option points of each issue.
        public: Numbers anyone may say outside a valuation frame (numeric options of the issues).
        values: Per-package values (steps of each issue's table, per unit of a numeric issue).
        totals: Totals derivable from the true values (every package's total, per-issue sums).
        shares: Each issue's share of the utility range.
        items: Issue names, to recognise "water is 5" as an item's value.
        may_disclose: Categories the party's policy allows it to state ("values", "weights",
            "reservation"); numbers of those categories are not flagged.
    """

    reservation: float
    weights: tuple[float, ...]
    scores: tuple[float, ...]
    public: tuple[float, ...]
    values: tuple[float, ...] = ()
    totals: tuple[float, ...] = ()
    shares: tuple[float, ...] = ()
    items: tuple[str, ...] = ()
    may_disclose: frozenset[str] = frozenset()
    _targets: dict[str, tuple[float, ...]] = field(init=False, repr=False, compare=False)
    _legal: frozenset[float] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        unknown = set(self.may_disclose) - DISCLOSABLE
        if unknown:
            raise ValueError(
                f"may_disclose names unknown categories {sorted(unknown)}; use {sorted(DISCLOSABLE)}"
            )
        values = self.values + self.totals + self.scores
        targets = {
            "reservation": (self.reservation,) if self.reservation != 0 else (),
            "weights": self.shares + self.weights,
            "values": values,
        }
        object.__setattr__(
            self,
            "_targets",
            {k: tuple(sorted({round(t, 9) for t in v if t != 0})) for k, v in targets.items()},
        )
        object.__setattr__(self, "_legal", frozenset(round(p, 9) for p in self.public))

    @classmethod
    def of(cls, utility: UtilityFunction, *, may_disclose: Iterable[str] = ()) -> PrivateNumbers:
        """Collect the private numbers of a utility function.

        Args:
            utility: The party's utility function.
            may_disclose: Categories the party's policy allows it to state (see `DISCLOSABLE`).
        """
        weights: list[float] = []
        scores: list[float] = []
        values: list[float] = []
        totals: list[float] = []
        shares: list[float] = []
        if isinstance(utility, LinearAdditiveUtility | RankedPreferenceUtility):
            raw = [abs(float(w)) for w in utility.weights.values() if float(w) != 0]
            if all(w == 1.0 for w in raw):
                raw = []  # unweighted: the tables carry the values and the shares come from their ranges
            total = sum(raw)
            weights = raw + ([w / total for w in raw] if total > 0 and len(raw) > 1 else [])
        linear = utility.linear if isinstance(utility, RankedPreferenceUtility) else utility
        if isinstance(linear, LinearAdditiveUtility):
            tables = [[float(v) for v in table.tolist()] for table in linear.weighted_tables]
            scores = [v for table in tables for v in table if v != 0]
            for issue, table in zip(linear.space.issues, tables, strict=True):
                low, high = min(table), max(table)
                totals.extend([v - low for v in table] + [high - v for v in table])
                options = [
                    float(o) for o in issue.values if isinstance(o, int | float) and not isinstance(o, bool)
                ]
                numeric = len(options) == len(table)
                for k in range(1, len(table)):
                    step = abs(table[k] - table[k - 1])
                    values.append(step)
                    gap = abs(options[k] - options[k - 1]) if numeric else 0.0
                    if gap > 0:
                        values.append(step / gap)  # per unit of a numeric issue (per USD, per year)
            ranges = [max(t) - min(t) for t in tables]
            if sum(ranges) > 0 and len(ranges) > 1:
                shares = [r / sum(ranges) for r in ranges if r > 0]
            if linear.space.size <= _TOTALS_LIMIT:
                totals.extend({round(float(u), 9) for u in linear.evaluate_space().tolist()})
            else:
                totals.append(sum(max(t) for t in tables) + linear.offset)
            scale = max([abs(v) for table in tables for v in table] + [abs(float(utility.reservation_value))])
            if 0 < scale <= 1.5:  # normalised utilities are often stated as points out of 100
                values += [100 * v for v in values]
                totals += [100 * v for v in totals + scores]
        public = [
            float(v)
            for issue in utility.space.issues
            for v in issue.values
            if isinstance(v, int | float) and not isinstance(v, bool)
        ]
        return cls(
            float(utility.reservation_value),
            tuple(weights),
            tuple(scores),
            tuple(public),
            values=tuple(values),
            totals=tuple(totals),
            shares=tuple(shares),
            items=tuple(issue.name.lower() for issue in utility.space.issues),
            may_disclose=frozenset(may_disclose),
        )

    def matches(self, number: float, category: str) -> bool:
        """Whether number equals or approximates (within 1, or 20 % of larger targets) a private number."""
        if category in self.may_disclose:
            return False
        targets = self._targets[category]
        reach = max(1.0, 0.25 * abs(number)) if abs(number) >= 0.8 else 0.25 * abs(number)
        for t in targets[bisect_left(targets, number - reach - 1e-9) :]:
            if t > number + reach + 1e-9:
                break
            tolerance = max(1.0, 0.2 * abs(t)) if abs(t) >= 1 else 0.2 * abs(t)
            if abs(number - t) <= tolerance + 1e-9:
                return True
        return False

    def equals(self, number: float, category: str) -> bool:
        """Whether number equals (within 0.5 %) a private number of category."""
        if category in self.may_disclose:
            return False
        return any(abs(number - t) <= 0.005 * max(1.0, abs(t)) for t in self._targets[category])

    def is_legal(self, number: float) -> bool:
        """Whether number is an option value of a numeric issue (a quantity anyone may name)."""
        return round(number, 9) in self._legal


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


# --- tokens ---------------------------------------------------------------------------------------


@dataclass(slots=True)
class _Token:
    text: str  # lower-cased word or symbol; "#" for a number
    kind: str  # "word", "num", "sym" or "break"
    value: float = 0.0
    percent: bool = False
    fraction: bool = False
    written_decimal: bool = False  # digits with a decimal point or "zero point three five"
    ordinal: bool = False


_TOKEN = re.compile(
    r"(?P<num>\d+(?:[.,]\d+)?)(?P<ord>st\b|nd\b|rd\b|th\b)?"
    r"|(?P<word>o'clock|[a-z]+(?:'[a-z]+)?)"
    r"|(?P<sym>[=#$€£°%:/+&-])"
    r"|(?P<brk>[,;()\[\]…—–!?.\"])"
)
_HYPHEN_WORDS = re.compile(r"(?<=[a-z0-9])-(?=[a-z])")
_SPACED_DASH = re.compile(r"\s+-+\s+")


def _tokenize(sentence: str) -> list[_Token]:
    text = sentence.lower().replace("’", "'").replace("‘", "'").replace("per cent", "percent")
    text = _SPACED_DASH.sub(" — ", _HYPHEN_WORDS.sub(" ", text))
    raw: list[_Token] = []
    for m in _TOKEN.finditer(text):
        if m.group("num") is not None:
            digits = m.group("num")
            raw.append(
                _Token(
                    "#",
                    "num",
                    float(digits.replace(",", ".")),
                    written_decimal=("." in digits or "," in digits),
                    ordinal=m.group("ord") is not None,
                )
            )
        elif m.group("word") is not None:
            word = m.group("word")
            if word.endswith("'s") and word not in ("it's", "that's", "what's", "let's", "there's", "here's"):
                raw.append(_Token(word[:-2], "word"))
                raw.append(_Token("'s", "word"))
            else:
                raw.append(_Token(word, "word"))
        elif m.group("sym") is not None:
            raw.append(_Token(m.group("sym"), "sym"))
        else:
            raw.append(_Token(m.group("brk"), "break"))
    return _merge_numbers(raw)


def _merge_numbers(raw: list[_Token]) -> list[_Token]:
    out: list[_Token] = []
    i = 0
    n = len(raw)
    while i < n:
        tok = raw[i]
        merged = _word_number(raw, i) if tok.kind == "word" else None
        if merged is not None:
            number, i = merged
            out.append(number)
        else:
            out.append(tok)
            i += 1
        last = out[-1]
        if last.kind == "num" and i < n and raw[i].text in ("%", "percent"):
            last.percent = True
            i += 1
    return out


def _word_number(raw: list[_Token], i: int) -> tuple[_Token, int] | None:
    """Parse a number written in words starting at raw[i]; return the token and the next index."""
    words = [t.text if t.kind == "word" else "" for t in raw[i : i + 6]]
    first = words[0]
    # fractions: "half", "a third", "two thirds", "a quarter"
    if first == "half":
        return _Token("#", "num", 0.5, fraction=True), i + 1
    if first in ("a", "one", "two", "three") and len(words) > 1 and words[1] in _FRACTIONS:
        numerator = 1 if first in ("a", "one") else _UNITS[first]
        return _Token("#", "num", numerator / _FRACTIONS[words[1]], fraction=True), i + 2
    if first in ("a", "one") and len(words) > 1 and words[1] == "hundred":
        return _Token("#", "num", 100.0), i + 2
    if first in _TENS:
        value, j = _TENS[first], i + 1
        if j < len(raw) and raw[j].text in _UNITS and 0 < _UNITS[raw[j].text] < 10:
            value += _UNITS[raw[j].text]
            j += 1
    elif first in _UNITS:
        if first == "one" and any(t.text in _PRONOUN_ONE for t in raw[max(0, i - 3) : i]):
            return None  # "the cheap one", "each one"
        if first == "one" and i + 1 < len(raw) and raw[i + 1].text in ("of", "more", "another"):
            return None
        value, j = _UNITS[first], i + 1
    else:
        return None
    # "three point five": a decimal only if digit words follow "point"
    if (
        j + 1 < len(raw)
        and raw[j].text == "point"
        and raw[j + 1].text in _UNITS
        and _UNITS[raw[j + 1].text] < 10
    ):
        k = j + 1
        digits = ""
        while k < len(raw) and raw[k].text in _UNITS and _UNITS[raw[k].text] < 10:
            digits += str(_UNITS[raw[k].text])
            k += 1
        return _Token("#", "num", float(f"{value}.{digits}"), written_decimal=True), k
    return _Token("#", "num", float(value)), j


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


# --- frames ---------------------------------------------------------------------------------------


@dataclass(slots=True)
class _Clause:
    tokens: list[_Token]
    strong: list[int]  # prefix counts of strong cue starts
    weak: list[int]
    reservation: list[int]
    has_item: bool
    hearsay: bool
    allocation: bool  # "... for you", "you take ...": the numbers split the packages
    priced: bool  # shop prices ("the store sells firewood for 5 a bundle") are not the speaker's values
    question: bool = False  # the sentence asks ("Do you value water at 5?"): asks about the listener


def _index(phrases: Iterable[tuple[str, ...]]) -> dict[str, tuple[tuple[str, ...], ...]]:
    by_first: dict[str, list[tuple[str, ...]]] = {}
    for phrase in phrases:
        by_first.setdefault(phrase[0], []).append(phrase)
    return {first: tuple(group) for first, group in by_first.items()}


_STRONG_INDEX = _index(_STRONG_CUES)
_RESERVATION_INDEX = _index(_RESERVATION_CUES)
_WEAK_INDEX = _index(_WEAK_CUES)
_HEARSAY_INDEX = _index(_HEARSAY)
_ALLOCATION_INDEX = _index(_ALLOCATION_TAIL)


def _phrase_at(words: Sequence[str], i: int, index: dict[str, tuple[tuple[str, ...], ...]]) -> bool:
    """Whether a phrase of index starts at words[i]; phrases are at most a few words, so O(1)."""
    for phrase in index.get(words[i], ()):
        if i + len(phrase) <= len(words) and all(words[i + k] == w for k, w in enumerate(phrase)):
            return True
    return False


def _prefix(flags: list[bool]) -> list[int]:
    counts = [0]
    for f in flags:
        counts.append(counts[-1] + f)
    return counts


def _is_item(word: str, items: tuple[str, ...]) -> bool:
    if len(word) < 3:
        return False
    for item in items:
        if word in (item, item + "s", item + "es") or (len(word) >= 4 and item.endswith(word)):
            return True
        if item.endswith("s") and word == item[:-1]:
            return True
    return False


def _clause(tokens: list[_Token], items: tuple[str, ...]) -> _Clause:
    words = [t.text for t in tokens]
    has_item = any(_is_item(w, items) for w in words)
    priced = any(w in _PRICE_WORDS for w in words)
    rate = has_item and any(w in _RATE_CUES for w in words)
    positions = range(len(words))
    strong = [_phrase_at(words, i, _STRONG_INDEX) or (rate and words[i] in _RATE_CUES) for i in positions]
    reservation = [_phrase_at(words, i, _RESERVATION_INDEX) for i in positions]
    weak = [_phrase_at(words, i, _WEAK_INDEX) for i in positions]
    hearsay = any(_phrase_at(words, i, _HEARSAY_INDEX) for i in positions)
    allocation = any(_phrase_at(words, i, _ALLOCATION_INDEX) for i in positions)
    return _Clause(
        tokens, _prefix(strong), _prefix(weak), _prefix(reservation), has_item, hearsay, allocation, priced
    )


def _near(prefix: list[int], i: int) -> bool:
    lo, hi = max(0, i - _CUE_BEFORE), min(len(prefix) - 1, i + _CUE_AFTER + 1)
    return prefix[hi] - prefix[lo] > 0


def _clauses(tokens: list[_Token], items: tuple[str, ...]) -> list[_Clause]:
    out: list[_Clause] = []
    current: list[_Token] = []
    for tok in tokens:
        if tok.kind == "break":
            if current:
                out.append(_clause(current, items))
            current = []
        else:
            current.append(tok)
    if current:
        out.append(_clause(current, items))
    return out


def _leak_label(sentence: str, private: PrivateNumbers) -> str | None:
    if (
        "reservation" not in private.may_disclose
        and _DISCLOSURE_RESERVATION.search(sentence)
        and not _NOT_DISCLOSED.search(sentence)
    ):
        return "disclosure"
    if not {"values", "weights"} <= private.may_disclose and _DISCLOSURE_SCORES.search(sentence):
        return "disclosure"
    clauses = _clauses(_tokenize(sentence), private.items)
    for clause in clauses:
        clause.question = sentence.rstrip().endswith("?")
    sentence_cue = any(c.strong[-1] or c.weak[-1] or c.reservation[-1] for c in clauses)
    for clause in clauses:
        for i, tok in enumerate(clause.tokens):
            if tok.kind == "num":
                label = _number_leak(clause, i, private, sentence_cue)
                if label is not None:
                    return label
    return None


def _word(tokens: Sequence[_Token], i: int) -> str:
    return tokens[i].text if 0 <= i < len(tokens) else ""


def _number_leak(clause: _Clause, i: int, private: PrivateNumbers, sentence_cue: bool) -> str | None:
    tokens = clause.tokens
    tok = tokens[i]
    if tok.ordinal or _not_a_value(tokens, i):
        return None
    exact = _exact_private(clause, i, private)
    if exact is not None:
        return exact
    j = i + 1  # the head: what the number counts or measures
    while j < len(tokens) and (tokens[j].text in _HEAD_SKIP or tokens[j].text == "-"):
        j += 1
    head = _word(tokens, j)
    after = _word(tokens, j + 1)
    kind: str
    if head in _POINT_UNITS:
        if after == ":" or (after == "to" and _word(tokens, j + 2) in ("make", "raise", "consider")):
            return None  # "two points: first, ..." enumerates arguments
        kind = "P"
    elif head in _RESERVATION_HEADS:
        kind = "P"
    elif head in ("per", "each", "apiece") or (
        head in ("a", "an") and (after in _UNIT_NOUNS or _is_item(after, private.items))
    ):
        kind = "U"
    elif head == "of":
        if after in ("my", "our") and _word(tokens, j + 2) in _VALUE_NOUNS | {"total"}:
            kind = "P"
        else:
            return None
    elif head in ("for", "to") and after in ("me", "us"):
        kind = "FORME"
    elif head in ("for", "to") and after in _SECOND_PERSON:
        return None
    elif head == "out" and after == "of":
        kind = "BARE"
    elif head == "°":
        return None
    elif head == "" or tokens[j].kind in ("sym", "num") or head in _STOPWORDS:
        kind = "BARE"
    elif _is_item(head, private.items):
        if private.is_legal(tok.value):
            return None
        kind = "ITEMNUM"
    else:
        return None  # a count of something else: people, hours, days, degrees
    if tok.fraction and kind != "P":
        return None
    addressed = _other_party(clause, i, j)
    if addressed and (clause.hearsay or clause.question):
        return None  # quoting or asking the other side ("you said your BATNA is 5", "do you value ...?")
    legal = private.is_legal(tok.value) and not tok.percent
    framed = _framed(clause, i, kind, legal, private, sentence_cue)
    if framed is None:
        return None
    if addressed and not (kind == "P" or _near(clause.strong, i) or _near(clause.reservation, i)):
        return None
    return _label(tok, framed, private, exact=addressed)


def _exact_private(clause: _Clause, i: int, private: PrivateNumbers) -> str | None:
    """A decimal or percentage equal to the reservation value or a weight leaks in any frame."""
    tok = clause.tokens[i]
    if not (tok.written_decimal or tok.percent or (tok.fraction and tok.value == 0.5)):
        return None
    if clause.hearsay:
        return None
    for value in _candidates(tok):
        if not private.is_legal(value):
            if private.equals(value, "reservation"):
                return "reservation_value"
            if private.equals(value, "weights"):
                return "weight"
    return None


def _not_a_value(tokens: Sequence[_Token], i: int) -> bool:
    """Money, labels ("round 8", "#1"), times ("leave at six"), allocations ("2-1")."""
    prev, prev2 = _word(tokens, i - 1), _word(tokens, i - 2)
    nxt = _word(tokens, i + 1)
    if prev in _CURRENCY or nxt in _CURRENCY or nxt in ("dollars", "bucks", "euros", "cents"):
        return True
    if prev in ("#", "no") or prev in _LABEL_NOUNS or (prev == ":" and prev2 in _LABEL_NOUNS):
        return True
    if prev in ("at", "by", "around", "until", "till") and prev2 in _TIME_WORDS:
        return True
    if nxt in ("-", "/") and i + 2 < len(tokens) and tokens[i + 2].kind == "num":
        return True
    return prev in ("-", "/") and i >= 2 and tokens[i - 2].kind == "num"


def _other_party(clause: _Clause, i: int, j: int) -> bool:
    """Whether the number is attributed to someone other than the speaker."""
    tokens = clause.tokens
    for k in range(i + 1, min(len(tokens), max(j, i + 1) + 4)):
        if tokens[k].kind == "num":
            break
        a, b = tokens[k].text, _word(tokens, k + 1)
        if a in ("to", "for", "of") and b in ("me", "us", "my", "our"):
            return False
        if a in ("to", "for") and b in _SECOND_PERSON:
            return True
    if clause.hearsay:
        return True
    for k in range(i - 1, max(-1, i - 1 - _PRONOUN_SCAN), -1):
        word = tokens[k].text
        if word in _FIRST_PERSON:
            return False
        if word in _SECOND_PERSON:
            return True
    return False


def _item_frame(tokens: Sequence[_Token], i: int, private: PrivateNumbers) -> tuple[str, bool] | None:
    """For "water is 5", "food: 5", "wood's a 4", "food for me is 4": the separator and an article."""
    article = False
    separator = ""
    k = i - 1
    steps = 0
    while k >= 0 and steps < 6:
        word = tokens[k].text
        if word in ("a", "an", "my", "our"):
            article = True
        elif word in _COPULAS and not separator:
            separator = word
        elif word in ("me", "us") or (word in ("for", "to") and _word(tokens, k + 1) in ("me", "us")):
            pass
        elif _is_item(word, private.items):
            return separator, article
        elif word == "it's" and steps <= 3:
            return "is", article
        elif word not in _FRAME_FILLERS:
            return None
        k -= 1
        steps += 1
    return None


def _framed(
    clause: _Clause, i: int, kind: str, legal: bool, private: PrivateNumbers, sentence_cue: bool
) -> str | None:
    """The frame category ("values", "reservation", "weights") if number i is stated as a valuation."""
    tok = clause.tokens[i]
    reservation_cue = _near(clause.reservation, i)
    category = "reservation" if reservation_cue else ("weights" if tok.percent or tok.fraction else "values")
    if kind == "P":
        return category
    if kind == "U":
        return None if clause.priced else category
    strong = _near(clause.strong, i) or reservation_cue
    weak = _near(clause.weak, i)
    if kind == "ITEMNUM":
        return category if sentence_cue or _item_frame(clause.tokens, i, private) is not None else None
    allocation = clause.allocation
    item = _item_frame(clause.tokens, i, private)
    rating = _word(clause.tokens, i - 1) in ("a", "an", "my") and clause.has_item
    if kind == "FORME":
        if not legal:
            return category
        if allocation:
            return None
        if strong or rating or (item is not None and (item[0] not in ("", ":") or item[1])):
            return category
        return None
    # BARE
    if strong:
        return category
    if weak and not legal:
        return category
    if item is not None:
        return category if not legal or item[1] else None
    if rating and not legal:
        return category
    return None


def _candidates(tok: _Token) -> list[float]:
    return [tok.value / 100.0, tok.value] if tok.percent else [tok.value]


def _label(tok: _Token, category: str, private: PrivateNumbers, *, exact: bool = False) -> str | None:
    """The finding for a framed number, or None if it matches no private number the policy hides.

    exact: the number is said of the listener ("your walk-away value is 5"); it leaks only when it
    is exactly one of the speaker's own numbers, which a model copying its private block produces.
    """
    if category in private.may_disclose:
        return None  # the frame says what is stated, and the policy allows stating it
    order = [category] + [c for c in ("reservation", "weights", "values") if c != category]
    same = private.equals if exact else private.matches
    for candidate_category in order:
        if any(same(v, candidate_category) for v in _candidates(tok)):
            return {"reservation": "reservation_value", "weights": "weight", "values": "score"}[
                candidate_category
            ]
    return None
