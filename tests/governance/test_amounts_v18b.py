"""Amount forms of round 18b (issue 14), written from the errors three writers share (sets v13, v15, v17).

A price per hundred or per thousand followed by a clause rather than a full stop ("$4.80 per hundred
when you take the full reel"), and the French article naming the same rate ("1 200 € les 1 000
pièces"). The examples here are written for the tests, not copied from any set; the mechanism has a
switch the measure's --ablation turns off (`per_scale_clause` in tests/governance/measure_amounts_cv.py).
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
    ("text", "expected"),
    [
        (
            "$0.05 a sticker, or $4.80 per hundred when you take the full reel.",
            [(0.05, 0.05), (0.048, 0.048)],
        ),
        ("$0.62 each, $590 per thousand on orders above 20k.", [(0.62, 0.62), (0.59, 0.59)]),
        ("We charge $12 per hundred if you collect them yourself.", [(0.12, 0.12)]),
        ("$250 per hundred.", [(2.5, 2.5)]),  # the full-stop form read before
        ("Prix : 1 200 € les 1 000 pièces.", [(1.2, 1.2)]),
        ("Tarif 450 € les 100 unités, livraison comprise.", [(4.5, 4.5)]),
    ],
)
def test_price_per_hundred_or_thousand_before_a_clause(
    text: str, expected: list[tuple[float, float]]
) -> None:
    assert _values("procurement", "unit_price", text) == expected


def test_a_number_after_the_scale_word_is_not_the_count_ending() -> None:
    # "per hundred and fifty units" is 150 units, not a hundred then a clause
    assert _values("procurement", "unit_price", "$12 per hundred and fifty units") == [(0.08, 0.08)]


def test_a_date_after_the_french_article_is_no_count() -> None:
    assert _values("procurement", "unit_price", "Prix : 185 € le 12 mars.") == [(185.0, 185.0)]


def test_switch_turns_the_form_off(monkeypatch: pytest.MonkeyPatch) -> None:
    text = "$0.62 each, $590 per thousand on orders above 20k."
    monkeypatch.setattr(amounts_module, "_PER_SCALE_CLAUSE", False)
    assert (0.59, 0.59) not in _values("procurement", "unit_price", text)
    assert _values("procurement", "unit_price", "Prix : 1 200 € les 1 000 pièces.") != [(1.2, 1.2)]


# adversarial: lookalike letters and invisible characters read as the plain words; crafted text linear


def test_zero_width_inside_the_scale_word() -> None:
    text = "$0.62 each, $590 per thou\u200bsand on orders above 20k."
    assert (0.59, 0.59) in _values("procurement", "unit_price", text)


def test_homoglyph_letters_in_the_scale_word() -> None:
    # a Cyrillic "а" and "о" for the Latin letters are folded to the letters they imitate
    text = "$0.62 each, $590 per th\u043eus\u0430nd on orders above 20k."
    assert (0.59, 0.59) in _values("procurement", "unit_price", text)


def test_crafted_per_scales_read_in_linear_time() -> None:
    config = load_config("procurement")
    unit = "$5 per hundred if per thousand for les 1 000 unités le 12 per hundred and "
    assert_grows_linearly(lambda text: term_amounts(config, text), unit, 2_500, 4)


def test_the_measure_holds_the_switch_and_reads_no_blind_set() -> None:
    from .measure_amounts_cv import ABLATIONS, ORIGIN, SOURCES

    assert not set(SOURCES) & set(NEXT_BLIND)
    assert "per_scale_clause" in ABLATIONS
    assert len(ORIGIN["per_scale_clause"]) >= 3
