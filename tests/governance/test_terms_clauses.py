"""The clause-level condition reader (issue 17): every conditional form, on a term or on none, reaches the
principal; a value inside a condition is the condition's term only when the condition names it.

Every sentence here is written for these tests (none is copied from a labelled set).
"""

from __future__ import annotations

import json
import time
from datetime import date

import pytest

from parley.governance.config import DomainConfig
from parley.governance.delegate import Delegate
from parley.governance.draft import parse
from parley.governance.escalation import EscalationRequest
from parley.governance.term_clauses import condition_form_matches, names_term, read_clauses
from parley.governance.term_guard import UNEXPLAINED
from parley.governance.terms import Condition, TermReader, TermReading

from .linear_time import HANG_GUARD_SECONDS, assert_grows_linearly
from .measure_terms import DEV, KINDS, classify, main

DAY = date(2026, 11, 27)


def _read(config: DomainConfig, text: str) -> TermReading:
    return TermReader(config).read(text, today=DAY)


def _on(reading: TermReading) -> set[tuple[str, object]]:
    """The conditions attributed to a term, as (term, value)."""
    return {(c.term, c.value) for c in reading.conditions if c.term != "other"}


def _other(reading: TermReading) -> list[str]:
    """The texts of the conditions on no term (attributed or quoted by a rule; not the sentences quoted
    because the reader could not explain them, issue 17)."""
    return [c.text.lower() for c in reading.conditions if c.term == "other" and c.source != UNEXPLAINED]


# -- the family of conditional forms, each attributed where the condition names a term -----------------
@pytest.mark.parametrize(
    ("config_name", "text", "term", "value"),
    [
        ("staffing", "We could stretch to 112k if she takes 2 remote days.", "remote_days", 2.0),
        ("staffing", "Base of 97k works, provided there is a $7,500 signing bonus.", "signing_bonus", 7500.0),
        ("procurement", "We hold $6.20 as long as delivery is 7 weeks.", "lead_time", 7.0),
        (
            "procurement",
            "Net 60 is acceptable so long as the order is 12,000 units.",
            "order_volume",
            12000.0,
        ),
        (
            "procurement",
            "We'd drop to $10.40 on condition that the order is 6,000 units.",
            "order_volume",
            6000.0,
        ),
        (
            "leasing",
            "Two free months, on the understanding that the lease term is 48 months.",
            "lease_term",
            48.0,
        ),
        ("leasing", "The owner agrees to $9,300 a month, contingent on a 5-year term.", "lease_term", 60.0),
        ("procurement", "You get net 45 only if the order is 9,000 units.", "order_volume", 9000.0),
        ("procurement", "Warranty can be 30 months, but only at $12.90 a unit.", "unit_price", 12.9),
        ("leasing", "Throw in 4 parking spaces and we'll sign the lease.", "parking", 4.0),
        ("staffing", "Make it 118k and we have a deal.", "annual_salary", 118000.0),
        ("leasing", "We can do $8,900 a month with 6 parking spaces included.", "parking", 6.0),
        ("staffing", "I can sign at 104k in exchange for a $5,000 relocation budget.", "relocation", 5000.0),
        ("staffing", "Would you do 111k if I can start on March 2?", "start_date", "2027-03-02"),
        ("procurement", "Pricing is firm at $10.10; otherwise we walk.", "unit_price", 10.1),
        ("staffing", "We could only go to 116k with a start on February 8.", "start_date", "2027-02-08"),
        ("staffing", "Give him 3 remote days and he'll accept 109k.", "remote_days", 3.0),
        ("procurement", "Order 14,000 units and we'll cut to $7.15.", "order_volume", 14000.0),
        ("procurement", "At $9.95 a unit we would need net 20.", "payment_terms", "net20"),
    ],
)
def test_each_conditional_form_attaches_its_term(
    config_name: str, text: str, term: str, value: object, request: pytest.FixtureRequest
) -> None:
    config: DomainConfig = request.getfixturevalue(config_name)
    reading = _read(config, text)
    assert (term, value) in _on(reading), reading.conditions


