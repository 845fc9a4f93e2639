"""Reproducibility wrappers around any `LLMClient`: an SQLite response cache, a recorder and a replayer.

All three key requests by `request_key` (model + SHA-256 of messages, schema and sampling settings).
A recording is a folder of JSONL files, one exchange per line: the request and either the response
or the error the endpoint gave (so a run with endpoint failures replays with the same fallbacks). A
replay serves them back with no endpoint and fails loudly, naming the request hash, on anything
unrecorded. Failures are never cached.
"""

from __future__ import annotations

import json
import os
import sqlite3
import threading
from collections import defaultdict
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, ClassVar

from parley.errors import LLMError
from parley.llm.client import EndpointError, FailureKind, LLMClient
from parley.llm.types import LLMRequest, LLMResponse

RECORDING_FILE = "exchanges.jsonl"
"""File a recorder appends to inside its folder."""


class ReplayMiss(LLMError):
    """A replay was asked for a request that was never recorded.

    Attributes:
        key: The request hash.
    """

    def __init__(self, key: str, message: str) -> None:
        self.key = key
        super().__init__(message)


class ResponseCache:
    """Responses by request key in an SQLite file (safe to share between threads of one process).

    Args:
        path: Database file (created with its folder), or ":memory:".
    """

    def __init__(self, path: str | Path) -> None:
        if str(path) != ":memory:":
            Path(path).parent.mkdir(parents=True, exist_ok=True)
        self._lock = threading.Lock()
        self._db = sqlite3.connect(
            str(path), check_same_thread=False, timeout=30.0
        )  # other processes may hold the lock
        with self._lock, self._db:
            self._db.execute(
                "CREATE TABLE IF NOT EXISTS responses (key TEXT PRIMARY KEY, model TEXT, response TEXT)"
            )

    def get(self, request: LLMRequest) -> LLMResponse | None:
        """The cached response to request, if any."""
        with self._lock:
            row = self._db.execute("SELECT response FROM responses WHERE key = ?", (request.key,)).fetchone()
        return None if row is None else LLMResponse.from_json(json.loads(row[0]), source="cache")

    def put(self, request: LLMRequest, response: LLMResponse) -> None:
        """Store response as the answer to request."""
        with self._lock, self._db:
            self._db.execute(
                "INSERT OR REPLACE INTO responses VALUES (?, ?, ?)",
                (request.key, request.model, json.dumps(response.to_json(), sort_keys=True)),
            )

    def __len__(self) -> int:
        with self._lock:
            return int(self._db.execute("SELECT COUNT(*) FROM responses").fetchone()[0])

    def close(self) -> None:
        """Close the database."""
        with self._lock:
            self._db.close()


class CachedClient:
    """Serves repeated requests from a `ResponseCache`, asking inner only on a miss.

    Args:
        inner: The client that answers misses.
        cache: Where answers are kept.
    """

    def __init__(self, inner: LLMClient, cache: ResponseCache) -> None:
        self.inner = inner
        self.model = inner.model
        self._cache = cache

    async def complete(self, request: LLMRequest) -> LLMResponse:
        """The cached answer, or inner's (then cached)."""
        hit = self._cache.get(request)
        if hit is not None:
            return hit
        response = await self.inner.complete(request)
        self._cache.put(request, response)
        return response


class RecordingClient:
    """Passes requests to inner and appends every exchange to ``folder/exchanges.jsonl``.

    Args:
        inner: The client that answers.
        folder: Recording folder (created if needed); shared safely by concurrent sessions.
    """

    _locks: ClassVar[dict[Path, threading.Lock]] = {}
    _locks_guard: ClassVar[threading.Lock] = threading.Lock()

    def __init__(self, inner: LLMClient, folder: str | Path) -> None:
        self.inner = inner
        self.model = inner.model
        self._path = Path(folder) / RECORDING_FILE
        self._path.parent.mkdir(parents=True, exist_ok=True)
        with self._locks_guard:
            self._lock = self._locks.setdefault(self._path.resolve(), threading.Lock())

    async def complete(self, request: LLMRequest) -> LLMResponse:
        """inner's answer, recorded; an `LLMError` from inner is recorded too, then re-raised."""
        try:
            response = await self.inner.complete(request)
        except ReplayMiss:
            raise
        except LLMError as error:
            self._write({"key": request.key, "request": request.to_json(), "error": error_to_json(error)})
            raise
        self._write({"key": request.key, "request": request.to_json(), "response": response.to_json()})
        return response

    def _write(self, entry: Mapping[str, Any]) -> None:
        line = json.dumps(entry, sort_keys=True, ensure_ascii=False)
        with self._lock:
            _append(self._path, (line + "\n").encode("utf-8"))


