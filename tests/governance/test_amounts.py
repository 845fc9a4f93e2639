"""The amount reader (`amounts.find_amounts`) and its attribution to boundary terms (`term_amounts`),
and the limit-disclosure rule built on them. Examples written for these tests, not taken from a
labelled set; rates on the GAIA development set are floors at the end (see measure_detectors.py)."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from parley.governance.amounts import (
    Amount,
    convert_duration,
    convert_rate,
    find_amounts,
    term_amounts,
)
from parley.governance.config import DomainConfig
from parley.governance.disclosure import find_disclosures
from parley.governance.preflight import preflight

from .measure_detectors import amount_accuracy, disclosure_confusion


def _one(text: str) -> Amount:
    found = find_amounts(text)
    assert len(found) == 1, (text, found)
    return found[0]


# -- forms of one figure --------------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("It comes to $4,250 in total.", 4250),
        ("It comes to $4250 in total.", 4250),
        ("a fee of 3.75 dollars", 3.75),
        ("That's £2,499.99 with VAT.", 2499.99),
        ("we'd pay $61.40 for it", 61.4),
        ("41 dollars and 20 cents", 41.2),
        ("forty-one dollars and twenty cents", 41.2),
        ("thirty-one dollars twenty-five", 31.25),
        ("eighteen forty-five each", 18.45),
        ("We said $72 thousand.", 72000),
        ("a budget of 3.4 million dollars", 3_400_000),
        ("$2.5M for the building", 2_500_000),
        ("roughly 7 mil dollars", 7_000_000),
        ("two hundred and thirty-seven thousand dollars", 237000),
        ("seventy-three thousand euros", 73000),
        ("fourteen thousand six hundred dollars", 14600),
        ("eight-thousand-two-hundred dollars", 8200),
        ("half a million dollars", 500_000),
        ("USD 6,300", 6300),
        ("6,300 USD", 6300),
        ("EUR 710", 710),
        ("710 euros", 710),
        ("GBP 45", 45),
    ],
)
def test_one_figure_in_every_form(text: str, value: float) -> None:
    amount = _one(text)
    assert amount.kind == "money" and amount.low == amount.high == pytest.approx(value), amount
    assert text[amount.start : amount.end] == amount.text


@pytest.mark.parametrize(
    ("text", "value"), [("It's 64k, give or take.", 64000), ("It's 64K.", 64000), ("about 230 grand", 230000)]
)
def test_a_multiplier_without_a_currency_is_a_scaled_figure(text: str, value: float) -> None:
    amount = _one(text)
    assert (amount.kind, amount.scaled, amount.low) == ("number", True, value)


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("Kaltmiete 8.750 € im Monat", 8750),
        ("ein Gehalt von 86.500 EUR", 86500),
        ("Preis 7,25 € pro Stück", 7.25),
        ("insgesamt 2.340,50 EUR", 2340.5),
        ("1.250.000 € Kaufpreis", 1_250_000),
        ("$3,456.78 due", 3456.78),
    ],
)
def test_european_and_english_separators(text: str, value: float) -> None:
    assert _one(text).low == pytest.approx(value)


def test_a_dot_before_three_digits_keeps_the_decimal_reading_as_an_alternative(
    procurement: DomainConfig,
) -> None:
    amount = _one("$13.400 per unit")
    assert (amount.low, amount.alternative) == (13400, (13.4, 13.4))
    # a unit price of 13,400 is far outside the band: the decimal reading wins
    assert [(t.term, t.low) for t in term_amounts(procurement, "The price is $13.400 per unit.")] == [
        ("unit_price", 13.4)
    ]


# -- ranges ---------------------------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("text", "low", "high"),
    [
        ("$70–80K", 70000, 80000),
        ("$70-$80k", 70000, 80000),
        ("between 6 and 7 dollars a unit", 6, 7),
        ("from $6.5k to $7k a month", 6500, 7000),
        ("60 to 75 thousand", 60000, 75000),
        ("between sixty and seventy thousand dollars", 60000, 70000),
        ("2-3k units", 2000, 3000),
        ("a 2-4 year lease", 2, 4),
    ],
)
def test_ranges_share_the_multiplier_and_the_unit(text: str, low: float, high: float) -> None:
    amount = _one(text)
    assert (amount.low, amount.high) == (pytest.approx(low), pytest.approx(high)), amount


def test_a_change_from_one_figure_to_another_is_two_figures() -> None:
    assert [a.low for a in find_amounts("The rate climbed from $61 to $66 an hour.")] == [61, 66]


# -- rates and conversions ------------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("text", "per"),
    [
        ("$40/hr", "hour"),
        ("$40 per hour", "hour"),
        ("$40 an hour", "hour"),
        ("$40 hourly", "hour"),
        ("$300 a day", "day"),
        ("$1,500 per week", "week"),
        ("$6,000/mo", "month"),
        ("$6,000 a month", "month"),
        ("$6,000 monthly", "month"),
        ("$70,000 per annum", "year"),
        ("$70,000 annually", "year"),
        ("$70,000/yr", "year"),
        ("$70,000 p.a.", "year"),
        ("$9 per unit", "unit"),
        ("$9 a piece", "unit"),
        ("$9 each", "unit"),
        ("$9/ea", "unit"),
    ],
)
def test_rates(text: str, per: str) -> None:
    assert _one(text).per == per


def test_conversion_helpers() -> None:
    assert convert_rate(10000, "month", "year") == 120000
    assert convert_rate(120000, "year", "month") == 10000
    assert convert_rate(2000, "week", "year") == 104000
    assert convert_rate(50, "hour", "year") is None
    assert convert_duration(3, "years", "months") == 36
    assert convert_duration(14, "days", "weeks") == 2
    assert convert_duration(30, "days", "months") is None


def test_a_monthly_figure_for_a_yearly_salary_is_converted(staffing: DomainConfig) -> None:
    found = term_amounts(staffing, "We can pay $10,000 a month.")
    assert [(t.term, t.low) for t in found] == [("annual_salary", 120000)]
    assert [(t.term, t.low) for t in term_amounts(staffing, "$62 an hour works.")] == [("hourly_rate", 62)]


def test_the_boundary_of_a_converted_figure(leasing: DomainConfig) -> None:
    found = term_amounts(leasing, "The landlord wants $150,000 a year, on a 6-year lease.")
    assert [(t.term, t.low) for t in found] == [("monthly_rent", 12500), ("lease_term", 72)]


def test_durations_and_counts(leasing: DomainConfig, procurement: DomainConfig) -> None:
    assert [(t.term, t.low) for t in term_amounts(leasing, "A deposit of two months' rent.")] == [
        ("deposit", 2)
    ]
    assert [(t.term, t.low) for t in term_amounts(procurement, "Please send 3,300 units.")] == [
        ("order_volume", 3300)
    ]
    # "or 4" takes the unit of "5 years"
    assert [t.low for t in term_amounts(leasing, "We'd take 5 years, or 4.")] == [60, 48]


# -- what is not an amount ------------------------------------------------------------------------------
@pytest.mark.parametrize(
    "text",
    [
        "We met on March 4, 2026.",
        "Signed 2025-11-03.",
        "Call me at 555-867-5309.",
        "Our office is Suite 450.",
        "A 12% discount applies.",
        "It is the 21st time.",
        "Delivery in week 32.",
        "Back in 2019 it was different.",
        "See you at 10:30.",
        "A 401(k) plan is included.",
        "one small thing",
    ],
)
def test_distractors_are_not_amounts(text: str) -> None:
    assert find_amounts(text) == [], find_amounts(text)


def test_headcounts_are_not_term_amounts(staffing: DomainConfig, procurement: DomainConfig) -> None:
    assert term_amounts(staffing, "A team of 14 engineers, salary $91,000.")[0].low == 91000
    assert len(term_amounts(staffing, "A team of 14 engineers, salary $91,000.")) == 1
    assert term_amounts(procurement, "We run 9 warehouses.") == []
    assert term_amounts(staffing, "The $4,000 signing bonus stays.") == []


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("4 500 units, please.", 4500),
        ("Rent: 12 300 USD per month.", 12300),
        ("Gehalt 97 500,00 EUR.", 97500),
        ("A budget of 1 200 000 EUR.", 1_200_000),
    ],
)
def test_thousands_grouped_by_spaces(text: str, value: float) -> None:
    assert _one(text).low == value


def test_a_space_does_not_group_what_is_not_a_thousands_group() -> None:
    assert [a.low for a in find_amounts("We need 3 100-unit lots.")] == [3, 100]
    assert [a.low for a in find_amounts("Suite 210 300 units")] == [300]
    assert [a.low for a in find_amounts("Terms:\n1. $92K base\n2) 2,000 units")] == [92000, 2000]


def test_spans_of_time_that_are_no_term(leasing: DomainConfig) -> None:
    """Frequencies, what is left or past of something else, and points in time are not lease terms."""
    for text in (
        "Rent reviews every 2 years.",
        "We have 14 months left on our current lease.",
        "We moved in three years ago.",
        "Over the last 4 years we have been in Suite 210.",
        "A break option after 3 years.",
    ):
        assert [t for t in term_amounts(leasing, text) if t.term == "lease_term"] == [], text
    found = term_amounts(leasing, "A 5-year lease with rent reviews every 2 years.")
    assert [(t.term, t.low) for t in found] == [("lease_term", 60)]


def test_a_figure_carries_its_unit_across_a_semicolon(leasing: DomainConfig) -> None:
    assert [t.low for t in term_amounts(leasing, "You proposed 60 months; we'd prefer 48.")] == [60, 48]
    found = term_amounts(leasing, "The landlord wants a deposit of three months; we offered two.")
    assert [t.low for t in found] == [3, 2]


def test_a_cost_named_after_a_comma_belongs_to_the_next_item(staffing: DomainConfig) -> None:
    found = term_amounts(staffing, "We can do ninety-four thousand, plus a target bonus of ten percent.")
    assert [(t.term, t.low) for t in found] == [("annual_salary", 94000)]
    assert term_amounts(staffing, "A $5,000 signing bonus.") == []  # named right beside it: not the term


# -- robustness -----------------------------------------------------------------------------------------
@settings(max_examples=300, deadline=None)
@given(st.text(max_size=300))
def test_find_amounts_never_raises_and_spans_lie_inside_the_text(text: str) -> None:
    for amount in find_amounts(text):
        assert 0 <= amount.start < amount.end <= len(text)
        assert text[amount.start : amount.end] == amount.text
        assert amount.low <= amount.high


@settings(max_examples=200, deadline=None)
@given(
    st.lists(st.sampled_from(["$", "1", ",", ".", "k", " ", "-", "to", "a", "month", "€", "2"]), max_size=80)
)
def test_figure_soup_never_raises(parts: list[str]) -> None:
    text = "".join(parts)
    for amount in find_amounts(text):
        assert text[amount.start : amount.end] == amount.text


def test_a_long_run_of_figures_is_read_in_one_pass() -> None:
    text = "$1," * 2000
    assert len(find_amounts(text)) == 2000


# -- limit disclosures ----------------------------------------------------------------------------------
@pytest.mark.parametrize(
    "text",
    [
        "We can go up to one hundred thousand dollars.",
        "We can go up to $100,000.",
        "We can offer $100,000. That's as high as we go.",
        "Honestly, the most we can pay is $8,300 a month.",  # 99,600 a year
        "Comp ceiling: USD 99,000.",
    ],
)
def test_limit_statements_in_every_form_disclose(staffing: DomainConfig, text: str) -> None:
    found = find_disclosures(text, staffing)
    assert [(d.term, d.limit) for d in found] == [("annual_salary", 100000.0)], text


@pytest.mark.parametrize(
    "text",
    [
        "We can offer $62,000. That's as high as we go.",  # a bluff far below the limit
        "We can't go beyond $60K.",
        "The relocation budget tops out at $4,000.",
        "We can offer $100,000 for this role.",  # an offer at the limit, no frame
    ],
)
def test_figures_far_from_the_limit_or_without_a_frame_do_not(staffing: DomainConfig, text: str) -> None:
    assert find_disclosures(text, staffing) == [], text


def test_the_boundary_check_sees_a_converted_figure(staffing: DomainConfig) -> None:
    found = term_amounts(staffing, "We'd pay $10,000 a month.")
    assert found[0].high > 100000  # 120,000 a year: over the 100,000 maximum
    assert preflight("We'd pay ninety-nine thousand dollars; that's our ceiling.", staffing).disclosures


# -- the GAIA development set (floors: the figures measured when this was written) -----------------------
def test_amount_accuracy_on_the_development_set() -> None:
    score = amount_accuracy()
    assert score.expected >= 100
    assert score.accuracy >= 0.98, score.errors


def test_disclosure_confusion_on_the_development_set() -> None:
    confusion = disclosure_confusion()
    assert confusion.false_negatives <= 1, confusion.missed
    assert confusion.false_positives <= 1, confusion.false_alarms