@pytest.mark.parametrize(
    ("config_name", "text", "words"),
    [
        ("staffing", "We can meet 101k, assuming the reference calls go well.", "reference"),
        ("staffing", "105k is on the table unless the hiring freeze is extended.", "freeze"),
        ("procurement", "The 6-week lead time presupposes artwork approval by Monday.", "artwork"),
        ("procurement", "We must have a signed PO by Thursday to hold the $9.80 price.", "signed"),
        ("leasing", "No deposit needed for tenants with a bank guarantee.", "guarantee"),
        ("leasing", "Subject to the owner's insurer signing off, rent is $9,800 per month.", "insurer"),
        ("staffing", "That works if your finance team signs off this week.", "finance"),
        ("procurement", "We'll ship in 5 weeks, but only with a letter of credit.", "credit"),
    ],
)
def test_a_condition_on_no_term_keeps_its_text(
    config_name: str, text: str, words: str, request: pytest.FixtureRequest
) -> None:
    config: DomainConfig = request.getfixturevalue(config_name)
    reading = _read(config, text)
    assert any(words in t for t in _other(reading)), reading.conditions


def test_the_main_clause_after_a_subject_to_phrase_is_stated(leasing: DomainConfig) -> None:
    reading = _read(
        leasing, "Subject to the owner's insurer signing off, rent is $9,800 per month for 36 months."
    )
    assert reading.values == {"monthly_rent": 9800.0, "lease_term": 36.0}
    assert _on(reading) == set()


# -- a value inside a condition is its term only when the condition names that term ---------------------
@pytest.mark.parametrize(
    ("config_name", "text", "not_stated", "words"),
    [
        (
            "leasing",
            "We can drop the deposit if your client pays four months of rent in advance.",
            "lease_term",
            "four months of rent",
        ),
        (
            "leasing",
            "The offer stands provided the tenant guarantees the first three years personally.",
            "lease_term",
            "first three years",
        ),
        (
            "leasing",
            "These terms are conditional on seeing three years of audited accounts.",
            "lease_term",
            "audited accounts",
        ),
        (
            "leasing",
            "Move-in can be May 3 if the lease is countersigned by January 9.",
            "move_in",
            "countersigned",
        ),
    ],
)
def test_a_value_the_condition_does_not_name_is_no_term(
    config_name: str, text: str, not_stated: str, words: str, request: pytest.FixtureRequest
) -> None:
    config: DomainConfig = request.getfixturevalue(config_name)
    reading = _read(config, text)
    assert not any(c.term == not_stated for c in reading.conditions)
    assert any(words in t for t in _other(reading)), reading.conditions
    if not_stated == "move_in":
        assert reading.values["move_in"] == "2027-05-03"  # the move-in is the main clause's date
    else:
        assert not_stated not in reading.values


def test_a_partial_prepayment_is_no_prepayment(procurement: DomainConfig) -> None:
    reading = _read(procurement, "$7.30 a unit works provided you pay a third up front.")
    assert reading.values == {"unit_price": 7.3}
    assert any("third up front" in t for t in _other(reading))


def test_names_term_reads_the_condition_span(leasing: DomainConfig) -> None:
    draft = parse("We agree if the lease term is 5 years.")
    reader = TermReader(leasing)
    hits = reader._hits(draft, DAY, ())  # pyright: ignore[reportPrivateUsage]
    (hit,) = [h for h in hits if h.term.name == "lease_term"]
    assert names_term(draft, hit, 0, len(draft.text))


# -- anaphoric conditions, nested and multiple conditions -------------------------------------------------
def test_an_anaphoric_condition_conditions_the_terms_asked_for_before_it(staffing: DomainConfig) -> None:
    text = (
        "The 99k base suits me, but I would need a relocation budget of 9,000 and a start on May 4. "
        "If that is acceptable, I can sign this week."
    )
    reading = _read(staffing, text)
    assert _on(reading) == {("relocation", 9000.0), ("start_date", "2027-05-04")}
    assert reading.values["annual_salary"] == 99000.0
    assert not any("acceptable" in t for t in _other(reading))


