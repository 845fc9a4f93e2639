"""The amount reader on the error forms of set v12 that recur in another writer's errors (issue 14,
thirteenth round): one table of wordings written for these tests (none taken from a labelled set), one
row per wording, grouped by form and named by the spent sets whose errors show the form, with near
misses that must stay as they were; adversarial variants (lookalike, fullwidth and zero-width
characters); truncated forms at the end of a text; bounded work on crafted input; floors on the spent
sets (development figures: the change was written from their errors)."""

from __future__ import annotations

from pathlib import Path

import pytest

from parley.governance.amounts import find_amounts, term_amounts
from parley.governance.config import load_config

from .amount_checks import assert_reads_repetition_linearly, highs, same_values

# (form and the sets whose errors show it, domain, text, term, the term's values in text order)
FORMS: list[tuple[str, str, str, str, list[float]]] = [
    # a European decimal after a lone zero: three decimals, no thousands group (v11, v12)
    ("zero decimals v11 v12", "procurement", "Stückpreis 0,045 EUR.", "unit_price", [0.045]),
    ("zero decimals v11 v12", "procurement", "Price: 0,125 € per piece.", "unit_price", [0.125]),
    # near misses: a thousands group after a non-zero head, two decimals after a comma
    ("zero decimals v11 v12", "procurement", "Menge 2,500 Stück.", "order_volume", [2500.0]),
    ("zero decimals v11 v12", "procurement", "Preis 0,45 € pro Stück.", "unit_price", [0.45]),
    # a price for a hundred or a thousand units, the count after the German "pro" or "je", or
    # heading the line with its unit abbreviated (v11, v12)
    ("per count v11 v12", "procurement", "Angebot: 2.900,00 EUR je 1.000 Stück.", "unit_price", [2.9]),
    ("per count v11 v12", "procurement", "780 EUR pro 100 Stück", "unit_price", [7.8]),
    ("per count v11 v12", "procurement", "Je 500 Stk.: 1.100 €", "unit_price", [2.2]),
    ("per count v11 v12", "procurement", "Per 100 pcs.: $640", "unit_price", [6.4]),
    # near misses: "pro Stück" is one unit; the count itself is no order
    ("per count v11 v12", "procurement", "12,40 € pro Stück", "unit_price", [12.4]),
    ("per count v11 v12", "procurement", "Je 500 Stk.: 1.100 €", "order_volume", []),
    # a sum that restates the months of rent its sentence already gives (v11, v12)
    (
        "restated sum v11 v12",
        "leasing",
        "Two months, that is $13,000 on a $6,500 rent.",
        "deposit",
        [2.0, 2.0],
    ),
    (
        "restated sum v11 v12",
        "leasing",
        "Security: 2 months on the 8,000 rent, so 16,000.",
        "deposit",
        [2, 2],
    ),
    ("restated sum v11 v12", "leasing", "Deposit 2 mths. (= EUR 11k at 5.5k/mo)", "deposit", [2.0, 2.0]),
    # near misses: a sum that restates nothing, another cost beside the rent
    ("restated sum v11 v12", "leasing", "We hold 2 months. Rent $6,500, fit-out $20,000.", "deposit", [2.0]),
    ("restated sum v11 v12", "leasing", "Two months on a 6,500 rent, plus 500 for keys.", "deposit", [2.0]),
    # a duration in words of another language (v6, v12)
    ("romance numbers v6 v12", "leasing", "Depósito: tres meses.", "deposit", [3.0]),
    ("romance numbers v6 v12", "leasing", "Durata: sei anni.", "lease_term", [72.0]),
    ("romance numbers v6 v12", "leasing", "Bail de trois ans.", "lease_term", [36.0]),
    # near misses: a number word with no duration after it, an English word left out
    ("romance numbers v6 v12", "leasing", "Dos and don'ts: rent 4,000 monthly.", "monthly_rent", [4000.0]),
    ("romance numbers v6 v12", "leasing", "Once a year we review the 3-year term.", "lease_term", [36.0]),
    # a rate said in words of another language (v6, v12)
    ("foreign rates v6 v12", "leasing", "Canone annuale: 60.000 EUR", "monthly_rent", [5000.0]),
    ("foreign rates v6 v12", "leasing", "Loyer mensuel : 4 200 €", "monthly_rent", [4200.0]),
    ("foreign rates v6 v12", "staffing", "Pido 6.000 € al mes.", "annual_salary", [72000.0]),
    ("foreign rates v6 v12", "staffing", "Tarifa: 85 EUR por hora.", "hourly_rate", [85.0]),
    # thousands grouped by an apostrophe (v12 only: a number format, no phrase)
    ("apostrophe groups v12", "staffing", "Base salary CHF 132'500 per year.", "annual_salary", [132500.0]),
    (
        "apostrophe groups v12",
        "leasing",
        "Annual rent CHF 1'080'000 for the campus.",
        "monthly_rent",
        [90000.0],
    ),
    # near miss: an apostrophe that groups nothing
    ("apostrophe groups v12", "leasing", "Rent 4,000 monthly since the '90s.", "monthly_rent", [4000.0]),
]


