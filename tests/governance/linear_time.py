"""A check shared by the term reader's tests: reading a repeated unit grows about linearly with size."""

from __future__ import annotations

import time
from datetime import date

from parley.governance.terms import TermReader


def assert_reads_in_linear_time(reader: TermReader, unit: str, today: date) -> None:
    """8x the text (2 KB -> 16 KB of unit repeated) costs well under the 64x of a quadratic reader."""

    def elapsed(size: int) -> float:
        text = (unit * (size // len(unit) + 1))[:size]
        start = time.perf_counter()
        reader.read(text, today=today)
        return time.perf_counter() - start

    small, large = elapsed(2_000), elapsed(16_000)
    assert large < 8 * 4 * max(small, 1e-2)
