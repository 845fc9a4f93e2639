"""The term reader's conditions with no cue word, and the error classes found after term set v5.

Each class is tested in wordings written for these tests (none is a sentence of a labelled set):

- a value tied to a value of another term ("at 5,000 pieces ... 3.10", "for a 7-year term, 6,100",
  "hybrid 2 days → 104k") is quoted as written (fail closed), and an alternative that restates terms
  given a value before it ("With net 60 it's 4.55") sets both of its values aside;
- a commitment ("7,250 for a seven-year commitment") is a condition on its term;
- condition forms without the usual frames ("only payable upon", "the discounted rate requires", "but
  only from", "and that ..." after "provided that", German/French/Spanish frames);
- a condition on a descriptive term ("as long as the title is Senior Engineer") is read as text;
- a term given up in a condition ("gives up the relocation request") is a condition of 0;
- a figure restated in another unit ("annualized at roughly 166k") is no term;
- the spent term sets drop no condition silently.
"""

from __future__ import annotations

from datetime import date

import pytest

from parley.governance.config import DomainConfig
from parley.governance.terms import Condition, TermReader, TermReading

from .linear_time import assert_reads_in_linear_time
from .measure_terms import DEV, errors_of

DAY = date(2026, 11, 28)
SPENT = ("dev_terms", "heldout_terms", "heldout_terms2", "heldout_terms3", "heldout_terms4", "heldout_terms5")
"""The spent term sets, named one by one (a glob would load the next blind sets)."""


def _read(config: DomainConfig, text: str) -> TermReading:
    return TermReader(config).read(text, today=DAY)


def _quoted(reading: TermReading) -> list[Condition]:
    return [c for c in reading.conditions if c.term == "other" and c.quoted]


def _on(reading: TermReading, term: str) -> list[Condition]:
    return [c for c in reading.conditions if c.term == term]


def _others(reading: TermReading) -> list[str]:
    return [c.text.lower() for c in reading.conditions if c.term == "other"]


# -- ties without a condition word: quoted, never dropped ------------------------------------------------
@pytest.mark.parametrize(
    ("domain", "text", "terms", "words"),
    [
        ("procurement", "At 5,000 pieces we can quote 3.10 each.", {"order_volume", "unit_price"}, "5,000"),
        ("leasing", "for a 7-year term, 6,100 a month", {"lease_term", "monthly_rent"}, "7-year"),
        ("staffing", "hybrid 2 days → 104k", {"annual_salary"}, "→"),
        ("staffing", "with 3 remote days it's 101k", {"remote_days", "annual_salary"}, "remote"),
    ],
)
def test_a_tie_between_two_terms_is_quoted_and_keeps_its_values(
    request: pytest.FixtureRequest, domain: str, text: str, terms: set[str], words: str
) -> None:
    reading = _read(request.getfixturevalue(domain), text)
    assert terms <= {t.term for t in reading.terms}
    assert any(words in c.text for c in _quoted(reading)), reading.conditions
    assert not [c for c in reading.conditions if not c.quoted], "no tie is attributed by guess"


def test_an_alternative_after_the_offer_is_set_aside_and_quoted(procurement: DomainConfig) -> None:
    reading = _read(procurement, "We can hold 4.40 on net 30. With net 60 it's 4.55.")
    assert reading.values == {"unit_price": 4.4, "payment_terms": "net30"}
    assert any("net 60" in c.text for c in _quoted(reading))


def test_a_restated_pair_joined_by_a_copula_is_an_alternative(leasing: DomainConfig) -> None:
    reading = _read(leasing, "Rent 5,200 with a 5-year lease; 3 years would be 5,600.")
    assert reading.values == {"monthly_rent": 5200.0, "lease_term": 60.0}
    assert any("5,600" in c.text for c in _quoted(reading))


def test_an_alternative_after_in_which_case_is_not_the_offer(leasing: DomainConfig) -> None:
    reading = _read(
        leasing, "We're at 6,800 a month unless your client signs for 7 years, in which case 6,550."
    )
    assert reading.get("monthly_rent") is not None and reading.values["monthly_rent"] == 6800.0
    assert any("6,550" in c.text for c in _quoted(reading))


def test_a_pair_of_unrelated_values_is_no_tie(staffing: DomainConfig, procurement: DomainConfig) -> None:
    """A list, a rate's "per" or a conjunction between two values keeps them apart: nothing is quoted."""
    for config, text in (
        (staffing, "Base 118k, 3 remote days, 25 PTO days."),
        (procurement, "Unit price 2.35 and lead time 6 weeks."),
        (procurement, "We quote $4.10 per unit for delivery in 5 weeks."),
    ):
        reading = _read(config, text)
        assert not reading.conditions, (text, reading.conditions)


def test_a_commitment_is_a_condition_on_its_term(leasing: DomainConfig) -> None:
    reading = _read(leasing, "We'd accept 7,250 for a seven-year commitment.")
    assert [(c.term, c.value) for c in _on(reading, "lease_term")] == [("lease_term", 84.0)]
    assert reading.values["monthly_rent"] == 7250.0