@pytest.mark.parametrize(
    ("form", "domain", "text", "term", "values"), FORMS, ids=[f"{c[0]}: {c[2][:40]}" for c in FORMS]
)
def test_forms_of_set_v12(form: str, domain: str, text: str, term: str, values: list[float]) -> None:
    found = highs(domain, text, term)
    assert same_values(found, values), (form, text, found)


# The same forms dressed as an adversary would: each variant must read as the plain text reads.
ZW, SOFT = "\u200b", "\u00ad"
ADVERSARIAL: list[tuple[str, str, str, str, list[float]]] = [
    ("zero-width decimal", "procurement", f"Unit cost 0,{ZW}085 €.", "unit_price", [0.085]),
    ("fullwidth per count", "procurement", "７８０ EUR pro １００ Stück", "unit_price", [7.8]),
    ("soft hyphen je", "procurement", f"2.900,00 EUR j{SOFT}e 1.000 Stück", "unit_price", [2.9]),
    (
        "Cyrillic o in months",
        "leasing",
        "Two m\u043enths, that is $13,000 on a $6,500 rent.",
        "deposit",
        [2.0, 2.0],
    ),
    ("zero-width tres", "leasing", f"Depósito: tr{ZW}es meses.", "deposit", [3.0]),
    ("right quote groups", "staffing", "Base salary CHF 132\u2019500 per year.", "annual_salary", [132500.0]),
]


@pytest.mark.parametrize(
    ("dress", "domain", "text", "term", "values"), ADVERSARIAL, ids=[c[0] for c in ADVERSARIAL]
)
def test_adversarial_variants_read_as_the_plain_text(
    dress: str, domain: str, text: str, term: str, values: list[float]
) -> None:
    found = highs(domain, text, term)
    assert same_values(found, values), (dress, text, found)


# -- a form cut off at the end of the text reads what is there, without error -------------------------
@pytest.mark.parametrize(
    ("domain", "text"),
    [
        ("procurement", "0,"),
        ("procurement", "0,08"),
        ("procurement", "Per 1000 Stk."),
        ("procurement", "Per 1000 Stk.:"),
        ("procurement", "3.450,00 EUR pro 1.000"),
        ("procurement", "je"),
        ("leasing", "We hold 3 months, i.e. $27,000 at"),
        ("leasing", "Deposit 3 mo. ("),
        ("leasing", "Fianza: dos"),
        ("leasing", "Loyer annuel :"),
        ("staffing", "CHF 145'"),
        ("staffing", "CHF 145'00"),
    ],
)
def test_truncated_forms_read_without_error(domain: str, text: str) -> None:
    assert isinstance(find_amounts(text), list)
    assert isinstance(term_amounts(load_config(domain), text), list)


# -- bounded work on crafted input ---------------------------------------------------------------------------
CRAFTED = [
    ("procurement", "0,085 € je Stück, "),
    ("procurement", "Per 1000 Stk.: 1.450,00 € "),
    ("procurement", "pro 1.000 Stück "),
    ("leasing", "3 months, i.e. $27,000 at your rent of $9,000, "),
    ("leasing", "Deposit 3 mo. ("),
    ("leasing", "dos meses "),
    ("leasing", "loyer annuel 120 000 € "),
    ("staffing", "1'2'3'4'5'6'"),
    ("staffing", "145'000'000'"),
]


