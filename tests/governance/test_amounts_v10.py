"""The amount reader on the forms of set v9's errors and the classes that recur across the spent sets
(issue 14): one table of wordings written for these tests (none taken from a labelled set, none from
amount_forms_v10.yaml), one row per wording, grouped by form, with near misses that must stay
unattributed; adversarial variants (lookalike, fullwidth and zero-width characters, NUL inside the
figures); figures that cannot be read held unread (fail closed), never absent; truncated forms at the
end of a text; bounded work on crafted input; floors on the spent sets (development figures)."""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from parley.governance.amounts import find_amounts, term_amounts, unreadable_or_glued_figures
from parley.governance.config import load_config
from parley.governance.preflight import preflight

from .amount_checks import highs, same_values
from .linear_time import assert_grows_linearly

# (form, domain, text, term, the term's values in text order)
FORMS: list[tuple[str, str, str, str, list[float]]] = [
    # a rate word with a "bi-" or "semi-" prefix before the figure: a multiple of its period
    ("prefixed period", "staffing", "Bi-weekly gross would be $4,200.", "annual_salary", [109200.0]),
    ("prefixed period", "staffing", "Semi-monthly pay: 4,000.", "annual_salary", [96000.0]),
    ("prefixed period", "staffing", "Weekly pay of $2,000 is fine.", "annual_salary", [104000.0]),
    # another cost that has its own figure names no figure after it
    ("other cost", "procurement", "Freight $900 per load, then $12.10 per part.", "unit_price", [12.1]),
    ("other cost", "procurement", "Tooling: $5,000 once; $13.20 each.", "unit_price", [13.2]),
    ("other cost", "procurement", "The tooling is $12.", "unit_price", []),  # the cost's own figure
    # a total joined to its count and named a total, whatever the size of the quotient
    ("total", "procurement", "Total invoice value $3,000 for 1,000 units.", "unit_price", [3.0]),
    ("total", "procurement", "$900 for 1,000 units.", "unit_price", []),  # not named a total
    # a price per a count of units in digits
    ("per count", "procurement", "Price per 250 is $3,000.", "unit_price", [12.0]),
    ("per count", "procurement", "Per 1,000: $12,500 delivered.", "unit_price", [12.5]),
    ("per count", "procurement", "We ship 2 per 1,000 as spares.", "unit_price", []),
    # a count with a dot before three digits is whole
    ("whole count", "procurement", "Can you make 9.500 pieces?", "order_volume", [9500.0]),
    ("whole count", "procurement", "Price 9.500 per unit.", "unit_price", [9.5]),  # money: a decimal
    # a sum with no period beside a sum of the same size and term with one
    (
        "sibling period",
        "leasing",
        "They asked $144,000 per year, we said $132,000.",
        "monthly_rent",
        [12000.0, 11000.0],
    ),
    (
        "sibling period",
        "leasing",
        "Rent $11,000 a month; the fit-out is $140,000.",
        "monthly_rent",
        [11000.0],
    ),
    # one year's total after an ordinal year
    ("year total", "leasing", "Rent for the third year totals $90,000.", "monthly_rent", [7500.0]),
    # a fraction after a whole number
    ("fraction", "leasing", "Deposit: three and a quarter months.", "deposit", [3.25]),
    ("fraction", "leasing", "A year and a quarter is too short for a lease.", "lease_term", [15.0]),
    # a deposit waived with a verb; a rent-free period is no deposit
    ("waived", "leasing", "Security deposit would be waived for you.", "deposit", [0.0]),
    ("waived", "leasing", "No rent for 4 free months, deposit 3 months.", "deposit", [3.0]),
    # labels: a bank, a revision, a point in the term
    ("label", "leasing", "Deposit held at Bank 9 in escrow.", "deposit", []),
    ("label", "procurement", "Revision 5: 11.80 per unit.", "unit_price", [11.8]),
    ("label", "leasing", "A 10-year lease with a rent review at year four.", "lease_term", [120.0]),
    # a purchase order is a number of units
    (
        "purchase order",
        "procurement",
        "Forecast 900k; the first PO 25,000.",
        "order_volume",
        [900000.0, 25000.0],
    ),
    # spelled dollars and cents after a price noun, not after "since"
    ("spelled price", "procurement", "The unit price: eleven twenty.", "unit_price", [11.2]),
    ("spelled price", "procurement", "Price list unchanged since nineteen eighty-five.", "unit_price", []),
    # a count's keyword names no figure written to the cent
    ("cents", "procurement", "You offered 12,80 €/pc.\nWe need 12,10 to sign.", "unit_price", [12.8, 12.1]),
    # a sum in months of the rent right after it, with several rents
    (
        "several rents",
        "leasing",
        "Deposit $9,000 if rent is $4,500, or $15,000 if rent is $5,000.",
        "deposit",
        [2.0, 3.0],
    ),
    ("months at", "leasing", "Deposit $22,000, that is two months at $11,000.", "deposit", [2.0, 2.0]),
    # what someone earned
    ("earned", "staffing", "He earned 97,500 in his last job.", "annual_salary", [97500.0]),
    # a cost that only modifies the figure; an idiom with "worth"
    ("modifier", "procurement", "We can do 12.90/u incl. freight.", "unit_price", [12.9]),
    ("modifier", "procurement", "$13.10 a unit, excluding shipping.", "unit_price", [13.1]),
    ("modifier", "staffing", "For what it's worth, 99k is fine.", "annual_salary", [99000.0]),
    ("modifier", "staffing", "The RSUs are worth 50k.", "annual_salary", []),
    # one figure or another, the unit after the second
    ("or", "leasing", "two or three years, no longer", "lease_term", [24.0, 36.0]),
    ("or", "leasing", "One or two things on the 5 year lease.", "lease_term", [60.0]),
    # set v10's errors that recur in another set's (issue 14): machines a plant holds are its capacity
    ("equipment", "procurement", "Our shop runs 40 lathes on two shifts.", "order_volume", []),
    ("equipment", "procurement", "With 25 robots and 3 lines we can turn it around.", "order_volume", []),
    ("equipment", "procurement", "We run 30 presses and need 12,000 brackets.", "order_volume", [12000.0]),
    ("equipment", "procurement", "We would buy 40 machines at $9,000 each.", "order_volume", [40.0]),
    ("equipment", "procurement", "We need 60 machines by May.", "order_volume", [60.0]),
    # a span in weeks said again in months right after it: the months only
    ("restated weeks", "leasing", "Deposit of eight weeks, that is about two months.", "deposit", [2.0]),
    ("restated weeks", "leasing", "A 10-week deposit, so roughly 2.3 months.", "deposit", [2.3]),
    ("restated weeks", "leasing", "Deposit 6 weeks or 2 months, your pick.", "deposit", [12 / 52 * 6, 2.0]),
    ("restated weeks", "leasing", "Deposit 8 weeks; the lease runs 36 months.", "deposit", [12 / 52 * 8]),
]


