"""What the term reader cannot explain goes to the principal as written (issue 17, fail closed).

A sentence that holds a figure or a term word is explained when every figure in it was attributed to a
term or a found condition and every other word is glue of a plain statement of terms
(data/term_glue.yaml, learned across writers by benchmarks/build_term_glue.py). A sentence that is not
explained is quoted with `source == UNEXPLAINED`; this only adds quotes, it never changes the terms.
"""

from __future__ import annotations

from datetime import date

import pytest

from parley.governance.config import DomainConfig
from parley.governance.term_guard import MAX_QUOTED, UNEXPLAINED, glue
from parley.governance.terms import TermReader, TermReading

from .linear_time import assert_reads_in_linear_time
from .measure_terms import DEV, reader_with, term_f1

DAY = date(2026, 11, 27)


def _read(config: DomainConfig, text: str) -> TermReading:
    return TermReader(config, unexplained=True).read(text, today=DAY)


def _unexplained(reading: TermReading) -> list[str]:
    return [c.text for c in reading.conditions if c.source == UNEXPLAINED]


@pytest.mark.parametrize(
    "text",
    [
        "We can do 112k base. The board wants a sabbatical clause in exchange, sorry.",
        "Base of 112k works; our CFO insists the relocation gets repaid pro rata within 18 months.",
        "Happy with 112k base, though the team lead wants you onsite the first 90 days.",
    ],
)
def test_a_sentence_the_reader_cannot_explain_is_quoted(staffing: DomainConfig, text: str) -> None:
    reading = _read(staffing, text)
    quotes = [c for c in reading.conditions if c.quoted]
    assert quotes, reading
    assert all(c.term == "other" and c.value is None for c in quotes)


def test_an_unexplained_sentence_names_its_source(staffing: DomainConfig) -> None:
    reading = _read(
        staffing, "Base 112k. Our CFO insists the relocation gets repaid pro rata within 18 months."
    )
    texts = _unexplained(reading)
    assert any("repaid pro rata" in t for t in texts), reading
    assert all(c.quoted for c in reading.conditions if c.source == UNEXPLAINED)
    assert any(c.to_json().get("source") == UNEXPLAINED for c in reading.conditions)


@pytest.mark.parametrize(
    "text",
    [
        "We can offer a base salary of $112,000 and 25 days of PTO.",
        "Our offer is $112,000 base with a start date of January 4.",
        "Thanks for the call! We'd like to propose 112k base.",
    ],
)
def test_a_plain_statement_of_terms_gets_no_quote(staffing: DomainConfig, text: str) -> None:
    assert _unexplained(_read(staffing, text)) == []


def test_small_talk_is_not_quoted(staffing: DomainConfig) -> None:
    text = "The panel really enjoyed meeting you, what a lovely afternoon."
    assert _unexplained(_read(staffing, text)) == []


def test_glue_holds_no_conditional_word_nor_figure() -> None:
    allow = glue()
    assert not allow.words & {"if", "unless", "only", "provided", "subject", "need", "but", "until"}
    assert not allow.words & allow.figures


@pytest.mark.parametrize("trick", ["\u200b", "\u0456"])  # zero-width space; Cyrillic "і"
def test_obfuscated_words_are_not_explained(staffing: DomainConfig, trick: str) -> None:
    text = f"We can do 112k base. The CFO wants a clawb{trick}ack on the sign-on of 10k for 18 months."
    reading = _read(staffing, text)
    assert any(c.quoted for c in reading.conditions), reading


def test_quotes_stay_bounded(staffing: DomainConfig) -> None:
    text = " ".join(f"Gadget {i} ships with widget {i}." for i in range(400))
    reading = _read(staffing, text)
    assert len(reading.conditions) <= MAX_QUOTED


def test_reading_if_dollars_stays_linear(staffing: DomainConfig) -> None:
    assert_reads_in_linear_time(TermReader(staffing, unexplained=True), "if $1 ", DAY)


def test_twenty_thousand_characters_of_if_dollars_are_read(staffing: DomainConfig) -> None:
    reading = _read(staffing, "if $1 " * 3_334)
    assert reading.conditions
    assert len(reading.conditions) <= MAX_QUOTED


def test_f1_on_the_dev_set_is_unchanged() -> None:
    """The quotes add conditions only: the terms read are the same with and without them, and every
    labelled condition surfaced without them is surfaced with them."""
    without = term_f1(DEV)
    with_quotes = term_f1(DEV, reader_with("shipped", unexplained=True))
    assert with_quotes[:3] == without[:3]
    assert with_quotes[4]["conditions_surfaced"] >= without[4]["conditions_surfaced"]


def test_the_reader_quotes_unexplained_sentences_unless_switched_off(staffing: DomainConfig) -> None:
    text = "Base 112k. Our CFO insists the relocation gets repaid pro rata within 18 months."
    assert any(c.source == UNEXPLAINED for c in TermReader(staffing).read(text, today=DAY).conditions)
    off = TermReader(staffing, unexplained=False).read(text, today=DAY)
    assert not any(c.source == UNEXPLAINED for c in off.conditions)


@pytest.mark.parametrize(
    "text",
    [
        "We can do 102 provided she signs by Friday.",
        "I'd accept 118k, but only with a signing bonus of at least 8k.",
        "OK, 120k, assuming the background check clears.",
    ],
)
def test_the_words_opening_a_found_condition_are_explained(staffing: DomainConfig, text: str) -> None:
    reading = _read(staffing, text)
    assert [c for c in reading.conditions if not c.quoted] and _unexplained(reading) == [], reading
