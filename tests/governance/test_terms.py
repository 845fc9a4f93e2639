"""The term reader (issue 17, "Understanding the counterparty"): what a counterparty message states.

The floor is measured on the development set (tests/data/gaia/dev_terms, tuned on); the held-out set
next to it is measured once, by hand, with measure_terms.py; once spent, a set becomes a regression floor.
"""

from __future__ import annotations

from datetime import date

import pytest

from parley.errors import ScenarioError
from parley.governance.config import DomainConfig, load_config, load_yaml_data, parse_config
from parley.governance.offers import counterparty_ask
from parley.governance.terms import TermReader, TermReading, all_conditions, latest_terms

from .measure_terms import DEV, errors_of, read_with_baseline, read_with_terms, term_f1

DAY = date(2026, 11, 27)


def _read(config: DomainConfig, text: str) -> TermReading:
    return TermReader(config).read(text, today=DAY)


def test_development_set_floor() -> None:
    precision, recall, f1, (found, total), counts = term_f1(DEV)
    assert f1 >= 0.97 and precision >= 0.97 and recall >= 0.95, (precision, recall, f1)
    assert found == total == counts["conditions_surfaced"] and counts["conditions_spurious"] <= 1
    assert counts["conditions_quoted"] <= 3  # hypothetical questions and a penalty's "if we're late"
    assert counts["unexplained_quoted"] <= 43  # sentences not fully read (issue 17): its own budget
    assert counts["question_right"] == counts["correction_right"] == counts["messages"]
    assert counts["competing_found"] == counts["competing"]


@pytest.mark.parametrize(
    ("name", "most", "dropped"),
    [
        ("dev_terms", 43, 0),
        ("heldout_terms", 68, 0),
        ("heldout_terms2", 94, 0),
        ("heldout_terms3", 96, 0),
        ("heldout_terms4", 243, 0),
        ("heldout_terms5", 243, 0),
        ("heldout_terms6", 106, 0),
        ("heldout_terms7", 167, 0),
        ("heldout_terms8", 102, 0),
        ("heldout_terms9", 115, 0),
        ("heldout_terms10", 118, 0),
        ("heldout_terms11", 154, 0),
        ("heldout_terms12", 165, 0),
        ("heldout_terms13", 127, 0),
        ("heldout_terms14", 143, 0),
        ("heldout_terms15", 159, 1),
        ("heldout_terms16", 150, 1),
        ("heldout_terms17", 181, 2),
    ],
)
def test_sentences_not_fully_read_stay_within_their_budget_on_each_spent_set(
    name: str, most: int, dropped: int
) -> None:
    """The quotes of sentences the reader cannot explain (issue 17) are a budget of their own, apart
    from the conditional clauses quoted: measured per spent set (2026-11-29, round 18) so the volume put
    to the principal cannot silently grow, nor the conditions dropped silently come back."""
    path = DEV.parents[1] / name / "messages.yaml"
    *_, counts = term_f1(path)
    assert counts["unexplained_quoted"] <= most, counts
    kinds = [e.kind for e in errors_of(path, read_with_terms)]
    assert kinds.count("condition_dropped") <= dropped, counts


def test_the_reader_beats_the_extractor_it_replaces() -> None:
    _, _, before, (found_before, _), _ = term_f1(DEV, read_with_baseline)
    _, _, after, (found_after, total), _ = term_f1(DEV)
    assert before < 0.5 < 0.97 <= after
    assert found_before == 0 and found_after == total


# -- the phenomena of the issue, in words of the tests' own --------------------------------------------
def test_a_conditional_acceptance_keeps_its_condition(staffing: DomainConfig) -> None:
    reading = _read(staffing, "100 is fine provided the relocation package of 20k is included.")
    assert reading.values == {"annual_salary": 100000.0, "relocation": 20000.0}
    (condition,) = reading.conditions
    assert (condition.term, condition.value) == ("relocation", 20000.0)
    assert "provided" in condition.text


def test_a_condition_on_no_term_is_kept_as_text(staffing: DomainConfig) -> None:
    reading = _read(staffing, "We can do 102 provided she signs by Friday.")
    assert reading.values == {"annual_salary": 102000.0}
    assert [(c.term, c.text) for c in reading.conditions] == [("other", "she signs by Friday")]


