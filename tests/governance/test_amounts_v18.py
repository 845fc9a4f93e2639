"""Amount forms of round 20 (issue 14), written from the errors three writers share (sets v13, v15, v17).

A count in dozens or grosses after a figure ("2 dozen", "ten gross of"), and a German rent per quarter
("Quartalsmiete", "im Quartal", "quartalsweise"). The examples here are written for the tests, not
copied from any set; each mechanism has a switch the measure's --ablation turns off
(`count_scales`, `quarter_words` in tests/governance/measure_amounts_cv.py).
"""

from __future__ import annotations

import pytest

import parley.governance.amounts as amounts_module
from parley.governance.amounts import find_amounts, term_amounts
from parley.governance.config import load_config

from .blind_sets import NEXT_BLIND
from .linear_time import assert_grows_linearly


def _values(domain: str, term: str, text: str) -> list[tuple[float, float]]:
    config = load_config(domain)
    return [(round(a.low, 6), round(a.high, 6)) for a in term_amounts(config, text) if a.term == term]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("We'd need 5 dozen of the ceramic mugs.", [(60.0, 60.0)]),
        ("Put us down for 30 dozen napkins.", [(360.0, 360.0)]),
        ("Please ship 3 gross of the hex screws.", [(432.0, 432.0)]),
        ("Order four gross of washers.", [(576.0, 576.0)]),
        ("Make it 8 dozen at $1.90 each.", [(96.0, 96.0)]),
    ],
)
def test_counts_in_dozens_and_grosses(text: str, expected: list[tuple[float, float]]) -> None:
    assert _values("procurement", "order_volume", text) == expected


def test_dozen_price_stays_a_price() -> None:
    text = "Make it 8 dozen at $1.90 each."
    assert _values("procurement", "unit_price", text) == [(1.9, 1.9)]


def test_gross_pay_is_not_a_gross_of_units() -> None:
    # "gross" counts 144 only before "of": a gross salary stays what it says
    assert _values("staffing", "annual_salary", "We offer 92,000 gross per year.") == [(92000.0, 92000.0)]


@pytest.mark.parametrize(
    "text", ["Base is 92,000 gross of tax per year.", "The salary: 92,000 gross of deductions a year."]
)
def test_a_sum_gross_of_tax_is_not_a_count_of_grosses(text: str) -> None:
    assert [a.low for a in find_amounts(text)] == [92000.0]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("Quartalsmiete: 36.000 €.", [(12000.0, 12000.0)]),
        ("Die Miete liegt bei 24.300 € im Quartal.", [(8100.0, 8100.0)]),
        ("Miete 15.000 € pro Quartal, zahlbar im Voraus.", [(5000.0, 5000.0)]),
        ("Wir zahlen quartalsweise 21.000 € Miete.", [(7000.0, 7000.0)]),
    ],
)
def test_german_rent_per_quarter(text: str, expected: list[tuple[float, float]]) -> None:
    assert _values("leasing", "monthly_rent", text) == expected


def test_monthly_rent_beside_a_quarterly_charge_stays_monthly() -> None:
    text = "Miete 6.500 € im Monat, Nebenkosten 1.200 € im Quartal."
    assert _values("leasing", "monthly_rent", text) == [(6500.0, 6500.0)]


def test_switches_turn_the_forms_off(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(amounts_module, "_COUNT_SCALES", False)
    assert _values("procurement", "order_volume", "Please ship 3 gross of the hex screws.") != [
        (432.0, 432.0)
    ]


# adversarial: lookalike letters and invisible characters read as the plain words; crafted text linear


def test_zero_width_inside_the_figure_of_a_dozen_count() -> None:
    assert _values("procurement", "order_volume", "We'd need 5\u200b dozen of the ceramic mugs.") == [
        (60.0, 60.0)
    ]


def test_homoglyph_digits_in_a_quarterly_rent() -> None:
    # a Cyrillic "О" for a zero is folded to the digit it imitates
    assert _values("leasing", "monthly_rent", "Quartalsmiete: 36.\u041e00 €.") == [(12000.0, 12000.0)]


def test_crafted_dozens_read_in_linear_time() -> None:
    config = load_config("procurement")
    unit = "Order 7 dozen, 3 gross of bolts, 2 dozen dozen gross of of; "
    assert_grows_linearly(lambda text: term_amounts(config, text), unit, 2_500, 4)


def test_crafted_quarters_read_in_linear_time() -> None:
    config = load_config("leasing")
    unit = "Quartalsmiete 9.000 € im Quartal pro Quartal quartalsweise; "
    assert_grows_linearly(lambda text: term_amounts(config, text), unit, 2_500, 4)


def test_the_measure_holds_the_switches_and_reads_no_blind_set() -> None:
    from .measure_amounts_cv import ABLATIONS, ORIGIN, SOURCES

    assert not set(SOURCES) & set(NEXT_BLIND)
    assert {"count_scales", "quarter_words"} <= set(ABLATIONS)
    assert all(len(ORIGIN[name]) >= 3 for name in ("count_scales", "quarter_words"))
