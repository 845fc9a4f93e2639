"""The forms learnt from the spent eighth blind set (v8), each written here in wordings of our own.

Binding forms (`draft.RULES`, the patterns of `binding_forms` in the lexicon and two moods): a deal's
document or money declared done on our side ("PO raised: ...", "deposit wired."), a charge let go ("no
need to pay the storage fee, we're writing it off"), terms declared done ("consider the deposit paid",
"treat this email as the tenant's written agreement"), our answer passed on to the other side's principal
("tell him yes", "tell the landlord he has a new tenant", "the space is let"), a bare order to ship
("ship Monday.", "ship fri, 1200 units @ 13.10"), a condition by inversion on the other side's word
("Should you accept the start date, $95K is agreed"), and a relative clause that asks nothing
("..., which we undertake to complete, $100K is accepted"). A disclaimer "subject to ..." no longer reserves
a sentence when it names our own standard terms, a schedule of the deal, or a reservation withdrawn.
Each form has non-binding neighbours that must not flag; obfuscated variants bind (fail closed).
From the spent ninth phrase bank: the counterparty named by its role in a future passive that gives it a
figure ("the candidate will be offered $80K"), terms declared done with the deal named ("consider the
offer made"), and our side told to act on the deal at a figure ("we've told our finance team to set you up
at 95k").
"""

from __future__ import annotations

import time

import pytest

from parley.governance.amounts import unreadable_figures, unreadable_or_glued_figures
from parley.governance.commitment import contains_binding_language, fixed_expressions
from parley.governance.config import DomainConfig
from parley.governance.draft import ON_TRIAL, RULES, rules_off
from parley.governance.preflight import preflight

from .linear_time import HANG_GUARD_SECONDS, assert_grows_linearly

NEW_RULES = (
    "deal document done",
    "fee let go",
    "terms declared done",
    "answer passed on",
    "assent in another language",
    "bare order to execute",
    "relative clause",
    "role noun to be given",
    "our side told to act",
)
# Binding rules that only the source that motivated them (the v8 phrase bank) supports: on trial (off).
NEW_ON_TRIAL = ("inverted condition", "closing assent after a comma", "condition before report")

