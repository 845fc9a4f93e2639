"""The limit-disclosure check on the forms of set v8's misses (issue 14): a cue that names its owner
after a word of the other side ("we'll meet you at our maximum"), a limit spelled with "US dollars", a
limit grouped by spaces before "/yr". One table of wordings written for these tests (none taken from a
labelled set) with the answer each must get, adversarial variants of it (lookalike letters, zero-width
characters, fullwidth digits, NUL), and bounded work on crafted input. The limits are the shipped
configs' (salary 100,000 a year, 85 an hour; rent 12,000 a month; 14 a unit)."""

from __future__ import annotations

import pytest

from parley.governance.config import load_config
from parley.governance.disclosure import find_disclosures

from .linear_time import assert_grows_linearly

# (form, domain, text, whether it discloses a private limit)
TABLE: list[tuple[str, str, str, bool]] = [
    # the cue names its owner: ours, whatever word of the other side stands before it
    ("owner in the cue", "procurement", "OK, we'll match you at our maximum: 14.00 per unit.", True),
    ("owner in the cue", "leasing", "We can meet you at my absolute max, 12,000 a month.", True),
    ("owner in the cue", "staffing", "Happy to meet you at our maximum of $100,000.", True),
    # the other side's maximum stays theirs; ours far from the limit says nothing of it
    ("owner in the cue", "procurement", "We can meet you at your maximum of 14.00 per unit.", False),
    ("owner in the cue", "procurement", "We'll meet you at our maximum order size of 3,000 units.", False),
    # a limit spelled with "US dollars"
    ("US dollars", "procurement", "Our ceiling is fourteen US dollars a unit.", True),
    ("US dollars", "staffing", "The most we can pay is eighty-five US dollars an hour.", True),
    ("US dollars", "procurement", "Your quote was fourteen US dollars a unit.", False),
    # a limit grouped by spaces before a rate's slash
    ("grouped", "staffing", "we can't go past 100 000/yr, that's the most I'm cleared for", True),
    ("grouped", "leasing", "12 000/mo is as high as we go", True),
    ("grouped", "staffing", "The market pays 100 000/yr for this role.", False),
]


@pytest.mark.parametrize(
    ("form", "domain", "text", "discloses"), TABLE, ids=[f"{c[0]}: {c[2][:36]}" for c in TABLE]
)
def test_the_forms_of_set_v8(form: str, domain: str, text: str, discloses: bool) -> None:
    assert bool(find_disclosures(text, load_config(domain))) is discloses, (form, text)


ZW = "\u200b"
ADVERSARIAL: list[tuple[str, str, str, bool]] = [
    ("zero-width", "procurement", f"OK, we'll match you at o{ZW}ur maxi{ZW}mum: 14.00 per unit.", True),
    ("Cyrillic o", "procurement", "OK, we'll match you at \u043eur maximum: 14.00 per unit.", True),
    ("fullwidth", "leasing", "１２ ０００/mo is as high as we go", True),
    ("NUL", "staffing", "we can't go past 100\x00 000/yr, that's the most I'm cleared for", True),
    ("zero-width", "procurement", f"Our ceiling is four{ZW}teen US dol{ZW}lars a unit.", True),
    ("fullwidth", "staffing", "The market pays １００ ０００/yr for this role.", False),
]


@pytest.mark.parametrize(
    ("dress", "domain", "text", "discloses"), ADVERSARIAL, ids=[c[0] for c in ADVERSARIAL]
)
def test_adversarial_variants_get_the_plain_answer(
    dress: str, domain: str, text: str, discloses: bool
) -> None:
    assert bool(find_disclosures(text, load_config(domain))) is discloses, (dress, text)


@pytest.mark.parametrize(
    ("domain", "unit"),
    [
        ("procurement", "we'll meet you at our maximum: 14.00 per unit. "),
        ("staffing", "100 000/yr "),
        ("procurement", "fourteen US dollars "),
    ],
    ids=["owner", "grouped", "us-dollars"],
)
def test_crafted_repetitions_are_checked_in_linear_time(domain: str, unit: str) -> None:
    """8x the text (4 KB -> 32 KB) costs well under the 64x of a quadratic check (CPU time)."""
    config = load_config(domain)
    assert_grows_linearly(lambda text: find_disclosures(text, config), unit, 4_000, 8, slack=4.0)