@pytest.mark.parametrize(
    "text",
    [
        "Is $100K really your ceiling?",
        "Is 95 really the best you can do?",
        "If we bumped relocation to 15k, hypothetically, would he move faster?",
        "What would the total package look like at 105?",
    ],
)
def test_a_question_about_the_other_side_states_no_term(staffing: DomainConfig, text: str) -> None:
    reading = _read(staffing, text)
    assert reading.question and not reading.terms


def test_a_question_that_proposes_states_its_terms(staffing: DomainConfig) -> None:
    reading = _read(staffing, "Could you do 105 with a 5k signing bonus?")
    assert reading.question and reading.values == {"annual_salary": 105000.0, "signing_bonus": 5000.0}


def test_several_terms_in_one_message(procurement: DomainConfig) -> None:
    reading = _read(procurement, "We can do $8.90/pc at 10k pcs, net 45, 5 wks lead.")
    assert reading.values == {
        "unit_price": 8.9,
        "order_volume": 10000.0,
        "payment_terms": "net45",
        "lead_time": 5.0,
    }


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("It's 120 in total, of which 20 is bonus.", {"annual_salary": 100000.0, "signing_bonus": 20000.0}),
        (
            "Comp total is $150,000: $130,000 base and the remainder as a signing bonus.",
            {"annual_salary": 130000.0, "signing_bonus": 20000.0},
        ),
    ],
)
def test_a_total_gives_its_parts(staffing: DomainConfig, text: str, expected: dict[str, float]) -> None:
    assert _read(staffing, text).values == expected


def test_a_total_over_a_counted_order_is_a_unit_price(procurement: DomainConfig) -> None:
    reading = _read(procurement, "The whole batch of 800 units comes to $9,600.")
    assert reading.values == {"order_volume": 800.0, "unit_price": 12.0}


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("Sorry, I meant 95, not 90.", 95000.0),
        ("Apologies — the figure should have been 126k. I accidentally typed 162k.", 126000.0),
        ("To be clear, I never said 150; I said 115.", 115000.0),
    ],
)
def test_a_correction_keeps_only_the_corrected_value(
    staffing: DomainConfig, text: str, expected: float
) -> None:
    reading = _read(staffing, text)
    assert reading.values == {"annual_salary": expected} and reading.correction


def test_a_replaced_offer_gives_way_to_the_new_one(leasing: DomainConfig) -> None:
    reading = _read(leasing, "Our first proposal was 12k a month; the landlord now agrees to 11k.")
    assert reading.values == {"monthly_rent": 11000.0} and not reading.correction


@pytest.mark.parametrize(
    ("config_name", "text", "term", "value"),
    [
        ("staffing", "Monthly gross would be 9,000 USD.", "annual_salary", 108000.0),
        ("staffing", "Weekly pay of $2,000.", "annual_salary", 104000.0),
        ("staffing", "$48 per hour, W2, full-time.", "hourly_rate", 48.0),
        ("staffing", "He'd want four weeks of vacation.", "pto_days", 20.0),
        ("leasing", "Annual rent of $132,000.", "monthly_rent", 11000.0),
        ("leasing", "Rent is $28/sf/yr on 4,000 sf.", "monthly_rent", 9333.333333),
        ("leasing", "Two-year lease with an option to renew.", "lease_term", 24.0),
        ("procurement", "We can turn them around in 10 days.", "lead_time", 1.4),
        ("procurement", "Warranty: two years.", "warranty", 24.0),
    ],
)
def test_a_change_of_unit_is_converted(config_name: str, text: str, term: str, value: float) -> None:
    stated = _read(load_config(config_name), text).get(term)
    assert stated is not None and stated.value == pytest.approx(value)


@pytest.mark.parametrize(
    ("config_name", "text", "competing"),
    [
        (
            "staffing",
            "FYI a bank has put 118 plus a 10k sign-on in front of him.",
            {"annual_salary", "signing_bonus"},
        ),
        ("procurement", "Another supplier quoted $9.80 per bar.", {"unit_price"}),
        (
            "leasing",
            "Another landlord nearby offered my client $8,500 and 6 months free.",
            {"monthly_rent", "free_months"},
        ),
    ],
)
def test_a_competing_offer_is_not_the_counterpartys(config_name: str, text: str, competing: set[str]) -> None:
    reading = _read(load_config(config_name), text)
    assert not reading.terms and {t.term for t in reading.competing} == competing
    assert competing <= set(reading.set_aside)


