"""The text the amount reader reads: folded character by character, with a map back to the original.

`fold(text)` returns the text with

* compatibility forms folded to ASCII one character for one (NFKC where it gives one ASCII character:
  fullwidth "１２０，０００", "＄", mathematical digits; superscripts, subscripts, circled numbers
  and vulgar fractions are left alone, so "m²" does not become "m2"),
* decimal digits of every script folded to ASCII digits ("١٢٠" is "120"), and the Arabic thousands
  and decimal separators to "," and "." ("٢٧٬٠٠٠" is "27,000"),
* Latin lookalikes of other scripts folded to the Latin letter (Cyrillic "о" in "thоusand"; the TR#39
  table of `data/confusables.yaml`), and hyphen lookalikes to "-",
* the letter O typed for a zero right after a digit ("8o" is "80", "1OO" is "100", "12,5O" is
  "12,50"; not in a word: "10oz", "10o'clock") or after a digit and a separator ("15,OOO", "9.O00",
  "1,OOO,OOO", "12O,OOO"), one character for one,
* letters of other scripts drawn like a digit (Cyrillic "З", "Ч", "б"; Cherokee "Ꮞ", "Ꮾ") beside a
  digit ("11,ЗЗЗ" is "11,333"), one character for one,
* invisible format characters (Unicode Cf: zero-width spaces and joiners, the soft hyphen, bidi
  controls, the BOM, tags), variation selectors, the combining grapheme joiner and control characters
  (Cc except tab, line feed and carriage return) removed,

and an `Offsets` map from positions in the folded text back to the original, so that every mention
keeps a span into the text the caller gave. Each step is one C-level pass (`str.translate`, one
regular expression of single characters); the map is a sorted list of the removed positions.
"""

from __future__ import annotations

import bisect
import re
import unicodedata
from dataclasses import dataclass
from functools import cache

from parley.governance.config import load_yaml_data

_SKIPPED_DECOMPOSITIONS = ("<super>", "<sub>", "<circle>", "<fraction>")
_HYPHENS = (
    "\u2010\u2011\u2043\u2212\ufe63\uff0d"  # hyphen, non-breaking hyphen, bullet, minus, small/fullwidth
)
_SCANNED = (range(0x80, 0x20000), range(0xE0000, 0xE1000))
# Separators of other scripts, as the ASCII ones ("٢٧٬٠٠٠" is "27,000", "٢٫٥" is "2.5").
_SEPARATORS = {0x066C: ",", 0x066B: "."}
_KEPT_CONTROLS = frozenset("\t\n\r")
# A run of the letter O right after a digit and not followed by a letter or an apostrophe: a typed zero;
# after a digit and a separator too, as a group of three ("15,OOO") or before digits ("15,O00"), the
# digit itself perhaps a typed zero ("12O,OOO", "1OO,OOO"). Possessive: the run is read once, never
# backtracked.
_TYPED_ZEROS = re.compile(
    r"(?<=[0-9])[oO]++(?![A-Za-z'\u2019])"
    r"|(?:(?<=[0-9][,.])|(?<=[0-9][oO][,.])|(?<=[0-9][oO]{2}[,.])|(?<=[0-9][,.][oO]{3}[,.]))"
    r"(?:[oO]{1,3}+(?=[0-9])|[oO]{3}+(?![A-Za-z'\u2019]))"
)


def _zeros(found: re.Match[str]) -> str:
    return "0" * len(found.group())


# Letters of other scripts drawn like a digit (TR#39 confusables with a digit prototype), read as that
# digit beside a digit or a digit and a separator ("11,ЗЗЗ" is "11,333", "Ч5" is "45"), one for one.
_DIGIT_LOOKALIKES = {"\u0417": "3", "\u0437": "3", "\u0427": "4", "\u0431": "6", "\u13ce": "4", "\u13ee": "6"}
_LOOKALIKE = "[" + "".join(_DIGIT_LOOKALIKES) + "]"
_LOOKALIKE_DIGITS = re.compile(
    rf"(?:(?<=[0-9])|(?<=[0-9][,.])){_LOOKALIKE}++|{_LOOKALIKE}++(?=[0-9]|[,.][0-9])"
)


def _digits(found: re.Match[str]) -> str:
    return "".join(_DIGIT_LOOKALIKES[c] for c in found.group())


