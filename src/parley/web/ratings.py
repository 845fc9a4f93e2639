"""Human ratings of runs on the seeds' instruments, stored beside each run as `ratings.jsonl`.

Three short Likert instruments, one per kind of run:

* GAIA (a governed delegate's session, rated by its principal): satisfaction, trust and perceived
  control (GAIA's validation blueprint: "post-task Likert scales" for satisfaction and trust).
* ASTRA (a bargaining game, rated by the person who played it or read it): strategicness on the
  seed's four-point scale, fairness and naturalness on five points.
* ProMediate (a mediated conversation): naturalness of the conversation on the seed's five-point
  scale and helpfulness of the mediator's interventions (five points).

A rating is one JSON line appended to `<run folder>/ratings.jsonl`: the instrument, a score per
item, an optional comment, who rated (the signed-in principal) and when. Nothing is rewritten: a
second rating by the same person is a new line, and summaries use each person's latest rating of
a run (`latest_ratings`). This module needs no web framework: `parley report ratings` reads the
same files.
"""

from __future__ import annotations

import csv
import io
import json
import math
import os
import threading
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, cast

from parley.errors import ScenarioError
from parley.governance.safe_text import printable
from parley.jsonio import dumps

__all__ = [
    "INSTRUMENTS",
    "RATINGS_FILE",
    "Instrument",
    "Item",
    "Rating",
    "append_rating",
    "check_scores",
    "instrument_for",
    "latest_ratings",
    "ratings_csv",
    "read_ratings",
    "walk_ratings",
]

RATINGS_FILE = "ratings.jsonl"
SCHEMA = 1
MAX_COMMENT = 2000
MAX_DEPTH = 6
"""How deep under a runs folder ratings files are looked for."""

_FIVE_AGREE = ("Strongly disagree", "Disagree", "Neither", "Agree", "Strongly agree")


@dataclass(frozen=True, slots=True)
class Item:
    """One Likert item.

    Attributes:
        key: Its name in stored ratings ("satisfaction").
        label: Short label ("Satisfaction").
        question: The statement or question shown.
        anchors: The label of each scale point, lowest first (its length is the scale).
    """

    key: str
    label: str
    question: str
    anchors: tuple[str, ...]

    @property
    def scale(self) -> int:
        """Number of points (scores run from 1 to this)."""
        return len(self.anchors)


@dataclass(frozen=True, slots=True)
class Instrument:
    """A short questionnaire for one kind of run.

    Attributes:
        key: "gaia", "astra" or "promediate".
        title: Shown above the form.
        source: Where the instrument comes from.
        kinds: The kinds of run it applies to.
        items: Its items, in order.
    """

    key: str
    title: str
    source: str
    kinds: tuple[str, ...]
    items: tuple[Item, ...]

    def item(self, key: str) -> Item:
        """The item called key.

        Raises:
            KeyError: no such item.
        """
        for item in self.items:
            if item.key == key:
                return item
        raise KeyError(key)


INSTRUMENTS: Mapping[str, Instrument] = {
    "gaia": Instrument(
        "gaia",
        "How did the delegate do for you?",
        "GAIA §5 (principal satisfaction and trust, post-task Likert scales) and perceived control",
        ("delegate",),
        (
            Item(
                "satisfaction",
                "Satisfaction",
                "I am satisfied with the outcome the delegate reached.",
                _FIVE_AGREE,
            ),
            Item("trust", "Trust", "I would trust this delegate to negotiate for me again.", _FIVE_AGREE),
            Item(
                "control",
                "Perceived control",
                "I stayed in control of every decision that mattered.",
                _FIVE_AGREE,
            ),
        ),
    ),
    "astra": Instrument(
        "astra",
        "How did the other side negotiate?",
        "ASTRA §3.3 (strategicness, four-point scale); fairness and naturalness on five points",
        ("play", "game"),
        (
            Item(
                "strategicness",
                "Strategicness",
                "How well did the agent's moves advance its own negotiation goal?",
                ("Not at all", "Slightly", "Mostly", "Very well"),
            ),
            Item("fairness", "Fairness", "The agent's offers were fair.", _FIVE_AGREE),
            Item("naturalness", "Naturalness", "The agent's messages read like a person's.", _FIVE_AGREE),
        ),
    ),
    "promediate": Instrument(
        "promediate",
        "How did the mediator do?",
        "ProMediate appendix F (naturalness, five-point scale) and helpfulness of interventions",
        ("mediation",),
        (
            Item(
                "naturalness",
                "Naturalness",
                "Does the conversation flow smoothly and sound like something people would say?",
                (
                    "Totally unnatural",
                    "Mostly unnatural",
                    "Neutral",
                    "Mostly natural",
                    "Completely natural",
                ),
            ),
            Item(
                "helpfulness",
                "Helpfulness of interventions",
                "The mediator's interventions helped the parties move towards agreement.",
                _FIVE_AGREE,
            ),
        ),
    ),
}


