"""The amount reader on the range-scale form (issue 14, sixteenth round): the low end of a range takes
the multiplier of its high end, "85 bis 90 Tausend" and "between eight and nine hundred units", the form
the errors of sets v13, v14 and v15 share (v15's "from a hundred and fifteen to a hundred and twenty
thousand" is scaled already; its label reads a range where earlier sets label "go from X to Y" as two
values, so it stays wrong); wordings written for these tests (none taken from a labelled set), with near
misses that must stay as they were; adversarial variants; truncated forms; bounded work on crafted
input; floors on the spent sets (development figures)."""

from __future__ import annotations

from pathlib import Path

import pytest

from parley.governance.amounts import find_amounts, term_amounts
from parley.governance.config import load_config

from .amount_checks import assert_reads_repetition_linearly, same_values
from .blind_sets import NEXT_BLIND


def ranges(domain: str, text: str, term: str) -> list[tuple[float, float]]:
    return [(t.low, t.high) for t in term_amounts(load_config(domain), text) if t.term == term]


def same_ranges(found: list[tuple[float, float]], expected: list[tuple[float, float]]) -> bool:
    """Whether found are expected, one for one, each end within half a percent."""
    return len(found) == len(expected) and all(
        same_values([f[0], f[1]], [e[0], e[1]]) for f, e in zip(found, expected, strict=True)
    )


# (form and the sets whose errors show it, domain, text, term, the term's ranges in text order)
FORMS: list[tuple[str, str, str, str, list[tuple[float, float]]]] = [
    (
        "range scales v13",
        "staffing",
        "Wir bieten 70 bis 75 Tausend im Jahr.",
        "annual_salary",
        [(70e3, 75e3)],
    ),
    ("range scales v13", "leasing", "Miete 2.100 bis 2.300 € im Monat.", "monthly_rent", [(2100.0, 2300.0)]),
    (
        "range scales v14",
        "procurement",
        "Between six and seven hundred units.",
        "order_volume",
        [(600.0, 700.0)],
    ),
    (
        "range scales v14",
        "procurement",
        "Order from three to five hundred units.",
        "order_volume",
        [(300.0, 500.0)],
    ),
    # near misses: no hundreds to share, a low end not below the hundreds, digits, a date after "bis"
    ("near miss", "procurement", "Between two and two hundred units.", "order_volume", [(2.0, 200.0)]),
    ("near miss", "procurement", "Between eight and nine units.", "order_volume", [(8.0, 9.0)]),
    ("near miss", "procurement", "Between 8 and 900 units.", "order_volume", [(8.0, 900.0)]),
    ("near miss", "procurement", "USD 3,40 pro Stück, gültig bis 30.6.", "unit_price", [(3.4, 3.4)]),
]


@pytest.mark.parametrize(
    ("form", "domain", "text", "term", "expected"), FORMS, ids=[f"{c[0]}: {c[2][:40]}" for c in FORMS]
)
def test_forms_of_set_v15(
    form: str, domain: str, text: str, term: str, expected: list[tuple[float, float]]
) -> None:
    found = ranges(domain, text, term)
    assert same_ranges(found, expected), (form, text, found)


ADVERSARIAL: list[tuple[str, str, str, str, list[tuple[float, float]]]] = [
    ("upper case", "procurement", "BETWEEN SIX AND SEVEN HUNDRED UNITS.", "order_volume", [(600.0, 700.0)]),
    (
        "fullwidth digits",
        "staffing",
        "Wir bieten ７０ bis ７５ Tausend im Jahr.",
        "annual_salary",
        [(70e3, 75e3)],
    ),
]


@pytest.mark.parametrize(
    ("dress", "domain", "text", "term", "expected"), ADVERSARIAL, ids=[c[0] for c in ADVERSARIAL]
)
def test_adversarial_variants_read_as_the_plain_text(
    dress: str, domain: str, text: str, term: str, expected: list[tuple[float, float]]
) -> None:
    found = ranges(domain, text, term)
    assert same_ranges(found, expected), (dress, text, found)


