"""The trajectory: one append-only stream of events shared by every kind of session.

Bilateral bargaining, governed delegation and mediated conversations all write `Event`s; each
subsystem adds kinds of its own. Metrics, audits, replays and reports read this stream only.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from types import MappingProxyType
from typing import TYPE_CHECKING, Any, TypeVar, cast

from parley.errors import ScenarioError
from parley.jsonio import JSONValueError, dumps_line

if TYPE_CHECKING:
    from parley.protocol.payloads import Payload

PartyId = str
"""A party's name, unique within a session."""

PUBLIC = "public"
"""Audience of events every participant may see."""


TRAJECTORY_VERSION = 2
"""Version of the trajectory format `Trajectory.save` writes (typed payloads, docs/schemas).

A saved file carries it as ``"trajectory_version"`` on its first line; a file without it is
version 1 (written before versions existed), which reads the same way.
"""

SUPPORTED_VERSIONS = (1, 2)
"""Trajectory versions `Trajectory.load` reads."""

VERSION_KEY = "trajectory_version"

_T = TypeVar("_T")


class TrajectoryError(ScenarioError, ValueError):
    """A trajectory file (or an event in it) cannot be read: malformed, or of an unknown version.

    Also a ValueError, which readers raised for malformed data before payloads were typed.

    Attributes:
        detail: The message without the file name (for callers that name the file themselves).
    """

    def __init__(self, message: str, *, source: str | None = None, field: str | None = None) -> None:
        super().__init__(message, source=source, field=field)
        self.detail = f"{field}: {message}" if field else message


_NO_DATA: Mapping[str, Any] = MappingProxyType({})
"""Marks "no data given" (each event then gets a fresh empty dict, as a default factory would)."""


@dataclass(frozen=True, init=False)
class Event:
    """One entry of a trajectory.

    Attributes:
        seq: Position in the trajectory, from 0.
        kind: What happened ("session_started", "action", "verdicts", "agreement", ...).
        round: Protocol round (or conversation turn) in which it happened.
        party: Who caused it, if anyone.
        data: Kind-specific JSON payload.
        audience: "public", or the one party allowed to see it (private traces, private setup).
        time: Seconds on the session's clock (a fake clock in tests, so transcripts are stable).
    """

    seq: int
    kind: str
    round: int = 0
    party: PartyId | None = None
    data: Mapping[str, Any] = field(default_factory=lambda: {})
    audience: str = PUBLIC
    time: float = 0.0

    def __init__(
        self,
        seq: int,
        kind: str,
        round: int = 0,
        party: PartyId | None = None,
        data: Mapping[str, Any] = _NO_DATA,
        audience: str = PUBLIC,
        time: float = 0.0,
    ) -> None:
        # A frozen dataclass with a __dict__, filled in one update: events are built on every move
        # and storing slots one object.__setattr__ at a time costs about twice as much.
        self.__dict__.update(
            seq=seq,
            kind=kind,
            round=round,
            party=party,
            data={} if data is _NO_DATA else data,
            audience=audience,
            time=time,
        )

    @cached_property
    def payload(self) -> Payload:
        """The data as its kind's typed payload (`parley.protocol.payloads`), parsed once.

        Never raises: a kind with no registered type, or data that fits none, gives an
        `UntypedPayload` holding the data as recorded.
        """
        from parley.protocol.payloads import parse_payload  # (payloads import this module)

        return parse_payload(self.kind, self.data)

    def typed(self, cls: type[_T]) -> _T:
        """The payload as cls.

        Raises:
            TrajectoryError: the payload is not a cls (one line naming the event and the misfit).
        """
        payload = self.payload
        if isinstance(payload, cls):
            return payload
        problem = getattr(payload, "problem", "") or f"it is a {type(payload).__name__}"
        raise TrajectoryError(f"{self.kind} event {self.seq}: expected {cls.__name__} data: {problem}")

    @property
    def is_public(self) -> bool:
        """Whether every participant may see this event."""
        return self.audience == PUBLIC

    def visible_to(self, party: PartyId) -> bool:
        """Whether party may see this event."""
        return self.audience in (PUBLIC, party)

    def to_json(self) -> dict[str, Any]:
        """A JSON-ready dict (keys in a fixed order, so output is byte-stable)."""
        return {
            "seq": self.seq,
            "kind": self.kind,
            "round": self.round,
            "party": self.party,
            "audience": self.audience,
            "time": round(self.time, 6),
            "data": self.data,
        }

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> Event:
        """Inverse of to_json."""
        return cls(
            seq=int(data["seq"]),
            kind=str(data["kind"]),
            round=int(data.get("round", 0)),
            party=data.get("party"),
            data=dict(data.get("data", {})),
            audience=str(data.get("audience", PUBLIC)),
            time=float(data.get("time", 0.0)),
        )


