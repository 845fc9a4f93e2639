"""The amount reader on the error forms of set v11 that recur in another writer's errors (issue 14,
twelfth round): one table of wordings written for these tests (none taken from a labelled set), one row
per wording, grouped by form and named by the spent sets whose errors show the form, with near misses
that must stay as they were; adversarial variants (lookalike, fullwidth and zero-width characters);
truncated forms at the end of a text; bounded work on crafted input; floors on the spent sets
(development figures: the change was written from their errors)."""

from __future__ import annotations

from pathlib import Path

import pytest

from parley.governance.amounts import find_amounts, term_amounts
from parley.governance.config import load_config

from .amount_checks import assert_reads_repetition_linearly, highs, same_values

# (form and the sets whose errors show it, domain, text, term, the term's values in text order)
FORMS: list[tuple[str, str, str, str, list[float]]] = [
    # a spelled figure in a list takes the type of the typed figure that ends it (v10, v11)
    (
        "spelled list v10 v11",
        "leasing",
        "We could offer one, two or three months of deposit.",
        "deposit",
        [1, 2, 3],
    ),
    (
        "spelled list v10 v11",
        "staffing",
        "eighty-eight, perhaps ninety thousand is where we land",
        "annual_salary",
        [88000.0, 90000.0],
    ),
    (
        "spelled list v10 v11",
        "leasing",
        "A term of three, four or five years works.",
        "lease_term",
        [36, 48, 60],
    ),
    # near miss: a spelled figure that labels a point in time is no member of the list
    ("spelled list v10 v11", "leasing", "In year one, two months of deposit.", "deposit", [2.0]),
    # so many packages of so many units, each one's content said in a clause of its own (v10, v11)
    ("packages v10 v11", "procurement", "We need 8 pallets; each holds 250 units.", "order_volume", [2000.0]),
    (
        "packages v10 v11",
        "procurement",
        "Ship 15 cartons, each containing 40 pieces.",
        "order_volume",
        [600.0],
    ),
    ("packages v10 v11", "procurement", "four crates of 150 each", "order_volume", [600.0]),
    ("packages v10 v11", "procurement", "four crates of 150 each", "unit_price", []),
    # the product said once when the text states it too
    ("packages v10 v11", "procurement", "20 boxes of 50 each, 1,000 units in all.", "order_volume", [1000.0]),
    # near miss: a price to the cent after "each" stays a price
    ("packages v10 v11", "procurement", "two cartons of 9.50 each", "unit_price", [9.5]),
    # what a plant makes or uses is its capacity, no order (v6, v7)
    ("capacity v6 v7", "procurement", "Our factory produces 8,000 units a week.", "order_volume", []),
    (
        "capacity v6 v7",
        "procurement",
        "The plant uses roughly 1,200 units a month, so we'd order 3,000 units now.",
        "order_volume",
        [3000.0],
    ),
    ("capacity v6 v7", "procurement", "Our plant needs 2,000 units by June.", "order_volume", [2000.0]),
    # people and machines counted with a word between, in a series of bare figures (v10, v11)
    (
        "headcount v10 v11",
        "procurement",
        "We run 40 injection presses and employ 250 people.",
        "order_volume",
        [],
    ),
    (
        "headcount v10 v11",
        "procurement",
        "They have 120 full-time staff and 900 employees.",
        "order_volume",
        [],
    ),
    ("headcount v10 v11", "procurement", "We need 600 CNC machines.", "order_volume", [600.0]),
    (
        "headcount v10 v11",
        "procurement",
        "With 600 CNC lathes running, the order is 2,000 units.",
        "order_volume",
        [2000.0],
    ),
    # a salary move in thousands with no keyword (v9, v10)
    (
        "salary move v9 v10",
        "staffing",
        "Could you stretch from 105 to 112?",
        "annual_salary",
        [105000.0, 112000.0],
    ),
    ("salary move v9 v10", "staffing", "Can you do a hundred and fifteen?", "annual_salary", [115000.0]),
    ("salary move v9 v10", "staffing", "one ten is our ceiling", "annual_salary", [110000.0]),
    # near misses: a figure an hourly band holds as written, a rent band paid in thousands
    ("salary move v9 v10", "staffing", "Can you do 80?", "annual_salary", []),
    ("salary move v9 v10", "leasing", "Can you do 110?", "monthly_rent", []),
    # "a month's", "a full month": one month (v10, v11)
    ("one month v10 v11", "leasing", "We ask a month's rent as security.", "deposit", [1.0]),
    ("one month v10 v11", "leasing", "Deposit: a full month.", "deposit", [1.0]),
    ("one month v10 v11", "leasing", "Please give a month's notice before leaving.", "deposit", []),
    # a deposit named right before a bare sum, beside the rent (v11; v7 shows the form as a distractor)
    ("deposit sum v7 v11", "leasing", "Rent 5,000 a month; deposit of 15,000.", "deposit", [3.0]),
    ("deposit sum v7 v11", "leasing", "Rent 4,500 monthly, deposit 9,000.", "deposit", [2.0]),
    ("deposit sum v7 v11", "leasing", "Deposit 2, rent 4,500 monthly.", "deposit", [2.0]),
    # single-set misreads that hid or shrank a figure: "5y" read as 5, half-yearly as yearly, a
    # hyphened fraction not read (v11, v11, v10)
    ("glued years v11", "leasing", "term 4y, rent 9k", "lease_term", [48.0]),
    ("half-yearly v11", "leasing", "Rent 60,000 half-yearly.", "monthly_rent", [10000.0]),
    ("hyphened fraction v10", "leasing", "a two-and-a-half-year lease", "lease_term", [30.0]),
]


