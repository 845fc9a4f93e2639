"""Error classes of the term reader fixed after the spent term set v3 (issue 17), one group each.

Every sentence here is written for these tests (none is copied from a labelled set): each class is
checked on wordings the rules were not tuned on, plus adversarial input (look-alike letters,
zero-width characters, huge and malformed text) that must never raise and is read in linear time.
"""

from __future__ import annotations

from datetime import date

import pytest

from parley.governance.config import DomainConfig
from parley.governance.terms import TermReader, TermReading

from .linear_time import assert_reads_in_linear_time

DAY = date(2026, 11, 27)


def _read(config: DomainConfig, text: str) -> TermReading:
    return TermReader(config).read(text, today=DAY)


def _on(reading: TermReading) -> set[tuple[str, object]]:
    """The conditions attributed to a term, as (term, value)."""
    return {(c.term, c.value) for c in reading.conditions if c.term != "other" and not c.quoted}


# -- a period word earlier in the sentence is the rate's, not a lump sum's ----------------------------------
def test_an_annual_word_does_not_make_a_bonus_yearly(staffing: DomainConfig) -> None:
    reading = _read(staffing, "The yearly base is $131,000 and the sign-on bonus is $6,500.")
    assert reading.values == {"annual_salary": 131000.0, "signing_bonus": 6500.0}


def test_a_rate_written_with_its_period_still_converts(leasing: DomainConfig) -> None:
    assert _read(leasing, "Annual rent: $66,000, deposit of $11,000.").values["monthly_rent"] == 5500.0


# -- "in exchange for X, <main clause> Y": which side is the condition --------------------------------------
def test_what_is_exchanged_for_is_the_condition(leasing: DomainConfig) -> None:
    reading = _read(leasing, "In return for a seven-year term the owner will add 4 parking spaces.")
    assert _on(reading) == {("lease_term", 84.0)}
    assert reading.values["parking"] == 4.0


def test_what_the_main_clause_needs_is_the_condition(leasing: DomainConfig) -> None:
    reading = _read(leasing, "In return for 2 free months we require a deposit of 3 months.")
    assert _on(reading) == {("deposit", 3.0)}
    assert reading.values["free_months"] == 2.0


# -- a consequence ("otherwise", "or no deal") makes what comes right before it a condition ----------------
def test_a_requirement_before_otherwise_is_the_condition(staffing: DomainConfig) -> None:
    reading = _read(staffing, "I could accept 97k, but I need a $6,000 sign-on, otherwise I walk.")
    assert _on(reading) == {("signing_bonus", 6000.0)}
    assert reading.values["annual_salary"] == 97000.0


def test_a_value_conditioned_by_only_with_is_no_condition(leasing: DomainConfig) -> None:
    reading = _read(leasing, "Rent of 4,950 only works with a 5-year lease, otherwise we go back to 5,300.")
    assert ("monthly_rent", 4950.0) not in _on(reading)


# -- a dash spelling out a condition ---------------------------------------------------------------------
def test_a_dash_spells_out_the_condition_it_follows(leasing: DomainConfig) -> None:
    reading = _read(leasing, "We'd sign at 4,100 in return for more free rent \u2014 three months, not one.")
    assert ("free_months", 3.0) in _on(reading)
    assert not [c for c in reading.conditions if c.term == "other" and not c.quoted]


# -- corrections -------------------------------------------------------------------------------------------
@pytest.mark.parametrize(
    "text",
    [
        "I mixed up the units: my rate is 64 per hour.",
        "Apologies, the 7,200 was the quarterly figure, not the monthly one.",
        "Hold on, sorry \u2014 I got the number wrong, it's 88k.",
    ],
)
def test_a_correction_is_read_as_one(staffing: DomainConfig, text: str) -> None:
    assert _read(staffing, text).correction


def test_restating_terms_is_no_correction(procurement: DomainConfig) -> None:
    assert not _read(
        procurement, "Let me restate: 12,000 units at 1.40 each, delivery in 5 weeks."
    ).correction


