"""The preflight that cannot be talked past (issue 14): normalise once, parse once, binding by default."""

from __future__ import annotations

import pytest

from parley.errors import ScenarioError
from parley.governance.commitment import TOO_LONG, UNPLACEABLE, contains_binding_language, find_commitments
from parley.governance.config import DomainConfig
from parley.governance.draft import MAX_CLAUSES, parse
from parley.governance.normalize import DEFAULT_MAX_CHARS, TextRefused, normalize
from parley.governance.preflight import CONTROL_CHARACTERS, DeclaredIntent, DeclaredTerm, preflight

# -- normalisation --------------------------------------------------------------------------------------
OBFUSCATED = [
    ("We \u0430ccept your offer of $95,000 per year.", "homoglyph"),  # Cyrillic a
    ("We'll s\u0456gn the lease at $11,000/month.", "homoglyph"),  # Cyrillic i
    ("We \u03b1gree to $82 an hour.", "homoglyph"),  # Greek alpha
    ("We \u1d00ccept the $93K package.", "homoglyph"),  # small capital A
    ("We \uff41\uff43\uff43\uff45\uff50\uff54 the offer of $95K.", "compatibility"),  # fullwidth
    ("We ag\u200bree to $82 an hour, starting Monday.", "zero_width"),
    ("We acc\u2060ept the $11.80 unit price.", "zero_width"),
    ("We acc\ufeffept the $11.80 unit price.", "zero_width"),
    ("We con\u202efirm the two-month deposit.", "zero_width"),  # bidi override
    ("Con\u00adfirmed: annual salary of $97,000.", "soft_hyphen"),
    ("We will p\u00aday $95,000.", "soft_hyphen"),
    ("We acc\0ept the $93K package as discussed.", "control"),
    ("We ag\x07ree to the 60-month term at $10,100.", "control"),
    ("We a c c e p t your ask of 90k.", "split_word"),
    ("We a.g.r.e.e to $84/hr for six months.", "split_word"),
    ("We a-c-c-e-p-t the lease at 11k a month.", "split_word"),
    ("We'll con firm the PO for 600 units at $13 today.", "split_word"),
    ("Fine, we ag-ree to 84/hr for the six-month contract.", "split_word"),
]


@pytest.mark.parametrize(("text", "kind"), OBFUSCATED)
def test_every_obfuscation_is_undone_reported_and_caught(
    text: str, kind: str, staffing: DomainConfig
) -> None:
    normalized = normalize(text)
    assert kind in normalized.kinds
    assert normalized.text.isascii()
    result = preflight(text, staffing)
    assert result.binding and result.requires_approval, text
    assert kind in result.to_json()["normalization"]


def test_a_clean_text_is_left_as_it_is() -> None:
    text = "Would $90,000 work for you? We're exploring options, subject to approval."
    normalized = normalize(text)
    assert normalized.text == text and normalized.changes == ()


def test_control_characters_make_a_draft_unsendable_even_when_harmless(staffing: DomainConfig) -> None:
    result = preflight("Could you share your availability\0 for a call next week?", staffing)
    assert not result.binding
    assert result.requires_approval and result.sendable is None
    assert result.problems == (CONTROL_CHARACTERS,)
    clean = preflight("Could you share your availability for a call next week?", staffing)
    assert not clean.requires_approval and clean.problems == ()


