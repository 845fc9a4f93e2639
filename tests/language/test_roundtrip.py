"""Every phrasing of every move, rendered on each test scenario, parses back to the same move."""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np
import pytest

from parley.domain.issues import Value
from parley.language import Vocabulary, parse, render, to_action
from parley.language.render import phrasings
from parley.protocol.actions import Accept, Action, Propose, Reject, Say, Walk

from .conftest import camp_vocabulary, lease_vocabulary, random_vocabulary, supply_vocabulary

VOCABULARIES = {
    "camp": camp_vocabulary(),
    "supply": supply_vocabulary(),
    "lease": lease_vocabulary(),
    "strange": random_vocabulary(),
}
STYLE = {"camp": "division", "supply": "terms", "lease": "terms", "strange": "mixed"}


def sample_packages(vocabulary: Vocabulary, count: int = 12) -> list[dict[str, Value]]:
    """Extreme packages (all options first / last) plus a seeded sample."""
    space = vocabulary.space
    rng = np.random.default_rng(7)
    rows = space.sample_indices(count, rng)
    packages = [space.from_indices(row) for row in rows]
    packages.append({issue.name: issue.values[0] for issue in space.issues})
    packages.append({issue.name: issue.values[-1] for issue in space.issues})
    return packages


def same_move(expected: Action, got: Action | None) -> bool:
    match expected, got:
        case Propose(package=a), Propose(package=b):
            return dict(a) == dict(b)
        case Say(priorities=p, asks_priorities=q), Say(priorities=r, asks_priorities=s):
            return tuple(p) == tuple(r) and q == s
        case (Accept(), Accept()) | (Reject(), Reject()) | (Walk(), Walk()):
            return True
        case _:
            return False


def check(vocabulary: Vocabulary, action: Action, speaker: str, variant: int, **options: bool) -> None:
    text = render(action, vocabulary, speaker=speaker, variant=variant, **options)
    parsed = parse(text, vocabulary, speaker=speaker)
    got = to_action(parsed)
    assert same_move(action, got), f"{text!r} read as {got!r} (notes: {parsed.notes})"


def offer_cases() -> list[tuple[str, str, int]]:
    cases: list[tuple[str, str, int]] = []
    for name, style in STYLE.items():
        for kind in (f"propose_{style}", f"counter_{style}"):
            cases.extend((name, kind, variant) for variant in range(len(phrasings(kind))))
    return cases


@pytest.mark.parametrize(("scenario", "kind", "variant"), offer_cases())
def test_offer_phrasings_round_trip(scenario: str, kind: str, variant: int) -> None:
    vocabulary = VOCABULARIES[scenario]
    for speaker in vocabulary.parties:
        for package in sample_packages(vocabulary):
            check(vocabulary, Propose(package), speaker, variant, counter=kind.startswith("counter"))


def simple_moves(vocabulary: Vocabulary) -> dict[str, list[Action]]:
    names = vocabulary.space.names
    rankings: list[tuple[str, ...]] = [names[:1], names[::-1][:2], tuple(names)]
    return {
        "accept": [Accept()],
        "reject": [Reject()],
        "walk": [Walk()],
        "walk_reason": [Walk("the offers are too far from what I need"), Walk("we are out of time")],
        "priorities": [Say("", ranking) for ranking in rankings],
        "ask_priorities": [Say("", (), asks_priorities=True)]
        + [Say("", ranking, asks_priorities=True) for ranking in rankings],
    }


def move_cases() -> list[tuple[str, str, int]]:
    kinds = ("accept", "reject", "walk", "walk_reason", "priorities", "ask_priorities")
    return [
        (scenario, kind, variant)
        for scenario in VOCABULARIES
        for kind in kinds
        for variant in range(len(phrasings(kind)))
    ]


@pytest.mark.parametrize(("scenario", "kind", "variant"), move_cases())
def test_move_phrasings_round_trip(scenario: str, kind: str, variant: int) -> None:
    vocabulary = VOCABULARIES[scenario]
    for action in simple_moves(vocabulary)[kind]:
        check(vocabulary, action, vocabulary.parties[0], variant)


def test_every_phrasing_group_is_exercised() -> None:
    offer_kinds = {kind for _, kind, _ in offer_cases()}
    move_kinds = {kind for _, kind, _ in move_cases()}
    from parley.language.render import load_templates

    clarifications = {"clarify_missing", "clarify_unclear", "clarify_empty"}
    assert set(load_templates().kinds()) == offer_kinds | move_kinds | clarifications


def test_describe_package_matches_render_content(camp: Vocabulary) -> None:
    package: Mapping[str, Value] = {"food": 3, "water": 1, "firewood": 0}
    from parley.language import describe_package

    text = describe_package(package, camp, speaker="alice")
    assert text == "I get 3 food and 1 water; you get 2 water and 3 firewood"
    assert parse(text, camp, speaker="alice").package == package
