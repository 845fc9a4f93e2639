"""Typed value parsing, the pattern and lexicon extractors, and the dual-extraction rule."""

from __future__ import annotations

import pytest

from parley.governance.config import DomainConfig
from parley.governance.extraction import (
    DualExtractor,
    ExtractionContext,
    Extractor,
    FieldReading,
    LexiconExtractor,
    PatternExtractor,
    default_extractor,
)
from parley.governance.values import find_dates, find_durations, find_money, find_overlaps, find_quantities


@pytest.mark.parametrize(
    ("text", "low", "high", "unit"),
    [
        ("$90K–$110K", 90000, 110000, None),
        ("$90-110k a year", 90000, 110000, "year"),
        ("I need $95/hour", 95, 95, "hour"),
        ("$12.50 per unit", 12.5, 12.5, "unit"),
        ("$9,500 per month", 9500, 9500, "month"),
        ("90K works", 90000, 90000, None),
    ],
)
def test_money(text: str, low: float, high: float, unit: str | None) -> None:
    (mention,) = find_money(text)
    assert (mention.low, mention.high, mention.unit) == (low, high, unit)


def test_quantities_durations_dates_and_zones() -> None:
    assert [(m.low, m.unit) for m in find_quantities("1,500 units and 4,200 sq ft")] == [
        (1500, "units"),
        (4200, "sqft"),
    ]
    assert [m.low for m in find_durations("6 weeks or a 3-year lease")] == [42.0, 1095.0]
    assert [m.label for m in find_dates("mid-March or next week")] == ["march", "next_week"]
    assert find_overlaps("a 6-hour overlap works")[0].low == 6.0
    assert find_overlaps("I'm in EST")[0].low == 5.0


def test_walkthrough_answers_are_read_with_context(staffing: DomainConfig) -> None:
    extractor = default_extractor(staffing)
    readings = extractor.extract(
        "8 years, mostly Python and React.", ExtractionContext(("seniority", "skills"))
    )
    assert {(r.field, r.value) for r in readings} == {("seniority", "senior"), ("skills", "python,react")}
    choices = {"work_authorization": tuple(b.label for b in staffing.field("work_authorization").bands)}
    (letter,) = extractor.extract("C", ExtractionContext(("work_authorization",), choices))
    assert (letter.field, letter.value) == ("work_authorization", "needs_sponsorship")


def test_negated_options_are_not_read(staffing: DomainConfig) -> None:
    readings = LexiconExtractor(staffing).extract(
        "I don't need sponsorship and I'm not remote.", ExtractionContext()
    )
    assert not [r for r in readings if r.value in ("needs_sponsorship", "remote")]


def test_dual_rule_agreement_boosts_and_disagreement_stays_soft(staffing: DomainConfig) -> None:
    extractor = default_extractor(staffing)
    (agreed,) = extractor.extract("Senior engineer with 8 years.", ExtractionContext())
    assert agreed.source == "dual" and agreed.confidence > 0.9
    disagreement = extractor.extract("I am a senior engineer, 4 years.", ExtractionContext())
    assert {r.value for r in disagreement} == {"mid", "senior"}
    assert all(r.confidence <= 0.5 for r in disagreement)


def test_one_highly_confident_extractor_wins_a_disagreement() -> None:
    dual = DualExtractor([], high_confidence=0.9)
    readings = [FieldReading("f", "a", 0.95, "pattern", ""), FieldReading("f", "b", 0.6, "lexicon", "")]
    assert [r.value for r in dual.combine(readings)] == ["a"]


class _KeywordModel:
    """A stand-in for an embedding or LLM extractor: anything satisfying the protocol plugs in."""

    name = "model"

    def covers(self, spec: object) -> bool:
        return True

    def extract(self, message: str, context: ExtractionContext) -> list[FieldReading]:
        return (
            [FieldReading("skills", "python,react", 0.95, self.name, message)]
            if "full-stack" in message
            else []
        )


def test_extractors_are_pluggable(staffing: DomainConfig) -> None:
    model: Extractor = _KeywordModel()
    dual = DualExtractor([PatternExtractor(staffing), model])
    (reading,) = dual.extract("I am a full-stack person.", ExtractionContext())
    assert reading.source == "model" and reading.value == "python,react"