# -- a change "from X to Y" states Y ----------------------------------------------------------------------
@pytest.mark.parametrize(
    ("config_name", "text", "term", "value"),
    [
        ("staffing", "We can raise the relocation from 5k to 8k.", "relocation", 8000.0),
        ("procurement", "The lead time drops from 10 to 7 weeks.", "lead_time", 7.0),
        ("staffing", "Base moves from 99k to 104k, PTO stays at 20 days.", "annual_salary", 104000.0),
    ],
)
def test_a_change_states_its_new_value(
    request: pytest.FixtureRequest, config_name: str, text: str, term: str, value: float
) -> None:
    config: DomainConfig = request.getfixturevalue(config_name)
    assert _read(config, text).values[term] == value


def test_a_range_without_a_change_stays_a_range(procurement: DomainConfig) -> None:
    assert _read(procurement, "Warranty of 12 to 24 months depending on the alloy.").values["warranty"] == (
        12.0,
        24.0,
    )


# -- competing offers -----------------------------------------------------------------------------------
def test_the_incumbent_suppliers_price_is_competing(procurement: DomainConfig) -> None:
    reading = _read(procurement, "The incumbent vendor bills us 4.10 per unit.")
    assert reading.get("unit_price") is None
    assert [(t.term, t.value) for t in reading.competing] == [("unit_price", 4.1)]


def test_every_term_listed_for_a_competing_offer_is_competing(staffing: DomainConfig) -> None:
    reading = _read(staffing, "Another employer offered her 118k and a 9k bonus, with three remote days.")
    assert reading.values == {}
    assert {t.term: t.value for t in reading.competing} == {
        "annual_salary": 118000.0,
        "signing_bonus": 9000.0,
        "remote_days": 3.0,
    }


def test_a_clause_with_its_own_subject_is_no_longer_the_competitors(staffing: DomainConfig) -> None:
    reading = _read(staffing, "Another employer offered her 118k, but we can do 121k.")
    assert reading.values == {"annual_salary": 121000.0}


def test_a_figure_in_cents_is_no_lead_time(procurement: DomainConfig) -> None:
    reading = _read(procurement, "A rival mill quoted us 2.45 delivered in 6 weeks.")
    assert {t.term: t.value for t in reading.competing} == {"unit_price": 2.45, "lead_time": 6.0}


# -- payment terms written in days ----------------------------------------------------------------------
@pytest.mark.parametrize(
    ("text", "option"),
    [
        ("Payment is due within 45 days of invoice.", "net45"),
        ("Terms: 75 days net.", "net75"),
        ("Invoices are payable 30 days after delivery.", "net30"),
        ("We need full payment prior to dispatch.", "prepayment"),
        ("Payment terms: 100 % before production.", "prepayment"),
    ],
)
def test_payment_days_are_payment_terms(procurement: DomainConfig, text: str, option: str) -> None:
    assert _read(procurement, text).values == {"payment_terms": option}


# -- a term said to be none -----------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("text", "term"),
    [
        ("Signing bonus: none.", "signing_bonus"),
        ("Relocation package - $0.", "relocation"),
        ("No to the sign-on, sorry.", "signing_bonus"),
        ("We'd drop the relocation entirely.", "relocation"),
    ],
)
def test_a_term_said_to_be_none_is_zero(staffing: DomainConfig, text: str, term: str) -> None:
    assert _read(staffing, text).values == {term: 0.0}


def test_a_zero_after_a_colon_is_not_a_longer_figure(staffing: DomainConfig) -> None:
    assert _read(staffing, "Relocation: 0.5 of the moving costs.").values.get("relocation") != 0.0


# -- an hourly rate implies, but does not state, the contract type: see test_terms_failclosed ------------


# -- durations ------------------------------------------------------------------------------------------
def test_days_rent_free_are_months(leasing: DomainConfig) -> None:
    assert _read(leasing, "The first 60 days are rent-free.").values == {"free_months": 2.0}


