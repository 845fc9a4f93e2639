"""Missed terms the recent writers share, read as constructions (issue 17, round 19).

Errors of the spent sets heldout_terms10 ... heldout_terms15 were grouped into constructions; only
those shown by three writers or more were worked on (ht11 = heldout_terms11, ...). The sentences are
written for these tests, none is copied from a labelled set:

- the principal's figure accepted by its noun ("we accept your price of 4.80", "fine with your offer
  of 98k", "happy to sign at the 7,200 you mentioned"): the counterparty states it as its own (ht11,
  ht12, ht14, ht15); after a negation it stays the principal's figure;
- a term dropped with a possessive or a clause word ("I'll drop my signing bonus request", "drop the
  penalty clause", "we reject the request for a TI allowance"): a value of 0 (ht13, ht14, ht15);
- a time clause after what it conditions, on a subject of its own ("we can go ahead at $88/h once the
  drug screen clears"): a condition the principal sees (ht14, ht16; added after ht16 was measured).
"""

from __future__ import annotations

from datetime import date

import pytest

from parley.governance.config import DomainConfig
from parley.governance.term_guard import UNEXPLAINED
from parley.governance.terms import TermReader, TermReading

from .blind_sets import NEXT_BLIND
from .linear_time import assert_reads_in_linear_time

DAY = date(2026, 11, 29)


def _read(config: DomainConfig, text: str) -> TermReading:
    return TermReader(config).read(text, today=DAY)


def _values(config: DomainConfig, text: str) -> dict[str, object]:
    return {t.term: t.value for t in _read(config, text).terms}


# (domain, message, term, value): the principal's figure accepted by its noun is stated.
ACCEPTED: list[tuple[str, str, str, float]] = [
    (
        "procurement",
        "We accept your price of $4.80 as long as the first lot ships in May.",
        "unit_price",
        4.8,
    ),
    (
        "procurement",
        "We'll take your quote of 12.60 per unit, pending sign-off from finance.",
        "unit_price",
        12.6,
    ),
    (
        "staffing",
        "I'm fine with your offer of 98k, subject to the reference checks going well.",
        "annual_salary",
        98000.0,
    ),
    (
        "leasing",
        "Happy to sign at the $7,200 you mentioned, assuming the board approves.",
        "monthly_rent",
        7200.0,
    ),
    ("procurement", "We can match the $3.35 you quoted if the order is firm by Friday.", "unit_price", 3.35),
]


@pytest.mark.parametrize(("domain", "text", "term", "value"), ACCEPTED, ids=[a[1][:40] for a in ACCEPTED])
def test_an_accepted_figure_of_the_principal_is_stated(
    domain: str, text: str, term: str, value: float, request: pytest.FixtureRequest
) -> None:
    config: DomainConfig = request.getfixturevalue(domain)
    assert _values(config, text).get(term) == value, _read(config, text)


# Near misses: the principal's figure named, not accepted.
NOT_ACCEPTED: list[tuple[str, str, str]] = [
    ("procurement", "We can't accept your price of $4.80; our costs went up.", "unit_price"),
    ("procurement", "We cannot match the $3.35 you quoted.", "unit_price"),
    ("staffing", "Your offer of 98k is well below what I make today.", "annual_salary"),
    ("leasing", "The $7,200 you mentioned is not something the owner will look at.", "monthly_rent"),
]


@pytest.mark.parametrize(("domain", "text", "term"), NOT_ACCEPTED, ids=[a[1][:40] for a in NOT_ACCEPTED])
def test_a_figure_of_the_principal_not_accepted_stays_theirs(
    domain: str, text: str, term: str, request: pytest.FixtureRequest
) -> None:
    config: DomainConfig = request.getfixturevalue(domain)
    assert term not in _values(config, text), _read(config, text)


# (domain, message, term): a term dropped is a value of 0.
DROPPED: list[tuple[str, str, str]] = [
    ("staffing", "I'd drop my signing bonus request if the base reaches 131k.", "signing_bonus"),
    ("leasing", "We will drop our request for free rent if the rent comes down to $6,100.", "free_months"),
    ("procurement", "We'd accept net 45 if you drop the penalty clause entirely.", "late_penalty_pct"),
    ("leasing", "The owner rejects the request for a TI allowance; rent stays at $5,900.", "ti_allowance"),
]


