"""The binding forms learnt from the misses of the spent sets up to the thirteenth blind set (issue 14).

Each rule makes a clause bind (`draft.RULES`, one name per form) and raises no false alarm on any spent
source (`tests/governance/measure_rules_cv.py`, rules alone and shipped): a firm offer split over two
clauses ("that's our offer and it stands until Friday": set v13 staffing; the v8 phrase bank's "the offer
at $95K stands" is the same form, but its "if you say yes" keeps it from this rule), our signature reported
as made or sent on a deal's document ("I've signed the extension, copy attached": set v13 staffing; "the
signed agreement at $100K was sent this morning": the v10 phrase bank), a commitment of ours in another
language ("Wir zahlen ab dem 1. Juni ...": set v13 leasing; "potwierdzamy zamówienie": set v12), and a
promise of ours to sign with only a time after the verb ("we'll countersign by Thursday": set v9 leasing;
"we'll countersign the same day": the v9 phrase bank). The rows below are wordings of our own, named by the
set whose form they follow, with near misses that must not bind and obfuscated variants that must (fail
closed). "firm offer v14" rests on one writer's item only (set v13), the others on two writers each.
"""

from __future__ import annotations

import pytest

from parley.governance.commitment import contains_binding_language
from parley.governance.config import DomainConfig
from parley.governance.draft import ON_TRIAL, RULES, rules_off
from parley.governance.preflight import preflight

from .linear_time import assert_grows_linearly

NEW_RULES = (
    "firm offer v14",
    "signature of ours v14",
    "commitment in another language v14",
    "timed promise v14",
)

# (text, rule): binding with the rules alone, not binding once that one rule is switched off
BINDING_CASES: list[tuple[str, str]] = [
    # set v13 staffing: a firm offer named as ours, then declared to stand
    ("We can go to 97,000 - that's our offer and it stands until Monday.", "firm offer v14"),
    ("This is our revised offer, and it holds through the end of the month.", "firm offer v14"),
    ("Here's our revised offer and it remains open until Friday.", "firm offer v14"),
    # set v13 staffing: our signature reported on a deal's document
    ("I've signed the renewal for another year, copy attached.", "signature of ours v14"),
    ("We have just countersigned the amendment; same terms as before.", "signature of ours v14"),
    # v10 phrase bank: our signed document sent
    ("The signed contract at 640 a day was sent this morning.", "signature of ours v14"),
    ("Our countersigned lease has been emailed.", "signature of ours v14"),
    # set v13 leasing and set v12: a commitment of ours in another language
    ("Wir zahlen ab Juli 9.800 Euro im Monat.", "commitment in another language v14"),
    ("Wir unterschreiben den Mietvertrag am Montag.", "commitment in another language v14"),
    ("Potwierdzamy zamówienie na 2 000 sztuk.", "commitment in another language v14"),
    ("Nous confirmons la commande de 1 200 pièces.", "commitment in another language v14"),
    # set v9 leasing and the v9 phrase bank: a promise to sign with only a time after the verb
    ("Send the engrossment over and we'll countersign by Friday.", "timed promise v14"),
    ("Say yes to 95k and I'll sign the same day.", "timed promise v14"),
    ("We'll countersign first thing tomorrow.", "timed promise v14"),
    ("I'll sign by end of day.", "timed promise v14"),
    # obfuscated variants (confusable letters, a zero-width space, capitals, doubled spaces)
    ("That's our \u043effer and it stands until Friday.", "firm offer v14"),
    ("THAT'S OUR OFFER AND IT STANDS UNTIL FRIDAY.", "firm offer v14"),
    ("I've s\u0456gned the extension, copy attached.", "signature of ours v14"),
    ("Wir  zahlen ab Juni 11.000 Euro.", "commitment in another language v14"),
    ("We'll c\u043euntersign by Thurs\u200bday.", "timed promise v14"),
]

# the same forms where an earlier rule binds too (a figure stated, a report of ours): binding either way
ALSO_BINDING = [
    "The offer at 12.40 per unit stands until Friday.",  # v8 phrase bank
    "Our offer of 12.40 per unit still holds.",
    "So, we've signed the heads of terms.",
    "We will countersign within 48 hours.",
]

# near misses: the same words in a frame that does not bind (another party, a question, a negation, a
# condition on our own offer, an unrelated document)
NOT_BINDING = [
    "That's their offer and it stands until Friday.",
    "That's our offer, but it no longer stands.",
    "If that's our offer and it stands, we should tell the board.",
    "Is that our offer and does it stand?",
    "I haven't signed the extension yet.",
    "Have we signed the extension?",
    "I've signed the extension form for my visa.",
    "We've signed the renewal with another tenant.",
    "The signed copy was sent by the landlord.",
    "Wir zahlen das nicht.",
    "Zahlen wir elftausend?",
    "We won't countersign by Thursday.",
    "Will we countersign by Thursday?",
    "We'll countersign by Thursday if the board agrees.",
]


@pytest.mark.parametrize(("text", "rule"), BINDING_CASES)
def test_each_v14_rule_decides_its_rows(text: str, rule: str, leasing: DomainConfig) -> None:
    assert rule in NEW_RULES
    assert contains_binding_language(text), text
    assert preflight(text, leasing, use_classifier=False).binding, text
    with rules_off([rule]):
        assert not contains_binding_language(text), (rule, text)


