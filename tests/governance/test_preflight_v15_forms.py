"""A stricter structural default learnt from the blind misses of v10-v14 together (issue 14, round 15).

One rule, "decision structure v15" (`draft.RULES`), makes a declarative clause bind by its structure
rather than by a phrase: our side decides, approves or confirms a deal term ("I confirm Incoterms FCA
Ningbo": set v14), declares the terms final ("That's final and it's in the letter I sent": set v14), tells
the counterparty to go ahead with the deal's object ("Sample approved, go to mass production"; "Please
prepare the renewal deed": set v14 and its leasing drafts), or names our role as taking on a cost ("The
tenant will bear the cost of ...": set v14 leasing). A clause that is negated, pending ("until", "once",
"yet") or conditional is left to the other rules, and the allow-list of non-binding forms still applies.
The rows below are wordings of our own, named by the set whose form they follow, with near misses that
must not bind and obfuscated variants that must (fail closed).
"""

from __future__ import annotations

import pytest

from parley.governance.commitment import contains_binding_language
from parley.governance.config import DomainConfig, load_config
from parley.governance.draft import ON_TRIAL, RULES, rules_off
from parley.governance.preflight import preflight

from .linear_time import assert_grows_linearly

RULE = "decision structure v15"

# binding with the rules alone, not binding once the rule is switched off
DECIDED = [
    # set v14 procurement: a go-ahead to the counterparty on the deal's object
    "Sample approved \u2705 go to mass production.",
    "Looks good, proceed with the purchase order.",
    # set v14 leasing: a go-ahead to prepare the deal's document
    "Please prepare the renewal deed.",
    "Ok, draw up the lease on that basis.",
    # set v14 procurement: our side confirms a deal term
    "I confirm Incoterms FCA Ningbo.",
    "We approve the 2% deposit.",
    # set v14 staffing: terms declared final
    "That's final and it's in the letter I sent.",
    "The price is now settled, thanks for the quick turnaround.",
    # set v14 leasing: our role noun takes on a cost
    "The tenant will bear the cost of the fire door upgrade.",
    "The buyer will cover the inspection fee.",
    # obfuscated variants (confusable letters, a zero-width space, capitals)
    "Pl\u0435ase prepare the renewal deed.",
    "I c\u043enfirm Incoterms FOB Shenzhen.",
    "THAT'S FINAL.",
    "The ten\u200bant will bear the cost of the new signage.",
]

# near misses: the same words in a frame that does not bind (a question, a negation, a pending step, a
# condition, another party)
NOT_BINDING = [
    "Is that final?",
    "That's not final yet.",
    "Don't go to mass production until we sign.",
    "Could you send the contract so we can review it?",
    "We haven't decided to renew yet.",
    "If the sample is approved, go to production.",
    "The landlord will bear the cost of the roof repair.",
    "Will the tenant bear the cost of the sprinkler work?",
    "I confirm receipt of your email.",
    "We confirm receipt of your offer of $13.30 per unit and will respond by Friday.",  # sets v4-v10
    "I accept that our first offer was on the low side.",  # set v2
]


@pytest.mark.parametrize("text", DECIDED)
def test_the_decision_structure_binds(text: str, leasing: DomainConfig) -> None:
    assert contains_binding_language(text), text
    assert preflight(text, leasing, use_classifier=False).binding, text


@pytest.mark.parametrize("text", NOT_BINDING)
def test_the_near_misses_do_not_bind(text: str) -> None:
    assert not contains_binding_language(text), text


def test_the_rule_decides_the_v14_misses() -> None:
    for text in ("Please prepare the renewal deed.", "I confirm Incoterms FCA Ningbo.", "THAT'S FINAL."):
        with rules_off([RULE]):
            assert not contains_binding_language(text), text


def test_the_rule_is_named_and_in_force() -> None:
    assert RULE in RULES and RULE not in ON_TRIAL


def test_a_huge_draft_of_the_v15_forms_is_read_in_linear_time(staffing: DomainConfig) -> None:
    unit = "Sample approved, go to mass production. I confirm Incoterms FCA Ningbo. That's final. "
    assert_grows_linearly(lambda text: preflight(text, staffing), unit, 1_800, 4)
    assert_grows_linearly(contains_binding_language, "go to " * 40 + "x " * 30, 1_000, 4)


# --- Part 2 (round 15): false alarms by the frame of the clause that fires -------------------------------
# The shipped false alarms of the spent sets (229) were sorted by the frame of the clause whose cue fires.
# Two frames are read as non-binding in their own clause, each kept only where the leave-one-writer-out
# check supports it (the one set left out, the other still clears its own false alarm):
# - a condition on a future approval by our own side, an inverted "should" opening the sentence (sets v10
#   and v11: a disclaimer of the lexicon);
# - a limit our approver sets or approves (sets v13 and v14: a limit word of `limits_v10`).
# Neither adds a miss on any spent source; the binding rows beside them (and their obfuscated variants)
# still bind.

APPROVAL_PENDING = [
    # set v10 procurement
    "Should our principal approve the budget, we'd be ready to order around 5,000 units in January.",
    # set v11 procurement
    "Should our principal approve it, we'd be ready to place an order for 4,000 units at around 13.",
    # set v11 leasing
    "Should our board approve the budget in January, we would then be able to discuss a 7-year term.",
    "Should my manager sign off, we could look at 96k.",
]

