"""The forms the term reader learnt in round v9 (issue 17, "Understanding the counterparty").

Each form is a construction, not a phrase: the sentences below are written for these tests (none is
copied from a labelled set), and each form has near-misses of the same shape that must read otherwise.

- a requirement stated beside its term ("Relocation up to 6k, invoices required"): a condition that
  reaches the principal; "no deposit required" and "if needed" state none;
- an imperative joined by "and" to our side's commitment in the present tense ("Knock the rent down to
  5,000 and we sign for five years"): the imperative's values are the commitment's conditions; a
  statement with a copula ("Order volume is 5,000 and we ship in 4 weeks") is none;
- a question that asks about a figure rather than proposing it ("is the 6,300 gross or net?", "could
  you do better than 21 days?", "any flexibility on the 110k base?", "is 9 weeks a dealbreaker?"): the
  figure is no stated term; "would 118k work for your candidate?" still proposes 118k;
- a fallback's bare figure that no word of its term names ("..., otherwise 6"): it stands for the value
  given before it and is set aside (and the fallback quoted once);
- an alternative after ", or" ("Deposit of 3 months, or 2 months with a parent guarantee"): a value of
  a term the message gave before it is the other option, set aside and quoted; "or so" is none;
- "firm" and "bank" as adjectives ("a firm order", "a bank guarantee") name no competing company;
- money toward the works ("will contribute $45,000 towards the fit-out") names the fit-out allowance;
- a count written in its unit far above the domain's usual orders ("3 million units") is still read;
- a figure said to belong to something else ("the 6,100 I gave you was for the larger suite", "sorry,
  that was last year's rate") makes the message a correction;
- every conjunct of a conditional clause is a condition ("if the warranty is 24 months and you take the
  full 9,000", "provided A, B and C"): the other side's part in the present tense goes on with the
  condition; a promise with a modal ("and you'll hear from us by Friday") is a clause of its own;
- a refusal to commit unless something is absent ("everything except the penalty clause", "we won't
  sign with any late penalty", "just not with a late penalty", "fine, without any deposit"), in a message
  that accepts other terms: the absence is a condition, on its term when it names one and quoted
  otherwise; an exception of time ("except on Fridays we're closed"), a term left in dispute ("yes to
  everything except the rent") and a question set none.
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import date

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from parley.governance.config import DomainConfig
from parley.governance.term_guard import MAX_QUOTED, UNEXPLAINED
from parley.governance.terms import TermReader, TermReading

from .linear_time import assert_reads_in_linear_time

DAY = date(2026, 11, 27)
ANY = "any"
"""Expected condition: not checked (the row is about the terms)."""
QUOTED = "quoted"
"""Expected condition: a conditional clause quoted as written."""
OTHER = "other"
"""Expected condition: a condition on no term, with its text."""
NONE = "none"
"""Expected condition: the message sets none."""


def _read(config: DomainConfig, text: str) -> TermReading:
    return TermReader(config).read(text, today=DAY)


# (domain, message, terms it must state with their values, terms it must not state, condition)
FORMS: list[tuple[str, str, Mapping[str, float | str], tuple[str, ...], str]] = [
    # -- a requirement stated beside its term ----------------------------------------------------------
    ("staffing", "Moving allowance up to 6 grand, invoices required.", {"relocation": 6000}, (), OTHER),
    ("leasing", "Rent 4,900 a month \u2014 bank reference needed.", {"monthly_rent": 4900}, (), OTHER),
    ("procurement", "Net 45 is fine, credit insurance mandatory.", {"payment_terms": "net45"}, (), OTHER),
    ("leasing", "We can go to 5,300, with the service charge included.", {"monthly_rent": 5300}, (), OTHER),
    # near-misses: no requirement
    ("leasing", "Rent 4,900 a month, no deposit required.", {"monthly_rent": 4900, "deposit": 0}, (), NONE),
    ("staffing", "Relocation up to 6k, if needed.", {"relocation": 6000}, (), NONE),
    ("staffing", "Is a drug test required?", {}, (), NONE),
    # -- an imperative joined to our side's commitment -------------------------------------------------
    (
        "leasing",
        "Knock the rent down to 5,000 and we sign for five years.",
        {"monthly_rent": 5000, "lease_term": 60},
        (),
        "monthly_rent",
    ),
    (
        "procurement",
        "Match 3.80 per unit and we order 20,000 pieces this quarter.",
        {"unit_price": 3.8, "order_volume": 20000},
        (),
        "unit_price",
    ),
    ("staffing", "Send the written offer and my client resigns tomorrow.", {}, (), OTHER),
    # near-misses: a statement, a courtesy
    (
        "procurement",
        "Order volume is 5,000 and we ship in 4 weeks.",
        {"order_volume": 5000, "lead_time": 4},
        (),
        NONE,
    ),
    ("leasing", "Rent is 5,000 and we are flexible on the term.", {"monthly_rent": 5000}, (), NONE),
    ("staffing", "Thanks for the call and we look forward to your offer.", {}, (), NONE),
    # -- a question about a figure, not a proposal -----------------------------------------------------
    ("leasing", "Is the 6,300 gross or net of service charges?", {}, ("monthly_rent",), ANY),
    ("staffing", "Is the 9k sign-on paid up front or in two parts?", {}, ("signing_bonus",), ANY),
    ("staffing", "Could you do better than 21 days of holiday?", {}, ("pto_days",), ANY),
    ("procurement", "Can you beat 2.90 per unit?", {}, ("unit_price",), ANY),
    ("staffing", "Is there any flexibility on the 110k base?", {}, ("annual_salary",), ANY),
    ("procurement", "Is 9 weeks a dealbreaker or could you live with 10?", {}, ("lead_time",), ANY),
    # near-misses: questions that propose
    ("staffing", "Would 118k work for your candidate?", {"annual_salary": 118000}, (), ANY),
    ("staffing", "Any flexibility to reach 95k on base?", {"annual_salary": 95000}, (), ANY),
    # -- a fallback's bare figure ----------------------------------------------------------------------
    (
        "procurement",
        "We deliver in 3 weeks while the steel is in stock, otherwise 6.",
        {"lead_time": 3},
        ("unit_price",),
        QUOTED,
    ),
    # near-miss: a fallback whose figure names its term, with nothing before it to replace
    ("procurement", "Sign by Friday, otherwise 4.20 per unit.", {"unit_price": 4.2}, (), QUOTED),
    # -- an alternative after ", or": a value of a term given before is the other option, not the offer --
    ("leasing", "Deposit of 3 months, or 2 months with a parent guarantee.", {"deposit": 3}, (), QUOTED),
    (
        "leasing",
        "Rent 5,000 a month on a 5-year lease, or a 3-year lease at 5,400.",
        {"monthly_rent": 5000, "lease_term": 60},
        (),
        QUOTED,
    ),
    (
        "procurement",
        "We quote 2.60 per unit at 6 weeks, or 2.45 per unit at 9 weeks.",
        {"unit_price": 2.6, "lead_time": 6},
        (),
        QUOTED,
    ),
    # near-misses: "or so" is no alternative; an "or" that adds another term keeps it
    (
        "procurement",
        "Lead time is 5 weeks or so, price 2.10 per unit.",
        {"lead_time": 5, "unit_price": 2.1},
        (),
        NONE,
    ),
    (
        "procurement",
        "Price 2.10 per unit, or net 60 if you prefer.",
        {"unit_price": 2.1, "payment_terms": "net60"},
        (),
        ANY,
    ),
    # -- "firm" and "bank" as adjectives ---------------------------------------------------------------
    (
        "procurement",
        "We can do 3.70 per unit with a firm order of 15,000 pieces.",
        {"unit_price": 3.7, "order_volume": 15000},
        (),
        ANY,
    ),
    (
        "leasing",
        "Deposit waived for tenants who provide a bank guarantee; rent 4,400 a month.",
        {"monthly_rent": 4400, "deposit": 0},
        (),
        OTHER,
    ),
    # near-misses: a firm and a bank that are other parties
    ("procurement", "A firm in Ohio quoted us 3.60 per unit.", {}, ("unit_price",), ANY),
    ("leasing", "A bank next door offered my client 4,000 a month.", {}, ("monthly_rent",), ANY),
    # -- a count in its own unit far above the domain's usual orders -------------------------------------
    (
        "procurement",
        "We can do 0.07 per unit on 3 million units.",
        {"unit_price": 0.07, "order_volume": 3_000_000},
        (),
        NONE,
    ),
    # near-misses: no unit written; an address read as millions
    ("procurement", "We can do 0.07 per unit on 3 million.", {"unit_price": 0.07}, ("order_volume",), ANY),
    (
        "leasing",
        "We would like the ground floor unit at 12 Mill Road for 2,900 a month.",
        {"monthly_rent": 2900},
        ("space_size",),
        ANY,
    ),
    # -- money toward the works --------------------------------------------------------------------------
    (
        "leasing",
        "Rent is $6,200 a month. The landlord will contribute $35,000 toward the build-out.",
        {"monthly_rent": 6200, "ti_allowance": 35000, "improvements": "allowance"},
        (),
        NONE,
    ),
    # near-miss: a turnkey fit-out another landlord offers is no allowance of ours
    (
        "leasing",
        "Another landlord offered 5,600 with a turnkey fit-out.",
        {},
        ("ti_allowance", "monthly_rent"),
        ANY,
    ),  # -- every conjunct of a conditional clause --------------------------------------------------------
    (
        "procurement",
        "That's fine if the warranty is 36 months and you take the whole 12,000.",
        {"warranty": 36, "order_volume": 12000},
        (),
        "order_volume",
    ),
    (
        "leasing",
        "We accept 5,000 a month, as long as the term is 5 years and you cover the fit-out.",
        {"monthly_rent": 5000, "lease_term": 60},
        (),
        OTHER,
    ),
    # near-misses: a courtesy with a modal, a reply to come
    (
        "procurement",
        "Fine if the warranty is 24 months, and you'll hear from us by Friday.",
        {"warranty": 24},
        (),
        "warranty",
    ),
    ("staffing", "Thanks for the offer and you will hear from us by Friday.", {}, (), NONE),
    # -- the absence of a term as the price of the rest --------------------------------------------------
    (
        "procurement",
        "We accept all the terms except the late-delivery penalty.",
        {"late_penalty_pct": 0},
        (),
        "late_penalty_pct",
    ),
    (
        "procurement",
        "Net 30 suits us, but we will not sign with any penalty.",
        {"payment_terms": "net30", "late_penalty_pct": 0},
        (),
        "late_penalty_pct",
    ),
    (
        "procurement",
        "We can do 2.40 \u2014 just not with a late penalty.",
        {"unit_price": 2.4, "late_penalty_pct": 0},
        (),
        "late_penalty_pct",
    ),
    (
        "leasing",
        "Rent of 5,200 is fine, without any deposit.",
        {"monthly_rent": 5200, "deposit": 0},
        (),
        "deposit",
    ),
    ("procurement", "We are happy with all of it, except the exclusivity clause.", {}, (), QUOTED),
    # near-misses: an exception of time, a term still in dispute, a question, nothing accepted
    ("procurement", "Price 2.10 is fine, except on Fridays we're closed.", {"unit_price": 2.1}, (), NONE),
    ("leasing", "The owner says yes to everything except the rent.", {}, ("monthly_rent",), NONE),
    ("procurement", "Is everything fine except the penalty clause?", {}, ("late_penalty_pct",), NONE),
    ("procurement", "We ship every day except Sunday.", {}, (), NONE),
]


def _value_matches(read: object, expected: float | str) -> bool:
    if isinstance(expected, str):
        return read == expected
    return isinstance(read, int | float) and abs(float(read) - expected) <= 0.005 * max(1.0, abs(expected))


@pytest.mark.parametrize(("domain", "text", "present", "absent", "condition"), FORMS)
def test_each_form_reads_as_written_and_its_near_misses_do_not(
    domain: str,
    text: str,
    present: Mapping[str, float | str],
    absent: tuple[str, ...],
    condition: str,
    request: pytest.FixtureRequest,
) -> None:
    config: DomainConfig = request.getfixturevalue(domain)
    reading = _read(config, text)
    stated = {t.term: t.value for t in reading.terms}
    for term, value in present.items():
        assert term in stated and _value_matches(stated[term], value), (term, stated)
    for term in absent:
        assert term not in stated, (term, stated)
    conditions = reading.conditions
    if condition == NONE:  # no condition read (a sentence not fully read may still be quoted: issue 17)
        assert [c for c in conditions if c.source != UNEXPLAINED] == [], conditions
    elif condition == QUOTED:
        assert any(c.quoted for c in conditions), conditions
    elif condition == OTHER:
        assert any(c.term == "other" and c.text for c in conditions), conditions
    elif condition != ANY:
        assert any(c.term == condition and not c.quoted for c in conditions), conditions


# A figure given before said to belong to something else is a correction; the same words without a
# figure before them, or without an apology, are none.
CORRECTIONS: list[tuple[str, bool]] = [
    ("The 6,100 I gave you was for the larger suite; for this one it's 5,700.", True),
    ("Rent is 5,900 \u2014 apologies, that was last year's rate; from March it is 6,050.", True),
    ("It was the old price that bothered them; rent is now 5,200.", False),
    ("Parking was the other issue; rent 5,200 a month.", False),
]


@pytest.mark.parametrize(("text", "correction"), CORRECTIONS)
def test_a_figure_said_to_belong_to_something_else_is_a_correction(
    leasing: DomainConfig, text: str, correction: bool
) -> None:
    assert _read(leasing, text).correction is correction


# Each conjunct of a condition is attributed, and only the condition's conjuncts are.
CONJUNCTS: list[tuple[str, str, set[str]]] = [
    (
        "procurement",
        "Net 45 works provided delivery is 6 weeks, the warranty is 24 months and you order 12,000 units.",
        {"lead_time", "warranty", "order_volume"},
    ),
    (
        "procurement",
        "That works if the warranty is 24 months and you take the full 9,000.",
        {"warranty", "order_volume"},
    ),
    (
        "procurement",
        "That works if the warranty is 24 months, and you'll hear from us by Friday.",
        {"warranty"},
    ),
    (
        "procurement",
        "Net 45 works if delivery is 6 weeks. The price is 2.10 and we ship from Ohio.",
        {"lead_time"},
    ),
]


@pytest.mark.parametrize(("domain", "text", "expected"), CONJUNCTS)
def test_every_conjunct_of_a_condition_is_a_condition(
    domain: str, text: str, expected: set[str], request: pytest.FixtureRequest
) -> None:
    config: DomainConfig = request.getfixturevalue(domain)
    conditions = _read(config, text).conditions
    assert {c.term for c in conditions if not c.quoted} == expected, conditions


def test_one_absence_said_twice_is_one_condition(procurement: DomainConfig) -> None:
    text = "We agree to everything except the penalty clause; we won't sign with any late penalty."
    conditions = _read(procurement, text).conditions
    assert [(c.term, c.quoted) for c in conditions] == [("late_penalty_pct", False)], conditions


def test_a_fallback_is_quoted_once(procurement: DomainConfig) -> None:
    text = "We deliver in 3 weeks while the steel is in stock, otherwise 6."
    quotes = [c.text for c in _read(procurement, text).conditions if c.quoted]
    assert len(quotes) == len(set(quotes)) == 1, quotes


# -- adversarial input -------------------------------------------------------------------------------------
HIDDEN: list[tuple[str, str]] = [
    ("staffing", "Moving allowance up to 6 grand, invoices requ\u200bired."),  # zero-width space
    ("staffing", "Moving allowance up to 6 grand, invoices r\u0435quired."),  # Cyrillic "е"
    ("leasing", "Knock the rent down to 5,000 and w\u0435 sign for five years."),
    ("procurement", "That works if the warranty is 24 months and y\u200bou take the full 9,000."),
    ("procurement", "We agree to everything exc\u0435pt the penalty clause."),
    ("procurement", "We won\u2019t sign with any l\u200bate penalty; net 30 is fine."),
]


@pytest.mark.parametrize(("domain", "text"), HIDDEN)
def test_a_condition_hidden_behind_a_homoglyph_or_zero_width_still_reaches_the_principal(
    domain: str, text: str, request: pytest.FixtureRequest
) -> None:
    config: DomainConfig = request.getfixturevalue(domain)
    assert _read(config, text).conditions


@pytest.mark.parametrize(
    "unit",
    [
        "Relo, receipts ",  # a requirement waiting for its "required"
        "Give us the free months and we ",  # an imperative waiting for its commitment
        "Knock the rent down and we sign, ",  # commitments with no sentence end
        ", otherwise the rent, or ",  # fallbacks and alternatives with nothing to replace
        "Is the rent gross or ",  # an alternative question that never closes
        "with a firm order and a bank ",
        "except the ",  # exceptions with nothing after them
        "if the rent is 5, and you take ",  # conjuncts that never close
        "we won't sign with not with without a ",
    ],
)
def test_crafted_input_reads_in_linear_time(leasing: DomainConfig, unit: str) -> None:
    assert_reads_in_linear_time(TermReader(leasing), unit, DAY)


def test_huge_text_never_raises(procurement: DomainConfig) -> None:
    text = "Match 3.80 per unit and we order 20,000 pieces, receipts required. " * 1_500
    reading = _read(procurement, text)
    assert len(reading.conditions) <= MAX_QUOTED


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    st.lists(
        st.sampled_from(
            [
                *"aeinorstw ,.;:!?\n-\u2014",
                "\u200b",
                "\u0435",
                "required",
                "and we sign ",
                "otherwise 5",
                "is the 5k ",
                " or ",
                "a firm ",
                "a bank ",
                "give us ",
            ]
        ),
        max_size=120,
    ).map("".join)
)
def test_garbage_never_raises(leasing: DomainConfig, text: str) -> None:
    reading = _read(leasing, text)
    assert all(isinstance(c.text, str) for c in reading.conditions)
    assert len(reading.conditions) <= MAX_QUOTED
