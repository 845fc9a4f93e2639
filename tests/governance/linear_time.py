"""Checks shared by the governance tests: reading a repeated unit grows about linearly with its size.

They measure growth, not speed (speed targets live in benchmarks/, e.g. bench_preflight_scan.py), in
CPU time, so other processes on a shared machine do not count; the absolute bound is a hang guard.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from datetime import date

from parley.governance.terms import TermReader

HANG_GUARD_SECONDS = 30.0
"""Far beyond any linear reading of the sizes used here: a bound that only a hang or a blow-up meets."""


def cpu_seconds(read: Callable[[str], object], text: str) -> float:
    """CPU seconds of read(text), the best of two runs (the first may warm caches)."""
    best = float("inf")
    for _ in range(2):
        started = time.process_time()
        read(text)
        best = min(best, time.process_time() - started)
    return best


def assert_grows_linearly(
    read: Callable[[str], object], unit: str, small: int, times: int, slack: float = 3.0
) -> None:
    """read on `times` x the text (unit repeated to about small characters) costs well under the
    times**2 of a quadratic reader: at most slack x times as much (a floor of 10 ms absorbs noise)."""
    text = unit * max(1, small // len(unit))
    short, long = cpu_seconds(read, text), cpu_seconds(read, text * times)
    assert long <= slack * times * max(short, 0.01), (short, long)
    assert long < HANG_GUARD_SECONDS, long


def assert_reads_in_linear_time(reader: TermReader, unit: str, today: date) -> None:
    """8x the text (2 KB -> 16 KB of unit repeated) costs well under the 64x of a quadratic reader."""
    assert_grows_linearly(lambda text: reader.read(text, today=today), unit, 2_000, 8, slack=4.0)
