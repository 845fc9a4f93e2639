"""Round 19b of the amount reader (issue 14): two more error forms the recent writers share.

- The spoken salary "one twenty" with no move word before it, before "if" or "for", after where a side
  stands ("we're at one ten") or before a verb ("one twenty works for me"): sets v12, v14, v15 and v16
  (`_SPOKEN_FIGURES`, `spoken_figures` in the measure's --ablation).
- A salary range in bare thousands after a pay band ("The band for this level is 110 to 125"): sets v13
  and v15; writers of sets v5-v16 name a salary's band so (`_PAY_BAND_WORDS`, `pay_band_words`).
- A sum for one whole period ("84k flat for the year", "Rent for the whole year is $84,000"): sets v11
  and v14 (`_WHOLE_PERIOD_SUMS`, `whole_period_sums`).
- Hours named before the pay they are for ("10-hour shifts at $600 per shift", "4 hours at $300"): sets
  v12 and v15 (`_HOURS_BEFORE_PAY`, `hours_before_pay`).
- A bare sum the deposit names right after it ("6,600 deposit"), as "$12,000 deposit" does with its
  currency: set v15 (`_NAMED_AFTER_REACH`, `named_after`).

The sentences here were written for these tests, not copied from the sets; each failed before its change
(switched off) and passes after it, and the near-misses (a time, a headcount, a percentage, a competing
offer's figure, a date, an option year) stay as they were with the changes on and off.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest

import parley.governance.amounts as amounts_module
from parley.governance.amounts import term_amounts
from parley.governance.config import load_config

from .blind_sets import NEXT_BLIND


def _values(domain: str, term: str, text: str) -> list[tuple[float, float]]:
    config = load_config(domain)
    return [(round(a.low, 6), round(a.high, 6)) for a in term_amounts(config, text) if a.term == term]


def _salaries(text: str) -> list[tuple[float, float]]:
    return _values("staffing", "annual_salary", text)


@pytest.fixture
def spoken_off() -> Iterator[None]:
    saved = amounts_module._SPOKEN_FIGURES  # pyright: ignore[reportPrivateUsage]
    amounts_module._SPOKEN_FIGURES = False  # pyright: ignore[reportPrivateUsage]
    try:
        yield
    finally:
        amounts_module._SPOKEN_FIGURES = saved  # pyright: ignore[reportPrivateUsage]


@pytest.fixture
def band_off() -> Iterator[None]:
    saved = amounts_module._PAY_BAND_WORDS  # pyright: ignore[reportPrivateUsage]
    amounts_module._PAY_BAND_WORDS = False  # pyright: ignore[reportPrivateUsage]
    try:
        yield
    finally:
        amounts_module._PAY_BAND_WORDS = saved  # pyright: ignore[reportPrivateUsage]


SPOKEN = [
    ("Frankly I'd sign for one twenty if the title says senior.", [(120000.0, 120000.0)]),
    (
        "My number is around one thirty, perhaps one thirty-five for a lead role.",
        [(130000.0, 130000.0), (135000.0, 135000.0)],
    ),
    ("He wants one forty; we're at one twenty-five.", [(140000.0, 140000.0), (125000.0, 125000.0)]),
    ("Anything above one fifteen sounds fine to me.", [(115000.0, 115000.0)]),
]


@pytest.mark.parametrize(("text", "expected"), SPOKEN)
def test_a_spoken_salary_without_a_move_word_is_read(text: str, expected: list[tuple[float, float]]) -> None:
    assert _salaries(text) == expected


@pytest.mark.parametrize(("text", "expected"), SPOKEN)
def test_the_spoken_salaries_failed_before(
    text: str, expected: list[tuple[float, float]], spoken_off: None
) -> None:
    assert _salaries(text) != expected


BANDS = [
    ("The band for the role runs 140 to 150.", [(140000.0, 150000.0)]),
    ("Band at this grade: 98 to 104.", [(98000.0, 104000.0)]),
]


@pytest.mark.parametrize(("text", "expected"), BANDS)
def test_a_band_in_bare_thousands_is_a_salary(text: str, expected: list[tuple[float, float]]) -> None:
    assert _salaries(text) == expected


@pytest.mark.parametrize(("text", "expected"), BANDS)
def test_the_bands_failed_before(text: str, expected: list[tuple[float, float]], band_off: None) -> None:
    assert _salaries(text) != expected


@pytest.fixture
def whole_off() -> Iterator[None]:
    saved = amounts_module._WHOLE_PERIOD_SUMS  # pyright: ignore[reportPrivateUsage]
    amounts_module._WHOLE_PERIOD_SUMS = False  # pyright: ignore[reportPrivateUsage]
    try:
        yield
    finally:
        amounts_module._WHOLE_PERIOD_SUMS = saved  # pyright: ignore[reportPrivateUsage]


@pytest.fixture
def hours_off() -> Iterator[None]:
    saved = amounts_module._HOURS_BEFORE_PAY  # pyright: ignore[reportPrivateUsage]
    amounts_module._HOURS_BEFORE_PAY = False  # pyright: ignore[reportPrivateUsage]
    try:
        yield
    finally:
        amounts_module._HOURS_BEFORE_PAY = saved  # pyright: ignore[reportPrivateUsage]


WHOLE_PERIODS = [
    ("Rent is 7,200 a month, or 86.4k flat for the year.", [(7200.0, 7200.0), (7200.0, 7200.0)]),
    ("Rent: $96,000 for the full year.", [(8000.0, 8000.0)]),
    ("Total for the year: $90,000 in rent.", [(7500.0, 7500.0)]),
    ("We'd take 27,000 for the whole quarter.", [(9000.0, 9000.0)]),
]


@pytest.mark.parametrize(("text", "expected"), WHOLE_PERIODS)
def test_a_sum_for_a_whole_period_is_converted(text: str, expected: list[tuple[float, float]]) -> None:
    assert _values("leasing", "monthly_rent", text) == expected


@pytest.mark.parametrize(("text", "expected"), WHOLE_PERIODS)
def test_the_whole_period_sums_failed_before(
    text: str, expected: list[tuple[float, float]], whole_off: None
) -> None:
    assert _values("leasing", "monthly_rent", text) != expected


HOURS_BEFORE = [
    ("Nine-hour shifts at $720 per shift.", [(80.0, 80.0)]),
    ("A short day is 5 hours at $400.", [(80.0, 80.0)]),
]


@pytest.mark.parametrize(("text", "expected"), HOURS_BEFORE)
def test_hours_before_the_pay_divide_it(text: str, expected: list[tuple[float, float]]) -> None:
    assert _values("staffing", "hourly_rate", text) == expected


@pytest.mark.parametrize(("text", "expected"), HOURS_BEFORE)
def test_the_hours_before_failed_before(
    text: str, expected: list[tuple[float, float]], hours_off: None
) -> None:
    assert _values("staffing", "hourly_rate", text) != expected


@pytest.fixture
def named_after_off() -> Iterator[None]:
    saved = amounts_module._NAMED_AFTER_REACH  # pyright: ignore[reportPrivateUsage]
    amounts_module._NAMED_AFTER_REACH = 0  # pyright: ignore[reportPrivateUsage]
    try:
        yield
    finally:
        amounts_module._NAMED_AFTER_REACH = saved  # pyright: ignore[reportPrivateUsage]


DEPOSITS_AFTER = [
    ("Rent 2,800 a month and 8,400 deposit.", [(3.0, 3.0)]),
    ("Monthly rent 5,000; 7,500 security deposit.", [(1.5, 1.5)]),
]


@pytest.mark.parametrize(("text", "expected"), DEPOSITS_AFTER)
def test_a_bare_sum_the_deposit_names_after_it(text: str, expected: list[tuple[float, float]]) -> None:
    assert _values("leasing", "deposit", text) == expected


@pytest.mark.parametrize(("text", "expected"), DEPOSITS_AFTER)
def test_the_deposits_after_failed_before(
    text: str, expected: list[tuple[float, float]], named_after_off: None
) -> None:
    assert _values("leasing", "deposit", text) != expected


NEAR_MISSES = [
    # a time: "at" after no side's stand
    ("staffing", "annual_salary", "The interview is at one fifteen if that suits.", []),
    # a headcount: "one twenty" counting people
    ("staffing", "annual_salary", "The team is one twenty strong.", []),
    ("staffing", "annual_salary", "There are 120 people in the band.", []),
    # a percentage
    ("staffing", "annual_salary", "Raises in the band are 5% this year.", []),
    # a date beside a band
    ("staffing", "annual_salary", "The band review is on 1.4.2027.", []),
    # a single figure after a band is no range a band names: it stays unread (the disclosure check holds it)
    ("staffing", "annual_salary", "The band ends at 100.", []),
    # a band of another money term names that term
    ("staffing", "annual_salary", "The hourly band is 90 to 110.", []),
    ("staffing", "hourly_rate", "The hourly band is 90 to 110.", [(90.0, 110.0)]),
    # a competing supplier's figure stays the price it was
    (
        "procurement",
        "unit_price",
        "The other vendor quoted $4.10 per unit for one twenty day delivery.",
        [(4.1, 4.1)],
    ),
    # an option year is no term
    ("leasing", "lease_term", "Term: 5 years with an option to renew in year 3.", [(60.0, 60.0)]),
    # a month's rent for a year's term: "for a year" after the sum names the term, not the sum's period
    ("leasing", "monthly_rent", "Rent 7,000 for a year, then we review.", [(7000.0, 7000.0)]),
    ("leasing", "monthly_rent", "Lease for a year: rent 7,000.", [(7000.0, 7000.0)]),
    ("leasing", "monthly_rent", "Rent: 7,000 a month for the year.", [(7000.0, 7000.0)]),
    # a year as a date after a whole period
    ("leasing", "monthly_rent", "Rent is $7,000 a month for the year 2027.", [(7000.0, 7000.0)]),
    # an hourly rate after its hours stays as written
    ("staffing", "hourly_rate", "8 hours at $78.", [(78.0, 78.0)]),
    ("staffing", "hourly_rate", "Invoice covers 160 hours at 84 dollars an hour.", [(84.0, 84.0)]),
    # a year before "deposit" is a date, not a sum
    ("leasing", "deposit", "Rent 2,500 a month; 2027 deposit rules apply.", []),
]


@pytest.mark.parametrize(("domain", "term", "text", "expected"), NEAR_MISSES)
def test_near_misses_stay_as_they_were(
    domain: str, term: str, text: str, expected: list[tuple[float, float]]
) -> None:
    assert _values(domain, term, text) == expected


@pytest.mark.parametrize(("domain", "term", "text", "expected"), NEAR_MISSES)
def test_near_misses_were_the_same_before(
    domain: str,
    term: str,
    text: str,
    expected: list[tuple[float, float]],
    spoken_off: None,
    band_off: None,
    whole_off: None,
    hours_off: None,
    named_after_off: None,
) -> None:
    assert _values(domain, term, text) == expected


def test_the_scan_of_a_long_run_of_spoken_words_is_bounded() -> None:
    text = "one twenty " * 5000 + "if"
    assert len(_salaries(text)) <= 5001


def test_the_measure_never_reads_the_next_blind_sets() -> None:
    from .measure_amounts_cv import ABLATIONS, SOURCES

    assert not set(SOURCES) & set(NEXT_BLIND)
    assert {"spoken_figures", "pay_band_words", "whole_period_sums", "hours_before_pay"} <= set(ABLATIONS)