@pytest.mark.parametrize(
    ("domain", "text"),
    [
        ("staffing", "70 bis"),
        ("procurement", "between six and"),
        ("procurement", "between six and seven hundred"),
    ],
)
def test_truncated_forms_read_without_error(domain: str, text: str) -> None:
    assert isinstance(find_amounts(text), list)
    assert isinstance(term_amounts(load_config(domain), text), list)


CRAFTED = [
    ("staffing", "70 bis 75 bis 80 Tausend "),
    ("procurement", "between six and seven hundred and "),
    ("procurement", "six to seven hundred to "),
]


@pytest.mark.parametrize(("domain", "unit"), CRAFTED, ids=[c[1][:16] for c in CRAFTED])
def test_crafted_repetitions_of_the_range_scales_are_read_in_linear_time(domain: str, unit: str) -> None:
    """8x the text costs well under the 64x of a quadratic reader (CPU time: the machine is shared)."""
    assert_reads_repetition_linearly(domain, unit)


ROOT = Path(__file__).resolve().parents[2]
FLOORS = [
    # set v15: measured blind once at 281/312 (12 spurious: 281/324 counting them), a development figure
    # since; the range scales left it as it was (its range item is labelled against earlier sets' moves)
    ("tests/data/gaia/heldout15/amounts.yaml", 281 / 324),
    # set v14 (280/293 before): "between eight and nine hundred units"
    ("tests/data/gaia/heldout14/amounts.yaml", 281 / 292),
    # set v13 (290/329 before): "85 bis 90 Tausend"
    ("tests/data/gaia/heldout13/amounts.yaml", 291 / 328),
]


def test_the_floors_name_no_blind_set() -> None:
    assert not any(blind in path for path, _ in FLOORS for blind in NEXT_BLIND)


@pytest.mark.parametrize(("path", "floor"), FLOORS)
def test_amount_accuracy_on_the_spent_sets_of_set_v15(path: str, floor: float) -> None:
    from .measure_detectors import amount_accuracy

    score = amount_accuracy(ROOT / path)
    assert score.accuracy >= floor - 1e-9, score.errors


# -- part 2: the money carry-over (issue 14, sixteenth round) ------------------------------------------------
# A bare follow-up figure with no keyword takes the money term and rate of the attributed money figure
# before it in the same message, within 0.5x-2x of it, when its own clause names no other cost and no
# other term's keyword stands between them outside an attributed figure (`_carried_money`, switch
# `money_carry`); a figure written to the cent after a figure with a multiplier is not read in thousands of
# that figure's unit ("10k units; list is 11.20"). The form of the errors of sets v10, v13 and v15;
# wordings written for these tests (none taken from a labelled set).
CARRY: list[tuple[str, str, str, str, list[float]]] = [
    (
        "carry v13",
        "staffing",
        "We bill 72 an hour, but for a long engagement we could do 66.",
        "hourly_rate",
        [72, 66],
    ),
    (
        "carry v13 (a type inherited from a figure no term took)",
        "staffing",
        "Our standard is 90 an hour but on a 6-month commitment I can do 84.",
        "hourly_rate",
        [90, 84],
    ),
    ("carry v13", "staffing", "Can you do 80 an hour? We're at 72 today.", "hourly_rate", [80, 72]),
    (
        "carry v15 (cents after a scaled count)",
        "procurement",
        "We quote 4.40 per unit at 20k units; list is 5.10.",
        "unit_price",
        [4.4, 5.1],
    ),
    (
        "carry v15",
        "procurement",
        "We quote 4.40 per unit at 20k units; list is 5.10.",
        "order_volume",
        [20000],
    ),
    ("carry", "leasing", "Rent 6,000 a month; we'd pay 5,500.", "monthly_rent", [6000, 5500]),
    # near misses: a count after a price, a date, a percentage, another cost, a headcount, a label, a
    # figure outside 2x of the money before it, another term's keyword, a time
    ("near miss: count", "procurement", "Price 6.00 per unit, box of 10.", "unit_price", [6.0]),
    ("near miss: date", "staffing", "We'll pay 80 an hour starting March 3.", "hourly_rate", [80]),
    ("near miss: percentage", "staffing", "80 an hour, plus a 60% overtime premium.", "hourly_rate", [80]),
    ("near miss: other cost", "staffing", "Rate 75 an hour; per diem 60.", "hourly_rate", [75]),
    ("near miss: other cost", "leasing", "Rent 4,500 a month, service charge 3,000.", "monthly_rent", [4500]),
    ("near miss: headcount", "staffing", "Rate 75 an hour; we have 50 consultants.", "hourly_rate", [75]),
    ("near miss: label", "staffing", "Rate 75 an hour, room 101, floor 60.", "hourly_rate", [75]),
    ("near miss: terms", "staffing", "Rate 75 an hour, net 45.", "hourly_rate", [75]),
    ("near miss: time", "staffing", "Rate 75 an hour. Call me at 9.", "hourly_rate", [75]),
    ("near miss: hours", "staffing", "Rate 75 an hour for 40 hours a week.", "hourly_rate", [75]),
    (
        "near miss: other term",
        "leasing",
        "Rent 4,500. Deposit two months, i.e. 9,000.",
        "monthly_rent",
        [4500],
    ),
    ("near miss: other term", "leasing", "Rent 6,000 a month; deposit 9,000.", "monthly_rent", [6000]),
]


