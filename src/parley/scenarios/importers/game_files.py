"""Read the text files of a scorable game folder (LLM-Deliberation, TextArena): config.txt, the score
files, the issue headings of global_instructions.txt and deals written as option labels, each bounded
in size and read as UTF-8, every problem one `ScenarioError` naming the file."""

from __future__ import annotations

import math
import re
import unicodedata
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from parley.domain.issues import Issue
from parley.domain.space import OutcomeSpace
from parley.errors import ScenarioError

MAX_FILE_BYTES = 2 * 1024 * 1024
"""Largest text file of a game read (the base game's biggest is 4 kB): a larger one is a mistake."""
MAX_ISSUES = 26
"""Issues are lettered A–Z."""

_ISSUE_HEAD = re.compile(
    r"^[\s>#*_\-•·–—\d.)(\[\]]*issue\s+([A-Za-z])(?![A-Za-z0-9])[*_\s]*"
    r"(?:[:.)\-–—][*_\s]*(?P<rest>.*)|(?P<paren>\(.*)|(?P<quoted>[\"“”„«'‘’].*))$",
    re.IGNORECASE,
)
_QUOTES = {'"': '"', "“": "”", "”": "”", "„": "“", "«": "»", "'": "'", "‘": "’", "’": "’"}
_NAME_ENDS = re.compile(r"\s+[-–—]\s|\s*[(;]|[:,.](?:\s|$)|\s+because\s", re.IGNORECASE)
_NAME_CHARS = 80


@dataclass(frozen=True, slots=True)
class ConfigLine:
    """One party entry of a game's config.txt."""

    name: str
    stem: str
    role: str
    incentive: str


@dataclass(frozen=True, slots=True)
class ScoreFile:
    """One party's option scores per issue and its minimum acceptable total."""

    scores: tuple[tuple[float, ...], ...]
    threshold: float


def read_config(path: Path) -> list[ConfigLine]:
    """Parse config.txt ('#' lines are comments, as TextArena allows).

    Raises:
        ScenarioError: missing file, a line without the comma-separated fields, an empty name,
            a file stem that is not a plain file name, or a party named twice.
    """
    entries: list[ConfigLine] = []
    for number, line in enumerate(read_text(path).splitlines(), start=1):
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        fields = [clean_text(field) for field in line.split(",")]
        if len(fields) < 4 or not fields[0] or not fields[1]:
            raise ScenarioError(
                f"line {number}: expected 'name,file,role,incentive,model', got {line.strip()!r}",
                source=str(path),
            )
        if Path(fields[1]).name != fields[1] or fields[1] in (".", ".."):
            raise ScenarioError(f"line {number}: expected a file stem, got {fields[1]!r}", source=str(path))
        if any(entry.name == fields[0] for entry in entries):
            raise ScenarioError(f"line {number}: party {fields[0]!r} is named twice", source=str(path))
        entries.append(ConfigLine(fields[0], fields[1], fields[2], fields[3]))
    if len(entries) < 2:
        raise ScenarioError(f"expected at least two parties, got {len(entries)}", source=str(path))
    return entries


def read_scores(path: Path) -> ScoreFile:
    """Parse one scores file: a line of numbers per issue, then the minimum threshold.

    Raises:
        ScenarioError: missing file, a non-number, no threshold line, or more than 26 issues.
    """
    lines = [line.strip() for line in read_text(path).splitlines() if line.strip()]
    if len(lines) < 2:
        raise ScenarioError(
            f"expected issue score lines and a threshold, got {len(lines)} lines", source=str(path)
        )
    if len(lines) - 1 > MAX_ISSUES:
        raise ScenarioError(f"expected at most {MAX_ISSUES} issues, got {len(lines) - 1}", source=str(path))
    rows = [_numbers(line, path, number) for number, line in enumerate(lines, start=1)]
    threshold = rows[-1]
    if len(threshold) != 1:
        raise ScenarioError(f"last line must be one threshold number, got {lines[-1]!r}", source=str(path))
    return ScoreFile(tuple(tuple(row) for row in rows[:-1]), threshold[0])


def read_issue_names(path: Path, count: int) -> list[str]:
    """Issue names from global_instructions.txt, in letter order.

    A heading names an issue however it is decorated: `Issue A: "Infrastructure Mix"`,
    `- Issue A: Infrastructure Mix — whether ...`, `## Issue A (Infrastructure Mix)` or a name on the
    line after `Issue A:`. Prose after the name is dropped. An issue without a heading is "Issue A".

    Raises:
        ScenarioError: the file cannot be read, or two issues get the same name.
    """
    found: dict[str, str] = {}
    if path.is_file():
        lines = read_text(path).splitlines()
        for position, line in enumerate(lines):
            match = _ISSUE_HEAD.match(line)
            if match is None:
                continue
            name = issue_name_of(match, lines[position + 1 : position + 3])
            if name:
                found.setdefault(match.group(1).upper(), name)
    names = [found.get(letter(i), f"Issue {letter(i)}") for i in range(count)]
    for i, name in enumerate(names):
        if name in names[:i]:
            raise ScenarioError(
                f"issues {letter(names.index(name))} and {letter(i)} are both called {name!r}",
                source=str(path),
            )
    return names