def test_an_anaphoric_condition_with_nothing_before_it_is_kept_as_text(staffing: DomainConfig) -> None:
    reading = _read(staffing, "If that is acceptable, I can sign this week.")
    assert reading.conditions and all(c.term == "other" for c in reading.conditions)


def test_several_conditions_in_one_message_are_each_kept(procurement: DomainConfig) -> None:
    text = (
        "We can do $8.75 if the order is 11,000 units, provided payment is net 30, "
        "and assuming the tooling is approved by our engineers."
    )
    reading = _read(procurement, text)
    assert ("order_volume", 11000.0) in _on(reading)
    assert ("payment_terms", "net30") in _on(reading)
    assert any("tooling" in t for t in _other(reading))


def test_a_nested_condition_keeps_both_levels(leasing: DomainConfig) -> None:
    text = "If the lease term is 60 months, the owner gives 3 free months, unless the credit check fails."
    reading = _read(leasing, text)
    assert ("lease_term", 60.0) in _on(reading)
    assert any("credit check" in t for t in _other(reading))
    assert reading.values["free_months"] == 3.0


def test_a_condition_in_the_middle_of_a_long_email_is_kept(staffing: DomainConfig) -> None:
    filler = "We enjoyed the conversations with the team and the panel spoke highly of the work sample. " * 40
    text = (
        f"Hello Priya,\n\n{filler}\nOn compensation: 108k base is fine with us provided the equity grant is "
        f"$30,000.\n\n{filler}\nKind regards,\nTomasz"
    )
    reading = _read(staffing, text)
    assert ("equity", 30000.0) in _on(reading)
    assert reading.values["annual_salary"] == 108000.0


# -- adversarial text ------------------------------------------------------------------------------------
@pytest.mark.parametrize(
    "text",
    [
        "We can do 103k prov\u0456ded the s\u0456gning bonus is $6,000.",  # Cyrillic і
        "We can do 103k pro\u200bvided the signing bonus is $6,000.",  # zero-width space
        "We can do 103k \uff50rovided the signing bonus is $6,000.",  # full-width p
        "We can do 103k, but\u00a0only\u00a0at a signing bonus of $6,000.",  # no-break spaces
    ],
)
def test_a_hidden_marker_still_attaches_its_condition(staffing: DomainConfig, text: str) -> None:
    reading = _read(staffing, text)
    assert ("signing_bonus", 6000.0) in _on(reading) or any("6,000" in c.text for c in reading.conditions)


def test_condition_forms_scan_in_linear_time() -> None:
    unit = "make it 105, and throw in a car and we sign, but only at dawn; "
    # 8x the text costs at most 32x the CPU time (5x-8x measured), well under quadratic (64x).
    assert_grows_linearly(condition_form_matches, unit, 2_000 * len(unit), 8, slack=4.0)


def test_a_huge_message_is_read_in_bounded_time(staffing: DomainConfig) -> None:
    text = "We can do 101k provided the relocation is 8k and we have a deal. " * 20_000  # 1.3 MB
    start = time.process_time()  # CPU time: other processes on a shared machine do not count
    reading = _read(staffing, text)
    assert time.process_time() - start < HANG_GUARD_SECONDS  # a hang guard: about 2.5 s of CPU
    assert reading.unread and reading.conditions  # not read, its conditions still quoted


def test_clause_reading_of_no_hits_is_empty() -> None:
    draft = parse("Thanks, talk soon.")
    result = read_clauses(draft, [])
    assert result.hits == () and result.others == () and result.attached == ()


# -- the principal sees every condition ------------------------------------------------------------------
_HOSTILE = "This is ridiculous and a waste of my time."


def _escalation(delegate: Delegate) -> EscalationRequest:
    request = delegate.receive(_HOSTILE).request
    assert request is not None
    return request