def test_months_free_are_read_though_the_amount_reader_sets_them_aside(leasing: DomainConfig) -> None:
    assert _read(leasing, "Two months free on a 5-year lease.").values == {
        "free_months": 2.0,
        "lease_term": 60.0,
    }


def test_a_unit_carried_over_does_not_hold_for_a_counted_noun(leasing: DomainConfig) -> None:
    reading = _read(leasing, "The deposit is two months, and 4 covered parking spaces are included.")
    assert reading.values == {"deposit": 2.0, "parking": 4.0}


def test_a_figure_in_cents_after_a_duration_is_a_price(procurement: DomainConfig) -> None:
    reading = _read(procurement, "Add a 24-month warranty and we're at 7.15.")
    assert reading.values.get("unit_price") == 7.15 and "lead_time" not in reading.values


def test_a_range_with_a_hyphen_is_no_compound(leasing: DomainConfig) -> None:
    assert _read(leasing, "Deposit: 1-2 months depending on references.").values["deposit"] == (1.0, 2.0)


# -- dates, percentages, counts ----------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("Start date 3/1 works.", "2027-03-01"),
        ("start 18/1", "2027-01-18"),
        ("start on 2/15/2027", "2027-02-15"),
    ],
)
def test_a_date_in_digits(staffing: DomainConfig, text: str, value: str) -> None:
    assert _read(staffing, text).values["start_date"] == value


def test_a_fraction_is_no_date(staffing: DomainConfig) -> None:
    assert "start_date" not in _read(staffing, "Start is 1/2 of the way through the quarter? No.").values


def test_a_percentage_with_a_decimal_comma(procurement: DomainConfig) -> None:
    assert _read(procurement, "Late penalty 1,5% per week.").values == {"late_penalty_pct": 1.5}


def test_places_are_parking_spaces(leasing: DomainConfig) -> None:
    assert _read(leasing, "Parking: 3 places behind the building.").values == {"parking": 3.0}


def test_a_part_of_a_count_is_no_new_count(leasing: DomainConfig) -> None:
    assert _read(leasing, "We reserve 9 stalls for you, 2 of them with chargers.").values == {"parking": 9.0}


@pytest.mark.parametrize(
    ("config_name", "text"),
    [
        ("procurement", "Our crew of 40 can start the tooling next week."),
        ("procurement", "We keep 25,000 bars in stock at all times."),
    ],
)
def test_the_business_is_no_term(request: pytest.FixtureRequest, config_name: str, text: str) -> None:
    assert _read(request.getfixturevalue(config_name), text).values == {}


def test_equity_in_stock_options_is_no_stock_on_hand(staffing: DomainConfig) -> None:
    assert _read(staffing, "We add 15k in stock options.").values == {"equity": 15000.0}


def test_accepting_the_principals_figure_states_it(leasing: DomainConfig) -> None:
    assert _read(leasing, "Your rent of 5,250 works for us.").values == {"monthly_rent": 5250.0}


def test_quoting_the_principals_figure_states_nothing(leasing: DomainConfig) -> None:
    assert "monthly_rent" not in _read(leasing, "Your offer of 5,250 is far too low.").values


def test_a_figure_in_thousands_with_a_noun_after_it_is_the_negotiated_term(staffing: DomainConfig) -> None:
    assert _read(staffing, "The 109k offer stands until Friday.").values == {"annual_salary": 109000.0}


def test_a_statement_opening_with_what_is_no_question(staffing: DomainConfig) -> None:
    reading = _read(staffing, "What we can offer is three remote days.")
    assert not reading.question and reading.values == {"remote_days": 3.0}


def test_a_term_named_in_the_sentence_before(staffing: DomainConfig) -> None:
    assert _read(staffing, "Vacation is the sticking point. I'd need 30 days.").values == {"pto_days": 30.0}


# -- conditions the reader cannot attribute with confidence are also quoted (fail closed) -------------------
def test_a_requirement_without_a_marker_word_is_quoted(staffing: DomainConfig) -> None:
    reading = _read(staffing, "I'd sign at 101 with 4 remote days, nothing less.")
    assert any(c.quoted for c in reading.conditions)


