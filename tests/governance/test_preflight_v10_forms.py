"""The non-binding forms learnt from the spent ninth blind set (v9), each written here in wordings of our own.

Each form recurs in the false alarms of two writers or more (`measure_rules_cv.py`: v9 and at least one
earlier set) and clears only the clause it governs (`draft.RULES`, one name per form, and the form "wish
held back" of `clause_mood.FORMS`): a walk-away point or a limit named in another language ("our walk-away
is 14 a unit", "unser Limit liegt bei 12.000 EUR"), an authority granted with its bound ("finance signed
off on rent up to 12k"), another language's thanks for the other side's figure ("Gracias por la propuesta
de 95k"), a confirmation of a fact of the correspondence ("This email confirms we have received your
quote"), a report of the people of a past deal ("the last two engineers we hired signed at 91k"), a comment
after a report (", which is why we're pushing for a break now"), a past verb of ours beside a cleared
report, a view agreed whose subject only names a term as a modifier ("we agree the freight market is a
mess"), a figure appraised in a learner's English or against its worth ("is little high for us", "far
above what this space is worth"), a market rate ("comparable space is going for 11k"), and a wish of ours
held back by the clause after it ("We'd like to settle the invoice by the 5th, but I'll need finance to
confirm"). Every form has binding neighbours that must still bind; obfuscated variants bind (fail closed).
The spent tenth blind set's misses add binding rows (issue 14, "v11" here): a "to say" before our clause
is news of ours, not an imagined case ("happy to say we can offer you the role at $97,000": "say we ..."
imagines only when bare), a wish held back by a rule of ours ("our policy doesn't let me approve ..."), a
recap lead ("As discussed, ...") that governs only the clause it opens (and the next when it stands
alone), and a day written short after a bare verb of execution ("Sign Fri.").
A referral to a department ("I'll take it to procurement", "$13.15 is what I'm pitching to my boss") is on
trial (`draft.ON_TRIAL`): only the writer who motivated it supports it.
"""

from __future__ import annotations

import time

import pytest

from parley.governance.clause_mood import FORMS, only_forms
from parley.governance.commitment import contains_binding_language
from parley.governance.config import DomainConfig
from parley.governance.draft import ON_TRIAL, RULES, rules_off
from parley.governance.preflight import preflight

from .linear_time import HANG_GUARD_SECONDS, assert_grows_linearly

NEW_RULES = (
    "limit words v10",
    "limit signed off",
    "thanks in another language",
    "confirmation of a communication",
    "past parties v10",
    "comment after a report",
    "past verbs of a report",
    "view with a modified term",
    "appraisal v10",
    "market rate",
)
NEW_FORM = "wish held back"
# A form only the writer who motivated it supports (the v9 staffing and procurement set): on trial (off).
NEW_ON_TRIAL = ("referral v10",)
# From the spent tenth blind set (its misses, issue 14): grammar rules that make a clause bind again, each
# with the binding rows it decides; their non-binding neighbours ("no cue: ...") hold no cue at all.
BINDING_RULES_V11 = ("recap lead governs one clause", "short day after a bare verb")