_FAILURE_KINDS: dict[str, FailureKind] = {
    "endpoint_error": "endpoint_error",
    "circuit_open": "circuit_open",
    "budget_exhausted": "budget_exhausted",
}


def error_to_json(error: LLMError) -> dict[str, Any]:
    """A recorded failure: enough to raise an equal error on replay."""
    if isinstance(error, EndpointError):
        return {
            "message": str(error),
            "kind": error.kind,
            "url": error.url,
            "cause": error.cause,
            "root": error.root,
            "attempts": error.attempts,
        }
    return {"message": str(error), "kind": "llm_error"}


def error_from_json(data: Mapping[str, Any]) -> LLMError:
    """Inverse of `error_to_json`.

    Raises:
        KeyError, TypeError, ValueError: not a recorded failure.
    """
    kind = _FAILURE_KINDS.get(str(data["kind"]))
    if kind is not None:
        return EndpointError(
            str(data["url"]), str(data["cause"]), kind, int(data["attempts"]), str(data["root"])
        )
    return LLMError(str(data["message"]))


@dataclass(frozen=True, slots=True)
class _RecordedFailure:
    data: Mapping[str, Any]


def _append(path: Path, data: bytes) -> None:
    # One write(2) on an O_APPEND descriptor: lines from concurrent processes never interleave.
    descriptor = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
    try:
        os.write(descriptor, data)
    finally:
        os.close(descriptor)


class ReplayClient:
    """Answers only from a recording folder; needs no endpoint.

    Identical requests recorded several times are served in recorded order (the last one repeats).
    A recorded failure is raised again as an equal `LLMError` (an `EndpointError` when it was one).

    Args:
        folder: A folder written by `RecordingClient` (every ``*.jsonl`` in it is read).
        model: The model requests are built for (default: the only model in the recording).

    Raises:
        LLMError: the folder holds no recording, or several models and no model was named.
    """

    def __init__(self, folder: str | Path, model: str | None = None) -> None:
        self._folder = Path(folder)
        self._answers: dict[str, list[LLMResponse | _RecordedFailure]] = defaultdict(list)
        self._served: dict[str, int] = defaultdict(int)
        self._lock = threading.Lock()
        models = self._load()
        if model is None:
            if len(models) != 1:
                raise LLMError(
                    f"recording {self._folder} holds models {sorted(models)}; name the one to replay"
                )
            model = next(iter(models))
        self.model = model

    def _load(self) -> set[str]:
        files = sorted(self._folder.glob("*.jsonl"))
        if not files:
            raise LLMError(f"no recording to replay: {self._folder} has no *.jsonl files")
        models: set[str] = set()
        for file in files:
            for number, line in enumerate(file.read_text("utf-8").splitlines(), start=1):
                if not line.strip():
                    continue
                try:
                    entry = json.loads(line)
                    if "error" in entry:
                        error_from_json(entry["error"])  # a broken entry fails at load, not mid-run
                        answer: LLMResponse | _RecordedFailure = _RecordedFailure(entry["error"])
                    else:
                        answer = LLMResponse.from_json(entry["response"], source="replay")
                    self._answers[entry["key"]].append(answer)
                    models.add(str(entry["request"]["model"]))
                except (ValueError, KeyError, TypeError) as error:
                    raise LLMError(f"{file}:{number}: not a recorded exchange ({error})") from None
        return models

    async def complete(self, request: LLMRequest) -> LLMResponse:
        """The recorded answer to exactly this request.

        Raises:
            ReplayMiss: the request was never recorded (an `LLMError` naming the request hash).
            LLMError: the recorded answer was a failure (raised again as recorded).
        """
        key = request.key
        with self._lock:
            answers = self._answers.get(key)
            if not answers:
                raise ReplayMiss(
                    key,
                    f"replay miss: request {key} (model {request.model}, "
                    f"{len(request.messages)} messages) is not in the recording {self._folder}",
                )
            index = min(self._served[key], len(answers) - 1)
            self._served[key] += 1
        answer = answers[index]
        if isinstance(answer, _RecordedFailure):
            raise error_from_json(answer.data)
        return answer