def test_a_deadline_condition_is_also_quoted(staffing: DomainConfig) -> None:
    reading = _read(staffing, "The 9k bonus holds unless the start moves past March 3.")
    assert any(c.quoted and "march 3" in c.text.lower() for c in reading.conditions)


def test_a_condition_with_a_figure_no_term_claims_is_also_quoted(staffing: DomainConfig) -> None:
    reading = _read(staffing, "ok, 90/hr. only if it's a minimum 9 month contract")
    assert any(c.quoted and "9 month" in c.text for c in reading.conditions)


def test_a_value_right_after_the_condition_naming_its_term(staffing: DomainConfig) -> None:
    reading = _read(
        staffing, "I'm fine with 112k provided the company covers my relocation, I'd guess 9,000 or so."
    )
    assert reading.values["annual_salary"] == 112000.0
    assert ("relocation", 9000.0) in _on(reading)
    assert not [c for c in reading.conditions if c.term == "other" and not c.quoted]


# -- adversarial input: never raises, reads what a person sees, linear time ---------------------------------
@pytest.mark.parametrize(
    "text",
    [
        "I could accept 97k, but I need a $6,000 sign-on, \u043etherwise I walk.",  # Cyrillic o
        "I could accept 97k, but I need a $6,000 sign-on, other\u200bwise I walk.",  # zero-width space
    ],
)
def test_a_hidden_consequence_still_makes_the_condition(staffing: DomainConfig, text: str) -> None:
    assert ("signing_bonus", 6000.0) in _on(_read(staffing, text))


@pytest.mark.parametrize(
    "text",
    [
        "",
        "\x00\x01\x02",
        "from from from to to to 1/ /1 // 0,% ,5% : none : $0 -",
        "\u202eremote\u202c 3 days/week \ufeff net\u200b60",
        "In exchange for" * 50,
        "payment within " * 200 + "30 days",
        "\U0001f600" * 300 + " 105k",
        "Relocation: " * 400,
    ],
)
@pytest.mark.parametrize("config_name", ["staffing", "procurement", "leasing"])
def test_garbage_never_raises(request: pytest.FixtureRequest, config_name: str, text: str) -> None:
    reading = _read(request.getfixturevalue(config_name), text)
    assert TermReading.from_json(reading.to_json()) == reading


@pytest.mark.parametrize(
    "unit",
    [
        "Base goes from 100k to 101k, relocation: none, start 1/18, ",
        "In exchange for a 5-year term we need 0,5% more \u2014 3 months, otherwise no deal; ",
        "The incumbent supplier charges us 2.95, with 6 weeks, payment within 30 days; ",
        "A rival offered 3.05 and 4 reserved parking spots, nothing less. What we can do is 12 stalls. ",
    ],
)
def test_new_rules_read_in_linear_time(procurement: DomainConfig, unit: str) -> None:
    assert_reads_in_linear_time(TermReader(procurement), unit, DAY)


# -- more condition forms, each surfaced on its term ---------------------------------------------------
@pytest.mark.parametrize(
    ("config_name", "text", "term", "value"),
    [
        ("staffing", "I'll take 108 on one condition: a $6k relocation budget.", "relocation", 6000.0),
        (
            "procurement",
            "The price holds at 5.20 only for orders above 12,000 units.",
            "order_volume",
            12000.0,
        ),
        ("staffing", "Count me in at 116k, though I'd need 4 remote days.", "remote_days", 4.0),
    ],
)
def test_a_condition_form_attaches_to_its_term(
    request: pytest.FixtureRequest, config_name: str, text: str, term: str, value: float
) -> None:
    assert (term, value) in _on(_read(request.getfixturevalue(config_name), text))


def test_a_start_no_earlier_than_a_date_is_also_quoted(staffing: DomainConfig) -> None:
    reading = _read(staffing, "Fine at 117k, though I'd need to start no earlier than April 6.")
    assert any(c.quoted and "april 6" in c.text.lower() for c in reading.conditions)


