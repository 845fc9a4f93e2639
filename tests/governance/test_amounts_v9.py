"""The amount reader on the forms of set v8's errors and the classes that recur across the spent sets
(issue 14): one table of wordings written for these tests (none taken from a labelled set), one row per
wording, grouped by form; adversarial variants (lookalike, fullwidth and Arabic-Indic digits,
zero-width characters and NUL inside figures); money figures mixed with letters held unread (fail
closed); bounded work on crafted input; floors on the spent sets (development figures)."""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from parley.governance.amounts import find_amounts, term_amounts, unreadable_figures
from parley.governance.config import load_config
from parley.governance.preflight import preflight

from .amount_checks import highs, same_values

# (form, domain, text, term, the term's values in text order)
FORMS: list[tuple[str, str, str, str, list[float]]] = [
    # a period word after a verb of payment, "p/" for "per"
    ("period", "staffing", "Her pay: 2,100 paid weekly.", "annual_salary", [109200.0]),
    ("period", "staffing", "We'd do 8,500 payable monthly.", "annual_salary", [102000.0]),
    ("period", "staffing", "contract rate 79 p/hr, net 30", "hourly_rate", [79.0]),
    ("period", "staffing", "Fine, 83 p/h is the rate.", "hourly_rate", [83.0]),
    ("period", "staffing", "The trainee gets 80p per day.", "hourly_rate", []),  # pence, no rate of ours
    # a price per hundred or per thousand with nothing after it
    ("per count", "procurement", "Screws: $95 per thousand.", "unit_price", [0.095]),
    ("per count", "procurement", "They want 1,150 per hundred, delivered.", "unit_price", [11.5]),
    # a total for a lot, a batch or a consignment
    ("total", "procurement", "A batch of 4,000 runs $46,000.", "unit_price", [11.5]),
    ("total", "procurement", "The consignment of 1,500 costs $18,750.", "unit_price", [12.5]),
    ("total", "procurement", "$12.50 for 2k and $11.75 for 4k.", "unit_price", [12.5, 11.75]),  # tiers
    # packages: a size defined first, or counts multiplied by a sign
    ("packages", "procurement", "Packs of 50; we'll take 40 packs.", "order_volume", [2000.0]),
    (
        "packages",
        "procurement",
        "30 pallets x 100 units, plus 25 spare units.",
        "order_volume",
        [3000.0, 25.0],
    ),
    ("packages", "procurement", "Cases of 12 are fine.", "order_volume", []),  # a size, no order
    # instalments of a year's pay
    ("instalments", "staffing", "Paid in 13 instalments of 7,000.", "annual_salary", [91000.0]),
    ("instalments", "staffing", "Salary in twelve monthly payments of 7,900.", "annual_salary", [94800.0]),
    ("instalments", "staffing", "Paid in 3 instalments of 7,000.", "annual_salary", []),  # no year's count
    # one year's sum named by an ordinal
    ("year sum", "leasing", "Second-year rent comes to $102,000.", "monthly_rent", [8500.0]),
    ("year sum", "leasing", "First year rent: $96,000.", "monthly_rent", [8000.0]),
    # a deposit in money beside the rent; "i.e." ends no sentence; waived, and "and a half"
    ("deposit", "leasing", "rent 9k, deposit 27k", "deposit", [3.0]),
    ("deposit", "leasing", "Deposit of 2 months at the $8,000 rent, i.e. $16,000.", "deposit", [2.0, 2.0]),
    ("deposit", "leasing", "A month and a half? No, the deposit is three months.", "deposit", [1.5, 3.0]),
    ("deposit", "leasing", "Two months deposit, or none with a bank guarantee.", "deposit", [2.0, 0.0]),
    ("deposit", "leasing", "We'd want a month and a half of deposit.", "deposit", [1.5]),
    # a figure named by "number" or "floor" of the negotiation, not a label
    ("negotiated", "staffing", "Our opening number was 96, then 99.", "annual_salary", [96000.0, 99000.0]),
    (
        "negotiated",
        "staffing",
        "rate 80-84/h, hard floor 78",
        "hourly_rate",
        [84.0, 78.0],
    ),  # a range, its top
    ("negotiated", "leasing", "Rent $9,000 a month for the office on floor 12.", "monthly_rent", [9000.0]),
    ("negotiated", "staffing", "The suite number is 1100; base is $95k.", "annual_salary", [95000.0]),
    # options and renewals are no term; counts of them neither
    ("options", "leasing", "A 60-month lease, renewable for 24 more.", "lease_term", [60.0]),
    ("options", "leasing", "4-year term plus 3 one-year options.", "lease_term", [48.0]),
    ("options", "leasing", "Lease of 36 months, extendable by 12.", "lease_term", [36.0]),
    # headcounts and sites are no volume
    (
        "headcount",
        "procurement",
        "We have 2,400 employees across 9 sites; order is 1,000 units.",
        "order_volume",
        [1000.0],
    ),
    ("headcount", "procurement", "1,500 workers use the tool daily.", "order_volume", []),
    # a corrected or forecast volume with a multiplier; a bare price after a count and "at"
    (
        "siblings",
        "procurement",
        "Five thousand units, not fifty thousand.",
        "order_volume",
        [5000.0, 50000.0],
    ),
    (
        "siblings",
        "procurement",
        "Forecast 3 million, firm 400 thousand.",
        "order_volume",
        [3000000.0, 400000.0],
    ),
    ("siblings", "procurement", "Ref 5521: 600 pcs at 11.30 each? Or 10.90?", "unit_price", [11.3, 10.9]),
    ("siblings", "procurement", "600 pcs at 11.30.", "unit_price", [11.3]),
    ("siblings", "procurement", "600 pcs at 3 pm.", "unit_price", []),  # a time, no price
    # spelled dollars and cents after a spelled price
    ("spelled", "procurement", "nine eighty a unit, nine sixty if you pay upfront", "unit_price", [9.8, 9.6]),
    ("spelled", "procurement", "nine eighty a unit, nine more weeks lead time", "unit_price", [9.8]),
]


