"""The forms learnt from the spent seventh blind set (v7), each written here in wordings of our own.

Non-binding forms (`clause_mood.FORMS`): a draft that a sentence of its own reserves whole ("not an
offer", "nothing here is final"), a figure waiting for the people who decide on our side ("is with our
CFO", "pending", "my director still has to give the go-ahead"), a figure appraised rather than accepted
("is a bit steep", "let me think it over"), a bare "Agreed" to a view. Grammar rules (`draft.RULES`): more
list introductions (options, where things stand), more words of a limit ("cap", "the maximum ... is", "the
best we can do is"), a limit restated in other units ("i.e.", "which works out at"), a verb form used as a
noun ("signing bonus", "a cap on rent"), a refusal verb ("we decline your counter of ..."), a fixed
expression that still needs to happen ("need to work for us"), a cleared figure staying blank when the
rest of its clause is read, a mark of another deal elsewhere in the sentence, a confirmation of facts
still to come, a figure recommended to our principal. Each non-binding wording is checked beside a
second, binding clause, which must still bind; obfuscated look-alikes are never cleared (fail closed).
"""

from __future__ import annotations

import time

import pytest

from parley.governance.clause_mood import FORMS, only_forms
from parley.governance.commitment import contains_binding_language, read_commitments
from parley.governance.config import DomainConfig
from parley.governance.draft import ON_TRIAL, RULES, parse, rules_off
from parley.governance.preflight import preflight

from .linear_time import HANG_GUARD_SECONDS, assert_grows_linearly

NEW_FORMS = ("disclaimed draft", "awaiting approval", "appraisal", "view agreed")
NEW_RULES = (
    "more list introductions",
    "more limit words",
    "limit restated",
    "verb form as a noun",
    "cleared figure stays blank",
    "past mark in its sentence",
    "confirmation to come",
)
# Rules the leave-one-writer-out check found supported by the one source that motivated them: on trial.
NEW_ON_TRIAL = ("refusal verb", "need to", "recommended figure")

# (form or rule, a non-binding wording of it) -- none of these sentences is in a labelled set.
LOOK_ALIKES = [
    # the whole draft reserved by a sentence of its own
    ("disclaimed draft", "Working notes, not an offer. 96k base, hybrid three days, start in May."),
    (
        "disclaimed draft",
        "Sketch for Tuesday's call: 2,600 units at $12.40, net-45. None of this is agreed yet.",
    ),
    ("disclaimed draft", "Rough numbers: 10,400 a month over five years. Nothing in this message is final."),
    # a figure with the people who decide on our side
    ("awaiting approval", "The 11,200 a month is with our CFO; she will decide on Friday."),
    ("awaiting approval", "92k base pending."),
    ("awaiting approval", "My director still has to give us the go-ahead for 14.20 a unit."),
    ("awaiting approval", "We're waiting on the green light for 88 an hour."),
    ("awaiting approval", "The 2,400 units at $12.90 remain under review with our finance team."),
    # a figure appraised, or deliberated over in the next clause
    ("appraisal", "$13.80 a unit feels rather hefty for a first order."),
    ("appraisal", "10,900 a month looks rather ambitious for the second floor."),
    ("appraisal", "95k is a big jump from where we started."),
    ("appraisal", "Hmm, $9,400 a month... let me think it over with the team."),
    # a bare assent to a view that names no term
    ("view agreed", "Agreed, the first round was a bit rushed."),
    ("view agreed", "I fully agree, the timeline has been tough on everyone."),
    # options and the state of open points, listed
    (
        "more list introductions",
        "Options on the table for the committee:\n- 10,200 a month, 5 years\n- 9,700 a month, 7 years\n"
        "Which do you prefer?",
    ),
    ("more list introductions", "Here's where things stand:\n- base: 93k\n- remote days: open"),
    # a limit named by more words
    ("more limit words", "Budget cap 13.50/unit."),
    ("more limit words", "The best we can do is 88 an hour."),
    ("more limit words", "Ceiling: 13.50 a unit."),
    # a limit restated in other units
    ("limit restated", "Our ceiling is 132k a year, i.e. 11k a month."),
    ("limit restated", "We have a cap of 120,000 a year on rent, which works out at 10,000 monthly."),
    # a verb form used as a noun
    ("verb form as a noun", "Plus a 5k signing bonus, as discussed with HR, remains off the table."),
    ("verb form as a noun", "Deposit 2 months, rent 10.4k, term 5 years... still with our MD"),
    # a mark of another deal elsewhere in the sentence
    (
        "past mark in its sentence",
        "Last spring, for reference, we agreed a comparable package with another analyst at 91k.",
    ),
    # a confirmation of facts still to come
    ("confirmation to come", "I'll confirm the start date once HR has the paperwork ready."),
    ("confirmation to come", "I will confirm the delivery dates after the planning meeting."),
]

