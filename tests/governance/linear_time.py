"""Checks shared by the governance tests: reading a repeated unit grows about linearly with its size.

They measure growth, not speed (speed targets live in benchmarks/, e.g. bench_preflight_scan.py), in
CPU time, so other processes on a shared machine do not count; the absolute bound is a hang guard.
The general checks live in tests/linear_growth.py (for every test folder); they are re-exported here.
"""

from __future__ import annotations

from datetime import date

from linear_growth import HANG_GUARD_SECONDS, assert_grows_linearly, cpu_seconds
from parley.governance.terms import TermReader

__all__ = ["HANG_GUARD_SECONDS", "assert_grows_linearly", "assert_reads_in_linear_time", "cpu_seconds"]


def assert_reads_in_linear_time(reader: TermReader, unit: str, today: date) -> None:
    """8x the text (2 KB -> 16 KB of unit repeated) costs well under the 64x of a quadratic reader."""
    assert_grows_linearly(lambda text: reader.read(text, today=today), unit, 2_000, 8, slack=4.0)