def test_a_conditional_acceptance_reaches_the_principals_escalation(staffing: DomainConfig) -> None:
    delegate = Delegate(staffing, "clauses")
    delegate.open()
    delegate.receive("A 106k base works for me, but only with a signing bonus of $8,000.")
    delegate.receive("I accept the role, assuming my notice period can be bought out.")
    step = delegate.receive("I'd want a 4-week vacation and a May start. If that works, I sign Friday.")
    request = step.request or _escalation(delegate)
    conditions = [
        Condition(c["term"], c["value"], c.get("high"), c["text"]) for c in request.ledger["conditions"]
    ]
    assert ("signing_bonus", 8000.0) in {(c.term, c.value) for c in conditions}
    assert any("notice period" in c.text for c in conditions)
    assert "signing bonus $8K" in request.problem and "notice period can be bought out" in request.problem
    assert "pto_days" in {c.term for c in conditions}


# -- the measure's error kinds ---------------------------------------------------------------------------
def test_the_measure_names_each_kind_of_error(staffing: DomainConfig) -> None:
    item = {
        "id": "x1",
        "text": "Initech offered her 125k. We'd do 121k if she starts on June 1?",
        "terms": {"annual_salary": 121000, "signing_bonus": 5000},
        "conditions": [{"field": "relocation", "value": 9000}],
        "competing": {"annual_salary": 125000},
        "question": False,
        "correction": True,
    }
    reading = TermReading(
        terms=(),
        conditions=(Condition("start_date", "2027-06-01", None, "if she starts on June 1"),),
        question=True,
    )
    kinds = {e.kind for e in classify(item, reading, "unit")}
    assert kinds == {
        "competing_missed",
        "correction_not_applied",
        "statement_as_question",
        "condition_wrong_term",
    }
    assert kinds <= set(KINDS)


def test_the_measure_rejects_an_unknown_kind_in_one_line(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["--show", "nonsense", "all"]) == 2
    assert capsys.readouterr().err.count("\n") == 1


def test_the_measure_prints_strict_json_a_set(capsys: pytest.CaptureFixture[str]) -> None:
    assert main([str(DEV), "--json"]) == 0
    lines = capsys.readouterr().out.splitlines()
    record = json.loads(lines[0])
    assert len(lines) == 1 and record["set"] == "dev_terms" and 0.0 <= record["f1"] <= 1.0
    assert set(record["kinds"]) <= set(KINDS) and record["counts"]["messages"] > 0


def test_the_measure_names_a_missing_set_in_one_line(
    capsys: pytest.CaptureFixture[str], tmp_path: object
) -> None:
    assert main([f"{tmp_path}/absent.yaml"]) == 2
    assert "no labelled set" in capsys.readouterr().err


# -- the other fixes by form (competing offers, corrections, questions, totals, units) --------------------
@pytest.mark.parametrize(
    ("config_name", "text", "competing"),
    [
        (
            "staffing",
            "Hooli offered him 134k and a 12k sign-on.",
            {"annual_salary": 134000.0, "signing_bonus": 12000.0},
        ),
        ("procurement", "Vandelay Industries quoted us $7.95 per unit.", {"unit_price": 7.95}),
        (
            "leasing",
            "The building on Pine Avenue offered my client $6,100 a month.",
            {"monthly_rent": 6100.0},
        ),
        ("procurement", "Our other supplier is shipping 3-week lead times.", {"lead_time": 3.0}),
    ],
)
def test_a_named_third_partys_offer_is_competing(
    config_name: str, text: str, competing: dict[str, float], request: pytest.FixtureRequest
) -> None:
    config: DomainConfig = request.getfixturevalue(config_name)
    reading = _read(config, text)
    assert {t.term: t.value for t in reading.competing} == competing
    assert not reading.terms


def test_our_own_earlier_offer_is_not_a_competitor(staffing: DomainConfig) -> None:
    reading = _read(staffing, "We offered him 121k last week; we can now do 124k.")
    assert reading.values == {"annual_salary": 124000.0} and not reading.competing


