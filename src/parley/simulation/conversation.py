"""The ProMediate conversation loop: mediator first, else the most motivated participant speaks.

Each turn the mediator is asked whether to intervene; if it does, participants are skipped that
turn. Otherwise every participant offers its most motivated thought and the highest one above its
threshold speaks (after a silent turn the lower interrupt threshold applies). Everything is written
as parley `Event`s to one `Trajectory`, deterministic by seed.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from parley.domain.utility import RankedPreferenceUtility
from parley.errors import ProtocolViolation
from parley.mediation.conversation import (
    MEDIATOR,
    ActKind,
    Assessment,
    ConversationMediator,
    ConversationView,
    Utterance,
)
from parley.protocol.clock import Clock, FakeClock
from parley.protocol.events import Event, Trajectory
from parley.scenarios.model import Scenario
from parley.simulation.consensus import (
    AgreementScorer,
    Attitude,
    AttitudeExtractor,
    ConsensusTracker,
    initial_attitude,
)
from parley.simulation.modes import ConflictMode
from parley.simulation.participants import (
    Participant,
    SimulatedParticipant,
    SpeakingSettings,
    Thought,
    topic_values,
)

logger = logging.getLogger(__name__)

TURNS_PER_PARTY_TOPIC = 2.5
"""Turn budget = this × parties × topics (the seed makes it proportional to both)."""

WORDS_PER_SECOND = 2.5
"""Speaking rate for the simulated conversation clock (150 words a minute)."""


def turn_budget(parties: int, topics: int) -> int:
    """The turn budget for a conversation (at least 20, so CC's two 10-turn windows exist)."""
    return max(20, round(TURNS_PER_PARTY_TOPIC * parties * topics))


@dataclass(frozen=True, slots=True)
class ConversationResult:
    """A finished conversation.

    Attributes:
        trajectory: Every event, in order.
        utterances: What was said (participants and mediator).
        consensus: Group consensus after each turn (index 0 = before the first turn).
        topic_consensus: Per topic, consensus after each turn.
        interventions: Turns at which the mediator spoke.
    """

    trajectory: Trajectory
    utterances: tuple[Utterance, ...]
    consensus: tuple[float, ...]
    topic_consensus: Mapping[str, tuple[float, ...]]
    interventions: tuple[int, ...]


def public_options(scenario: Scenario) -> dict[str, dict[str, str]]:
    """Per topic, option → short public description (scenario metadata, else the option itself)."""
    described: Mapping[str, Mapping[str, str]] = scenario.metadata.get("options", {})
    return {
        issue.name: {str(v): str(described.get(issue.name, {}).get(str(v), v)) for v in issue.values}
        for issue in scenario.space.issues
    }


def simulated_participants(scenario: Scenario, mode: ConflictMode, seed: int) -> dict[str, Participant]:
    """One deterministic participant per party, each with its own generator derived from seed."""
    streams = np.random.SeedSequence(seed).spawn(len(scenario.parties))
    participants: dict[str, Participant] = {}
    for party, stream in zip(scenario.parties, streams, strict=True):
        values, weights = topic_values(party.utility, scenario.space)
        speaking = SpeakingSettings.from_mapping(party.persona.get("speaking", {}))
        rng = np.random.default_rng(stream)
        participants[party.name] = SimulatedParticipant(
            party.name, values, weights, mode, speaking, rng, party.utility
        )
    return participants


def initial_attitudes(scenario: Scenario) -> dict[str, dict[str, Attitude]]:
    """Per party and topic, the attitude its preference profile implies (first choice, ruled-out options)."""
    attitudes: dict[str, dict[str, Attitude]] = {}
    for party in scenario.parties:
        values, _ = topic_values(party.utility, scenario.space)
        utility = party.utility
        attitudes[party.name] = {}
        for topic, options in values.items():
            first = max(options, key=lambda o: options[o])
            ruled_out = [
                o
                for o in options
                if isinstance(utility, RankedPreferenceUtility) and utility.is_unacceptable(topic, o)
            ]
            ruled_out = ruled_out or [o for o, worth in options.items() if worth < 0]
            attitudes[party.name][topic] = initial_attitude(first, ruled_out)
    return attitudes


class Conversation:
    """One mediated conversation, run turn by turn.

    Args:
        scenario: Topics, options, parties and their preferences.
        mediator: The mediator (use NoAgentMediator for none).
        mode: Conflict mode of every participant.
        seed: Seed for every random choice.
        participants: Override the simulated participants (e.g. LLM-backed ones).
        max_turns: Turn budget (default: proportional to parties × topics).
        clock: Clock for event times (default: a fake clock advanced by speaking time).
        on_event: Called with every event as it is written.
        extractor: Attitude extractor for live consensus tracking (default: the deterministic one).
        scorer: Pairwise agreement scorer (default: the deterministic five-dimension scorer).
    """

    def __init__(
        self,
        scenario: Scenario,
        mediator: ConversationMediator,
        *,
        mode: ConflictMode = ConflictMode.GENERAL,
        seed: int = 0,
        participants: Mapping[str, Participant] | None = None,
        max_turns: int | None = None,
        clock: Clock | None = None,
        on_event: Callable[[Event], None] | None = None,
        extractor: AttitudeExtractor | None = None,
        scorer: AgreementScorer | None = None,
    ) -> None:
        self.scenario = scenario
        self.mediator = mediator
        self.mode = mode
        self.seed = seed
        self.participants = dict(participants or simulated_participants(scenario, mode, seed))
        self.parties = scenario.party_names
        self.topics = scenario.space.names
        self.options = public_options(scenario)
        self.max_turns = max_turns or turn_budget(len(self.parties), len(self.topics))
        self._fake_clock = clock is None
        self.clock: Clock = clock or FakeClock()
        self.on_event = on_event
        self.trajectory = Trajectory()
        self.utterances: list[Utterance] = []
        self.silent: list[int] = []
        self.tracker = ConsensusTracker(
            self.parties, self.topics, initial_attitudes(scenario), extractor, scorer
        )
        self.series: list[float] = [self.tracker.consensus()]
        self.topic_series: dict[str, list[float]] = {
            t: [self.tracker.topic_consensus(t)] for t in self.topics
        }

    def run(self) -> ConversationResult:
        """Play every turn of the budget and return the result."""
        self._start()
        for turn in range(1, self.max_turns + 1):
            self.step(turn)
        self._emit("conversation_ended", 0, None, self._summary())
        interventions = tuple(u.turn for u in self.utterances if u.is_intervention)
        return ConversationResult(
            self.trajectory,
            tuple(self.utterances),
            tuple(self.series),
            {t: tuple(s) for t, s in self.topic_series.items()},
            interventions,
        )

    def view(self, turn: int) -> ConversationView:
        """The public record before turn."""
        return ConversationView(
            self.topics,
            self.options,
            self.parties,
            turn,
            self.max_turns,
            tuple(self.utterances),
            tuple(self.silent),
        )

    def step(self, turn: int) -> Utterance | None:
        """Play one turn: mediator first, else inner-thought speaker selection."""
        view = self.view(turn)
        assessment = self.mediator.assess(view)
        self._emit("mediator_assessment", turn, MEDIATOR, _assessment_json(assessment), audience=MEDIATOR)
        if assessment.intervene:
            utterance = self._checked(self.mediator.intervene(view, assessment), turn)
            return self._deliver(utterance, "intervention")
        thoughts = {name: p.think(view) for name, p in self.participants.items()}
        speaker = self._select(thoughts, turn)
        self._emit("speaker_selection", turn, None, _selection_json(thoughts, speaker), audience="simulator")
        if speaker is None:
            self.silent.append(turn)
            self._emit("silence", turn, None, {"turn": turn})
            self._record_consensus(turn, [])
            return None
        thought = thoughts[speaker]
        assert thought is not None
        utterance = self._checked(self.participants[speaker].speak(thought, view), turn, speaker)
        return self._deliver(utterance, "utterance")

    def intervene(self, utterance: Utterance) -> Utterance:
        """Deliver a mediator's intervention for its turn, as `step` does when the mediator speaks
        (used to replay a state with and without an intervention).

        Raises:
            ProtocolViolation: a malformed intervention.
        """
        return self._deliver(self._checked(utterance, utterance.turn), "intervention")

    def _start(self) -> None:
        self._emit(
            "conversation_started",
            0,
            None,
            {
                "scenario": self.scenario.name,
                "mode": self.mode.value,
                "mediator": getattr(self.mediator, "name", type(self.mediator).__name__),
                "seed": self.seed,
                "max_turns": self.max_turns,
                "parties": list(self.parties),
                "topics": list(self.topics),
                "options": self.options,
            },
        )
        for party in self.parties:
            attitudes = {t: a.to_json() for t, a in self.tracker.attitudes[party].items()}
            self._emit("preferences", 0, party, {"attitudes": attitudes}, audience=party)
        self._emit("consensus", 0, None, self._consensus_json())

    def _select(self, thoughts: Mapping[str, Thought | None], turn: int) -> str | None:
        after_silence = bool(self.silent) and self.silent[-1] == turn - 1
        eligible: list[tuple[float, int, str]] = []
        for index, (name, thought) in enumerate(thoughts.items()):
            if thought is None:
                continue
            settings = self.participants[name].speaking
            bar = settings.interrupt_threshold if after_silence else settings.im_threshold
            if thought.motivation >= bar:
                eligible.append((thought.motivation, -index, name))
        return max(eligible)[2] if eligible else None

    def _checked(self, utterance: Utterance, turn: int, speaker: str = MEDIATOR) -> Utterance:
        problems = _problems(utterance, turn, speaker, self.options)
        if problems:
            raise ProtocolViolation("; ".join(problems), party=speaker, action=utterance.to_json())
        return utterance

    def _deliver(self, utterance: Utterance, kind: str) -> Utterance:
        if self._fake_clock and isinstance(self.clock, FakeClock):
            self.clock.advance(max(1.0, len(utterance.text.split()) / WORDS_PER_SECOND))
        self.utterances.append(utterance)
        self._emit(kind, utterance.turn, utterance.speaker, utterance.to_json())
        for participant in self.participants.values():
            participant.observe(utterance)
        changed = self.tracker.update(utterance)
        if changed:
            attitudes = {t: self.tracker.attitudes[utterance.speaker][t].to_json() for t in changed}
            self._emit("attitude", utterance.turn, utterance.speaker, {"attitudes": attitudes})
        self._record_consensus(utterance.turn, changed)
        return utterance

    def _record_consensus(self, turn: int, changed: Sequence[str]) -> None:
        self.series.append(self.tracker.consensus())
        for topic in self.topics:
            self.topic_series[topic].append(self.tracker.topic_consensus(topic))
        self._emit("consensus", turn, None, self._consensus_json())

    def _consensus_json(self) -> dict[str, Any]:
        return {
            "group": round(self.series[-1], 6),
            "topics": {t: round(self.topic_series[t][-1], 6) for t in self.topics},
        }

    def _summary(self) -> dict[str, Any]:
        positions = {p: {t: a.position for t, a in self.tracker.attitudes[p].items()} for p in self.parties}
        settled = {
            t: next(iter(options)) if len(options := {positions[p][t] for p in self.parties}) == 1 else None
            for t in self.topics
        }
        return {
            "turns": self.max_turns,
            "utterances": sum(1 for u in self.utterances if not u.is_intervention),
            "interventions": sum(1 for u in self.utterances if u.is_intervention),
            "silent_turns": len(self.silent),
            "final_consensus": round(self.series[-1], 6),
            "positions": positions,
            "settled": settled,
        }

    def _emit(
        self, kind: str, turn: int, party: str | None, data: Mapping[str, Any], audience: str = "public"
    ) -> Event:
        event = self.trajectory.append(
            kind, round=turn, party=party, data=data, audience=audience, time=self.clock.now()
        )
        if self.on_event is not None:
            self.on_event(event)
        return event


def _problems(
    utterance: Utterance, turn: int, speaker: str, options: Mapping[str, Mapping[str, str]]
) -> list[str]:
    problems: list[str] = []
    if utterance.turn != turn:
        problems.append(f"utterance is for turn {utterance.turn}, expected {turn}")
    if utterance.speaker != speaker:
        problems.append(f"speaker is {utterance.speaker!r}, expected {speaker!r}")
    if (speaker == MEDIATOR) != (utterance.act is ActKind.INTERVENE):
        problems.append(f"act {utterance.act.value!r} is not allowed for {speaker!r}")
    if utterance.topic is not None and utterance.topic not in options:
        problems.append(f"unknown topic {utterance.topic!r}")
    topic_options = options.get(utterance.topic or "")
    if topic_options is not None and utterance.option is not None and utterance.option not in topic_options:
        problems.append(f"unknown option {utterance.option!r} on {utterance.topic!r}")
    for topic, option in (utterance.package or {}).items():
        if topic not in options or option not in options[topic]:
            problems.append(f"package names unknown {topic!r}: {option!r}")
    if not utterance.text.strip():
        problems.append("empty text")
    return problems


def _assessment_json(assessment: Assessment) -> dict[str, Any]:
    return {
        "intervene": assessment.intervene,
        "motivation": round(assessment.motivation, 4),
        "reasons": list(assessment.reasons),
        "breakdowns": [
            {
                "kind": b.kind.value,
                "parties": list(b.parties),
                "topic": b.topic,
                "severity": round(b.severity, 4),
            }
            for b in assessment.breakdowns
        ],
    }


def _selection_json(thoughts: Mapping[str, Thought | None], speaker: str | None) -> dict[str, Any]:
    return {
        "speaker": speaker,
        "motivations": {name: (round(t.motivation, 4) if t else None) for name, t in thoughts.items()},
        "thought": None if speaker is None or thoughts[speaker] is None else _thought_json(thoughts[speaker]),
    }


def _thought_json(thought: Thought | None) -> dict[str, Any] | None:
    if thought is None:
        return None
    return {
        "act": thought.act.value,
        "topic": thought.topic,
        "option": thought.option,
        "reason": thought.reason,
    }


def run_conversation(
    scenario: Scenario,
    mediator: ConversationMediator,
    *,
    mode: ConflictMode = ConflictMode.GENERAL,
    seed: int = 0,
    participants: Mapping[str, Participant] | None = None,
    max_turns: int | None = None,
    clock: Clock | None = None,
    on_event: Callable[[Event], None] | None = None,
    extractor: AttitudeExtractor | None = None,
    scorer: AgreementScorer | None = None,
) -> ConversationResult:
    """Run one mediated conversation (see `Conversation`)."""
    conversation = Conversation(
        scenario,
        mediator,
        mode=mode,
        seed=seed,
        participants=participants,
        max_turns=max_turns,
        clock=clock,
        on_event=on_event,
        extractor=extractor,
        scorer=scorer,
    )
    return conversation.run()
