"""The blind sets being written for the next measurement, named once.

Tests and measuring tools that guard "the next blind sets are never read" import NEXT_BLIND from
here, so a new round changes one line instead of every guard. The names are substrings of the
sets' paths under tests/data/gaia/: a folder of drafts, messages and amounts, a folder of term
messages and a phrase bank.
"""

from __future__ import annotations

NEXT_BLIND: tuple[str, ...] = ("heldout19", "heldout_terms18", "phrase_bank_heldout19")
"""Never opened, listed or measured on until the lead's one measurement."""