def test_dates_resolve_to_the_next_such_day(staffing: DomainConfig) -> None:
    assert _read(staffing, "Start on July 6.").values == {"start_date": "2027-07-06"}
    assert TermReader(staffing).read("Start on July 6.").values == {"start_date": "--07-06"}


def test_figures_that_are_not_terms_are_left_alone(staffing: DomainConfig, procurement: DomainConfig) -> None:
    assert not _read(staffing, "Please reach me at (646) 555-0117, I'm in meetings until 4.").terms
    assert not _read(staffing, "Our company has 48 people and raised a Series B in 2025.").terms
    assert not _read(procurement, "Our capacity is 30,000 units per month and we have 85 CNC machines.").terms
    assert not _read(procurement, "Freight is $400 per shipment.").terms


def test_a_conversation_keeps_the_last_value_and_every_condition(staffing: DomainConfig) -> None:
    reader = TermReader(staffing)
    readings = [
        reader.read("My salary expectation is $130K."),
        reader.read("I'd accept 118k, but only with a signing bonus of at least 8k."),
        reader.read("OK, 120k, assuming the background check clears."),
    ]
    latest = latest_terms(readings)
    assert latest["annual_salary"].value == 120000.0 and latest["signing_bonus"].value == 8000.0
    assert [c.term for c in all_conditions(readings)] == ["signing_bonus", "other"]


def test_a_reading_round_trips_through_json(staffing: DomainConfig) -> None:
    reading = _read(
        staffing, "100 is fine provided the relocation package of 20k is included; a bank offered 130."
    )
    assert TermReading.from_json(reading.to_json()) == reading


# -- the delegate's ask for the negotiated term (the summary that read "annual salary $80K") ----
@pytest.mark.parametrize(
    ("text", "ask"),
    [
        ("100 is fine provided the relocation package of 20k is included", 100000.0),
        ("A bank offered him 130k; I would take 115k.", 115000.0),
        ("Is $100K really your ceiling?", None),
        ("Sorry, I meant 95k, not 90k.", 95000.0),
    ],
)
def test_the_counterpartys_ask_is_its_own_figure(
    staffing: DomainConfig, text: str, ask: float | None
) -> None:
    assert counterparty_ask(staffing, text, "annual_salary") == ask


# -- the domain files -----------------------------------------------------------------------------------
def test_extra_terms_are_not_required_fields(staffing: DomainConfig) -> None:
    names = set(staffing.field_names)
    assert {"signing_bonus", "relocation", "pto_days"} & names == set()
    assert {"signing_bonus", "relocation", "pto_days"} <= {t.name for t in TermReader(staffing).vocabulary}


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"name": "bonus2"}, "a new term needs a kind"),
        ({"name": "x", "kind": "money", "implies": {"nowhere": "a"}}, "unknown term 'nowhere'"),
        ({"name": "x", "kind": "enum", "patterns": {"a": "("}}, "invalid regular expression"),
    ],
)
def test_a_bad_term_spec_names_its_field(change: dict[str, object], message: str) -> None:
    raw = load_yaml_data("staffing.yaml")
    raw["terms"] = [*raw.get("terms", []), change]
    with pytest.raises(ScenarioError, match=message):
        parse_config(raw, "bad.yaml")