def test_a_lease_term_stated_with_the_rent_is_no_condition(leasing: DomainConfig) -> None:
    reading = _read(leasing, "Rent is $5,900 per month on a 6-year lease.")
    assert not _on(reading, "lease_term") and reading.values["lease_term"] == 72.0


# -- condition forms without the usual frames ------------------------------------------------------------
@pytest.mark.parametrize(
    ("domain", "text", "word"),
    [
        ("procurement", "The rebate is only payable upon receipt of the annual volume report.", "report"),
        ("procurement", "The discounted rate requires a two-year framework agreement.", "framework"),
        (
            "procurement",
            "We accept a 1% weekly penalty, but only from the second week of delay.",
            "second week",
        ),
        (
            "procurement",
            "Our price is 3.20; the price is only valid against a signed blanket order.",
            "blanket",
        ),
        ("leasing", "Bei Abschluss bis Ende Januar gibt es 2 mietfreie Monate.", "januar"),
        (
            "leasing",
            "Falls der Mietvertrag bis Freitag unterschrieben wird, gibt es 1 Monat mietfrei.",
            "freitag",
        ),
        (
            "staffing",
            "Nous proposons 88 000 € par an, à condition que le candidat commence avant mars.",
            "mars",
        ),
        ("staffing", "Ofrecemos 90.000 al año, siempre que empiece en enero.", "enero"),
    ],
)
def test_a_condition_form_without_a_frame_is_kept(
    request: pytest.FixtureRequest, domain: str, text: str, word: str
) -> None:
    reading = _read(request.getfixturevalue(domain), text)
    assert any(word in other for other in _others(reading)), reading.conditions


def test_a_second_condition_joined_by_and_that_is_kept(leasing: DomainConfig) -> None:
    reading = _read(
        leasing,
        "The owner agrees to 6,400 a month, provided that the term is at least 5 years and that the "
        "guarantor signs the lease.",
    )
    assert [c.value for c in _on(reading, "lease_term")] == [60.0]
    assert any("guarantor" in other for other in _others(reading))


# -- the error classes ------------------------------------------------------------------------------------
def test_a_condition_on_a_descriptive_term_is_read_as_text(
    staffing: DomainConfig, leasing: DomainConfig
) -> None:
    reading = _read(staffing, "We can do 150k as long as the title is Senior Engineer.")
    assert not _on(reading, "seniority") and any("title" in o for o in _others(reading))
    assert reading.values["annual_salary"] == 150000.0
    reading = _read(
        leasing, "The landlord accepts 4,100 on the understanding that the use stays retail only."
    )
    assert not _on(reading, "use_type") and any("retail" in o for o in _others(reading))


@pytest.mark.parametrize(
    ("domain", "text", "term"),
    [
        ("staffing", "We'll do 120k provided she gives up the relocation request.", "relocation"),
        ("staffing", "Fine with 118 if he drops his signing bonus ask.", "signing_bonus"),
        ("leasing", "If your client forgoes the free months, rent can be 4,700.", "free_months"),
        ("leasing", "Drop the free months and we can do 5,100.", "free_months"),
    ],
)
def test_a_term_given_up_in_a_condition_is_a_condition_of_zero(
    request: pytest.FixtureRequest, domain: str, text: str, term: str
) -> None:
    reading = _read(request.getfixturevalue(domain), text)
    assert [c.value for c in _on(reading, term)] == [0.0], reading.conditions
    assert reading.values[term] == 0.0


@pytest.mark.parametrize(
    ("text", "stated", "not_stated"),
    [
        ("We pay $80 an hour — annualized at roughly 166k.", "hourly_rate", "annual_salary"),
        ("We can do 55 an hour, or the equivalent annual salary of 114.", "hourly_rate", "annual_salary"),
        ("Hourly is $61; over a full year that's about 127k.", "hourly_rate", "annual_salary"),
    ],
)
def test_a_figure_restated_in_another_unit_is_no_term(
    staffing: DomainConfig, text: str, stated: str, not_stated: str
) -> None:
    reading = _read(staffing, text)
    assert stated in reading.values and not_stated not in reading.values, reading.values


def test_an_approximate_figure_of_its_own_is_still_read(staffing: DomainConfig) -> None:
    assert _read(staffing, "We are at about 100k.").values == {"annual_salary": 100000.0}
    assert _read(staffing, "Salary is roughly 97k.").values == {"annual_salary": 97000.0}


