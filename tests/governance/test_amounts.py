"""The amount reader (`amounts.find_amounts`) and its attribution to boundary terms (`term_amounts`),
and the limit-disclosure rule built on them. Examples written for these tests, not taken from a
labelled set; rates on the GAIA development set are floors at the end (see measure_detectors.py)."""

from __future__ import annotations

import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from parley.governance.amount_text import fold
from parley.governance.amounts import (
    ONES_WORDS,
    TENS_WORDS,
    Amount,
    convert_duration,
    convert_rate,
    find_amounts,
    term_amounts,
)
from parley.governance.config import DomainConfig
from parley.governance.disclosure import find_disclosures
from parley.governance.preflight import preflight

from .linear_time import assert_grows_linearly
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


# == issue 14: every form, read by its grammar (examples written for these tests) =========================
def _values(config: DomainConfig, text: str, term: str) -> list[tuple[float, float]]:
    return [(t.low, t.high) for t in term_amounts(config, text) if t.term == term]


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("a hundred and five thousand dollars", 105_000),
        ("one hundred and two thousand, five hundred dollars", 102_500),
        ("eleven thousand, two hundred and fifty dollars", 11_250),
        ("one million, two hundred thousand dollars", 1_200_000),
        ("ninety-five K", 95_000),
        ("seventy-one K", 71_000),
        ("one point two million dollars", 1_200_000),
        ("three point seven five million dollars", 3_750_000),
        ("a quarter million dollars", 250_000),
        ("a quarter of a million dollars", 250_000),
        ("half a million dollars", 500_000),
        ("83 thou", 83_000),
        ("1,5 Mio EUR", 1_500_000),
        ("2.4M units", 2_400_000),
        ("1.1m units", 1_100_000),
        ("$3.3M", 3_300_000),
    ],
)
def test_spelled_out_numbers_and_multipliers(text: str, value: float) -> None:
    amount = _one(text)
    assert amount.low == amount.high == pytest.approx(value), amount


@pytest.mark.parametrize(
    "text",
    ["We met at one point two of us.", "5m of cable", "It is one of a kind.", "Quarter three results"],
)
def test_words_that_only_look_like_numbers(text: str) -> None:
    assert [a for a in find_amounts(text) if a.low >= 1000] == [], find_amounts(text)


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("120.000 € per year", 120_000),  # thousands groups
        ("1.200.000 €", 1_200_000),
        ("9.500,50 €", 9_500.5),  # European decimal
        ("9,500.50 USD", 9_500.5),
        ("14,25 EUR", 14.25),
        ("€ 7.350", 7_350),
    ],
)
def test_separator_conventions_are_decided_by_group_sizes(text: str, value: float) -> None:
    assert _one(text).low == pytest.approx(value)


@pytest.mark.parametrize(
    ("text", "value", "currency"),
    [
        ("37 cents", 0.37, "USD"),
        ("seventy-two cents", 0.72, "USD"),
        ("1450 cents", 14.5, "USD"),
        ("45p", 0.45, "GBP"),
        ("$14 and 15 cents", 14.15, "USD"),
        ("fourteen dollars, fifteen cents", 14.15, "USD"),
        ("a dollar ninety", 1.9, "USD"),
        ("one euro twenty", 1.2, "EUR"),
        ("$12.80/unit", 12.8, "USD"),
    ],
)
def test_cents_in_every_form(text: str, value: float, currency: str) -> None:
    amount = _one(text)
    assert (amount.low, amount.currency) == (pytest.approx(value), currency), amount


@pytest.mark.parametrize(
    ("text", "per"),
    [
        ("$61 each hour worked", "hour"),
        ("$61 for each hour", "hour"),
        ("$61 every hour", "hour"),
        ("$2,050/wk", "week"),
        ("$8,100 monthly", "month"),
        ("$98,000 per annum", "year"),
        ("$11 apiece", "unit"),
    ],
)
def test_rates_read_after_each_and_every(text: str, per: str) -> None:
    assert _one(text).per == per


def test_conversions_to_the_terms_unit(staffing: DomainConfig, leasing: DomainConfig) -> None:
    assert _values(staffing, "We'd pay $1,850 a week.", "annual_salary") == [(96_200, 96_200)]
    assert _values(staffing, "That's 7.800 € im Monat.", "annual_salary") == [(93_600, 93_600)]
    assert _values(leasing, "They want €126.000 per year for the unit.", "monthly_rent") == [(10_500, 10_500)]
    assert _values(leasing, "A lease of three and a half years.", "lease_term") == [(42, 42)]


@pytest.mark.parametrize(
    ("text", "low", "high"),
    [
        ("90-100K", 90_000, 100_000),
        ("95 to 105k", 95_000, 105_000),
        ("between eighty and ninety thousand dollars", 80_000, 90_000),
        ("$8,400–$9,100 a month", 8_400, 9_100),
        ("from $11.20 to $11.80 per unit", 11.2, 11.8),
    ],
)
def test_ranges_give_both_ends(text: str, low: float, high: float) -> None:
    amount = _one(text)
    assert (amount.low, amount.high) == (pytest.approx(low), pytest.approx(high)), amount


def test_a_change_or_a_sequence_is_several_figures_typed_like_the_last(
    procurement: DomainConfig, leasing: DomainConfig, staffing: DomainConfig
) -> None:
    """A change "from X to Y" and a sequence "X to Y to Z" are steps, not a range; each step takes
    the unit, currency and multiplier written after the last one."""
    assert _values(procurement, "They raised it from 2,000 to 2,600 units.", "order_volume") == [
        (2000, 2000),
        (2600, 2600),
    ]
    assert _values(leasing, "We went from 60 to 48 to 36 months.", "lease_term") == [
        (60, 60),
        (48, 48),
        (36, 36),
    ]
    assert _values(staffing, "We moved from 88 to 91 to 94k.", "annual_salary") == [
        (88_000, 88_000),
        (91_000, 91_000),
        (94_000, 94_000),
    ]


