"""The amount reader on the carry-over form (issue 14, fifteenth round): a bare follow-up figure with no
keyword and no unit that inherits the term and unit of the duration attributed before it in the same
message, the error form recurring in sets v10, v13 and v14; wordings written for these tests (none taken
from a labelled set), with near misses that must stay as they were; adversarial variants; truncated
forms; bounded work on crafted input; floors on the spent sets (development figures)."""

from __future__ import annotations

from pathlib import Path

import pytest

from parley.governance.amounts import find_amounts, term_amounts
from parley.governance.config import load_config

from .amount_checks import assert_reads_repetition_linearly, highs, same_values
from .blind_sets import NEXT_BLIND

# (form and the sets whose errors show it, domain, text, term, the term's values in text order)
FORMS: list[tuple[str, str, str, str, list[float]]] = [
    ("carry-over v10 v13 v14", "leasing", "A 12 yr lease is too long. Tops 8.", "lease_term", [144.0, 96.0]),
    ("carry-over v10 v13 v14", "leasing", "They asked for 5 years; we said 4.", "lease_term", [60.0, 48.0]),
    (
        "carry-over v10 v13 v14",
        "leasing",
        "Thirty months feels short for the build-out; we'd prefer 42.",
        "lease_term",
        [30.0, 42.0],
    ),
    # near misses: another term named between them, another cost in the figure's own clause, a far
    # value, a figure with its own unit, a date
    ("carry-over near miss", "leasing", "Lease 5 years. The fit-out budget is 40.", "lease_term", [60.0]),
    ("carry-over near miss", "leasing", "Lease 3 years. Suite 900.", "lease_term", [36.0]),
    ("carry-over near miss", "leasing", "Lease of 4 years, signed 2027.", "lease_term", [48.0]),
    ("carry-over near miss", "leasing", "A 3 year lease, then 2.5.", "lease_term", [36.0, 30.0]),
]


@pytest.mark.parametrize(
    ("form", "domain", "text", "term", "values"), FORMS, ids=[f"{c[0]}: {c[2][:40]}" for c in FORMS]
)
def test_forms_of_set_v14(form: str, domain: str, text: str, term: str, values: list[float]) -> None:
    found = highs(domain, text, term)
    assert same_values(found, values), (form, text, found)


ADVERSARIAL: list[tuple[str, str, str, str, list[float]]] = [
    ("fullwidth digits", "leasing", "A 15 yr lease? no. max １０.", "lease_term", [180.0, 120.0]),
    (
        "zero-width in the keyword",
        "leasing",
        "A 15 yr le\u200base? no. max 10.",
        "lease_term",
        [180.0, 120.0],
    ),
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
    [("leasing", "a 15 yr lease? max"), ("leasing", "5 years; we said"), ("leasing", "lease 3 years, 1")],
)
def test_truncated_forms_read_without_error(domain: str, text: str) -> None:
    assert isinstance(find_amounts(text), list)
    assert isinstance(term_amounts(load_config(domain), text), list)


CRAFTED = [
    ("leasing", "a 15 yr lease? max 10. "),
    ("leasing", "5 years; we said 4, "),
    ("leasing", "lease 3 years 4 5 6 "),
]


@pytest.mark.parametrize(("domain", "unit"), CRAFTED, ids=[c[1][:16] for c in CRAFTED])
def test_crafted_repetitions_of_the_carry_over_are_read_in_linear_time(domain: str, unit: str) -> None:
    """8x the text costs well under the 64x of a quadratic reader (CPU time: the machine is shared)."""
    assert_reads_repetition_linearly(domain, unit)


ROOT = Path(__file__).resolve().parents[2]
FLOORS = [
    # set v14: measured blind once at 272/288 (11 spurious: 272/299 counting them), a development figure
    # since; the carry-over left it as it was (its carry-over item is a figure the finder misses in quotes)
    # and the spoken shorthand of part 2 ("Eleven-five", "tops out at one-ten") 274/298
    ("tests/data/gaia/heldout14/amounts.yaml", 274 / 298),
    # set v13 (284/329 before): the carry-over reads "max 10" and "we want 48" after a stated term
    ("tests/data/gaia/heldout13/amounts.yaml", 286 / 329),
]


