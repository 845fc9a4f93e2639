"""The term reader fails closed (issue 17): no conditional construction and no amount vanishes.

Whatever the reader understands, a message holding a conditional construction yields a reading with a
condition (quoting the clause when no term carries it), an amount no term claims is quoted as unread,
and both reach the principal in the escalation. Also the misreads fixed with it: a bonus beside remote
days, "no security deposit", per-day penalties, a compound duration that names something else, and an
hourly ask that implies the contract is by the hour (stated only when the message names it).
"""

from __future__ import annotations

from datetime import date

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from parley.governance.config import DomainConfig
from parley.governance.delegate.position import conditions_note, position
from parley.governance.extraction import ExtractionContext, TermExtractor
from parley.governance.term_guard import MAX_QUOTE, MAX_QUOTED, conditional_markers, has_conditional_marker
from parley.governance.terms import TermReader, TermReading, reader_for

DAY = date(2026, 11, 27)
MARKERS = [
    "if",
    "only if",
    "unless",
    "provided",
    "provided that",
    "providing",
    "as long as",
    "so long as",
    "on condition that",
    "on the condition that",
    "subject to",
    "assuming",
    "contingent on",
    "conditional on",
    "dependent on",
    "depending on",
    "in exchange for",
    "in return for",
    "on the understanding that",
    "in the event that",
]
"""Conditional constructions, each of which must yield a condition wherever it stands."""


def _read(config: DomainConfig, text: str) -> TermReading:
    return TermReader(config).read(text, today=DAY)


# -- a condition on no term is quoted, never dropped ------------------------------------------------------
@pytest.mark.parametrize("marker", MARKERS)
@pytest.mark.parametrize(
    ("before", "after"),
    [
        ("We can close at 98k", "the paperwork clears legal this month"),  # the condition second
        ("", "the paperwork clears legal this month, we can close at 98k"),  # the condition first
        ("Fine by us", "our chairman signs off"),  # no figure at all
    ],
)
def test_every_conditional_construction_yields_a_condition(
    staffing: DomainConfig, marker: str, before: str, after: str
) -> None:
    text = f"{before} {marker} {after}.".strip().capitalize()
    reading = _read(staffing, text)
    assert reading.conditions, text
    assert any(w in c.text.lower() for c in reading.conditions for w in ("paperwork", "chairman")), text


@pytest.mark.parametrize(
    "text",
    [
        "The relocation package is fine, the signing date being agreed first, provided.",  # postposed
        "Provided, of course, that the chairman signs off, we can do 98k.",  # marker split off by commas
        "We can do 98k. Otherwise the chairman will not sign.",  # a consequence: what came before is one
        "Should the chairman sign off this week, we can do 98k.",  # inversion
        "The terms are fine, subject to board approval.",  # "subject to ... approval" from them is theirs
    ],
)
def test_conditions_in_other_word_orders_are_kept(staffing: DomainConfig, text: str) -> None:
    assert _read(staffing, text).conditions, text


def test_nested_conditions_are_each_kept(staffing: DomainConfig) -> None:
    text = (
        "We can do 98k if the chairman signs off, provided that the board meets, unless the audit "
        "is late, and only if the relocation package of 20k is included."
    )
    reading = _read(staffing, text)
    quoted = " ".join(c.text.lower() for c in reading.conditions)
    for words in ("chairman", "board", "audit"):
        assert words in quoted, (words, reading.conditions)
    assert ("relocation", 20000.0) in [(c.term, c.value) for c in reading.conditions]


def test_a_condition_the_reader_attributes_is_not_quoted_twice(staffing: DomainConfig) -> None:
    reading = _read(staffing, "100 is fine provided the relocation package of 20k is included.")
    assert [(c.term, c.value, c.quoted) for c in reading.conditions] == [("relocation", 20000.0, False)]


@pytest.mark.parametrize(
    "text",
    [
        "Let me know if you have any questions.",  # "if" as "whether" and an empty ellipsis
        "I wonder if the role is still open.",
        "We can do 98k, if possible by Friday.",
        "Thanks for the figures provided by your team.",  # a participle, not a proviso
        "Should we schedule a call for Friday?",  # an inverted question, not a condition
    ],
)
def test_if_as_whether_is_no_condition(text: str) -> None:
    assert not has_conditional_marker(text) or "possible" in text