def test_a_text_over_the_limit_is_refused_in_one_line_before_any_scan(staffing: DomainConfig) -> None:
    text = "Would you consider a longer term? " * (DEFAULT_MAX_CHARS // 30)
    with pytest.raises(TextRefused) as caught:
        normalize(text)
    assert isinstance(caught.value, ScenarioError)
    assert "\n" not in str(caught.value) and "20,000" in str(caught.value)
    result = preflight(text, staffing)
    assert result.refused and result.binding and result.requires_approval and result.sendable is None
    assert result.problems == (str(caught.value),) and result.checked == ("size",)
    assert preflight(text[:DEFAULT_MAX_CHARS], staffing).problems == ()
    assert not preflight(text, staffing, max_chars=None).refused


# -- clauses and their moods ----------------------------------------------------------------------------
def _moods(text: str) -> list[tuple[str, str]]:
    return [(c.text, c.mood) for c in parse(text).clauses()]


def test_the_parser_splits_clauses_and_reads_their_moods() -> None:
    assert _moods("We'll pay $95K, and we might add a laptop stipend later if budget allows.") == [
        ("We'll pay $95K", "statement"),
        ("we might add a laptop stipend later", "exploratory"),
        ("if budget allows.", "conditional"),
    ]
    assert _moods("We'll cover the relocation, can you start on the 3rd?") == [
        ("We'll cover the relocation", "statement"),
        ("can you start on the 3rd?", "question"),
    ]
    assert [m for _, m in _moods("In 2023 we agreed to net-30 with another supplier.")] == ["past"]
    assert [m for _, m in _moods("Suppose we landed on $80 an hour.")] == ["conditional"]
    landlord = "The landlord mentioned budgets get finalized in December."
    assert [m for _, m in _moods(landlord)] == ["quotation"]
    assert [m for _, m in _moods("Our previous supplier said they'd accept net-30.")] == ["quotation"]
    # A report by our own side is our side speaking: read as a statement, so what it says still counts.
    assert [m for _, m in _moods("Our CFO mentioned budgets get finalized in December.")] == ["statement"]
    assert [m for _, m in _moods("Say no more, $100K is a done deal.")] == ["statement"]
    assert not contains_binding_language("Our CFO mentioned budgets get finalized in December.")
    assert contains_binding_language("My principal says yes for $100K, deal is done.")
    assert contains_binding_language("FYI I've already told procurement $14 per unit is approved.")


def test_a_list_introduced_by_a_reservation_is_reserved_line_by_line() -> None:
    reserved = "Nothing has been agreed yet:\n- Your ask: $12,800/month\n1. $92K base + $5K bonus"
    assert [s.disclaimer is not None for s in parse(reserved).sentences] == [True, True, True]
    assert not contains_binding_language(reserved)
    explored = "Here are options we might explore:\n- 2,000 units at $12.50\nWe accept $12.40 per unit."
    assert not contains_binding_language(explored.rsplit("\n", 1)[0])
    assert contains_binding_language(explored)  # the list ends where a line is no item
    assert contains_binding_language("Here is what we agree to:\n- $95K base\n- 25 days PTO")


def test_an_attributed_quotation_is_blanked_but_an_unattributed_one_is_read() -> None:
    (sentence, _) = parse("Your email says 'we accept the terms'. We'll check.").sentences
    assert sentence.quotes and "accept" not in sentence.clauses[0].scan
    (plain,) = parse("'We accept the terms.'").sentences
    assert "accept" in plain.clauses[0].scan


# -- binding is the default -----------------------------------------------------------------------------
@pytest.mark.parametrize(
    "text",
    [
        "We will pay you one hundred and five thousand dollars.",
        "Count us in for 1,200 units at $12.80.",
        "The space works for us at $9,500 a month, we'll sign Friday.",
        "Yes to net-45, consider it settled.",
        "We hereby release you from the late-delivery penalty.",
        "Book it.",
        "Ship it.",
        "You've got yourself a deal.",
        "It's a deal at $98K.",
    ],
)
def test_acceptances_written_the_way_people_write_are_binding(text: str) -> None:
    assert contains_binding_language(text), text


@pytest.mark.parametrize(
    "text",
    [
        "We'll pay $95K, and we might add a laptop.",
        "We accept your rate of $82 an hour, pending your reply on the start date.",
        "We commit to 3,000 units at $10.50; a second tranche is a maybe, depending on sales.",
        "We'll commit to $100K, and possibly extend the term if things go well.",
    ],
)
def test_a_hedge_in_another_clause_does_not_unbind(text: str) -> None:
    assert contains_binding_language(text), text


@pytest.mark.parametrize(
    "text",
    [
        "We'll cover the relocation, can you start on the 3rd?",
        "We'll match $99,000. Can you start on the 15th?",
        "Agreed at $10,900. Would you be able to repaint before move-in?",
    ],
)
def test_a_trailing_question_does_not_unbind(text: str) -> None:
    assert contains_binding_language(text), text


@pytest.mark.parametrize(
    "text",
    [
        "Your email says 'we accept the terms'.",
        "You said 'deal at 98' on the phone; I need to check with the hiring manager.",
        "In 2023 we agreed to net-30 with another supplier.",
        "Last year we signed a similar lease with another landlord.",
        "We will pay attention to the timeline.",
        "We agree it's a tough market for senior engineers.",
        "We accept that timelines slip.",
        "We'll sign off for today.",
        "Would you accept $90K?",
        "Hypothetically, if we accepted $12.50, could you hold that price?",
        "We're exploring whether $10,000 a month could work.",
        "We could consider $90K, subject to approval.",
        "We can't agree to a personal guarantee.",
    ],
)
def test_quotes_past_reports_idioms_questions_and_hedges_are_not_binding(text: str) -> None:
    assert not contains_binding_language(text), find_commitments(text)


# Each case stands for a class of phrasing (issue 14's second round): the rule is general, the
# sentence only an example of it.
@pytest.mark.parametrize(
    "text",
    [
        # a negation does not reach past a comma
        "Say no more, $101K is a done deal.",
        "No problem, we accept the two-month deposit.",
        # a pronoun after "that" opens a clause; it is not a noun's modifier
        "Happy to let you know that we agree to the $4,000 relocation allowance.",
        # "the parties agree": a plural subject and its verb
        "The parties agree that the monthly rent shall be USD 10,900.",
        # a passive done now or to be done, with a deal term as subject
        "Payment of the first month's rent has been authorised.",
        "The deposit will be wired to your account tomorrow.",
        "contract signed, sending the countersigned copy tonight",
        # perfect tense of a verb the lexicon cannot place
        "We have reached agreement at $12.20 per unit.",
        # our own side speaking is a statement, not a quotation
        "My manager says yes for $99K, the deal is done.",
        "I've already told finance the $12.60 price is approved.",
        # the other side as an object, not the subject
        "We'll meet you at $11,800 a month.",
        "I'll have the signed lease at $11,800 a month back to you by Friday.",
        "Expect the purchase order for $12.40 per unit in your inbox today.",
        "You've earned it: $97K, effective your start date.",
        "You're cleared to start at $96K.",
        # a deal term found acceptable, set in motion, or handed over
        "Sure, the rush surcharge is fine, let's get the order moving.",
        "The extra parking space is yours.",
        "Fine, you can keep the signing bonus.",
        "Let's call it $98K and get you onboarded.",
        # a bare assent up to a comma; a strong verb with only time words after it
        "We accept, subject to nothing further.",
        "I'll countersign tonight and send it back.",
        # a sentence of assent before the terms
        "Fine. 97k base, 20 days off.",
        # the one-word assent with a figure as a scaled number
        "ok 96k then",
        # willingness keeps a modal from unbinding
        "We'd be delighted to have you join us at $97K.",
        "We'd be happy to go ahead at $12.10 per unit.",
    ],
)
def test_general_rules_bind_what_people_write(text: str) -> None:
    assert contains_binding_language(text), text


@pytest.mark.parametrize(
    "text",
    [
        # a third party, a past one of ours, or a chain of control back to one
        "Our previous contractor accepted net-30 invoicing; would that work for you?",
        "Our former landlord agreed to cover the fit-out costs; I mention it only as context.",
        "Our old supplier used to agree to anything, then miss every date.",
        # a past framework named by its year
        "Under our 2021 supply agreement we agreed a volume rebate with you.",
        # a negation anywhere before an adjective of commitment
        "I'm not able to agree to anything binding today.",
        "Nothing in this email shall be construed as an offer of employment.",
        # wanting or waiting for a go-ahead is not having it
        "The space is lovely, but I need a green light from above first.",
        "We're waiting for the final sign-off from finance.",
        # relaying, registering, removing, wishing
        "Let me take $96K back to the team.",
        "Happy to sign you up for the Thursday interview slot.",
        "The LOI adds a deposit clause; please take it out.",
        "We'd love to make this work.",
        "We take data security very seriously.",
        # a list introduced by a reservation
        "Options we might explore:\n1. $92K base + $5K bonus\n2. $95K base, no bonus",
        "Nothing has been agreed yet:\n- Your ask: $12,800/month\n- Our position: under review",
        # an embedded question, a question joined by "or", a fragment that opens a question
        "Please confirm whether the $12.40 price includes shipping.",
        "Is one hundred thousand a year the figure you have in mind, or is there some flexibility?",
        "At $12,000 a month, would you include parking?",
        # acknowledged, deliberated, approximated or found too much
        "Thank you for the quote of $12.60; we'll review it internally.",
        "Let me sleep on the $98K figure.",
        "We're hoping to land somewhere around $97K.",
        "I'll be honest, $13 a unit is a stretch for us.",
        # reported by a tag, reservations and drafts
        "The previous tenant paid $10,500 a month, I'm told.",
        "This isn't a commitment, but $12.20 seems about right to us.",
        "This is just a draft for internal discussion: $96K base, $5K bonus.",
        # an adjective after "be", a generic get-passive, a phrasal "set up"
        "Let's keep talking; I think we're close on the rent.",
        "Our CFO mentioned budgets get finalized in December.",
        "Happy to set up a call to discuss the rent.",
        "We are in discussions about the rent, nothing decided yet.",
        # a modal of ours, an embedded question, a noun after a figure-and-unit modifier
        "We'd go ahead only if you can match $12.10.",
        "We'll see whether the numbers work after the site visit.",
        "A 48-month lease could be an option, but we need to think it through.",
    ],
)
def test_general_rules_leave_look_alikes_sendable(text: str) -> None:
    assert not contains_binding_language(text), find_commitments(text)


def test_an_unplaceable_statement_about_terms_is_binding_with_that_reason() -> None:
    (finding,) = find_commitments("We firmly earmark $95K for your salary.")
    assert finding.reason == UNPLACEABLE == "could not be read as non-binding"
    assert not find_commitments("We firmly earmark time for the interview.")  # no deal term: not about terms


def test_a_clause_too_long_to_read_binds_and_needs_approval(staffing: DomainConfig) -> None:
    text = "we " * 700
    (finding,) = find_commitments(text)
    assert finding.reason == TOO_LONG  # never cleared by a classifier score, unlike the fallback
    result = preflight(text, staffing)
    assert result.binding and not result.cleared
    assert result.requires_approval and result.sendable is None
    assert any("too long to read" in p for p in result.problems)


def test_text_past_the_clauses_read_binds(staffing: DomainConfig) -> None:
    text = "Thanks, noted. " * (MAX_CLAUSES + 5)
    draft = parse(text, max_chars=None)
    assert draft.unread and len(list(draft.clauses())) == MAX_CLAUSES + 1
    result = preflight(text, staffing, max_chars=None)
    assert result.binding and result.sendable is None and not result.cleared
    assert any("too many clauses" in p for p in result.problems)
    assert not preflight("Thanks, noted. " * 10, staffing).requires_approval


def test_the_rewrite_of_a_binding_draft_is_not_binding(staffing: DomainConfig) -> None:
    result = preflight("We'll pay $95K, and we might add a laptop.", staffing)
    assert result.binding and result.rewrite is not None
    assert not preflight(result.rewrite, staffing).binding
    assert result.sendable == result.rewrite


# -- the drafter's declaration --------------------------------------------------------------------------
def test_a_declaration_that_the_text_contradicts_goes_to_the_principal(staffing: DomainConfig) -> None:
    text = "We're exploring $95K for the base salary, subject to approval."
    honest = DeclaredIntent("explore", (DeclaredTerm("annual_salary", 95000.0),))
    assert preflight(text, staffing, declared=honest).problems == ()
    hidden = DeclaredIntent("explore", ())
    assert preflight(text, staffing, declared=hidden).problems == (
        "annual_salary 95000 ('$95K') is not among the declared terms",
    )
    binding = preflight("We accept $95K.", staffing, declared=DeclaredIntent("explore", honest.terms))
    assert "declared intent 'explore' but the text is binding" in binding.problems
    assert binding.sendable is None  # not even the rewrite: the drafter said something else
    close = preflight("Thank you for your time.", staffing, declared=DeclaredIntent("close"))
    assert close.problems == ("declared intent 'close' needs the principal's approval",)
    approved = preflight(
        "Thank you for your time.", staffing, declared=DeclaredIntent("close"), allow_binding=True
    )
    assert approved.problems == ()
    ask = preflight("We'd like to hear more.", staffing, declared=DeclaredIntent("ask"))
    assert ask.problems == ("declared intent 'ask' but the text asks nothing",)


def test_a_declaration_round_trips_and_rejects_unknown_intents() -> None:
    declared = DeclaredIntent("counter", (DeclaredTerm("annual_salary", 98000.0), DeclaredTerm("start_date")))
    assert DeclaredIntent.from_json(declared.to_json()) == declared
    with pytest.raises(ValueError, match="unknown intent"):
        DeclaredIntent.from_json({"intent": "accept", "terms": []})


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("I'm a U.S. citizen.", "I'm a U.S. citizen."),
        ("I have a B.A. and an M.S. degree.", "I have a B.A. and an M.S. degree."),
        ("we a c.c-e p t $95K", "we accept $95K"),  # mixed separators that spell a key word
        ("we a c c e p t", "we accept"),
    ],
)
def test_abbreviations_beside_single_letter_words_are_not_joined(text: str, expected: str) -> None:
    assert normalize(text).text == expected