# (text, binds, reason): a non-binding row names the rule (or form) that clears it; a binding row is a
# neighbour that must still bind ("neighbour: ...").
CASES: list[tuple[str, bool, str]] = [
    # a walk-away point, a limit named in another language, a reach bounded by "only ... up to"
    ("Between us, our walk-away is 96 grand.", False, "limit words v10"),
    ("13.40 a unit is our walk-away price, so there is little room.", False, "limit words v10"),
    ("Notre plafond est 11 500 par mois, pas plus.", False, "limit words v10"),
    ("Der Preis ist unser Limit: 13,90 pro Stueck.", False, "limit words v10"),
    ("The model only works up to 13 dollars a unit for us.", False, "limit words v10"),
    ("Our board has approved a rent of at most 11,800 a month.", False, "limit words v10"),
    ("We accept 96k, and that is our walk-away.", True, "neighbour: a verb of ours beside the limit"),
    ("Our walk-away is 96k, and we will pay 94k.", True, "neighbour: a promise beside the limit"),
    ("We approve 11,800 a month.", True, "neighbour: an approval with no bound"),
    ("Das Budget erlaubt maximal 13,50 EUR pro Stueck.", False, "limit words v10"),
    ("We offer maximal flexibility and 12.40 a unit.", True, "neighbour: 'maximal' before no figure"),
    # an authority granted with its bound ("signed off" inside the limit's words)
    ("Our CFO signed off on a budget of up to 13.50 per unit.", False, "limit signed off"),
    ("Head office signed off a maximum of 12,200 a month for this floor.", False, "limit signed off"),
    ("Our CFO signed off on 13.50 per unit.", True, "neighbour: signed off with no bound"),
    ("Signed off: 12,200 a month from June.", True, "neighbour: signed off, terms stated"),
    # thanks in another language for the other side's figure
    ("Danke fur das Angebot von 12,40 EUR pro Stuck, wir melden uns.", False, "thanks in another language"),
    ("Grazie per la proposta di 88k, ne parlo con il team.", False, "thanks in another language"),
    ("Gracias, 95k works for us.", True, "neighbour: an assent after the thanks"),
    ("Merci, we accept 11,80 a unit.", True, "neighbour: a verb of ours after the thanks"),
    # a confirmation of a fact of the correspondence
    (
        "This message confirms we have received your quote of 12.10 per unit.",
        False,
        "confirmation of a communication",
    ),
    (
        "This note confirms I have read the draft heads of terms at 9,900 a month.",
        False,
        "confirmation of a communication",
    ),
    ("Confirming our viewing is moved to Tuesday at 3.", False, "confirmation of a communication"),
    (
        "This note confirms I have forwarded your CV to the hiring panel.",
        False,
        "confirmation of a communication",
    ),
    ("We confirm the order of 2,000 units at 12.10.", True, "neighbour: the order confirmed"),
    ("We confirm we have received your quote and accept it.", True, "neighbour: an assent after it"),
    ("I confirm we have agreed 95k.", True, "neighbour: terms agreed confirmed"),
    ("This email confirms our acceptance of 11,900 a month.", True, "neighbour: an acceptance confirmed"),
    # the people of a past deal, a comment after a report, a past verb beside a cleared report
    ("The previous developers we contracted billed 70 an hour.", False, "past parties v10"),
    (
        "In 2022 we took a ten-year lease at Dock Street and regretted it, which is why we want a break now.",
        False,
        "comment after a report",
    ),
    ("In 2022 we signed at 9,000, which is what we'll sign now.", True, "neighbour: carried over"),
    ("The previous developers billed 70 an hour and we accept 72.", True, "neighbour: a verb of ours now"),
    ("Last year we paid 9,000 a month and we pay 9,500 from June.", True, "neighbour: a present promise"),
    # a referral to a department is on trial (below); its binding neighbours bind either way
    ("10,400 a month is what we'll pay.", True, "neighbour: a promise, not a referral"),
    ("We'll take 10,400 a month.", True, "neighbour: taken, not referred"),
    # a view agreed whose subject only names a term as a modifier
    ("We agree the steel price situation is difficult for everyone.", False, "view with a modified term"),
    ("I agree, that meeting would be useful.", False, "view with a modified term"),
    ("We agree the price is 12.80.", True, "neighbour: the term is the subject's head"),
    ("We agree the rent increase is 4% a year.", True, "neighbour: a figure in the view"),
    ("We agree to the rent.", True, "neighbour: agreed to a term"),
    # a figure appraised in a learner's English or against its worth to us
    ("14.50 dollar for piece is little bit high for us.", False, "appraisal v10"),
    ("12,900 a month is way above what this floor is worth.", False, "appraisal v10"),
    ("14,50 a piece is fine for us.", True, "neighbour: a figure found acceptable"),
    # a market rate
    ("Similar units in the business park are going for 9,800 a month.", False, "market rate"),
    ("We're going for 9,800 a month.", True, "neighbour: our side goes for it"),
    # a wish of ours held back by the clause after it
    (
        "We'd like to pay the 6,200 deposit this week, but I'll need our CFO to approve it first.",
        False,
        "wish held back",
    ),
    ("I'd love to offer you 97k, but it's not my call.", False, "wish held back"),
    ("We'd like to offer you 97k, but we need an answer by Friday.", True, "neighbour: a deadline"),
    ("We'd like to offer you 97k, but I can't go higher.", True, "neighbour: a ceiling, still an offer"),
    ("We accept 97k, but I'll need finance to confirm the start date.", True, "neighbour: no wish"),
    # (set v10) "to say" before our clause reports our own news: "say we ..." imagines only when bare
    ("Glad to say we can offer you the post at 96k from May.", True, "neighbour: news of ours, an offer"),
    ("Pleased to say I can offer you 12.60 a unit for the 3,000.", True, "neighbour: news of ours, an offer"),
    ("We're delighted to say we can take the unit at 10,900 a month.", True, "neighbour: news of ours"),
    ("Say we offer you 96k, would you move in May?", False, "no cue: a bare 'say we' imagines"),
    ("Say I can find 12.60 a unit: is 3,000 still on?", False, "no cue: a bare 'say I' imagines"),
    (
        "I'd love to say we accept 12.60, but our rules don't let me sign above budget.",
        False,
        "wish held back",
    ),
    ("We accept 12.60, but our rules don't let me sign the side letter.", True, "neighbour: no wish"),
    # (set v10) a recap lead governs only the clause after it
    (
        "As mentioned, we're pressing on; your day rate will be 640 from June.",
        True,
        "neighbour: past the lead",
    ),
    ("As we discussed, all good: the rent will be 10,400 a month.", True, "neighbour: past the lead"),
    ("Recap of the call: your day rate would be 640 from June.", False, "no cue: a recap word in a label"),
    ("We're pressing on; as we discussed, your day rate could be 640.", False, "no cue: the lead's clause"),
    # (set v10) a short day after a bare verb of execution
    ("Yes. 10,900. Five years. Sign Thu.", True, "neighbour: a bare order, day written short"),
    ("ok sign mon", True, "neighbour: a bare order, day written short"),
    ("Sign Thu?", False, "no cue: a question"),
    ("Don't sign Thu.", False, "no cue: negated"),
    # obfuscated variants of the cleared forms: never cleared (fail closed)
    ("Glad to s\u0430y we can offer you the post at 96k.", True, "homoglyph in 'say': still an offer"),
    ("Glad to say we can of\u200bfer you the post at 96k.", True, "zero-width in 'offer': still an offer"),
    ("As dis\u200bcussed, we're pressing on: your day rate will be 640.", True, "zero-width in the lead"),
    ("Yes. 10,900. Sign Th\u200bu.", True, "zero-width in the short day"),
    ("Our walk-\u0430way is 96 grand.", True, "homoglyph: a Cyrillic a"),
    ("Gra\u200bcias, we acc\u200bept 95k.", True, "zero-width space, and a verb of ours"),
    ("This message con\u00adfirms we have received your quote of 12.10.", True, "soft hyphen"),
    ("We con\u200bfirm we have received your quote and acc\u200bept it.", True, "zero-width, and a verb"),
]