@pytest.mark.parametrize(
    ("form", "domain", "text", "term", "expected"), CARRY, ids=[f"{c[0]}: {c[2][:40]}" for c in CARRY]
)
def test_money_carry_over(form: str, domain: str, text: str, term: str, expected: list[float]) -> None:
    found = [t.high for t in term_amounts(load_config(domain), text) if t.term == term]
    assert same_values(found, [float(v) for v in expected]), (form, found)


@pytest.mark.parametrize(
    "text",
    [
        "We bill \uff17\uff12 an hour, but for a long engagement we could do \uff16\uff16.",  # fullwidth
        "We bill 72 an hour, but for a long engagement we could do 6\u200b6.",  # zero-width inside
        "We bill 72 an hour, but for a long engagement we could do 66 .",
    ],
)
def test_money_carry_over_reads_adversarial_variants_as_the_plain_text(text: str) -> None:
    found = [t.high for t in term_amounts(load_config("staffing"), text) if t.term == "hourly_rate"]
    assert same_values(found, [72.0, 66.0]), found


@pytest.mark.parametrize(
    "text",
    ["We bill 72 an hour, but for a long engagement we could do", "list is 5.10", "72 an hour; 6", "; 66"],
)
def test_truncated_carry_forms_read_without_error(text: str) -> None:
    for domain in ("staffing", "procurement", "leasing"):
        term_amounts(load_config(domain), text)
        find_amounts(text)


@pytest.mark.parametrize(
    ("domain", "unit"),
    [
        ("staffing", "Rate 70 an hour; we could do 66. "),
        ("procurement", "4.40 per unit at 20k units; list is 5.10; "),
        ("leasing", "Rent 6,000 a month; 5,500 "),
        ("staffing", "70 an hour 66 "),
    ],
)
def test_crafted_repetitions_of_the_money_carry_are_read_in_linear_time(domain: str, unit: str) -> None:
    """8x the text costs well under the 64x of a quadratic reader (CPU time: the machine is shared)."""
    assert_reads_repetition_linearly(domain, unit)


CARRY_FLOORS = [
    # in-sample after the money carry (development figures; before: v15 281/324, v13 291/328, v10 316/329)
    ("tests/data/gaia/heldout15/amounts.yaml", 282 / 324),
    ("tests/data/gaia/heldout13/amounts.yaml", 292 / 328),
    ("tests/data/gaia/heldout10/amounts.yaml", 317 / 329),
]


def test_the_carry_floors_name_no_blind_set() -> None:
    assert not any(blind in path for path, _ in CARRY_FLOORS for blind in NEXT_BLIND)


@pytest.mark.parametrize(("path", "floor"), CARRY_FLOORS)
def test_amount_accuracy_with_the_money_carry(path: str, floor: float) -> None:
    from .measure_detectors import amount_accuracy

    score = amount_accuracy(ROOT / path)
    assert score.accuracy >= floor - 1e-9, score.errors
