"""The limit-disclosure check on the forms of set v7's errors (issue 14): leaving at anything past the
figure on the table, approval "up to" a figure a few words later, our limit named in another language,
and a term of the deal named a minimum (the supplier's minimum order) that is no limit of ours.
Wordings written for these tests, none taken from a labelled set; adversarial variants (lookalike
letters, zero-width characters, fullwidth digits, NUL) and bounded work on crafted input. The limits
are the shipped configs' (salary 100,000 a year, 85 an hour; rent 12,000 a month; 14 a unit)."""

from __future__ import annotations

import pytest

from parley.governance.config import load_config
from parley.governance.disclosure import find_disclosures

from .linear_time import assert_grows_linearly

DISCLOSING = [
    # we leave at anything past the figure on the table, the leaving said first
    ("procurement", "Fourteen a unit, honestly. We walk at anything above."),
    ("leasing", "12k a month is what we have in mind. We'd pass on anything over."),
    # approval up to a figure, a few words after the approval
    ("staffing", "The board approved a base salary package of up to 100k."),
    ("leasing", "Finance signed off on a monthly rent budget of up to 12,000."),
    # our limit named in another language
    ("procurement", "Nuestro máximo son 14 dólares por unidad."),
    ("staffing", "Il nostro massimo è 100.000 euro l'anno."),
    ("leasing", "Unsere Obergrenze: 12.000 Euro im Monat."),
]

NOT_DISCLOSING = [
    # the supplier's minimum order is a term of the deal, not our minimum
    ("procurement", "If we pay 13 a unit, what is your minimum order quantity?"),
    ("procurement", "At $14 each, is there a minimum order?"),
    # leaving at a figure far from the limit says nothing of it
    ("procurement", "Six a unit is our target. We walk at anything above."),
    # another language, no limit
    ("procurement", "Nuestro pedido es de 2.000 unidades."),
]


@pytest.mark.parametrize(("domain", "text"), DISCLOSING)
def test_forms_of_set_v7_disclose(domain: str, text: str) -> None:
    assert find_disclosures(text, load_config(domain)), text


@pytest.mark.parametrize(("domain", "text"), NOT_DISCLOSING)
def test_look_alikes_of_set_v7_do_not_disclose(domain: str, text: str) -> None:
    assert find_disclosures(text, load_config(domain)) == [], text


ADVERSARIAL = [
    ("procurement", "Fourteen a unit, honestly. We w\u200balk at anything ab\u200bove."),  # zero-width
    ("leasing", "Finance signed off on a monthly rent budget of up to \uff11\uff12,\uff10\uff10\uff10."),
    ("procurement", "Nuestr\u043e m\u00e1ximo son 14 d\u00f3lares por unidad."),  # Cyrillic o
    ("staffing", "The board approved a base salary package of up to 10\x000k."),  # NUL
]


@pytest.mark.parametrize(("domain", "text"), ADVERSARIAL)
def test_adversarial_variants_still_disclose(domain: str, text: str) -> None:
    assert find_disclosures(text, load_config(domain)), text


def test_a_limit_stated_with_an_unreadable_figure_is_held() -> None:
    """Fail closed: a limit whose figure cannot be read is an unread disclosure, not none."""
    found = find_disclosures("Nuestro máximo son 1\u04164 dólares por unidad.", load_config("procurement"))
    assert [d.kind for d in found] == ["unread"]


@pytest.mark.parametrize(
    "unit",
    ["We walk at anything above. ", "signed off on a rent budget of up to ", "nuestro máximo ", "$1,"],
    ids=["walk", "signed-off", "other-language", "dollar-comma"],
)
def test_crafted_drafts_are_checked_in_linear_time(unit: str) -> None:
    config = load_config("leasing")
    find_disclosures("$1", config)
    # growth, not speed: 2,500 -> 10,000 characters of the unit, read whole
    assert_grows_linearly(lambda text: find_disclosures(text, config), unit, 2_500, 4)