ON_TRIAL_LOOK_ALIKES = [
    ("refusal verb", "We decline the agent's counter of 11,400 a month."),
    ("refusal verb", "Respectfully we reject the 104k."),
    ("need to", "We agree that rates rose, but the figures still need to work for us."),
    ("recommended figure", "Internal: recommend 11,100 a month with two months free."),
    ("recommended figure", "My recommendation to Priya is that we go to 94k."),
]

BINDING = "We accept $95K."


@pytest.mark.parametrize(("name", "look_alike"), LOOK_ALIKES)
def test_v7_look_alikes_are_sendable_but_not_beside_a_commitment(name: str, look_alike: str) -> None:
    assert name in NEW_FORMS or name in NEW_RULES
    assert not contains_binding_language(look_alike), look_alike
    assert contains_binding_language(f"{look_alike}\n{BINDING}"), look_alike
    assert contains_binding_language(f"{BINDING}\n{look_alike}"), look_alike


@pytest.mark.parametrize(("name", "look_alike"), LOOK_ALIKES)
def test_each_v7_form_or_rule_is_what_clears_its_look_alike(name: str, look_alike: str) -> None:
    if name in NEW_FORMS:
        with only_forms([f for f in FORMS if f != name]):
            assert contains_binding_language(look_alike), (name, look_alike)
    else:
        with rules_off([name]):
            assert contains_binding_language(look_alike), (name, look_alike)


@pytest.mark.parametrize(
    "text",
    [
        # a commitment verb or a fixed expression is never reserved by a disclaimer of the draft
        "Not an offer yet on the parking. We accept 10,400 a month.",
        "Nothing here is final. Deal at 96k.",
        # what waits for our side is the figure in its own clause, not a commitment beside it
        "The 11,200 a month is with our CFO for signature; we accept it.",
        "We're waiting on the go-ahead from you, and we accept 88 an hour.",
        "92k is agreed, pending the paperwork from you.",
        # a figure appraised and then accepted anyway
        "$13.80 a unit feels hefty, but deal.",
        "95k is close enough, we accept.",
        "95k looks close enough to us, so 95k it is.",
        # an assent to terms, not to a view
        "Agreed, the price is fine.",
        "Agreed, 96k.",
        "Agreed, that works.",
        # a list of options holding a commitment, a summary of what is agreed
        "Options we're weighing:\n- we accept 10,200 a month",
        "Summary of the agreed deal:\n- 9.80 per unit\n- 3,000 units",
        # a limit, then a figure accepted in a clause of its own
        "Ceiling 13.50/unit; we accept 13.20/unit.",
        "Our ceiling is 132k a year, i.e. 11k a month, and we accept 11k a month.",
        # a refusal of one thing beside the acceptance of another
        "We decline the parking fee but accept 11,400 a month.",
        # the work still needed is theirs, then ours is done
        "The figures work for us.",
        # a report carried over to this deal
        "Last spring we agreed a comparable package with another analyst, and we will do the same for you.",
        # a confirmation of the deal itself, or of facts with a figure in them
        "I'll confirm the order once you send the invoice.",
        "We'll confirm the start date and the salary of 96k tomorrow.",
        # advice to the principal beside our own acceptance
        "We recommend 94k to Priya, and we accept 94k.",
        # signing the lease, not a signing bonus
        "We're signing the lease at 10,100 a month today.",
    ],
)
def test_the_binding_neighbours_of_the_v7_forms_still_bind(text: str) -> None:
    assert contains_binding_language(text), text


@pytest.mark.parametrize(
    "text",
    [
        "The 11,200 a month is w\u0456th our CFO; she will decide on Friday.",  # Cyrillic i
        "92k base pend\u200bing.",  # zero-width space
        "$13.80 a unit feels rather h\u0435fty for a first order.",  # Cyrillic e
        "Working notes, not an of\u00adfer. 96k base, hybrid three days.",  # soft hyphen
        "Our ceiling is 132k a year, i.e. 11k a m\u043enth.",  # Cyrillic o
        "Agr\u0435ed, the first round was a bit rushed.",  # Cyrillic e
        "We d\u0435cline the agent's counter of 11,400 a month.",  # Cyrillic e
    ],
)
def test_obfuscated_v7_look_alikes_are_never_cleared(text: str, staffing: DomainConfig) -> None:
    result = preflight(text, staffing)
    assert result.binding and result.requires_approval, text


