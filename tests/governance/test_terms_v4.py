"""Error classes of the term reader fixed after the spent term set v4 (issue 17), one group each.

Every sentence here is written for these tests (none is copied from a labelled set), so each class is
checked on wordings its rule was not tuned on; the adversarial group checks that the new rules never
raise on look-alike letters, zero-width characters, garbage and huge text, and read in linear time.
"""

from __future__ import annotations

import random
from datetime import date

import pytest

from parley.governance.config import DomainConfig
from parley.governance.terms import Condition, TermReader, TermReading

from .linear_time import assert_reads_in_linear_time

DAY = date(2026, 11, 27)


def _read(config: DomainConfig, text: str) -> TermReading:
    return TermReader(config).read(text, today=DAY)


def _on(reading: TermReading) -> set[tuple[str, object]]:
    """The conditions attributed to a term, as (term, value)."""
    return {(c.term, c.value) for c in reading.conditions if c.term != "other" and not c.quoted}


def _quoted(reading: TermReading) -> list[Condition]:
    return [c for c in reading.conditions if c.quoted]


# -- a keyword right before a rate names it, though a cost word follows ----------------------------------
@pytest.mark.parametrize(
    "text",
    [
        "Rent is $9,000 a month plus a one-time fee.",
        "The rent will be $7,250 per month plus utilities.",
        "Monthly rent $4,100, plus a small admin charge at signing.",
    ],
)
def test_a_rent_followed_by_another_cost_is_still_the_rent(leasing: DomainConfig, text: str) -> None:
    assert "monthly_rent" in _read(leasing, text).values


def test_a_cost_named_with_its_own_figure_is_no_rent(leasing: DomainConfig) -> None:
    reading = _read(leasing, "Rent is $6,300 a month; parking is $180 per space per month extra.")
    assert reading.values["monthly_rent"] == 6300.0


# -- "otherwise"/"else": the fallback is not the term on offer -------------------------------------------
@pytest.mark.parametrize(
    ("config_name", "text", "term", "value"),
    [
        (
            "procurement",
            "We can do $3.40 a unit on 20,000 units; otherwise the price is $3.75.",
            "unit_price",
            3.40,
        ),
        (
            "staffing",
            "She'll sign at 118k if the start is March 2, else it's 124k.",
            "annual_salary",
            118000.0,
        ),
        (
            "leasing",
            "The landlord accepts $6,100 a month for a five-year term, failing that $6,600 a month.",
            "monthly_rent",
            6100.0,
        ),
    ],
)
def test_a_fallback_value_does_not_replace_the_offer(
    request: pytest.FixtureRequest, config_name: str, text: str, term: str, value: float
) -> None:
    reading = _read(request.getfixturevalue(config_name), text)
    assert reading.values[term] == pytest.approx(value)
    assert any("otherwise" in c.text or "else" in c.text or "failing" in c.text for c in _quoted(reading))


def test_a_bare_fallback_after_an_unread_offer_is_set_aside(procurement: DomainConfig) -> None:
    reading = _read(procurement, "fine with 0.97 if the volume is 80k, else 1.09")
    assert reading.values.get("unit_price") != 1.09
    assert ("order_volume", 80000.0) in _on(reading)


def test_otherwise_without_a_value_before_it_changes_nothing(staffing: DomainConfig) -> None:
    reading = _read(staffing, "She needs 4 remote days, otherwise she will not move.")
    assert reading.values == {"remote_days": 4.0}


# -- a condition form ends where its promise begins -----------------------------------------------------
@pytest.mark.parametrize(
    ("config_name", "text", "condition", "stated"),
    [
        (
            "staffing",
            "Throw in 22 days of PTO and we have a deal at 109.",
            ("pto_days", 22.0),
            ("annual_salary", 109000.0),
        ),
        (
            "leasing",
            "Throw in 3 parking spaces and you've got a deal at 5,300 a month.",
            ("parking", 3.0),
            ("monthly_rent", 5300.0),
        ),
    ],
)
def test_a_bare_figure_after_a_condition_form_is_not_its_term(
    request: pytest.FixtureRequest,
    config_name: str,
    text: str,
    condition: tuple[str, float],
    stated: tuple[str, float],
) -> None:
    reading = _read(request.getfixturevalue(config_name), text)
    assert condition in _on(reading)
    assert reading.values[stated[0]] == stated[1]
    assert reading.values[condition[0]] == condition[1]