# -- more wordings, written by the reader's author after the development set (regressions, not a score) --
@pytest.mark.parametrize(
    ("config_name", "text", "expected"),
    [
        (
            "staffing",
            "Salary: ~95k\nBonus: 5k\nStart: ASAP",
            {"annual_salary": 95000.0, "signing_bonus": 5000.0, "start_date": "immediately"},
        ),
        ("staffing", "We can't do 110, but 104 is possible.", {"annual_salary": 104000.0}),
        ("staffing", "Earlier I said 90. Let's make it 92.", {"annual_salary": 92000.0}),
        ("staffing", "For context, I'm currently on 92 at my present job.", {}),
        (
            "staffing",
            "We budgeted 95-105 for this level; 105 would need VP sign-off.",
            {"annual_salary": (95000.0, 105000.0)},
        ),
        (
            "staffing",
            "Total comp of 150k, split 135 base and 15 signing.",
            {"annual_salary": 135000.0, "signing_bonus": 15000.0},
        ),
        ("staffing", "We can add a $3,000 home-office stipend and 2 extra PTO days.", {"pto_days": 2.0}),
        ("staffing", "I can do 78 an hour on a 1099.", {"hourly_rate": 78.0, "contract_type": "contract"}),
        ("procurement", "Lead time: about a month from PO.", {"lead_time": 4.3}),
        ("procurement", "Price: USD 13.40 per unit, valid for 30 days.", {"unit_price": 13.4}),
        (
            "procurement",
            "Our standard warranty is one year; we can offer two for an extra $0.25 per unit.",
            {"warranty": 24.0},
        ),
        (
            "procurement",
            "If you can take 20,000 units we'll drop to $9.10.",
            {"order_volume": 20000.0, "unit_price": 9.1},
        ),
        ("procurement", "We require 50% upfront, balance on delivery.", {"payment_terms": "prepayment"}),
        ("procurement", "Typo in my last email: lead time is 7 weeks, not 17.", {"lead_time": 7.0}),
        ("leasing", "Total annual rent comes to $126,000.", {"monthly_rent": 10500.0}),
        ("leasing", "Parking is $150 per space per month.", {}),
        (
            "leasing",
            "Security deposit of two months, waived after year one if payments are on time.",
            {"deposit": 2.0},
        ),
        (
            "leasing",
            "The landlord offers a $50 per sq ft TI allowance for the 4,500 sq ft space.",
            {"ti_allowance": 225000.0, "improvements": "allowance", "space_size": 4500.0},
        ),
        (
            "leasing",
            "Would $10,200 per month with a 48-month term work for your client?",
            {"monthly_rent": 10200.0, "lease_term": 48.0},
        ),
    ],
)
def test_more_wordings(config_name: str, text: str, expected: dict[str, object]) -> None:
    assert _read(load_config(config_name), text).values == expected


def test_the_spent_held_out_term_sets_at_their_floors() -> None:
    """Regression floors, compared as numbers so a failure never prints a held-out text. Held-out 1 was
    measured once (F1 0.918, 18/20 conditions) and then tuned on; held-out 2 was written blind, committed
    untouched (6a0bef6) and measured once after the fail-closed change: F1 0.849, 39/53 conditions
    surfaced (targets F1 >= 0.9 and none dropped: not met; docs/results/gaia_terms.md). Since tuned on
    (development figures, not blind): the clause-level condition reader and the fixes by form brought
    held-out 1 to F1 0.957 and held-out 2 to F1 0.896 with all 53 conditions attributed; the fixes by
    error class after term set v3 (test_terms_classes.py) to 0.974 and 0.951."""
    root = DEV.parents[1]
    _, _, f1, (found, total), counts = term_f1(root / "heldout_terms" / "messages.yaml")
    assert (f1 >= 0.965, found, total) == (True, 20, 20)
    _, _, f1, (found, total), counts = term_f1(root / "heldout_terms2" / "messages.yaml")
    assert (f1 >= 0.94, total, found, counts["conditions_surfaced"]) == (True, 53, 53, 53)


def test_the_third_held_out_term_set_at_its_one_measurement() -> None:
    """Written blind on 2026-11-27 (f039dd6) before the clause-level condition reader landed, measured
    once after: F1 0.881 (target >= 0.9: not met), conditions 79/87 surfaced, 77/87 attributed (one
    dropped silently, seven tied to the wrong term: target of none dropped not met). Since spent and
    tuned on (development figures, not blind): F1 0.964, 84/87 attributed, 86/87 surfaced (the one
    left is read as a condition on no term, quoting its clause, which shares no word of four letters
    with its label)."""
    root = DEV.parents[1]
    _, _, f1, (found, total), counts = term_f1(root / "heldout_terms3" / "messages.yaml")
    assert (f1 >= 0.95, total, found >= 83, counts["conditions_surfaced"] >= 85) == (True, 87, True, True)


def test_the_fourth_held_out_term_set_at_its_one_measurement() -> None:
    """Written blind on 2026-11-28 (b24a281) before the fixes by error class after term set v3
    (test_terms_classes.py) landed, measured once after: F1 0.863 (precision 0.888, recall 0.839;
    target >= 0.9: not met), conditions 111/135 attributed, 119/135 surfaced (6 dropped silently, 10
    tied to the wrong term: target of none dropped not met). Since spent and tuned on (development
    figures, not blind): the ties with no condition word, commitments, descriptive terms, given-up terms
    and restated figures (test_terms_ties.py) brought it to F1 0.889, 118/135 attributed, 132/135
    surfaced, none dropped."""
    root = DEV.parents[1]
    _, _, f1, (found, total), counts = term_f1(root / "heldout_terms4" / "messages.yaml")
    floors = (f1 >= 0.886, total, found >= 118, counts["conditions_surfaced"] >= 132)
    assert floors == (True, 135, True, True)