@pytest.mark.parametrize(
    "text",
    [
        "Let's meet on March 3.",
        "Due 3/15, signed 2025.",
        "Doors open at 9am.",
        "Can you start on the 3rd?",
        "A 7% raise.",
        "Net-60 terms.",
        "Deliver to 1800 Commerce Blvd.",
        "Our suite number is 2200.",
        "Call +44 20 7946 0958.",
        "Use version 4.2 of the form.",
        "Somewhere in the low 90s.",  # a vague band names no figure: not read
    ],
)
def test_more_distractors_are_not_amounts(text: str) -> None:
    assert find_amounts(text) == [], find_amounts(text)


def test_headcounts_and_spans_are_no_term_amounts(staffing: DomainConfig, leasing: DomainConfig) -> None:
    assert term_amounts(staffing, "We have 12 engineers and 3 designers.") == []
    assert _values(leasing, "Rent is paid 2 months in advance.", "deposit") == []
    assert _values(leasing, "The first 4 months are rent-free on a 5-year lease.", "lease_term") == [(60, 60)]
    assert _values(leasing, "Give 60 days' notice.", "lease_term") == []


def test_money_beside_another_cost_or_a_total_is_not_the_term(
    procurement: DomainConfig, leasing: DomainConfig, staffing: DomainConfig
) -> None:
    assert _values(procurement, "It's $48,000 for the whole lot; $12 a unit.", "unit_price") == [(12, 12)]
    assert _values(leasing, "Rent $9,700 plus $450 in service charges.", "monthly_rent") == [(9700, 9700)]
    assert _values(staffing, "Payroll is $2.4M; her salary would be $93,000.", "annual_salary") == [
        (93_000, 93_000)
    ]


def test_a_rate_named_after_a_percentage_is_not_carried_to_the_next_figure(procurement: DomainConfig) -> None:
    text = "Interest 1% per month on late invoices; unit price stays at $11.70."
    assert _values(procurement, text, "unit_price") == [(11.7, 11.7)]


# -- obfuscation: what a person reads is what is read ----------------------------------------------------
@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("１２０，０００ €", 120_000),  # fullwidth digits and comma
        ("＄９５，０００", 95_000),
        ("$9\u200b8,000", 98_000),  # zero-width space
        ("$98\u00ad,000", 98_000),  # soft hyphen
        ("$98,\u2060000", 98_000),  # word joiner
        ("$98\x00,000", 98_000),  # NUL
        ("٩٨٠٠٠ USD", 98_000),  # Arabic-Indic digits
        ("ninety-eight th\u043eusand dollars", 98_000),  # Cyrillic o
        ("$\U0001d7d7\U0001d7d6,000", 98_000),  # mathematical bold digits
    ],
)
def test_lookalike_and_invisible_characters(text: str, value: float) -> None:
    amount = _one(text)
    assert amount.low == pytest.approx(value), amount
    assert text[amount.start : amount.end] == amount.text


def test_spans_index_the_text_as_given_when_characters_were_removed(staffing: DomainConfig) -> None:
    text = "Sa\u200blary\u200b: $9\u200b5,000 and $9\u200b6,000."
    found = find_amounts(text)
    assert [a.low for a in found] == [95_000, 96_000]
    assert [a.text for a in found] == ["$9\u200b5,000", "$9\u200b6,000"]
    assert [(t.start, t.end) for t in term_amounts(staffing, text)] == [(a.start, a.end) for a in found]


def test_keywords_are_found_in_the_text_as_read(staffing: DomainConfig) -> None:
    assert term_amounts(staffing, "A $5,000 sign\u200bing bonus.") == []  # "signing" names another cost
    assert _values(staffing, "Sal\u00adary: 96 thou.", "annual_salary") == [(96_000, 96_000)]


def test_superscripts_and_fractions_are_not_folded_into_digits() -> None:
    assert [a.low for a in find_amounts("2,400 ft² for $9,000")] == [2400, 9000]


# -- robustness: bounded work, never an exception --------------------------------------------------------
@pytest.mark.parametrize(
    "unit",
    [
        "$1,",
        "1 ",
        "one ",
        "from 1 to ",
        "$1-$1 ",
        "\u200b1",
        "９",
        "annual one-time fee 1 and 1 ",
        "a 1 b c ds ",
        "1?? ",
        "year 1: $1 per year 1 € ",
    ],
    ids=[
        "dollar-comma",
        "ones",
        "words",
        "chains",
        "ranges",
        "zero-width",
        "fullwidth",
        "lump-sums",
        "own-nouns",
        "question-runs",
        "labels",
    ],
)
def test_crafted_text_is_read_in_linear_time(unit: str) -> None:
    # growth, not speed (the 1 MB timings are benchmarks/bench_gaia_text.py's "amounts" table)
    find_amounts("$1")  # build the folding tables outside the measurement
    assert_grows_linearly(find_amounts, unit, 62_500, 4)
    short = unit * 200
    assert all(short[a.start : a.end] == a.text for a in find_amounts(short))


