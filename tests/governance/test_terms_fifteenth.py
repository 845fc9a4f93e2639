"""Terms the reader missed in its fifteenth round, read as open classes (issue 17).

Missed terms were the weak side of blind set v13 (heldout_terms13: recall 0.840). Over the fourteen spent
term sets the recurring misses were grouped by form; each form below was seen in at least two writers'
sets (named beside it: ht = heldout_terms, ht4 = heldout_terms4, ...) and is read as a class of wordings,
not one set's words. The sentences are written for these tests (none is copied from a labelled set), and
each form has near misses of the same shape that must not read the term.

- a span of time in number words above twelve, or weeks in Spanish, Portuguese, French or Italian: "lead
  time is fourteen calendar days", "entrega 5 semanas", "délai 6 semaines" (ht4, ht5, ht13);
- the days to pay tied to "pay" or written as a word after "payment": "payment sixty days", "we pay at
  60 days", "we need thirty days to pay" (ht9, ht12, ht13);
- a deposit and the balance before shipment, and prepayment in other languages: "30% deposit, 70% before
  shipment", "pagamento antecipado", "Vorauskasse" (ht11, ht12, ht13);
- the quantity a price is asked for: "your best price for 2,000 units", a question or not (ht, ht7, ht13);
- where the role is worked, as remote days: "the role is onsite", "based on site", "onsite from day one"
  (none), "full remote", "100% remoto" (all five days) (ht4, ht5, ht11, ht13).
"""

from __future__ import annotations

from datetime import date

import pytest

from parley.governance.config import DomainConfig
from parley.governance.terms import TermReader, TermReading

from .linear_time import assert_reads_in_linear_time

DAY = date(2026, 11, 28)


def _read(config: DomainConfig, text: str) -> TermReading:
    return TermReader(config).read(text, today=DAY)


def _values(reading: TermReading) -> dict[str, object]:
    return {t.term: t.value for t in reading.terms}


# (source sets, domain, message, term, value)
FORMS: list[tuple[str, str, str, str, object]] = [
    # a span of time in number words above twelve; weeks in Romance languages
    ("ht4", "procurement", "Our lead time is fifteen calendar days from the PO.", "lead_time", 15 / 7),
    ("ht4", "procurement", "Lead time runs twenty-one days from order.", "lead_time", 3.0),
    (
        "ht13",
        "procurement",
        "Confirmamos: lead time 7 semanas, preço USD 12.40 por unidade.",
        "lead_time",
        7.0,
    ),
    ("ht5", "procurement", "Precio 3,10 USD por pieza, entrega 6 semanas.", "lead_time", 6.0),
    ("ht5", "procurement", "Prix 4,20 USD la pièce, livraison 8 semaines.", "lead_time", 8.0),
    # the days to pay
    (
        "ht9",
        "procurement",
        "Price eight twenty, payment ninety days, warranty a year.",
        "payment_terms",
        "net90",
    ),
    (
        "ht12",
        "procurement",
        "We pay at 90 days as long as the invoices are correct.",
        "payment_terms",
        "net90",
    ),
    (
        "ht13",
        "procurement",
        "Eleven dollars a unit, and we need sixty days to pay.",
        "payment_terms",
        "net60",
    ),
    # a deposit and the balance before shipment; prepayment in other languages
    (
        "ht11",
        "procurement",
        "Price 2,40 USD, payment 40% advance, 60% before shipment.",
        "payment_terms",
        "prepayment",
    ),
    (
        "ht12",
        "procurement",
        "price 1,90 usd, payment 20% deposit and 80% prior to delivery.",
        "payment_terms",
        "prepayment",
    ),
    (
        "ht13",
        "procurement",
        "can do 0.31 usd, TT 50% deposit 50% before loading. ok?",
        "payment_terms",
        "prepayment",
    ),
    (
        "ht13",
        "procurement",
        "Preço USD 14.20 por unidade, pagamento antecipado.",
        "payment_terms",
        "prepayment",
    ),
    ("ht13", "procurement", "Precio 9,80 USD por pieza, pago anticipado.", "payment_terms", "prepayment"),
    (
        "ht13",
        "procurement",
        "Preis 6,10 USD pro Stück, Lieferung gegen Vorauskasse.",
        "payment_terms",
        "prepayment",
    ),
    # the quantity a price is asked for
    ("ht", "procurement", "Could you send your best price for 4,000 units?", "order_volume", 4000.0),
    (
        "ht7",
        "procurement",
        "We would like your best quote for 12,000 pieces by Friday.",
        "order_volume",
        12000.0,
    ),
    ("ht13", "procurement", "Please share your pricing for 7,500 units.", "order_volume", 7500.0),
    # where the role is worked, as remote days
    (
        "ht11",
        "staffing",
        "We can do $64 per hour; the role is onsite at our Dallas plant.",
        "remote_days",
        0.0,
    ),
    (
        "ht5",
        "staffing",
        "The base goes to 109k and the position remains fully onsite in Denver.",
        "remote_days",
        0.0,
    ),
    ("ht4", "staffing", "Monthly salary USD 6,800; the job is based on site in Accra.", "remote_days", 0.0),
    ("ht13", "staffing", "I'd want 8k for the move if I'm expected onsite from day one.", "remote_days", 0.0),
    ("ht5", "staffing", "Full remote works for us, and 121k is our number.", "remote_days", 5.0),
    ("ht13", "staffing", "Acepto 95k siempre que el puesto sea 100% remoto.", "remote_days", 5.0),
    ("ht11", "staffing", "Acepto 95k siempre que el puesto sea 100% remoto.", "location", "remote"),
    ("ht13", "staffing", "I need 98k, siempre que sea trabajo remoto 100%.", "remote_days", 5.0),
]


