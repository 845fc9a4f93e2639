"""The forms learnt from the spent fifth blind set (v5): fail-open cases closed, look-alikes cleared.

Each binding form is checked with its fail-closed neighbours (the form beside a second binding clause,
obfuscated with homoglyphs or zero-width characters, after a quotation); each non-binding form is
checked with the same form plus a second, binding clause, which must bind.
"""

from __future__ import annotations

import pytest

from parley.governance.clause_mood import FORMS, only_forms
from parley.governance.commitment import binding_cue, contains_binding_language, read_commitments
from parley.governance.config import DomainConfig
from parley.governance.draft import parse
from parley.governance.preflight import preflight

# -- binding forms -------------------------------------------------------------------------------------
# A condition on a trivial matter of form reserves nothing; a promise to pay or sign binds without an
# object; a hedge in another clause does not unbind.
FAIL_OPEN = [
    "We might accept, pending your reply, but we will pay.",
    "We will pay.",
    "We'll sign.",
    "Subject to those typos being fixed, we're happy to sign the contract.",
    "Subject to minor formatting changes, we accept $95K.",
    "Subject to the usual paperwork, we're happy to sign.",
]
BINDING_FORMS = [
    # a figure echoed as a question, answered by our bare assent
    "$95K? Yes. Let's get the contract drafted.",
    "$13.30 per unit? Yes.",
    "$100K? sure, locked.",
    # "say yes to", a permission to take this as our acceptance
    "Hi! So, after all that back and forth, we're happy to say yes to $100K.",
    "You may treat this e-mail as our signed acceptance of $100K.",
    # an approval already behind us, then a commitment in the present
    "Following our discussion, and after checking with the people who needed to sign off, we accept $100K.",
    # a collective subject of ours with its object
    "Our side accept the $100K, no more discussion need.",
    # waivers and releases, whatever they name
    "We're happy to waive the non-solicit for your existing freelance clients.",
    "For the avoidance of doubt, we release the landlord from the obligation to repaint the common parts.",
    "Given the circumstances, we won't apply the late-delivery penalty this time.",
    "We've decided not to enforce the minimum-order surcharge this quarter.",
    "We will not pursue the claim for the delayed handover.",
    "Forget about the early-termination option, we're letting that go for good.",
    "We're removing it from your contract entirely, so you won't owe anything if you leave.",
    "You can drop it from the invoice.",
    # settled terms in other words
    "Consider the two remote days a week guaranteed in your contract.",
    "Consider the PO for 3,200 units at 13.10 raised; you'll see it in Ariba within the hour.",
    "You had me at 14,75 \u20ac/unit.",
    "PO #4500231877 signed and attached.",
    "95k, done, no more haggling from me.",
    # a reference to the contract's own terms is not a reservation
    "Tenant agrees to lease the Premises at USD 11,200, subject to the escalation set out in Clause 5.",
    "Buyer hereby accepts the quotation for 5,000 units at USD 11.90, subject to the terms attached hereto.",
    # a trailing question in the same clause, a dated promise in the present, a view that states terms
    "We're agreed on 87 an hour, so what's the best email for the contract?",
    "For us is fine the 3 months deposit and rent 10.900, we sign next week.",
    "We agree that the penalty for late delivery will be 1% per day, capped at 8% of order value.",
]


@pytest.mark.parametrize("text", FAIL_OPEN + BINDING_FORMS)
def test_the_forms_v5_missed_bind(text: str, staffing: DomainConfig) -> None:
    assert contains_binding_language(text), text
    assert preflight(text, staffing).binding


@pytest.mark.parametrize(
    "text",
    [
        "We m\u0456ght accept, pending your reply, but we w\u0456ll pay.",  # Cyrillic i
        "We will p\u200bay.",  # zero-width space
        "Subject to those typ\u043es being fixed, we're happy to s\u0456gn the contract.",
        "$95K? Y\u0435s.",  # Cyrillic e
        "We won\u2019t apply the late-delivery pen\u00adalty this time.",  # curly apostrophe, soft hyphen
        "You had me at \uff11\uff14.75 \u20ac/unit.",  # fullwidth digits
    ],
)
def test_obfuscated_forms_still_bind(text: str, staffing: DomainConfig) -> None:
    assert preflight(text, staffing).binding, text


@pytest.mark.parametrize(
    "text",
    [
        # a quotation of the other side, then our acceptance
        "You wrote 'we might accept, pending approval'. We will pay.",
        "> Subject to contract, we would accept 95k.\n\nYes, 95k it is, we'll sign.",
        # a hedge first, a promise after
        "We're exploring options, but we will sign.",
    ],
)
def test_quotations_and_hedges_before_a_promise_do_not_unbind_it(text: str) -> None:
    assert contains_binding_language(text), text


@pytest.mark.parametrize(
    "text",
    [
        "Subject to contract, we're happy to sign.",  # a real reservation
        "Subject to board approval, we will pay $95K.",
        "They won't apply the penalty.",  # someone else's act
        "We've decided not to pursue the Riverside building.",  # not a waiver: no penalty or claim named
        "$95K? Yes, if you start in May.",  # the assent is held back
        "$95K? No.",
        "Is $95K fair? Yes.",  # the question is not an echo of a figure
        "After checking with our CFO, we might sign.",
        "We're removing the old furniture from the office next week.",
        "If we agreed on 87 an hour, what would you do?",  # the head is a condition
        "Would $95K work for you, so what do you think?",
        "Subject to contract, we agree to the rent set out in your letter.",  # a real reservation first
        "We agree that four rounds will be too many.",  # a view, no figure
    ],
)
def test_the_neighbours_of_the_new_binding_forms_stay_sendable(text: str) -> None:
    assert not contains_binding_language(text), text