@pytest.mark.parametrize(
    ("form", "domain", "text", "term", "values"), FORMS, ids=[f"{c[0]}: {c[2][:40]}" for c in FORMS]
)
def test_forms_of_set_v11(form: str, domain: str, text: str, term: str, values: list[float]) -> None:
    found = highs(domain, text, term)
    assert same_values(found, values), (form, text, found)


# The same forms dressed as an adversary would: each variant must read as the plain text reads.
ZW, SOFT = "\u200b", "\u00ad"
ADVERSARIAL: list[tuple[str, str, str, str, list[float]]] = [
    ("zero-width list", "leasing", f"A term of th{ZW}ree, four or five years.", "lease_term", [36, 48, 60]),
    (
        "fullwidth packages",
        "procurement",
        "We need ８ pallets; each holds ２５０ units.",
        "order_volume",
        [2000.0],
    ),
    (
        "Cyrillic e in each",
        "procurement",
        "We need 8 pallets; \u0435ach holds 250 units.",
        "order_volume",
        [2000.0],
    ),
    (
        "soft hyphen plant",
        "procurement",
        f"Our fac{SOFT}tory produces 8,000 units a week.",
        "order_volume",
        [],
    ),
    (
        "zero-width move",
        "staffing",
        f"Could you stretch from 1{ZW}05 to 112?",
        "annual_salary",
        [105000.0, 112000.0],
    ),
    ("Cyrillic o in month", "leasing", "We ask a m\u043enth's rent as security.", "deposit", [1.0]),
    ("fullwidth y", "leasing", "term ４y, rent 9k", "lease_term", [48.0]),
]


@pytest.mark.parametrize(
    ("dress", "domain", "text", "term", "values"), ADVERSARIAL, ids=[c[0] for c in ADVERSARIAL]
)
def test_adversarial_variants_read_as_the_plain_text(
    dress: str, domain: str, text: str, term: str, values: list[float]
) -> None:
    found = highs(domain, text, term)
    assert same_values(found, values), (dress, text, found)


# -- a form cut off at the end of the text reads what is there, without error -------------------------
@pytest.mark.parametrize(
    ("domain", "text"),
    [
        ("leasing", "one,"),
        ("leasing", "one, or maybe"),
        ("procurement", "8 pallets; each"),
        ("procurement", "8 pallets; each holds"),
        ("procurement", "pallets of 400"),
        ("procurement", "Our plant makes"),
        ("staffing", "one twenty-"),
        ("staffing", "Can you do a hundred and"),
        ("staffing", "110 is the"),
        ("leasing", "a month'"),
        ("leasing", "a full"),
        ("leasing", "deposit 12,000"),
        ("leasing", "three-and-a-"),
        ("leasing", "half-"),
        ("leasing", "5y"),
    ],
)
def test_truncated_forms_read_without_error(domain: str, text: str) -> None:
    assert isinstance(find_amounts(text), list)
    assert isinstance(term_amounts(load_config(domain), text), list)


# -- bounded work on crafted input ---------------------------------------------------------------------------
CRAFTED = [
    ("leasing", "one, two or "),
    ("procurement", "8 pallets; each holds 250 units, "),
    ("procurement", "pallets of 400 each "),
    ("procurement", "our plant makes 5 units "),
    ("procurement", "we have 85 CNC machines and 300 staff "),
    ("staffing", "Can you do 110? "),
    ("staffing", "one twenty is the ceiling, "),
    ("staffing", "a hundred and ten "),
    ("leasing", "a month's "),
    ("leasing", "rent 4,000/month, deposit 12,000, "),
    ("leasing", "three-and-a-half-"),
    ("leasing", "5y "),
]


@pytest.mark.parametrize(("domain", "unit"), CRAFTED, ids=[c[1][:16] for c in CRAFTED])
def test_crafted_repetitions_of_the_v11_forms_are_read_in_linear_time(domain: str, unit: str) -> None:
    """8x the text (4 KB -> 32 KB of one form repeated) costs well under the 64x of a quadratic reader
    (CPU time: the machine is shared)."""
    assert_reads_repetition_linearly(domain, unit)


# -- the spent sets (development figures: the change was written from their errors) -------------------------
ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.parametrize(
    ("path", "floor"),
    [
        # set v11: measured blind once at 308/338 (18 spurious); 316/349 (11 spurious) after its forms
        # that recur in another set's errors were fixed, a development figure
        ("tests/data/gaia/heldout11/amounts.yaml", 316 / 349),
        # the sets whose errors show the same forms, raised where this change raised them
        ("tests/data/gaia/heldout10/amounts.yaml", 314 / 331),
        ("tests/data/gaia/heldout9/amounts.yaml", 326 / 328),
        ("tests/data/gaia/heldout7/amounts.yaml", 313 / 315),
        ("tests/data/gaia/heldout6/amounts.yaml", 313 / 315),
    ],
)
def test_amount_accuracy_on_the_spent_sets_of_set_v11(path: str, floor: float) -> None:
    from .measure_detectors import amount_accuracy

    score = amount_accuracy(ROOT / path)
    assert score.accuracy >= floor - 1e-9, score.errors