def test_a_text_within_the_preflight_limit_is_read_whole() -> None:
    from parley.governance.amounts import MAX_READ_CHARS, MAX_READ_TOKENS
    from parley.governance.normalize import DEFAULT_MAX_CHARS

    assert min(MAX_READ_CHARS, MAX_READ_TOKENS) >= DEFAULT_MAX_CHARS
    text = "$1 " * (DEFAULT_MAX_CHARS // 3)
    assert len(find_amounts(text)) == DEFAULT_MAX_CHARS // 3


@pytest.mark.parametrize("text", ["", " ", "\x00", "\ud800", "$", "1" * 5000, "," * 100, "k" * 100])
def test_odd_inputs_do_not_raise(text: str) -> None:
    find_amounts(text)


@settings(max_examples=300, deadline=None)
@given(st.text(alphabet=st.characters(codec=None), max_size=200))
def test_any_unicode_text_never_raises_and_spans_match(text: str) -> None:
    for amount in find_amounts(text):
        assert 0 <= amount.start < amount.end <= len(text)
        assert text[amount.start : amount.end] == amount.text
        assert amount.low <= amount.high
        assert math.isfinite(amount.low) and math.isfinite(amount.high)


# -- round trips: an amount written in each supported style reads back as itself --------------------------
def _english(value: int) -> str:
    return f"{value:,}"


def _european(value: int) -> str:
    return f"{value:,}".replace(",", ".")


def _spaced(value: int) -> str:
    return f"{value:,}".replace(",", " ")


def _fullwidth(text: str) -> str:
    return "".join(chr(ord(c) + 0xFEE0) if "!" <= c <= "~" else c for c in text)


_STYLES: dict[str, tuple[str, float]] = {
    # style → (format with {e} English digits, {u} European, {s} space-grouped, {w} words, {k} thousands
    # with "k"; the factor that turns the drawn integer into the amount read)
    "$E": ("${e}", 1.0),
    "E USD": ("{e} USD", 1.0),
    "USD E": ("USD {e}", 1.0),
    "U €": ("{u} €", 1.0),
    "EUR U": ("EUR {u}", 1.0),
    "S EUR": ("{s} EUR", 1.0),
    "£E": ("£{e}", 1.0),
    "W dollars": ("{w} dollars", 1.0),
    "W euros": ("{w} euros", 1.0),
    "E dollars a month": ("{e} dollars a month", 1.0),
    "$Kk": ("${k}k", 1000.0),
    "fullwidth": ("{f} €", 1.0),
    "E cents": ("{e} cents", 0.01),
}


@settings(max_examples=400, deadline=None)
@given(st.integers(min_value=1, max_value=9_999_999), st.sampled_from(sorted(_STYLES)))
def test_an_amount_formatted_in_each_style_reads_back(value: int, style: str) -> None:
    from num2words import num2words  # pyright: ignore[reportMissingTypeStubs]

    template, factor = _STYLES[style]
    if style == "E cents" and value >= 100_000:
        value //= 100
    text = template.format(
        e=_english(value),
        u=_european(value),
        s=_spaced(value),
        w=str(num2words(value)),  # pyright: ignore[reportUnknownArgumentType]
        k=value,
        f=_fullwidth(_english(value)),
    )
    amount = _one(f"We said {text}.")
    assert amount.low == amount.high == pytest.approx(value * factor), (text, amount)
    assert amount.kind == "money", (text, amount)


@settings(max_examples=200, deadline=None)
@given(st.integers(min_value=100, max_value=999_999), st.integers(min_value=0, max_value=99))
def test_dollars_and_cents_read_back(dollars: int, cents: int) -> None:
    expected = dollars + cents / 100
    for text in (
        f"${dollars:,}.{cents:02d}",
        f"{_european(dollars)},{cents:02d} €",
        f"${dollars} and {cents} cents",
    ):
        if cents == 0 and "and" in text:
            continue
        assert _one(text).low == pytest.approx(expected), text


@settings(max_examples=200, deadline=None)
@given(st.integers(min_value=1, max_value=999), st.integers(min_value=1, max_value=999))
def test_ranges_read_back(low: int, span: int) -> None:
    high = low + span
    for text, factor in (
        (f"${low}-{high}K", 1000),
        (f"between {low} and {high} dollars", 1),
        (f"{low} to {high}k", 1000),
    ):
        amount = _one(text)
        assert (amount.low, amount.high) == (low * factor, high * factor), text


# -- the form sets (tests/governance/amount_forms*.yaml) and the spent held-out sets ----------------------
@pytest.mark.parametrize(
    "path",
    [
        "tests/governance/amount_forms.yaml",
        "tests/governance/amount_forms_fresh.yaml",
        "tests/data/gaia/heldout/amounts.yaml",
        "tests/data/gaia/heldout2/amounts.yaml",
        # set v4, spent on 2026-11-28 (measured blind once: 303/324; its error classes were then fixed as
        # forms), and the forms written for them before the change (18/59 before, development data now)
        "tests/data/gaia/heldout4/amounts.yaml",
        "tests/governance/amount_forms_v5.yaml",
    ],
)
def test_amount_accuracy_on_the_form_and_spent_sets(path: str) -> None:
    from pathlib import Path

    score = amount_accuracy(Path(__file__).resolve().parents[2] / path)
    assert score.accuracy >= 0.98, score.errors


# -- forms of set v4 (issue 14): sentences written for these tests, none from a labelled set ------------
_V5 = {"staffing": "staffing", "procurement": "procurement", "leasing": "leasing"}


@pytest.mark.parametrize(
    ("domain", "text", "term", "values"),
    [
        # a salary written in thousands beside a salary word, and look-alikes that are not one
        ("staffing", "Could we settle on 96 for the base?", "annual_salary", [96_000]),
        ("staffing", "i'd sign at 102 on salary, not less than 98", "annual_salary", [102_000, 98_000]),
        ("staffing", "We need 3 references before salary talks.", "annual_salary", []),
        ("staffing", "Base pay is reviewed after 18 months.", "annual_salary", []),
        # spelled numbers opening with "hundred"
        ("staffing", "hundred and ten grand on salary", "annual_salary", [110_000]),
        # pay of another kind
        ("staffing", "Her RSU grant is 50k.", "annual_salary", []),
        ("staffing", "Base 97k; the stock grant adds 20k.", "annual_salary", [97_000]),
        # periods that are multiples: two weeks, half a month, a quarter
        ("staffing", "Pay is $3,800 bi-weekly.", "annual_salary", [98_800]),
        ("staffing", "4,000 every other week", "annual_salary", [104_000]),
        ("staffing", "$4,000 twice a month", "annual_salary", [96_000]),
        ("staffing", "Fortnightly pay: 3,750.", "annual_salary", [97_500]),
        ("leasing", "$24,600 a quarter for the rent", "monthly_rent", [8_200]),
        ("leasing", "Rent every 3 months: 30,000.", "monthly_rent", [10_000]),
        # a bare answer to a typed figure of the sentence before, or after a comparing word
        ("staffing", "75 per hour won't work. 80?", "hourly_rate", [75, 80]),
        ("staffing", "We offered 72 an hour versus your 81.", "hourly_rate", [72, 81]),
        ("staffing", "We pay $78 an hour. 3 engineers already work remotely.", "hourly_rate", [78]),
        # bare figures compared with a typed one after them
        (
            "procurement",
            "Quotes came in at 12.90, 13.40 and 13.10 per unit.",
            "unit_price",
            [12.9, 13.4, 13.1],
        ),
        ("leasing", "3 or 4 years is what we had in mind.", "lease_term", [36, 48]),
        # prices per package, per dozen, per hundred
        ("procurement", "$54 per case of 4 units", "unit_price", [13.5]),
        ("procurement", "$150 a dozen", "unit_price", [12.5]),
        ("procurement", "Price per 500 pieces: $6,000", "unit_price", [12]),
        # counts of the goods, and what a package holds
        ("procurement", "We'd need 1,800 hinges.", "order_volume", [1_800]),
        ("procurement", "Each crate holds 40 pieces.", "order_volume", []),
        ("procurement", "We run 6 plants.", "order_volume", []),
        # rent per square foot with the area, free months, German number words
        ("leasing", "$36 psf annually on 3,000 sf", "monthly_rent", [9_000]),
        ("leasing", "5-year term with 3 months of free rent", "lease_term", [60]),
        ("leasing", "Kaution: vier Monatsmieten", "deposit", [4]),
        ("leasing", "Laufzeit sechs Jahre", "lease_term", [72]),
    ],
)
def test_forms_of_set_v4(
    domain: str, text: str, term: str, values: list[float], request: pytest.FixtureRequest
) -> None:
    config: DomainConfig = request.getfixturevalue(_V5[domain])
    found = [a.low for a in term_amounts(config, text) if a.term == term]
    assert found == pytest.approx(values), (text, term_amounts(config, text))


@pytest.mark.parametrize(
    ("domain", "text", "term", "value"),
    [
        ("staffing", "Pay is ＄３，８００ bi-weekly.", "annual_salary", 98_800),  # fullwidth
        ("staffing", "Pay is $3,800 bi\u200b-weekly.", "annual_salary", 98_800),  # zero-width space
        ("staffing", "4,000 \u0435very other w\u0435\u0435k", "annual_salary", 104_000),  # Cyrillic e
        ("leasing", "Quarterly rent of ٢٧٬٠٠٠.", "monthly_rent", 9_000),  # Arabic-Indic digits
        ("leasing", "K\u0430ution: dr\u200bei Monatsmieten", "deposit", 3),  # Cyrillic a, zero-width
        ("procurement", "$1\u00ad8 per box of 6 pieces", "unit_price", 3),  # soft hyphen
        ("staffing", "Would １０７ work on base?", "annual_salary", 107_000),  # fullwidth, in thousands
    ],
)
def test_forms_of_set_v4_through_lookalikes_and_invisible_characters(
    domain: str, text: str, term: str, value: float, request: pytest.FixtureRequest
) -> None:
    config: DomainConfig = request.getfixturevalue(_V5[domain])
    found = [a for a in term_amounts(config, text) if a.term == term]
    assert [a.low for a in found] == pytest.approx([value]), (text, found)
    assert all(text[a.start : a.end] == a.mention.text for a in found)


def test_a_salary_in_thousands_needs_a_salary_word_near_it(staffing: DomainConfig) -> None:
    far = (
        "Would 107 work for you? "
        + "We also talked about the team, the office and the start date. "
        + "salary"
    )
    assert [a for a in term_amounts(staffing, far) if a.term == "annual_salary"] == []
    dollars = term_amounts(staffing, "We can pay $107 on base.")  # a currency: not thousands
    assert [a for a in dollars if a.term == "annual_salary"] == [], dollars


def test_a_rent_per_square_foot_without_one_area_is_dropped(leasing: DomainConfig) -> None:
    assert term_amounts(leasing, "Asking $40 per sq ft per year.") == []
    two = "Asking $40 per sq ft per year for 2,700 sq ft or 3,000 sq ft."
    assert [a.term for a in term_amounts(leasing, two)] == []


# -- round trips of the forms of set v4 -------------------------------------------------------------------
_PERIOD_STYLES: dict[str, tuple[str, str, float]] = {
    # style → (format with {e} English digits, the rate read, the divisor)
    "biweekly": ("${e} biweekly", "week", 2.0),
    "bi-weekly": ("{e} dollars bi-weekly", "week", 2.0),
    "every two weeks": ("${e} every two weeks", "week", 2.0),
    "every 2 weeks": ("${e} every 2 weeks", "week", 2.0),
    "per fortnight": ("€{e} per fortnight", "week", 2.0),
    "quarterly": ("${e} quarterly", "month", 3.0),
    "a quarter": ("${e} a quarter", "month", 3.0),
    "every 3 months": ("${e} every 3 months", "month", 3.0),
    "twice a month": ("${e} twice a month", "month", 0.5),
    "a dozen": ("${e} a dozen", "unit", 12.0),
    "per box of 6": ("${e} per box of 6 pieces", "unit", 6.0),
    "per thousand units": ("${e} per thousand units", "unit", 1000.0),
}


@settings(max_examples=300, deadline=None)
@given(st.integers(min_value=1, max_value=9_999_999), st.sampled_from(sorted(_PERIOD_STYLES)))
def test_a_rate_for_a_multiple_of_a_period_reads_back(value: int, style: str) -> None:
    template, per, divisor = _PERIOD_STYLES[style]
    amount = _one(f"We said {template.format(e=_english(value))}.")
    assert (amount.kind, amount.per) == ("money", per), amount
    assert amount.low == amount.high == pytest.approx(value / divisor, rel=1e-4, abs=1e-6), amount


@settings(max_examples=200, deadline=None)
@given(st.integers(min_value=80, max_value=100), st.sampled_from(["base", "salary"]))
def test_a_salary_in_thousands_reads_back(value: int, word: str) -> None:
    from parley.governance.config import load_config

    found = term_amounts(load_config("staffing"), f"Would {value} work on {word}?")
    assert [(a.term, a.low) for a in found] == [("annual_salary", value * 1000.0)]


@settings(max_examples=200, deadline=None)
@given(st.integers(min_value=20, max_value=60), st.integers(min_value=1_000, max_value=5_000))
def test_a_rent_per_square_foot_reads_back_as_the_monthly_rent(price: int, area: int) -> None:
    from parley.governance.config import load_config

    leasing = load_config("leasing")
    for text in (f"${price} per square foot per year on {area:,} sq ft", f"{area:,} sq ft at ${price} psf"):
        found = term_amounts(leasing, text)
        assert [(a.term, a.low) for a in found] == [("monthly_rent", pytest.approx(price * area / 12))], text


@settings(max_examples=200, deadline=None)
@given(st.integers(min_value=1, max_value=99), st.sampled_from(["grand", "thousand", "thousand dollars"]))
def test_hundred_and_a_number_opening_an_amount_reads_back(value: int, scale: str) -> None:
    from num2words import num2words  # pyright: ignore[reportMissingTypeStubs]

    words = str(num2words(value))  # pyright: ignore[reportUnknownArgumentType]
    amount = _one(f"hundred and {words} {scale}")
    assert amount.low == (100 + value) * 1000, amount


# -- bounded work on the attribution too --------------------------------------------------------------------
@pytest.mark.parametrize(
    "unit",
    ["$1,", "every 2 weeks $1 ", "1 vs 2 vs ", "$1 per box of 2 "],
    ids=["dollar-comma", "periods", "comparisons", "packages"],
)
def test_crafted_text_is_attributed_in_linear_time(staffing: DomainConfig, unit: str) -> None:
    term_amounts(staffing, "$1")  # build the folding tables outside the measurement
    # Growth, not speed (the 1 MB timings are benchmarks/bench_gaia_text.py's "amounts" table): 2,500 ->
    # 10,000 characters, below the cap of 10,000 mentions that bounds a megabyte's cost.
    assert_grows_linearly(lambda text: term_amounts(staffing, text), unit, 2_500, 4)


_V4_SOUP = [
    *("$", "1", "12", "3,000", ",", ".", "?", " ", "-", "k", "vs", "or", "instead", "of", "not", "hundred"),
    *("and", "five", "grand", "biweekly", "bi", "weekly", "every", "two", "other", "weeks", "per", "a"),
    *("quarter", "quarterly", "twice", "month", "dozen", "box", "of", "6", "pieces", "psf", "sq", "ft"),
    *("square", "foot", "year", "on", "free", "rent", "drei", "Monatsmieten", "holds", "carton", "bars"),
    *("base", "salary", "equity", "grant", "\u200b", "\uff11", "\u0435", "\n"),
]


@settings(max_examples=300, deadline=None)
@given(
    st.lists(st.sampled_from(_V4_SOUP), max_size=60), st.sampled_from(["staffing", "procurement", "leasing"])
)
def test_soup_of_the_set_v4_forms_never_raises(parts: list[str], domain: str) -> None:
    from parley.governance.config import load_config

    text = " ".join(parts)
    config = load_config(domain)
    for amount in find_amounts(text):
        assert text[amount.start : amount.end] == amount.text
        assert math.isfinite(amount.low) and math.isfinite(amount.high) and amount.low <= amount.high
    for attributed in term_amounts(config, text):
        assert 0 <= attributed.start < attributed.end <= len(text)
        assert math.isfinite(attributed.low) and math.isfinite(attributed.high)
    for finding in find_disclosures(text, config):
        assert finding.to_json()["kind"] in ("figure", "allowed_set", "structural", "unread")


# -- error classes of set v5 and of the term reader's reports (issue 14): wordings written for these tests --
def _typed(text: str) -> list[tuple[float, str, str | None, str | None]]:
    return [(a.low, a.kind, a.per, a.unit) for a in find_amounts(text)]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        # a unit is not carried back to a figure written to the cent, nor across another figure
        ("Can you do 3.15 and 6 weeks?", [(3.15, "number", None, None), (6, "duration", None, "weeks")]),
        ("4.40, net 45, 5 wks lead", [(4.4, "number", None, None), (5, "duration", None, "weeks")]),
        ("2 or 3 years", [(2, "duration", None, "years"), (3, "duration", None, "years")]),  # still typed
        # a figure counting its own noun takes no unit from the amount before it
        (
            "a lease of two years, and 4 covered loading bays",
            [(2, "duration", None, "years"), (4, "number", None, None)],
        ),
        ("3 years, but could do 2", [(3, "duration", None, "years"), (2, "duration", None, "years")]),
        # a sentence's period word is not given to a sum paid once
        (
            "Yearly we'd pay $84,000, plus a $3,000 admin fee.",
            [(84_000, "money", "year", None), (3_000, "money", None, None)],
        ),
        (
            "Annually that is $70,000 and a one-off sum of $4,500.",
            [(70_000, "money", "year", None), (4_500, "money", None, None)],
        ),
        (
            "The monthly rent is 7,800 and the parking fee is 300.",
            [(7_800, "money", "month", None), (300, "number", None, None)],
        ),
        # a comma ends a sum's name: the rate stays with the figure before it
        (
            "Yearly rent: $72,000, deposit of $12,000.",
            [(72_000, "money", "year", None), (12_000, "money", None, None)],
        ),
        # a rate label with a currency after the figure, a day rate, hours glued to a figure
        ("Miete per year 96.000 €", [(96_000, "money", "year", None)]),
        ("Daily rate 640 for the contractor", [(640, "money", "day", None)]),
        ("That is 7.5h a day.", [(7.5, "duration", None, "hours")]),
        ("wkly 1.9k", [(1_900, "money", "week", None)]),
        ("Price per dozen: $30.", [(2.5, "money", "unit", None)]),
        ("Stundensatz zwischen 80 und 95 Euro", [(80, "money", "hour", None)]),
        # a run of question marks is one boundary: the answer takes the asked figure's unit
        ("5 months deposit?! we'd do 3", [(5, "duration", None, "months"), (3, "duration", None, "months")]),
        # "one" in "one-time", "one-off" is no figure, even after a currency sign
        ("a $ one-time charge", []),
        ("USD one-off", []),
        ("a one-year term", [(1, "duration", None, "years")]),
        # "2% 10 net 30" is an early-payment discount, not a figure
        ("Invoice terms 2% 10 net 30 please.", []),
    ],
)
def test_error_classes_of_set_v5(
    text: str, expected: list[tuple[float, str, str | None, str | None]]
) -> None:
    assert _typed(text) == expected


