"""STCC (Algorithm 1, objective (1)): IG ranking, risk budget, 3-5 bands plus Other, neutral phrasing."""

from __future__ import annotations

from parley.governance.config import DomainConfig
from parley.governance.extraction import FieldReading
from parley.governance.stcc import (
    band_entropy,
    expected_gain,
    neutrality_problems,
    rank_attributes,
    screening_question,
    stcc_question,
    templates,
    total_entropy,
)
from parley.governance.tci import TaskCompletenessIndex


def test_stcc_asks_the_most_informative_safe_attribute(staffing: DomainConfig) -> None:
    tci = TaskCompletenessIndex(staffing)
    question = stcc_question(staffing, tci, templates())
    assert question.kind == "stcc" and question.fields == ("work_authorization",)
    ranked = rank_attributes(staffing, tci, staffing.thresholds.risk_budget, banded_only=True)
    assert all(expected_gain(ranked[0], tci) >= expected_gain(spec, tci) for spec in ranked)
    labels = question.choices["work_authorization"]
    assert 3 <= len(labels) <= 5 and question.text.endswith("Other / not sure")


def test_risk_budget_excludes_sensitive_attributes(staffing: DomainConfig) -> None:
    tci = TaskCompletenessIndex(staffing)
    names = [s.name for s in rank_attributes(staffing, tci, 0.5)]
    assert "compensation" not in names
    assert "compensation" in [s.name for s in rank_attributes(staffing, tci)]


def test_answered_fields_carry_no_entropy(staffing: DomainConfig) -> None:
    tci = TaskCompletenessIndex(staffing)
    before = total_entropy(staffing, tci)
    tci.update(1, [FieldReading("work_authorization", "us_citizen", 0.95, "t", "")])
    gain = before - total_entropy(staffing, tci)
    assert abs(gain - band_entropy(staffing.field("work_authorization"))) < 1e-9
    assert stcc_question(staffing, tci, templates()).fields != ("work_authorization",)


def test_leading_phrasing_is_detected(staffing: DomainConfig) -> None:
    assert neutrality_problems("Surely you want the best option?", staffing, 4) == [
        "leading word 'surely'",
        "leading word 'best'",
    ]
    assert neutrality_problems("Which applies?", staffing, 2) == ["expected 3-5 options, got 2"]


def test_leading_config_falls_back_to_an_open_question(staffing: DomainConfig) -> None:
    leading = staffing.model_copy(update={"leading_words": ("status",)})
    question = stcc_question(leading, TaskCompletenessIndex(leading), templates())
    assert question.kind == "open" and not question.choices


def test_screening_batches_top_missing_fields(staffing: DomainConfig) -> None:
    question = screening_question(staffing, TaskCompletenessIndex(staffing), templates())
    assert question is not None and len(question.fields) == staffing.thresholds.screen_batch
    unranked = screening_question(staffing, TaskCompletenessIndex(staffing), templates(), ranked=False)
    assert unranked is not None and unranked.fields == ("work_authorization", "timezone_overlap")
