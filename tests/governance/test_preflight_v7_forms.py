"""The forms learnt from the spent sixth blind set (v6), each written here in wordings of our own.

Binding forms: the main clause after a condition or a time clause the clause break did not see, a
condition that governs only the nearest predicate, "say yes" in any tense, a commitment verb pointing
back at the terms ("sign on that"), a figure to be paid, terms declared settled by our side, a
disclaimer that stays in its own clause after a semicolon, our assent named as a noun, a participle of
assent after symbols, "all" before a noun. Non-binding forms: a negation across an aside, a gift to our
side, a decision still being made, "including" and "close to", a limit named in any of its usual
grammars (or by the clause beside the figure), a referral to a named decision-maker, the rest of a
quoted e-mail line. Each binding form has its non-binding neighbours; each non-binding form is checked
beside a second, binding clause, which must still bind.
"""

from __future__ import annotations

import time

import pytest

from parley.governance.commitment import binding_cue, contains_binding_language, read_commitments
from parley.governance.config import DomainConfig, load_config
from parley.governance.draft import ON_TRIAL, RULES, parse, rules_off
from parley.governance.normalize import TextRefused
from parley.governance.preflight import preflight

from .linear_time import HANG_GUARD_SECONDS, assert_grows_linearly

# -- binding forms -------------------------------------------------------------------------------------
BINDING_FORMS = [
    # the main clause after a condition (a figure after the comma) or a time clause (no comma at all)
    "As long as the laptop is included, $96K is accepted.",
    "Provided the pallets are free, 2,400 units at $12.10 are confirmed.",
    "After sleeping on it we're going with your 11,300 a month.",
    "Once the paperwork arrived I signed the lease at 10,900.",
    "Following a quick chat with finance we've decided to go ahead at 87 an hour.",
    # a condition on our budget after a second, hedged predicate governs that predicate only
    "We accept $13.40 a unit and might possibly add a second batch if budget allows.",
    "We agree to 10,500 a month but could maybe extend the fit-out period if the board approves.",
    # saying yes, in any tense
    "For the record, we said yes to the 4-day week at $93,000.",
    "We're saying yes to 1,800 units at 12.95.",
    "I've said ok to the 11,000 rent with the break at year three.",
    # a commitment verb pointing back at the terms just stated
    "Base 94k, start 3 May. We'll sign on that.",
    "Rent 9,950, three months free. Happy to commit to it.",
    # a figure to be paid
    "The deposit of 21,000 will be paid by Friday.",
    "Your invoice for 8,400 will be settled in full this week.",
    # terms declared settled by our side, a symbol after an assent, what is ours at a price
    "Net-45, two deliveries a month: it's agreed on our side.",
    "12.70 a unit is a go from us.",
    "agreed \U0001f44d 95k + 3k signing",
    "The 600 crates are ours at 14.10 each.",
    "Our order stands at 900 units at $13.05.",
    # a disclaimer after a semicolon that opens a clause of its own does not reach back
    "The break at year five is agreed; we might look at signage later, no commitment on that.",
    # our assent as a noun, the object of the clause before it across an aside
    "I am writing to confirm, for and on behalf of Northwind Ltd, our acceptance of the revised terms.",
    # a participle of assent after symbols, "all" before a noun
    "\U0001f64c\U0001f58a signing now, 10,200 a month.",
    "We'll buy all 40 pallets at the price you quoted.",
]


@pytest.mark.parametrize("text", BINDING_FORMS)
def test_the_forms_v6_missed_bind(text: str, staffing: DomainConfig) -> None:
    assert contains_binding_language(text), text
    assert preflight(text, staffing).binding


@pytest.mark.parametrize(
    "text",
    [
        "As long as the laptop is included, $96K is acc\u0435pted.",  # Cyrillic e
        "After sleeping on it we're go\u200bing with your 11,300 a month.",  # zero-width space
        "We said y\u0435s to the 4-day week at $93,000.",  # Cyrillic e
        "Base 94k, start 3 May. We'll si\u00adgn on that.",  # soft hyphen
        "The deposit of 21,000 will be p\u0430id by Friday.",  # Cyrillic a
        "12.70 a unit is a go from \u0443s.",  # Cyrillic u
        "We accept $13.40 a unit and m\u0456ght possibly add a second batch if budget allows.",
        "The 600 crates are ours at \uff11\uff14.10 each.",  # fullwidth digits
    ],
)
def test_obfuscated_v6_forms_still_bind(text: str, staffing: DomainConfig) -> None:
    assert preflight(text, staffing).binding, text


