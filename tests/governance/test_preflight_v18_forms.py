"""The binding forms learnt from the spent v18 set (issue 14), with near misses and adversarial input.

Measured per writer with the rules alone (`tests/governance/measure_rules_cv.py`): a back reference
through the preposition of a figure ("Happy to sign at that": set v18 leasing only), "let's say" straight
before a figure in a sentence that imagines nothing ("Let's say 74 an hour and call it a day": set v18;
set v17's "Sure, let's say 30 days of notice instead of 60" has the same form), the fixed "the job is
yours" with "is" contracted ("The offer's yours at 70k", "the title's yours": two v18 misses; sets v4, v8,
v9, v11, v15 and v17 use the contraction in drafts that other cues catch), our side having a deal's
document done ("I'll have the contract amended and sent by lunch": sets v13, v14, v18 and seven phrase
banks, none non-binding), "we'll have" as an order with its price (sets v13, v16, v18: two misses) and
the idiom "we'll take it from here" (false alarms of the spent train set and of v18 staffing and
leasing). The rows below are wordings of our own, not the sets' texts. The foreign-script rule (the lead's,
`commitment.FOREIGN_SCRIPT`) is tested here too.
"""

from __future__ import annotations

import pytest

from parley.governance.commitment import FOREIGN_SCRIPT, contains_binding_language, find_commitments
from parley.governance.config import DomainConfig
from parley.governance.draft import ON_TRIAL, RULES, rules_off
from parley.governance.preflight import preflight

from .linear_time import assert_grows_linearly

NEW_RULES = (
    "back reference at a figure",
    "let's say a figure",
    "contracted is before yours",
    "our document to be done",
    "we'll have goods at a price",
)

# (text, rule): binding with the rules alone, not binding once that one rule is switched off
BINDING_CASES: list[tuple[str, str]] = [
    ("We can stretch to 9,900 a month. Glad to sign at that.", "back reference at a figure"),
    ("Fine by the board. We'll countersign at that.", "back reference at a figure"),
    ("Let's say 81 an hour and leave it there.", "let's say a figure"),
    ("OK, let's say $12.40 a unit for the whole run.", "let's say a figure"),
    ("Let's say 10,750 a month, first month free.", "let's say a figure"),
    ("The contract's yours at 88k, start in May.", "contracted is before yours"),
    ("Fair enough - the desk's yours.", "contracted is before yours"),
    ("The role's yours at 91,000.", "contracted is before yours"),
    ("I'll have the PO raised this afternoon.", "our document to be done"),
    ("We'll have the offer letter drafted today.", "our document to be done"),
    ("We'll have the 60 drums of solvent at your price.", "we'll have goods at a price"),
    # obfuscated inside the new cues: a Cyrillic letter, a zero-width space, a soft hyphen, capitals
    ("Happy to s\u0456gn at that.", "back reference at a figure"),
    ("Let\u2019s s\u200bay 81 an hour and leave it there.", "let's say a figure"),
    ("The off\u00ader's yours at 88k.", "contracted is before yours"),
    ("I'LL HAVE THE CONTRACT AMENDED AND SENT TONIGHT.", "our document to be done"),
    ("We'll h\u0430ve the 60 drums at your price.", "we'll have goods at a price"),
]

# near misses: the same words in a frame that does not bind
NOT_BINDING = [
    "Happy to sign at that point, once the board has met?",
    "Would you sign at that?",
    "They signed at that price last year, we heard.",
    "Let's say, for argument's sake, 81 an hour - how many days could you give us?",
    "Let's say 81 an hour; would you drop the notice period?",
    "Let's say we went to 11k, hypothetically.",
    "Let's say hypothetically 81 an hour.",
    "The decision's yours.",
    "Is the contract's wording yours or the landlord's?",
    "We'll have the numbers at 5pm.",
    "We'll have a think over the weekend.",
    "I'll have a look at the contract tonight.",
    "Thanks for the call - we'll take it from here internally and revert.",
    "I'll take it from here with our surveyor.",
    "If the board agrees, I'll have the PO raised this afternoon.",
]

# binding either way: another cue of the same clause or sentence binds as well
ALSO_BINDING = [
    "We'll take it from here - our bank will release the deposit of 9,000 today.",
    "We'll take it at 11,900 a month.",
    "Proceed at 95k; we'll take it from here.",
    "I'll have the 2 spare pallets for 1,100 each.",
]


