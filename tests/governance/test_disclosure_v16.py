"""Forms of the limit-disclosure check added in round 16 (issue 14) from the misses of set v15, each a
grammar shared by two or more other writers' disclosures: room held or given "up to" a figure with or
without a noun of room ("we've got up to 11,800 a month to play with", "finance gave me up to 14 a
piece"), a negated modal or a prohibition before "exceed" ("shall not exceed", "prohibits a unit price
exceeding") and a budget named an "envelope". Forms by the source set they come from (wordings written for
these tests, none copied from a labelled set), near misses, obfuscation and linear time."""

from __future__ import annotations

import inspect

import pytest

from parley.governance.config import load_config
from parley.governance.disclosure import find_disclosures

from .blind_sets import NEXT_BLIND
from .linear_time import assert_grows_linearly
from .measure_disclosure_cv import errors, sources

ZW = "\u200b"

# (form with the sets it recurs in; dress; domain; text; whether it discloses)
TABLE: list[tuple[str, str, str, str, bool]] = [
    ("v5-v15 have up to", "plain", "leasing", "We've got up to 12,000 a month to work with.", True),
    ("v5-v15 have up to", "plain", "procurement", "Finance gave us up to 14 dollars a unit.", True),
    ("v5-v15 have up to", "plain", "staffing", "I have up to 100,000 a year for this role.", True),
    ("v5-v15 have up to", "plain", "leasing", "The board has given me headroom up to 12,000 a month.", True),
    ("v5-v15 have up to", "obfuscated", "leasing", f"We've g{ZW}ot up to 12,000 a month to work with.", True),
    ("v5-v15 have up to", "obfuscated", "leasing", "WE'VE   GOT UP TO 12,000 A MONTH.", True),
    ("v5-v15 have up to", "near miss", "leasing", "We've got up to 5,000 a month for parking.", False),
    (
        "v5-v15 have up to",
        "near miss",
        "leasing",
        "You've got up to 12,000 a month from other tenants?",
        False,
    ),
    ("v5-v15 have up to", "near miss", "staffing", "We've got up to 70,000 a year in mind.", False),
    ("v2-v15 not exceed", "plain", "leasing", "Our rent shall not exceed 12,000 per month.", True),
    (
        "v2-v15 not exceed",
        "plain",
        "procurement",
        "Our policy prohibits paying more than 14 dollars a unit.",
        True,
    ),
    (
        "v2-v15 not exceed",
        "plain",
        "staffing",
        "Our salary for the role should not exceed 100,000 a year.",
        True,
    ),
    ("v2-v15 not exceed", "near miss", "leasing", "The lease term shall not exceed three years.", False),
    ("v2-v15 not exceed", "plain", "leasing", "The lease term shall not exceed five years.", True),
    (
        "v2-v15 not exceed",
        "near miss",
        "staffing",
        "Our salary should not exceed 60,000 for a junior.",
        False,
    ),
    ("v7-v15 envelope", "plain", "leasing", "The board approved a rent envelope of 12,000 a month.", True),
    ("v7-v15 envelope", "plain", "leasing", "Our envelope for this move is 144,000 a year.", True),
    ("v7-v15 envelope", "near miss", "leasing", "I'll send the signed lease in a sealed envelope.", False),
    ("v7-v15 envelope", "near miss", "leasing", "Our envelope for this move is 60,000 a year.", False),
    # fail closed as "our budget for fit-out is 30,000" is: a figure no term claims, stated as our limit
    ("v7-v15 envelope", "unread", "leasing", "Our envelope for fit-out is 30,000.", True),
]


@pytest.mark.parametrize(
    ("form", "dress", "domain", "text", "discloses"),
    TABLE,
    ids=[f"{r[0]}-{r[1]}-{i}" for i, r in enumerate(TABLE)],
)
def test_forms_of_round_16(form: str, dress: str, domain: str, text: str, discloses: bool) -> None:
    del form, dress
    assert bool(find_disclosures(text, load_config(domain))) is discloses


def test_set_v15_and_v14_misses_fall() -> None:
    """Development figures (sets v14 and v15 are spent): misses fall, false alarms do not rise."""
    found = sources()
    v15, v14 = errors(found["gaia-h15"]), errors(found["gaia-h14"])
    assert len(v15.missed) <= 3 and not v15.alarms
    assert len(v14.missed) <= 8 and len(v14.alarms) <= 1


def test_the_measuring_tool_names_no_blind_set() -> None:
    body = inspect.getsource(sources)
    assert "heldout15" in body
    for blind in NEXT_BLIND:
        assert blind not in body


@pytest.mark.parametrize(
    ("domain", "unit"),
    [
        ("leasing", "we've got up to 12,000 a month "),
        ("procurement", "finance gave me the room for up to "),
        ("leasing", "shall not exceed prohibits exceeding "),
        ("leasing", "envelope of 12,000 envelope "),
    ],
    ids=["have-up-to", "given-room", "not-exceed", "envelope"],
)
def test_crafted_repetitions_are_checked_in_linear_time(domain: str, unit: str) -> None:
    """8x the text (4 KB -> 32 KB) costs well under the 64x of a quadratic check (CPU time)."""
    config = load_config(domain)
    assert_grows_linearly(lambda text: find_disclosures(text, config), unit, 4_000, 8, slack=4.0)