@pytest.mark.parametrize(("domain", "text", "term"), DROPPED, ids=[a[1][:40] for a in DROPPED])
def test_a_dropped_term_is_zero(domain: str, text: str, term: str, request: pytest.FixtureRequest) -> None:
    config: DomainConfig = request.getfixturevalue(domain)
    assert _values(config, text).get(term) == 0.0, _read(config, text)


# Near misses: the term is kept, or something else of it goes.
KEPT: list[tuple[str, str, str]] = [
    ("staffing", "My signing bonus request stands at 15k.", "signing_bonus"),
    ("procurement", "The penalty clause stays at 1% a week, capped at 5%.", "late_penalty_pct"),
    ("leasing", "Our request for free rent is 3 months.", "free_months"),
]


@pytest.mark.parametrize(("domain", "text", "term"), KEPT, ids=[a[1][:40] for a in KEPT])
def test_a_term_kept_is_not_zero(domain: str, text: str, term: str, request: pytest.FixtureRequest) -> None:
    config: DomainConfig = request.getfixturevalue(domain)
    assert _values(config, text).get(term) != 0.0, _read(config, text)


# Obfuscated variants read as the plain text (homoglyphs, zero-width characters).
def test_obfuscated_acceptance_and_drop_read_as_plain(
    procurement: DomainConfig, staffing: DomainConfig
) -> None:
    assert _values(procurement, "We acc\u0435pt your pr\u0456ce of $4.80.").get("unit_price") == 4.8
    assert (
        _values(staffing, "I'd dr\u200bop my signing bonus request if the base reaches 131k.").get(
            "signing_bonus"
        )
        == 0.0
    )


@pytest.mark.parametrize(
    ("domain", "unit"),
    [
        ("procurement", "we accept your price of 4.80 and we can't take the 3.35 you quoted, "),
        ("staffing", "drop my signing bonus request, give up our request for a relocation allowance "),
        ("procurement", "fine with your quote of fine with your quote of reject the penalty clause "),
        ("staffing", "at $88/h once the once the as soon as our once a month, "),
    ],
)
def test_the_new_forms_read_in_linear_time(domain: str, unit: str, request: pytest.FixtureRequest) -> None:
    config: DomainConfig = request.getfixturevalue(domain)
    assert_reads_in_linear_time(TermReader(config), unit, DAY)


@pytest.mark.parametrize(
    ("domain", "text", "words"),
    [
        ("staffing", "Happy to start at $88/h once the drug screen clears.", "drug screen"),
        ("leasing", "We would sign the lease at $9,900 a month once our funding round closes.", "funding"),
        (
            "procurement",
            "We can hold 6.40 per unit as soon as your purchase order arrives.",
            "purchase order",
        ),
    ],
)
def test_a_time_clause_after_the_offer_is_a_condition(
    domain: str, text: str, words: str, request: pytest.FixtureRequest
) -> None:
    config: DomainConfig = request.getfixturevalue(domain)
    assert any(words in c.text for c in _read(config, text).conditions), text


@pytest.mark.parametrize(
    ("domain", "text"),
    [
        ("staffing", "We pay $88/h and invoice once a month."),
        ("procurement", "Please confirm 6.40 per unit at once."),
        ("staffing", "Once again, our rate is $88/h."),
    ],
)
def test_a_frequency_or_at_once_is_no_condition(
    domain: str, text: str, request: pytest.FixtureRequest
) -> None:
    config: DomainConfig = request.getfixturevalue(domain)
    assert not [c for c in _read(config, text).conditions if c.source != UNEXPLAINED], text


def test_the_next_blind_sets_are_not_named_here() -> None:
    with open(__file__, encoding="utf-8") as handle:
        source = handle.read()
    for name in NEXT_BLIND:
        assert source.count(name) == 0, name
