"""The amount reader on the error forms of set v13 that recur in set v12's errors (issue 14, fourteenth
round): wordings written for these tests (none taken from a labelled set), grouped by form and named by
the spent sets whose errors show it, with near misses that must stay as they were; adversarial variants;
truncated forms; bounded work on crafted input; floors on the spent sets (development figures: the
change was written from their errors)."""

from __future__ import annotations

from pathlib import Path

import pytest

from parley.governance.amounts import find_amounts, term_amounts
from parley.governance.config import load_config

from .amount_checks import assert_reads_repetition_linearly, highs, same_values

# (form and the sets whose errors show it, domain, text, term, the term's values in text order)
FORMS: list[tuple[str, str, str, str, list[float]]] = [
    # a deposit as a multiple of the monthly rent or in quarters of it (`rent_multiples`: v12, v13)
    ("rent multiples v12 v13", "leasing", "Security deposit: 2x the monthly rent.", "deposit", [2.0]),
    ("rent multiples v12 v13", "leasing", "We ask 3 x monthly rent as deposit.", "deposit", [3.0]),
    (
        "rent multiples v12 v13",
        "leasing",
        "Deposit of two quarters' rent, payable on signing.",
        "deposit",
        [6.0],
    ),
    ("rent multiples v12 v13", "leasing", "The deposit is a quarter's rent.", "deposit", [3.0]),
    # near misses: a fraction of the rent, a rent for a quarter, a multiple of something else
    ("rent multiples v12 v13", "leasing", "The deposit is a quarter of the rent.", "deposit", []),
    ("rent multiples v12 v13", "leasing", "Rent for a quarter is $9,000.", "deposit", []),
    ("rent multiples v12 v13", "leasing", "Fit-out costs 3x the market rate.", "deposit", []),
    # a day rate divided by the hours stated after it in another language or as "h/day" (`day_hours`:
    # v12, v13)
    ("day hours v12 v13", "staffing", "Forfait journalier de 640 €, base 8 heures.", "hourly_rate", [80.0]),
    ("day hours v12 v13", "staffing", "Tarifa diaria 480 €, 6 horas.", "hourly_rate", [80.0]),
    ("day hours v12 v13", "staffing", "He charges 900 a day, 7.5h/day.", "hourly_rate", [120.0]),
    ("day hours v12 v13", "staffing", "Day rate $800, we bill 8 hrs/day.", "hourly_rate", [100.0]),
    # near miss: the hours of a week beside an hourly rate stay no rate
    (
        "day hours v12 v13",
        "staffing",
        "Wir arbeiten 40 Stunden pro Woche zu 85 € die Stunde.",
        "hourly_rate",
        [85.0],
    ),
]


@pytest.mark.parametrize(
    ("form", "domain", "text", "term", "values"), FORMS, ids=[f"{c[0]}: {c[2][:40]}" for c in FORMS]
)
def test_forms_of_set_v13(form: str, domain: str, text: str, term: str, values: list[float]) -> None:
    found = highs(domain, text, term)
    assert same_values(found, values), (form, text, found)


ZW = "\u200b"
ADVERSARIAL: list[tuple[str, str, str, str, list[float]]] = [
    ("fullwidth times", "leasing", "Deposit: ２x monthly rent.", "deposit", [2.0]),
    ("zero-width heures", "staffing", f"Tarif journalier 560 €, base 7 heu{ZW}res.", "hourly_rate", [80.0]),
    ("Cyrillic o in Stunden", "staffing", "1.200 € pro Tag bei 8 Stund\u0435n.", "hourly_rate", [150.0]),
]


@pytest.mark.parametrize(
    ("dress", "domain", "text", "term", "values"), ADVERSARIAL, ids=[c[0] for c in ADVERSARIAL]
)
def test_adversarial_variants_read_as_the_plain_text(
    dress: str, domain: str, text: str, term: str, values: list[float]
) -> None:
    found = highs(domain, text, term)
    assert same_values(found, values), (dress, text, found)


@pytest.mark.parametrize(
    ("domain", "text"),
    [
        ("leasing", "deposit = 3x"),
        ("leasing", "deposit = 3x monthly"),
        ("leasing", "one quarter's"),
        ("leasing", "two quarters' rent"),
        ("staffing", "900 a day, 7.5 h/"),
        ("staffing", "1.200 € pro Tag bei 8"),
    ],
)
def test_truncated_forms_read_without_error(domain: str, text: str) -> None:
    assert isinstance(find_amounts(text), list)
    assert isinstance(term_amounts(load_config(domain), text), list)


CRAFTED = [
    ("leasing", "3x monthly rent, "),
    ("leasing", "two quarters' rent "),
    ("staffing", "900 a day, 7.5 h/day "),
    ("staffing", "560 € journalier, 7 heures "),
]


@pytest.mark.parametrize(("domain", "unit"), CRAFTED, ids=[c[1][:16] for c in CRAFTED])
def test_crafted_repetitions_of_the_v13_forms_are_read_in_linear_time(domain: str, unit: str) -> None:
    """8x the text costs well under the 64x of a quadratic reader (CPU time: the machine is shared)."""
    assert_reads_repetition_linearly(domain, unit)


ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.parametrize(
    ("path", "floor"),
    [
        # set v13: measured blind once at 280/317 (13 spurious, 280/330 counting them); 284/329 after its
        # forms that recur in set v12's errors were fixed (`day_hours`, `rent_multiples`), a development
        # figure (280/330 with both off)
        ("tests/data/gaia/heldout13/amounts.yaml", 284 / 329),
        # the set whose errors show the same forms, raised where this change raised it (289/317 before)
        ("tests/data/gaia/heldout12/amounts.yaml", 292 / 317),
    ],
)
def test_amount_accuracy_on_the_spent_sets_of_set_v13(path: str, floor: float) -> None:
    from .measure_detectors import amount_accuracy

    score = amount_accuracy(ROOT / path)
    assert score.accuracy >= floor - 1e-9, score.errors