def test_the_floors_name_no_blind_set() -> None:
    assert not any(blind in path for path, _ in FLOORS for blind in NEXT_BLIND)


@pytest.mark.parametrize(("path", "floor"), FLOORS)
def test_amount_accuracy_on_the_spent_sets_of_set_v14(path: str, floor: float) -> None:
    from .measure_detectors import amount_accuracy

    score = amount_accuracy(ROOT / path)
    assert score.accuracy >= floor - 1e-9, score.errors


# -- a figure named by another cost after a duration (fifteenth round, part 2) -----------------------------
# Known misreads: "Lease 5 years; deposit is 3." read a lease term of 36 months, "Term 5 years, deposit 2."
# one of 24 and "Lease 5 years; fit-out 40." one of 480: a figure another cost or sum names takes no unit
# from the duration before it (`_NAMED_NOT_INHERITED`), and a bare figure another cost names nearer than
# the term's keyword is no duration of that term (`_OTHER_NAMES_BARE`); `named_not_durations` in
# `--ablation`. Wordings written for these tests; the deposit figures are the deposit's own, in months.
NAMED: list[tuple[str, str, str, list[tuple[str, float]]]] = [
    (
        "deposit after the term",
        "leasing",
        "Lease 5 years; deposit is 3.",
        [("lease_term", 60.0), ("deposit", 3.0)],
    ),
    (
        "deposit after the term",
        "leasing",
        "Term 5 years, deposit 2.",
        [("lease_term", 60.0), ("deposit", 2.0)],
    ),
    ("another cost after the term", "leasing", "Lease 5 years; fit-out 40.", [("lease_term", 60.0)]),
    ("another cost, unhyphenated", "leasing", "Lease 5 years; fit out 40.", [("lease_term", 60.0)]),
    ("another cost, with a verb", "leasing", "Lease 5 years; the fit-out is 40.", [("lease_term", 60.0)]),
    ("another cost, one word", "leasing", "Lease 5 years; freight 40.", [("lease_term", 60.0)]),
    # near misses that must keep their reading: a follow-up of the term itself, "sign" as a verb, a
    # deposit list, a term after the cost
    (
        "near miss: sign as a verb",
        "leasing",
        "Landlord wants ten years; we would sign for seven.",
        [("lease_term", 120.0), ("lease_term", 84.0)],
    ),
    (
        "near miss: a carried follow-up",
        "leasing",
        "A 15 yr lease? no. max 10.",
        [("lease_term", 180.0), ("lease_term", 120.0)],
    ),
    (
        "near miss: the deposit's own list",
        "leasing",
        "Lease 5 years, deposit 2 months or 3.",
        [("lease_term", 60.0), ("deposit", 2.0), ("deposit", 3.0)],
    ),
]


def _read(domain: str, text: str) -> list[tuple[str, float]]:
    return [(t.term, t.high) for t in term_amounts(load_config(domain), text)]


@pytest.mark.parametrize(
    ("form", "domain", "text", "read"), NAMED, ids=[f"{c[0]}: {c[2][:40]}" for c in NAMED]
)
def test_a_figure_another_cost_names_is_no_lease_term(
    form: str, domain: str, text: str, read: list[tuple[str, float]]
) -> None:
    found = _read(domain, text)
    assert [t for t, _ in found] == [t for t, _ in read], (form, text, found)
    assert same_values([v for _, v in found], [v for _, v in read]), (form, text, found)


NAMED_ADVERSARIAL = [
    ("fullwidth digits", "leasing", "Lease ５ years; deposit is ３."),
    ("zero-width in the noun", "leasing", "Lease 5 years; fit-\u200bout 40."),
    ("upper case", "leasing", "LEASE 5 YEARS; DEPOSIT IS 3."),
]


@pytest.mark.parametrize(
    ("dress", "domain", "text"), NAMED_ADVERSARIAL, ids=[c[0] for c in NAMED_ADVERSARIAL]
)
def test_dressed_named_figures_read_no_spurious_term(dress: str, domain: str, text: str) -> None:
    terms = highs(domain, text, "lease_term")
    assert same_values(terms, [60.0]), (dress, text, terms)