@pytest.mark.parametrize(
    ("text", "term", "value"),
    [
        ("We can do 121k provided the relocation is 9.", "relocation", 9000.0),
        ("Base 107 as long as the sign-on bonus is 6.", "signing_bonus", 6000.0),
    ],
)
def test_a_bare_figure_inside_a_condition_is_the_named_term(
    staffing: DomainConfig, text: str, term: str, value: float
) -> None:
    reading = _read(staffing, text)
    assert (term, value) in _on(reading)
    salary = reading.values["annual_salary"]
    assert isinstance(salary, float) and salary > 100000


# -- a count its keyword names outright, far from the usual order ----------------------------------------
@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("The quantity must be at least 400k for that price.", 400000.0),
        ("qty 75k, price 0.61 usd, 7 wk", 75000.0),
        ("Min order 90k units at $1.15.", 90000.0),
    ],
)
def test_a_count_named_right_before_it_is_read_however_large(
    procurement: DomainConfig, text: str, value: float
) -> None:
    assert _read(procurement, text).values["order_volume"] == value


def test_a_large_count_its_keyword_does_not_name_stays_unread(procurement: DomainConfig) -> None:
    reading = _read(procurement, "The order, as discussed on 3 calls with 14 people, is fine.")
    assert "order_volume" not in reading.values


# -- the start of a tenancy named by its keys, commencement or start ------------------------------------
@pytest.mark.parametrize(
    ("text", "day"),
    [
        ("Your client can have the keys on 2 March.", "2027-03-02"),
        ("Commencement date 2027-06-01, rent as agreed.", "2027-06-01"),
        ("They would like to start the lease on 12 April 2027.", "2027-04-12"),
    ],
)
def test_the_start_of_a_tenancy_is_the_move_in(leasing: DomainConfig, text: str, day: str) -> None:
    assert str(_read(leasing, text).values["move_in"]) == day


def test_a_deadline_for_the_lease_to_start_is_no_move_in(leasing: DomainConfig) -> None:
    reading = _read(leasing, "Two months free works, as long as the lease starts before June 1.")
    assert "move_in" not in reading.values
    assert reading.conditions


# -- "not certified (yet)": no certification, whatever is planned -------------------------------------------
@pytest.mark.parametrize(
    "text",
    [
        "We are not formally certified at this point.",
        "There is no quality certification on our side.",
        "Not certified yet; an ISO 9001 audit is planned for the spring.",
        "We're not yet certified, though we will look at IATF 16949 in 2028.",
    ],
)
def test_a_supplier_without_certification_states_none(procurement: DomainConfig, text: str) -> None:
    assert _read(procurement, text).values["certification"] == "none"


@pytest.mark.parametrize(
    ("text", "option"),
    [
        ("Our plant has been ISO 9001 certified since 2015.", "iso9001"),
        ("Not AS9100 certified, but we do hold ISO 9001.", "iso9001"),
    ],
)
def test_a_held_certification_is_still_read(procurement: DomainConfig, text: str, option: str) -> None:
    assert _read(procurement, text).values["certification"] == option


# -- a job at the workplace every day is onsite -----------------------------------------------------------
@pytest.mark.parametrize(
    "text",
    [
        "Sorry, this is an in-office role, 104k.",
        "It's an onsite job at our Leeds plant.",
        "She would be on site 5 days, salary 97k.",
    ],
)
def test_a_job_at_the_workplace_is_onsite(staffing: DomainConfig, text: str) -> None:
    assert _read(staffing, text).values["location"] == "onsite"


@pytest.mark.parametrize(
    "text", ["Hybrid: two days a week in the office.", "Two days a week in the office, the rest from home."]
)
def test_some_office_days_are_not_onsite(staffing: DomainConfig, text: str) -> None:
    reading = _read(staffing, text)
    assert reading.values.get("location") != "onsite"
    assert reading.values["remote_days"] == 3.0


# -- days to pay written without "net" -------------------------------------------------------------------
@pytest.mark.parametrize(
    ("text", "option"),
    [
        ("price 2.15, payment 60 days, lead 5 wk", "net60"),
        ("Ninety-day payment terms are fine with us.", "net90"),
        ("We'd want net thirty on this one.", "net30"),
        ("Preis 3,10 EUR, Zahlung 30 Tage netto.", "net30"),
    ],
)
def test_days_to_pay_are_the_payment_terms(procurement: DomainConfig, text: str, option: str) -> None:
    assert _read(procurement, text).values["payment_terms"] == option


def test_days_of_payment_after_another_event_are_no_terms(procurement: DomainConfig) -> None:
    reading = _read(procurement, "We ship within 30 days of your payment clearing.")
    assert "payment_terms" not in reading.values


