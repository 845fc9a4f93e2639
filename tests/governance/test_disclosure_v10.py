"""The limit-disclosure check on the forms of set v9's misses (issue 14): a limit figure after "for what
it's worth" (no other cost's "worth"), a limit with a cost it includes or excludes ("14/u incl.
freight"), "the top of what we can spend"; and of set v10's misses and false alarm: an approval of ours
withheld past a figure ("hasn't approved above 95"), our reach stated without "up" ("we can go to 85",
not on a condition), our limit named by a German compound noun ("Höchstpreis"), and a deadline that
bounds its own date, not the price beside it ("... at 12.88, no later than 20 December"). One table of
wordings written for these tests (none taken from a labelled set), each with the answer it must get,
near misses that must stay silent (a third party's top, a figure far under the limit, the other side's
figure), adversarial variants of the same rows (lookalike letters, zero-width characters, fullwidth
digits, NUL) and bounded work on crafted input. The limits are the shipped configs' (salary 100,000 a
year, 85 an hour; rent 12,000 a month; 14 a unit)."""

from __future__ import annotations

import pytest

from parley.governance.config import load_config
from parley.governance.disclosure import find_disclosures

from .linear_time import assert_grows_linearly

ZW = "\u200b"

# (form, dress, domain, text, whether it discloses a private limit); dress "plain" is the wording as
# written, the others the same wording as an adversary would write it
TABLE: list[tuple[str, str, str, str, bool]] = [
    # "for what it's worth" names no other cost: the figure after it is the term's
    ("worth", "plain", "staffing", "For what it's worth, 100k is our ceiling.", True),
    ("worth", "plain", "staffing", "For what it is worth, $100,000 is as high as we go.", True),
    (
        "worth",
        "plain",
        "staffing",
        "For what it's worth, 70k is our ceiling for juniors.",
        False,
    ),  # far under
    ("worth", "plain", "staffing", "The equity is worth 100k on paper.", False),
    ("worth", "zero-width", "staffing", f"For what it's wor{ZW}th, 100k is our ceil{ZW}ing.", True),
    ("worth", "Cyrillic o", "staffing", "For what it's worth, 100k is \u043eur ceiling.", True),
    # a cost the figure includes or excludes does not take the figure
    ("modifier", "plain", "procurement", "Our max is 14/u incl. freight.", True),
    ("modifier", "plain", "procurement", "The most we can pay is $14 per unit excluding shipping.", True),
    ("modifier", "plain", "procurement", "Your quote of 14/u incl. freight is noted.", False),
    ("modifier", "fullwidth", "procurement", "Our max is １４/u incl. freight.", True),
    ("modifier", "NUL", "procurement", "Our max is 1\x004/u incl. freight.", True),
    # the top of what our side can do
    ("top of what", "plain", "procurement", "$14 a unit is the top of what we can pay.", True),
    ("top of what", "plain", "staffing", "That's the limit of what I can offer: 100k.", True),
    ("top of what", "plain", "leasing", "12,000 a month is the very top of what the client will pay.", True),
    ("top of what", "plain", "procurement", "The top of what suppliers charge is about $14 a unit.", False),
    ("top of what", "plain", "staffing", "We're at 60k, far from the top of what we can do.", False),
    ("top of what", "Cyrillic o", "procurement", "$14 a unit is the t\u043ep of what we can pay.", True),
    ("top of what", "zero-width", "leasing", f"12,{ZW}000 a month is the top of what we can pay.", True),
    # (set v10) an approval of ours withheld past a figure
    ("withheld", "plain", "staffing", "My boss hasn't signed off on anything over 98k.", True),
    ("withheld", "plain", "leasing", "The board has not approved more than 11,800 a month.", True),
    ("withheld", "plain", "procurement", "Finance hasn't cleared anything above $13.80 per unit yet.", True),
    (
        "withheld",
        "plain",
        "staffing",
        "The panel hasn't approved anything over 60k for interns.",
        False,
    ),  # far
    ("withheld", "plain", "procurement", "Your finance team hasn't approved above $13.80, you said.", False),
    ("withheld", "plain", "leasing", "The board has approved 11,800 a month.", False),  # granted, no bound
    ("withheld", "Cyrillic a", "staffing", "My boss h\u0430sn't signed off on anything over 98k.", True),
    ("withheld", "zero-width", "leasing", f"The board has not appro{ZW}ved more than 11,800 a month.", True),
    # (set v10) our reach to a figure without "up", stated rather than offered on a condition
    ("reach", "plain", "staffing", "Between us, I reckon we can go to 84 an hour.", True),
    ("reach", "plain", "procurement", "We can stretch to $13.90 a unit and no further.", True),
    ("reach", "plain", "staffing", "We could go to 84 an hour if you start in March, for discussion.", False),
    ("reach", "plain", "procurement", "We can stretch to $13.90 a unit provided you ship in May.", False),
    ("reach", "plain", "staffing", "We can go to 50 an hour.", False),  # far from 70 and 85
    ("reach", "plain", "leasing", "We can go to the site on 11 March.", False),  # no figure after the cue
    ("reach", "fullwidth", "staffing", "Between us, I reckon we can go to ８４ an hour.", True),
    ("reach", "zero-width", "procurement", f"We can stre{ZW}tch to $13.90 a unit and no further.", True),
    # (set v10) our limit named by a German compound noun
    ("German compound", "plain", "procurement", "Unser Höchstpreis beträgt 13,95 EUR pro Stück.", True),
    ("German compound", "plain", "leasing", "Unsere Mietobergrenze liegt bei 11.900 im Monat.", True),
    (
        "German compound",
        "plain",
        "procurement",
        "Ihr Höchstpreis liegt bei 13,95 EUR pro Stück.",
        False,
    ),  # theirs
    ("German compound", "ascii", "procurement", "Unser Hoechstpreis betraegt 13,95 EUR pro Stueck.", True),
    (
        "German compound",
        "Cyrillic o",
        "procurement",
        "Unser H\u00f6chstpreis betr\u00e4gt 13,95 EUR pr\u043e St\u00fcck.",
        True,
    ),
    # (set v10) a deadline bounds its date, not the price beside it
    (
        "deadline",
        "plain",
        "procurement",
        "We order 2,000 units at 13.95, delivered no later than 4 March.",
        False,
    ),
    ("deadline", "plain", "leasing", "Rent 11,900 a month, keys handed over no later than Friday.", False),
    (
        "deadline",
        "plain",
        "procurement",
        "We pay 13.95 a unit, and no later than 31/03 for the first lot.",
        False,
    ),
    ("deadline", "plain", "procurement", "We can pay 13.95 a unit, no more than that, by 4 March.", True),
    ("deadline", "plain", "leasing", "We will sign by 4 March, at 11,900 a month at the most.", True),
    (
        "deadline",
        "zero-width",
        "procurement",
        f"We order at 13.95, delivered no la{ZW}ter than 4 March.",
        False,
    ),
]


@pytest.mark.parametrize(
    ("form", "dress", "domain", "text", "discloses"),
    TABLE,
    ids=[f"{c[0]} ({c[1]}): {c[3][:36]}" for c in TABLE],
)
def test_the_forms_of_set_v9(form: str, dress: str, domain: str, text: str, discloses: bool) -> None:
    assert bool(find_disclosures(text, load_config(domain))) is discloses, (form, dress, text)


@pytest.mark.parametrize(
    ("domain", "unit"),
    [
        ("procurement", "the top of what we can spend is 14, "),
        ("staffing", "For what it's worth, 100k "),
        ("procurement", "14/u incl. freight "),
        ("procurement", "we can go to 13.90 "),
        ("procurement", "no later than 4 March at 13.90, "),
        ("staffing", "hasn't approved above 98k "),
    ],
    ids=["top-of-what", "worth", "incl", "reach", "deadline", "withheld"],
)
def test_crafted_repetitions_are_checked_in_linear_time(domain: str, unit: str) -> None:
    """8x the text (4 KB -> 32 KB) costs well under the 64x of a quadratic check (CPU time)."""
    config = load_config(domain)
    assert_grows_linearly(lambda text: find_disclosures(text, config), unit, 4_000, 8, slack=4.0)