# -- bad input ----------------------------------------------------------------------------------------------
@pytest.mark.parametrize(
    "text",
    [
        "w\u0456th 90 days \u0456ts 2.05",  # Cyrillic i
        "with 90\u200b days its 2.\u200b05",  # zero-width spaces
        "at → → → 5 ->-> => 4.2 ⇒",
        "for a -year commitment, , , for a commitment",
        "provided that and that and that and that",
        "bei bis gibt falls sofern siempre que",
        "\x00\x01 at 5k units \ufffd 3.10 \U0001f600 → 4",
        "",
    ],
)
def test_odd_text_never_raises(procurement: DomainConfig, text: str) -> None:
    reading = _read(procurement, text)
    assert isinstance(reading.conditions, tuple)


def test_a_homoglyph_tie_is_still_quoted(procurement: DomainConfig) -> None:
    reading = _read(procurement, "We can do 1.95 at net 30. W\u0456th net 60 \u0456t's 2.05.")
    assert reading.values.get("unit_price") == 1.95
    assert _quoted(reading)


@pytest.mark.parametrize(
    "unit",
    [
        "with 90 days its 2.05, at 2,000 units 11.20 → 4; ",
        "rent 5,200 for a 5-year commitment; 3 years would be 5,600, provided that x and that y. ",
        "Bei Abschluss bis Ende Januar gibt es 2 Monate. the price requires an order. ",
    ],
)
def test_ties_read_in_linear_time(leasing: DomainConfig, unit: str) -> None:
    assert_reads_in_linear_time(TermReader(leasing), unit, DAY)


# -- the spent sets ------------------------------------------------------------------------------------
def test_no_spent_term_set_drops_a_condition_silently() -> None:
    """No labelled condition of a spent term set is dropped silently (`condition_dropped`: neither
    attributed nor quoted nor read on another term); compared as numbers so a failure never prints a
    held-out text. Conditions read on the wrong term are counted apart (test_terms.py's floors)."""
    root = DEV.parents[1]
    dropped = [
        sum(e.kind == "condition_dropped" for e in errors_of(root / name / "messages.yaml")) for name in SPENT
    ]
    assert dropped == [0] * len(SPENT)


# -- corrections without the usual words -----------------------------------------------------------------
@pytest.mark.parametrize(
    ("domain", "text"),
    [
        ("procurement", "The 2.90 I quoted was the price per carton; per piece it is 0.29."),
        ("staffing", "The remote figure we gave you was for contractors: employees get 2 days."),
        ("leasing", "Apologies, I wrote per year in the LOI — the 5,800 is monthly."),
        ("staffing", "Let me rephrase: 105k base, not 150k."),
        ("procurement", "Lead time is 9 weeks — sorry, 8 weeks."),
        ("leasing", "My previous note said 3 months deposit; it is 2."),
    ],
)
def test_a_correction_without_the_usual_words_is_read(
    request: pytest.FixtureRequest, domain: str, text: str
) -> None:
    assert _read(request.getfixturevalue(domain), text).correction


@pytest.mark.parametrize(
    ("domain", "text"),
    [
        ("staffing", "As I said on the call, 110k is our best offer."),
        ("procurement", "The price we quoted is valid for 30 days."),
        ("leasing", "Sorry for the delay. Rent is 4,200 per month."),
        ("staffing", "We said we would send the offer today: 98k base, 2 remote days."),
    ],
)
def test_a_restated_offer_is_no_correction(request: pytest.FixtureRequest, domain: str, text: str) -> None:
    assert not _read(request.getfixturevalue(domain), text).correction


# -- a count named by what it is a run of --------------------------------------------------------------
@pytest.mark.parametrize(
    ("text", "volume"),
    [
        ("We'd bill $27,000 for the whole batch of 9,000.", 9000.0),
        ("The next shipment of 1,200 leaves on Monday.", 1200.0),
        ("Price holds for the production run of 35,000.", 35000.0),
    ],
)
def test_a_run_or_lot_of_a_number_is_the_order_volume(
    procurement: DomainConfig, text: str, volume: float
) -> None:
    assert _read(procurement, text).values.get("order_volume") == volume


def test_a_run_of_a_money_figure_is_no_volume(procurement: DomainConfig) -> None:
    reading = _read(procurement, "The lot of $4,000 worth of brackets ships in 3 weeks.")
    assert reading.values.get("order_volume") != 4000.0


# -- a question quoted from an earlier message ------------------------------------------------------------
@pytest.mark.parametrize(
    ("text", "question"),
    [
        ("> Could you cover the moving costs?\n\nYes: relocation of 7,000.", False),
        ("On Mon, Ana wrote:\n  > is 3 days remote ok?\n> and the start?\nAll fine, 3 days it is.", False),
        ("> Relocation?\nYes, 7,000. Can she start on March 1?", True),
        ("Would 2 remote days work?\n> earlier: 1 day", True),
    ],
)
def test_a_question_quoted_from_an_earlier_message_is_not_asked(
    staffing: DomainConfig, text: str, question: bool
) -> None:
    assert _read(staffing, text).question is question


def test_many_quoted_lines_read_in_linear_time(staffing: DomainConfig) -> None:
    assert_reads_in_linear_time(TermReader(staffing), "> is 95k ok?\nyes 95k. ", DAY)
