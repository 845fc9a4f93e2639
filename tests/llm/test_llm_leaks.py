"""The utility-leak guard: private numbers and BATNA talk are stripped, ordinary haggling passes."""

from __future__ import annotations

import pytest
from llm_market import market_parties

from linear_growth import assert_grows_linearly
from parley.domain.utility import LinearAdditiveUtility
from parley.llm import PrivateNumbers, check_message
from parley.llm.leaks import stated_numbers
from parley.scenarios.catalog import load_scenario

BUYER = PrivateNumbers.of(market_parties()[0].utility)  # BATNA 0.35, weights 0.6 / 0.3 / 0.1


@pytest.mark.parametrize(
    ("message", "label"),
    [
        ("Our reservation value is 0.35.", "disclosure"),
        ("Anything under 0.35 is a no for us.", "reservation_value"),
        ("We cannot go below 35%.", "reservation_value"),
        ("We cannot go below thirty-five percent.", "reservation_value"),
        ("Anything under zero point three five is a no.", "reservation_value"),
        ("Price is 60% of what we care about.", "weight"),
        ("Delivery counts for 0.3 of it.", "weight"),
        ("That package only gives us 0.15 utility.", "score"),
        ("This is worth 12 points to us.", "score"),
        ("Honestly, my bottom line is clear.", "disclosure"),
        ("Our BATNA is another supplier.", "disclosure"),
    ],
)
def test_leaks_are_found(message: str, label: str) -> None:
    report = check_message(message, BUYER)
    assert report.findings == (label,)
    assert report.cleaned == ""


@pytest.mark.parametrize(
    "message",
    [
        "We can pay 300 USD if you add a 2 year warranty.",
        "Fast delivery matters a lot to us; price a little less.",
        "Could you meet us at 200?",
        "Thanks, let's keep going.",
        "We need 1 more year of warranty.",
    ],
)
def test_ordinary_messages_pass(message: str) -> None:
    report = check_message(message, BUYER)
    assert not report.leaked and report.cleaned == message


def test_only_the_leaking_sentence_is_removed() -> None:
    report = check_message("We like this. Our walk-away point is near. Can you do 300?", BUYER)
    assert report.cleaned == "We like this. Can you do 300?" and report.findings == ("disclosure",)


def test_numbers_in_words_and_percentages() -> None:
    assert 0.45 in stated_numbers("forty-five percent")
    assert 0.5 in stated_numbers("about half")
    assert 0.35 in stated_numbers("zero point three five")
    assert 300.0 in stated_numbers("USD 300")


# --- issue 16: a number in a valuation frame is a leak, whatever its wording --------------------------


def _camper(values: dict[str, int], batna: float, *, may_disclose: tuple[str, ...] = ()) -> PrivateNumbers:
    """A CaSiNo camper getting values[item] points per package it takes."""
    space = load_scenario("casino").space
    tables = {
        issue.name: [float(values[issue.name] * int(o)) for o in issue.values] for issue in space.issues
    }
    return PrivateNumbers.of(
        LinearAdditiveUtility.from_tables(space, tables, batna), may_disclose=may_disclose
    )


CAMPER = _camper({"food": 5, "water": 4, "firewood": 3}, 6)


def test_the_issue_example_is_caught_although_3_is_an_option_value() -> None:
    report = check_message("Firewood is worth 3 points to me. Sure. I get 15 from all the food.", CAMPER)
    assert report.findings == ("score", "score")
    assert report.cleaned == "Sure."


