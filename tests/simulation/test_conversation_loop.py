"""The mediated conversation loop: turn budget, speaker selection, determinism, plug-in participants."""

from __future__ import annotations

import os
from collections import Counter
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from parley.domain.utility import RankedPreferenceUtility
from parley.errors import ProtocolViolation, ScenarioError
from parley.mediation.conversation import MEDIATOR, ActKind, ConversationView, Utterance
from parley.mediation.mediators import NoAgentMediator, SocialMediator, create_mediator
from parley.protocol.clock import FakeClock
from parley.scenarios.importers.promediate import load_promediate_case
from parley.scenarios.model import Scenario
from parley.simulation.conversation import Conversation, run_conversation, turn_budget
from parley.simulation.modes import ConflictMode
from parley.simulation.participants import SpeakingSettings, Thought

GOLDEN = Path(__file__).parent / "golden" / "hmo_social_competing_seed0.jsonl"


@pytest.fixture(scope="module")
def hmo() -> Scenario:
    return load_promediate_case("hmo")


def test_turn_budget_is_proportional_to_parties_times_topics() -> None:
    assert turn_budget(6, 4) == 60
    assert turn_budget(3, 5) == 38
    assert turn_budget(2, 2) == 20


def test_every_turn_is_one_utterance_intervention_or_silence(hmo: Scenario) -> None:
    result = run_conversation(hmo, create_mediator("social"), mode=ConflictMode.COMPETING, seed=0)
    kinds = [e for e in result.trajectory if e.kind in ("utterance", "intervention", "silence")]
    assert [e.round for e in kinds] == list(range(1, turn_budget(3, 5) + 1))
    assert len(result.consensus) == len(kinds) + 1
    interventions = [e for e in kinds if e.kind == "intervention"]
    assert interventions and all(e.party == MEDIATOR for e in interventions)


def test_same_seed_same_transcript_and_different_seed_differs(hmo: Scenario) -> None:
    first = run_conversation(hmo, create_mediator("generic"), mode=ConflictMode.GENERAL, seed=4)
    again = run_conversation(hmo, create_mediator("generic"), mode=ConflictMode.GENERAL, seed=4)
    other = run_conversation(hmo, create_mediator("generic"), mode=ConflictMode.GENERAL, seed=5)
    assert first.trajectory.to_jsonl() == again.trajectory.to_jsonl()
    assert first.trajectory.to_jsonl() != other.trajectory.to_jsonl()


def test_private_events_stay_private(hmo: Scenario) -> None:
    result = run_conversation(hmo, NoAgentMediator(), seed=0)
    for event in result.trajectory.of_kind("preferences"):
        assert event.audience == event.party
    for event in result.trajectory.of_kind("speaker_selection", "mediator_assessment"):
        assert not event.is_public


def test_speaker_selection_picks_the_most_motivated_above_threshold(hmo: Scenario) -> None:
    result = run_conversation(hmo, NoAgentMediator(), seed=1)
    for event in result.trajectory.of_kind("speaker_selection"):
        motivations = {p: m for p, m in event.data["motivations"].items() if m is not None}
        if event.data["speaker"] is not None:
            assert motivations[event.data["speaker"]] == max(motivations.values())


def test_accommodating_groups_converge_more_than_competing_ones(hmo: Scenario) -> None:
    def mean_change(mode: ConflictMode) -> float:
        runs = [run_conversation(hmo, NoAgentMediator(), mode=mode, seed=s) for s in range(3)]
        return float(np.mean([r.consensus[-1] - r.consensus[0] for r in runs]))

    assert mean_change(ConflictMode.ACCOMMODATING) > mean_change(ConflictMode.COMPETING)


def test_competing_participants_object_more_and_sound_harsher(hmo: Scenario) -> None:
    def acts(mode: ConflictMode) -> tuple[int, float]:
        result = run_conversation(hmo, NoAgentMediator(), mode=mode, seed=0)
        said = [u for u in result.utterances if not u.is_intervention]
        return Counter(u.act for u in said)[ActKind.OBJECT], float(np.mean([u.tone for u in said]))

    competing, accommodating = acts(ConflictMode.COMPETING), acts(ConflictMode.ACCOMMODATING)
    assert competing[0] > accommodating[0]
    assert competing[1] < accommodating[1]