@pytest.mark.parametrize(
    ("form", "domain", "text", "term", "values"), FORMS, ids=[f"{c[0]}: {c[2][:40]}" for c in FORMS]
)
def test_forms_of_set_v9(form: str, domain: str, text: str, term: str, values: list[float]) -> None:
    found = highs(domain, text, term)
    assert same_values(found, values), (form, text, found)


# The same forms dressed as an adversary would: each variant must read as the plain text reads.
ZW, SOFT = "\u200b", "\u00ad"
ADVERSARIAL: list[tuple[str, str, str, str, list[float]]] = [
    ("zero-width digits", "staffing", f"Bi-weekly gross would be $4,2{ZW}00.", "annual_salary", [109200.0]),
    ("unicode hyphen", "staffing", "Bi\u2010weekly gross would be $4,200.", "annual_salary", [109200.0]),
    ("fullwidth digits", "procurement", "Can you make ９.５００ pieces?", "order_volume", [9500.0]),
    ("lookalike O", "procurement", "Can you make 9.5OO pieces?", "order_volume", [9500.0]),
    ("NUL in figure", "procurement", "Price per 250 is $3,0\x0000.", "unit_price", [12.0]),
    ("soft hyphen", "leasing", f"Security de{SOFT}posit would be waived for you.", "deposit", [0.0]),
    ("Cyrillic a", "leasing", "Deposit: three and \u0430 quarter months.", "deposit", [3.25]),
    (
        "Arabic-Indic",
        "leasing",
        "They asked $١٤٤,٠٠٠ per year, we said $132,000.",
        "monthly_rent",
        [12000.0, 11000.0],
    ),
    ("zero-width word", "staffing", f"He ear{ZW}ned 97,500 in his last job.", "annual_salary", [97500.0]),
    ("fullwidth count", "procurement", f"We have ６０ ma{ZW}chines and 3 shifts.", "order_volume", []),
    ("Cyrillic a noun", "procurement", "We have 60 m\u0430chines and 3 shifts.", "order_volume", []),
    (
        "zero-width weeks",
        "leasing",
        f"Deposit of eight we{ZW}eks, that\u2019s about two months.",
        "deposit",
        [2.0],
    ),
    ("fullwidth spans", "leasing", "Deposit of ８ weeks, that is about ２ months.", "deposit", [2.0]),
]


@pytest.mark.parametrize(
    ("dress", "domain", "text", "term", "values"), ADVERSARIAL, ids=[c[0] for c in ADVERSARIAL]
)
def test_adversarial_variants_read_as_the_plain_text(
    dress: str, domain: str, text: str, term: str, values: list[float]
) -> None:
    found = highs(domain, text, term)
    assert same_values(found, values), (dress, text, found)