# Regression examples written by the guard's author (the blind measurement is test_leak_sets.py).
@pytest.mark.parametrize(
    "message",
    [
        "To me each water is worth four.",
        "Food's my big one: five a package.",
        "Every package of food nets me 5.",
        "If I keep all the food that's fifteen on my end.",
        "Without a deal I'm looking at 6.",
        "water's 4 pts on my card",
        "The food alone would net me 10 if I got two.",
        "Take firewood, it's just 3 for me.",
        "My walk-away sits at six points.",
        "All three waters add up to 12 for me.",
        "Water makes up a third of my points.",
        "Each food is a five-pointer for me.",
        "I can get 6 elsewhere.",
        "Your offer leaves me with 9 points, below what I want.",
        "Water: five. Firewood: four. Food: three.",
        "food=5pts, water=4pts, wood=3pts for me",
        "Honestly two waters already put me at eight.",
        "I'm guaranteed 6 if we walk.",
        "Food is like 4 points to me, give or take.",
        "I rate food at five, water at four.",
    ],
)
def test_own_values_totals_and_batna_leak_in_any_wording(message: str) -> None:
    assert check_message(message, CAMPER).leaked, message


@pytest.mark.parametrize(
    "message",
    [
        "I'd like 2 food and 1 water, and you keep the firewood.",
        "We are 6 people, so food is important.",
        "It's 5 degrees at night up there.",
        "Give me 2 water, that's all I ask.",
        "You said water is worth 5 points to you, so take it.",
        "How many points is firewood worth to you?",
        "Let's split firewood 2-1 and water 1-2.",
        "Food: 2 for me, 1 for you.",
        "We hike 12 km a day, so water matters.",
        "Round 4 already, let's wrap up.",
        "We leave at 6 tomorrow morning.",
        "It costs 12 dollars at the shop.",
        "The shop sells firewood for 5 a bundle.",
        "Do you value water at 5 or at 4?",
        "My BATNA is none of your business.",
        "Two points: first, we're 5 people; second, we leave on June 14.",
        "For me: firewood 3, food 1, water 0.",
        "The forecast is 40% rain.",
        "I'd rate the campground 4 out of 5.",
        "5 of my friends are joining, we need more food.",
    ],
)
def test_quantities_and_other_numbers_pass(message: str) -> None:
    report = check_message(message, CAMPER)
    assert not report.leaked and report.cleaned == message, report.findings


def test_a_number_far_from_every_private_number_is_no_leak() -> None:
    # A bluff far above every value, total and the BATNA states nothing private.
    assert not check_message("Food is worth 90 points to me.", CAMPER).leaked
    assert check_message("Food is worth 6 points to me.", CAMPER).leaked  # within 1 of the true 5


def test_policy_may_allow_values_but_not_the_batna() -> None:
    open_values = _camper({"food": 5, "water": 4, "firewood": 3}, 6, may_disclose=("values",))
    assert not check_message("Firewood is worth 3 points to me.", open_values).leaked
    assert check_message("My walk-away is 6 points.", open_values).findings == ("disclosure",)
    assert check_message("Without a deal I'm looking at 6.", open_values).findings == ("reservation_value",)
    with pytest.raises(ValueError, match="may_disclose"):
        _camper({"food": 5, "water": 4, "firewood": 3}, 6, may_disclose=("secrets",))


def test_the_old_four_field_constructor_still_guards() -> None:
    legacy = PrivateNumbers(0.35, (0.6, 0.3, 0.1), (0.6, 0.3, 0.1), (100.0, 200.0))
    assert check_message("Anything under 0.35 is a no for us.", legacy).findings == ("reservation_value",)
    assert not check_message("Could you meet us at 200?", legacy).leaked


def test_normalised_utilities_stated_as_points_out_of_100_leak() -> None:
    assert check_message("Anything that gets us less than 35 points is a no.", BUYER).leaked
    assert check_message("Price is about 60 points of our 100.", BUYER).leaked


def test_time_is_linear_in_the_message_length() -> None:
    # One long sentence (the worst case for per-sentence work), 11 KB then 8x that: linear costs ~8x
    # the CPU time, quadratic ~64x; the bound is 24x (CPU time: other processes on the machine do not count).
    chunk = "I'll take 2 food and 1 water, you take the firewood, and we are 6 people with 12 kids "
    assert not check_message(chunk * 1000, CAMPER).leaked
    assert_grows_linearly(lambda text: check_message(text, CAMPER), chunk, 125 * len(chunk), 8, slack=3.0)