# (text, binds, reason): the rule named first decides the binding cases (switched off, they no longer bind
# unless another rule reads them); "disclaimer", "lexicon" and "neighbour" rows name no rule.
CASES: list[tuple[str, bool, str]] = [
    # a deal's document or money declared done on our side
    ("PO 7731 released: 3,000 units at 11.20.", True, "deal document done"),
    ("Purchase order issued, 800 brackets at 14.05 each.", True, "settled terms, and deal document done"),
    ("Signed on our side, 10,400 a month from June.", True, "a verb of ours, and deal document done"),
    ("deposit wired.", True, "deal document done"),
    ("Was the PO approved on your side?", False, "neighbour: a question"),
    ("PO drafted but not released; waiting for finance.", False, "neighbour: not done"),
    ("Has the order been released on your side yet?", False, "neighbour: a question"),
    # a charge let go
    ("No need to pay the restocking fee this time, we're writing it off.", True, "fee let go"),
    ("We're writing the surcharge off for this order.", True, "fee let go"),
    ("I'm letting this one go: keep the 300 you'd owe for the late return.", True, "fee let go"),
    ("Is there no need to pay the deposit upfront?", False, "neighbour: a question"),
    ("There's no need to pay anything until the survey is back.", False, "neighbour: nothing let go"),
    # terms declared done
    ("Consider the first month's rent paid.", True, "terms declared done"),
    (
        "Consider the relocation stipend transferred, it left our account this morning.",
        True,
        "terms declared done",
    ),
    (
        "Please treat this message as the company's formal acceptance of the revised package.",
        True,
        "terms declared done",
    ),
    ("Please consider the deposit terms carefully before you reply.", False, "neighbour: no participle"),
    ("Don't consider the deposit paid until the funds clear.", False, "neighbour: negated"),
    # our answer passed on to the other side's principal
    ("Tell her yes, 96k and a March start.", True, "an assent with a figure, and answer passed on"),
    ("Tell the agent yes.", True, "answer passed on"),
    ("Let the owner know he has a tenant from June at 8,800.", True, "answer passed on"),
    ("The second-floor suite is let to us from May at 8,800.", True, "answer passed on"),
    ("Can you tell the landlord yes or no by Friday?", False, "neighbour: a question"),
    ("Tell me whether the landlord has found a tenant already.", False, "neighbour: a question of fact"),
    # a bare order to ship
    ("ok, dispatch Thursday.", True, "bare order to execute"),
    ("deliver asap, 400 units @ 9.95", True, "bare order to execute"),
    ("Don't ship yet.", False, "neighbour: negated"),
    ("Do not dispatch until the PO is approved.", False, "neighbour: negated"),
    ("Ship Monday?", False, "neighbour: a question"),
    # an assent in another language
    ("Perfecto, aceptamos las 2.000 unidades a 12,40.", True, "assent in another language"),
    ("Nous acceptons le loyer de 9 800 par mois.", True, "a figure stated, and assent in another language"),
    ("No aceptamos esa cifra.", False, "neighbour: negated"),
    ("\u00bfAceptamos 95k?", False, "neighbour: a question"),
    # a relative clause that asks nothing (the inverted condition is on trial: see below)
    ("On the service charge, which we have reviewed, 18 per sq ft is accepted.", True, "relative clause"),
    ("Should you want a call, I'm free Tuesday.", False, "neighbour: a condition"),
    ("Should we go to 95k?", False, "neighbour: a question"),
    ("Which we can discuss on Monday.", False, "neighbour: nothing stated"),
    ("What about 95k for the role, with a March start.", False, "neighbour: a proposal asked"),
    # a disclaimer narrowed: our standard terms, a schedule of the deal, a reservation withdrawn
    ("Subject to contract is now lifted: we accept 9,850 per month.", True, "disclaimer"),
    ("We accept 1,500 units at 12.20, subject to our standard terms of purchase.", True, "disclaimer"),
    ("We accept the tender at 12.48, subject to the delivery plan in appendix 2.", True, "disclaimer"),
    ("We accept 12.20 a unit, subject to board approval.", False, "neighbour: a disclaimer"),
    ("Subject to contract, we accept 9,850 per month.", False, "neighbour: a disclaimer"),
    # lexicon: signing electronically
    ("Please DocuSign the offer letter tonight.", True, "lexicon"),
    # learnt from the spent ninth phrase bank: the counterparty named by its role in a future passive
    ("The candidate will be offered $80K.", True, "role noun to be given"),
    ("The supplier will be paid 9.10 per unit from the first delivery.", True, "role noun to be given"),
    ("The successful applicant will be granted a 5,000 signing bonus.", True, "role noun to be given"),
    (
        "The tenant will be sent the lease at 12,000 per month.",
        True,
        "a document sent, and role noun to be given",
    ),
    ("The vendor will be given 12.40 a unit on delivery.", True, "role noun to be given"),
    ("Would the candidate be offered relocation?", False, "neighbour: a question"),
    ("Will the candidate be offered 80k?", False, "neighbour: a question"),
    ("If approved, the candidate would be offered 80k.", False, "neighbour: a condition"),
    ("The candidate will be offered 80k if the board approves.", False, "neighbour: a condition"),
    ("The candidate was offered 80k by another firm.", False, "neighbour: the past, another deal"),
    ("The candidate will be offered a chance to interview.", False, "neighbour: no figure"),
    # terms declared done, with the deal itself named ("consider the offer made")
    ("Consider the offer made.", True, "terms declared done"),
    ("Consider the purchase order made.", True, "terms declared done"),
    ("Consider the lease agreed.", True, "a settled term, and terms declared done"),
    ("Consider the offer we sent last week.", False, "neighbour: no participle"),
    ("Consider the offer carefully.", False, "neighbour: no participle"),
    ("Don't consider the offer made until you have it in writing.", False, "neighbour: negated"),
    # our side told, asked or instructed to act on the deal at a figure
    ("We've told our finance team to set you up at 95k.", True, "our side told to act"),
    ("I've asked payroll to set you up at 71/hour from Monday.", True, "our side told to act"),
    (
        "We have asked procurement to raise the PO at 12.40 a unit.",
        True,
        "a verb of ours, and our side told to act",
    ),
    ("We've asked finance whether they can set you up at 71/hour.", False, "neighbour: a question asked"),
    ("We've told our finance team about your quote.", False, "neighbour: nothing to act on"),
    ("We haven't told our finance team to set you up at 95k yet.", False, "neighbour: negated"),
    ("Should we tell finance to set you up at 95k?", False, "neighbour: a question"),
    # obfuscated: zero-width, Cyrillic homoglyph, soft hyphen
    ("PO r\u200baised: 2,000 units at 11.50.", True, "deal document done"),
    ("Tell h\u0456m yes, 9,900 from March.", True, "answer passed on"),
    ("No need to pay the stor\u00adage fee, we're writ\u00ading it off.", True, "fee let go"),
    ("Consider the deposit pa\u0456d.", True, "terms declared done"),
    ("sh\u200bip fri, 1200 units @ 13.10", True, "bare order to execute"),
    ("The cand\u0456date will be offered $80K.", True, "role noun to be given"),
    ("Consider the off\u00ader ma\u200bde.", True, "terms declared done"),
    ("We've told our fin\u0430nce team to set you up at 95k.", True, "our side told to act"),
]