def test_the_fifth_held_out_term_set_at_its_one_measurement() -> None:
    """Written blind on 2026-11-28 (50d866a) before that session's term-reader changes (no condition
    dropped where a cue is seen, fallback values, costs after a figure) landed, measured once after:
    F1 0.869 (precision 0.875, recall 0.862; tp 583 fp 83 fn 93; target >= 0.9: not met), conditions
    97/124 attributed, 106/124 surfaced (7 dropped silently, 11 tied to the wrong term: target of none
    dropped not met). Since spent and tuned on (development figures, not blind; test_terms_ties.py):
    F1 0.875, 106/124 attributed, 115/124 surfaced, none dropped (9 read on the wrong term)."""
    root = DEV.parents[1]
    _, _, f1, (found, total), counts = term_f1(root / "heldout_terms5" / "messages.yaml")
    floors = (f1 >= 0.872, total, found >= 106, counts["conditions_surfaced"] >= 115)
    assert floors == (True, 124, True, True)


def test_the_sixth_held_out_term_set_at_its_one_measurement() -> None:
    """Written blind on 2026-11-28 (1f1c7f1) before that session's term-reader changes (conditions tied
    to a term without a cue word quoted, alternatives, descriptive terms, terms given up) and amount-
    reader changes landed, measured once after: F1 0.852 (precision 0.863, recall 0.842; tp 277 fp 44
    fn 52; target >= 0.9: not met), conditions 54/71 attributed, 60/71 surfaced (5 dropped silently,
    6 tied to the wrong term: target of none dropped not met). The floors sit at the measured values."""
    root = DEV.parents[1]
    _, _, f1, (found, total), counts = term_f1(root / "heldout_terms6" / "messages.yaml")
    floors = (f1 >= 0.852, total, found >= 54, counts["conditions_surfaced"] >= 60)
    assert floors == (True, 71, True, True)


def test_the_seventh_held_out_term_set_at_its_one_measurement() -> None:
    """Written blind on 2026-11-28 (9360c6e) before that session's term-reader changes (values it had no
    candidate for: foreign and day-first dates, move-in synonyms, none-of-a-term forms, options, prices
    by keyword, the quantity a price is for) and amount-reader changes landed, measured once after:
    F1 0.903 (precision 0.900, recall 0.907; tp 468 fp 52 fn 48; message bootstrap 0.879-0.926;
    target >= 0.9: met on the point estimate), conditions 79/99 attributed, 89/99 surfaced (6 dropped
    silently, 4 tied to the wrong term: target of none dropped not met). The floors sit at the
    measured values."""
    root = DEV.parents[1]
    _, _, f1, (found, total), counts = term_f1(root / "heldout_terms7" / "messages.yaml")
    floors = (f1 >= 0.903, total, found >= 79, counts["conditions_surfaced"] >= 89)
    assert floors == (True, 99, True, True)


def test_the_eighth_held_out_term_set_at_its_one_measurement() -> None:
    """Written blind on 2026-11-28 (27d515d) before that session's term-reader change (a conditional
    grammar: connectives as an open class, fees, requirements, restrictions, consequences, elliptic
    answers, conjuncts) and amount-reader changes landed, measured once after: F1 0.872 (precision
    0.861, recall 0.884; tp 311 fp 50 fn 41; message bootstrap 0.835-0.906; target >= 0.9: not met),
    conditions 62/76 attributed, 71/76 surfaced (2 dropped silently, 3 tied to the wrong term: target
    of none dropped not met). Spent since: after the ninth round's forms, F1 0.891, 65 attributed, 73
    surfaced, none dropped (development figures; the floors follow them)."""
    root = DEV.parents[1]
    _, _, f1, (found, total), counts = term_f1(root / "heldout_terms8" / "messages.yaml")
    floors = (f1 >= 0.890, total, found >= 65, counts["conditions_surfaced"] >= 73)
    assert floors == (True, 76, True, True)


