"""Conditions that escaped the term reader's net in its sixteenth round, read as open classes (issue 17).

Blind set v14 (heldout_terms14, now spent) had seven labelled conditions that were neither attributed
nor quoted: no conditional construction of the reader's grammar matched them. Each is read here as a
class of wordings (data/term_cues.yaml `conditional_grammar`), with the spent sets where the class also
fires named beside it (ht4 = heldout_terms4, ...); the sentences are written for these tests, none is
copied from a labelled set:

- a term stated as a limit: "X is my red line", "... is non-negotiable", "... is a must" (ht4, ht6,
  ht7, ht11, ht14);
- a term asked for and a closing: "match the 140 and I'm in", "... and it's a deal" (ht13, ht14);
- a connective with an adverb inside it: "subject only to", "contingent solely on" (ht14);
- a trade given as the reason: "since you're adding the 10k equity" (ht14);
- a time clause after what it conditions, on an anaphor: "all good on our side once that's in" (ht6,
  ht14);
- an acceptance drawn from what was just said: "With that, I would accept ..." (ht14);
- a cost put to the other side right after an offer: "... with air freight. Would you cover the air
  freight cost?" (ht14);
- a quote of a clause ending in a colon goes on to what the colon announces ("we need to add one thing:
  the sign-off from our parent company").

And one missed term whose form recurs in three writers: a count of pieces in German ("2.000 Stück",
ht11, ht12, ht14).
"""

from __future__ import annotations

from datetime import date

import pytest

from parley.governance.config import DomainConfig
from parley.governance.normalize import normalize
from parley.governance.term_guard import conditional_constructions
from parley.governance.terms import TermReader, TermReading

from .blind_sets import NEXT_BLIND
from .linear_time import assert_reads_in_linear_time

DAY = date(2026, 11, 29)


def _read(config: DomainConfig, text: str) -> TermReading:
    return TermReader(config).read(text, today=DAY)


def _constructions(text: str) -> list[str]:
    return [c.family for c in conditional_constructions(normalize(text, max_chars=None).text)]


# (source sets, domain, message, words the surfaced condition must quote or None: any condition)
SURFACED: list[tuple[str, str, str, str | None]] = [
    ("ht14", "staffing", "Five weeks of leave is my red line. On base I can move, 115 works.", None),
    ("ht7", "staffing", "I'd take 120k, but three remote days are non-negotiable for me.", None),
    (
        "ht14",
        "staffing",
        "ok so Globex put 150k on the table. beat the 150 and I'm in, PTO can stay at 20",
        None,
    ),
    ("ht13", "procurement", "Take the 12,000 units at 3.90 and it's a deal.", None),
    (
        "ht14",
        "staffing",
        "I'll sign on receipt of the letter, subject only to my work permit being renewed.",
        "permit",
    ),
    ("ht14", "procurement", "We confirm 4.20, contingent solely on the mould passing inspection.", "mould"),
    ("ht14", "staffing", "I'll come down to 118 since you're adding the 15k signing bonus. Fair?", None),
    (
        "ht14",
        "leasing",
        "We need to add one thing: the lender's consent. Rent 9,100, 5 years — fine once that's signed.",
        "lender",
    ),
    ("ht14", "staffing", "Could you do 25 days of PTO? With that, I would accept the base of 101k.", None),
    (
        "ht14",
        "procurement",
        "We can ship in 3 weeks by air. Would you pay the air freight charges?",
        "freight",
    ),
]


@pytest.mark.parametrize(("sets", "domain", "text", "words"), SURFACED, ids=[s[2][:40] for s in SURFACED])
def test_each_class_surfaces_its_condition(
    sets: str, domain: str, text: str, words: str | None, request: pytest.FixtureRequest
) -> None:
    config: DomainConfig = request.getfixturevalue(domain)
    conditions = _read(config, text).conditions
    assert conditions, (sets, text)
    if words is not None:
        assert any(words in c.text.lower() for c in conditions), [c.text for c in conditions]


# Near misses of the same shape that condition nothing.
NEAR_MISSES: list[str] = [
    "Five weeks of leave is my preference.",
    "I went to the office and I'm in Berlin this week.",
    "Since you asked, our price is 4.20.",
    "Once that's in the system I'll let you know.",
    "With that said, thanks for the call.",
    "Would you cover the air freight cost?",  # no offer before it
    "We can ship in 3 weeks. Would you confirm the address?",
]


@pytest.mark.parametrize("text", NEAR_MISSES)
def test_near_misses_raise_no_new_construction(text: str) -> None:
    families = _constructions(text)
    assert families == [], families


def test_the_connective_needs_its_adverb_or_the_plain_marker() -> None:
    assert "connective" in _constructions("Accepted, subject solely to board approval.")
    assert "connective" in _constructions("Accepted, subject to board approval.")


# Obfuscated variants: homoglyphs and zero-width characters are folded before the grammar reads.
ADVERSARIAL: list[tuple[str, str]] = [
    ("staffing", "Five weeks of leave is my r\u0435d line. On base I can move, 115 works."),
    ("staffing", "beat the 150 and I'\u200bm in, PTO can stay at 20"),
    ("staffing", "I'll sign, subject \u043enly to my work permit being renewed."),
    ("procurement", "We can ship in 3 weeks by air. W\u043euld you cover the freight c\u043est?"),
]


@pytest.mark.parametrize(("domain", "text"), ADVERSARIAL, ids=[a[1][:40] for a in ADVERSARIAL])
def test_obfuscated_variants_surface_as_plain(domain: str, text: str, request: pytest.FixtureRequest) -> None:
    config: DomainConfig = request.getfixturevalue(domain)
    assert _read(config, text).conditions, text


@pytest.mark.parametrize(
    ("text", "volume"),
    [
        ("Wir bieten 3.500 Stück zu 9,80 USD je Stück an.", 3500.0),  # ht14
        ("Angebot: 6,10 USD pro Stück bei 12.000 Stück, Zahlung 30 Tage netto.", 12000.0),  # ht12
    ],
)
def test_pieces_in_german_are_the_volume(text: str, volume: float, procurement: DomainConfig) -> None:
    values = {t.term: t.value for t in _read(procurement, text).terms}
    assert values.get("order_volume") == volume, values


def test_a_price_per_piece_in_german_is_no_volume(procurement: DomainConfig) -> None:
    values = {t.term: t.value for t in _read(procurement, "Preis 4,40 USD pro Stück.").terms}
    assert "order_volume" not in values, values


@pytest.mark.parametrize(
    ("domain", "unit"),
    [
        ("staffing", "is my red line and I'm in, is non-negotiable and it's a deal "),
        ("staffing", "subject only to since you're adding once that's in. With that, I would accept "),
        ("procurement", "by air. Would you cover the freight cost? we need one thing: 2.000 Stück "),
        ("staffing", "a a a a a a a a a, and "),
    ],
)
def test_the_new_classes_read_in_linear_time(domain: str, unit: str, request: pytest.FixtureRequest) -> None:
    config: DomainConfig = request.getfixturevalue(domain)
    assert_reads_in_linear_time(TermReader(config), unit, DAY)


def test_the_next_blind_sets_are_not_named_here() -> None:
    with open(__file__, encoding="utf-8") as handle:
        source = handle.read()
    for name in NEXT_BLIND:
        assert source.count(name) == 0, name