@pytest.mark.parametrize(("text", "binds", "reason"), CASES)
def test_v10_forms_and_their_neighbours(text: str, binds: bool, reason: str, staffing: DomainConfig) -> None:
    assert contains_binding_language(text) is binds, (reason, text)
    assert preflight(text, staffing, use_classifier=False).binding is binds, (reason, text)


RULE_CASES = [(t, r) for t, b, r in CASES if not b and r in NEW_RULES]


@pytest.mark.parametrize(("text", "rule"), RULE_CASES)
def test_each_v10_rule_is_what_clears_its_form(text: str, rule: str) -> None:
    with rules_off([rule]):
        assert contains_binding_language(text), (rule, text)


@pytest.mark.parametrize(("text", "form"), [(t, r) for t, b, r in CASES if not b and r == NEW_FORM])
def test_the_wish_form_is_what_clears_its_cases(text: str, form: str) -> None:
    with only_forms([f for f in FORMS if f != form]):
        assert contains_binding_language(text), text


def test_the_v10_rules_are_named_and_in_force() -> None:
    assert set(NEW_RULES) <= set(RULES) and len(set(RULES)) == len(RULES)
    assert not set(NEW_RULES) & ON_TRIAL  # each is supported by a writer that did not motivate it
    assert NEW_FORM in FORMS
    assert {r for _, b, r in CASES if not b and not r.startswith("no cue")} <= {*NEW_RULES, NEW_FORM}
    assert set(BINDING_RULES_V11) <= set(RULES) and not set(BINDING_RULES_V11) & ON_TRIAL
    assert set(NEW_ON_TRIAL) <= ON_TRIAL and set(NEW_ON_TRIAL) <= set(RULES)