@pytest.mark.parametrize(("domain", "unit"), CRAFTED, ids=[c[1][:16] for c in CRAFTED])
def test_crafted_repetitions_of_the_v12_forms_are_read_in_linear_time(domain: str, unit: str) -> None:
    """8x the text (4 KB -> 32 KB of one form repeated) costs well under the 64x of a quadratic reader
    (CPU time: the machine is shared)."""
    assert_reads_repetition_linearly(domain, unit)


# -- the spent sets (development figures: the change was written from their errors) -------------------------
ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.parametrize(
    ("path", "floor"),
    [
        # set v12: measured blind once at 270/311 (16 spurious, 270/327 counting them); 284/321 after its
        # forms that recur in another set's errors were fixed, a development figure; 289/317 after the
        # grammar of the recurring classes below (`tier_pairs`, `count_totals`)
        ("tests/data/gaia/heldout12/amounts.yaml", 289 / 317),
        # the set whose errors show the same forms, raised where this change raised it (321/348 after
        # `tier_pairs`)
        ("tests/data/gaia/heldout11/amounts.yaml", 321 / 348),
    ],
)
def test_amount_accuracy_on_the_spent_sets_of_set_v12(path: str, floor: float) -> None:
    from .measure_detectors import amount_accuracy

    score = amount_accuracy(ROOT / path)
    assert score.accuracy >= floor - 1e-9, score.errors


# -- the grammar of error classes that recur across writers (v10, v11, v12) ------------------------------
# Wordings written for these tests (none taken from a labelled set): a price beside the quantity of its own
# tier takes no unit or multiplier from the tier before it (`tier_pairs`: v11, v12), and a total joined to
# its count by the grammar of its clause is divided by it (`count_totals`: v10, v12).
GRAMMAR: list[tuple[str, str, str, str, list[float]]] = [
    (
        "tier pairs v11 v12",
        "procurement",
        "Unit price 11.40 for 2k pcs, or 10.95 for 4k.",
        "unit_price",
        [11.4, 10.95],
    ),
    (
        "tier pairs v11 v12",
        "procurement",
        "Unit price 11.40 for 2k pcs, or 10.95 for 4k.",
        "order_volume",
        [2000, 4000],
    ),
    (
        "tier pairs v11 v12",
        "procurement",
        "Pricing: 12.60 (1k), 11.85 (2k), 10.90 (5k).",
        "unit_price",
        [12.6, 11.85, 10.9],
    ),
    (
        "tier pairs v11 v12",
        "procurement",
        "Pricing: 12.60 (1k), 11.85 (2k), 10.90 (5k).",
        "order_volume",
        [1000, 2000, 5000],
    ),
    (
        "tier pairs v11 v12",
        "procurement",
        "We could offer 9.75 at 3k units or 9.40 at 6k.",
        "unit_price",
        [9.75, 9.4],
    ),
    (
        "tier pairs v11 v12",
        "procurement",
        "We could offer 9.75 at 3k units or 9.40 at 6k.",
        "order_volume",
        [3000, 6000],
    ),
    # near misses: a decimal with no tier of its own still takes the quantity's unit and multiplier
    (
        "tier pairs v11 v12",
        "procurement",
        "Order of 1.5k units, then 2.25 next quarter.",
        "order_volume",
        [1500, 2250],
    ),
    (
        "tier pairs v11 v12",
        "procurement",
        "We take 2k units, or 3.5 if the price drops.",
        "order_volume",
        [2000, 3500],
    ),
    ("tier pairs v11 v12", "procurement", "4k units at 11.20, then 10.80 at 8k.", "unit_price", [11.2, 10.8]),
    # a total for a count: opened by "for", named by its order before a verb of totalling, a product,
    # and a correction of the total (v10, v12)
    ("count totals v10 v12", "procurement", "For 500 units we would charge $5,250.", "unit_price", [10.5]),
    (
        "count totals v10 v12",
        "procurement",
        "For 500 units we would charge $5,250; for 1,000 units, $10,200.",
        "unit_price",
        [10.5, 10.2],
    ),
    ("count totals v10 v12", "procurement", "The 2,000-unit order comes to $23,000.", "unit_price", [11.5]),
    (
        "count totals v10 v12",
        "procurement",
        "The 1,000-unit batch comes to $1.1 million. Sorry, I mean $11,000.",
        "unit_price",
        [11.0],
    ),
    ("count totals v10 v12", "procurement", "1,200 units × $9.50 = $11,400", "unit_price", [9.5, 9.5]),
    # near misses: a price as written for its tier, another cost for the count, a total and a freight sum
    (
        "count totals v10 v12",
        "procurement",
        "For 500 units we would charge $10.50 each.",
        "unit_price",
        [10.5],
    ),
    ("count totals v10 v12", "procurement", "For 800 units we need a deposit of $2,000.", "unit_price", []),
    ("count totals v10 v12", "procurement", "For 800 units, shipping is $2,000.", "unit_price", []),
    (
        "count totals v10 v12",
        "procurement",
        "The 2,000-unit order comes to $23,000 plus $400 freight.",
        "unit_price",
        [11.5],
    ),
]


