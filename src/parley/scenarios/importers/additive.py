"""What the GENIUS and GeniusWeb importers share: bounded file reading, clean names, file stems, and
a party's linear-additive utility brought to the [0, 1] form both formats store.

Both formats describe a party by per-issue weights and per-issue values in [0, 1] with no constant
term. A parley utility already in that form is written verbatim (so it reads back bit for bit);
any other linear-additive utility is rescaled by one positive affine map u' = (u − C) / S (its
reservation value alike), which keeps every preference, the Pareto frontier and the Nash point.
"""

from __future__ import annotations

import difflib
import logging
import math
import re
import unicodedata
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from parley.domain.space import OutcomeSpace
from parley.domain.utility import (
    AdditiveBonusUtility,
    LinearAdditiveUtility,
    RankedPreferenceUtility,
    UtilityFunction,
)
from parley.errors import ScenarioError
from parley.scenarios.loader import MAX_OPTIONS_PER_ISSUE

logger = logging.getLogger(__name__)

MAX_FILE_BYTES = 8 * 1024 * 1024
"""Largest file either importer reads; real GENIUS and GeniusWeb files are a few kilobytes."""

MAX_FILES = 256
"""Most files of the format one folder may hold (a domain folder holds a handful)."""

MAX_OPTIONS = MAX_OPTIONS_PER_ISSUE
"""Most options one issue may have (as in a parley scenario file)."""

_UNSAFE_STEM = re.compile(r"[^A-Za-z0-9._-]+")


def read_bounded(path: Path) -> bytes:
    """The bytes of a file, refused when missing, unreadable or larger than MAX_FILE_BYTES.

    Raises:
        ScenarioError: naming the file.
    """
    source = str(path)
    try:
        size = path.stat().st_size
    except FileNotFoundError:
        raise ScenarioError("file not found", source=source) from None
    except OSError as error:
        raise ScenarioError(f"cannot read the file: {error.strerror or error}", source=source) from None
    if not path.is_file():
        raise ScenarioError("expected a file, got a folder or a special file", source=source)
    if size > MAX_FILE_BYTES:
        raise ScenarioError(
            f"file of {size:,} bytes is larger than the {MAX_FILE_BYTES:,} bytes allowed", source=source
        )
    try:
        with path.open("rb") as handle:
            return handle.read(MAX_FILE_BYTES + 1)[:MAX_FILE_BYTES]
    except OSError as error:
        raise ScenarioError(f"cannot read the file: {error.strerror or error}", source=source) from None


def listed_files(folder: Path, suffix: str) -> list[Path]:
    """The visible files of a folder with this suffix (any case), sorted by name.

    Raises:
        ScenarioError: the folder cannot be listed or holds more than MAX_FILES of them.
    """
    try:
        entries = sorted(folder.iterdir())
    except OSError as error:
        raise ScenarioError(
            f"cannot list the folder: {error.strerror or error}", source=str(folder)
        ) from None
    files = [p for p in entries if p.suffix.lower() == suffix and not p.name.startswith(".") and p.is_file()]
    if len(files) > MAX_FILES:
        raise ScenarioError(
            f"holds {len(files):,} {suffix} files, more than the {MAX_FILES} a domain folder may hold",
            source=str(folder),
        )
    return files


def clean_name(text: str) -> str:
    """A name as a person reads it: NFC-normalised, without invisible format and control characters
    (zero-width spaces, bidi overrides), runs of white space folded to one space, stripped."""
    kept = "".join(
        c for c in unicodedata.normalize("NFC", text) if unicodedata.category(c) not in ("Cf", "Cc")
    )
    return " ".join(kept.split())


def file_stem(name: str, taken: set[str]) -> str:
    """A safe, unused file stem for a name (letters, digits, '.', '_', '-'); records it in taken."""
    stem = _UNSAFE_STEM.sub("_", name).strip("._") or "party"
    candidate, counter = stem, 2
    while candidate.lower() in taken:
        candidate, counter = f"{stem}_{counter}", counter + 1
    taken.add(candidate.lower())
    return candidate


def is_xml_text(text: str) -> bool:
    """Whether every character may appear in an XML 1.0 document (no control characters but
    tab, newline and carriage return; no surrogates or U+FFFE/U+FFFF)."""
    return all(
        c in "\t\n\r" or (" " <= c <= "\ud7ff") or ("\ue000" <= c <= "\ufffd") or c >= "\U00010000"
        for c in text
    )


@dataclass(frozen=True, slots=True)
class UnitForm:
    """A party's utility as both formats store it: Σ weight_i · value_i(x_i), values in [0, 1].

    Attributes:
        weights: Per issue (every issue of the space), a finite weight ≥ 0.
        values: Per issue, one value in [0, 1] per option, in option order.
        reservation: The reservation value on the same scale.
        scale: (C, S) when the party's utility was rescaled, u' = (u − C) / S; None when verbatim.
    """

    weights: dict[str, float]
    values: dict[str, list[float]]
    reservation: float
    scale: tuple[float, float] | None