@pytest.mark.parametrize(
    ("domain", "text"),
    [("leasing", "Lease 5 years; deposit is"), ("leasing", "Lease 5 years; fit-"), ("leasing", "fit")],
)
def test_truncated_named_figures_read_without_error(domain: str, text: str) -> None:
    assert isinstance(find_amounts(text), list)
    assert isinstance(term_amounts(load_config(domain), text), list)


@pytest.mark.parametrize(
    ("domain", "unit"),
    [
        ("leasing", "Lease 5 years; deposit is 3. "),
        ("leasing", "term 5 years, fit out 40, sign "),
        ("leasing", "fit-"),
    ],
    ids=["deposit", "fit out", "hyphens"],
)
def test_crafted_repetitions_of_named_figures_are_read_in_linear_time(domain: str, unit: str) -> None:
    assert_reads_repetition_linearly(domain, unit)


# -- spoken shorthand (fifteenth round, part 2): the error form of sets v12 and v14 -------------------------
# "eleven-five" is 11.5 thousand (`_teens_shorthand`, `spoken_teens` in `--ablation`), and the spoken
# "one-ten" after a limit or offer word and "at" is a figure, not a time (`_FIGURE_AT`, `figure_at`);
# each was written from one set's items and helps the other's (v14 a245 and v12 a099; v14 a190 and v12
# a139). Wordings written for these tests.
SPOKEN: list[tuple[str, str, str, str, list[float]]] = [
    ("teens shorthand", "leasing", "Thirteen-five a month and we sign.", "monthly_rent", [13500.0]),
    ("teens shorthand", "leasing", "Rent: seventeen-five monthly, no more.", "monthly_rent", [17500.0]),
    ("figure at", "staffing", "Our salary band caps at one-twenty.", "annual_salary", [120000.0]),
    (
        "figure at",
        "staffing",
        "Base salary: we started at one ten, you want one thirty.",
        "annual_salary",
        [110000.0, 130000.0],
    ),
    # near misses: a time after "at", a clock word, a score-like hyphen before a unit, a plain compound
    ("near miss: a time", "staffing", "Let's talk salary at one-fifteen tomorrow.", "annual_salary", []),
    ("near miss: a time", "staffing", "Salary call: meet at one thirty.", "annual_salary", []),
    (
        "near miss: a unit after",
        "leasing",
        "The rent covers eleven-five years of upkeep.",
        "monthly_rent",
        [],
    ),
    ("near miss: a compound", "leasing", "Rent is twenty-five hundred a month.", "monthly_rent", [2500.0]),
]


@pytest.mark.parametrize(
    ("form", "domain", "text", "term", "values"), SPOKEN, ids=[f"{c[0]}: {c[2][:40]}" for c in SPOKEN]
)
def test_spoken_shorthand_of_sets_v12_and_v14(
    form: str, domain: str, text: str, term: str, values: list[float]
) -> None:
    found = highs(domain, text, term)
    assert same_values(found, values), (form, text, found)


@pytest.mark.parametrize(
    ("dress", "text", "values"),
    [
        ("fullwidth hyphen-minus", "Thirteen\uff0dfive a month and we sign.", [13500.0]),
        ("upper case", "THIRTEEN-FIVE A MONTH AND WE SIGN.", [13500.0]),
        ("zero-width in the word", "Thir\u200bteen-five a month and we sign.", [13500.0]),
    ],
)
def test_dressed_spoken_shorthand_reads_as_the_plain_text(dress: str, text: str, values: list[float]) -> None:
    found = highs("leasing", text, "monthly_rent")
    assert same_values(found, values) or found == [], (dress, text, found)  # never a wrong figure


@pytest.mark.parametrize(
    ("domain", "unit"),
    [
        ("leasing", "eleven-five eleven-five - "),
        ("staffing", "tops out at one-ten at at one "),
        ("leasing", "eleven-"),
    ],
    ids=["teens", "figure at", "hyphen"],
)
def test_crafted_repetitions_of_spoken_shorthand_are_read_in_linear_time(domain: str, unit: str) -> None:
    assert_reads_repetition_linearly(domain, unit)
