"""Normalise a text once, before any check reads it: the preflight and the parser see what a reader sees.

An outgoing draft (or an inbound message) can hide words from a detector that a person reads without
noticing: Cyrillic "і" for Latin "i", a zero-width space or a soft hyphen inside "agree", a NUL byte,
"a c c e p t". `normalize` undoes all of these in one pass over the text and reports what it found:

1. Size: a text over the limit (default 20,000 characters) is refused with `TextRefused` before any
   scan, so a crafted megabyte never reaches the detectors.
2. Text hidden in invisible carriers is decoded for analysis and reported: Unicode TAG characters
   (U+E0020-U+E007E spell ASCII, "ASCII smuggling") and runs of variation selectors (each one a byte,
   "emoji smuggling"). A draft carrying hidden text is not sendable; an inbound one is adversarial.
3. Line and paragraph separators (U+2028, U+2029, NEL, vertical tab, form feed) read as a space; one
   inside a word is reported as a split word and step 9 rejoins the key word ("acc\u2028ept").
4. Control characters (Unicode Cc except newline, carriage return and tab) are removed and
   reported: a draft that holds one is not sendable (the preflight asks the principal).
5. Invisible format characters (Unicode Cf: zero-width spaces and joiners, bidi controls, word
   joiners, the BOM, the soft hyphen; also the combining grapheme joiner and variation selectors)
   are removed.
6. Unicode NFKC folds compatibility forms (fullwidth "ａｃｃｅｐｔ", mathematical letters, ligatures,
   non-breaking spaces).
7. The confusables skeleton (Unicode TR#39) maps letters of other scripts that look Latin to the
   Latin letter (`data/confusables.yaml`); diacritics are dropped from Latin letters.
8. Typographic quotes become ASCII quotes; carriage returns become newlines.
9. Split words are joined: runs of single letters separated by single spaces, dots or hyphens
   ("a c c e p t", "a.g.r.e.e") and fragments of a commitment word ("con firm", "ag-ree").

Every step is a single C-level pass (regular expressions without nested repetition, `translate`,
`unicodedata.normalize`) or one walk over the tokens: the cost is linear in the text's length.
The normalised text is for analysis only; the text sent is never rewritten by this module.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Mapping
from dataclasses import dataclass
from functools import cache
from typing import Any, Literal

from parley.errors import ScenarioError
from parley.governance.config import load_yaml_data

__all__ = [
    "DEFAULT_MAX_CHARS",
    "HIDDEN_TEXT",
    "Change",
    "ChangeKind",
    "Normalized",
    "TextRefused",
    "check_size",
    "normalize",
    "well_formed",
]

DEFAULT_MAX_CHARS = 20_000
"""Longest text analysed; longer drafts and messages are refused before any scan."""

ChangeKind = Literal[
    "tag_characters",
    "variation_selector_text",
    "control",
    "zero_width",
    "soft_hyphen",
    "compatibility",
    "homoglyph",
    "split_word",
]
HIDDEN_TEXT: frozenset[ChangeKind] = frozenset({"tag_characters", "variation_selector_text"})
"""The kinds that mean the text carried hidden text (decoded for analysis; never sendable unread)."""


class TextRefused(ScenarioError):
    """A text was refused before analysis (too long). The message is one line, fit for a principal.

    Attributes:
        length: The text's length in characters.
        limit: The limit it exceeded.
    """

    def __init__(self, length: int, limit: int) -> None:
        self.length = length
        self.limit = limit
        super().__init__(f"text refused: {length:,} characters is over the {limit:,}-character limit")


@dataclass(frozen=True, slots=True)
class Change:
    """One kind of change normalisation made (or of character it found).

    Attributes:
        kind: "tag_characters", "variation_selector_text", "control", "zero_width", "soft_hyphen",
            "compatibility", "homoglyph" or "split_word".
        count: How many characters (or, for split words, how many words) were affected.
        sample: The first affected text, escaped for display.
    """

    kind: ChangeKind
    count: int
    sample: str

    def describe(self) -> str:
        """One line for people."""
        return f"{self.kind} x{self.count} (e.g. {self.sample})"


@dataclass(frozen=True, slots=True)
class Normalized:
    """A text normalised for analysis.

    Attributes:
        original: The text as given.
        text: The normalised text every check reads.
        changes: What normalisation changed or found, one entry per kind, in pipeline order.
    """

    original: str
    text: str
    changes: tuple[Change, ...] = ()

    @property
    def kinds(self) -> tuple[ChangeKind, ...]:
        """The kinds of change made."""
        return tuple(change.kind for change in self.changes)

    @property
    def has_control(self) -> bool:
        """Whether the original held control characters (NUL included): such a text is not sendable."""
        return "control" in self.kinds

    @property
    def has_hidden_text(self) -> bool:
        """Whether the original carried text in invisible characters (TAG characters, variation
        selector runs): the checks read it decoded; such a draft is not sendable."""
        return not HIDDEN_TEXT.isdisjoint(self.kinds)

    @property
    def has_non_text(self) -> bool:
        """Whether the original held characters that are not text (a UTF-16 surrogate, U+FFFD): a draft
        holding them is not sendable unread; an inbound message is read as it is."""
        return _NOT_TEXT.search(self.original) is not None


# -- character classes ----------------------------------------------------------------------------------
# Cc except \t \n \r.
_CONTROL = re.compile("[\x00-\x08\x0e-\x1f\x7f-\x84\x86-\x9f]")
# Characters that break a line other than newline and carriage return: read as a space. The C0/C1 ones
# are reported as control.
_SEPARATOR = re.compile("[\x0b\x0c\x85\u2028\u2029]")
_SEPARATOR_IN_WORD = re.compile("(?<=[^\\W_])[\x0b\x0c\x85\u2028\u2029]+(?=[^\\W_])")
_SEPARATOR_CONTROL = re.compile("[\x0b\x0c\x85]")
# TAG characters: U+E0020-U+E007E spell ASCII; the rest of the block (language tag, cancel tag,
# unassigned) carries nothing and is removed. A subdivision flag (black flag, lowercase tags, cancel
# tag: England, Scotland, Wales) is an emoji, not a carrier: its tags are dropped unreported.
_TAG = re.compile("[\U000e0000-\U000e007f]+")
_TAG_FLAG = re.compile("(?<=\U0001f3f4)[\U000e0030-\U000e0039\U000e0061-\U000e007a]{2,6}\U000e007f")
_TAG_TABLE = {
    code: (chr(code - 0xE0000) if 0xE0020 <= code <= 0xE007E else None) for code in range(0xE0000, 0xE0080)
}
# Two or more variation selectors in a row carry bytes (one selector follows a character legitimately):
# U+FE00-U+FE0F are bytes 0-15, U+E0100-U+E01EF bytes 16-255.
_SELECTOR_RUN = re.compile("[\ufe00-\ufe0f\U000e0100-\U000e01ef]{2,}")
_SURROGATE = re.compile("[\ud800-\udfff]")
# What is not text: a UTF-16 surrogate on its own (`well_formed` joins the pairs first) and U+FFFD, the
# mark a decoder leaves where bytes were not text.
_NOT_TEXT = re.compile("[\ud800-\udfff\ufffd]")
# Cf (Unicode 15) except the soft hyphen, plus the combining grapheme joiner, Mongolian free variation
# selectors, the Hangul fillers that render empty, and the variation selectors.
_INVISIBLE = re.compile(
    "[\u034f\u061c\u115f\u1160\u17b4\u17b5\u180b-\u180f\u200b-\u200f\u202a-\u202e\u2060-\u2064\u2066-\u206f"
    "\u3164\ufe00-\ufe0f\ufeff\uffa0\ufff9-\ufffb\u0600-\u0605\u06dd\u070f\u0890\u0891\u08e2"
    "\U000110bd\U000110cd\U00013430-\U0001343f\U0001bca0-\U0001bca3\U0001d173-\U0001d17a"
    "\U000e0100-\U000e01ef]"
)
_SOFT_HYPHEN = "\u00ad"
# Letters NFKC folds to ASCII that a detector would otherwise miss: fullwidth forms, enclosed and
# mathematical alphanumerics, ligatures.
_COMPATIBILITY = re.compile(
    "[\uff01-\uff5e\u2460-\u24ff\ufb00-\ufb06\U0001d400-\U0001d7ff\U0001f130-\U0001f189]"
)
_COMBINING = re.compile("[\u0300-\u036f\u1ab0-\u1aff\u1dc0-\u1dff\u20d0-\u20ff\ufe20-\ufe2f]")
_TYPOGRAPHY = (
    ("\u2018", "'"),
    ("\u2019", "'"),
    ("\u201a", "'"),
    ("\u201b", "'"),
    ("\u2032", "'"),
    ("\u02bc", "'"),
    ("\u201c", '"'),
    ("\u201d", '"'),
    ("\u201e", '"'),
    ("\u2033", '"'),
    ("\u00ab", '"'),
    ("\u00bb", '"'),
    ("\r", "\n"),
    ("\t", " "),
)
# Runs of three or more single letters joined by one space, dot or hyphen ("a c c e p t", "a.g.r.e.e").
_LETTER_RUN = re.compile(r"(?<![^\W\d_])[^\W\d_](?:[ .\-][^\W\d_](?![^\W\d_])){2,}")
# Fragments never joined even when they spell a key word ("a greed", "or der" read as two words).
_KEEP_APART = frozenset({"a", "i", "or", "on", "in", "to", "the", "we", "be", "me", "us", "at", "as", "is"})


@cache
def _confusables() -> tuple[Mapping[str, str], re.Pattern[str]]:
    table: dict[str, str] = {str(k): str(v) for k, v in load_yaml_data("confusables.yaml")["latin"].items()}
    bad = [k for k in table if len(k) != 1]
    if bad:  # a data error, caught by the tests
        raise ValueError(f"confusables.yaml: keys must be single characters: {bad!r}")
    pattern = re.compile("[" + "".join(re.escape(k) for k in table) + "]")
    return table, pattern


@cache
def _join_words() -> frozenset[str]:
    raw = load_yaml_data("commitment_lexicon.yaml")
    return frozenset(str(word).lower() for word in raw["join_words"])


def check_size(text: str, max_chars: int | None = DEFAULT_MAX_CHARS) -> None:
    """Refuse text over max_chars (None: no limit).

    Raises:
        TextRefused: text is longer than max_chars.
    """
    if max_chars is not None and len(text) > max_chars:
        raise TextRefused(len(text), max_chars)


def _escape(text: str) -> str:
    return text.encode("unicode_escape").decode("ascii")[:40]


class _Log:
    def __init__(self) -> None:
        self.changes: list[Change] = []

    def add(self, kind: ChangeKind, count: int, sample: str) -> None:
        if not count:
            return
        for index, change in enumerate(self.changes):  # one entry per kind
            if change.kind == kind:
                self.changes[index] = Change(kind, change.count + count, change.sample)
                return
        self.changes.append(Change(kind, count, _escape(sample)))


def _strip(pattern: re.Pattern[str], text: str, kind: ChangeKind, log: _Log) -> str:
    first = pattern.search(text)
    if first is None:
        return text
    stripped, count = pattern.subn("", text)
    log.add(kind, count, first.group(0))
    return stripped


def _decode_selectors(text: str, log: _Log) -> str:
    """Runs of variation selectors decoded as the UTF-8 bytes they carry."""
    first = _SELECTOR_RUN.search(text)
    if first is None:
        return text

    def decoded(match: re.Match[str]) -> str:
        codes = (ord(c) for c in match.group(0))
        data = bytes(c - 0xFE00 if c <= 0xFE0F else c - 0xE0100 + 16 for c in codes)
        return data.decode("utf-8", "replace")

    result, count = _SELECTOR_RUN.subn(decoded, text)
    log.add("variation_selector_text", count, first.group(0))
    return result


def _decode_tags(text: str, log: _Log) -> str:
    """TAG characters decoded as the ASCII they spell (subdivision flags aside)."""
    if _TAG.search(text) is None:
        return text
    text = _TAG_FLAG.sub("", text)
    first = _TAG.search(text)
    if first is None:
        return text
    count = sum(len(run) for run in _TAG.findall(text))
    log.add("tag_characters", count, first.group(0))
    return text.translate(_TAG_TABLE)


def _break_lines(text: str, log: _Log) -> str:
    """Line breaks other than newline read as a space; one between two letters is reported as a split
    word, and the fragment joiner below rejoins a key word ("acc\u2028ept" reads "accept")."""
    controls = _SEPARATOR_CONTROL.findall(text)
    if controls:
        log.add("control", len(controls), controls[0])
    inside = _SEPARATOR_IN_WORD.findall(text)
    if inside:
        log.add("split_word", len(inside), inside[0])
    return _SEPARATOR.sub(" ", text) if _SEPARATOR.search(text) else text


def _fold(text: str, log: _Log) -> str:
    """NFKC, the confusables skeleton and dropped diacritics (non-ASCII text only)."""
    folded = unicodedata.normalize("NFKC", text)
    if folded != text:
        wide = _COMPATIBILITY.findall(text)
        if wide:
            log.add("compatibility", len(wide), wide[0])
    table, pattern = _confusables()
    first = pattern.search(folded)
    if first is not None:
        count = len(pattern.findall(folded))
        folded = pattern.sub(lambda m: table[m.group(0)], folded)
        log.add("homoglyph", count, first.group(0))
    # Diacritics: precomposed Latin letters map to their base letter (only they are visited), and
    # combining marks left standing are removed. An NFD/NFC round trip of the whole text gave the same
    # Latin result at several times the cost on the 1 MB benchmark (benchmarks/bench_gaia_text.py).
    bases = _latin_bases()
    return _COMBINING.sub("", _LATIN_ACCENTED.sub(lambda m: bases.get(ord(m.group(0)), m.group(0)), folded))


_LATIN_ACCENTED = re.compile("[\u00c0-\u024f\u1e00-\u1eff]")


@cache
def _latin_bases() -> dict[int, str]:
    """Precomposed Latin letters (Latin-1 Supplement, Extended-A/B, Extended Additional) → base letters."""
    table: dict[int, str] = {}
    for first, last in ((0x00C0, 0x024F), (0x1E00, 0x1EFF)):
        for code in range(first, last + 1):
            char = chr(code)
            base = _COMBINING.sub("", unicodedata.normalize("NFD", char))
            if base != char and base:
                table[code] = base
    return table


def _join_runs(text: str, log: _Log) -> str:
    """Join runs of single letters ("a c c e p t" → "accept")."""
    samples: list[str] = []

    def joined(match: re.Match[str]) -> str:
        run = match.group(0)
        letters = run[0::2]
        words = _join_words()
        # "I a c c e p t": keep a leading pronoun or article apart when the rest is a key word.
        if letters[:1].lower() in ("a", "i") and letters[1:].lower() in words:
            samples.append(run)
            return f"{letters[0]} {letters[1:]}"
        # Mixed separators spell a key word only when obfuscated ("a c.c-e p t"); otherwise they are
        # words and abbreviations side by side ("a U.S. citizen", "a B.A. in"), kept as written.
        if len(set(run[1::2])) > 1 and letters.lower() not in words:
            return run
        samples.append(run)
        return letters

    result = _LETTER_RUN.sub(joined, text)
    if samples:
        log.add("split_word", len(samples), samples[0])
    return result


def _either_case(char: str) -> str:
    return f"[{char}{char.upper()}]" if char.isalpha() and char.upper() != char else re.escape(char)


def _trie_pattern(words: frozenset[str]) -> str:
    """A regular expression matching every word with an optional space or hyphen between its letters,
    written as a trie (one branch per distinct prefix) so a scan tries few branches per position."""
    root: dict[str, Any] = {}
    for word in words:
        node = root
        for char in word:
            node = node.setdefault(char, {})
        node[""] = {}

    def emit(node: dict[str, Any], first: bool) -> str:
        branches = [
            ("" if first else "[ -]?") + _either_case(char) + emit(child, False)
            for char, child in sorted(node.items())
            if char
        ]
        if not branches:
            return ""
        body = branches[0] if len(branches) == 1 else "(?:" + "|".join(branches) + ")"
        return f"(?:{body})?" if "" in node else body

    return emit(root, True)


_ASCII_RUN = re.compile(r"[A-Za-z][A-Za-z -]*")


@cache
def _fragments() -> re.Pattern[str]:
    return re.compile(_trie_pattern(_join_words()))  # case classes: faster than IGNORECASE


def _join_fragments(text: str, log: _Log) -> str:
    """Join fragments of a key word split by single spaces or hyphens ("con firm", "ag-ree").

    One flat trie-shaped regular expression finds the candidates; a split is joined when it stands as
    whole words and not every fragment is a word of its own ("a greed", "or der" stay apart).
    """
    joins: list[str] = []

    def joined(match: re.Match[str]) -> str:
        found = match.group(0)
        if " " not in found and "-" not in found:
            return found
        start, end = match.start(), match.end()
        if (start and text[start - 1].isalpha()) or (end < len(text) and text[end].isalpha()):
            return found
        fragments = re.split(r"[ -]", found)
        lowered = [f.lower() for f in fragments]
        if len(fragments) > 3 or all(f in _KEEP_APART or f in _join_words() for f in lowered):
            return found
        joins.append(found)
        return "".join(fragments)

    pattern = _fragments()
    if text.isascii():
        result = pattern.sub(joined, text)
        if joins:
            log.add("split_word", len(joins), joins[0])
        return result
    # The key words are ASCII, so in other text only runs of ASCII letters, spaces and hyphens are
    # searched: a flat scan finds them, and the rest (a text in another script) is skipped.
    pieces: list[str] = []
    last = 0
    for run in _ASCII_RUN.finditer(text):
        if " " not in run.group(0) and "-" not in run.group(0):
            continue
        for match in pattern.finditer(text, run.start(), run.end()):
            replacement = joined(match)
            if replacement != match.group(0):
                pieces += [text[last : match.start()], replacement]
                last = match.end()
    if joins:
        log.add("split_word", len(joins), joins[0])
    return "".join([*pieces, text[last:]]) if pieces else text


def well_formed(text: str) -> str:
    """text as Unicode text: each pair of UTF-16 surrogates (as a JSON or YAML "\\ud83d\\ude05" escape
    decodes) joined into the character it encodes, and each surrogate left on its own replaced by U+FFFD.

    Text holding a surrogate cannot be encoded as UTF-8, so the audit log, the database and every file
    refuse it; the delegate makes what it receives and what it drafts well formed first, and says so.
    """
    if _SURROGATE.search(text) is None:
        return text
    return text.encode("utf-16-le", "surrogatepass").decode("utf-16-le", "replace")


def normalize(text: str, *, max_chars: int | None = DEFAULT_MAX_CHARS) -> Normalized:
    """text normalised for analysis, with what was changed or found.

    Args:
        text: The text to analyse.
        max_chars: Longest text accepted (None: no limit).

    Raises:
        TextRefused: text is longer than max_chars (checked before anything else).
    """
    check_size(text, max_chars)
    log = _Log()
    result = text.replace("\r\n", "\n")
    if not result.isascii():
        result = _decode_selectors(result, log)
        result = _decode_tags(result, log)
    result = _break_lines(result, log)
    result = _strip(_CONTROL, result, "control", log)
    result = _strip(_INVISIBLE, result, "zero_width", log)
    if _SOFT_HYPHEN in result:
        log.add("soft_hyphen", result.count(_SOFT_HYPHEN), _SOFT_HYPHEN)
        result = result.replace(_SOFT_HYPHEN, "")
    if not result.isascii():
        result = _fold(result, log)
    for old, new in _TYPOGRAPHY:
        if old in result:
            result = result.replace(old, new)
    result = _join_runs(result, log)
    result = _join_fragments(result, log)
    return Normalized(text, result, tuple(log.changes))
