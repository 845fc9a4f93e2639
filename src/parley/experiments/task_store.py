"""The batch layer's stores: an append-only JSONL file of finished tasks that survives any crash and
refuses to mix set-ups (`TaskStore`), its in-memory twin (`MemoryStore`), and the folder lock and
directory sync the tournament's store shares."""

from __future__ import annotations

import contextlib
import json
import logging
import math
import os
from collections.abc import Collection, Generator, Iterator, Mapping, Sequence
from contextlib import AbstractContextManager, contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, NoReturn

from parley.errors import ScenarioError
from parley.jsonio import dumps

logger = logging.getLogger(__name__)

Row = dict[str, Any]
Result = tuple[str, list[Row]]
"""A finished task: its key and its rows."""
STORE_FILE = "tasks.jsonl"
STORE_FORMAT = 1
"""Version of the task store's layout, kept in its header."""
MAX_LINE_BYTES = 64 * 1024 * 1024
"""A stored line longer than this is not read (a garbage line cannot fill the memory); its task runs again."""


@dataclass(slots=True)
class _Scan:
    """What a pass over a task store found."""

    keys: set[str] = field(default_factory=set[str])
    header: bool = False
    bad_lines: int = 0
    repeated: int = 0
    newline_at_end: bool = True

    @property
    def clean(self) -> bool:
        return self.header and not (self.bad_lines or self.repeated) and self.newline_at_end