@pytest.mark.parametrize(
    ("form", "domain", "text", "term", "values"), FORMS, ids=[f"{c[0]}: {c[2][:40]}" for c in FORMS]
)
def test_forms_of_set_v8(form: str, domain: str, text: str, term: str, values: list[float]) -> None:
    found = highs(domain, text, term)
    assert same_values(found, values), (form, text, found)


# The same forms dressed as an adversary would: each variant must read as the plain text reads.
ZW, SOFT = "\u200b", "\u00ad"
ADVERSARIAL: list[tuple[str, str, str, str, list[float]]] = [
    ("zero-width", "staffing", f"Her pay: 2,{ZW}100 paid week{ZW}ly.", "annual_salary", [109200.0]),
    ("soft hyphen", "staffing", f"contract rate 7{SOFT}9 p/hr, net 30", "hourly_rate", [79.0]),
    ("fullwidth", "procurement", "Packs of ５０; we'll take ４０ packs.", "order_volume", [2000.0]),
    ("fullwidth", "leasing", "rent ９k, deposit ２７k", "deposit", [3.0]),
    ("Arabic-Indic", "staffing", "Paid in ١٣ instalments of ٧,٠٠٠.", "annual_salary", [91000.0]),
    ("NUL", "procurement", "A batch of 4,0\x0000 runs $46,000.", "unit_price", [11.5]),
    ("lookalike O", "leasing", "Second-year rent comes to $1O2,OOO.", "monthly_rent", [8500.0]),
    ("Cyrillic a", "leasing", "We'd w\u0430nt a month and a half of deposit.", "deposit", [1.5]),
]


@pytest.mark.parametrize(
    ("dress", "domain", "text", "term", "values"), ADVERSARIAL, ids=[c[0] for c in ADVERSARIAL]
)
def test_adversarial_variants_read_as_the_plain_text(
    dress: str, domain: str, text: str, term: str, values: list[float]
) -> None:
    found = highs(domain, text, term)
    assert same_values(found, values), (dress, text, found)


# -- fail closed: money written with letters among its digits is held unread, never absent ------------------
@pytest.mark.parametrize(
    ("text", "unread"),
    [
        ("We offer $l20,000 a year.", ["l20,000"]),  # a lowercase L for the 1
        ("We offer $I05,000 a year.", ["I05,000"]),
        ("Budget: $1e5.", ["1e5"]),
        ("Rent $4k2 a month.", ["4k2"]),
        ("We offer $120,000 a year, $5k sign-on.", []),
        ("yr1 $4,000/mo, yr2 $4,120/mo", []),
        ("Invoice 4k2 is paid.", []),  # no currency: a label
    ],
)
def test_money_mixed_with_letters_is_held_unread(text: str, unread: list[str]) -> None:
    assert unreadable_figures(text) == unread


def test_the_boundary_check_holds_a_figure_mixed_with_letters() -> None:
    result = preflight("We can offer $l20,000 a year.", load_config("staffing"))
    assert any("cannot read" in problem for problem in result.problems), result.problems


# -- bounded work on crafted input ---------------------------------------------------------------------------
CRAFTED = [
    ("procurement", "The lot of 3,000 costs $16,500, "),
    ("leasing", "a month and a half "),
    ("procurement", "Boxes of 24; we need 150 boxes. "),
    ("procurement", "250 pcs at 18.40 "),
    ("staffing", "12 instalments of 10 500 "),
    ("staffing", "$l20,000 $1e5 $4k2 "),
    ("procurement", "\uff11" * 64 + ","),  # fullwidth digit runs
    ("staffing", "$1,"),
]


@pytest.mark.parametrize(("domain", "unit"), CRAFTED, ids=[c[1][:16] for c in CRAFTED])
def test_crafted_repetitions_of_the_v8_forms_are_read_in_linear_time(domain: str, unit: str) -> None:
    """8x the text (16 KB -> 128 KB of one form repeated) costs well under the 64x of a quadratic reader
    (CPU time: the machine is shared); a megabyte is read up to its bound without error."""
    config = load_config(domain)
    term_amounts(config, "$1")  # build the folding tables outside the timing

    def cost(size: int) -> float:
        text = (unit * (size // len(unit) + 1))[:size]
        began = time.process_time()
        term_amounts(config, text)
        unreadable_figures(text)
        return time.process_time() - began

    small, large = cost(16_000), cost(128_000)
    assert large < 8 * 4 * max(small, 0.02), (small, large)
    megabyte = (unit * (1_000_000 // len(unit) + 1))[:1_000_000]
    assert isinstance(find_amounts(megabyte), list)


# -- the spent sets (development figures: the change was written from their errors) -------------------------
ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.parametrize(
    ("path", "floor"),
    [
        # set v8: measured blind once at 326/348 (10 spurious); 348/348 after this change, a development
        # figure (the change was written from its error classes)
        ("tests/data/gaia/heldout8/amounts.yaml", 348 / 348),
        # the forms written before the change (21 of 54 right then, 43/45 after; 44/44 since, scored in
        # test_amounts_v10.py) and sets v6 and v7 (raised since, scored in test_amounts_twelfth.py)
    ],
)
def test_amount_accuracy_on_the_spent_sets_of_set_v8(path: str, floor: float) -> None:
    from .measure_detectors import amount_accuracy

    score = amount_accuracy(ROOT / path)
    assert score.accuracy >= floor - 1e-9, score.errors