@pytest.mark.parametrize(
    ("text", "incidental"),
    [
        ("4 months rent free", True),
        ("2 months rent-free", True),
        ("3 months free", True),
        ("a one-year renewal option", True),
        ("a 2-year break clause", True),  # an option on the term, not the term
        ("a 3-year extension right", True),
        ("5 years lease", False),
    ],
)
def test_rent_free_and_option_periods_are_incidental(text: str, incidental: bool) -> None:
    found = [a for a in find_amounts(text) if a.kind == "duration"]
    assert found and found[0].incidental is incidental, found


@pytest.mark.parametrize(
    ("domain", "text", "term", "values"),
    [
        # a deposit written as money, divided by the monthly rent stated with it
        ("leasing", "Security deposit $22,000 against a rent of $5,500.", "deposit", [4]),
        ("leasing", "We hold 13.500 € Kaution bei 4.500 € Miete.", "deposit", [3]),
        ("leasing", "Deposit $12,000 on $4,000 rent, or $8,000 if you prepay.", "deposit", [3, 2]),
        ("leasing", "Deposit $12,000 on $4,000 or $4,500 rent.", "deposit", []),  # two rents: no ratio
        ("leasing", "The deposit is $12,000.", "deposit", []),  # no rent stated: no ratio
        # a deposit waived
        ("leasing", "There is no security deposit.", "deposit", [0]),
        ("leasing", "Deposit - waived for you.", "deposit", [0]),
        ("staffing", "No deposit required.", "annual_salary", []),  # no such term there
        # another cost named before the figure, the term's word after it for the next one
        ("leasing", "The fit-out allowance is $45,000 and rent is $9,100.", "monthly_rent", [9_100]),
        # a clause after ";" with no keyword of its own is read with the one before it
        ("procurement", "Minimum order 800; we'd prefer 1,100.", "order_volume", [800, 1_100]),
        ("procurement", "Minimum order 800. Call me at 3 pm.", "order_volume", [800]),
        # a total for a number of units states the unit price (issue 14, set v6: as sets v5 and v6 label it)
        ("procurement", "Total $26,000 for 2,000 pcs.", "unit_price", [13]),
        ("procurement", "2,000 pcs at 13 dollars each = $26,000 total.", "unit_price", [13, 13]),
        # counts of people or lots are no order volume
        ("procurement", "We're 14 buyers across 5 regions.", "order_volume", []),
        # labels of a year, an abbreviated period, a salary word
        ("leasing", "Year one: $108,000; year two: $111,600.", "monthly_rent", [9_000, 9_300]),
        ("staffing", "They offered 118,000; I'd accept 122,000.", "annual_salary", [118_000, 122_000]),
        ("staffing", "per hour: sixty-eight", "hourly_rate", [68]),
        # a pay per day or week with its hours right after it is a rate per hour too
        ("staffing", "Daily rate 600 (7.5h).", "hourly_rate", [80]),
        ("staffing", "$3,400 a week at 40 hours", "hourly_rate", [85]),
        (
            "staffing",
            "$3,400 a week; we also discussed the 40 hours of onboarding later on",
            "hourly_rate",
            [],
        ),
        ("staffing", "$3,400 a week at 4 hours", "hourly_rate", []),  # 850 an hour: far outside the band
    ],
)
def test_forms_of_set_v5(
    domain: str, text: str, term: str, values: list[float], request: pytest.FixtureRequest
) -> None:
    config: DomainConfig = request.getfixturevalue(domain)
    found = [a.low for a in term_amounts(config, text) if a.term == term]
    assert found == pytest.approx(values), (text, term_amounts(config, text))


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("De\u200bposit $12,000 on $4,000 r\u0435nt.", 3),  # zero-width space, Cyrillic e
        ("Deposit ＄１２，０００ on ＄４，０００ rent.", 3),  # fullwidth
        ("N\u043e dep\u00adosit required.", 0),  # Cyrillic o, soft hyphen
    ],
)
def test_deposit_forms_through_lookalikes_and_invisible_characters(
    leasing: DomainConfig, text: str, value: float
) -> None:
    found = [a for a in term_amounts(leasing, text) if a.term == "deposit"]
    assert [a.low for a in found] == pytest.approx([value]), found