# (text, rule): binding as shipped, read as non-binding once the rule is switched off
BINDING_RULE_CASES = [
    (
        "As mentioned, we're pressing on; your day rate will be 640 from June.",
        "recap lead governs one clause",
    ),
    ("As we discussed, all good: the rent will be 10,400 a month.", "recap lead governs one clause"),
    ("Yes. 10,900. Five years. Sign Thu.", "short day after a bare verb"),
    ("ok sign mon", "short day after a bare verb"),
]


@pytest.mark.parametrize(("text", "rule"), BINDING_RULE_CASES)
def test_each_v11_binding_rule_decides_its_rows(text: str, rule: str) -> None:
    assert rule in BINDING_RULES_V11
    assert contains_binding_language(text), text
    with rules_off([rule]):
        assert not contains_binding_language(text), (rule, text)


def test_to_say_before_our_clause_is_no_imagined_case(staffing: DomainConfig) -> None:
    # the frame "happy to say" governs our clause as news; a later approval clause about another term
    # (the equipment, IT's sign-off) does not clear the offer before it
    draft = (
        "Good news: happy to say we can offer you the post at 96k from May. Your monitor order still "
        "needs IT's sign-off, but that's routine. Which keyboard layout do you use?"
    )
    assert preflight(draft, staffing, use_classifier=False).binding
    assert not contains_binding_language("Say we can offer you the post at 96k: would you move in May?")
    assert not contains_binding_language("We'll talk Thu.")


# (text, rule on trial): cleared once the rule is switched on, binding in the shipped preflight
TRIAL_CASES = [
    ("I'll take your 12.40 to procurement on Thursday.", "referral v10"),
    ("2,400 units at $12.90 is what I'm pitching to my boss tomorrow.", "referral v10"),
]


@pytest.mark.parametrize(("text", "rule"), TRIAL_CASES)
def test_the_v10_rule_on_trial_clears_only_when_switched_on(text: str, rule: str) -> None:
    assert rule in NEW_ON_TRIAL
    assert contains_binding_language(text), text  # shipped: the rule is off, the cue binds
    with rules_off((), on_trial=True):
        assert not contains_binding_language(text), text


def test_a_form_clears_only_its_own_clause(staffing: DomainConfig) -> None:
    # the limit clears its own figure; the acceptance in the next sentence still binds
    assert preflight("Our walk-away is 96k. We accept 95k.", staffing, use_classifier=False).binding
    # the thanks clears the other side's figure, not our promise after a semicolon
    assert contains_binding_language("Merci pour l'offre de 11,80; we will pay 11,50 from June.")


@pytest.mark.parametrize(
    "text",
    [
        "",
        "but",
        ", which is why",
        "We'd like to, but",
        "confirm",
        "walk-away " * 3_000,
        "Gracias " * 2_000,
        "\u200b" * 500 + "confirm we have received",
    ],
)
def test_malformed_and_degenerate_text_never_raises(text: str, staffing: DomainConfig) -> None:
    result = preflight(text, staffing, use_classifier=False)
    assert isinstance(result.binding, bool)


def test_a_huge_draft_of_the_v10_forms_is_read_in_linear_time(staffing: DomainConfig) -> None:
    unit = (
        "Our walk-away is 96k. We confirm we have received your quote. "
        "We'd like to pay the deposit, but I'll need our CFO to approve it first. "
    )
    assert_grows_linearly(lambda text: preflight(text, staffing), unit, 1_800, 4)
    huge = "which is why " * 100_000  # over a megabyte: refused before any scan
    started = time.process_time()
    assert preflight(huge, staffing).refused
    assert time.process_time() - started < HANG_GUARD_SECONDS
