"""The inverted frame of the limit-disclosure check (issue 14, round 15): a figure at a private limit in
a draft of ours is held unless its sentence places it as a question, our offer or acceptance, the
counterparty's ask or quote, a market fact or another deal (`safe_frames` in data/disclosure.yaml). It
ships switched off (`bare_margin: -1`) until the lead weighs its cost; these tests switch it on. Forms by
the source set they come from (wordings written for these tests, none from a labelled set), near misses,
obfuscation and linear time."""

from __future__ import annotations

import inspect
from collections.abc import Generator
from dataclasses import replace

import pytest

from parley.governance import disclosure
from parley.governance.config import load_config
from parley.governance.disclosure import find_disclosures

from .blind_sets import NEXT_BLIND
from .linear_time import assert_grows_linearly
from .measure_disclosure_cv import errors, sources

ZW = "\u200b"


@pytest.fixture
def bare_on(monkeypatch: pytest.MonkeyPatch) -> Generator[None]:
    on = replace(disclosure.lexicon(), bare_margin=0.0)
    monkeypatch.setattr(disclosure, "lexicon", lambda: on)
    yield


# (form with the set it comes from; dress; domain; text; whether it discloses)
TABLE: list[tuple[str, str, str, str, bool]] = [
    (
        "v14 other language",
        "plain",
        "staffing",
        "Entre nous, le maximum du poste c'est 100 000 par an.",
        True,
    ),
    ("v14 other language", "plain", "staffing", "Mehr als 100.000 € im Jahr sind leider nicht drin.", True),
    ("v14 unlisted noun", "plain", "procurement", "Fourteen dollars a unit is the lid for us.", True),
    ("v14 unlisted noun", "plain", "leasing", "Our approved rent envelope is 144,000 a year.", True),
    (
        "v14 unlisted noun",
        "obfuscated",
        "procurement",
        f"Fourteen dollars a unit is the l{ZW}id for us.",
        True,
    ),
    ("v4-v14 question", "near miss", "procurement", "Would 14 dollars a unit work for you?", False),
    ("v3-v14 our move", "near miss", "leasing", "We'll pay 12,000 a month for five years.", False),
    ("v3-v14 our move", "near miss", "staffing", "Agreed at 100,000 a year, start in March.", False),
    ("v5-v14 their ask", "near miss", "staffing", "Thanks, noted your ask of 85 an hour.", False),
    ("v10-v14 elsewhere", "near miss", "leasing", "Comparable space nearby is let at 12,000 a month.", False),
    (
        "v10-v14 elsewhere",
        "near miss",
        "procurement",
        "Last year we paid 14 a unit to another supplier.",
        False,
    ),
]


@pytest.mark.parametrize(
    ("form", "dress", "domain", "text", "discloses"), TABLE, ids=[f"{r[0]}-{r[1]}" for r in TABLE]
)
def test_forms_with_the_frame_inverted(
    bare_on: None, form: str, dress: str, domain: str, text: str, discloses: bool
) -> None:
    del form, dress
    assert bool(find_disclosures(text, load_config(domain))) is discloses


def test_the_frame_ships_off_and_adds_findings_only(bare_on: None) -> None:
    """Switched on it only adds findings: every cue finding of the spent sources stays."""
    found = sources()["gaia-h14"]
    on = errors(found)
    assert len(on.missed) <= 5


def test_off_by_default() -> None:
    assert disclosure.lexicon().bare_margin < 0
    assert find_disclosures("Fourteen dollars a unit is the lid for us.", load_config("procurement")) == []


def test_the_measuring_tool_names_no_blind_set() -> None:
    body = inspect.getsource(sources)
    for blind in NEXT_BLIND:
        assert blind not in body


@pytest.mark.parametrize(
    ("domain", "unit"),
    [
        ("procurement", "Fourteen dollars a unit is the lid. "),
        ("leasing", "12,000 a month, 12,000 a month "),
    ],
    ids=["sentences", "one-sentence"],
)
def test_the_inverted_frame_is_linear(bare_on: None, domain: str, unit: str) -> None:
    config = load_config(domain)
    assert_grows_linearly(lambda text: find_disclosures(text, config), unit, 4_000, 8, slack=4.0)