class Trajectory(Sequence[Event]):
    """An append-only list of events with JSONL persistence."""

    def __init__(self, events: Iterable[Event] = ()) -> None:
        self._events: list[Event] = list(events)

    @classmethod
    def over(cls, events: list[Event]) -> Trajectory:
        """A trajectory backed by this very list (no copy): its owner appends to the list directly."""
        trajectory = cls.__new__(cls)  # (no __init__: it would build a list only to drop it)
        trajectory._events = events
        return trajectory

    def append(
        self,
        kind: str,
        *,
        round: int = 0,
        party: PartyId | None = None,
        data: Mapping[str, Any] | None = None,
        audience: str = PUBLIC,
        time: float = 0.0,
    ) -> Event:
        """Record a new event and return it."""
        event = Event(len(self._events), kind, round, party, dict(data) if data else {}, audience, time)
        self._events.append(event)
        return event

    def __getitem__(self, index: int) -> Event:  # type: ignore[override]
        return self._events[index]

    def __len__(self) -> int:
        return len(self._events)

    def __iter__(self) -> Iterator[Event]:
        return iter(self._events)

    def of_kind(self, *kinds: str) -> list[Event]:
        """Events whose kind is one of kinds, in order."""
        return [e for e in self._events if e.kind in kinds]

    def visible_to(self, party: PartyId) -> tuple[Event, ...]:
        """The events party may see (public ones and its own private ones)."""
        return tuple(e for e in self._events if e.visible_to(party))

    def public(self) -> tuple[Event, ...]:
        """Only the public events."""
        return tuple(e for e in self._events if e.is_public)

    def to_jsonl(self, *, versioned: bool = False) -> str:
        """One compact JSON object per line; byte-identical for identical trajectories.

        Strict JSON (`parley.jsonio`), matching ``docs/schemas/trajectory-event.schema.json``.

        Args:
            versioned: Put ``"trajectory_version": TRAJECTORY_VERSION`` first on the first line,
                as saved files carry it (golden transcripts compare the plain form).

        Raises:
            JSONValueError: an event holds a non-finite number or a value JSON has no form for.
        """
        lines: list[str] = []
        event: Event | None = None
        try:
            for event in self._events:
                if versioned and not lines:
                    lines.append(dumps_line({VERSION_KEY: TRAJECTORY_VERSION, **event.to_json()}))
                else:
                    lines.append(dumps_line(event.to_json()))
        except JSONValueError as error:  # name the event: its data may come from an agent's trace
            assert event is not None
            by = f" by {event.party}" if event.party is not None else ""
            raise JSONValueError(f"{event.kind} event {event.seq}{by}: {error.detail}", error.path) from None
        return "".join(lines)

    def save(self, path: str | Path) -> Path:
        """Write the trajectory as JSONL (creating parent folders) and return the path.

        Nothing is written when the trajectory cannot be written as strict JSON.

        Raises:
            JSONValueError: an event holds a non-finite number or a value JSON has no form for.
            OSError: the file cannot be written.
        """
        text = self.to_jsonl(versioned=True)
        target = Path(path)
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(text, encoding="utf-8")
        return target

    @classmethod
    def load(cls, path: str | Path) -> Trajectory:
        """Read a JSONL trajectory of a supported version (one without a version is version 1).

        Raises:
            TrajectoryError: the file is missing or unreadable, a line is not an event, or the
                version is not one of SUPPORTED_VERSIONS (one line naming file and line).
        """
        try:
            text = Path(path).read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError) as error:
            reason = error.strerror if isinstance(error, OSError) and error.strerror else str(error)
            raise TrajectoryError(f"not readable ({reason})", source=str(path)) from None
        return cls.loads(text, source=str(path))

    @classmethod
    def loads(cls, text: str, *, source: str | None = None) -> Trajectory:
        """Parse JSONL text as `load` does.

        Raises:
            TrajectoryError: as for `load`.
        """
        events: list[Event] = []
        for number, line in enumerate(text.splitlines(), start=1):
            if not line.strip():
                continue
            where = f"line {number}"
            try:
                record = json.loads(line, parse_constant=_no_constant)
            except (ValueError, RecursionError) as error:
                raise TrajectoryError(f"not JSON ({str(error)[:80]})", source=source, field=where) from None
            if not isinstance(record, dict):
                raise TrajectoryError("expected a JSON object per line", source=source, field=where)
            fields = cast(dict[str, Any], record)
            if not events:
                check_version(fields.get(VERSION_KEY, 1), source=source)
            events.append(_event_from_line(fields, source, where))
        return cls(events)


def check_version(version: Any, *, source: str | None = None) -> int:
    """version if it is a supported trajectory version.

    Raises:
        TrajectoryError: it is not one of SUPPORTED_VERSIONS.
    """
    if type(version) is not int or version not in SUPPORTED_VERSIONS:
        shown = repr(version) if len(repr(version)) <= 20 else repr(version)[:17] + "..."
        supported = ", ".join(map(str, SUPPORTED_VERSIONS))
        raise TrajectoryError(
            f"unsupported trajectory version {shown} (this parley reads {supported}); "
            "upgrade parley to read it",
            source=source,
        )
    return version


def _event_from_line(record: dict[str, Any], source: str | None, where: str) -> Event:
    if not isinstance(record.get("data", {}), dict):
        raise TrajectoryError("'data' is not an object", source=source, field=where)
    if not isinstance(record.get("party"), str | None):
        raise TrajectoryError("'party' is not a string or null", source=source, field=where)
    try:
        event = Event.from_json(record)
    except KeyError as error:
        raise TrajectoryError(f"missing {error.args[0]!r}", source=source, field=where) from None
    except (TypeError, ValueError, OverflowError) as error:
        raise TrajectoryError(f"not an event ({str(error)[:80]})", source=source, field=where) from None
    return event


def _no_constant(name: str) -> Any:
    raise ValueError(f"{name} is not strict JSON")