@pytest.mark.parametrize(
    "text",
    [
        "The lead time I gave you was wrong. Lead time: 9 weeks.",
        "Let me correct my note: the lead time is 9 weeks.",
        "Quick fix: the lead time is 9 weeks.",
        "Lead time is 9 weeks; the 5 in the quote was a clerical error.",
    ],
)
def test_a_correction_in_other_words(procurement: DomainConfig, text: str) -> None:
    reading = _read(procurement, text)
    assert reading.correction and reading.values == {"lead_time": 9.0}


def test_a_question_that_opens_with_a_condition_states_nothing(leasing: DomainConfig) -> None:
    reading = _read(leasing, "If the owner gave 3 free months, would your client commit to 7 years?")
    assert reading.question and reading.values == {}


def test_a_total_over_a_count_gives_the_price(procurement: DomainConfig) -> None:
    reading = _read(procurement, "Total for the 1,600 castings would be $20,800.")
    assert reading.values == {"order_volume": 1600.0, "unit_price": 13.0}


def test_a_total_over_the_term_gives_the_monthly_rent(leasing: DomainConfig) -> None:
    reading = _read(leasing, "Across the 48-month term, total rent comes to $432,000.")
    assert reading.values == {"lease_term": 48.0, "monthly_rent": 9000.0}


def test_a_period_of_another_count_is_not_the_salarys(staffing: DomainConfig) -> None:
    reading = _read(staffing, "It pays 97k with 2 days a week in the office.")
    assert reading.values["annual_salary"] == 97000.0


def test_a_number_counting_its_own_noun_keeps_its_digits(staffing: DomainConfig) -> None:
    reading = _read(staffing, "Our offer: 103k base, 23 PTO days.")
    assert reading.values == {"annual_salary": 103000.0, "pto_days": 23.0}


def test_a_keyword_inside_a_condition_does_not_claim_the_main_figure(staffing: DomainConfig) -> None:
    reading = _read(staffing, "Glad to take 113k so long as the relocation is 7k.")
    assert reading.values == {"annual_salary": 113000.0, "relocation": 7000.0}
    assert _on(reading) == {("relocation", 7000.0)}


def test_a_figure_after_a_condition_does_not_take_the_conditions_term(staffing: DomainConfig) -> None:
    reading = _read(staffing, "Add a $4k sign-on bonus and you have a deal at 108k.")
    assert reading.values == {"signing_bonus": 4000.0, "annual_salary": 108000.0}
    assert _on(reading) == {("signing_bonus", 4000.0)}


def test_a_bare_ask_followed_by_a_verb_is_read(staffing: DomainConfig) -> None:
    reading = _read(staffing, "102 suits me provided the sign-on is 6k.")
    assert reading.values == {"annual_salary": 102000.0, "signing_bonus": 6000.0}


_SCREENING = [
    "Work authorization - I need H-1B sponsorship.",
    "Yes, a 6-hour overlap with Pacific time works. I'm fully remote from Toronto.",
    "8 years, mostly Python and React.",
    "I could start in January. Permanent role, please.",
    "Compensation expectations: $90K-$110K.",
]


def test_the_final_approval_shows_a_condition_attached_in_negotiation(staffing: DomainConfig) -> None:
    delegate = Delegate(staffing, "final")
    delegate.open()
    for message in _SCREENING:
        delegate.receive(message)
    assert delegate.state.value == "NEGOTIATE"
    request = None
    for message in ("I could accept 96k, but only with a signing bonus of $4,000.", "Yes, agreed."):
        request = delegate.receive(message).request
        if request is not None:
            break
    assert request is not None and request.trigger.value == "final_approval"
    assert 'signing bonus $4K ("only with a signing bonus of $4,000")' in request.problem
    assert ("signing_bonus", 4000.0) in {(c["term"], c["value"]) for c in request.ledger["conditions"]}


def test_how_long_a_quote_stays_valid_is_no_term(procurement: DomainConfig) -> None:
    reading = _read(procurement, "Our price is $6.85 per part, good for 45 days.")
    assert reading.values == {"unit_price": 6.85}
