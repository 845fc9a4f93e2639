"""Checks for any test file: a function of a text grows about linearly with the text's size.

They measure growth, not speed (speed targets live in benchmarks/, e.g. bench_preflight_scan.py), in
CPU time, so other processes on a shared machine do not count; the absolute bound is a hang guard.
Importable from every test folder: tests/conftest.py puts tests/ on sys.path.
"""

from __future__ import annotations

import time
from collections.abc import Callable

HANG_GUARD_SECONDS = 30.0
"""Far beyond any linear reading of the sizes the tests use: a bound that only a hang or a blow-up meets."""


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
