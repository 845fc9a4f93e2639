"""Parser behaviour beyond the paraphrase spec: properties, context, notes and to_action."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from parley.language import Intent, ParsedMessage, Vocabulary, clarify, parse, render, to_action
from parley.protocol.actions import Accept, Propose, Reject, Say, Walk

from .conftest import camp_vocabulary, random_vocabulary, supply_vocabulary

VOCABULARIES = [camp_vocabulary(), supply_vocabulary(), random_vocabulary()]
NEGOTIATION_WORDS = st.sampled_from(
    [
        "I",
        "you",
        "get",
        "take",
        "2",
        "three",
        "all",
        "the rest",
        "food",
        "water",
        "wood",
        "$95",
        "net 30",
        "days",
        "zorblats",
        "teal",
        "deal",
        "no",
        "not",
        "walk away",
        "most",
        "least",
        "then",
        ">",
        "for me",
        "for you",
        ",",
        ".",
        "?",
        "and",
        "priority",
        "each",
        "none",
        "k",
        "%",
        "units",
        "months",
    ]
)


def assert_valid(parsed: ParsedMessage, vocabulary: Vocabulary) -> None:
    assert 0.0 <= parsed.confidence <= 1.0
    assert isinstance(parsed.intent, Intent)
    if parsed.package is not None:
        vocabulary.space.validate(parsed.package)
    for name, value in parsed.partial.items():
        assert vocabulary.space.issue(name).contains(value)
    names = set(vocabulary.space.names)
    assert set(parsed.priorities) <= names and set(parsed.least_important) <= names
    assert len(set(parsed.priorities)) == len(parsed.priorities)
    assert set(parsed.missing) <= names


@settings(max_examples=150, deadline=None)
@given(text=st.text(max_size=200), which=st.integers(0, 2))
def test_parse_never_raises_on_arbitrary_text(text: str, which: int) -> None:
    vocabulary = VOCABULARIES[which]
    parsed = parse(text, vocabulary, speaker=vocabulary.parties[0])
    assert_valid(parsed, vocabulary)
    to_action(parsed)


@settings(max_examples=200, deadline=None)
@given(words=st.lists(NEGOTIATION_WORDS, max_size=25), which=st.integers(0, 2), speaker=st.integers(0, 1))
def test_parse_of_negotiation_word_salad_is_valid(words: list[str], which: int, speaker: int) -> None:
    vocabulary = VOCABULARIES[which]
    parsed = parse(" ".join(words), vocabulary, speaker=vocabulary.parties[speaker])
    assert_valid(parsed, vocabulary)
    action = to_action(parsed)
    if isinstance(action, Propose):
        vocabulary.space.validate(action.package)


@settings(max_examples=100, deadline=None)
@given(data=st.data(), which=st.integers(0, 2), speaker=st.integers(0, 1), counter=st.booleans())
def test_any_package_round_trips(data: st.DataObject, which: int, speaker: int, counter: bool) -> None:
    vocabulary = VOCABULARIES[which]
    package = {issue.name: data.draw(st.sampled_from(issue.values)) for issue in vocabulary.space.issues}
    party = vocabulary.parties[speaker]
    text = render(Propose(package), vocabulary, speaker=party, counter=counter)
    assert parse(text, vocabulary, speaker=party).package == package


def test_to_action_builds_each_move(camp: Vocabulary) -> None:
    assert isinstance(to_action(parse("deal!", camp, speaker="bob")), Accept)
    assert isinstance(to_action(parse("no thanks", camp, speaker="bob")), Reject)
    walk = to_action(parse("I'm walking away", camp, speaker="bob"))
    assert isinstance(walk, Walk) and walk.message == "I'm walking away"
    say = to_action(parse("my top priority is water", camp, speaker="bob"))
    assert isinstance(say, Say) and say.priorities == ("water",)
    offer = to_action(parse("I take all the water, you get the rest", camp, speaker="bob"))
    assert offer == Propose({"food": 3, "water": 0, "firewood": 3}, "I take all the water, you get the rest")


def test_incomplete_offer_gives_no_action_and_says_what_is_missing(camp: Vocabulary) -> None:
    parsed = parse("I want 2 firewood", camp, speaker="alice")
    assert parsed.intent is Intent.OFFER and parsed.package is None
    assert parsed.partial == {"firewood": 2}
    assert parsed.missing == ("food", "water")
    assert any("food, water" in note for note in parsed.notes)
    assert to_action(parsed) is None


def test_empty_text_gives_no_action(camp: Vocabulary) -> None:
    assert to_action(parse("   ", camp, speaker="alice")) is None


def test_inconsistent_division_is_explained(camp: Vocabulary) -> None:
    parsed = parse("I get 2 water and you get 2 water, and I take the rest", camp, speaker="alice")
    assert parsed.package is None
    assert any("do not add up to 3" in note for note in parsed.notes)


def test_too_many_units_is_explained(camp: Vocabulary) -> None:
    parsed = parse("I take 5 water and you take the rest", camp, speaker="alice")
    assert parsed.package is None
    assert any("more than the 3 available" in note for note in parsed.notes)


def test_amount_that_is_not_an_option_is_explained(supply: Vocabulary) -> None:
    parsed = parse("I can pay $93 per unit", supply, speaker="buyer")
    assert "price" not in parsed.partial
    assert any("93 is not an option for price" in note for note in parsed.notes)


def test_context_fills_terms_and_is_noted(supply: Vocabulary) -> None:
    table = {"price": 80, "volume": 2000, "lead_time": 20, "payment_terms": "net-60", "warranty": 12}
    parsed = parse("make it 30 days of lead time", supply, speaker="buyer", context=table)
    assert parsed.package == {**table, "lead_time": 30}
    assert any("kept from the offer on the table" in note for note in parsed.notes)


def test_deal_restating_the_table_is_acceptance(camp: Vocabulary) -> None:
    table = {"food": 0, "water": 3, "firewood": 3}
    text = "Deal, I get 3 food and you get the rest"
    assert parse(text, camp, speaker="bob", context=table).intent is Intent.ACCEPT
    assert parse(text, camp, speaker="bob").intent is Intent.OFFER


def test_a_question_about_a_deal_is_not_acceptance(camp: Vocabulary) -> None:
    assert parse("deal?", camp, speaker="bob").intent is not Intent.ACCEPT
    assert parse("so do we have a deal?", camp, speaker="bob").intent is Intent.QUESTION


@pytest.mark.parametrize(
    ("text", "intent"),
    [
        ("ok but let me think about it", Intent.OTHER),
        ("no problem at all", Intent.OTHER),
        ("I won't walk away over this", Intent.OTHER),
        ("Are you camping near a lake?", Intent.QUESTION),
    ],
)
def test_cue_words_in_context(camp: Vocabulary, text: str, intent: Intent) -> None:
    assert parse(text, camp, speaker="alice").intent is intent


def test_priority_about_the_listener_is_not_the_speakers(camp: Vocabulary) -> None:
    parsed = parse("I guess water is the most important to you", camp, speaker="alice")
    assert parsed.priorities == ()


def test_long_text_is_cut_not_rejected(camp: Vocabulary) -> None:
    parsed = parse("I take 3 water and you get the rest. " + "blah " * 2000, camp, speaker="alice")
    assert parsed.package == {"food": 0, "water": 3, "firewood": 0}


def test_clarify_asks_for_what_is_missing(camp: Vocabulary, supply: Vocabulary) -> None:
    assert clarify(parse("I want 2 firewood", camp, speaker="alice"), camp) == (
        "Sorry, I didn't catch what you propose for food and water. Could you state the whole package?"
    )
    unclear = clarify(parse("I can pay $93 per unit", supply, speaker="buyer"), supply)
    assert "93 is not an option for price" in unclear
    assert clarify(parse("", camp, speaker="alice"), camp).startswith("Sorry, I didn't catch that.")


@pytest.mark.parametrize(
    "text",
    [
        "I hope everything is fine with your family",
        "Thanks for everything!",
        "I'd like to hear the rest of your story",
    ],
)
def test_everything_without_a_clear_recipient_is_not_an_offer(camp: Vocabulary, text: str) -> None:
    parsed = parse(text, camp, speaker="alice")
    assert parsed.intent is not Intent.OFFER
    assert parsed.partial == {}


NAME = st.text(alphabet="bcdfghjklmnpqrstvwxz", min_size=5, max_size=9).map(lambda s: s[:2] + "o" + s[2:])


@settings(max_examples=60, deadline=None)
@given(
    names=st.lists(NAME, min_size=2, max_size=4, unique=True),
    labels=st.lists(NAME, min_size=3, max_size=3, unique=True),
    data=st.data(),
)
def test_round_trip_on_invented_vocabularies(
    names: list[str], labels: list[str], data: st.DataObject
) -> None:
    """Scenarios never seen before: made-up item names (divided) plus one made-up categorical term."""
    from parley.domain.issues import Issue
    from parley.domain.space import OutcomeSpace

    term = f"{labels[0]}x"
    if term in names:
        return
    issues = [Issue.integer_range(name, 0, 5) for name in names] + [Issue.options(term, labels)]
    allocation = {name: {"owner": "p", "total": 5} for name in names}
    vocabulary = Vocabulary.build(OutcomeSpace.of(issues), {"allocation": allocation}, ("p", "q"))
    package = {issue.name: data.draw(st.sampled_from(issue.values)) for issue in issues}
    for speaker in ("p", "q"):
        text = render(Propose(package), vocabulary, speaker=speaker)
        parsed = parse(text, vocabulary, speaker=speaker)
        assert parsed.package == package, (text, parsed.notes)


def test_a_number_belongs_to_the_issue_named_next_to_it_not_across_another_number(lease: Vocabulary) -> None:
    parsed = parse("I can pay 3,500 a month on a 5 year term", lease, speaker="tenant")
    assert parsed.partial == {"rent": 3500, "term": 5}


def test_accepting_with_new_numbers_is_an_offer(lease: Vocabulary) -> None:
    table = {"rent": 3750, "term": 7, "deposit": 1, "fit_out_allowance": 10000, "break_clause": "none"}
    assert parse("I'd accept a rent of 3,500", lease, speaker="tenant", context=table).intent is Intent.OFFER
    assert parse("ok, I accept 3750 rent", lease, speaker="tenant", context=table).intent is Intent.ACCEPT


def test_a_common_option_word_needs_its_issue_nearby(lease: Vocabulary) -> None:
    assert "break_clause" not in parse("none of that matters, term 5 years", lease, speaker="tenant").partial
    assert parse("term 5 years and no break clause, none", lease, speaker="tenant").partial == {
        "term": 5,
        "break_clause": "none",
    }
