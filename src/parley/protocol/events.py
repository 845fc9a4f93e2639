"""The trajectory: one append-only stream of events shared by every kind of session.

Bilateral bargaining, governed delegation and mediated conversations all write `Event`s; each
subsystem adds kinds of its own. Metrics, audits, replays and reports read this stream only.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from types import MappingProxyType
from typing import Any

from parley.jsonio import JSONValueError, dumps_line

PartyId = str
"""A party's name, unique within a session."""

PUBLIC = "public"
"""Audience of events every participant may see."""


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

    def to_jsonl(self) -> str:
        """One compact JSON object per line; byte-identical for identical trajectories.

        Strict JSON (`parley.jsonio`), matching ``docs/schemas/trajectory-event.schema.json``.

        Raises:
            JSONValueError: an event holds a non-finite number or a value JSON has no form for.
        """
        lines: list[str] = []
        event: Event | None = None
        try:
            for event in self._events:
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
        text = self.to_jsonl()
        target = Path(path)
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(text, encoding="utf-8")
        return target

    @classmethod
    def load(cls, path: str | Path) -> Trajectory:
        """Read a JSONL trajectory."""
        lines = Path(path).read_text(encoding="utf-8").splitlines()
        return cls(Event.from_json(json.loads(line)) for line in lines if line.strip())
