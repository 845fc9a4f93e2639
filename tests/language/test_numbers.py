"""Numbers in text: digits, separators, scales, currency symbols and words."""

from __future__ import annotations

import pytest

from parley.language.lexicon import load_lexicon
from parley.language.numbers import find_amounts, word_number_value


@pytest.mark.parametrize(
    ("text", "value", "currency"),
    [
        ("$90k", 90000.0, "usd"),
        ("90,000", 90000.0, ""),
        ("1.5 million", 1500000.0, ""),
        ("€42.50", 42.5, "eur"),
        ("ninety five", 95.0, ""),
        ("two hundred and five", 205.0, ""),
        ("twelve thousand", 12000.0, ""),
    ],
)
def test_single_amount(text: str, value: float, currency: str) -> None:
    amounts = find_amounts(text, load_lexicon())
    assert [(a.value, a.currency) for a in amounts] == [(value, currency)]
    assert (amounts[0].start, amounts[0].end) == (0, len(text))


def test_several_amounts_in_order() -> None:
    amounts = find_amounts("3 water, two food and $5", load_lexicon())
    assert [a.value for a in amounts] == [3.0, 2.0, 5.0]


def test_words_that_are_not_numbers() -> None:
    assert word_number_value("lots", load_lexicon()) is None
    assert find_amounts("someone bought nothing", load_lexicon()) == []