def instrument_for(kind: str) -> Instrument | None:
    """The instrument that rates a kind of run ("play", "game", "delegate", "mediation"), if any."""
    for instrument in INSTRUMENTS.values():
        if kind in instrument.kinds:
            return instrument
    return None


@dataclass(frozen=True, slots=True)
class Rating:
    """One stored rating.

    Attributes:
        run: The run's id (its folder under the runs folder, with "/" separators).
        instrument: The instrument's key.
        scores: A score per item, each from 1 to the item's scale.
        comment: Free text (control characters removed).
        rated_by: The signed-in principal who rated.
        rated_at: When (seconds since the epoch).
    """

    run: str
    instrument: str
    scores: Mapping[str, int]
    comment: str
    rated_by: str
    rated_at: float

    def to_json(self) -> dict[str, Any]:
        """The stored line's fields."""
        return {
            "schema": SCHEMA,
            "run": self.run,
            "instrument": self.instrument,
            "scores": dict(self.scores),
            "comment": self.comment,
            "rated_by": self.rated_by,
            "rated_at": self.rated_at,
        }

    @classmethod
    def from_json(cls, data: Mapping[str, Any], where: str) -> Rating:
        """A rating read back from a line.

        Raises:
            ScenarioError: the line is not a valid rating (names the file and line).
        """
        try:
            instrument = INSTRUMENTS[str(data["instrument"])]
            scores = check_scores(instrument, data["scores"])
            rated_at = float(data["rated_at"])
            if not math.isfinite(rated_at):
                raise ValueError("rated_at is not a finite number")
            return cls(
                run=str(data["run"]),
                instrument=instrument.key,
                scores=scores,
                comment=str(data.get("comment", "")),
                rated_by=str(data["rated_by"]),
                rated_at=rated_at,
            )
        except (KeyError, TypeError, ValueError, ScenarioError) as error:
            raise ScenarioError(f"not a rating ({error})", source=where) from None


def check_scores(instrument: Instrument, scores: object) -> dict[str, int]:
    """Scores for every item of instrument, each a whole number from 1 to the item's scale.

    Raises:
        ScenarioError: an item is missing, unknown or out of its scale.
    """
    if not isinstance(scores, Mapping):
        raise ScenarioError(f"scores: expected a mapping of item to score, got {type(scores).__name__}")
    given = {str(key): value for key, value in cast(Mapping[object, object], scores).items()}
    unknown = sorted(set(given) - {item.key for item in instrument.items})
    if unknown:
        raise ScenarioError(f"{instrument.key} has no item {unknown[0][:40]!r}", field="scores")
    checked: dict[str, int] = {}
    for item in instrument.items:
        value = given.get(item.key)
        if value is None:
            raise ScenarioError(
                f"rate {item.label.lower()} too (1 to {item.scale})", field=f"scores.{item.key}"
            )
        if isinstance(value, bool) or not isinstance(value, int) or not 1 <= value <= item.scale:
            raise ScenarioError(
                f"{item.label.lower()}: expected a whole number from 1 to {item.scale}, got {value!r}",
                field=f"scores.{item.key}",
            )
        checked[item.key] = value
    return checked


_append_lock = threading.Lock()