# -- adversarial text --------------------------------------------------------------------------------------
@pytest.mark.parametrize(
    "text",
    [
        "We can do 98k \u0456f the chairman signs off.",  # Cyrillic "і" in "if"
        "We can do 98k i\u200bf the chairman signs off.",  # zero-width space inside "if"
        "We can do 98k \uff49\uff46 the chairman signs off.",  # fullwidth "ｉｆ"
        "We can do 98k PROVIDED THE CHAIRMAN SIGNS OFF.",
        "We can do 98k p\u00adrovided the chairman signs off.",  # soft hyphen
    ],
)
def test_a_hidden_condition_is_still_read(staffing: DomainConfig, text: str) -> None:
    assert has_conditional_marker(text)
    reading = _read(staffing, text)
    assert any("chairman" in c.text.lower() for c in reading.conditions), reading


def test_a_megabyte_message_is_unread_with_its_conditions_quoted(staffing: DomainConfig) -> None:
    filler = "We discussed the office layout at length. " * 25_000
    text = filler + "We can do 98k provided the chairman signs off. " + filler
    assert len(text) > 1_000_000
    reading = _read(staffing, text)
    assert not reading.terms
    assert reading.unread and "not read" in reading.unread[0]
    assert any("chairman" in c.text for c in reading.conditions)
    assert all(len(c.text) <= MAX_QUOTE for c in reading.conditions)


def test_a_message_of_many_conditions_is_bounded(staffing: DomainConfig) -> None:
    text = " ".join(f"We agree if clause {i} holds." for i in range(300))
    reading = _read(staffing, text)
    assert 1 <= len(reading.conditions) <= MAX_QUOTED + 5
    assert "more conditional clauses not quoted" in reading.conditions[-1].text


def test_a_megabyte_of_markers_is_bounded(staffing: DomainConfig) -> None:
    reading = _read(staffing, "if " * 400_000)
    assert len(reading.conditions) <= MAX_QUOTED
    assert "more conditional clauses not quoted" in reading.conditions[-1].text


_TEXT = st.text(
    alphabet=st.sampled_from([*"abcdefghijklmnopqrstuvwxyz ,.;?$0123456789k-", "\u200b", "\u0456"]),
    max_size=120,
)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(before=_TEXT, marker=st.sampled_from(MARKERS), after=_TEXT)
def test_no_message_with_a_conditional_marker_reads_without_a_condition(
    before: str, marker: str, after: str
) -> None:
    config = _staffing()
    text = f"{before} {marker} {after}"
    reading = reader_for(config).read(text)
    if has_conditional_marker(text):
        assert reading.conditions, text


@settings(max_examples=150, deadline=None)
@given(text=_TEXT)
def test_a_marker_anywhere_means_a_condition(text: str) -> None:
    reading = reader_for(_staffing()).read(text)
    assert bool(reading.conditions) or not has_conditional_marker(text)


def _staffing() -> DomainConfig:
    from parley.governance.config import load_config

    return load_config("staffing")


def test_markers_are_found_in_order() -> None:
    found = [m.group(0).lower() for m in conditional_markers("if a, unless b, subject to c")]
    assert found == ["if", "unless", "subject to"]


# -- an amount no term claims reaches the principal as unread ----------------------------------------------
def test_an_amount_no_term_claims_is_unread(procurement: DomainConfig) -> None:
    reading = _read(procurement, "Late delivery carries a penalty of $500 per day.")
    assert not reading.terms
    assert reading.unread == ("Late delivery carries a penalty of $500 per day",)


@pytest.mark.parametrize(
    "text",
    [
        "The going rate around here is $40 a foot.",  # the market
        "A bank has put $118,000 in front of him.",  # a competing offer
        "Your ask of $125,000 is too high.",  # the principal's figure
    ],
)
def test_an_amount_set_aside_for_a_reason_is_not_unread(staffing: DomainConfig, text: str) -> None:
    assert not _read(staffing, text).unread


def test_the_principal_sees_unread_amounts_and_quoted_conditions(staffing: DomainConfig) -> None:
    readings = [
        _read(staffing, "We can do 98k, subject to board approval."),
        _read(staffing, "There is also a $300 per diem for travel."),
    ]
    note = conditions_note(staffing, readings)
    assert '"We can do 98k, subject to board approval" (not read by the delegate' in note
    assert "not read by the delegate (check them yourself)" in note
    assert '"There is also a $300 per diem for travel"' in note
    data = position(staffing, readings)
    assert data["conditions"] and data["conditions"][0]["quoted"] is True
    assert TermReading.from_json(readings[0].to_json()) == readings[0]