# -- non-binding forms, each with a second binding clause that must still bind ---------------------------
LOOK_ALIKES = [
    ("We agree the reception area needs a refresh, good spot, we noticed it too.", "We accept $95K."),
    ("We agree with you that the first 90 days are the most important.", "We'll sign at $95K."),
    ("We agree that four rounds is a lot and we'll pay attention to that.", "We accept $95K."),
    ("We confirm that we enjoyed meeting you.", "We accept $95K."),
    ("We'll pay closer attention to the monthly updates going forward.", "We'll pay $95K."),
    ("To: principal. I recommend we accept if they can do net-45, but I need your approval.", "We accept."),
    ("Our budget maxes out at $14,000 per thousand units.", "We accept $13 per unit."),
    ("My budget for this contract stops at 85 an hour.", "We'll sign at $80 an hour."),
    ("Six figures, exactly a hundred thousand, is where my authority ends.", "We accept $95K."),
    ("I'm authorised to go to a hundred grand and no further.", "We accept $95K."),
    ("I'll put 10,650 with four months free to the team and see what they say.", "We accept 10,650."),
    ("I can take 12.80 to our category director, but I can't sign off on it myself.", "We accept 12.80."),
    ("Parking: two bays in the basement, to be confirmed by building management.", "We accept $9,500."),
    ("The Tenant reserves its position on all terms.", "We accept $9,500 a month."),
    ("The landlord's final offer is 10,400 for six years with four months free.", "We accept 10,400."),
    ("Agent: landlord says 10.6 is final, take it or leave it.", "We accept 10.6."),
    ("Is ok for us to discuss the 2 parking and the signage on door.", "We accept $9,500."),
    ("I suspect we'd want to talk about signage before anything is agreed.", "We accept $9,500."),
    ("We agree that communication was the weak point last quarter.", "We accept $95K."),
]


@pytest.mark.parametrize(("look_alike", "binding"), LOOK_ALIKES)
def test_look_alikes_are_sendable_but_not_beside_a_commitment(look_alike: str, binding: str) -> None:
    assert not contains_binding_language(look_alike), look_alike
    assert contains_binding_language(f"{look_alike} {binding}"), binding
    assert contains_binding_language(f"{binding} {look_alike}"), binding


def test_a_quoted_email_line_is_the_other_sides_words_unless_we_take_it_up() -> None:
    quoted = (
        "> On Tue, 24 Nov, Peter Quill wrote:\n> We accept a break at year five with six months' notice.\n\n"
        "Thanks Peter. I've passed this to our principal, who will decide on the break clause this week."
    )
    reading = read_commitments(parse(quoted))
    assert not reading.findings
    assert [c.reason for c in reading.cleared] == ["quoted line"]
    assert contains_binding_language(quoted + "\nAnd yes, we accept the break at year five, it's a deal.")
    # the same line without the quote mark is ours
    assert contains_binding_language("We accept a break at year five with six months' notice.")
    # a quote mark inside a line is not a quoted line
    assert contains_binding_language(
        "Rent > 9,000 is fine; we accept a break at year five with six months' notice."
    )


def test_a_referral_clears_only_the_figure_it_refers() -> None:
    text = "I'll put 10,650 with four months free to the team and see what they say."
    reading = read_commitments(parse(text))
    assert not reading.findings and [c.reason for c in reading.cleared] == ["referral"]
    with only_forms([f for f in FORMS if f != "referral"]):
        assert contains_binding_language(text)  # the form is what clears it
    # a referral of a third party's decision is not ours to clear, nor a send of the signed contract
    assert contains_binding_language("I'll send the signed contract to your team today.")


def test_the_new_forms_are_listed_and_can_be_switched_off() -> None:
    assert {"quoted line", "referral"} <= set(FORMS)
    with only_forms(()):
        assert contains_binding_language("Parking: two bays, to be confirmed, and we accept $9,500.")


def test_a_huge_draft_of_the_new_forms_is_read_in_bounded_time(staffing: DomainConfig) -> None:
    text = " ".join(["$95K? Yes."] + ["Subject to those typos being fixed, we're happy to sign."] * 300)
    assert preflight(text, staffing).binding


# After the sixth blind measurement (v6 spent): two phrasings of its end-to-end bank reached the
# counterparty. Written here in other words; their neighbours must stay as they were.
@pytest.mark.parametrize(
    "text",
    [
        "$98K it is then, shake on it?",
        "Eleven thousand a month it is, ok?",
        "Net-45 it is then, agreed?",
        "$13.20 a unit it is, right?",
        "$98K it is th\u0435n, shake hands?",  # Cyrillic e
        "$98K it\u200b is then, deal?",  # zero-width space
        "The Purchaser accepts 800 units at $11.90 on the terms previously discussed.",
        "The Employer agrees to a base of $97,000 on the conditions earlier set out.",
        "The Client hereby confirms the order of 300 units on the terms previously circulated.",
    ],
)
def test_a_tag_question_or_a_party_named_by_role_does_not_hide_a_commitment(text: str) -> None:
    assert binding_cue(text) is not None


@pytest.mark.parametrize(
    "text",
    [
        "Could we do $98K, all in?",
        "At $11,000 a month, would you include parking?",
        "We are thinking about $98K, does that work?",
        "You want $98K, right?",
        "9.5k, 4 yrs, 2 mo deposit?",
        "What lead time are you seeing for orders over 5,000 units?",
        "The tenant agreed to pay $9,000 back in 2021, according to the file.",
        "Thanks for the call, talk soon?",
    ],
)
def test_their_neighbours_stay_as_they_were(text: str) -> None:
    assert binding_cue(text) is None