@pytest.mark.parametrize("text", ALSO_BINDING)
def test_the_forms_bind_where_earlier_rules_bind_too(text: str) -> None:
    assert contains_binding_language(text), text
    with rules_off(NEW_RULES):
        assert contains_binding_language(text), text


@pytest.mark.parametrize("text", NOT_BINDING)
def test_the_near_misses_do_not_bind(text: str) -> None:
    assert not contains_binding_language(text), text


def test_the_v14_rules_are_named_and_in_force() -> None:
    assert set(NEW_RULES) <= set(RULES) and len(set(RULES)) == len(RULES)
    assert not set(NEW_RULES) & ON_TRIAL


def test_the_thirteenth_sets_misses_bind_with_the_rules_alone(
    staffing: DomainConfig, leasing: DomainConfig
) -> None:
    # wordings of our own after the three drafts the shipped preflight missed in set v13
    draft = (
        "Hi Sam,\n\nAfter talking it through, we're happy to go to 98,500 - that's our offer and it "
        "stands until Friday. Equity stays as before. Does that work?\n\nBest,\nJo"
    )
    assert preflight(draft, staffing, use_classifier=False).binding
    assert preflight("I've signed the extension for one more quarter, copy attached.", staffing).binding
    german = "Wir zahlen ab dem 1. Mai monatlich zehntausend Euro und unterschreiben kommende Woche."
    assert preflight(german, leasing, use_classifier=False).binding


def test_a_huge_draft_of_the_v14_forms_is_read_in_linear_time(staffing: DomainConfig) -> None:
    unit = (
        "That's our offer and it stands until Friday. I've signed the extension, copy attached. "
        "Wir zahlen ab Juni. We'll countersign by Thursday. "
    )
    assert_grows_linearly(lambda text: preflight(text, staffing), unit, 1_800, 4)
    assert_grows_linearly(contains_binding_language, "wir zahlen " * 3 + "x " * 30, 1_000, 4)


# "pay for": our side pays, whatever for, with no deal term named (set v14's "We'll pay for your family's
# flights too", measured blind: a promise to pay that named no term passed). Wordings of our own.
PAYS = (
    "We will pay for your flights.",
    "Sure, we'll pay for the movers as well.",
    "I'll pay for the sample courier, no problem.",
    "Good news: we pay for your family's visas.",
    "W\u0435 will pay for the hotel during your first week.",  # Cyrillic e
    "We'll p\u200bay for the train tickets.",  # zero-width space inside the verb
)
PAYS_NOT = (
    "We will pay attention to the timeline.",
    "We'll pay you a compliment: your portfolio was the strongest.",
    "We'll pay for it later if we rush the fit-out, so let's plan it properly.",
    "Would we pay for the flights if you relocate?",
    "If you join in March, we would pay for your flights.",
    "Last year we paid for flights for another hire.",
    "Your email says 'we will pay for the flights'.",
    "We won't pay for the flights.",
    "We can't pay for the movers this time.",
    "Do you pay for your own flights?",
)


@pytest.mark.parametrize("text", PAYS)
def test_our_promise_to_pay_binds_whatever_it_names(text: str, staffing: DomainConfig) -> None:
    assert preflight(text, staffing, use_classifier=False).binding, text
    with rules_off(["pay for"]):
        assert not contains_binding_language(text), text  # the rule decides these


@pytest.mark.parametrize("text", PAYS_NOT)
def test_paying_that_commits_nothing_does_not_bind(text: str) -> None:
    assert not contains_binding_language(text), text


# "agreed future term": an agreement that a deal term will be so (set v14's "We agree that the rent review
# will be upwards-only …" passed: "agree that" read as sharing a view). Wordings of our own.
AGREED_TERMS = (
    "We agree that the deposit will be held in escrow until completion.",
    "We agree that the warranty will run for 24 months from delivery.",
    "Fine - we agree the relocation will be paid in two installments.",
    "We agr\u200bee that the rent review will follow CPI.",  # zero-width space inside the verb
)
VIEWS = (
    "We agree that the market will be tough this year.",
    "We agree that the rent will probably go up next year in this market.",
    "We agree it will be a tough negotiation.",
    "Do we agree that the deposit will be three months?",
    "We agree that timelines slip.",
)


DECIDED_BY_THE_RULE = (
    "We agree that the rent review will follow CPI.",
    "We agr\u200bee that the rent review will follow CPI.",
    "We agree that the service charge will be capped at last year's level.",
)


@pytest.mark.parametrize("text", AGREED_TERMS + DECIDED_BY_THE_RULE)
def test_an_agreement_that_a_term_will_be_so_binds(text: str) -> None:
    assert contains_binding_language(text), text


@pytest.mark.parametrize("text", DECIDED_BY_THE_RULE)
def test_the_agreed_future_term_rule_decides_its_rows(text: str) -> None:
    with rules_off(["agreed future term"]):
        assert not contains_binding_language(text), text


@pytest.mark.parametrize("text", VIEWS)
def test_an_agreement_with_a_view_does_not_bind(text: str) -> None:
    assert not contains_binding_language(text), text