# -- the misreads fixed --------------------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("Bonus is $8,000; remote days: 2.", {"signing_bonus": 8000.0, "remote_days": 2.0}),
        ("Bonus 10 upfront, relo 5.", {"signing_bonus": 10000.0, "relocation": 5000.0}),
        ("Three days remote and 2 days in the office.", {"remote_days": 3.0}),
        (
            "We'd want you in the office 3 days a week, with a $10,000 signing bonus.",
            {"remote_days": 2.0, "signing_bonus": 10000.0},
        ),
        (
            "There's no signing bonus, but we can do 2 remote days.",
            {"signing_bonus": 0.0, "remote_days": 2.0},
        ),
    ],
)
def test_a_bonus_beside_remote_days(staffing: DomainConfig, text: str, expected: dict[str, float]) -> None:
    assert _read(staffing, text).values == expected


@pytest.mark.parametrize(
    ("text", "deposit"),
    [
        ("There is no security deposit.", 0.0),
        ("No deposit required, and the term is 5 years.", 0.0),
        ("We waive the security deposit entirely.", 0.0),
        ("The deposit is waived if you sign for 60 months.", 0.0),
        ("No more than 2 months deposit.", 2.0),
    ],
)
def test_no_security_deposit_is_a_deposit_of_zero(leasing: DomainConfig, text: str, deposit: float) -> None:
    assert _read(leasing, text).values["deposit"] == deposit


@pytest.mark.parametrize(
    ("text", "per_week"),
    [
        ("We accept a late penalty of 0.5% per day of delay.", 3.5),
        ("Late penalty 1% a week.", 1.0),
        ("A late penalty of 2% per calendar day.", 14.0),
    ],
)
def test_a_per_day_penalty_is_read_per_week(procurement: DomainConfig, text: str, per_week: float) -> None:
    assert _read(procurement, text).values["late_penalty_pct"] == pytest.approx(per_week)


def test_a_compound_duration_of_something_else_is_no_term(
    procurement: DomainConfig, leasing: DomainConfig
) -> None:
    reading = _read(procurement, "Price holds if the two-year supply agreement is signed.")
    assert reading.values == {}
    assert [(c.term, c.text) for c in reading.conditions] == [
        ("other", "the two-year supply agreement is signed")
    ]
    assert _read(procurement, "We offer a 36-month warranty.").values == {"warranty": 36.0}
    assert _read(leasing, "We require an 18-month minimum.").values == {"lease_term": 18.0}


@pytest.mark.parametrize("text", ["My rate is $90 an hour.", "Could you live with 66 an hour?"])
def test_an_hourly_ask_implies_the_contract_is_by_the_hour(staffing: DomainConfig, text: str) -> None:
    """The labelled sets never count a contract type the message does not name as stated: it is
    implied (the delegate's extractor still learns it and switches to the hourly rate)."""
    reading = _read(staffing, text)
    assert "contract_type" not in reading.values
    assert [(t.term, t.value) for t in reading.implied] == [("contract_type", "contract")]
    assert reading.values["hourly_rate"] in (90.0, 66.0)
    assert TermReading.from_json(reading.to_json()) == reading
    readings = TermExtractor(staffing).extract(text, ExtractionContext())
    assert ("contract_type", "contract") in [(r.field, r.value) for r in readings]


@pytest.mark.parametrize(
    "text", ["I charge 95/hr for contract work.", "I'd switch to contract if needed: 80 an hour instead."]
)
def test_an_hourly_ask_naming_the_contract_states_it(staffing: DomainConfig, text: str) -> None:
    reading = _read(staffing, text)
    assert reading.values["contract_type"] == "contract" and not reading.implied


def test_a_past_hourly_rate_implies_no_contract(staffing: DomainConfig) -> None:
    reading = _read(staffing, "I was paid $80 an hour at my last job.")
    assert "contract_type" not in reading.values and not reading.implied


def test_money_beside_another_cost_is_no_term_but_unread(staffing: DomainConfig) -> None:
    reading = _read(staffing, "There is also a $300 per diem for travel.")
    assert reading.values == {} and reading.unread == ("There is also a $300 per diem for travel",)
