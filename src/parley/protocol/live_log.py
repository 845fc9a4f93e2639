"""A conversation's events written as they happen, so another process (the web console) can follow it.

`parley mediate --save DIR` writes `DIR/live.jsonl` while the conversation runs: a first line naming
what is played (`{"live": {"case": ..., "mediator": ..., "mode": ..., "seed": ..., "pid": ...}}`),
then one event per line in the trajectory's own form, each flushed as it is written. When the
conversation ends the finished run is written (`trajectory.jsonl`, `metrics.json`) and the live file
is removed; a process killed midway leaves its live file, which a follower reports as stopped once
nothing has been added to it for a while.

Readers (`read_live`) take only complete lines, skip a torn or unreadable one, and read at most
`MAX_LIVE_BYTES`: a live file is never trusted to be well formed.
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any, cast

from parley.jsonio import dumps_line
from parley.protocol.events import Event

LIVE_FILE = "live.jsonl"
"""Name of the live file inside a run folder."""
MAX_LIVE_BYTES = 20_000_000
"""Most of a live file a follower reads (a conversation's log is far smaller)."""
_HEADER = "live"


class LiveLog:
    """Appends a conversation's events to `folder/live.jsonl` as they happen.

    Args:
        folder: The run folder (created if missing).
        about: What is played (case, mediator, mode, seed): the header line.

    Raises:
        OSError: the folder or file cannot be written.
    """

    def __init__(self, folder: Path, about: Mapping[str, Any]) -> None:
        folder.mkdir(parents=True, exist_ok=True)
        self.path = folder / LIVE_FILE
        self._file: IO[str] | None = self.path.open("w", encoding="utf-8")
        self._write({_HEADER: {**about, "pid": os.getpid()}})

    def add(self, event: Event) -> None:
        """Append one event (a write error closes the log: the run itself goes on)."""
        if self._file is not None:
            self._write(event.to_json())

    def close(self, *, remove: bool) -> None:
        """Stop writing; remove the file once the finished run is saved beside it."""
        if self._file is not None:
            self._file.close()
            self._file = None
        if remove:
            self.path.unlink(missing_ok=True)

    def _write(self, record: Mapping[str, Any]) -> None:
        assert self._file is not None
        try:
            self._file.write(dumps_line(record))
            self._file.flush()
        except (OSError, ValueError):
            self._file.close()
            self._file = None


@dataclass(frozen=True, slots=True)
class LiveRead:
    """What a live file holds so far.

    Attributes:
        about: The header (empty when the first line is missing or unreadable).
        events: The events of its complete, readable lines, in order.
        skipped: Lines that could not be read as an event.
        size: Bytes read.
    """

    about: Mapping[str, Any]
    events: tuple[Event, ...]
    skipped: int
    size: int


def read_live(path: Path) -> LiveRead:
    """Read a live file's complete lines (a line still being written is left for the next read).

    Raises:
        OSError: the file cannot be read (gone, say: the run finished).
    """
    with path.open("rb") as handle:
        raw = handle.read(MAX_LIVE_BYTES)
    complete = raw[: raw.rfind(b"\n") + 1]
    about: Mapping[str, Any] = {}
    events: list[Event] = []
    skipped = 0
    for number, line in enumerate(complete.decode("utf-8", errors="replace").splitlines()):
        try:
            record: object = json.loads(line, parse_constant=_no_constant)
            if not isinstance(record, dict):
                raise ValueError("not an object")
            fields = cast(dict[str, Any], record)
            if number == 0 and isinstance(fields.get(_HEADER), dict):
                about = cast(dict[str, Any], fields[_HEADER])
                continue
            events.append(Event.from_json(fields))
        except (ValueError, KeyError, TypeError, RecursionError):
            skipped += 1
    return LiveRead(about, tuple(events), skipped, len(complete))


def _no_constant(name: str) -> Any:
    raise ValueError(f"{name} is not JSON")
