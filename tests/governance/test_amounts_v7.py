"""The amount reader on the forms of set v6's errors (issue 14): wordings written for these tests, none
taken from a labelled set, one group per form; adversarial variants of each (lookalike digits,
zero-width characters inside figures, fullwidth digits, NUL); bounded work on crafted megabytes."""

from __future__ import annotations

import pytest

from parley.governance.amount_text import fold
from parley.governance.amounts import find_amounts, term_amounts
from parley.governance.config import load_config

from .amount_checks import highs, same_values
from .linear_time import assert_grows_linearly

Case = tuple[str, str, str, list[float]]  # domain, text, term, the term's values in order


def _check(domain: str, text: str, term: str, values: list[float]) -> None:
    found = highs(domain, text, term)
    assert same_values(found, values), (text, found)


# -- a total joined to the count it is for states the unit price ----------------------------------------
TOTALS: list[Case] = [
    ("procurement", "Quote: $5,200 for 1,300 units.", "unit_price", [4.0]),
    ("procurement", "800 pcs for $3,600 or 1,600 pcs for $6,400.", "unit_price", [4.5, 4.0]),
    ("procurement", "2,500 units come to $10,000 all told.", "unit_price", [4.0]),
    ("procurement", "Invoice total: $7,700 for the 1,100 pieces.", "unit_price", [7.0]),
    ("procurement", "Three dozen go for $90.", "unit_price", [2.5]),
    # a quotient far outside the price's band is the order's value, no price
    ("procurement", "Total order value $2,000,000 for 1,000 units.", "unit_price", []),
    # a price with its own rate is not divided
    ("procurement", "For 2,000 units the price is $6.10 each.", "unit_price", [6.1]),
]


# -- a pay per a period of so many hours is an hourly rate ----------------------------------------------
HOURS: list[Case] = [
    ("staffing", "We bill $2,000 per 25-hour week.", "hourly_rate", [80.0]),
    ("staffing", "She asks $600 for an 8-hour day.", "hourly_rate", [75.0]),
]


# -- how a figure attaches: another cost, an extension, a label, a factor --------------------------------
ATTACHING: list[Case] = [
    ("leasing", "The deposit is 3 months and parking is $400 per month.", "monthly_rent", []),
    ("leasing", "Rent 9,500 a month, TI $75k.", "monthly_rent", [9500.0]),
    ("leasing", "Initial term 36 months, with an option for a further 24 months.", "lease_term", [36.0]),
    ("leasing", "Laufzeit 4 Jahre, Verlängerung um weitere 2 Jahre möglich.", "lease_term", [48.0]),
    ("leasing", "Steps: y1 $8,000/mo, y2 $8,240/mo.", "monthly_rent", [8000.0, 8240.0]),
    ("staffing", "Base 80 an hour, holidays 2x.", "hourly_rate", [80.0]),
    ("staffing", "Yearly: $96,000; monthly that is 8,000.", "annual_salary", [96000.0, 96000.0]),
]


# -- totals over a term, deposits in months of rent, waivers --------------------------------------------
LEASES: list[Case] = [
    ("leasing", "The owner wants $960,000 over the eight-year lease.", "monthly_rent", [10000.0]),
    ("leasing", "Monthly rent $4,000; security deposit $8,000.", "deposit", [2.0]),
    ("leasing", "The landlord will waive the security deposit.", "deposit", [0.0]),
    ("leasing", "Rent 9,800 pcm.", "monthly_rent", [9800.0]),
]


# -- words of other languages ----------------------------------------------------------------------------
LANGUAGES: list[Case] = [
    ("leasing", "Durata: 4 anni.", "lease_term", [48.0]),
    ("leasing", "Cauzione pari a 2 mensilità.", "deposit", [2.0]),
    ("leasing", "Aluguel de 9.000 por mês.", "monthly_rent", [9000.0]),
    ("procurement", "Abnahme zwischen 2.000 und 3.000 Einheiten.", "order_volume", [3000.0]),
]


# -- moves of a negotiation and quantities over time -----------------------------------------------------
MOVES: list[Case] = [
    ("leasing", "The owner came down from 9,900 to 9,400.", "monthly_rent", [9900.0, 9400.0]),
    ("leasing", "They will not go lower than 9,600.", "monthly_rent", [9600.0]),
    ("leasing", "We went from 60 down to 48 months.", "lease_term", [60.0, 48.0]),
    ("procurement", "Can you ship 30,000 a month?", "order_volume", [30000.0]),
    # a figure inside no term's band is no term's, move or not
    ("leasing", "Footfall dropped from 900 to 700.", "monthly_rent", []),
]


# -- packages of units -----------------------------------------------------------------------------------
PACKAGES: list[Case] = [
    ("procurement", "4 pallets of 1,200 pieces each.", "order_volume", [4800.0]),
    ("procurement", "2 trucks of 20 crates each, 50 units per crate.", "order_volume", [2000.0]),
]


@pytest.mark.parametrize(
    ("domain", "text", "term", "values"),
    [*TOTALS, *HOURS, *ATTACHING, *LEASES, *LANGUAGES, *MOVES, *PACKAGES],
)
def test_forms_of_set_v6(domain: str, text: str, term: str, values: list[float]) -> None:
    _check(domain, text, term, values)


