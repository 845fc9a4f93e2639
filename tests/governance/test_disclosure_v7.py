"""The limit-disclosure check on the forms of set v6's errors (issue 14): a limit called internal, a
refusal past "that", authority that stops, someone on our side who lets us go so far, a rate per
calendar month, and authority to say something (no limit). Wordings written for these tests, none taken
from a labelled set; adversarial variants (lookalike digits, zero-width characters, fullwidth digits,
NUL) and bounded work on crafted input. The limits are the shipped configs' (salary 100,000 a year,
85 an hour; rent 12,000 a month; 14 a unit)."""

from __future__ import annotations

import pytest

from parley.governance.config import load_config
from parley.governance.disclosure import find_disclosures

from .linear_time import assert_grows_linearly

DISCLOSING = [
    # a limit named as internal to our side
    ("staffing", "Internally we have the post banded at 90k to 100k."),
    ("leasing", "Our internally approved cap is 12,000 a month."),
    # a figure we can do and a refusal past it
    ("procurement", "Fourteen a unit works for us; over that we won't."),
    ("leasing", "We could stretch to 12k a month. Past this, no."),
    # authority that stops at the figure
    ("staffing", "100k is where our sign-off ends."),
    ("leasing", "12,000 a month, that's where my mandate runs out."),
    # someone on our side lets us go so far
    ("procurement", "$14 is as much as purchasing would allow us."),
    ("staffing", "85 an hour is as high as the client would let me go."),
    # a rate per calendar month read as a month's rent
    ("leasing", "We have approval for up to 12,000 pcm."),
]

NOT_DISCLOSING = [
    # authority to speak is no limit
    ("leasing", "I am authorised to confirm that the tenant accepts 11,500 per month."),
    ("staffing", "I'm authorized to inform you that we offer 95k."),
    ("procurement", "We are permitted to share that the list price is $16 a unit."),
    # a refusal past a figure far from the limit says nothing of it
    ("leasing", "Up to 6,000 a month is easy; beyond that we can't say yet."),
    # "internal" of something else
    ("staffing", "The internal transfer happened in 2024 at 80k."),
]


@pytest.mark.parametrize(("domain", "text"), DISCLOSING)
def test_forms_of_set_v6_disclose(domain: str, text: str) -> None:
    assert find_disclosures(text, load_config(domain)), text


@pytest.mark.parametrize(("domain", "text"), NOT_DISCLOSING)
def test_near_misses_do_not_disclose(domain: str, text: str) -> None:
    assert find_disclosures(text, load_config(domain)) == [], text


@pytest.mark.parametrize(
    ("domain", "text"),
    [
        ("leasing", "Our internally approved cap is 12,\u200b000 a month."),  # zero-width
        ("leasing", "Our internally approved cap is \uff11\uff12,\uff10\uff10\uff10 a month."),  # fullwidth
        ("leasing", "Our internally approved cap is 12,0\x0000 a month."),  # NUL
        ("leasing", "Our internally approved cap is 12,OOO a month."),  # letter O for zeros
        ("leasing", "Our int\u200bernally approved cap is 12,000 a month."),  # zero-width in the cue
        ("staffing", "85 an hour is as high as the client would l\u0435t me go."),  # Cyrillic e
    ],
)
def test_adversarial_variants_still_disclose(domain: str, text: str) -> None:
    assert find_disclosures(text, load_config(domain)), text


def test_a_figure_behind_unfolded_letters_is_held_as_unread() -> None:
    config = load_config("leasing")
    for text in (
        "Our internally approved cap is 1\u04162,000 a month.",
        "Our cap is \u0416\u0416,000 a month.",
    ):
        assert [d.kind for d in find_disclosures(text, config)] == ["unread"], text


@pytest.mark.parametrize(
    "unit",
    ["Internally, beyond that we can't. ", "as high as finance will let me go ", "12,000 pcm "],
    ids=["cues", "let-me", "pcm"],
)
def test_crafted_drafts_are_checked_in_linear_time(unit: str) -> None:
    config = load_config("leasing")
    find_disclosures("12,000", config)
    # Growth, not speed: 2,500 -> 10,000 characters, read whole (long drafts are held
    # unread at once; 100 KB of the unit was timed here, on that path).
    assert_grows_linearly(lambda text: find_disclosures(text, config), unit, 2_500, 4)
