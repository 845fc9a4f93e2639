"""Injected time: the engine never reads the wall clock directly."""

from __future__ import annotations

import time
from typing import Protocol


class Clock(Protocol):
    """A source of seconds."""

    def now(self) -> float:
        """Current time in seconds (any fixed origin)."""
        ...


class SystemClock:
    """Monotonic wall-clock time."""

    def now(self) -> float:
        return time.monotonic()


class FakeClock:
    """A clock that moves only when told to (deterministic transcripts, timeout tests).

    Args:
        start: Initial reading in seconds.
        tick: Seconds added automatically after every reading (0 keeps time frozen).
    """

    def __init__(self, start: float = 0.0, tick: float = 0.0) -> None:
        self._now = start
        self._tick = tick

    def now(self) -> float:
        reading = self._now
        self._now += self._tick
        return reading

    def advance(self, seconds: float) -> None:
        """Move time forward."""
        self._now += seconds