@pytest.mark.parametrize(
    "text",
    [
        # a condition on our approval stays a reservation, split or not
        "Once approved we'll sign at $95K.",
        "If the board approves, we'll sign at $95K.",
        "As long as the board approves, we will pay $96K.",
        # a hypothesis stays one, a figure after a comma does not make a question a statement
        "If we were to go to $96K, would you start in May?",
        # a condition on our budget right after the commitment governs it
        "We'd accept $13.40 a unit if budget allows.",
        # said yes to something that is no term, someone else's yes, a yes we did not say
        "We never said yes to 11,000.",
        "They said yes to 11,000 last week.",
        # a back reference without a commitment verb, or negated
        "We'll think on that.",
        "We won't sign on that.",
        # a figure paid in the past by someone else, or a passive that describes how a term works
        "The previous tenant paid 21,000 in 2022.",
        # settled on their side, ours at a price asked about
        "It's agreed on your side, I gather?",
        "Are the 600 crates ours at 14.10 each?",
        # a disclaimer that reserves its own clause, or all of the sentence
        "We accept $95K; subject to board approval.",
        "Net-30 works for us, no commitment until the board meets.",
        # our acceptance as a noun, still pending or negated
        "We cannot confirm, at this stage, our acceptance of the terms.",
        "Thanks for the call, our acceptance of the terms depends on the board.",
    ],
)
def test_the_neighbours_of_the_v6_binding_forms_stay_sendable(text: str) -> None:
    assert not contains_binding_language(text), text


# -- non-binding forms, each with a second binding clause that must still bind ---------------------------
LOOK_ALIKES = [
    # a gift to our side by someone else
    ("The CFO gave us a ceiling of $14 a unit.", "We accept $13 a unit."),
    ("Our director has given me a budget of 10,500 a month.", "We accept 10,400 a month."),
    # a decision still being made
    ("The headcount plan is still being finalised.", "We accept $95K."),
    ("Our Q3 volumes are being confirmed by the plant this week.", "We'll sign at $13 a unit."),
    # "including" as a preposition, "close to" as an adjective
    ("Our ceiling is 11,000 a month including service charge.", "We accept 10,800 a month."),
    ("We're getting close to signing off the budget for 2,000 units.", "We accept $12.90 a unit."),
    # a limit in its usual grammars
    ("I have sign-off up to 95k.", "We accept $94K."),
    ("We're cleared to a maximum of $14 a unit.", "We accept $13 a unit."),
    ("We can offer maximum 11 000 euro a month, no more.", "We accept 10,900 a month."),
    ("Ninety-eight thousand is as high as my director will let me go.", "We accept $97K."),
    ("$14 a unit, that's where my authorisation stops.", "We accept $13 a unit."),
    ("Our limit is clear: 12,000 a month.", "We accept 11,900 a month."),
    # a referral to a named decision-maker of ours
    ("I'll take 10,600 with two months free to our executives on Thursday.", "We accept 10,600."),
    ("Let me bring 88/hr to the project sponsor first.", "We accept 88/hr."),
]


@pytest.mark.parametrize(("look_alike", "binding"), LOOK_ALIKES)
def test_v6_look_alikes_are_sendable_but_not_beside_a_commitment(look_alike: str, binding: str) -> None:
    assert not contains_binding_language(look_alike), look_alike
    assert contains_binding_language(f"{look_alike} {binding}"), binding
    assert contains_binding_language(f"{binding} {look_alike}"), binding


# The rules on trial (`draft.ON_TRIAL`): they clear a cue, but only the set that motivated them supports
# them, so they are off in the shipped preflight (the look-alike binds: fail closed) until one does.
ON_TRIAL_LOOK_ALIKES = [
    ("negation across an aside", "We have read your note and do not, for now, accept it."),
    ("negation across an aside", "We will not, at this point, confirm the order."),
    ("neither nor", "Neither the 2-year nor the 3-year term works for us as drafted."),
    ("alternative", "Two options for Priya: accept 12.9 or push back for 12.5."),
    ("confirm what", "I'll confirm what we can pay once finance has reviewed it."),
    ("computed sum", "Per month that comes to 10,500 on our reading."),
    # (the v10 rule "confirmation of a communication", in force, now clears "We confirm that we have read
    # the draft lease."; the bare heading stays this rule's alone)
    ("perfect report", "Confirmed: I've received your CV."),
    ("thanks", "We are thanking you kindly for the figure of 95,000 a year."),
]


@pytest.mark.parametrize(("rule", "look_alike"), ON_TRIAL_LOOK_ALIKES)
def test_the_rules_on_trial_clear_only_when_switched_on(rule: str, look_alike: str) -> None:
    assert rule in ON_TRIAL
    assert contains_binding_language(look_alike), look_alike  # shipped: the rule is off
    with rules_off((), on_trial=True):
        assert not contains_binding_language(look_alike), look_alike
        assert contains_binding_language(f"{look_alike}\nWe accept $95K."), look_alike
        with rules_off([rule], on_trial=True):
            assert contains_binding_language(look_alike), look_alike


