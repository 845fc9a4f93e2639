"""The amount reader on the forms of set v7's errors (issue 14): wordings written for these tests, none
taken from a labelled set, one group per form; adversarial variants of each (lookalike and fullwidth
digits, zero-width characters inside figures, NUL); figures that cannot be read held unread (fail
closed); bounded work on crafted megabytes; floors on the spent sets (development figures)."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

import pytest

from parley.governance.amounts import find_amounts, term_amounts, unreadable_figures
from parley.governance.config import load_config
from parley.governance.preflight import preflight

from .amount_checks import highs, same_values

Case = tuple[str, str, str, list[float]]  # domain, text, term, the term's values in order


def _check(domain: str, text: str, term: str, values: list[float]) -> None:
    found = highs(domain, text, term)
    assert same_values(found, values), (text, found)


# -- a bare figure beside an attributed one of the same size is that term's -----------------------------
SIBLINGS: list[Case] = [
    ("staffing", "the old offer was 95 and the new one is 98.5k", "annual_salary", [95000.0, 98500.0]),
    ("leasing", "They asked 11,400; we said 10,900 a month.", "monthly_rent", [11400.0, 10900.0]),
    ("staffing", "$78/hr through June, 82 after that", "hourly_rate", [78.0, 82.0]),
    # named by another cost or another term: not the sibling's
    ("staffing", "Base $96k plus a 10k relocation bonus.", "annual_salary", [96000.0]),
    ("leasing", "Rent $9,800 per month, deposit 19,600.", "monthly_rent", [9800.0]),
]


# -- a series of bare figures that fit one term only -----------------------------------------------------
SERIES: list[Case] = [
    ("staffing", "Round one 97, round two 101, final 99.", "annual_salary", [97000.0, 101000.0, 99000.0]),
    ("procurement", "They quoted 12.40, we countered 11.90.", "unit_price", [12.4, 11.9]),
    (
        "procurement",
        "we bought 3,200 last spring and expect 4,100 this autumn",
        "order_volume",
        [3200.0, 4100.0],
    ),
    # one bare figure alone names no term
    ("procurement", "We talked about 3,200 last spring.", "order_volume", []),
    # figures that fit no term, or several equally, are no term's
    ("staffing", "Rooms 14 and 15 are booked.", "hourly_rate", []),
]


# -- a sum over another period is converted by it ------------------------------------------------------
PERIODS: list[Case] = [
    ("leasing", "Rent per quarter comes to 30,000.", "monthly_rent", [10000.0]),
    ("leasing", "Semi-annual rent: $60,000.", "monthly_rent", [10000.0]),
    ("leasing", "Half-year rent of 54,000 is payable upfront.", "monthly_rent", [9000.0]),
    ("leasing", "Year 1 rent $96k; year 2 rent $99k.", "monthly_rent", [8000.0, 8250.0]),
    ("procurement", "Price per thousand: $11,500.", "unit_price", [11.5]),
    ("staffing", "$12,800 a month (160 hours) for the contract.", "hourly_rate", [80.0]),
]


# -- one duration in two units, a span between dates, a compared figure retyped ----------------------------
DURATIONS: list[Case] = [
    ("leasing", "Lease term: 3 years and 6 months.", "lease_term", [42.0]),
    ("leasing", "A lease of 4 years, 2 months.", "lease_term", [50.0]),
    ("leasing", "The lease runs from 1 July 2027 to 30 June 2031.", "lease_term", [48.0]),
    ("leasing", "Lease: January 2027 through December 2029.", "lease_term", [36.0]),
    (
        "leasing",
        "The term is 4 years, they prefer 3, fallback 30 or 36 months.",
        "lease_term",
        [48.0, 36.0, 30.0, 36.0],
    ),
    # two durations of different things are not one
    ("leasing", "A 5-year lease, 3 months notice.", "lease_term", [60.0]),
    # dates that are no span of the lease
    ("leasing", "We met on 1 July 2027 and again on 30 June 2028.", "lease_term", []),
]


# -- a change of a figure is no value of a term ----------------------------------------------------------
DELTAS: list[Case] = [
    ("staffing", "We added $2,500 more, so base is now 97,500.", "annual_salary", [97500.0]),
    ("staffing", "A raise of $4,000 takes her to $94,000.", "annual_salary", [94000.0]),
    ("leasing", "Rent goes to 9,600 a month, that's 300 extra.", "monthly_rent", [9600.0]),
]


# -- spoken and written numbers -----------------------------------------------------------------------------
SPOKEN: list[Case] = [
    ("staffing", "I could do eighty-seven five on base.", "annual_salary", [87500.0]),
    ("procurement", "Somewhere between three and three-forty a unit.", "unit_price", [3.4]),  # a range
    ("procurement", "We'd order twelve hundred this month.", "order_volume", [1200.0]),
    ("procurement", "Nuestro precio: 11 dólares por unidad.", "unit_price", [11.0]),
]


# -- figures that are dates, accounts or labels ------------------------------------------------------------
NOT_AMOUNTS: list[Case] = [
    ("procurement", "EUR 12,40 pro Stück, gültig bis 30.06.", "unit_price", [12.4]),
    ("leasing", "Pay the rent into the account ending 7730.", "monthly_rent", []),
    ("procurement", "In March, 2,400 units; in April, 2,600 units.", "order_volume", [2400.0, 2600.0]),
    ("procurement", "We ordered 6,000 and plan 7,500 next year.", "order_volume", [6000.0, 7500.0]),
]


@pytest.mark.parametrize(
    ("domain", "text", "term", "values"),
    [*SIBLINGS, *SERIES, *PERIODS, *DURATIONS, *DELTAS, *NOT_AMOUNTS, SPOKEN[0], SPOKEN[2], SPOKEN[3]],
)
def test_forms_of_set_v7(domain: str, text: str, term: str, values: list[float]) -> None:
    _check(domain, text, term, values)


def test_a_spoken_price_range_reads_dollars_and_cents() -> None:
    (found,) = term_amounts(load_config("procurement"), SPOKEN[1][1])
    assert (found.term, found.low, found.high) == ("unit_price", 3.0, 3.4)


# -- adversarial variants: the same figures behind lookalikes and invisible characters --------------------
ADVERSARIAL: list[Case] = [
    ("leasing", "They asked 11,\u200b400; we said 10,900 a month.", "monthly_rent", [11400.0, 10900.0]),
    ("procurement", "They quoted \uff11\uff12.\uff14\uff10, we countered 11.90.", "unit_price", [12.4, 11.9]),
    ("leasing", "Rent per quarter comes to 30,\x00000.", "monthly_rent", [10000.0]),
    ("leasing", "Lease term: \u0662 years and 6 months.", "lease_term", [30.0]),  # Arabic-Indic two
    ("staffing", "Round one 97, round two 1O1, final 99.", "annual_salary", [97000.0, 101000.0, 99000.0]),
    (
        "leasing",
        "Half\u00ad-year rent of 54,000 is payable upfront.",
        "monthly_rent",
        [9000.0],
    ),  # soft hyphen
    ("staffing", "We offer $12O,OOO a year.", "annual_salary", [120000.0]),  # letter O after a typed zero
]


@pytest.mark.parametrize(("domain", "text", "term", "values"), ADVERSARIAL)
def test_adversarial_variants_read_as_a_person_sees_them(
    domain: str, text: str, term: str, values: list[float]
) -> None:
    _check(domain, text, term, values)


# -- fail closed: a figure the reader cannot read is held unread, never taken as absent ---------------------
@pytest.mark.parametrize(
    ("text", "unread"),
    [
        ("We offer $1,2,3 a year.", ["1,2,3"]),
        ("We offer $" + "9" * 400 + " a year.", ["9" * 40]),
        ("Rent 12,00,000 EUR per month.", ["12,00,000"]),
        ("We offer $120,000 a year.", []),
        ("Version 1.2.3 of the contract.", []),  # no currency: a version, not money
    ],
)
def test_unreadable_money_is_listed(text: str, unread: list[str]) -> None:
    assert unreadable_figures(text) == unread
    assert all(a.high != float("inf") for a in find_amounts(text))


def test_the_boundary_check_holds_an_unreadable_figure() -> None:
    result = preflight("We can offer $1,2,3 a year.", load_config("staffing"))
    assert any("cannot read" in problem for problem in result.problems)
    assert not any(
        "cannot read" in p for p in preflight("We can offer $95,000.", load_config("staffing")).problems
    )


# -- bounded work --------------------------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("domain", "unit"),
    [
        ("staffing", "97, 101, 99 and "),
        ("leasing", "asked 11,400; said 10,900 a month. "),
        ("leasing", "from 1 July 2027 to 30 June 2031 "),
        ("leasing", "3 years and 6 months and "),
        ("staffing", "ninety-two five "),
        ("procurement", "9"),
        ("procurement", "$1,"),
        ("staffing", "$1,2,3 "),
    ],
    ids=["series", "siblings", "date-spans", "compound", "spoken", "digits", "dollar-comma", "malformed"],
)
def test_crafted_repetitions_of_the_v7_forms_are_read_in_linear_time(domain: str, unit: str) -> None:
    """8x the text (32 KB -> 256 KB of one form repeated) costs well under the 64x of a quadratic
    reader; CPU time, since the machine is shared. The speed itself is benchmarked, not tested."""
    config = load_config(domain)
    term_amounts(config, "$1")  # build the folding tables outside the timing

    def cost(size: int) -> tuple[float, str, list[Any]]:
        text = (unit * (size // len(unit) + 1))[:size]
        began = time.process_time()
        found = term_amounts(config, text)
        unreadable_figures(text)
        return time.process_time() - began, text, found

    small, _, _ = cost(32_000)
    large, text, found = cost(256_000)
    assert large < 8 * 4 * max(small, 0.02), (small, large)
    assert all(text[t.start : t.end] == t.mention.text for t in found[:50] if t.mention.text)


@pytest.mark.parametrize(
    "text",
    [
        *("\x00" * 1000, "from 1 July 2027 to", "year-", "half-", "one-", "ninety-two"),
        # fragments of the v9 forms (test_amounts_v9.py)
        *("p/", "68 p/", "per hundred", "instalments of", "12 instalments of", "a month and", "Boxes of"),
        "× ×",
    ],
)
def test_odd_inputs_never_raise(text: str) -> None:
    for domain in ("staffing", "procurement", "leasing"):
        term_amounts(load_config(domain), text)
    unreadable_figures(text)


# -- the spent sets (development figures: the forms above were written from their errors) -----------------
ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.parametrize(
    ("path", "floor"),
    [
        # set v7: measured blind once at 276/313 (15 spurious; 276/328 = 84.1% counting them); 311/317
        # after this change, a development figure (the change was written from its error classes); set
        # v6: 299/319 before this change, 313/317 after. Both raised since: scored in test_amounts_twelfth.py
        # set v5: 332/335 before, 335/335 after
        ("tests/data/gaia/heldout5/amounts.yaml", 335 / 335),
        ("tests/governance/amount_forms_v7.yaml", 1.0),
    ],
)
def test_amount_accuracy_on_the_spent_sets_of_set_v7(path: str, floor: float) -> None:
    from .measure_detectors import amount_accuracy

    score = amount_accuracy(ROOT / path)
    assert score.accuracy >= floor - 1e-9, score.errors