@pytest.mark.parametrize(
    "text",
    [
        "We acc\u0435pt 10,400 a month. Nothing in this message is final.",  # Cyrillic e
        "The 11,200 a month is with our CFO; we a\u200bccept it.",  # zero-width space
        "95k is a big jump, but we ac\u00adcept.",  # soft hyphen
    ],
)
def test_obfuscated_commitments_beside_v7_look_alikes_bind(text: str, staffing: DomainConfig) -> None:
    assert preflight(text, staffing).binding, text


def test_the_new_forms_and_rules_are_named_and_in_force() -> None:
    assert set(NEW_FORMS) <= set(FORMS) and len(set(FORMS)) == len(FORMS)
    assert set(NEW_RULES) <= set(RULES) and len(set(RULES)) == len(RULES)
    assert not set(NEW_RULES) & ON_TRIAL and set(NEW_ON_TRIAL) <= ON_TRIAL


def test_the_rest_of_a_quoted_line_is_in_force_since_a_second_writer_supports_it() -> None:
    # v6 motivated the rule; v7 (another writer) supports it: "> Final offer: ..., net 45" quoted from them
    assert "rest of a quoted line" in RULES and "rest of a quoted line" not in ON_TRIAL
    quoted = "> On Tue, Bo wrote:\n> Final offer: 13.10 a unit, net 30, free pallets.\n\nThanks Bo, noted."
    assert not contains_binding_language(quoted)
    assert contains_binding_language(f"{quoted}\n{BINDING}")
    assert contains_binding_language(quoted + "\nYes, 13.10 a unit is agreed.")
    with rules_off(["rest of a quoted line"]):
        assert contains_binding_language(quoted)


@pytest.mark.parametrize(("rule", "look_alike"), ON_TRIAL_LOOK_ALIKES)
def test_the_v7_rules_on_trial_clear_only_when_switched_on(rule: str, look_alike: str) -> None:
    assert rule in NEW_ON_TRIAL
    assert contains_binding_language(look_alike), look_alike  # shipped: the rule is off (fail closed)
    with rules_off((), on_trial=True):
        assert not contains_binding_language(look_alike), look_alike
        assert contains_binding_language(f"{look_alike}\n{BINDING}"), look_alike
        with rules_off([rule], on_trial=True):
            assert contains_binding_language(look_alike), look_alike


def test_a_cleared_look_alike_names_its_form() -> None:
    reading = read_commitments(parse("92k base pending."))
    assert not reading.findings and [c.reason for c in reading.cleared] == ["awaiting approval"]
    reading = read_commitments(parse("Working notes, not an offer. 96k base, start in May."))
    assert not reading.findings and {c.reason for c in reading.cleared} == {"disclaimed draft"}


def test_a_huge_draft_of_the_v7_forms_is_read_in_linear_time(staffing: DomainConfig) -> None:
    unit = (
        "The 11,200 a month is with our CFO; she will decide on Friday. "
        "$13.80 a unit feels rather hefty for a first order. "
        "Our ceiling is 132k a year, i.e. 11k a month. "
        "Agreed, the first round was a bit rushed. "
    )
    # about 3,000 and 12,000 characters, under the size limit
    assert_grows_linearly(lambda text: preflight(text, staffing), unit, 3_000, 4)
    huge = "Nothing here is final. " + "96k base, start in May. " * 700  # one disclaimer, many figures
    started = time.process_time()
    assert preflight(huge, staffing).requires_approval  # too many figures to read: the principal decides
    assert time.process_time() - started < HANG_GUARD_SECONDS


@pytest.mark.parametrize(
    ("text", "binds"),
    [
        ("", False),
        ("   ", False),
        ("\u200b", False),
        ("pending", False),
        ("i.e.", False),
        ("Options:\n-\n-", False),
        ("Cap", False),
        # a bare assent with nothing to agree with is an assent (fail closed), whatever punctuation follows
        ("Agreed,", True),
        ("Agreed, ,", True),
        ("Confirmed:", True),
        ("Confirmed: :", True),
    ],
)
def test_degenerate_drafts_do_not_break_the_v7_forms(text: str, binds: bool) -> None:
    assert contains_binding_language(text) is binds, text