class TaskStore:
    """Append-only JSONL of finished tasks, resumable after any crash.

    The first line is a header naming the experiment and its configuration; each further line is one
    task, ``{"key": ..., "rows": [...]}``, written in one synced write. A torn or garbage line, and a
    second copy of a task, are dropped when the store is recovered (so those tasks run again), and a
    store made with another experiment or configuration is refused rather than mixed.
    """

    def __init__(
        self,
        directory: Path,
        *,
        experiment: str,
        config: Mapping[str, Any],
    ) -> None:
        """Open (without reading) the store in directory, creating the folder.

        Args:
            directory: The store's folder (its file is `STORE_FILE` inside).
            experiment: The experiment's name, kept in the header.
            config: Every setting that changes what a task's rows hold (JSON-able), kept in the header.

        Raises:
            OSError: the folder cannot be made.
        """
        self.directory = directory
        self.path = directory / STORE_FILE
        self.header: Row = {
            "parley_batch": STORE_FORMAT,
            "experiment": experiment,
            "config": json.loads(dumps(dict(config))),
        }
        directory.mkdir(parents=True, exist_ok=True)

    def _lines(self) -> Iterator[bytes | None]:
        """Every line (None for one over `MAX_LINE_BYTES`, which is skipped unread)."""
        if not self.path.exists():
            return
        with self.path.open("rb") as handle:
            while line := handle.readline(MAX_LINE_BYTES + 1):
                if len(line) <= MAX_LINE_BYTES or line.endswith(b"\n"):
                    yield line
                    continue
                while line and not line.endswith(b"\n"):  # skip the rest of an overlong line
                    line = handle.readline(1 << 20)
                yield None

    def _scan(self) -> _Scan:
        scan = _Scan()
        last = b"\n"
        for number, line in enumerate(self._lines()):
            last = line or b"\n"
            if number == 0:
                scan.header = self._check_header(line)
                continue
            key = _record_key(line)
            if key is None:
                scan.bad_lines += 1
            elif key in scan.keys:
                scan.repeated += 1
            else:
                scan.keys.add(key)
        scan.newline_at_end = last.endswith(b"\n")
        return scan

    def _check_header(self, line: bytes | None) -> bool:
        """Whether line is this store's header; False for a header torn by a crash (nothing after it).

        Raises:
            ScenarioError: the file is not a task store, or holds another experiment or configuration.
        """
        found = _json_object(line)
        if found is None and line is not None and not line.endswith(b"\n"):
            return False  # the crash came while the header was written: nothing else is stored
        if found is None or found.get("parley_batch") != STORE_FORMAT:
            raise ScenarioError(
                f"{self.path} is not a parley task store (or one of another version); "
                "pass another --store or delete it"
            )
        if (
            found.get("experiment") != self.header["experiment"]
            or found.get("config") != self.header["config"]
        ):
            raise ScenarioError(
                f"{self.path} holds {_differences(found, self.header)}; pass another --store or delete it"
            )
        return True

    def recover(self) -> set[str]:
        """Make the store whole after a crash and return the keys of the tasks it holds.

        A missing or torn header is written; torn lines, garbage and second copies of a task are
        dropped by rewriting the file (a temporary file that replaces it atomically).

        Raises:
            ScenarioError: the file is not a task store, or was made by another experiment or config.
        """
        scan = self._scan()
        if scan.clean:
            return scan.keys
        temporary = self.path.with_name(self.path.name + ".tmp")
        written: set[str] = set()
        with temporary.open("wb") as handle:
            handle.write(self._header_line())
            for number, line in enumerate(self._lines()):
                key = _record_key(line) if number else None
                if line is None or key is None or key in written:
                    continue
                written.add(key)
                handle.write(line if line.endswith(b"\n") else line + b"\n")
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(temporary, self.path)
        sync_directory(self.directory)
        if scan.header:
            logger.warning(
                "%s: dropped %d torn or unreadable line(s) and %d repeated task(s); those tasks run again",
                self.path,
                scan.bad_lines + (not scan.newline_at_end),
                scan.repeated,
            )
        return scan.keys

    def _header_line(self) -> bytes:
        return (dumps(self.header, compact=True) + "\n").encode("utf-8")

    def store(self, results: Sequence[Result]) -> None:
        """Append finished tasks durably, in one write (flushed and synced).

        Raises:
            JSONValueError: a row holds a value JSON has no form for (an object, a cycle).
        """
        data = b"".join(self._record_line(key, rows) for key, rows in results)
        if not data:
            return
        if _ends_mid_line(self.path):  # a crash left half a line: close it so the next record starts clean
            data = b"\n" + data
        with self.path.open("ab") as handle:
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())

    def _record_line(self, key: str, rows: list[Row]) -> bytes:
        return (dumps({"key": key, "rows": finite(rows)}, compact=True) + "\n").encode()

    def results(self, keys: Collection[str]) -> dict[str, list[Row]]:
        """The stored rows of the tasks with these keys (the first copy of each), by key."""
        found: dict[str, list[Row]] = {}
        for number, line in enumerate(self._lines()):
            record = _json_object(line) if number else None
            if record is None or not _is_record(record) or record["key"] not in keys:
                continue
            found.setdefault(record["key"], record["rows"])
        return found

    def writing(self) -> AbstractContextManager[None]:
        """Hold the store for this process (see `hold`).

        Raises:
            ScenarioError: another process is writing to the same store.
        """
        return hold(
            self.directory, "another batch is writing to this store; wait for it or pass another --store"
        )


class MemoryStore:
    """A task store kept in memory, for a batch run without --store (rows round-trip through JSON as
    they would through a `TaskStore`, so both give the same values)."""

    def __init__(self) -> None:
        self._lines: dict[str, str] = {}

    def recover(self) -> set[str]:
        """The keys stored so far."""
        return set(self._lines)

    def store(self, results: Sequence[Result]) -> None:
        """Keep finished tasks (the first copy of each)."""
        for key, rows in results:
            self._lines.setdefault(key, dumps(finite(rows), compact=True))

    def results(self, keys: Collection[str]) -> dict[str, list[Row]]:
        """The stored rows of the tasks with these keys, by key."""
        return {key: _loads(line) for key, line in self._lines.items() if key in keys}

    def writing(self) -> AbstractContextManager[None]:
        """Nothing to hold: the store belongs to this process."""
        return contextlib.nullcontext()


def _json_object(line: bytes | None) -> dict[str, Any] | None:
    if line is None:
        return None
    try:
        value = _loads(line)
    except ValueError:  # JSONDecodeError, or bytes that are not UTF-8
        return None
    except RecursionError:  # deeply nested garbage
        return None
    return value if isinstance(value, dict) else None  # pyright: ignore[reportUnknownVariableType]