@pytest.mark.parametrize(
    ("form", "domain", "text", "term", "values"), GRAMMAR, ids=[f"{c[0]}: {c[2][:40]}" for c in GRAMMAR]
)
def test_grammar_of_recurring_error_classes(
    form: str, domain: str, text: str, term: str, values: list[float]
) -> None:
    found = highs(domain, text, term)
    assert same_values(found, values), (form, text, found)


GRAMMAR_ADVERSARIAL: list[tuple[str, str, str, str, list[float]]] = [
    ("Cyrillic o in For", "procurement", "F\u043er 500 units we would charge $5,250.", "unit_price", [10.5]),
    ("zero-width charge", "procurement", f"For 500 units we would ch{ZW}arge $5,250.", "unit_price", [10.5]),
    (
        "soft hyphen sorry",
        "procurement",
        f"The 1,000-unit batch comes to $1.1 million. So{SOFT}rry, $11,000.",
        "unit_price",
        [11.0],
    ),
    (
        "fullwidth tier",
        "procurement",
        "Unit price １１.40 for 2k pcs, or １０.95 for 4k.",
        "unit_price",
        [11.4, 10.95],
    ),
]


@pytest.mark.parametrize(
    ("dress", "domain", "text", "term", "values"),
    GRAMMAR_ADVERSARIAL,
    ids=[c[0] for c in GRAMMAR_ADVERSARIAL],
)
def test_grammar_adversarial_variants_read_as_the_plain_text(
    dress: str, domain: str, text: str, term: str, values: list[float]
) -> None:
    found = highs(domain, text, term)
    assert same_values(found, values), (dress, text, found)


@pytest.mark.parametrize(
    "text",
    [
        "For",
        "For 500 units we would charge",
        "3,600 units ×",
        "3,600 units × $2.35 =",
        "2.15 (",
        "$1.1M. Sorry,",
    ],
)
def test_truncated_grammar_forms_read_without_error(text: str) -> None:
    assert isinstance(term_amounts(load_config("procurement"), text), list)


@pytest.mark.parametrize(
    "unit",
    [
        "For 500 units, $5,250; ",
        "12 units × $9.50 = $114 ",
        "2.15 (5k), ",
        "$1.1M. Sorry, sorry, I mean $11,000 ",
    ],
)
def test_crafted_repetitions_of_the_grammar_forms_are_read_in_linear_time(unit: str) -> None:
    """8x the text (4 KB -> 32 KB of one form repeated) costs well under the 64x of a quadratic reader."""
    assert_reads_repetition_linearly("procurement", unit)


@pytest.mark.parametrize(
    ("path", "floor"),
    [
        # a development figure after `count_totals` (314/331 with it off); heldout11's and heldout12's
        # floors, raised by this section, are in the test above
        ("tests/data/gaia/heldout10/amounts.yaml", 316 / 329),
        # the sets the grammar was not written from stay where they were
        ("tests/data/gaia/heldout2/amounts.yaml", 200 / 201),
        ("tests/data/gaia/heldout9/amounts.yaml", 326 / 328),
    ],
)
def test_amount_accuracy_after_the_grammar_of_recurring_classes(path: str, floor: float) -> None:
    from .measure_detectors import amount_accuracy

    score = amount_accuracy(ROOT / path)
    assert score.accuracy >= floor - 1e-9, score.errors
