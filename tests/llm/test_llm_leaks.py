"""The utility-leak guard: private numbers and BATNA talk are stripped, ordinary haggling passes."""

from __future__ import annotations

import pytest
from llm_market import market_parties

from parley.llm import PrivateNumbers, check_message
from parley.llm.leaks import stated_numbers

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