@pytest.mark.parametrize(
    "unit",
    [
        "Deposit $1 on $1 rent, ",
        "no deposit ",
        "Total $1 for 2 pcs; ",
        "annual fee 1 and 1 ",
        "a 1 b c ds ",
        "1?? ",
    ],
    ids=["deposits", "waived", "totals", "lump-sums", "own-nouns", "question-runs"],
)
def test_the_set_v5_forms_are_attributed_in_linear_time(
    leasing: DomainConfig, procurement: DomainConfig, unit: str
) -> None:
    term_amounts(leasing, "$1")  # build the folding tables outside the measurement

    def attribute(text: str) -> None:
        for config in (leasing, procurement):
            found = term_amounts(config, text)
            assert all(0 <= a.start < a.end <= len(text) for a in found)

    # Growth, not speed (the 1 MB timings are benchmarks/bench_gaia_text.py's "amounts" table): 2,500 ->
    # 10,000 characters, below the cap of 10,000 mentions that bounds a megabyte's cost.
    assert_grows_linearly(attribute, unit, 2_500, 4)


def test_amount_accuracy_on_set_v5_does_not_fall() -> None:
    from pathlib import Path

    # set v5, spent on 2026-11-28 (measured blind once: 282/354 with its 19 spurious attributions);
    # its error classes were then fixed as rules checked on every other source (309/341 after)
    score = amount_accuracy(Path(__file__).resolve().parents[2] / "tests/data/gaia/heldout5/amounts.yaml")
    # 2026-11-28, later: 329/335 after the forms of its remaining errors were fixed (the three totals
    # divided by a count are left: the labelled sets disagree on them)
    assert score.accuracy >= 0.98, score.errors