# -- fail closed: a figure of these forms that cannot be read is held unread, never absent ------------------
@pytest.mark.parametrize(
    ("text", "unread"),
    [
        ("Bi-weekly gross would be $4,2l0.", ["4,2l0"]),  # a lowercase L for a 1
        ("Price per 250 is $3,O0O.", []),  # typed zeros fold to digits: it reads
        ("Can you make 9.5Ж0 pieces?", ["9.5ж", "ж0"]),  # a letter of another script inside
        ("Deposit $" + "9" * 40 + " if rent is $4,500.", ["9" * 40]),  # past a float's precision
    ],
)
def test_unreadable_figures_of_the_forms_are_held(text: str, unread: list[str]) -> None:
    assert unreadable_or_glued_figures(text) == unread


def test_the_boundary_check_holds_an_unreadable_figure_of_these_forms() -> None:
    result = preflight("Bi-weekly gross would be $4,2l0.", load_config("staffing"))
    assert any("cannot read" in problem for problem in result.problems), result.problems


# -- a form cut off at the end of the text reads what is there, without error -------------------------
@pytest.mark.parametrize(
    ("domain", "text"),
    [
        ("leasing", "one or"),
        ("leasing", "one or two"),
        ("procurement", "price per 1,000"),
        ("procurement", "price per 1,000 is"),
        ("staffing", "Bi-"),
        ("leasing", "deposit of one and a"),
        ("leasing", "2 free"),
        ("leasing", "Deposit $8,000 if rent is"),
        ("procurement", "Tooling $8,000, then"),
        ("staffing", "For what it's worth"),
        ("", ""),
    ],
)
def test_truncated_forms_read_without_error(domain: str, text: str) -> None:
    assert isinstance(find_amounts(text), list)
    if domain:
        assert isinstance(term_amounts(load_config(domain), text), list)


# -- bounded work on crafted input ---------------------------------------------------------------------------
CRAFTED = [
    ("procurement", "price per 1,000 is $1, "),
    ("leasing", "$1 per annum; $1, "),
    ("leasing", "Deposit $1 if rent is $1, or "),
    ("procurement", "Tooling $1, then $1 per part, "),
    ("leasing", "one or two or three or "),
    ("leasing", "a month and a quarter "),
    ("procurement", "7.000 pcs "),
    ("procurement", "we need 5,35 "),
    ("staffing", "incl. freight $1 worth "),
    ("procurement", "9"),  # one huge digit run
    ("staffing", "$1,"),
    ("procurement", "we have 60 machines with "),
    ("leasing", "deposit 6 weeks, so about so about "),
    ("leasing", "6 weeks, so 2 months, "),
]


@pytest.mark.parametrize(("domain", "unit"), CRAFTED, ids=[c[1][:16] for c in CRAFTED])
def test_crafted_repetitions_of_the_v9_forms_are_read_in_linear_time(domain: str, unit: str) -> None:
    """8x the text (4 KB -> 32 KB of one form repeated) costs well under the 64x of a quadratic reader
    (CPU time: the machine is shared)."""
    config = load_config(domain)
    term_amounts(config, "$1")  # build the folding tables outside the timing

    def cost(size: int) -> float:
        text = (unit * (size // len(unit) + 1))[:size]
        began = time.process_time()
        term_amounts(config, text)
        unreadable_or_glued_figures(text)
        return time.process_time() - began

    small, large = cost(4_000), cost(32_000)
    assert large < 8 * 4 * max(small, 0.02), (small, large)


@pytest.mark.parametrize("unit", ["one or two or three or ", "9", "price per 1,000 is $1, "])
def test_a_crafted_form_is_read_in_linear_time(unit: str) -> None:
    # growth, not speed (the 1 MB timings are benchmarks/bench_gaia_text.py's "amounts" table)
    find_amounts("$1")  # build the folding tables outside the measurement
    assert_grows_linearly(find_amounts, unit, 15_625, 4)
    assert isinstance(find_amounts(unit * 200), list)


# -- the spent sets (development figures: the change was written from their errors) -------------------------
ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.parametrize(
    ("path", "floor"),
    [
        # set v9: measured blind once at 309/327 (11 spurious); 325/327 with 1 spurious after this change,
        # a development figure (raised since: scored in test_amounts_twelfth.py)
        # the forms written after the change, before the reader was run on them (44 of 44 then)
        ("tests/governance/amount_forms_v10.yaml", 44 / 44),
        # the forms of test_amounts_v9.py, raised by this change (heldout8 stays scored there; sets v6, v7
        # and v10, raised since by the equipment, restated-weeks and twelfth-round forms, are scored in
        # test_amounts_twelfth.py: each set once, at its highest floor)
        ("tests/governance/amount_forms_v9.yaml", 44 / 44),
    ],
)
def test_amount_accuracy_on_the_spent_sets_of_set_v9(path: str, floor: float) -> None:
    from .measure_detectors import amount_accuracy

    score = amount_accuracy(ROOT / path)
    assert score.accuracy >= floor - 1e-9, score.errors