@pytest.mark.parametrize(("text", "binds", "reason"), CASES)
def test_v9_forms_and_their_neighbours(text: str, binds: bool, reason: str, staffing: DomainConfig) -> None:
    assert contains_binding_language(text) is binds, (reason, text)
    assert preflight(text, staffing, use_classifier=False).binding is binds, (reason, text)


RULE_CASES = [(t, r) for t, b, r in CASES if b and r in NEW_RULES and "\u200b" not in t and "\u0456" not in t]


@pytest.mark.parametrize(("text", "rule"), RULE_CASES)
def test_each_v9_rule_is_what_binds_its_form(text: str, rule: str) -> None:
    with rules_off([rule]):
        assert not contains_binding_language(text), (rule, text)


def test_the_v9_rules_are_named_and_in_force() -> None:
    assert set(NEW_RULES) <= set(RULES) and len(set(RULES)) == len(RULES)
    assert not set(NEW_RULES) & ON_TRIAL  # each is supported by a writer that did not motivate it
    in_force = len(fixed_expressions())
    with rules_off(list(NEW_RULES)):
        assert len(fixed_expressions()) < in_force  # the binding forms' patterns are switched off too


# (text, rule on trial): binds once the rule is switched on, not in the shipped preflight
TRIAL_CASES = [
    ("Should the landlord sign this week, 10,100 a month is agreed.", "inverted condition"),
    ("Fine, 12.60 a unit and no more emails, deal.", "closing assent after a comma"),
    ("Our offer of 96k stands if you say yes.", "condition before report"),
]


@pytest.mark.parametrize(("text", "rule"), TRIAL_CASES)
def test_the_v9_rules_on_trial_bind_only_when_switched_on(text: str, rule: str) -> None:
    assert rule in NEW_ON_TRIAL and rule in ON_TRIAL
    assert not contains_binding_language(text), text  # shipped: the rule is off
    with rules_off((), on_trial=True):
        assert contains_binding_language(text), text
        with rules_off([rule], on_trial=True):
            assert not contains_binding_language(text), text


@pytest.mark.parametrize(
    "text",
    [
        "Should you want a call, I'm free Tuesday.",
        "No deal.",
        "No more haggling, deal?",
        "If you say so, fine by me?",
    ],
)
def test_the_v9_rules_on_trial_leave_their_neighbours_alone(text: str) -> None:
    with rules_off((), on_trial=True):
        assert not contains_binding_language(text), text


@pytest.mark.parametrize(
    ("text", "found"),
    [
        ("We could explore \u0416150,000 and $1,2,3.", ["\u0436150,000", "1,2,3"]),  # both, in text order
        ("We offer 9\u53f7,500 a month.", ["9\u53f7"]),
        ("We offer 150,000 a year.", []),
        ("", []),
    ],
)
def test_one_walk_finds_glued_and_unreadable_figures(text: str, found: list[str]) -> None:
    assert unreadable_or_glued_figures(text) == found
    assert all(f in found for f in unreadable_figures(text))  # the older reading is a part of it


def test_a_huge_draft_of_the_v9_forms_is_read_in_linear_time(staffing: DomainConfig) -> None:
    unit = (
        "PO drafted but not released. Should you want a call, I'm free. "
        "There's no need to pay anything until the survey is back. Don't ship yet. "
    )
    # about 1,800 and 7,300 characters, under the size limit
    assert_grows_linearly(lambda text: preflight(text, staffing), unit, 1_800, 4)
    huge = "ship fri, " * 100_000  # a megabyte: refused before any scan
    started = time.process_time()
    assert preflight(huge, staffing).refused
    assert time.process_time() - started < HANG_GUARD_SECONDS
    assert contains_binding_language("Tell him yes. " * 1_000)  # 14,000 characters: read, and it binds
