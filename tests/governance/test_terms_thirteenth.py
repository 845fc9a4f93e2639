"""Terms written without a figure that the term reader learnt in its thirteenth round (issue 17).

Each form recurs across writers; the spent term sets it was seen in are named beside it (ht2 =
heldout_terms2, ...). The sentences below are written for these tests (none is copied from a labelled
set), and each form has near misses of the same shape that must read otherwise.

- a date said by an anchor, resolved against today: a weekday counted in a month ("the first Monday in
  January", "the first business day of February") (ht5, ht6, ht7, ht11), a span from today or a
  weekday ("two weeks from today", "two weeks from Monday"; not "from signing") (ht2, ht11), a weekday
  after a fixed holiday ("the Monday after New Year's") (ht11; the same anchor grammar);
- a start or a move-in named in German, French or Spanish ("Startdatum", "anfangt", "debut",
  "empezar", "entree", "entrar") before a date those languages write (ht7, ht9, ht11);
- a term the writer has no need of or cannot give ("he does not need relocation", "we don't need a TI
  allowance", "we can't do a relocation package", "not able to offer any equity"): 0 (ht7, ht11);
- a term's figure followed by the term's name and a verb of removal ("the 1.5% weekly penalty is
  removed"): 0 (ht8, ht9);
- an area in "feet" (or "rsf"/"usf") is square feet, so a rate "per foot" times it is the sum ("TI of
  $35 a foot on 3,000 feet") (ht2, ht11).

Derived values (the last section below):
- a yearly figure said to include lump sums stated after it ("year one is $140,000, which includes a
  $12,000 sign-on"; "135 thousand per annum inclusive of the 10 thousand joining bonus"; "165k total
  comp in year one, of which 20k can be equity") is a base of the figure less those sums (ht2, ht7,
  ht11);
- the price of the whole lot ("14 grand for the lot of 4,000", "Price for the lot is 9,750 USD for
  1,500 housings", "The whole lot of 2,500 pcs would be 13.5k") is a total, divided by the count of
  units for the unit price (ht2, ht6, ht9), but not over a count of packages ("12 boxes").
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import date

import pytest

from parley.governance.config import DomainConfig
from parley.governance.term_figures import anchored_dates, find_dates
from parley.governance.terms import TermReader, TermReading

from .linear_time import assert_reads_in_linear_time

DAY = date(2026, 11, 28)  # a Saturday


def _read(config: DomainConfig, text: str) -> TermReading:
    return TermReader(config).read(text, today=DAY)


def _matches(read: float | str, expected: float | str) -> bool:
    if isinstance(expected, str):
        return read == expected
    return isinstance(read, int | float) and abs(float(read) - expected) <= 0.005 * max(1.0, abs(expected))


# (source sets, domain, message, terms it must state with their values, terms it must not state)
FORMS: list[tuple[str, str, str, Mapping[str, float | str], tuple[str, ...]]] = [
    # -- a weekday counted in a month -------------------------------------------------------------------
    (
        "ht5,ht6,ht7,ht11",
        "staffing",
        "She could start on the first Monday in March.",
        {"start_date": "2027-03-01"},
        (),
    ),
    ("ht6,ht11", "staffing", "112k, starting the first Monday of January.", {"start_date": "2027-01-04"}, ()),
    ("ht11", "leasing", "Keys on the first business day of February.", {"move_in": "2027-02-01"}, ()),
    ("ht5,ht7", "staffing", "Start the last Friday of January, 118k.", {"start_date": "2027-01-29"}, ()),
    # near misses: a counted weekday that is no start date
    (
        "ht5,ht6,ht11",
        "staffing",
        "We send contracts out the first Monday of January; 110k base.",
        {},
        ("start_date",),
    ),
    (
        "ht11",
        "leasing",
        "The rent review is on the first Monday of March; rent 5,200 a month.",
        {},
        ("move_in",),
    ),
    # -- a span from today or a weekday -----------------------------------------------------------------
    ("ht2,ht11", "staffing", "He can start three weeks from today.", {"start_date": "2026-12-19"}, ()),
    ("ht2,ht11", "leasing", "You could move in two weeks from Monday.", {"move_in": "2026-12-14"}, ()),
    ("ht2", "staffing", "She can start two weeks from signing.", {}, ("start_date",)),
    (
        "ht2,ht11",
        "staffing",
        "I'll get back to you two weeks from today about the 105k.",
        {},
        ("start_date",),
    ),
    # -- a weekday after a fixed holiday ----------------------------------------------------------------
    ("ht11", "staffing", "I could start the Monday after New Year's.", {"start_date": "2027-01-04"}, ()),
    ("ht11", "staffing", "Happy to begin the Tuesday after Christmas.", {"start_date": "2026-12-29"}, ()),
    (
        "ht11",
        "staffing",
        "We'll decide the Monday after New Year's; base stays at 104k.",
        {},
        ("start_date",),
    ),
    # -- a start or move-in named in another language ----------------------------------------------------
    (
        "ht11",
        "staffing",
        "Puedo comenzar el 15 de marzo, con 95.000 dolares al ano.",
        {"start_date": "2027-03-15"},
        (),
    ),
    ("ht9", "staffing", "Arbeitsbeginn 1. Februar, Gehalt 98.000 USD.", {"start_date": "2027-02-01"}, ()),
    ("ht11", "staffing", "Debut possible le 11 janvier.", {"start_date": "2027-01-11"}, ()),
    ("ht7", "staffing", "Anfangen kann er am 1. April.", {"start_date": "2027-04-01"}, ()),
    ("ht7,ht11", "leasing", "Loyer 5.000 € par mois, entree le 1er avril.", {"move_in": "2027-04-01"}, ()),
    ("ht11", "leasing", "Queremos entrar el 15 de enero.", {"move_in": "2027-01-15"}, ()),
    # near miss: a foreign date with no word of a start
    ("ht11", "staffing", "Le pago el 1 de marzo, 95.000 dolares al ano.", {}, ("start_date",)),
    # -- no need of a term, or none can be given: 0 ------------------------------------------------------
    (
        "ht7,ht11",
        "staffing",
        "He doesn't need relocation; 120k base.",
        {"relocation": 0, "annual_salary": 120000},
        (),
    ),
    ("ht7", "staffing", "We are not able to offer any equity for this role.", {"equity": 0}, ()),
    ("ht7", "staffing", "We can't do a signing bonus this year.", {"signing_bonus": 0}, ()),
    ("ht11", "leasing", "We don't need a TI allowance, we'll take the space as-is.", {"ti_allowance": 0}, ()),
    # near misses: a need of something else, a figure of the term, a bound
    ("ht11", "staffing", "I don't need an answer today, relocation of 8k is fine.", {"relocation": 8000}, ()),
    ("ht11", "staffing", "We don't need the relocation paid upfront; 6k works.", {"relocation": 6000}, ()),
    ("ht11", "staffing", "I don't need to discuss equity now.", {}, ("equity",)),
    # -- a figure named for removal: 0 --------------------------------------------------------------------
    (
        "ht8,ht9",
        "procurement",
        "We accept 3.10, on condition that the 2% weekly penalty is removed.",
        {"unit_price": 3.10, "late_penalty_pct": 0},
        (),
    ),
    ("ht9", "procurement", "We need the 1% weekly late penalty removed.", {"late_penalty_pct": 0}, ()),
    # near misses: the penalty stays; another term removed
    ("ht8,ht9", "procurement", "The 2% weekly penalty stays, price 3.10.", {"late_penalty_pct": 2}, ()),
    (
        "ht8",
        "procurement",
        "A 2% weekly penalty applies; the early-payment discount is removed.",
        {"late_penalty_pct": 2},
        (),
    ),
    # -- an area in feet ------------------------------------------------------------------------------------
    (
        "ht2,ht11",
        "leasing",
        "TI of $40 per foot on 2,500 feet.",
        {"ti_allowance": 100000, "space_size": 2500},
        (),
    ),
    (
        "ht2,ht11",
        "leasing",
        "TI of $30 a foot on your 4,000 feet.",
        {"ti_allowance": 120000, "space_size": 4000},
        (),
    ),
]


def _config(
    name: str, staffing: DomainConfig, procurement: DomainConfig, leasing: DomainConfig
) -> DomainConfig:
    return {"staffing": staffing, "procurement": procurement, "leasing": leasing}[name]


@pytest.mark.parametrize(("sources", "domain", "text", "stated", "absent"), FORMS)
def test_form(
    staffing: DomainConfig,
    procurement: DomainConfig,
    leasing: DomainConfig,
    sources: str,
    domain: str,
    text: str,
    stated: Mapping[str, float | str],
    absent: tuple[str, ...],
) -> None:
    reading = _read(_config(domain, staffing, procurement, leasing), text)
    read = {s.term: s.value for s in reading.terms}
    for name, value in stated.items():
        assert name in read and _matches(read[name], value), f"{sources}: {name}={value} in {read}"
    for name in absent:
        assert name not in read, f"{sources}: {name} read in {read}"


def test_a_bound_after_a_refusal_is_no_zero(staffing: DomainConfig) -> None:
    # "can't offer a signing bonus above 10k" bounds the bonus; it does not say there is none
    reading = _read(staffing, "We can't offer a signing bonus above 10k.")
    assert all(not (s.term == "signing_bonus" and s.value == 0) for s in reading.terms)


def test_removed_figure_is_a_condition_of_none(procurement: DomainConfig) -> None:
    reading = _read(procurement, "We accept 3.10, on condition that the 2% weekly penalty is removed.")
    assert any(c.term == "late_penalty_pct" and c.value == 0 for c in reading.conditions)


def test_anchored_dates_need_today() -> None:
    assert anchored_dates("the first Monday of January", None) == []
    assert [d.value for d in find_dates("the first Monday of January", None)] == ["january"]


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("the first Monday of December", "2026-12-07"),  # later this month: this year
        ("the first Monday of November", "2027-11-01"),  # past: next year
        ("the second Wednesday of December 2027", "2027-12-08"),  # a year given is kept
        ("ten days from today", "2026-12-08"),
        ("two weeks from Monday", "2026-12-14"),
    ],
)
def test_anchors_resolve_against_today(text: str, value: str) -> None:
    assert [d.value for d in find_dates(text, DAY)] == [value]


@pytest.mark.parametrize(
    "text",
    [
        "the fifth Monday of January",  # no ordinal beyond the fourth but "last"
        "two weeks from signing",
        "the Monday after the offsite",  # no fixed holiday
        "first Monday",  # no month
    ],
)
def test_anchor_near_misses_resolve_to_nothing(text: str) -> None:
    assert not [d for d in find_dates(text, DAY) if d.value[:1].isdigit()]


def test_obfuscated_anchor_reads_like_the_plain_one(staffing: DomainConfig) -> None:
    # A zero-width space and a Cyrillic "о" are folded before the dates are read.
    reading = _read(staffing, "I could start tw\u200bо weeks from today.")
    plain = _read(staffing, "I could start two weeks from today.")
    assert {s.term: s.value for s in reading.terms} == {s.term: s.value for s in plain.terms}


@pytest.mark.parametrize(
    "unit",
    [
        "the first Monday of January, two weeks from Monday, the Monday after New Year's. ",
        "first first first second last Monday of of in ",
        "he doesn't need a the 1% weekly late penalty removed removed ",
        "two two weeks from from today weeks days from Monday ",
        "Startdatum 15. Februar entree le 1er mars empezar el 1 de marzo ",
    ],
)
def test_crafted_input_reads_in_linear_time(staffing: DomainConfig, unit: str) -> None:
    assert_reads_in_linear_time(TermReader(staffing), unit, DAY)


# -- derived values: a total less its parts, a lot's total over its count -----------------------------------
DERIVED: list[tuple[str, str, str, Mapping[str, float | str], tuple[str, ...]]] = [
    # a yearly figure that includes lump sums: the base is what remains
    (
        "ht2",
        "staffing",
        "All in, the first year is $150,000, which includes a $10,000 sign-on bonus.",
        {"annual_salary": 140000, "signing_bonus": 10000},
        (),
    ),
    (
        "ht7",
        "staffing",
        "Pay is 128 thousand per annum inclusive of the 8 thousand signing bonus.",
        {"annual_salary": 120000, "signing_bonus": 8000},
        (),
    ),
    (
        "ht11",
        "staffing",
        "I'm aiming for 150k total comp in year one, of which 15k could be equity.",
        {"annual_salary": 135000, "equity": 15000},
        (),
    ),
    (
        "ht2,ht7",
        "staffing",
        "Offer is $132,000 including a $7,000 relocation.",
        {"annual_salary": 125000},
        (),
    ),
    # near misses: the figure is the base, the parts are not money, or it is a question
    (
        "ht2,ht7",
        "staffing",
        "Base of 120k, including a 10k signing bonus.",
        {"annual_salary": 120000, "signing_bonus": 10000},
        (),
    ),
    (
        "ht2,ht7",
        "staffing",
        "We can do 118k plus benefits, including a 5k relocation.",
        {"annual_salary": 118000, "relocation": 5000},
        (),
    ),
    ("ht11", "staffing", "Is the 115 you offered inclusive of the on-call stipend?", {}, ("annual_salary",)),
    (
        "ht",
        "leasing",
        "Our best is $7,100 per month, including 8 parking stalls.",
        {"monthly_rent": 7100},
        (),
    ),
    # adversarial: parts larger than the figure, or excluded, leave the figure as stated
    (
        "ht2,ht7",
        "staffing",
        "120k, which includes a 90k signing bonus.",
        {"annual_salary": 120000},
        (),
    ),
    ("ht2,ht7", "staffing", "120k, not including the 10k bonus.", {"annual_salary": 120000}, ()),
    # the price of the whole lot over its count of units
    (
        "ht2",
        "procurement",
        "It's 9 grand for the lot of 3,000.",
        {"unit_price": 3.0, "order_volume": 3000},
        (),
    ),
    (
        "ht6",
        "procurement",
        "Price for the lot is 8,800 USD for 1,100 housings.",
        {"unit_price": 8.0, "order_volume": 1100},
        (),
    ),
    (
        "ht9",
        "procurement",
        "The whole lot of 4,000 pcs would be 22k.",
        {"unit_price": 5.5, "order_volume": 4000},
        (),
    ),
    ("ht2,ht9", "procurement", "$8,400 for the lot of 1,000.", {"unit_price": 8.4, "order_volume": 1000}, ()),
    # near misses: a count of packages, "a lot", "lots of", "per lot"
    ("ht2,ht9", "procurement", "The lot of 12 boxes would be $960.", {}, ("unit_price",)),
    ("ht2,ht9", "procurement", "$8,400 for the lot of 3 pallets.", {}, ("unit_price",)),
    ("ht2,ht6", "procurement", "We sell a lot of these; price is $4.20 each.", {"unit_price": 4.2}, ()),
    ("ht6", "procurement", "We ship in lots of 500 at $2.00 per unit.", {"unit_price": 2.0}, ()),
    # adversarial: a zero-width space inside the cue reads like the plain text
    (
        "ht2",
        "procurement",
        "It's 9 grand for the l\u200bot of 3,000.",
        {"unit_price": 3.0, "order_volume": 3000},
        (),
    ),
]


@pytest.mark.parametrize(("sources", "domain", "text", "stated", "absent"), DERIVED)
def test_derived_value(
    staffing: DomainConfig,
    procurement: DomainConfig,
    leasing: DomainConfig,
    sources: str,
    domain: str,
    text: str,
    stated: Mapping[str, float | str],
    absent: tuple[str, ...],
) -> None:
    test_form(staffing, procurement, leasing, sources, domain, text, stated, absent)


@pytest.mark.parametrize(
    ("domain", "unit"),
    [
        ("staffing", "120k, which includes including inclusive of of which a 10k bonus and 5k relo. "),
        ("staffing", "the whole lot of 1,000 would be 5k for the lot of 2,000 pcs "),
        ("procurement", "the whole lot of 2,500 pcs would be 13.5k, for the lot of 4,000 lot lot of "),
    ],
)
def test_derived_values_read_in_linear_time(
    staffing: DomainConfig, procurement: DomainConfig, leasing: DomainConfig, domain: str, unit: str
) -> None:
    assert_reads_in_linear_time(TermReader(_config(domain, staffing, procurement, leasing)), unit, DAY)