# -- forms of set v5's remaining error classes (2026-11-28), sentences written for these tests ----------
def _words_of(n: int) -> str:
    """English words of 1 <= n < 1,000,000 ("one hundred and five thousand, two hundred and six" style
    without the comma), written here for the round-trip property."""
    ones, tens = ONES_WORDS, TENS_WORDS

    def below_thousand(k: int) -> str:
        hundreds, rest = divmod(k, 100)
        parts: list[str] = []
        if hundreds:
            parts.append(f"{ones[hundreds]} hundred")
        if rest:
            tail = (
                ones[rest]
                if rest < 20
                else tens[rest // 10 - 2] + (f"-{ones[rest % 10]}" if rest % 10 else "")
            )
            parts.append(("and " if hundreds else "") + tail)
        return " ".join(parts)

    thousands, rest = divmod(n, 1000)
    head = f"{below_thousand(thousands)} thousand" if thousands else ""
    if not rest:
        return head
    tail = below_thousand(rest)
    return f"{head} {'and ' if rest < 100 else ''}{tail}".strip()


@pytest.mark.parametrize(
    ("text", "low", "high"),
    [
        ("between seventy and eighty thousand", 70_000, 80_000),
        ("between one hundred and one hundred and thirty thousand", 100_000, 130_000),
        ("between eighty thousand and ninety thousand", 80_000, 90_000),
        ("between one hundred and ten and one hundred and twenty thousand", 110_000, 120_000),
    ],
)
def test_spelled_range_ends_joined_by_and(text: str, low: float, high: float) -> None:
    amount = _one(text)
    assert (amount.low, amount.high) == (low, high), amount


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("one hundred and one thousand dollars", 101_000),
        ("two hundred thousand and five hundred dollars", 200_500),
        ("one hundred and five thousand dollars", 105_000),
    ],
)
def test_one_spelled_number_is_not_split_at_its_and(text: str, value: float) -> None:
    assert _one(text).high == value