# -- no condition dropped silently (fail closed) ---------------------------------------------------------
def test_under_the_condition_that_is_a_condition(staffing: DomainConfig) -> None:
    reading = _read(staffing, "He signs at 104k under the condition that the team offsite is paid.")
    assert reading.values["annual_salary"] == 104000.0
    assert any("offsite" in c.text for c in reading.conditions)


def test_when_after_an_acceptance_is_a_condition(staffing: DomainConfig) -> None:
    reading = _read(staffing, "112k is fine for her when she can work from home three days a week.")
    assert ("remote_days", 3.0) in _on(reading)


def test_a_conjunct_of_a_condition_no_term_reads_is_quoted(leasing: DomainConfig) -> None:
    text = "They'd sign at $5,900, but only with 2 months free and the owner repainting the lobby."
    reading = _read(leasing, text)
    assert ("free_months", 2.0) in _on(reading)
    assert any("repainting" in c.text for c in _quoted(reading))


def test_a_plural_anaphoric_condition_is_also_quoted(staffing: DomainConfig) -> None:
    text = (
        "First, relocation has to be 11k. Second, the start should be April 6. "
        "If you can agree to both, she signs at 119k."
    )
    reading = _read(staffing, text)
    assert any("both" in c.text for c in _quoted(reading))


@pytest.mark.parametrize(
    "text",
    ["Fine at 101k if we get her those 3 days.", "We can do 99k if he can manage that."],
)
def test_a_condition_the_reader_could_not_tie_is_flagged(staffing: DomainConfig, text: str) -> None:
    reading = _read(staffing, text)
    assert reading.conditions and all(c.quoted for c in reading.conditions if c.term == "other")


def test_a_condition_naming_no_term_is_not_flagged(procurement: DomainConfig) -> None:
    reading = _read(procurement, "3.20 a unit, provided the audit of your plant goes well.")
    others = [c for c in reading.conditions if c.term == "other"]
    assert others and not any(c.quoted for c in others)


# -- a message owning up to an error is a correction ------------------------------------------------------
@pytest.mark.parametrize(
    "text",
    [
        "We made an error in yesterday's quote: the unit price is 2.35, not 2.53.",
        "I need to correct a mistake in my offer letter: the base is 109k.",
        "A clarification: the 7,000 I gave you was the monthly figure.",
    ],
)
def test_owning_up_to_an_error_is_a_correction(
    procurement: DomainConfig, staffing: DomainConfig, text: str
) -> None:
    config = procurement if "unit price" in text else staffing
    assert _read(config, text).correction


def test_an_error_rate_is_no_correction(procurement: DomainConfig) -> None:
    assert not _read(procurement, "Our error rate is under 0.2% at 4.10 a unit.").correction


# -- adversarial input --------------------------------------------------------------------------------------
def test_look_alike_letters_and_zero_width_do_not_hide_a_fallback(procurement: DomainConfig) -> None:
    text = "We can do $3.40 a unit on 20,000 units; oth\u0435rw\u0456se the price is $3.\u200b75."
    reading = _read(procurement, text)
    assert reading.values.get("unit_price") != 3.75
    assert reading.conditions


def test_zero_width_inside_a_condition_marker_still_surfaces_it(staffing: DomainConfig) -> None:
    reading = _read(staffing, "He signs at 104k und\u200ber the cond\u200bition that the offsite is paid.")
    assert reading.conditions


@pytest.mark.parametrize("config_name", ["staffing", "procurement", "leasing"])
def test_garbage_never_raises(request: pytest.FixtureRequest, config_name: str) -> None:
    config = request.getfixturevalue(config_name)
    alphabet = "otherwise else qty 0123456789.,;:$€%-/ \n\u200b\u0456\u0435 and throw in deal when ok"
    rng = random.Random(17)
    for _ in range(60):
        text = "".join(rng.choice(alphabet) for _ in range(rng.randint(0, 300)))
        reading = _read(config, text)
        assert TermReading.from_json(reading.to_json()) == reading


@pytest.mark.parametrize(
    "unit",
    [
        "ok with 1.05 if qty is 40k, else 1.12; otherwise 1.20. ",
        "Throw in 3 parking spaces and we have a deal at 5,300, but only with 2 months free and paint. ",
        "payment 60 days, net sixty, under the condition that it ships; fine when it does. ",
        "not certified yet, ISO 9001 audit in 2027 not formally certified IATF 16949 planned ",
    ],
)
def test_new_rules_read_in_linear_time(procurement: DomainConfig, unit: str) -> None:
    assert_reads_in_linear_time(TermReader(procurement), unit, DAY)