def issue_name_of(match: re.Match[str], following: Sequence[str]) -> str:
    """The name an issue heading gives (the next non-blank line's, when the heading ends at ':')."""
    if match.group("paren") is not None:
        return _bounded(match.group("paren")[1:].partition(")")[0].strip(" \"“”'‘’*_"))
    rest = match.group("rest") if match.group("rest") is not None else match.group("quoted")
    name = _name_in(rest)
    if not name and not clean_text(rest):
        nonblank = [line for line in following if line.strip()]
        name = _name_in(nonblank[0]) if nonblank and not _ISSUE_HEAD.match(nonblank[0]) else ""
    return name


def _name_in(text: str) -> str:
    text = clean_text(text).strip("*_# ")
    if text[:1] in _QUOTES:
        closing = text.find(_QUOTES[text[0]], 1)
        return _bounded(text[1:closing] if closing > 0 else text[1:])
    end = _NAME_ENDS.search(text)
    return _bounded(text[: end.start()] if end else text)


def _bounded(name: str) -> str:
    """A name cleaned and cut at a word boundary after _NAME_CHARS characters (a heading that runs
    into prose without punctuation)."""
    name = clean_text(name).strip(" .:*_\"“”'‘’")
    if len(name) <= _NAME_CHARS:
        return name
    return name[:_NAME_CHARS].rsplit(" ", 1)[0]


def clean_text(text: str) -> str:
    """text without invisible format and control characters (zero-width spaces, bidi overrides), its
    runs of white space folded: names that look alike are alike."""
    kept = "".join(c for c in text if unicodedata.category(c) not in ("Cf", "Cc") or c in "\t\n")
    return " ".join(kept.split())


def parse_deal(text: str, space: OutcomeSpace) -> dict[str, str]:
    """Read a deal written as option labels ("A2, B2, C2, D2, E3") into an outcome.

    Raises:
        ScenarioError: a label is unknown or an issue is missing or repeated.
    """
    labels = [token.strip() for token in re.split(r"[,\s]+", text.strip()) if token.strip()]
    outcome: dict[str, str] = {}
    for label in labels:
        issue = _issue_of_label(label, space)
        if issue.name in outcome:
            raise ScenarioError(f"deal {text!r} names issue {issue.name!r} twice", field="deal")
        outcome[issue.name] = label
    missing = [name for name in space.names if name not in outcome]
    if missing:
        raise ScenarioError(f"deal {text!r} misses issues {missing}", field="deal")
    return outcome


def _issue_of_label(label: str, space: OutcomeSpace) -> Issue:
    for issue in space.issues:
        if label in issue.values:
            return issue
    raise ScenarioError(f"unknown option label {label!r}", field="deal")


def letter(index: int) -> str:
    """The letter of the issue at index (0: A)."""
    return chr(ord("A") + index)


def _numbers(line: str, path: Path, number: int) -> list[float]:
    try:
        values = [float(token) for token in line.replace(",", " ").split()]
    except ValueError:
        raise ScenarioError(f"line {number}: expected numbers, got {line!r}", source=str(path)) from None
    if not all(math.isfinite(value) for value in values):
        raise ScenarioError(f"line {number}: expected finite numbers, got {line!r}", source=str(path))
    return values


def read_text(path: Path, *, limit: int = MAX_FILE_BYTES) -> str:
    """A game file's text (UTF-8, a byte-order mark allowed).

    Raises:
        ScenarioError: the file is missing, a folder, unreadable, larger than limit, binary or not UTF-8.
    """
    try:
        if not path.is_file():
            raise ScenarioError(
                "expected a file, got a folder" if path.is_dir() else "file not found", source=str(path)
            )
        size = path.stat().st_size
        if size > limit:
            raise ScenarioError(f"expected at most {limit:,} bytes, got {size:,}", source=str(path))
        data = path.read_bytes()
    except OSError as error:
        raise ScenarioError(f"cannot read the file: {error.strerror or error}", source=str(path)) from None
    if b"\x00" in data:
        raise ScenarioError("a binary file, expected text", source=str(path))
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as error:
        raise ScenarioError(f"not UTF-8 text (byte {error.start + 1})", source=str(path)) from None