@pytest.mark.parametrize(
    "text",
    [
        "We do not, at this stage, agree, but we accept $95K.",  # a second predicate after the aside
        "The CFO gave us the go-ahead: we accept $13 a unit.",  # a gift, then our own commitment
        "Send us 1,200 units at $12.80.",  # an order to the other side: no subject, not a gift
        "We're including parking at 11,000 a month.",  # a verb after "are"
        "$14 a unit, that's our offer.",  # a figure beside a back reference that names no limit
        "I'll take 10,600 to our executives and we accept the two months free.",
    ],
)
def test_the_non_binding_forms_do_not_reach_past_their_own_words(text: str) -> None:
    assert contains_binding_language(text), text


def test_the_rest_of_a_quoted_email_line_is_the_other_sides_on_trial() -> None:
    quoted = "> On Mon, Ana wrote: final offer, 12.40 a unit, sign today?\nThanks Ana, I'll revert by Friday."
    with rules_off((), on_trial=True):
        reading = read_commitments(parse(quoted))
    assert not reading.findings, reading.findings
    # the same words on a line of ours bind, and so does a reply that takes them up
    assert contains_binding_language("final offer, 12.40 a unit, sign today?\nWe accept 12.40.")
    assert contains_binding_language(quoted + "\nYes, 12.40 is agreed, we'll sign today.")


def test_a_limit_beside_a_figure_clears_only_that_figure() -> None:
    reading = read_commitments(parse("Honestly 85/hr, that's our ceiling."))
    assert not reading.findings and [c.reason for c in reading.cleared] == ["limit"]
    assert contains_binding_language("Honestly 85/hr, that's our ceiling. 80/hr is agreed.")


def test_a_huge_draft_of_the_v6_forms_is_read_in_linear_time(staffing: DomainConfig) -> None:
    unit = (
        "After sleeping on it we're going with your 11,300 a month. "
        "We have read your note and do not, for now, accept it. "
        "$14 a unit, that's where my authorisation stops. "
    )
    assert preflight(unit * 20, staffing).binding and preflight(unit * 80, staffing).binding
    # about 3,000 and 12,000 characters, under the size limit
    assert_grows_linearly(lambda text: preflight(text, staffing), unit, 3_000, 4)


def test_a_draft_past_the_size_limit_is_refused_before_any_scan(staffing: DomainConfig) -> None:
    text = "After sleeping on it we're going with your 11,300 a month. " * 2_000  # over 100,000 characters
    started = time.process_time()
    result = preflight(text, staffing)
    assert result.refused and result.requires_approval and result.checked == ("size",)
    assert time.process_time() - started < HANG_GUARD_SECONDS
    with pytest.raises(TextRefused):
        contains_binding_language(text)


@pytest.mark.parametrize("text", ["", "   ", "\u200b\u200b", ",,,;;;", "After", "As long as ,"])
def test_degenerate_drafts_do_not_break_the_reading(text: str) -> None:
    assert binding_cue(text) is None


def test_each_rule_is_what_decides_its_form_and_can_be_switched_off() -> None:
    assert len(set(RULES)) == len(RULES) and set(RULES) >= ON_TRIAL
    cases = {
        "main clause after a condition": ("As long as the laptop is included, $96K is accepted.", True),
        "nearest predicate": ("We accept $13.40 a unit and might add a batch if budget allows.", True),
        "back reference": ("We're happy to sign on that.", True),
        "figure to be paid": ("Your invoice for 8,400 will be paid this week.", True),
        "not our act": ("The agent has sent us the lease.", False),
        "limit beside a figure": ("Honestly 85/hr, that's where my authorisation stops.", False),
    }
    for rule, (text, binds) in cases.items():
        assert contains_binding_language(text) is binds, (rule, text)
        with rules_off([rule]):
            assert contains_binding_language(text) is not binds, (rule, text)
    with pytest.raises(ValueError, match="unknown rules"), rules_off(["no such rule"]):
        pass


@pytest.mark.parametrize(
    "text",
    [
        "We could explore \u0416150,000 for the role.",  # a Cyrillic letter glued before the figure
        "We could explore 1\u041650,000 for the role.",  # inside it
        "Happy to look at 150,000\u0416 for the role.",  # after it
        "We are exploring 9\u53f7,500 a month.",  # a CJK character inside the figure
    ],
)
def test_a_figure_glued_to_a_non_latin_letter_goes_to_the_principal(text: str) -> None:
    result = preflight(text, load_config("staffing"))
    assert result.requires_approval
    assert any("cannot read" in problem for problem in result.problems)


@pytest.mark.parametrize(
    "text",
    [
        "We could explore 95,000 for the role.",
        "Could you call me on 555 1234 about the Q3 start?",
        "We could explore 15\u041e,000 for the role.",  # a homoglyph O, folded and read as a zero
        "Our caf\u00e9 budget is not part of this; we could explore 95,000.",
    ],
)
def test_readable_figures_raise_no_unreadable_figure_problem(text: str) -> None:
    result = preflight(text, load_config("staffing"))
    assert not any("cannot read" in problem for problem in result.problems)