@pytest.mark.parametrize(
    ("source", "domain", "text", "term", "value"), FORMS, ids=[f"{f[0]}-{f[3]}-{f[2][:30]}" for f in FORMS]
)
def test_each_form_reads_its_term(
    source: str, domain: str, text: str, term: str, value: object, request: pytest.FixtureRequest
) -> None:
    config: DomainConfig = request.getfixturevalue(domain)
    read = _values(_read(config, text))
    assert term in read, (source, read)
    got = read[term]
    if isinstance(value, float):
        assert isinstance(got, float) and abs(got - value) <= 0.05 * max(1.0, value), (source, read)
    else:
        assert got == value, (source, read)


# (domain, message, term, a value it must not read (None: the term is not read at all))
NEAR_MISSES: list[tuple[str, str, str, object]] = [
    # a count of something else, not weeks
    ("procurement", "Price 3,10 USD por pieza, 6 piezas de muestra.", "lead_time", None),
    # days to pay restated as a rate or a fact about the past, not the term
    (
        "procurement",
        "Last year we had to pay at 30 days and it hurt our cash flow badly.",
        "payment_terms",
        "prepayment",
    ),
    # a deposit with the balance after delivery is not prepayment
    (
        "procurement",
        "Price 2,40 USD, payment 30% deposit, 70% after delivery.",
        "payment_terms",
        "prepayment",
    ),
    ("procurement", "Price 2,40 USD, payment 30% advance, balance net 60.", "payment_terms", "prepayment"),
    # a quantity a question asks about stays asked about
    ("procurement", "Is 2,000 units really your minimum for that price?", "order_volume", None),
    # the principal's figure quoted back stays theirs
    ("procurement", "Your price of $4.10 is above what the market pays.", "unit_price", None),
    # a stage of onsite work, an onsite interview: no remote-days term
    (
        "staffing",
        "We allow 3 days from home after probation (first 3 months fully onsite).",
        "remote_days",
        0.0,
    ),
    ("staffing", "We'd like to schedule a full onsite interview next week.", "remote_days", None),
    ("staffing", "Full remote is not something we can offer; 2 days from home at most.", "remote_days", 5.0),
]


@pytest.mark.parametrize(
    ("domain", "text", "term", "value"), NEAR_MISSES, ids=[n[1][:40] for n in NEAR_MISSES]
)
def test_near_misses_do_not_read_the_term(
    domain: str, text: str, term: str, value: object, request: pytest.FixtureRequest
) -> None:
    config: DomainConfig = request.getfixturevalue(domain)
    read = _values(_read(config, text))
    if value is None:
        assert term not in read, read
    else:
        assert read.get(term) != value, read


# Obfuscated variants (a Cyrillic letter, a soft hyphen, full-width digits) read as the plain text does.
ADVERSARIAL: list[tuple[str, str, str, object]] = [
    ("staffing", "The r\u043ele is \u043ensite at our Dallas plant, $64 per hour.", "remote_days", 0.0),
    ("staffing", "Full re\u00admote works for us, and 121k is our number.", "remote_days", 5.0),
    (
        "procurement",
        "Price 2,40 USD, payment 40% adv\u0430nce, 60% before shipment.",
        "payment_terms",
        "prepayment",
    ),
    ("procurement", "Precio 3,10 USD por pieza, entrega \uff16 semanas.", "lead_time", 6.0),
]


