"""Terms the writer says there is none of, read as constructions (issue 17, round 20).

Errors of writer v17's term set (heldout_terms17, spent) were grouped into constructions and counted
over every other spent term set; only those shown by three writers or more were worked on (ht11 =
heldout_terms11, ...). The sentences are written for these tests, none is copied from a labelled set:

- an enumerated term with a "none" option refused or not needed ("we don't need any certification",
  "certification isn't needed for this bracket", "Certification: none"): the option "none", as a
  numeric term reads 0 (ht, ht9, ht10, ht11, ht14, ht15, ht17);
- a term the writer has no need of, after its name ("Relocation isn't needed", "a deposit is not
  required"): none of it (ht11, ht16, ht17), not when only its timing is ("isn't needed until March");
- a term's name glued to "non-" ("non-certified parts"): none of it (ht11, ht16, ht17); a word glued
  between them names something else ("a non-refundable deposit" is a deposit);
- a value stated first, then a conditional alternative ("$6.20 for plain steel. If you need IATF
  traceability it goes to $6.90", "118k if you can wait, if you need me in January it's 124k"): the
  first value is the term, the alternative stays a condition (ht5, ht6, ht7, ht11, ht14, ht15, ht16,
  ht17); a later value in a sentence of its own that opens otherwise still replaces it.
"""

from __future__ import annotations

from datetime import date

import pytest

from parley.governance.config import DomainConfig
from parley.governance.terms import TermReader, TermReading

from .blind_sets import NEXT_BLIND
from .linear_time import assert_reads_in_linear_time

DAY = date(2026, 11, 29)


def _read(config: DomainConfig, text: str) -> TermReading:
    return TermReader(config).read(text, today=DAY)


def _values(config: DomainConfig, text: str) -> dict[str, object]:
    return {t.term: t.value for t in _read(config, text).terms}


# (domain, message, term, value): the writer has none of the term.
NONE_OF: list[tuple[str, str, str, object]] = [
    (
        "procurement",
        "We don't need any certification on the hinge pins, plain steel will do.",
        "certification",
        "none",
    ),
    (
        "procurement",
        "Certification isn't needed for these spacers, they sit inside the housing.",
        "certification",
        "none",
    ),
    (
        "procurement",
        "Certification is not required for this grade. Quote us $2.15 a piece.",
        "certification",
        "none",
    ),
    (
        "procurement",
        "Our certification: none yet, the first audit is booked for spring.",
        "certification",
        "none",
    ),
    ("procurement", "The $4.10 is for non-certified washers, shipped in 5 weeks.", "certification", "none"),
    (
        "staffing",
        "Base of $112,000 works and 18 PTO days. Relocation isn't needed, I live nearby.",
        "relocation",
        0.0,
    ),
    ("leasing", "We can do $6,200 a month for 3 years; a parking space is not needed.", "parking", 0.0),
]


@pytest.mark.parametrize(("domain", "text", "term", "value"), NONE_OF)
def test_a_term_the_writer_has_none_of_reads_none(
    domain: str, text: str, term: str, value: object, request: pytest.FixtureRequest
) -> None:
    config: DomainConfig = request.getfixturevalue(domain)
    assert _values(config, text).get(term) == value, _read(config, text)


# (domain, message, term): the term is not said to be none.
NOT_NONE: list[tuple[str, str, str]] = [
    ("staffing", "Relocation isn't needed until March, when the lease on my flat ends.", "relocation"),
    ("leasing", "A non-refundable deposit of two months' rent is due at signing.", "deposit"),
    ("procurement", "All lots ship ISO 9001 certified at $3.40 a unit.", "certification"),
    ("procurement", "Certification is needed: AS9100 or we cannot use the parts.", "certification"),
]


@pytest.mark.parametrize(("domain", "text", "term"), NOT_NONE)
def test_a_term_kept_is_not_none(domain: str, text: str, term: str, request: pytest.FixtureRequest) -> None:
    config: DomainConfig = request.getfixturevalue(domain)
    assert _values(config, text).get(term) not in ("none", 0.0), _read(config, text)


