"""No condition is dropped silently, whatever its wording (issue 17, "Understanding the counterparty").

A clause that makes the counterparty's acceptance of a term depend on something reaches the principal:
attributed to its term when the reader can place it, quoted as written when it cannot. The conditional
clause finder is a grammar (`conditional_grammar` in data/term_cues.yaml, read by `term_guard`), so
each form below is written in words of our own, not copied from a labelled set; the near-misses next to
them are sentences of the same shape that set no condition and must not be quoted.
"""

from __future__ import annotations

from datetime import date

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from parley.errors import InternalError
from parley.governance.config import DomainConfig
from parley.governance.term_guard import MAX_QUOTED, UNEXPLAINED, conditional_constructions, refused_quotes
from parley.governance.terms import TermReader, TermReading

from .linear_time import assert_reads_in_linear_time

DAY = date(2026, 11, 27)
QUOTED = "quoted"
"""Expected: a conditional clause quoted as written (the reader could not place it on a term)."""
OTHER = "other"
"""Expected: a condition on no term, kept with its text (quoted or not)."""


def _read(config: DomainConfig, text: str) -> TermReading:
    return TermReader(config).read(text, today=DAY)


# -- one table: (domain, message, what must reach the principal) ----------------------------------------
CONDITIONS: list[tuple[str, str, str | None]] = [
    # a connective's variants
    ("leasing", "Rent of 6,400 works for us, on the premise that the tenant carries the insurance.", OTHER),
    ("staffing", "Fine, 112k, with the proviso that she relocates before spring.", OTHER),
    ("procurement", "We'll take net 60, but not without a signed framework agreement.", QUOTED),
    # connectives in other languages
    ("procurement", "Wir können 4,10 € liefern, aber nur wenn die Menge bei 8.000 Stück liegt.", QUOTED),
    ("leasing", "Podemos bajar a 5.200 al mes siempre que firmen por seis años.", QUOTED),
    ("leasing", "Nous acceptons 9 800 par mois, à condition que le bail soit de six ans.", "lease_term"),
    # a price paid for what is given
    ("procurement", "Delivery in 3 weeks is possible for a rush fee of 0.15 per unit.", QUOTED),
    # a requirement the counterparty names beside a term it accepts
    ("leasing", "Landlord is ok with 7.1k a month.\nbut needs a 5 yr lease", QUOTED),
    ("staffing", "Salary of 99k is agreed. For this to work we need her to start in March.", QUOTED),
    # a sentence, or the end of one, that restricts the offer
    ("staffing", "We could go to 62 an hour for the night rotation only.", QUOTED),
    ("procurement", "We can do 3.40 per unit. That price is good only with a two-year agreement.", OTHER),
    # a consequence: a threat after an imperative, a promise after one, an answer given "then"
    (
        "leasing",
        "Confirm by Monday or the parking spaces go back on the market. Rent stays at 5,900.",
        QUOTED,
    ),
    ("procurement", "Commit to 18 months of orders and we'll hold 2.75 per unit.", QUOTED),
    ("procurement", "Can you confirm the 12,000 pieces? We would then quote 2.95.", QUOTED),
    # an elliptic answer that accepts only at a value
    ("procurement", "> Could you do 2.10?\nNot at 3k pieces. At 10k, fine.", QUOTED),
    # a conjunct that goes on with the condition before it
    (
        "procurement",
        "We accept 5.60 per unit, provided that the order is confirmed this week and payment is net 45.",
        "payment_terms",
    ),
    # a condition in a list item
    ("leasing", "Our position:\n- rent 8,200 a month\n- only with a 5-year lease", "lease_term"),
    # a condition by exception, by what is outstanding, by a catch, by a time clause opening a promise
    ("leasing", "Rent of 5,500 a month, barring a bad result on the structural survey.", QUOTED),
    ("staffing", "104k works for us, except if the start slips into May.", OTHER),
    ("procurement", "We can hold 4.10 per unit, pending the credit check on your side.", QUOTED),
    ("leasing", "Fine on 6,100 a month. The catch is the owner wants the lease signed first.", QUOTED),
    ("staffing", "Happy with 110k, with one caveat: she keeps her Fridays off.", QUOTED),
    ("procurement", "Once the PO is in, we'll hold 4.10 per unit.", QUOTED),
    ("leasing", "In lieu of the free month, the landlord would repaint. Rent stays 5,900.", QUOTED),
    # hidden behind a zero-width space or a Cyrillic letter
    ("staffing", "We could go to 62 an hour for the night rotation \u043enly.", QUOTED),
    ("leasing", "Rent of 6,400 works, on the assump\u200btion that the tenant insures the roof.", OTHER),
    # near-misses: the same shapes, no condition
    ("staffing", "We need your answer by Friday.", None),
    ("staffing", "The role is based on site in Leeds, salary 95k.", None),
    ("procurement", "For the main part we can offer 3.10 per unit.", None),
    ("leasing", "Is the 7,200 including CAM or is that extra?", None),
    ("procurement", "Thirty-six month warranty, and we'll ship in 4 weeks.", None),
    ("procurement", "Net 30 is standard for us, and we'll deliver in 5 weeks.", None),
    ("procurement", "We offer 4.50 per unit only.", None),
    ("leasing", "I need to correct something: the rent is 5,100 a month.", None),
    ("staffing", "Happy to confirm 118k, 25 days PTO and a March 1 start.", None),
    ("staffing", "We'd need a base of 121k.", None),
    ("leasing", "Let me know how your client wants to proceed on the 6,000 rent.", None),
    ("procurement", "Our pending invoice is for 3,200 units at 2.10.", None),
    ("procurement", "Once again, thanks for the order of 3,000 units at 2.10.", None),
]