@cache
def _table() -> dict[int, str]:
    """One character for one: compatibility forms, digits of other scripts, Latin lookalikes, hyphens."""
    table: dict[int, str] = {}
    for block in _SCANNED:
        for code in block:
            char = chr(code)
            digit = unicodedata.decimal(char, None)
            if digit is not None:
                table[code] = str(digit)
                continue
            folded = unicodedata.normalize("NFKC", char)
            if (
                len(folded) == 1
                and folded != char
                and folded.isascii()
                and not unicodedata.decomposition(char).startswith(_SKIPPED_DECOMPOSITIONS)
            ):
                table[code] = folded
    for key, value in load_yaml_data("confusables.yaml")["latin"].items():
        if len(str(key)) == 1 and len(str(value)) == 1:
            table.setdefault(ord(str(key)), str(value))
    for char in _HYPHENS:
        table[ord(char)] = "-"
    table.update(_SEPARATORS)
    return table


@cache
def _removed() -> re.Pattern[str]:
    """One character class: format characters, variation selectors, the CGJ and control characters."""
    codes = [c for c in range(0x20) if chr(c) not in _KEPT_CONTROLS] + list(range(0x7F, 0xA0))
    for block in _SCANNED:
        codes += [code for code in block if unicodedata.category(chr(code)) == "Cf"]
    codes += [0x034F, *range(0xFE00, 0xFE10), *range(0xE0100, 0xE01F0)]
    ranges: list[tuple[int, int]] = []
    for code in sorted(set(codes)):
        if ranges and ranges[-1][1] == code - 1:
            ranges[-1] = (ranges[-1][0], code)
        else:
            ranges.append((code, code))
    parts = [re.escape(chr(a)) if a == b else f"{re.escape(chr(a))}-{re.escape(chr(b))}" for a, b in ranges]
    return re.compile("[" + "".join(parts) + "]")


@dataclass(frozen=True, slots=True)
class Offsets:
    """Positions in a folded text mapped back to the original.

    Attributes:
        shifts: For the k-th removed character (in order), its original position minus k: the folded
            position it was removed before. Empty when nothing was removed (the map is the identity).
    """

    shifts: tuple[int, ...] = ()

    def start(self, position: int) -> int:
        """The original offset of the folded character at position (a span's start)."""
        if not self.shifts:
            return position
        return position + bisect.bisect_right(self.shifts, position)

    def end(self, position: int) -> int:
        """The original offset just after the folded character before position (a span's end)."""
        if not self.shifts or position <= 0:
            return position
        return self.start(position - 1) + 1


def fold(text: str) -> tuple[str, Offsets]:
    """The folded text and its map back to text (see the module docstring). Linear; never raises.

    Idempotent: characters are removed before digits are read, so a zero-width space between "1" and
    "O" cannot leave a typed zero for a second fold to find.
    """
    folded = text if text.isascii() else text.translate(_table())
    pattern = _removed()
    positions = [m.start() for m in pattern.finditer(folded)]
    offsets = Offsets()
    if positions:
        folded = pattern.sub("", folded)
        offsets = Offsets(tuple(p - k for k, p in enumerate(positions)))
    return _digit_forms(folded), offsets


# A run that may hold a number: it starts at a digit or a digit lookalike and goes on over digits,
# lookalikes, the letter O and separators. Possessive, and every character starts at most one run, so
# finding the runs is linear; everything outside them is left as it is.
_RUN = re.compile(rf"(?:[0-9]|{_LOOKALIKE})[0-9oO,.{_LOOKALIKE[1:-1]}]*+")
# The two substitutions feed each other ("1OЗ": the O becomes a zero beside the 1, then the З a three
# beside it); a run still changing after this many rounds is crafted, and all its letters become digits.
_ROUNDS = 4


def _digit_forms(text: str) -> str:
    """Typed zeros and digit lookalikes read as digits, to a fixed point (so `fold` is idempotent).

    Each substitution is local to a run, so whole-text passes (one C-level pass each) reach the fixed
    point of every ordinary run in a round or two; runs still changing after `_ROUNDS` passes are
    finished run by run.
    """
    ascii_only = text.isascii()
    if ascii_only and _TYPED_ZEROS.search(text) is None:
        return text
    for _ in range(_ROUNDS):
        lookalikes_read = text if ascii_only else _LOOKALIKE_DIGITS.sub(_digits, text)
        changed = _TYPED_ZEROS.sub(_zeros, lookalikes_read)
        if changed == text:
            return text
        text = changed
    return _RUN.sub(_run_digits, text)


def _run_digits(found: re.Match[str]) -> str:
    run = found.group()
    if run.isascii() and "o" not in run.lower():
        return run
    # The character after the run decides "not followed by a letter"; it is outside the run, so no
    # substitution changes it.
    window = run + found.string[found.end() : found.end() + 1]
    for _ in range(_ROUNDS):
        changed = _TYPED_ZEROS.sub(_zeros, _LOOKALIKE_DIGITS.sub(_digits, window))
        if changed == window:
            return window[: len(run)]
        window = changed
    return "".join(_DIGIT_LOOKALIKES.get(c, "0" if c in "oO" else c) for c in run)