_FLOAT = "$float"
_NON_FINITE = ("nan", "inf", "-inf")


def finite(value: Any) -> Any:
    """value with every NaN and infinity as ``{"$float": "nan" | "inf" | "-inf"}``, so rows go to
    strict JSON with nothing lost (`_loads` turns them back into floats)."""
    if isinstance(value, float) and not math.isfinite(value):
        return {_FLOAT: repr(value)}
    if isinstance(value, dict):
        return {key: finite(item) for key, item in value.items()}  # pyright: ignore[reportUnknownVariableType]
    if isinstance(value, list | tuple):
        return [finite(item) for item in value]  # pyright: ignore[reportUnknownVariableType]
    return value


def _float_hook(value: dict[str, Any]) -> Any:
    if len(value) == 1 and value.get(_FLOAT) in _NON_FINITE:
        return float(value[_FLOAT])
    return value


def _loads(text: str | bytes) -> Any:
    """Parse stored JSON strictly (a bare NaN or Infinity is not JSON: ValueError), turning
    `finite`'s markers back into NaN and infinities."""
    return json.loads(text, object_hook=_float_hook, parse_constant=_not_json)


def _not_json(constant: str) -> NoReturn:
    raise ValueError(f"{constant} is not JSON")


def _is_record(value: Mapping[str, Any]) -> bool:
    rows = value.get("rows")
    return (
        isinstance(value.get("key"), str)
        and isinstance(rows, list)
        and all(isinstance(row, dict) for row in rows)  # pyright: ignore[reportUnknownVariableType]
    )


def _record_key(line: bytes | None) -> str | None:
    """The key of the task on a stored line, or None for a torn or foreign line."""
    record = _json_object(line)
    if record is None or not _is_record(record) or not (line or b"").endswith(b"\n"):
        return None
    return str(record["key"])


def _differences(found: Mapping[str, Any], wanted: Mapping[str, Any]) -> str:
    """What differs between a stored header and the one wanted, in words, kept short."""
    if found.get("experiment") != wanted["experiment"]:
        return f"runs of another experiment ({_short(found.get('experiment'))}, not {wanted['experiment']})"
    stored = found.get("config")
    stored = stored if isinstance(stored, dict) else {}
    config: Mapping[str, Any] = wanted["config"]
    names = sorted(set(stored) | set(config), key=str)  # pyright: ignore[reportUnknownArgumentType]
    changes = [
        f"{name} {_short(stored.get(name))} (now {_short(config.get(name))})"  # pyright: ignore[reportUnknownMemberType]
        for name in names
        if stored.get(name) != config.get(name)  # pyright: ignore[reportUnknownMemberType]
    ]
    return (
        f"{wanted['experiment']} runs made with another configuration: "
        + "; ".join(changes[:4])
        + (f"; and {len(changes) - 4} more" if len(changes) > 4 else "")
    )


def _short(value: object, limit: int = 60) -> str:
    text = " ".join(json.dumps(value, ensure_ascii=True).split())
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _ends_mid_line(path: Path) -> bool:
    if not path.exists() or path.stat().st_size == 0:
        return False
    with path.open("rb") as handle:
        handle.seek(-1, os.SEEK_END)
        return handle.read(1) != b"\n"


def sync_directory(directory: Path) -> None:
    """Make a rename inside directory durable (where the platform allows opening a folder)."""
    try:
        descriptor = os.open(directory, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(descriptor)
    except OSError:
        pass
    finally:
        os.close(descriptor)


@contextmanager
def hold(directory: Path, busy: str) -> Generator[None]:
    """Hold directory for this process (POSIX advisory lock on the folder).

    Raises:
        ScenarioError: another process holds it (busy is the message).
    """
    try:
        import fcntl
    except ImportError:  # no advisory locks here (Windows): trust the caller
        yield
        return
    descriptor = os.open(directory, os.O_RDONLY)
    try:
        try:
            fcntl.flock(descriptor, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            raise ScenarioError(busy, source=str(directory)) from None
        yield
    finally:
        os.close(descriptor)  # closing releases the lock