@pytest.mark.parametrize(("domain", "text", "expected"), CONDITIONS)
def test_a_condition_reaches_the_principal_and_a_near_miss_does_not(
    domain: str, text: str, expected: str | None, request: pytest.FixtureRequest
) -> None:
    config: DomainConfig = request.getfixturevalue(domain)
    conditions = _read(config, text).conditions
    if expected is None:  # no condition read (a sentence not fully read may still be quoted: issue 17)
        assert [c for c in conditions if c.source != UNEXPLAINED] == [], conditions
    elif expected == QUOTED:
        assert any(c.quoted for c in conditions), conditions
    elif expected == OTHER:
        assert any(c.term == "other" and c.text for c in conditions), conditions
    else:
        assert any(c.term == expected and not c.quoted for c in conditions), conditions


# -- the grammar ------------------------------------------------------------------------------------------
FAMILIES: list[tuple[str, str]] = [
    ("connective", "fine on the assumption that the survey is clean"),
    ("exchange", "six weeks for an expedite surcharge"),
    ("requirement", "ok with 8k but needs a longer lease"),
    ("restriction", "for weekend work only."),
    ("consequence", "Sign today or the discount lapses."),
    ("ellipsis", "At 40 units, yes."),
    ("continuation", "provided the PO is signed and payment is net 30"),
]


@pytest.mark.parametrize(("family", "text"), FAMILIES)
def test_each_family_of_the_grammar_finds_its_form(family: str, text: str) -> None:
    assert family in {c.family for c in conditional_constructions(text)}


def test_a_requirement_alone_states_a_term_and_is_not_quoted(staffing: DomainConfig) -> None:
    reading = _read(staffing, "She would need 125k.")
    assert reading.get("annual_salary") is not None
    assert not any(c.quoted for c in reading.conditions)


def test_overlapping_constructions_give_one_quote(leasing: DomainConfig) -> None:
    text = "Sign this week or the free month lapses, and only for a 6-year lease."
    quotes = [c for c in _read(leasing, text).conditions if c.quoted]
    assert len(quotes) <= 1


def test_an_unknown_symbol_in_the_grammar_is_an_internal_error() -> None:
    from parley.governance.term_guard import _expand  # pyright: ignore[reportPrivateUsage]

    with pytest.raises(InternalError, match="unknown symbol"):
        _expand("{nowhere} if", {})
    with pytest.raises(InternalError, match="nest too deep"):
        _expand("{loop}", {"loop": "{loop}"})


# -- adversarial input -------------------------------------------------------------------------------------
def test_many_constructions_are_quoted_up_to_the_bound(procurement: DomainConfig) -> None:
    text = " ".join(f"Ship lot {i} or the slot {i} lapses." for i in range(200))
    conditions = _read(procurement, text).conditions
    assert 0 < len(conditions) <= MAX_QUOTED


def test_a_message_too_long_to_read_still_quotes_its_constructions() -> None:
    text = "We could go to 62 an hour for the night rotation only. " + "x " * 600_000
    quotes = refused_quotes(text)
    assert quotes and "night rotation" in quotes[0].text


@pytest.mark.parametrize(
    "unit",
    [
        "Sign the lease and ",  # an imperative waiting for its "and we'll"
        "for the weekend shifts ",  # a restriction waiting for its "only"
        "provided the term is 5 years and the rent is 4,000 and ",  # a conjunct after a conjunct
        "At 5k, ",  # elliptic answers
        "but needs ",  # requirements with no object
        "nur wenn si vous ",
    ],
)
def test_crafted_input_reads_in_linear_time(procurement: DomainConfig, unit: str) -> None:
    assert_reads_in_linear_time(TermReader(procurement), unit, DAY)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    st.lists(
        st.sampled_from(
            [*"aefilnorstuy ,.;:!?\n-\u2014", "\u200b", "\u0456", "\u043e", "only ", "or ", "at 5k", "then "]
        ),
        max_size=200,
    ).map("".join)
)
def test_garbage_never_raises(leasing: DomainConfig, text: str) -> None:
    reading = _read(leasing, text)
    assert all(isinstance(c.text, str) for c in reading.conditions)
    assert len(reading.conditions) <= MAX_QUOTED