@pytest.mark.parametrize(
    ("domain", "text", "term", "value"), ADVERSARIAL, ids=[a[1][:40] for a in ADVERSARIAL]
)
def test_obfuscated_forms_read_as_plain(
    domain: str, text: str, term: str, value: object, request: pytest.FixtureRequest
) -> None:
    config: DomainConfig = request.getfixturevalue(domain)
    read = _values(_read(config, text))
    assert read.get(term) == value, read


@pytest.mark.parametrize(
    ("domain", "unit"),
    [
        ("procurement", "lead time fourteen calendar days 9 semanas entrega 5 semanas "),
        ("procurement", "payment 30% deposit 30% deposit 30% deposit 70% before "),
        ("procurement", "we pay at 60 days we need thirty days to pay payment sixty "),
        ("procurement", "your best price for your best price for 2,000 units? "),
        ("staffing", "the role is onsite based on site 100% remoto remoto 100% full remote "),
    ],
)
def test_the_new_forms_read_in_linear_time(domain: str, unit: str, request: pytest.FixtureRequest) -> None:
    config: DomainConfig = request.getfixturevalue(domain)
    assert_reads_in_linear_time(TermReader(config), unit, DAY)


# --- Part 2 of the fifteenth round: office days, an imperative handing over the deal, days to pay
# counted from the invoice date. Sources: office days as a compound noun (ht9 "min 3 office days", ht10
# "three office days a week"); "<imperative> and the order is yours" (ht13; "if ..., the order is
# yours" in ht12 is read by the parse's "if"); "due forty-five (45) days from the date of invoice" (ht12;
# "days from invoice" was read already, ht5/ht7). Sentences written for these tests.

# (source sets, domain, message, term, value)
FORMS_PART2: list[tuple[str, str, str, str, object]] = [
    ("ht9, ht10", "staffing", "We could go to 131 with 3 office days a week.", "remote_days", 2.0),
    ("ht9, ht10", "staffing", "The team works four onsite days a week.", "remote_days", 1.0),
    ("ht9, ht10", "staffing", "Fine by us: two office days, salary 118k.", "remote_days", 3.0),
    (
        "ht12",
        "procurement",
        "Invoices are payable 45 days from the date of invoice.",
        "payment_terms",
        "net45",
    ),
    (
        "ht12",
        "procurement",
        "Payment shall be due sixty (60) days from the date of the invoice.",
        "payment_terms",
        "net60",
    ),
]


@pytest.mark.parametrize(
    ("source", "domain", "text", "term", "value"), FORMS_PART2, ids=[f[2][:40] for f in FORMS_PART2]
)
def test_part2_forms_read_the_term(
    source: str, domain: str, text: str, term: str, value: object, request: pytest.FixtureRequest
) -> None:
    config: DomainConfig = request.getfixturevalue(domain)
    read = _values(_read(config, text))
    assert read.get(term) == value, (source, read)


# (source sets, domain, message, term, value): the imperative is the condition of the handover
HANDOVERS: list[tuple[str, str, str, str, object]] = [
    ("ht13", "procurement", "Beat $1.20 a unit and the whole 12k order is yours.", "unit_price", 1.2),
    ("ht13", "procurement", "Give us net 60 and the contract is yours.", "payment_terms", "net60"),
    ("ht13", "leasing", "Match $9,800 a month and it's yours.", "monthly_rent", 9800.0),
]


@pytest.mark.parametrize(
    ("source", "domain", "text", "term", "value"), HANDOVERS, ids=[h[2][:40] for h in HANDOVERS]
)
def test_imperative_before_a_handover_is_a_condition(
    source: str, domain: str, text: str, term: str, value: object, request: pytest.FixtureRequest
) -> None:
    config: DomainConfig = request.getfixturevalue(domain)
    reading = _read(config, text)
    assert _values(reading).get(term) == value, (source, reading)
    assert any(c.term == term and c.value == value for c in reading.conditions), (source, reading)


