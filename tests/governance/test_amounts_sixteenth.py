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
