"""The run browser's reading of a runs folder: which saved runs there are, of what kind, and their record.

A run is a folder holding what a parley command saved:

* "play": a game played in the console (`game.json`, `trajectory.jsonl`, `result.json`);
* "game": `parley run --save` (`trajectory.jsonl`, `result.json`);
* "mediation": `parley mediate --save` or the console's live mediation (`trajectory.jsonl`,
  `metrics.json` with ProMediate's metrics);
* "delegate": a governed delegate's session exported when its principal rated it
  (`session.json`, `trajectory.jsonl`, `metrics.json` with GAIA's metrics);
* "tournament": `parley tournament --out` (`results.jsonl`).

Run ids are folder paths relative to the runs folder. `resolve_run` refuses anything that leaves the
folder (`..`, absolute paths, symbolic links pointing out) before a file is opened.
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, cast

from parley.errors import ParleyError
from parley.protocol.events import Trajectory
from parley.protocol.payloads import SessionStarted
from parley.web.ratings import RATINGS_FILE, instrument_for

__all__ = [
    "MAX_RUNS",
    "RunInfo",
    "RunNotFound",
    "list_runs",
    "read_json",
    "read_trajectory",
    "resolve_run",
    "run_kind",
]

MAX_RUNS = 2000
"""Most runs the browser lists (newest first)."""
MAX_DEPTH = 6
MAX_FILE_BYTES = 64 * 1024 * 1024
"""Largest trajectory or result file the browser reads."""
_RUN_ID = re.compile(r"^[A-Za-z0-9._\-]+(?:/[A-Za-z0-9._\-]+)*$")


class RunNotFound(ParleyError):
    """No run by that id under the runs folder (or the id is not a plain relative path)."""


@dataclass(frozen=True, slots=True)
class RunInfo:
    """One saved run, as the browser lists it.

    Attributes:
        run_id: Its folder relative to the runs folder ("play/abc", "tournaments/t1").
        kind: "play", "game", "mediation", "delegate" or "tournament".
        title: A short description (scenario, agents or session).
        modified: When its newest file was written (seconds since the epoch).
        ratings: How many ratings it holds.
        rateable: Whether a rating form applies to it.
    """

    run_id: str
    kind: str
    title: str
    modified: float
    ratings: int
    rateable: bool


def as_object(value: Any) -> dict[str, Any]:
    """value if it is a JSON object, else an empty one (for reading files written by others)."""
    return cast(dict[str, Any], value) if isinstance(value, dict) else {}


def as_list(value: Any) -> list[Any]:
    """value if it is a JSON array, else an empty one."""
    return cast(list[Any], value) if isinstance(value, list) else []


def read_object(path: Path) -> dict[str, Any]:
    """A JSON file holding an object, or an empty object when missing, too large, invalid or not one."""
    return as_object(read_json(path))


def read_json(path: Path) -> Any:
    """A JSON file (strict: NaN and Infinity refused), or None when missing, too large or invalid."""
    try:
        if path.stat().st_size > MAX_FILE_BYTES:
            return None
        return json.loads(path.read_text(encoding="utf-8"), parse_constant=_no_constant)
    except (OSError, ValueError):
        return None


def _no_constant(name: str) -> Any:
    raise ValueError(f"{name} is not JSON")


def read_trajectory(folder: Path) -> Trajectory:
    """The run's trajectory.jsonl.

    Raises:
        RunNotFound: there is none, it is too large, or it is not a trajectory.
    """
    path = folder / "trajectory.jsonl"
    try:
        if path.stat().st_size > MAX_FILE_BYTES:
            raise RunNotFound(f"{folder.name}: trajectory.jsonl is larger than {MAX_FILE_BYTES // 2**20} MB")
        return Trajectory.loads(path.read_text(encoding="utf-8"))  # (an unknown version is refused)
    except (OSError, ValueError) as error:  # (TrajectoryError is a ValueError)
        raise RunNotFound(f"{folder.name}: no readable trajectory.jsonl ({str(error)[:120]})") from None


def run_kind(folder: Path) -> str | None:
    """What kind of run folder holds, or None when it is not one."""
    if (folder / "results.jsonl").is_file():
        return "tournament"
    if not (folder / "trajectory.jsonl").is_file():
        return None
    if read_object(folder / "game.json").get("kind") == "play":
        return "play"
    if (folder / "session.json").is_file():
        return "delegate"
    if (folder / "result.json").is_file():
        return "game"
    if (folder / "metrics.json").is_file():
        return "mediation"
    return None


def _title(folder: Path, kind: str) -> str:
    if kind == "tournament":
        return f"tournament {folder.name}"
    if kind in ("play", "game"):
        result = read_object(folder / "result.json")
        agents = " vs ".join(str(as_object(p).get("agent")) for p in as_list(result.get("parties")))
        scenario = result.get("scenario", "?")
        return f"{scenario}: {agents}" if agents else str(scenario)
    if kind == "delegate":
        session = read_object(folder / "session.json")
        return f"delegate session {session.get('session_id', folder.name)} ({session.get('config', '?')})"
    return _conversation_title(folder)


def _conversation_title(folder: Path) -> str:
    try:
        with (folder / "trajectory.jsonl").open(encoding="utf-8") as handle:
            head = json.loads(handle.readline() or "{}")
        data = head.get("data", {})
        return f"{data.get('scenario', folder.name)} · {data.get('mediator', '?')} · {data.get('mode', '?')}"
    except (OSError, ValueError, AttributeError):
        return folder.name


def _ratings_count(folder: Path) -> int:
    try:
        with (folder / RATINGS_FILE).open(encoding="utf-8", errors="replace") as handle:
            return sum(1 for line in handle if line.strip())
    except OSError:
        return 0


def _folders(root: Path) -> Iterator[Path]:
    root_depth = len(root.parts)
    for folder, subfolders, _ in os.walk(root):
        here = Path(folder)
        subfolders[:] = sorted(name for name in subfolders if not name.startswith("."))
        if len(here.parts) - root_depth >= MAX_DEPTH:
            subfolders[:] = []
        yield here


def _modified(folder: Path) -> float:
    times = [entry.stat().st_mtime for entry in folder.iterdir() if entry.is_file()]
    return max(times, default=0.0)


def list_runs(root: Path) -> list[RunInfo]:
    """Every run under root, newest first (at most `MAX_RUNS`; symbolic links are not followed)."""
    if not root.is_dir():
        return []
    found: list[RunInfo] = []
    for folder in _folders(root):
        kind = run_kind(folder)
        if kind is None or folder == root:
            continue
        found.append(
            RunInfo(
                run_id=folder.relative_to(root).as_posix(),
                kind=kind,
                title=_title(folder, kind),
                modified=_modified(folder),
                ratings=_ratings_count(folder),
                rateable=instrument_for(kind) is not None,
            )
        )
    found.sort(key=lambda run: (-run.modified, run.run_id))
    return found[:MAX_RUNS]


def resolve_run(root: Path, run_id: str) -> tuple[Path, str]:
    """The folder of run run_id under root, and its kind.

    Raises:
        RunNotFound: the id is not a plain relative path, leaves root, or names no run.
    """
    shown = run_id[:80]
    parts = run_id.split("/")
    if len(run_id) > 500 or not _RUN_ID.match(run_id) or any(part in (".", "..") for part in parts):
        raise RunNotFound(f"no run {shown!r}: run ids are folder paths under the runs folder")
    base = root.resolve()
    folder = (root / run_id).resolve()
    if not folder.is_relative_to(base) or folder == base:
        raise RunNotFound(f"no run {shown!r} under the runs folder")
    kind = run_kind(folder) if folder.is_dir() else None
    if kind is None:
        raise RunNotFound(f"no run {shown!r} under the runs folder")
    return folder, kind


def scenario_name(trajectory: Trajectory, result: Mapping[str, Any] | None) -> str | None:
    """The scenario a bargaining run was played on, as recorded (None if not recorded)."""
    if result is not None and isinstance(result.get("scenario"), str):
        return str(result["scenario"])
    started = [e.payload for e in trajectory.of_kind("session_started")[:1]]
    return started[0].scenario if started and isinstance(started[0], SessionStarted) else None