NEAR_MISSES_PART2: list[tuple[str, str, str, str]] = [
    # a statement joined to a handover is no imperative: nothing is a condition
    ("procurement", "The price is $1.20 and the order is yours.", "unit_price", "condition"),
    # office counts of something else than days
    ("staffing", "We have 3 office locations and the salary is 120k.", "remote_days", "term"),
    ("staffing", "Our 4 office managers report to the COO.", "remote_days", "term"),
]


@pytest.mark.parametrize(
    ("domain", "text", "term", "what"), NEAR_MISSES_PART2, ids=[n[1][:40] for n in NEAR_MISSES_PART2]
)
def test_part2_near_misses(
    domain: str, text: str, term: str, what: str, request: pytest.FixtureRequest
) -> None:
    config: DomainConfig = request.getfixturevalue(domain)
    reading = _read(config, text)
    if what == "condition":
        assert not any(c.term == term for c in reading.conditions), reading
    else:
        assert term not in _values(reading), reading


ADVERSARIAL_PART2: list[tuple[str, str, str, object]] = [
    ("staffing", "We could go to 131 with 3 \u043effice days a week.", "remote_days", 2.0),
    ("procurement", "Payment due 45 days from the d\u0430te of invoice.", "payment_terms", "net45"),
]


@pytest.mark.parametrize(
    ("domain", "text", "term", "value"), ADVERSARIAL_PART2, ids=[a[1][:40] for a in ADVERSARIAL_PART2]
)
def test_part2_obfuscated_forms_read_as_plain(
    domain: str, text: str, term: str, value: object, request: pytest.FixtureRequest
) -> None:
    config: DomainConfig = request.getfixturevalue(domain)
    assert _values(_read(config, text)).get(term) == value


@pytest.mark.parametrize(
    ("domain", "unit"),
    [
        ("staffing", "3 office days 4 onsite days two in-office days office "),
        ("procurement", "match $1.20 and the order match $1.20 and the order is "),
        ("procurement", "payment due 45 days from the date of payment due (45) "),
    ],
)
def test_part2_forms_read_in_linear_time(domain: str, unit: str, request: pytest.FixtureRequest) -> None:
    config: DomainConfig = request.getfixturevalue(domain)
    assert_reads_in_linear_time(TermReader(config), unit, DAY)


# --- Part 3 of the fifteenth round: office days by weekday, rent waived or abated, a minimum run.
# Sources: a span or list of weekdays in the office or at home counts remote days ("in the office Tuesday
# to Thursday" ht8, "Tue-Thu in the office, Mon/Fri from home" ht12, "fully onsite, Mon-Fri" ht5); one
# weekday from home as a habit counts one ("remote Fridays" ht6, "keep Fridays as a work-from-home day"
# ht13); months of rent waived or abated are free months ("waive the first month" ht10, "waive the first
# three months' rent" ht11, "Base Rent abated for the first three (3) months" ht12); "minimum run" names
# the order volume (ht11). Sentences written for these tests.

# (source sets, domain, message, term, value)
FORMS_PART3: list[tuple[str, str, str, str, object]] = [
    ("ht8", "staffing", "We need her in the office Monday to Wednesday; base 121k.", "remote_days", 2.0),
    ("ht8, ht12", "staffing", "Salary 118k, Tues-Thurs at our Denver office.", "remote_days", 2.0),
    ("ht12", "staffing", "Hybrid: Mon/Wed/Fri in the office, the rest from home.", "remote_days", 2.0),
    ("ht12", "staffing", "He can work Mon & Fri from home; salary 104k.", "remote_days", 2.0),
    ("ht5", "staffing", "Strictly onsite, Monday through Friday, salary 99k.", "remote_days", 0.0),
    ("ht6, ht13", "staffing", "Base 112k and remote Fridays.", "remote_days", 1.0),
    ("ht6, ht13", "staffing", "She'd keep Mondays as a work-from-home day at 108k.", "remote_days", 1.0),
    ("ht6, ht13", "staffing", "Every Friday from home, base 115k.", "remote_days", 1.0),
    ("ht10", "leasing", "Rent 6,200 and we'll waive the first month.", "free_months", 1.0),
    (
        "ht11",
        "leasing",
        "The landlord waives the first two months' rent on a five-year lease.",
        "free_months",
        2.0,
    ),
    (
        "ht12, ht13",
        "leasing",
        "Base Rent abated for the first four (4) months of the Term.",
        "free_months",
        4.0,
    ),
    ("ht11", "procurement", "Price $0.21 per label, minimum run 40,000.", "order_volume", 40000.0),
]


