"""Amount forms written from writer v18's misses (issue 14) that three or more writers share.

A figure in parentheses restating a spelled one takes the unit after the parenthesis ("seven (7) years",
writers v11, v15, v17, v18; `parenthesised_figures`), and a move to a bare figure ("we'll go to a hundred
and eighteen", writers v5, v7, v11, v13, v15, v18; `go_to_moves`) is read as "can you do 110?" is, and
"up" before "from X to Y" is a verb of change like "raise" (writers v6, v13, v14, v16, v18; `up_as_verb`). The
examples are written for the tests, not copied from any set; each mechanism has a switch the measure's
--ablation turns off (tests/governance/measure_amounts_cv.py).
"""

from __future__ import annotations

import pytest

import parley.governance.amounts as amounts_module
from parley.governance.amounts import term_amounts
from parley.governance.config import load_config

from .blind_sets import NEXT_BLIND
from .linear_time import assert_grows_linearly


def _values(domain: str, term: str, text: str) -> list[tuple[float, float]]:
    config = load_config(domain)
    return [(round(a.low, 6), round(a.high, 6)) for a in term_amounts(config, text) if a.term == term]


@pytest.mark.parametrize(
    ("text", "term", "expected"),
    [
        ("Lease term: five (5) years, renewable once.", "lease_term", [(60.0, 60.0)]),
        ("The Term shall be ten (10) yrs from handover.", "lease_term", [(120.0, 120.0)]),
        ("Term of eighteen (18) months commencing on signature.", "lease_term", [(18.0, 18.0)]),
        ("Security: four (4) months' rent as deposit.", "deposit", [(4.0, 4.0)]),
        ("Term: 6 years.", "lease_term", [(72.0, 72.0)]),  # the plain form read before
    ],
)
def test_parenthesised_figure_takes_the_unit_after(
    text: str, term: str, expected: list[tuple[float, float]]
) -> None:
    assert _values("leasing", term, text) == expected


def test_a_parenthesis_with_no_opening_is_no_restatement() -> None:
    # a list number "2)" is not a figure restated in parentheses
    assert _values("leasing", "lease_term", "Options: 2) years of renewal to be agreed.") != [(24.0, 24.0)]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("Fine, we can go to a hundred and twelve, no further.", [(112000.0, 112000.0)]),
        ("We could go up to 121 if she starts in March.", [(121000.0, 121000.0)]),
        ("We might stretch to one hundred and four.", [(104000.0, 104000.0)]),
    ],
)
def test_a_move_to_a_bare_figure_is_a_salary_in_thousands(
    text: str, expected: list[tuple[float, float]]
) -> None:
    assert _values("staffing", "annual_salary", text) == expected


def test_go_to_a_time_or_place_is_no_salary() -> None:
    assert _values("staffing", "annual_salary", "We'll go to 5 interviews before deciding.") == []
    assert _values("staffing", "annual_salary", "Please go to room 12 for the panel.") == []


def test_up_as_a_verb_before_from_to_gives_two_values() -> None:
    text = "Can we up the quantity from 4,000 to 4,800 pieces?"
    assert _values("procurement", "order_volume", text) == [(4000.0, 4000.0), (4800.0, 4800.0)]
    # a range without a verb of change stays a range
    assert _values("procurement", "order_volume", "Anywhere from 4,000 to 4,800 pieces.") == [
        (4000.0, 4800.0)
    ]


def test_switches_turn_the_forms_off(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(amounts_module, "_PARENTHESISED_FIGURES", False)
    assert _values("leasing", "lease_term", "Lease term: five (5) years, renewable once.") != [(60.0, 60.0)]
    monkeypatch.setattr(amounts_module, "_UP_AS_VERB", False)
    assert _values("procurement", "order_volume", "Can we up the quantity from 4,000 to 4,800 pieces?") == [
        (4000.0, 4800.0)
    ]
    monkeypatch.setattr(amounts_module, "_GO_TO_MOVES", False)
    assert _values("staffing", "annual_salary", "Fine, we can go to a hundred and twelve, no further.") == []


# adversarial: lookalike letters and invisible characters read as the plain words; crafted text linear


def test_zero_width_inside_the_unit_after_the_parenthesis() -> None:
    assert _values("leasing", "lease_term", "Lease term: five (5) ye\u200bars.") == [(60.0, 60.0)]


def test_homoglyph_letters_in_the_unit_after_the_parenthesis() -> None:
    # a Cyrillic "е" and "а" for the Latin letters are folded to the letters they imitate
    assert _values("leasing", "lease_term", "Lease term: five (5) y\u0435\u0430rs.") == [(60.0, 60.0)]


def test_crafted_parentheses_and_moves_read_in_linear_time() -> None:
    leasing = load_config("leasing")
    staffing = load_config("staffing")
    unit = "five (5) years (7)) (8) ((9) go to stretch up to "
    assert_grows_linearly(lambda text: term_amounts(leasing, text), unit, 2_500, 4)
    assert_grows_linearly(lambda text: term_amounts(staffing, text), "go to go up to 1 ", 2_500, 4)
    procurement = load_config("procurement")
    assert_grows_linearly(lambda text: term_amounts(procurement, text), "up up from 1 to 2 ", 2_500, 4)


def test_the_measure_holds_the_switches_and_reads_no_blind_set() -> None:
    from .measure_amounts_cv import ABLATIONS, ORIGIN, SOURCES

    assert not set(SOURCES) & set(NEXT_BLIND)
    assert "heldout18" in SOURCES
    for name in ("parenthesised_figures", "go_to_moves", "up_as_verb"):
        assert name in ABLATIONS
        assert name in ORIGIN