def test_iso_certified_keeps_its_option(procurement: DomainConfig) -> None:
    assert (
        _values(procurement, "All lots ship ISO 9001 certified at $3.40 a unit.").get("certification")
        == "iso9001"
    )


# Obfuscated variants read as the plain text (homoglyphs, zero-width characters).
def test_obfuscated_none_reads_as_plain(procurement: DomainConfig, staffing: DomainConfig) -> None:
    assert (
        _values(procurement, "We don't n\u0435ed any c\u0435rtification on the hinge pins.").get(
            "certification"
        )
        == "none"
    )
    assert (
        _values(procurement, "The $4.10 is for non-cert\u200bified washers.").get("certification") == "none"
    )
    assert _values(staffing, "Base of $112,000. Reloc\u200bation isn\u2019t needed.").get("relocation") == 0.0


@pytest.mark.parametrize(
    ("domain", "unit"),
    [
        ("procurement", "certification isn't needed, non-certified non-non-certification is not "),
        ("staffing", "relocation isn't needed until relocation is not required for relocation are "),
        ("procurement", "non- non- non-certified we don't need any certification: none "),
        ("procurement", "$6.20 a unit. If you need it, $6.90 on net 60; unless $6.10 but on "),
    ],
)
def test_the_new_forms_read_in_linear_time(domain: str, unit: str, request: pytest.FixtureRequest) -> None:
    config: DomainConfig = request.getfixturevalue(domain)
    assert_reads_in_linear_time(TermReader(config), unit, DAY)


# (domain, message, term, stated, alternative, as written): the first value stated, the alternative a
# condition.
ALTERNATIVES: list[tuple[str, str, str, float, float, str]] = [
    (
        "procurement",
        "Our price is $6.20 a unit for plain steel. If you need IATF 16949 traceability it goes to $6.90.",
        "unit_price",
        6.2,
        6.9,
        "$6.90",
    ),
    (
        "staffing",
        "I can accept 118k if you can wait until March; if you need me in January it's 124k.",
        "annual_salary",
        118000.0,
        124000.0,
        "124k",
    ),
    (
        "leasing",
        "Rent is $7,400 a month, unless you sign for ten years, in which case $7,100.",
        "monthly_rent",
        7400.0,
        7100.0,
        "$7,100",
    ),
]


@pytest.mark.parametrize(("domain", "text", "term", "stated", "alternative", "shown"), ALTERNATIVES)
def test_a_conditional_alternative_leaves_the_first_value_stated(
    domain: str,
    text: str,
    term: str,
    stated: float,
    alternative: float,
    shown: str,
    request: pytest.FixtureRequest,
) -> None:
    config: DomainConfig = request.getfixturevalue(domain)
    reading = _read(config, text)
    assert {t.term: t.value for t in reading.terms}.get(term) == stated, reading
    assert any(  # attributed, or at least quoted for the principal as written (fail closed)
        (c.term == term and c.value == alternative) or (c.quoted and shown in c.text)
        for c in reading.conditions
    ), reading


def test_a_later_value_in_a_sentence_of_its_own_still_replaces(staffing: DomainConfig) -> None:
    text = "I'm at 118k. Happy to move to 121k if the start slips to April."
    assert _values(staffing, text).get("annual_salary") == 121000.0


def test_obfuscated_alternative_reads_as_plain(procurement: DomainConfig) -> None:
    text = "Our price is $6.20 a unit. \u0406f you need IATF 16949 trace\u200bability it goes to $6.90."
    assert _values(procurement, text).get("unit_price") == 6.2


def test_the_next_blind_sets_are_not_named_here() -> None:
    with open(__file__, encoding="utf-8") as handle:
        source = handle.read()
    for name in NEXT_BLIND:
        assert source.count(name) == 0, name