def test_the_clock_advances_with_speaking_time(hmo: Scenario) -> None:
    result = run_conversation(hmo, NoAgentMediator(), seed=0, max_turns=5)
    times = [e.time for e in result.trajectory.of_kind("utterance")]
    assert times == sorted(times) and times[-1] > times[0]
    frozen = run_conversation(hmo, NoAgentMediator(), seed=0, max_turns=5, clock=FakeClock(100.0))
    assert {e.time for e in frozen.trajectory} == {100.0}


class EchoParticipant:
    """A stand-in for an LLM-backed participant: always states option A on the first topic."""

    def __init__(self, name: str) -> None:
        self._name = name
        self.heard: list[Utterance] = []

    @property
    def name(self) -> str:
        return self._name

    @property
    def speaking(self) -> SpeakingSettings:
        return SpeakingSettings(im_threshold=1.0)

    def think(self, view: ConversationView) -> Thought | None:
        return Thought(self._name, ActKind.STATE, view.topics[0], "A", 2.0 + 0.1 * len(self._name))

    def speak(self, thought: Thought, view: ConversationView) -> Utterance:
        return Utterance(
            view.turn, self._name, thought.act, thought.topic, thought.option, text=f"{self._name}: A."
        )

    def observe(self, utterance: Utterance) -> None:
        self.heard.append(utterance)


def test_any_participant_protocol_plugs_in(hmo: Scenario) -> None:
    participants = {name: EchoParticipant(name) for name in hmo.party_names}
    result = run_conversation(hmo, NoAgentMediator(), participants=participants, max_turns=4)
    assert [u.speaker for u in result.utterances] == ["Jamie"] * 4
    assert all(len(p.heard) == 4 for p in participants.values())


class BrokenParticipant(EchoParticipant):
    def speak(self, thought: Thought, view: ConversationView) -> Utterance:
        return Utterance(view.turn, self.name, ActKind.STATE, "No such topic", "A", text="?")


def test_a_malformed_utterance_is_a_protocol_violation(hmo: Scenario) -> None:
    participants = {name: BrokenParticipant(name) for name in hmo.party_names}
    with pytest.raises(ProtocolViolation, match="unknown topic 'No such topic'"):
        run_conversation(hmo, NoAgentMediator(), participants=participants, max_turns=2)


def test_unknown_mode_is_a_clear_error() -> None:
    with pytest.raises(ScenarioError, match="unknown conflict mode 'angry'"):
        ConflictMode.parse("angry")


def test_golden_transcript(hmo: Scenario) -> None:
    """One mediated conversation, byte for byte. Regenerate on purpose with PARLEY_UPDATE_GOLDEN=1."""
    conversation = Conversation(hmo, SocialMediator(), mode=ConflictMode.COMPETING, seed=0)
    text = conversation.run().trajectory.to_jsonl()
    if os.environ.get("PARLEY_UPDATE_GOLDEN") == "1":
        GOLDEN.parent.mkdir(parents=True, exist_ok=True)
        GOLDEN.write_text(text, encoding="utf-8")
    assert GOLDEN.exists(), "golden transcript missing: run with PARLEY_UPDATE_GOLDEN=1"
    assert text == GOLDEN.read_text(encoding="utf-8")


@given(seed=st.integers(0, 10_000), mode=st.sampled_from(list(ConflictMode)))
@settings(max_examples=15)
def test_participants_never_support_or_concede_to_an_option_they_rule_out(
    seed: int, mode: ConflictMode
) -> None:
    scenario = load_promediate_case("williams")
    result = run_conversation(scenario, SocialMediator(), mode=mode, seed=seed, max_turns=25)
    for utterance in result.utterances:
        if utterance.act in (ActKind.SUPPORT, ActKind.CONCEDE, ActKind.PROPOSE) and utterance.topic:
            utility = scenario.party(utterance.speaker).utility
            assert isinstance(utility, RankedPreferenceUtility)
            assert not utility.is_unacceptable(utterance.topic, utterance.option or "")