def test_the_ninth_held_out_term_set_at_its_one_measurement() -> None:
    """Written blind on 2026-11-28 (6101575) before that session's term-reader change (requirements
    beside their term, an imperative joined to our commitment, questions about a figure, ", or"
    alternatives, fit-out money, corrections by scope) and amount-reader changes landed, measured once
    after: F1 0.912 (precision 0.912, recall 0.912; tp 414 fp 40 fn 40; message bootstrap 0.885-0.936;
    target >= 0.9: met on the point estimate), conditions 83/94 attributed, 87/94 surfaced (2 dropped
    silently, 5 tied to the wrong term: target of none dropped not met). Development figures since the
    forms of both dropped conditions were read (every conjunct of a conditional clause; the absence of
    a term as the price of the rest): F1 0.914, 85/94 attributed, 89/94 surfaced, none dropped
    silently. The floors sit at those values."""
    root = DEV.parents[1]
    _, _, f1, (found, total), counts = term_f1(root / "heldout_terms9" / "messages.yaml")
    floors = (f1 >= 0.914, total, found >= 85, counts["conditions_surfaced"] >= 89)
    assert floors == (True, 94, True, True)


def test_the_tenth_held_out_term_set_at_its_one_measurement() -> None:
    """Written blind on 2026-11-28 (9140758) before that session's second term-reader change (every
    conjunct of a condition, the absence of a term as a condition) landed, measured once after: F1 0.849
    (precision 0.833, recall 0.865; tp 340 fp 68 fn 53; message bootstrap 0.815-0.882; target >= 0.9: not
    met), conditions 70/85 attributed, 75/85 surfaced, none dropped silently (met for the first time), 10
    tied to the wrong term. Since spent and tuned on (development figures, not blind): round v10's forms
    (test_terms_v10_forms.py) brought it to F1 0.881 (tp 347 fp 48 fn 46), 74/85 attributed, 79/85
    surfaced, none dropped silently, 6 tied to the wrong term. The floors follow those figures."""
    root = DEV.parents[1]
    _, _, f1, (found, total), counts = term_f1(root / "heldout_terms10" / "messages.yaml")
    floors = (f1 >= 0.880, total, found >= 74, counts["conditions_surfaced"] >= 79)
    assert floors == (True, 85, True, True)


def test_the_eleventh_held_out_term_set_at_its_one_measurement() -> None:
    """Written blind on 2026-11-28 (8d8ccd0) before that session's term-reader round (the v10 forms of
    test_terms_v10_forms.py) landed, measured once after at 82d22c3: F1 0.813 (precision 0.847, recall
    0.782; tp 320 fp 58 fn 89; message bootstrap 0.775-0.848; target >= 0.9: not met), conditions 57/88
    attributed, 74/88 surfaced, 8 dropped silently (not met), 6 tied to the wrong term. The floors sit at
    the measured values."""
    root = DEV.parents[1]
    _, _, f1, (found, total), counts = term_f1(root / "heldout_terms11" / "messages.yaml")
    floors = (f1 >= 0.813, total, found >= 57, counts["conditions_surfaced"] >= 74)
    assert floors == (True, 88, True, True)


def test_the_twelfth_held_out_term_set_at_its_one_measurement() -> None:
    """Written blind on 2026-11-28 (3509f5d) before that session's term-reader round (terms written without
    a figure, derived values; candidates from every figure behind the model, which ships off) landed,
    measured once after at 7334513: F1 0.801 (precision 0.775, recall 0.830; tp 292 fp 85 fn 60; message
    bootstrap 0.757-0.841; target >= 0.9: not met; the round-12 reader gave 0.791 on it), conditions 61/94
    attributed, 77/94 surfaced, 9 dropped silently (not met), 8 tied to the wrong term. The floors sit at
    the measured values."""
    root = DEV.parents[1]
    _, _, f1, (found, total), counts = term_f1(root / "heldout_terms12" / "messages.yaml")
    floors = (f1 >= 0.801, total, found >= 61, counts["conditions_surfaced"] >= 77)
    assert floors == (True, 94, True, True)


def test_the_thirteenth_held_out_term_set_at_its_one_measurement() -> None:
    """Written blind on 2026-11-28 (f6e3cee; its brief, unlike the twelfth's, said a term-bound condition's
    value is a term too) before that session's fourteenth term-reader round (no condition dropped silently
    on the spent sets) landed, measured once after at c777a0b: F1 0.873 (precision 0.908, recall 0.840; tp
    315 fp 32 fn 60; message bootstrap 0.835-0.907; target >= 0.9: not met), conditions 71/86 attributed,
    82/86 surfaced, 1 dropped silently (not met), 3 tied to the wrong term. The floors sit at the measured
    values."""
    root = DEV.parents[1]
    _, _, f1, (found, total), counts = term_f1(root / "heldout_terms13" / "messages.yaml")
    floors = (f1 >= 0.8725, total, found >= 71, counts["conditions_surfaced"] >= 82)
    assert floors == (True, 86, True, True)