@pytest.mark.parametrize(
    ("source", "domain", "text", "term", "value"), FORMS_PART3, ids=[f[2][:40] for f in FORMS_PART3]
)
def test_part3_forms_read_the_term(
    source: str, domain: str, text: str, term: str, value: object, request: pytest.FixtureRequest
) -> None:
    config: DomainConfig = request.getfixturevalue(domain)
    read = _values(_read(config, text))
    assert read.get(term) == value, (source, read)


def test_part3_weekdays_in_a_condition_are_its_value(staffing: DomainConfig) -> None:
    """ht8: "Unless he can be in the office Tuesday to Thursday, ..." makes 2 remote days a condition."""
    reading = _read(staffing, "Unless she can be in the office Monday to Wednesday, the offer lapses.")
    assert _values(reading).get("remote_days") == 2.0, reading
    assert any(c.term == "remote_days" and c.value == 2.0 for c in reading.conditions), reading


# (domain, message, term): the term is not read
NEAR_MISSES_PART3: list[tuple[str, str, str]] = [
    # one weekday in the office says nothing of the other days (ht6: "Fridays are in the office")
    ("staffing", "Fridays are in the office for the team lunch.", "remote_days"),
    # one weekday at home once is no habit
    ("staffing", "I'm working from home on Friday, let's talk then.", "remote_days"),
    # weekdays with no place of work
    ("staffing", "We can talk Tuesday to Thursday, any time after 10.", "remote_days"),
    # a span written backwards is no span of the working week
    ("staffing", "Thursday to Monday in the office is our trade-show rota.", "remote_days"),
    # a place and a weekday of a meeting, not of work
    ("staffing", "Meet Tuesday at the office? Salary 120k.", "remote_days"),
    # the deposit or a fee is waived, not rent
    ("leasing", "We can waive the deposit if your client prepays six months of rent.", "free_months"),
    ("leasing", "Rent is abated until the first of the month; term 36 months.", "free_months"),
    # a run of shifts, not of parts
    ("procurement", "We run 3 shifts and the price is $2.10.", "order_volume"),
]


@pytest.mark.parametrize(
    ("domain", "text", "term"), NEAR_MISSES_PART3, ids=[n[1][:40] for n in NEAR_MISSES_PART3]
)
def test_part3_near_misses(domain: str, text: str, term: str, request: pytest.FixtureRequest) -> None:
    config: DomainConfig = request.getfixturevalue(domain)
    assert term not in _values(_read(config, text))


def test_part3_negated_weekdays_read_nothing(staffing: DomainConfig) -> None:
    reading = _read(staffing, "She will not be in the office Tuesday to Thursday.")
    assert _values(reading).get("remote_days") != 2.0, reading


ADVERSARIAL_PART3: list[tuple[str, str, str, object]] = [
    # homoglyphs and zero-width characters in the day names and the place
    ("staffing", "We need her in the \u043effice Tu\u200besday to Thursday; base 121k.", "remote_days", 2.0),
    ("staffing", "Base 112k and rem\u043ete Frid\u0430ys.", "remote_days", 1.0),
    ("leasing", "Rent 6,200 and we'll w\u0430ive the first month.", "free_months", 1.0),
]


@pytest.mark.parametrize(
    ("domain", "text", "term", "value"), ADVERSARIAL_PART3, ids=[a[1][:40] for a in ADVERSARIAL_PART3]
)
def test_part3_obfuscated_forms_read_as_plain(
    domain: str, text: str, term: str, value: object, request: pytest.FixtureRequest
) -> None:
    config: DomainConfig = request.getfixturevalue(domain)
    assert _values(_read(config, text)).get(term) == value


@pytest.mark.parametrize(
    ("domain", "unit"),
    [
        ("staffing", "Mon/Tue/Wed/Thu/Fri/Mon-Tue in the office remote Fridays Tuesday to "),
        ("staffing", "in the Austin office, Mon, Tue, Wed and Thu and Fri or Mon "),
        ("leasing", "waive the first month abated for the first (3) months waive the first "),
    ],
)
def test_part3_forms_read_in_linear_time(domain: str, unit: str, request: pytest.FixtureRequest) -> None:
    config: DomainConfig = request.getfixturevalue(domain)
    assert_reads_in_linear_time(TermReader(config), unit, DAY)