APPROVER_LIMIT = [
    # set v14 procurement
    ("Heads up: finance set a hard stop at 14 per unit for this category.", "procurement"),
    # set v13 procurement
    ("For transparency, finance has set 14.00 per piece as the hard maximum for this SKU.", "procurement"),
    # set v13 staffing
    ("Our hiring plan was approved at 100,000 max for this level.", "staffing"),
]

# near misses that must still bind: the approval is the counterparty's, the commitment stands in its own
# sentence or beside the limit, or the verb is our side's approval of the deal; obfuscated variants
STILL_BINDING = [
    ("Should the supplier approve the change, we will order 5,000 units.", "procurement"),
    ("We accept 12.10 per unit. Should our board approve, we may extend.", "procurement"),
    ("We accept 12.10 per unit. Sh\u043euld our board approve, we may extend.", "procurement"),
    ("Finance set the price at 14 per unit, our max, and we accept it.", "procurement"),
    ("Fin\u0430nce set a hard stop at 14 per unit, so we accept 13.", "procurement"),
    ("Our board has approved the 14 per unit price; please send the contract.", "procurement"),
    ("Finance approved the order at 14 per unit.", "procurement"),
    ("We approved 14 per unit, the maximum we discussed.", "procurement"),
]


@pytest.fixture
def configs() -> dict[str, DomainConfig]:
    return {name: load_config(name) for name in ("staffing", "procurement", "leasing")}


@pytest.mark.parametrize("text", APPROVAL_PENDING)
def test_a_condition_on_our_future_approval_does_not_bind(text: str) -> None:
    assert not contains_binding_language(text), text


@pytest.mark.parametrize(("text", "domain"), APPROVER_LIMIT)
def test_a_limit_our_approver_set_does_not_bind(
    text: str, domain: str, configs: dict[str, DomainConfig]
) -> None:
    assert not preflight(text, configs[domain], use_classifier=False).binding, text


def test_the_approver_limit_is_a_limit_word_of_v10() -> None:
    text, domain = APPROVER_LIMIT[0]
    with rules_off(["limit words v10"]):
        assert preflight(text, load_config(domain), use_classifier=False).binding


@pytest.mark.parametrize(("text", "domain"), STILL_BINDING)
def test_the_near_misses_of_the_new_frames_still_bind(
    text: str, domain: str, configs: dict[str, DomainConfig]
) -> None:
    assert preflight(text, configs[domain], use_classifier=False).binding, text


def test_the_new_frames_are_read_in_linear_time() -> None:
    assert_grows_linearly(contains_binding_language, "should our " + "board " * 50 + "x ", 1_000, 4)
    unit = "finance set " + "a " * 30 + "; "
    assert_grows_linearly(contains_binding_language, unit, 1_000, 4)


# --- Part 2 (round 15): a right or a fee our side gives up (the decision structure's fifth form) ----------
# Two writers' shipped misses: set v12 leasing ("we give that up in exchange for the three free months")
# and the train set ("Fablecraft Studios hereby waives the background-check fee").
WAIVED = [
    "No need to keep the first-refusal right open \u2014 we give that up in exchange for two free months.",
    "Harbour Labs hereby waives the placement fee we normally charge.",
    "We waive the early-termination fee.",
    "W\u0435 w\u0430ive the deposit top-up.",  # confusable letters
]
WAIVED_NEAR_MISSES = [
    "We won't give up the parking space.",
    "We give up on this one, thanks.",
    "I give up trying to reach you by phone!",
]


@pytest.mark.parametrize("text", WAIVED)
def test_a_right_or_fee_we_give_up_binds(text: str) -> None:
    assert contains_binding_language(text), text


@pytest.mark.parametrize("text", WAIVED_NEAR_MISSES)
def test_a_refused_or_idle_give_up_does_not_bind(text: str) -> None:
    assert not contains_binding_language(text), text


# -- after the sixteenth measurement: a courtesy that carries the act (phrase bank v16) ---------------------
# The one slip of the v16 end-to-end run ("It would be our pleasure to confirm $14 per unit.") reached the
# counterparty unapproved: "would" read as a hypothesis. A courtesy ("our pleasure", "an honour", "a
# privilege") to confirm, accept, sign, order or pay carries the act; no spent source has the form, so it
# adds no false alarm there.
COURTESY = [
    "It would be our pleasure to confirm $14 per unit.",
    "It would be our pleasure to accept your offer.",
    "It'd be an honour to accept 95k and start on the 3rd.",
    "It will be a privilege to sign the lease at 9,800 a month.",
    "It w\u043euld be our pleasure to c\u043enfirm $14 per unit.",  # Cyrillic o twice
    "It would be our pleas\u200bure to confirm $14 per unit.",  # a zero-width space
]
COURTESY_NEAR_MISSES = [
    "It would be a pleasure to meet you next week.",
    "It would be our pleasure to discuss $14 per unit on a call.",
    "It would be our pleasure to confirm receipt of your offer.",
    "It would be our pleasure to confirm whether the slot is free.",
]


@pytest.mark.parametrize("text", COURTESY)
def test_a_courtesy_that_carries_the_act_binds(text: str) -> None:
    result = preflight(text, load_config("procurement"))
    assert result.binding and result.requires_approval


@pytest.mark.parametrize("text", COURTESY_NEAR_MISSES)
def test_a_courtesy_with_no_deal_act_does_not_bind(text: str) -> None:
    assert not preflight(text, load_config("procurement")).binding