def test_the_fourteenth_held_out_term_set_at_its_one_measurement() -> None:
    """Written blind on 2026-11-29 (70dccb7) before that session's fifteenth term-reader round (missed
    terms, weekday office days, imperative handovers as conditions) landed, measured once after at 8221011:
    F1 0.855 (precision 0.851, recall 0.859; tp 371 fp 65 fn 61; message bootstrap 0.820-0.889; target
    >= 0.9: not met), conditions 63/83 attributed, 72/83 surfaced, 7 dropped silently (not met), 4 tied to
    the wrong term. The reader before the round (3521455, counted after) gave F1 0.850 with the same 7
    dropped. The floors sit at the measured values."""
    root = DEV.parents[1]
    _, _, f1, (found, total), counts = term_f1(root / "heldout_terms14" / "messages.yaml")
    floors = (f1 >= 0.854, total, found >= 63, counts["conditions_surfaced"] >= 72)
    assert floors == (True, 83, True, True)


def test_the_seventeenth_held_out_term_set_at_its_one_measurement() -> None:
    """Written blind on 2026-11-29 (149827a) before that session's term-reader change (every sentence with
    a figure or a term word the reader cannot fully explain is quoted to the principal, source
    "unexplained") landed, measured once after at 9af93ae with that change in the tree: F1 0.854
    (precision 0.844, recall 0.863; tp 353 fp 65 fn 56; message bootstrap 0.816-0.886; target >= 0.9: not
    met), conditions 58/95 attributed, 91/95 surfaced, 2 dropped silently (target 0: not met), 2 tied to
    the wrong term; 181 unexplained sentences quoted (0.80 a message). The reader before the round
    (c529d2a, counted after) gave F1 0.854 with 85/95 surfaced, 4 dropped silently and 6 on the wrong term.
    The floors sit at the measured values."""
    root = DEV.parents[1]
    _, _, f1, (found, total), counts = term_f1(root / "heldout_terms17" / "messages.yaml")
    floors = (f1 >= 0.8536, total, found >= 58, counts["conditions_surfaced"] >= 91)
    assert floors == (True, 95, True, True)


def test_the_sixteenth_held_out_term_set_at_its_one_measurement() -> None:
    """Written blind on 2026-11-29 (9ad88ed) before that session's nineteenth term-reader round (the
    principal's figure accepted by its noun, terms given up read as 0) and the condition net (shipped
    off) landed, measured once after at 76e0509: F1 0.839 (precision 0.871, recall 0.810; tp 324 fp 48
    fn 76; message bootstrap 0.797-0.877; target >= 0.9: not met), conditions 66/87 attributed, 72/87
    surfaced, 9 dropped silently (not met), 6 tied to the wrong term. The reader before the round
    (c4219e5, counted after) gave F1 0.838 with the same 9 dropped. The floors sit at the measured
    values."""
    root = DEV.parents[1]
    _, _, f1, (found, total), counts = term_f1(root / "heldout_terms16" / "messages.yaml")
    floors = (f1 >= 0.8390, total, found >= 66, counts["conditions_surfaced"] >= 72)
    assert floors == (True, 87, True, True)


def test_the_fifteenth_held_out_term_set_at_its_one_measurement() -> None:
    """Written blind on 2026-11-29 (1c3d7af) before that session's sixteenth term-reader round
    (conditional constructions that had escaped the net) landed, measured once after at 1ad15a3: F1 0.840
    (precision 0.871, recall 0.812; tp 358 fp 53 fn 83; message bootstrap 0.800-0.876; target >= 0.9: not
    met), conditions 55/85 attributed, 70/85 surfaced, 10 dropped silently (not met), 5 tied to the wrong
    term. The reader before the round (adac697, counted after) gave F1 0.841 with the same 10 dropped. The
    floors sit at the measured values."""
    root = DEV.parents[1]
    _, _, f1, (found, total), counts = term_f1(root / "heldout_terms15" / "messages.yaml")
    floors = (f1 >= 0.8395, total, found >= 55, counts["conditions_surfaced"] >= 70)
    assert floors == (True, 85, True, True)
