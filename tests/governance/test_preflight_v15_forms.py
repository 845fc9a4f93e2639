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
from parley.governance.config import DomainConfig
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