# -- adversarial variants: the same figures behind lookalikes and invisible characters --------------------
ADVERSARIAL: list[Case] = [
    ("procurement", "Quote: $5,\u200b200 for 1,\u200d300 units.", "unit_price", [4.0]),  # zero-width
    (
        "procurement",
        "Quote: \uff04\uff15\uff0c\uff12\uff10\uff10 for 1,300 units.",
        "unit_price",
        [4.0],
    ),  # fullwidth
    ("procurement", "Quote: $5,2\x0000 for 1,300 units.", "unit_price", [4.0]),  # NUL
    ("procurement", "Quote: $5,2OO for 1,3OO units.", "unit_price", [4.0]),  # letter O
    ("procurement", "We need 15,OOO units.", "order_volume", [15000.0]),  # O after a separator
    ("leasing", "Rent 9,\u0417\u0417\u0417 a month.", "monthly_rent", [9333.0]),  # Cyrillic Ze for 3
    ("leasing", "Monthly rent $4,000; security dep\u200bosit $8,000.", "deposit", [2.0]),
    ("leasing", "Rent \u0669\u066c\u0668\u0660\u0660 pcm.", "monthly_rent", [9800.0]),  # Arabic-Indic
    ("staffing", "We bill $2,000 per 25\u2011hour week.", "hourly_rate", [80.0]),  # non-breaking hyphen
]


@pytest.mark.parametrize(("domain", "text", "term", "values"), ADVERSARIAL)
def test_adversarial_variants_read_as_a_person_sees_them(
    domain: str, text: str, term: str, values: list[float]
) -> None:
    _check(domain, text, term, values)


def test_lookalike_digits_fold_one_for_one_only_beside_digits() -> None:
    assert fold("11,\u0417\u0417\u0417 and \u0427,500")[0] == "11,333 and 4,500"
    assert fold("\u0431\u0430\u0440 5")[0][0] == "\u0431"  # a word of Cyrillic stays a word
    assert fold("1,OOO,OOO units, not NO,OOO")[0] == "1,000,000 units, not NO,OOO"
    text = "Rent $9,\u0417\u0417\u0417 a month"
    (amount,) = find_amounts(text)
    assert text[amount.start : amount.end] == amount.text and amount.high == 9333


def test_a_figure_that_cannot_be_read_is_held_by_the_disclosure_check() -> None:
    """Fail closed: a limit stated with a figure no term claims (letters no table folds) is held as an
    unread disclosure, never passed as if no figure were there."""
    from parley.governance.disclosure import find_disclosures

    found = find_disclosures(
        "Anything up to 11,5\u0416\u0416 a month we can justify, beyond that we can't.",
        load_config("leasing"),
    )
    assert [d.kind for d in found] == ["unread"]


# -- bounded work --------------------------------------------------------------------------------------------
# The reading's work grows linearly with crafted text (tests/linear_growth.py measures growth, not speed;
# the 1 MB timings are benchmarks/bench_gaia_text.py's "amounts" table).
@pytest.mark.parametrize(
    ("domain", "unit"),
    [
        ("procurement", "1,000 pcs for $4,200 or "),
        ("procurement", "3 boxes of 2 units each, 5 units per box "),
        ("leasing", "dropped from 9,000 to 8,000 and "),
        ("leasing", "Rent $5,500; deposit $11,000. "),
        ("procurement", "A dozen costs $30 "),
        ("staffing", "$3,200 per 40-hour week "),
        ("leasing", "1,\u0417"),
        ("procurement", "9"),
        ("procurement", "$1,"),
        ("leasing", "1,OOO,OOO "),
    ],
    ids=[
        "totals",
        "packages",
        "moves",
        "deposits",
        "dozens",
        "hours",
        "lookalikes",
        "digits",
        "dollar-comma",
        "zeros",
    ],
)
def test_the_v6_forms_are_read_and_attributed_in_linear_time(domain: str, unit: str) -> None:
    config = load_config(domain)
    term_amounts(config, "$1")  # build the folding tables outside the measurement
    assert_grows_linearly(lambda text: term_amounts(config, text), unit, 62_500, 4)
    text = unit * 200
    assert all(text[t.start : t.end] == t.mention.text for t in term_amounts(config, text))


@pytest.mark.parametrize(
    "text", ["\x00" * 1000, "for " * 1000, "of of of", "pcm", "\u0417" * 5000, "x" * 3000]
)
def test_odd_inputs_never_raise(text: str) -> None:
    for domain in ("staffing", "procurement", "leasing"):
        term_amounts(load_config(domain), text)


# -- the spent sets of this round (development figures: the forms above were written from their errors) ---
@pytest.mark.parametrize(
    ("path", "floor"),
    [
        # set v5: 329/335 before this change, 332/335 after; set v6: measured blind once at 274/314
        # (87.3%), 299/314 with 5 spurious after this change. Both floors were raised since and each set is
        # scored once, at its highest floor: v5 in test_amounts_v8.py, v6 in test_amounts_twelfth.py
        ("tests/governance/amount_forms_v6.yaml", 1.0),
    ],
)
def test_amount_accuracy_on_the_spent_sets_of_set_v6(path: str, floor: float) -> None:
    from pathlib import Path

    from .measure_detectors import amount_accuracy

    score = amount_accuracy(Path(__file__).resolve().parents[2] / path)
    assert score.accuracy >= floor - 1e-9, score.errors


@pytest.mark.parametrize(
    ("text", "kinds"),
    [
        # a "per" phrase closes the figure before it; the next figure keeps that figure's unit
        ("Hybrid, 2 days at home per week, 25 PTO days.", [("duration", None), ("duration", None)]),
        (
            "Onsite 3 days per week, 20 vacation days, start in March.",
            [("duration", None), ("duration", None)],
        ),
        # a rate word standing on its own still types the figure after it
        ("Annual: 66,000; monthly that's 5,500", [("money", "year"), ("money", "month")]),
    ],
)
def test_a_per_phrase_does_not_retype_the_next_figure(text: str, kinds: list[tuple[str, str | None]]) -> None:
    assert [(a.kind, a.per) for a in find_amounts(text)] == kinds