# -- totals, equivalents, caps and divisors are no terms of their own ----------------------------------
def test_a_total_before_a_colon_gives_its_parts(staffing: DomainConfig) -> None:
    reading = _read(staffing, "Overall package 140k in total: 126k base, the rest as a signing bonus.")
    assert reading.values == {"annual_salary": 126000.0, "signing_bonus": 14000.0}


def test_an_equivalent_in_another_unit_is_no_second_ask(staffing: DomainConfig) -> None:
    reading = _read(staffing, "My rate is $66/hour, which works out to roughly 137k a year.")
    assert reading.values == {"hourly_rate": 66.0, "contract_type": "contract"} or reading.values == {
        "hourly_rate": 66.0
    }


def test_a_cap_after_a_comma_is_no_new_value(procurement: DomainConfig) -> None:
    assert _read(procurement, "Penalty 0.75% per week, max 6%.").values == {"late_penalty_pct": 0.75}


def test_a_count_after_per_is_a_divisor(procurement: DomainConfig) -> None:
    assert _read(procurement, "Price per 1,000 pieces: $2,450.").values == {"unit_price": 2.45}


@pytest.mark.parametrize(
    ("text", "value"),
    [("Delivery within 30 calendar days.", 4.3), ("We dispatch in 20 working days.", 4.0)],
)
def test_calendar_and_working_days(procurement: DomainConfig, text: str, value: float | None) -> None:
    assert _read(procurement, text).values.get("lead_time") == value


def test_working_days_with_their_term(procurement: DomainConfig) -> None:
    assert _read(procurement, "Lead time is 10 working days.").values == {"lead_time": 2.0}


def test_working_days_without_a_term_word_are_no_lead_time(procurement: DomainConfig) -> None:
    assert _read(procurement, "Our reply may take 4 business days.").values == {}


def test_an_offer_letter_reported_is_competing(staffing: DomainConfig) -> None:
    reading = _read(staffing, "Her offer letter shows 124k and a 6k sign-on.")
    assert reading.values == {}
    assert {t.term for t in reading.competing} == {"annual_salary", "signing_bonus"}


def test_a_break_option_is_no_lease_term(leasing: DomainConfig) -> None:
    assert _read(leasing, "A 7-year lease with a break clause after year 3.").values == {"lease_term": 84.0}


@pytest.mark.parametrize(
    ("config_name", "text", "words"),
    [
        ("staffing", "We'll add the $9k relocation should he accept by Monday.", "should he accept"),
        ("staffing", "The 7k bonus is tied to a start before April.", "tied to"),
        ("procurement", "net 45 fine but then the price is 4.05", "but then"),
    ],
)
def test_a_condition_without_the_usual_words_still_reaches_the_principal(
    request: pytest.FixtureRequest, config_name: str, text: str, words: str
) -> None:
    reading = _read(request.getfixturevalue(config_name), text)
    assert any(words in c.text.lower() or c.term != "other" for c in reading.conditions)


@pytest.mark.parametrize(
    "text", ["What start date should we propose to her?", "Which rate should your client expect?"]
)
def test_should_in_a_question_is_no_condition(staffing: DomainConfig, text: str) -> None:
    assert not _read(staffing, text).conditions


def test_what_is_in_place_now_is_no_term_on_offer(staffing: DomainConfig) -> None:
    assert _read(staffing, "Your number of 101k is under his current 106k.").values == {}


def test_an_option_after_current_is_still_stated(leasing: DomainConfig) -> None:
    assert _read(leasing, "The unit comes in its current as-is condition.").values == {
        "improvements": "as_is"
    }


def test_a_yes_no_question_about_the_other_side_states_nothing(leasing: DomainConfig) -> None:
    reading = _read(leasing, "Did your client pick between the 1,800 and the 2,400 sq ft suites?")
    assert reading.question and reading.values == {}


def test_a_proposal_as_a_question_still_states_its_terms(staffing: DomainConfig) -> None:
    reading = _read(staffing, "Have you considered 105k with 3 remote days?")
    assert reading.question and reading.values == {"annual_salary": 105000.0, "remote_days": 3.0}
