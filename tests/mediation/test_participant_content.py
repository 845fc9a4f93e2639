"""Simulated participants react to what an intervention says, never to which mediator said it."""

from __future__ import annotations

from dataclasses import dataclass, fields, replace

import numpy as np
import pytest

from parley.mediation.conversation import MEDIATOR, ActKind, Assessment, ConversationView, Strategy, Utterance
from parley.scenarios.importers.promediate import load_promediate_case
from parley.scenarios.model import Scenario
from parley.simulation.behaviour import (
    DEFAULT_BEHAVIOUR,
    ParticipantBehaviour,
    behaviour_parameters,
    names_party,
    normalised,
    perceive_intervention,
)
from parley.simulation.conversation import run_conversation, simulated_participants
from parley.simulation.modes import ConflictMode
from parley.simulation.participants import SimulatedParticipant


@pytest.fixture(scope="module")
def hmo() -> Scenario:
    return load_promediate_case("hmo")


def _participant(scenario: Scenario, index: int = 0, seed: int = 7) -> SimulatedParticipant:
    participants = simulated_participants(scenario, ConflictMode.COMPETING, seed)
    participant = list(participants.values())[index]
    assert isinstance(participant, SimulatedParticipant)
    return participant


def _state(participant: SimulatedParticipant) -> tuple[object, ...]:
    return (
        dict(participant.concession),
        participant.frustration,
        dict(participant.position),
        dict(participant.suggestion),
    )


def _said(text: str, strategy: Strategy | None, topic: str, **extra: object) -> Utterance:
    return Utterance(4, MEDIATOR, ActKind.INTERVENE, topic, strategy=strategy, tone=0.3, text=text, **extra)  # type: ignore[arg-type]


@pytest.mark.parametrize(
    "strategies", [(Strategy.TRANSFORMATIVE, Strategy.FACILITATIVE), (Strategy.EVALUATIVE, None)]
)
def test_the_same_words_under_two_strategy_labels_move_a_participant_identically(
    hmo: Scenario, strategies: tuple[Strategy | None, Strategy | None]
) -> None:
    topic = hmo.space.names[0]
    first, second = _participant(hmo), _participant(hmo)
    name = first.name
    text = f"{name}, I sense some frustration; can we acknowledge each other's concerns on {topic}?"
    first.observe(_said(text, strategies[0], topic))
    second.observe(_said(text, strategies[1], topic))
    assert _state(first) == _state(second)
    view = ConversationView(hmo.space.names, {}, hmo.party_names, 5, 60, (_said(text, strategies[0], topic),))
    assert first.think(view) == second.think(view)


@dataclass
class _Scripted:
    """A mediator that speaks every fourth turn with a fixed text, under its own name and strategy label."""

    name: str
    strategy: Strategy
    text: str
    no_consecutive: bool = True

    def assess(self, view: ConversationView) -> Assessment:
        return Assessment(view.turn % 4 == 0, 4.0 if view.turn % 4 == 0 else 1.0)

    def intervene(self, view: ConversationView, assessment: Assessment) -> Utterance:
        topic = view.topics[view.turn % len(view.topics)]
        return Utterance(
            view.turn, MEDIATOR, ActKind.INTERVENE, topic, tone=0.5, strategy=self.strategy, text=self.text
        )


def test_two_mediators_saying_the_same_thing_get_the_same_conversation(hmo: Scenario) -> None:
    text = f"{' and '.join(hmo.party_names)}, this matters to all of you; what would make this workable?"
    social_like = _Scripted("social", Strategy.TRANSFORMATIVE, text)
    generic_like = _Scripted("generic", Strategy.FACILITATIVE, text)
    first = run_conversation(hmo, social_like, mode=ConflictMode.COMPETING, seed=3)
    second = run_conversation(hmo, generic_like, mode=ConflictMode.COMPETING, seed=3)
    spoken = [u.to_json() for u in first.utterances if not u.is_intervention]
    assert spoken == [u.to_json() for u in second.utterances if not u.is_intervention]
    assert first.consensus == second.consensus


def test_being_named_speeds_concession_whoever_names_them(hmo: Scenario) -> None:
    topic = hmo.space.names[0]
    named, unnamed = _participant(hmo, 0), _participant(hmo, 0)
    rate = named.profile.concession_rate
    for participant, text in (
        (named, f"{named.name}, could you move on {topic}?"),
        (unnamed, f"Could we move on {topic}?"),
    ):
        before = participant.concession[topic]
        participant.observe(_said(text, Strategy.FACILITATIVE, topic))  # the generic mediator's label
        participant.concession[topic] -= before
    assert unnamed.concession[topic] == pytest.approx(rate * DEFAULT_BEHAVIOUR.mediator_concession)
    assert named.concession[topic] == pytest.approx(
        rate * DEFAULT_BEHAVIOUR.mediator_concession * DEFAULT_BEHAVIOUR.naming_concession
    )


def test_the_naming_effect_is_a_parameter(hmo: Scenario) -> None:
    topic = hmo.space.names[0]
    participant = _participant(hmo)
    participant = replace(participant, behaviour=replace(DEFAULT_BEHAVIOUR, naming_concession=1.0))
    participant.observe(_said(f"{participant.name}, please reconsider {topic}.", None, topic))
    assert participant.concession[topic] == pytest.approx(participant.profile.concession_rate)


@pytest.mark.parametrize(
    ("text", "name", "named"),
    [
        ("PCI, what do you need?", "PCI", True),
        ("pci, what do you need?", "PCI", True),
        ("P\u200bCI, what do you need?", "PCI", True),  # a zero-width space hidden in the name
        ("\uff30\uff23\uff29, what do you need?", "PCI", True),  # full-width letters fold under NFKC
        ("PCIX and HMO", "PCI", False),  # part of another word
        (
            "\u0420CI, what do you need?",
            "PCI",
            False,
        ),  # Cyrillic Er: a different name to a reader of code points
        ("anything", "", False),
        ("", "PCI", False),
    ],
)
def test_names_party_matches_whole_words_through_invisible_and_compatibility_characters(
    text: str, name: str, named: bool
) -> None:
    assert names_party(text, name) is named


def test_perception_survives_huge_and_malformed_text() -> None:
    huge = "x " * 500_000 + "Alex?"
    heard = perceive_intervention(Utterance(3, MEDIATOR, ActKind.INTERVENE, text=huge), "Alex")
    assert heard.addressed and heard.asks and not heard.acknowledges
    assert normalised("\u202eAlex\u202c") == "alex"  # bidi controls removed
    nothing = perceive_intervention(Utterance(3, MEDIATOR, ActKind.INTERVENE, text="\x00\x01"), "Alex")
    assert not nothing.addressed and nothing.topics == () and nothing.suggestion == {}


def test_the_addressee_field_counts_as_naming() -> None:
    heard = perceive_intervention(
        Utterance(3, MEDIATOR, ActKind.INTERVENE, addressee="Alex", text="Thoughts?"), "Alex"
    )
    assert heard.addressed


def test_every_behaviour_field_is_documented_with_a_default_and_a_source() -> None:
    documented = behaviour_parameters()
    assert [name for name, *_ in documented] == [f.name for f in fields(ParticipantBehaviour)]
    for name, default, meaning, source in documented:
        assert np.isfinite(default) and meaning and source, name
