"""Checks shared by the amount reader's form tests (test_amounts_v7.py onward): the figures a text
states for one term, whether they are the labelled ones, and reading a crafted repetition in linear time."""

from __future__ import annotations

import time

from parley.governance.amounts import term_amounts
from parley.governance.config import load_config


def highs(domain: str, text: str, term: str) -> list[float]:
    """The figures (the high end of each) the reader attributes to term in text, in reading order."""
    return [t.high for t in term_amounts(load_config(domain), text) if t.term == term]


def same_values(found: list[float], values: list[float]) -> bool:
    """Whether found are values, one for one, each within half a percent (or 0.005 of a unit)."""
    return len(found) == len(values) and all(
        abs(f - v) <= 0.005 * max(abs(v), 1.0) for f, v in zip(found, values, strict=True)
    )


def assert_reads_repetition_linearly(domain: str, unit: str) -> None:
    """unit repeated to 32 KB costs well under the 64x of a quadratic reader against 4 KB of it: at most
    8 x 4 times as much CPU time (a floor of 0.02 s absorbs noise; the machine is shared)."""
    config = load_config(domain)
    term_amounts(config, "$1")  # build the folding tables outside the timing

    def cost(size: int) -> float:
        text = (unit * (size // len(unit) + 1))[:size]
        began = time.process_time()
        term_amounts(config, text)
        return time.process_time() - began

    small, large = cost(4_000), cost(32_000)
    assert large < 8 * 4 * max(small, 0.02), (small, large)