@pytest.mark.parametrize(
    ("text", "low", "high", "kind"),
    [
        ("no fewer than 800 units and no more than 1,200 units", 800, 1_200, "count"),
        ("at least 3 years but at most 5 years", 3, 5, "duration"),
        ("a minimum of $65/hr and a maximum of $75/hr", 65, 75, "money"),
        ("not less than 30 months, not more than 48", 30, 48, "duration"),
    ],
)
def test_a_lower_and_an_upper_bound_make_one_range(text: str, low: float, high: float, kind: str) -> None:
    amount = _one(text)
    assert (amount.low, amount.high, amount.kind) == (low, high, kind), amount


@pytest.mark.parametrize(
    "text",
    [
        "at least 3 interviews and at most $90k",  # different things
        "at least 50 units and no more than 20 units",  # an upper end below the lower
        "no less than 12 months' notice and no more than 6 weeks",  # a span of notice is no term
    ],
)
def test_bounds_of_different_things_stay_apart(text: str) -> None:
    assert not any(a.is_range for a in find_amounts(text)), find_amounts(text)


@pytest.mark.parametrize(
    ("text", "years", "incidental"),
    [
        ("a decade", 10, False),
        ("two decades", 20, False),
        ("half a decade", 5, False),
        ("a decade-long lease", 10, False),
        ("a decade of experience", 10, True),
        ("a decade ago", 10, True),
    ],
)
def test_decades_are_ten_years(text: str, years: float, incidental: bool) -> None:
    amount = _one(text)
    assert (amount.kind, amount.unit, amount.high, amount.incidental) == (
        "duration",
        "years",
        years,
        incidental,
    )


def test_a_lease_in_decades_is_its_months(leasing: DomainConfig) -> None:
    assert [a.low for a in term_amounts(leasing, "We'd sign for a decade on this lease.")] == [120]
    assert term_amounts(leasing, "The landlord has a decade of leasing experience.") == []


@pytest.mark.parametrize(
    ("text", "value"),
    [("one-thirty", 130), ("one-oh-eight", 108), ("one-forty-five", 145), ("one-nineteen", 119)],
)
def test_hundred_shorthand_reads_as_a_figure(text: str, value: float) -> None:
    amount = _one(f"base {text} would do it")
    assert (amount.high, amount.alternative) == (value, (value / 100, value / 100)), amount


@pytest.mark.parametrize(
    "text", ["see you at one-thirty", "one-thirty pm works", "a one-on-one", "one-two punch", "one-oh-oh"]
)
def test_hundred_shorthand_look_alikes(text: str) -> None:
    assert not any(100 < a.high < 200 for a in find_amounts(text)), find_amounts(text)


def test_hundred_shorthand_for_a_salary_is_in_thousands(staffing: DomainConfig) -> None:
    found = term_amounts(staffing, "base one-oh-eight, could stretch to one-twelve")
    assert [(a.term, a.low) for a in found] == [("annual_salary", 108_000), ("annual_salary", 112_000)]


def test_a_yearly_figure_restated_hourly_stays_yearly(staffing: DomainConfig) -> None:
    found = term_amounts(staffing, "Hourly, 100k is about 48 an hour.")
    assert [(a.term, a.low) for a in found] == [("annual_salary", 100_000), ("hourly_rate", 48)], found


def test_a_total_rent_for_the_whole_term_is_divided_by_its_months(leasing: DomainConfig) -> None:
    found = term_amounts(leasing, "The total for the 2-year lease is $240,000.")
    assert [(a.term, a.low) for a in found if a.term == "monthly_rent"] == [("monthly_rent", 10_000)]
    # a total whose monthly figure lies far outside the rent's band is not turned into a rent
    huge = term_amounts(leasing, "Total rent for the 5-year lease: $2,000,000.")
    assert all(a.low != pytest.approx(2_000_000 / 60) for a in huge), huge


def test_rent_per_foot_per_year_times_the_feet(leasing: DomainConfig, procurement: DomainConfig) -> None:
    found = term_amounts(leasing, "$27 per foot per year on 4,000 feet")
    assert [(a.term, a.low) for a in found] == [("monthly_rent", 9_000)]
    cable = find_amounts("$5 per foot for 200 feet of cable")  # no rent period: no area
    assert [a.high for a in cable] == [5, 200]


def test_volumes_of_price_tiers(procurement: DomainConfig) -> None:
    found = term_amounts(procurement, "$4.10 at 1k, $3.95 at 3k.")
    assert [(a.term, a.low) for a in found] == [
        ("unit_price", 4.10),
        ("order_volume", 1_000),
        ("unit_price", 3.95),
        ("order_volume", 3_000),
    ]