@pytest.mark.parametrize(("text", "rule"), BINDING_CASES)
def test_each_v18_rule_decides_its_rows(text: str, rule: str, leasing: DomainConfig) -> None:
    assert rule in NEW_RULES
    assert contains_binding_language(text), text
    assert preflight(text, leasing, use_classifier=False).binding, text
    with rules_off([rule]):
        assert not contains_binding_language(text), (rule, text)


@pytest.mark.parametrize("text", NOT_BINDING)
def test_the_near_misses_do_not_bind(text: str) -> None:
    assert not contains_binding_language(text), text


@pytest.mark.parametrize("text", ALSO_BINDING)
def test_other_cues_still_bind(text: str) -> None:
    assert contains_binding_language(text), text


def test_the_v18_rules_are_named_and_in_force() -> None:
    assert set(NEW_RULES) <= set(RULES) and len(set(RULES)) == len(RULES)
    assert not set(NEW_RULES) & ON_TRIAL


def test_a_huge_draft_of_the_v18_forms_is_read_in_linear_time(staffing: DomainConfig) -> None:
    unit = (
        "Happy to sign at that. Let's say 81 an hour and leave it there. The offer's yours at 88k. "
        "I'll have the contract amended and sent tonight. We'll have the 60 drums at your price. "
        "We'll take it from here. "
    )
    assert_grows_linearly(lambda text: preflight(text, staffing), unit, 1_800, 4)
    # a long run inside the bounded gaps of the new patterns, without the word that ends them
    assert_grows_linearly(contains_binding_language, "we'll have the " + "drum " * 40, 1_000, 4)
    assert_grows_linearly(contains_binding_language, "let's say 1 " * 20, 1_000, 4)


# the foreign-script rule: a clause mostly in a script the checks do not read binds (fails closed)
FOREIGN = [
    "\u627f\u77e5\u3057\u307e\u3057\u305f\u3002\u305d\u306e\u6761\u4ef6\u3067\u5951\u7d04\u3057\u307e\u3059\u3002",
    "\u041c\u044b \u0441\u043e\u0433\u043b\u0430\u0441\u043d\u044b"
    " \u043d\u0430 95 000 \u0432 \u043c\u0435\u0441\u044f\u0446.",  # Russian, mostly folded to Latin
    "\u041f\u043e\u0434\u043f\u0438\u0448\u0435\u043c"
    " \u0434\u043e\u0433\u043e\u0432\u043e\u0440 \u0437\u0430\u0432\u0442\u0440\u0430.",
    "\u0646\u0648\u0627\u0641\u0642 \u0639\u0644\u0649 \u0627\u0644\u0633\u0639\u0631",
    # a Japanese sentence inside an English clause
    "Quick update: \u6761\u4ef6\u306f\u3059\u3079\u3066\u627f\u8afe\u3057\u307e\u3059, see you Monday.",
]
FOREIGN_NOT = [
    "Thanks, \u7530\u4e2d\u3055\u3093, talk soon.",  # a short name in another script
    "Great chatting, \u041e\u043b\u044c\u0433\u0430.",
    "S\u0435\u0435 y\u043eu \u043en M\u043enday, th\u0430nks.",  # Latin lookalikes, folded first
]


@pytest.mark.parametrize("text", FOREIGN)
def test_a_clause_in_a_script_not_read_binds(text: str, staffing: DomainConfig) -> None:
    found = find_commitments(text)
    assert found and found[0].reason == FOREIGN_SCRIPT, text
    assert preflight(text, staffing, use_classifier=False).binding, text
    with rules_off(["foreign script"]):
        assert all(f.reason != FOREIGN_SCRIPT for f in find_commitments(text))


@pytest.mark.parametrize("text", FOREIGN_NOT)
def test_a_short_foreign_name_or_folded_lookalikes_do_not_bind(text: str) -> None:
    assert not contains_binding_language(text), text


def test_lookalikes_are_folded_before_the_script_is_judged() -> None:
    found = find_commitments("We \u0430ccept the \u043effer.")
    assert found and found[0].reason != FOREIGN_SCRIPT


def test_a_long_foreign_draft_is_read_in_linear_time() -> None:
    assert_grows_linearly(contains_binding_language, "\u5951\u7d04\u3057\u307e\u3059\u3002 ok. ", 1_000, 4)
