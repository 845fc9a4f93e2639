"""Readings the term rules did not make, offered to the trained model (`TermReader.with_alternatives`,
role "alt"; issue 17, the thirteenth round). Each form is named by the spent set it comes from."""

from __future__ import annotations

from datetime import date

import pytest

from parley.governance.config import DomainConfig, load_config
from parley.governance.term_model import TermModel, parse_term_model
from parley.governance.term_roles import Hit
from parley.governance.terms import TermReader, TermReading

from .linear_time import assert_reads_in_linear_time

TODAY = date(2026, 11, 28)
STATE_ALTS = TermModel({"role=alt": 30.0}, -5.0, 0.0, 1.01, alt_above=0.5)
"""States every reading the rules did not make that it may: what the combination still guarantees."""
NEVER_ALTS = TermModel({"role=alt": 30.0}, -5.0, 0.0, 1.01)
"""The same weights with alt_above left at its default (1.01: never)."""


def _alternatives(config: DomainConfig, text: str) -> tuple[list[Hit], list[Hit]]:
    reader = TermReader(config, model=None)
    draft, hits, _ = reader.analyse(text, today=TODAY)
    every = reader.with_alternatives(draft, hits, today=TODAY)
    return hits, [h for h in every if h.role == "alt"]


def _read(config: DomainConfig, text: str, model: TermModel | None) -> TermReading:
    return TermReader(config, model=model).read(text, today=TODAY)


@pytest.mark.parametrize(
    ("domain", "text", "term", "value"),
    [
        # heldout_terms11 ht11_027: a deposit in dollars the rules gave no term
        ("leasing", "Rent is $8,000/mo and we'd need $16,000 down as a deposit.", "deposit_usd", 16000.0),
        # heldout_terms11 ht11_225: a deposit in a list the rules left unread
        ("leasing", "Final terms: 2,750 sf, $6,300/month, $5,000 security.", "deposit_usd", 5000.0),
        # heldout_terms11 ht11_040, heldout_terms4: days off counted beside other figures
        ("staffing", "Base of USD 210,000 per annum, and 25 days of paid vacation.", "pto_days", 25.0),
    ],
)  # fmt: skip
def test_every_figure_is_a_candidate_of_the_terms_its_unit_allows(
    domain: str, text: str, term: str, value: float
) -> None:
    hits, alternatives = _alternatives(load_config(domain), text)
    assert all(h.role != "alt" for h in hits)  # the rules never make one
    assert any(h.term.name == term and h.low == pytest.approx(value) for h in [*hits, *alternatives])
    assert all(h.term.name != h2.term.name or h.start != h2.start for h in alternatives for h2 in hits)


def test_a_figure_far_outside_a_terms_range_is_no_candidate_of_it(leasing: DomainConfig) -> None:
    """heldout_terms11 ht11_006: "$42 per square foot per year" is no monthly rent of $42 (nor is "2,400
    rsf", a unit the figure finder does not know, any term's area: left to the rules)."""
    _, alternatives = _alternatives(leasing, "Asking rent is $42 per square foot per year, on 2,400 rsf.")
    assert not any(h.term.name == "monthly_rent" and h.low == pytest.approx(42) for h in alternatives)


def test_the_rules_reading_is_unchanged_without_the_model_or_below_its_threshold(
    leasing: DomainConfig,
) -> None:
    text = "Rent is $8,000/mo and we'd need $16,000 down as a deposit."
    rules = _read(leasing, text, None)
    assert _read(leasing, text, NEVER_ALTS) == rules


def test_a_reading_the_model_states_fills_a_term_with_no_value(leasing: DomainConfig) -> None:
    text = "Rent is $8,000/mo and we'd need $16,000 down as a deposit."
    rules = _read(leasing, text, None)
    revised = _read(leasing, text, STATE_ALTS)
    assert rules.get("monthly_rent") == revised.get("monthly_rent")
    # a term the rules stated keeps its value; a figure a stated value holds is read once
    stated = {s.term for s in revised.terms}
    assert {s.term for s in rules.terms} <= stated
    starts = [s.evidence for s in revised.terms]
    assert len(starts) == len(revised.terms)


@pytest.mark.parametrize(
    ("domain", "text"),
    [
        # heldout_terms11 ht11_069, heldout_terms5 ht5_035: "subject to" conditions on no term
        ("leasing", "We'd sign at $12,900/month for 48 months, subject to our parent company's approval."),
        # heldout_terms11 ht11_174: a condition on a date
        ("leasing", "We're fine with the $52,000 deposit, but only if the landlord delivers by January 31."),
        # heldout_terms4 ht4_118: a condition read from "assumes"
        ("procurement", "The quote of $22/unit assumes a run of at least 1,000."),
        ("staffing", "We can go to 121k provided she starts before March 3."),
    ],
)  # fmt: skip
def test_stating_readings_never_drops_a_condition(domain: str, text: str) -> None:
    config = load_config(domain)
    rules = _read(config, text, None)
    assert rules.conditions
    revised = _read(config, text, STATE_ALTS)
    assert set(rules.conditions) <= set(revised.conditions)
    assert {s.term for s in rules.terms} <= {s.term for s in revised.terms}


def test_a_model_file_without_alt_above_never_states_a_new_reading() -> None:
    raw = {
        "format": "parley.term-value-model/1",
        "enabled": True,
        "intercept": 0.0,
        "drop_below": 0.1,
        "add_above": 0.9,
        "weights": {"role=alt": 1.0},
    }
    assert parse_term_model(raw, "memory").alt_above == 1.01
    assert parse_term_model({**raw, "alt_above": 0.7}, "memory").alt_above == 0.7
    from parley.errors import ScenarioError

    with pytest.raises(ScenarioError) as raised:
        parse_term_model({**raw, "alt_above": 2}, "memory")
    assert raised.value.field == "alt_above" and "\n" not in str(raised.value)


@pytest.mark.parametrize("unit", ["Rent $8,000/mo, $16,000 down, 2,400 sf, 5 years. ", "7 9 k 12 3.5% "])
def test_reading_with_every_candidate_is_linear(unit: str) -> None:
    assert_reads_in_linear_time(TermReader(load_config("leasing"), model=STATE_ALTS), unit, TODAY)