def linear_of(utility: UtilityFunction, party: str, source: str | None) -> LinearAdditiveUtility:
    """The linear-additive utility behind a party's utility (ranked preferences have one).

    Raises:
        ScenarioError: the utility is not linear-additive (a table of outcomes, a user's own class).
    """
    if isinstance(utility, RankedPreferenceUtility):
        return utility.linear
    if isinstance(utility, LinearAdditiveUtility):
        return utility
    if isinstance(utility, AdditiveBonusUtility):  # (its additive part alone would be another game)
        raise ScenarioError(
            f"party {party!r} earns a bonus of {utility.bonus:g} on {int(utility.region.sum()):,} deals on "
            "top of its additive scores; this format holds additive utilities only (export as yaml to "
            "keep the bonus)",
            source=source,
        )
    raise ScenarioError(
        f"party {party!r} has a {type(utility).__name__}; only linear-additive utilities "
        "(and ranked preferences) can be written in this format",
        source=source,
    )


def unit_form(
    utility: LinearAdditiveUtility, space: OutcomeSpace, party: str, *, weights_sum_to_one: bool = False
) -> UnitForm:
    """The utility in the [0, 1] form: verbatim when it already is, else rescaled (logged).

    Args:
        utility: The party's utility.
        space: The outcome space.
        party: The party's name (for messages).
        weights_sum_to_one: Also require the weights to add up to 1 (GeniusWeb does).

    Raises:
        ScenarioError: the utility is constant (no [0, 1] form exists).
    """
    weights = {name: float(utility.weights.get(name, 0.0)) for name in space.names}
    values = {
        issue.name: [float(v) for v in utility.values.get(issue.name, [0.0] * issue.cardinality)]
        for issue in space.issues
    }
    if _is_unit(utility.offset, weights, values, weights_sum_to_one):
        return UnitForm(weights, values, float(utility.reservation_value), None)
    return _rescaled(utility, space, party)


def _is_unit(
    offset: float, weights: dict[str, float], values: dict[str, list[float]], sum_to_one: bool
) -> bool:
    if offset != 0.0 or any(not (math.isfinite(w) and w >= 0.0) for w in weights.values()):
        return False
    if sum_to_one and abs(math.fsum(weights.values()) - 1.0) > 1e-12:
        return False
    return all(0.0 <= v <= 1.0 for table in values.values() for v in table)


def _rescaled(utility: LinearAdditiveUtility, space: OutcomeSpace, party: str) -> UnitForm:
    tables = [[float(x) for x in table] for table in utility.weighted_tables]
    lows = [min(table) for table in tables]
    spans = [max(table) - low for table, low in zip(tables, lows, strict=True)]
    total = math.fsum(spans)
    if not total > 0.0:
        raise ScenarioError(
            f"party {party!r} values every outcome the same; this format cannot express a constant utility"
        )
    constant = utility.offset + math.fsum(lows)
    weights: dict[str, float] = {}
    values: dict[str, list[float]] = {}
    for issue, table, low, span in zip(space.issues, tables, lows, spans, strict=True):
        weights[issue.name] = span / total
        values[issue.name] = [(x - low) / span for x in table] if span > 0 else [0.0] * len(table)
    reservation = (utility.reservation_value - constant) / total
    logger.warning(
        "party %r: utility rescaled to the [0, 1] form, u' = (u - %r) / %r (same preferences; "
        "reservation value %r becomes %r)",
        party,
        constant,
        total,
        utility.reservation_value,
        reservation,
    )
    return UnitForm(weights, values, reservation, (constant, total))


def numeric_text(value: float) -> str:
    """A float as the shortest text that reads back to the same float (Java reads it too)."""
    if not math.isfinite(value):
        raise ScenarioError(f"cannot write the non-finite number {value!r}")
    return repr(float(value))


def distinct(names: Sequence[str], what: str, source: str | None) -> None:
    """Check that names are unique after cleaning.

    Raises:
        ScenarioError: two names are the same (or look the same once invisible characters go).
    """
    seen: set[str] = set()
    for name in names:
        if name in seen:
            raise ScenarioError(
                f"two {what}s are both named {name!r} (after removing invisible characters)", source=source
            )
        seen.add(name)


def unknown_name(kind: str, name: str, known: Sequence[str]) -> str:
    """ "'x' is not an issue of the domain (did you mean 'y'?); expected one of ..." (a look-alike,
    such as a Cyrillic letter in place of a Latin one, is what the hint is for)."""
    close = difflib.get_close_matches(name, list(known), n=1, cutoff=0.5)
    hint = f" (did you mean {close[0]!r}?)" if close else ""
    shown = ", ".join(repr(k) for k in known[:12]) + (", ..." if len(known) > 12 else "")
    article = "an" if kind[:1] in "aeiou" else "a"
    return f"{name!r} is not {article} {kind} of the domain{hint}; expected one of {shown}"
