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
    # and part 3 (deposit over a neighbouring or yearly rent, day pay over hours, rent-free before its
    # figure, a count's total by a verb of totalling) 280/293
    ("tests/data/gaia/heldout14/amounts.yaml", 280 / 293),
    # set v13 (284/329 before): the carry-over reads "max 10" and "we want 48" after a stated term; part 3
    # the deposits over a neighbouring rent or "Kaltmiete" and "250 chairs comes to" 290/329
    ("tests/data/gaia/heldout13/amounts.yaml", 290 / 329),
    # set v12 (295/316 before part 3): a deposit over a yearly rent, a rent-free period before its figure
    ("tests/data/gaia/heldout12/amounts.yaml", 296 / 315),
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


# -- remaining recurring forms (fifteenth round, part 3) ---------------------------------------------------
# A deposit in money over the rent of the next or previous sentence, over a yearly rent, or as a range
# (sets v12, v13, v14; `deposit_neighbours` in `--ablation`); a pay per day over the hours stated after
# it, German "Tagessatz" and a bare pay "for a 10-hour day" (set v14; `day_pay_forms`); a rent-free period
# named before its figure (sets v12 and v14; `free_before`); a count joined to its total by a verb of
# totalling (sets v13 and v14; `count_total_verbs`). Wordings written for these tests.
PART3: list[tuple[str, str, str, str, list[float]]] = [
    ("deposit, rent after", "leasing", "Deposit: $14,000. Rent: $7,000 a month.", "deposit", [2.0]),
    ("deposit, rent before", "leasing", "The rent is $4,000 a month. Deposit $12,000.", "deposit", [3.0]),
    ("deposit, yearly rent", "leasing", "Yearly rent 96,000; deposit 16,000.", "deposit", [2.0]),
    ("deposit, German rent", "leasing", "Kaution 9.000 €, Kaltmiete 3.000 €.", "deposit", [3.0]),
    ("day pay, Tagessatz", "staffing", "Tagessatz 720 € bei 8 Stunden.", "hourly_rate", [90.0]),
    ("day pay, h", "staffing", "Tagessatz €800 auf Basis von 8 h.", "hourly_rate", [100.0]),
    ("day pay, bare", "staffing", "We pay 900 for a 10-hour day.", "hourly_rate", [90.0]),
    ("rent-free before", "leasing", "Rent-free: three months. Deposit: 2 months.", "deposit", [2.0]),
    ("rent-free before", "leasing", "Deposit 3 months if the rent-free stays at 2 months.", "deposit", [3.0]),
    ("count total verb", "procurement", "The batch of 400 lamps comes to $9,600.", "unit_price", [24.0]),
    (
        "count total verb",
        "procurement",
        "For 1,500 units the quote would come to $18,000.",
        "unit_price",
        [12.0],
    ),
    # near misses: two neighbouring rents, the deposit's own sentence naming a rent, a rent-free period
    # after the deposit keyword, a price (not a total) after "for N units", hours before the pay
    (
        "near miss: two neighbour rents",
        "leasing",
        "Rent $5,000 a month. Deposit $10,000. Rent later $6,000 a month.",
        "deposit",
        [],
    ),
    ("near miss: a range rent", "leasing", "Deposit $12,000. Rent $5,000-$6,000 a month.", "deposit", []),
    (
        "near miss: a deposit after",
        "leasing",
        "3 months rent-free and a deposit of 2 months.",
        "deposit",
        [2.0],
    ),
    ("near miss: a price", "procurement", "For 2,000 units the price is $4.10.", "unit_price", [4.1]),
    ("near miss: hourly after hours", "staffing", "Usually 40 hours at $55.", "hourly_rate", [55.0]),
]


@pytest.mark.parametrize(
    ("form", "domain", "text", "term", "values"), PART3, ids=[f"{c[0]}: {c[2][:40]}" for c in PART3]
)
def test_remaining_recurring_forms_of_sets_v12_to_v14(
    form: str, domain: str, text: str, term: str, values: list[float]
) -> None:
    found = highs(domain, text, term)
    assert same_values(found, values), (form, text, found)


def test_a_deposit_range_over_a_rent_is_a_range_of_months() -> None:
    found = [
        (t.low, t.high)
        for t in term_amounts(
            load_config("leasing"), "Deposit between $12,000 and $18,000 on a $6,000 monthly rent."
        )
        if t.term == "deposit"
    ]
    assert found == [(2.0, 3.0)], found


@pytest.mark.parametrize(
    ("dress", "domain", "text", "term", "values"),
    [
        ("fullwidth digits", "leasing", "Deposit: $１４,０００. Rent: $７,０００ a month.", "deposit", [2.0]),
        ("upper case", "leasing", "DEPOSIT: $14,000. RENT: $7,000 A MONTH.", "deposit", [2.0]),
        (
            "zero-width in the keyword",
            "leasing",
            "Rent-\u200bfree: three months. Deposit: 2 months.",
            "deposit",
            [2.0],
        ),
        ("upper case", "staffing", "TAGESSATZ 720 € BEI 8 STUNDEN.", "hourly_rate", [90.0]),
    ],
)
def test_dressed_remaining_forms_read_as_the_plain_text(
    dress: str, domain: str, text: str, term: str, values: list[float]
) -> None:
    found = highs(domain, text, term)
    assert same_values(found, values) or found == [], (dress, text, found)  # never a wrong figure


@pytest.mark.parametrize(
    ("domain", "text"),
    [
        ("leasing", "Deposit $10,000. Rent"),
        ("leasing", "Rent-free"),
        ("staffing", "Tagessatz 700 € bei"),
        ("procurement", "The lot of 250 chairs comes to"),
    ],
)
def test_truncated_remaining_forms_read_without_error(domain: str, text: str) -> None:
    assert isinstance(find_amounts(text), list)
    assert isinstance(term_amounts(load_config(domain), text), list)


@pytest.mark.parametrize(
    ("domain", "unit"),
    [
        ("leasing", "Deposit $10,000. Monthly rent $5,000. "),
        ("leasing", "rent-free rent-free of 2 "),
        ("staffing", "Tagessatz 680 € bei 8 h "),
        ("procurement", "for 250 chairs comes to $31,250 "),
    ],
    ids=["deposit neighbours", "rent-free", "day pay", "count totals"],
)
def test_crafted_repetitions_of_the_remaining_forms_are_read_in_linear_time(domain: str, unit: str) -> None:
    assert_reads_repetition_linearly(domain, unit)