def test_the_price_of_a_package_is_divided_to_one_unit(procurement: DomainConfig) -> None:
    found = term_amounts(procurement, "A crate of 30 costs $360.")
    assert [(a.term, a.low) for a in found] == [("unit_price", 12)]
    apart = term_amounts(procurement, "A crate of 30 arrives Monday; the price is $12 each.")
    assert [(a.term, a.low) for a in apart if a.term == "unit_price"] == [("unit_price", 12)]


@pytest.mark.parametrize(
    ("text", "folded"),
    [
        ("8o", "80"),
        ("1OO units", "100 units"),
        ("$12,5O", "$12,50"),
        ("10oz", "10oz"),
        ("10o'clock", "10o'clock"),
        ("No 5", "No 5"),
        ("5 oranges", "5 oranges"),
    ],
)
def test_a_letter_o_typed_for_a_zero_after_a_digit(text: str, folded: str) -> None:
    assert fold(text)[0] == folded


@pytest.mark.parametrize(
    ("text", "value"),
    [
        (
            "base \uff4f\uff4e\uff45-\uff54\uff57\uff45\uff4e\uff54\uff59 would do it",
            120,
        ),  # fullwidth letters
        ("base \u043ene-twenty would do it", 120),  # Cyrillic o
        ("base one-twen\u200bty would do it", 120),  # zero-width space
        ("a dec\u00adade", 10),  # soft hyphen
        ("８o per hour", 80),  # fullwidth digit and a typed zero
    ],
)
def test_new_forms_through_lookalikes_and_invisible_characters(text: str, value: float) -> None:
    amount = _one(text)
    assert amount.high == value, amount
    assert text[amount.start : amount.end] == amount.text


@pytest.mark.parametrize(
    ("head", "unit"),
    [
        ("", "one-twenty-"),
        ("", "one hundred and "),
        ("", "no less than 1 and no more than 2 "),
        ("", "8o"),
        ("1", "o"),
        ("", "a box of 2 is $3 "),
        ("", "$1 at 2 "),
        ("", "a decade "),
        ("", "$3 per foot per year on 40 feet "),
        ("", "total 3 years $9,000. "),
    ],
    ids=[
        "shorthand",
        "hundreds",
        "bounds",
        "typed-zeros",
        "o-run",
        "packages",
        "tiers",
        "decades",
        "feet",
        "totals",
    ],
)
def test_the_new_forms_are_read_in_linear_time(
    staffing: DomainConfig, procurement: DomainConfig, leasing: DomainConfig, head: str, unit: str
) -> None:
    term_amounts(leasing, "$1")  # build the folding tables outside the measurement

    def attribute(text: str) -> None:
        text = head + text
        for config in (staffing, procurement, leasing):
            found = term_amounts(config, text)
            assert all(0 <= a.start < a.end <= len(text) for a in found)

    # Growth, not speed (the 1 MB timings are benchmarks/bench_gaia_text.py's "amounts" table): 2,500 ->
    # 10,000 characters cost well under the 16x of a reader quadratic in the text, below the cap of
    # 10,000 mentions that bounds a megabyte's cost.
    assert_grows_linearly(attribute, unit, 2_500, 4)


@settings(max_examples=200, deadline=None)
@given(st.integers(min_value=1, max_value=999_999))
def test_round_trip_of_written_figures(n: int) -> None:
    assert _one(f"${n:,}").high == n
    assert _one(f"{n:,} dollars").high == n
    if n >= 1000:
        assert _one(f"{n:,}".replace(",", ".") + " €").high == n
    assert _one(f"{_words_of(n)} dollars").high == n, _words_of(n)
    if n % 1000 == 0:
        assert _one(f"${n // 1000}k").high == n


@settings(max_examples=200, deadline=None)
@given(st.integers(min_value=1, max_value=500), st.integers(min_value=0, max_value=500))
def test_round_trip_of_bounded_ranges(low: int, extra: int) -> None:
    amount = _one(f"no less than {low} months and no more than {low + extra}")
    assert (amount.low, amount.high, amount.unit) == (low, low + extra, "months")


@settings(max_examples=300, deadline=None)
@given(st.text(max_size=200))
def test_folding_is_idempotent_and_keeps_every_digit(text: str) -> None:
    once, _ = fold(text)
    assert fold(once)[0] == once
    assert sum(c.isdigit() for c in once) >= sum(c in "0123456789" for c in text)


@pytest.mark.parametrize(
    ("text", "folded"),
    [
        ("0\u200bO", "00"),  # a zero-width space between the digit and the typed zero
        ("0\x00O", "00"),  # NUL likewise
        ("12\u00adO,OOO", "120,000"),  # a soft hyphen inside the figure
        ("1O\u0417", "103"),  # a typed zero, then a Cyrillic Ze beside it
        ("1\u0417O", "130"),  # and the other way round
        ("1OOO,O5", "1000,05"),  # a group read only once the zeros before its separator are read
        ("10oz", "10oz"),  # a unit stays a unit
    ],
)
def test_folding_reads_digits_after_removing_invisible_characters(text: str, folded: str) -> None:
    assert fold(text)[0] == folded
    assert fold(folded)[0] == folded


def test_folding_a_crafted_run_of_typed_zeros_and_lookalikes_is_idempotent_and_linear() -> None:
    from .linear_time import assert_grows_linearly

    crafted = "1" + "O\u0417" * 2_000
    once = fold(crafted)[0]
    assert once.isdigit() and fold(once)[0] == once
    assert_grows_linearly(lambda text: fold("1" + text), "O\u0417", 4_000, 8)


def test_amount_accuracy_on_the_own_form_sets_does_not_fall() -> None:
    from .measure_amounts_cv import score_source, source_path

    # v6: the forms of set v5's remaining errors, written before the reader changed (15/59 then);
    # v7: other wording written after the change and measured once (37/49, labels of two items fixed after)
    assert score_source(source_path("v6")).total.accuracy >= 1.0
    assert score_source(source_path("v7")).total.accuracy >= 0.95