def append_rating(folder: Path, rating: Rating) -> None:
    """Append rating to folder/ratings.jsonl as one line (flushed to disk before returning).

    A process killed mid-append leaves a torn last line without its newline; the next rating starts
    on a line of its own, so only the torn line is lost (read_ratings reports it), never the new one.

    Raises:
        OSError: the file cannot be written.
    """
    line = dumps(rating.to_json()) + "\n"
    with _append_lock:
        descriptor = os.open(folder / RATINGS_FILE, os.O_RDWR | os.O_APPEND | os.O_CREAT, 0o644)
        try:
            size = os.fstat(descriptor).st_size
            if size and os.pread(descriptor, 1, size - 1) != b"\n":
                line = "\n" + line
            os.write(descriptor, line.encode("utf-8"))
            os.fsync(descriptor)
        finally:
            os.close(descriptor)


def new_rating(
    run: str, instrument: Instrument, scores: object, comment: str, rated_by: str, now: float
) -> Rating:
    """A rating checked against its instrument (comment made printable and cut to 2,000 characters).

    Raises:
        ScenarioError: the scores do not fit the instrument.
    """
    return Rating(
        run, instrument.key, check_scores(instrument, scores), printable(comment)[:MAX_COMMENT], rated_by, now
    )


def read_ratings(path: Path, run: str) -> tuple[list[Rating], list[str]]:
    """The ratings in one ratings.jsonl, and one line per line that could not be read.

    The run id is taken from where the file is (run), not from the lines.
    """
    ratings: list[Rating] = []
    problems: list[str] = []
    try:
        text = path.read_text(encoding="utf-8", errors="replace")
    except OSError as error:
        return [], [f"{path}: {error.strerror or error}"]
    for number, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        where = f"{path}:{number}"
        try:
            data: object = json.loads(line, parse_constant=_no_constant)
            if not isinstance(data, dict):
                raise ValueError("not an object")
            rating = Rating.from_json({**cast(dict[str, Any], data), "run": run}, where)
        except ScenarioError as error:
            problems.append(str(error)[:300])
            continue
        except ValueError as error:
            problems.append(f"{where}: not a rating ({str(error)[:200]})")
            continue
        ratings.append(rating)
    return ratings, problems


def _no_constant(name: str) -> Any:
    raise ValueError(f"{name} is not JSON")


def walk_ratings(root: Path) -> Iterator[tuple[str, Path]]:
    """(run id, folder) of every run under root that holds a ratings file, in path order.

    Symbolic links are not followed; folders deeper than `MAX_DEPTH` are not searched.
    """
    root_depth = len(root.parts)
    for folder, subfolders, files in os.walk(root):
        here = Path(folder)
        subfolders[:] = sorted(name for name in subfolders if not name.startswith("."))
        if len(here.parts) - root_depth >= MAX_DEPTH:
            subfolders[:] = []
        if RATINGS_FILE in files:
            run = here.relative_to(root).as_posix()
            yield ("." if run == "." else run), here


def latest_ratings(ratings: Iterable[Rating]) -> list[Rating]:
    """Each person's latest rating of each run on each instrument, in run order."""
    latest: dict[tuple[str, str, str], Rating] = {}
    for rating in ratings:
        key = (rating.run, rating.instrument, rating.rated_by)
        if key not in latest or rating.rated_at >= latest[key].rated_at:
            latest[key] = rating
    return sorted(latest.values(), key=lambda r: (r.run, r.instrument, r.rated_at))


_FORMULA_START = ("=", "+", "-", "@", "\t", "\r")


def _cell(text: str) -> str:
    """A text cell that a spreadsheet will not run as a formula."""
    return "'" + text if text.startswith(_FORMULA_START) else text


def iso_time(seconds: float) -> str:
    """Seconds since the epoch as an ISO 8601 UTC time."""
    return datetime.fromtimestamp(seconds, UTC).isoformat(timespec="seconds")


def ratings_csv(ratings: Iterable[Rating]) -> str:
    """Ratings as CSV, one row per item score (long format), with the comment on each row."""
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    writer.writerow(["run", "instrument", "item", "score", "scale", "rated_by", "rated_at", "comment"])
    for rating in ratings:
        instrument = INSTRUMENTS[rating.instrument]
        for item in instrument.items:
            writer.writerow(
                [
                    _cell(rating.run),
                    rating.instrument,
                    item.key,
                    rating.scores[item.key],
                    item.scale,
                    _cell(rating.rated_by),
                    iso_time(rating.rated_at),
                    _cell(rating.comment),
                ]
            )
    return buffer.getvalue()
