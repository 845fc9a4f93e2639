"""Checks shared by the amount reader's form tests (test_amounts_v7.py onward): the figures a text
states for one term, and whether they are the labelled ones."""

from __future__ import annotations

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
