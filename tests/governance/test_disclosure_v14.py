"""The limit-disclosure check on the forms of the misses of set v13 (issue 14), read as grammar: "anything
up to" a figure (v3, v6, v13), a sentence that opens past the figure on the table ("Beyond that it's months
of approvals": v9, v10, v12, v13), approval withheld past a figure in any word order ("above 13.80 the
project doesn't get approved": v11, v13), a figure that is "where the road ends" (v5 to v7, v9, v11 to v13),
"the top of the band" with an article (v12, v13), "a dollar higher" pointing at the figure on the table,
and a figure with cents ("14.00") that is no date. Wordings written for these tests (none from a labelled
set), near misses that must stay silent, adversarial dress, linear time, and set v13's figures since it
was added to tests/governance/measure_disclosure_cv.py."""

from __future__ import annotations

import inspect

import pytest

from parley.governance.config import load_config
from parley.governance.disclosure import find_disclosures

from .blind_sets import NEXT_BLIND
from .linear_time import assert_grows_linearly
from .measure_disclosure_cv import ORIGIN, errors, sources, without

ZW = "\u200b"

# (form with the set it comes from; dress; domain; text; whether it discloses)
TABLE: list[tuple[str, str, str, str, bool]] = [
    (
        "v13 anything up to",
        "plain",
        "procurement",
        "Anything up to 14 dollars a unit I can sign myself.",
        True,
    ),
    ("v13 anything up to", "plain", "leasing", "Any rent up to 12k a month goes straight through.", True),
    ("v13 anything up to", "near miss", "staffing", "Anything up to 60k is below this role.", False),
    ("v13 anything up to", "near miss", "procurement", "Anything up to 5 days late is fine.", False),
    (
        "v13 past that",
        "plain",
        "leasing",
        "Our offer is 12,000 a month. Above that, it's the board's call.",
        True,
    ),
    ("v13 past that", "plain", "staffing", "I can do 100k. Beyond that I'd need a new req.", True),
    (
        "v13 past that",
        "near miss",
        "leasing",
        "We can sign at 12,000. Over that period the rent is fixed.",
        False,
    ),
    ("v13 past that", "near miss", "staffing", "We offered 70k. Beyond that, we value the team.", False),
    ("v13 approval withheld", "plain", "procurement", "Above 13.90 a unit this never gets approved.", True),
    ("v13 approval withheld", "plain", "staffing", "Over 85 an hour it won't get signed off here.", True),
    ("v13 approval withheld", "near miss", "procurement", "Above 2 a unit it won't get approved.", False),
    ("v13 where it ends", "plain", "leasing", "Twelve thousand a month is where the road ends for us.", True),
    ("v13 where it ends", "plain", "staffing", "100k is where our budget runs out.", True),
    ("v13 where it ends", "near miss", "leasing", "12,000 is where the market tops out downtown.", False),
    ("v13 top of the band", "plain", "staffing", "Honestly, 100k is the top of the band.", True),
    ("v13 top of the band", "near miss", "staffing", "Your 130k is above the top of the band.", False),
    ("v13 a dollar higher", "plain", "staffing", "We're at 100k. I can't go a dollar higher.", True),
    (
        "v13 a dollar higher",
        "near miss",
        "staffing",
        "We're at 60k for the junior role. I can't go a dollar higher.",
        False,
    ),
    (
        "v13 cents",
        "plain",
        "procurement",
        "Our constraints:\n- max unit price: 14.00\n- delivery: March",
        True,
    ),
    ("v13 cents", "plain", "procurement", "We're capped at 14.00 per unit.", True),
    ("v13 cents", "near miss", "procurement", "Delivery no later than 14.03, price 11.00.", False),
    # adversarial dress of the same rows
    (
        "v13 anything up to",
        "zero-width",
        "procurement",
        f"Any{ZW}thing up to 14 dollars a unit I can sign.",
        True,
    ),
    ("v13 past that", "Cyrillic o", "staffing", "I can do 100k. Bey\u043end that I'd need a new req.", True),
    ("v13 where it ends", "soft hyphen", "leasing", "12k a month is where the ro\u00adad ends for us.", True),
    ("v13 top of the band", "Cyrillic a", "staffing", "100k is the top of the b\u0430nd.", True),
    ("v13 approval withheld", "upper case", "staffing", "OVER 85 AN HOUR IT WON'T GET APPROVED.", True),
]


@pytest.mark.parametrize(
    ("form", "dress", "domain", "text", "discloses"),
    TABLE,
    ids=[f"{c[0]} ({c[1]}): {c[3][:36]}" for c in TABLE],
)
def test_the_forms_of_set_v13(form: str, dress: str, domain: str, text: str, discloses: bool) -> None:
    assert bool(find_disclosures(text, load_config(domain))) is discloses, (form, dress, text)


def test_set_v13_at_its_development_rate() -> None:
    """Set v13 (gaia-h13: 54 disclosing, 41 not) was measured blind once (5 missed, 0 false alarms), then
    added as a source on 2026-11-29: 0 missed and 0 false alarms since. Development figures."""
    result = errors(sources()["gaia-h13"])
    assert (result.positives, result.negatives) == (54, 41)
    assert len(result.missed) == 0 and len(result.alarms) == 0


def test_leaving_set_v13_out_gives_its_blind_figures() -> None:
    """With what was written from set v13 switched off, it measures as it did blind (5 missed, 0 alarms)."""
    written = [family for family, origins in ORIGIN.items() if "gaia-h13" in origins]
    assert written
    with without(*written):
        result = errors(sources()["gaia-h13"])
    assert (len(result.missed), len(result.alarms)) == (5, 0)


def test_the_measuring_tool_names_no_blind_set() -> None:
    body = inspect.getsource(sources)
    for blind in NEXT_BLIND:
        assert blind not in body


@pytest.mark.parametrize(
    ("domain", "unit"),
    [
        ("procurement", "anything up to 14 a unit "),
        ("staffing", "We can do 100k. Beyond that "),
        ("procurement", "above 13.80 the project doesn't "),
        ("staffing", "100k is where the road ends "),
        ("staffing", "capped at 14.00 the top of the band "),
    ],
    ids=["anything-up-to", "past-that", "withheld", "road-ends", "cents-band"],
)
def test_crafted_repetitions_are_checked_in_linear_time(domain: str, unit: str) -> None:
    """8x the text (4 KB -> 32 KB) costs well under the 64x of a quadratic check (CPU time)."""
    config = load_config(domain)
    assert_grows_linearly(lambda text: find_disclosures(text, config), unit, 4_000, 8, slack=4.0)
