"""The public side of a mediated multi-party conversation: utterances, views and the mediator role.

Participants and mediators exchange structured acts (state a position, propose, support, object,
concede, ask, summarise, intervene) rendered to text. A mediator sees only `ConversationView`, the
public record; it decides *when* (`Assessment`) and *how* (`Intervention`).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from enum import Enum
from typing import Any, Protocol

MEDIATOR = "Mediator"
"""Speaker name of the mediator in conversation records."""


class ActKind(Enum):
    """What an utterance does."""

    STATE = "state"
    PROPOSE = "propose"
    SUPPORT = "support"
    OBJECT = "object"
    CONCEDE = "concede"
    ASK = "ask"
    SUMMARISE = "summarise"
    INTERVENE = "intervene"


class Strategy(Enum):
    """The four mediation strategies (ProMediate appendix D)."""

    FACILITATIVE = "facilitative"
    EVALUATIVE = "evaluative"
    TRANSFORMATIVE = "transformative"
    PROBLEM_SOLVING = "problem_solving"


class BreakdownKind(Enum):
    """The four socio-cognitive breakdowns a mediator should notice (ProMediate §3.2)."""

    PERCEPTUAL = "perceptual"
    EMOTIONAL = "emotional"
    COGNITIVE = "cognitive"
    COMMUNICATION = "communication"


@dataclass(frozen=True, slots=True)
class Utterance:
    """One turn's speech, as a structured act plus its rendered text.

    Attributes:
        turn: Conversation turn (from 1).
        speaker: Participant name, or MEDIATOR.
        act: What the utterance does.
        topic: The topic it is about (None for general remarks).
        option: The option it names on that topic (a letter such as "B"), if any.
        package: A full or partial package (topic → option) it puts forward, if any.
        addressee: The participant it is directed at, if any.
        tone: From -1 (hostile) through 0 (neutral) to 1 (warm).
        strategy: For interventions, the mediation strategy used.
        text: The rendered sentence(s).
    """

    turn: int
    speaker: str
    act: ActKind
    topic: str | None = None
    option: str | None = None
    package: Mapping[str, str] | None = None
    addressee: str | None = None
    tone: float = 0.0
    strategy: Strategy | None = None
    text: str = ""

    @property
    def is_intervention(self) -> bool:
        """Whether the mediator said this."""
        return self.act is ActKind.INTERVENE

    def to_json(self) -> dict[str, Any]:
        """A JSON-ready dict (the payload of an "utterance" or "intervention" event)."""
        return {
            "turn": self.turn,
            "speaker": self.speaker,
            "act": self.act.value,
            "topic": self.topic,
            "option": self.option,
            "package": dict(self.package) if self.package is not None else None,
            "addressee": self.addressee,
            "tone": round(self.tone, 4),
            "strategy": self.strategy.value if self.strategy is not None else None,
            "text": self.text,
        }

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> Utterance:
        """Inverse of to_json."""
        strategy = data.get("strategy")
        package = data.get("package")
        return cls(
            turn=int(data["turn"]),
            speaker=str(data["speaker"]),
            act=ActKind(data["act"]),
            topic=data.get("topic"),
            option=data.get("option"),
            package=dict(package) if package is not None else None,
            addressee=data.get("addressee"),
            tone=float(data.get("tone", 0.0)),
            strategy=Strategy(strategy) if strategy is not None else None,
            text=str(data.get("text", "")),
        )


@dataclass(frozen=True, slots=True)
class ConversationView:
    """The public record of a conversation: everything a mediator (or an observer) may see.

    Attributes:
        topics: Topics under discussion, in agenda order.
        options: Per topic, option letter → short public description.
        parties: Participants, in scenario order (the mediator is not one).
        turn: The turn about to be taken (from 1).
        max_turns: The turn budget.
        utterances: Everything said so far (participants and mediator), in order.
        silent_turns: Turns in which nobody spoke.
    """

    topics: tuple[str, ...]
    options: Mapping[str, Mapping[str, str]]
    parties: tuple[str, ...]
    turn: int
    max_turns: int
    utterances: tuple[Utterance, ...]
    silent_turns: tuple[int, ...] = ()

    @property
    def last(self) -> Utterance | None:
        """The most recent utterance, if any."""
        return self.utterances[-1] if self.utterances else None

    def recent(self, count: int) -> tuple[Utterance, ...]:
        """The last count utterances."""
        return self.utterances[-count:] if count > 0 else ()

    def positions(self) -> dict[str, dict[str, str]]:
        """Per party, per topic, the option it last stood for in public (state, propose, support, concede)."""
        found: dict[str, dict[str, str]] = {party: {} for party in self.parties}
        for utterance in self.utterances:
            if utterance.speaker not in found:
                continue
            if utterance.act in _POSITION_ACTS and utterance.topic and utterance.option:
                found[utterance.speaker][utterance.topic] = utterance.option
            if utterance.act is ActKind.PROPOSE and utterance.package:
                found[utterance.speaker].update(utterance.package)
        return found

    def objections(self) -> dict[str, dict[str, set[str]]]:
        """Per party, per topic, the options it has objected to in public."""
        found: dict[str, dict[str, set[str]]] = {party: {} for party in self.parties}
        for utterance in self.utterances:
            if (
                utterance.act is ActKind.OBJECT
                and utterance.topic
                and utterance.option
                and utterance.speaker in found
            ):
                found[utterance.speaker].setdefault(utterance.topic, set()).add(utterance.option)
        return found

    def turns_since_spoke(self, party: str) -> int:
        """Turns since party last spoke (the current turn number if it never has)."""
        for utterance in reversed(self.utterances):
            if utterance.speaker == party:
                return self.turn - utterance.turn
        return self.turn


_POSITION_ACTS = frozenset({ActKind.STATE, ActKind.PROPOSE, ActKind.SUPPORT, ActKind.CONCEDE})


@dataclass(frozen=True, slots=True)
class Breakdown:
    """One detected breakdown in the public record.

    Attributes:
        kind: Which of the four kinds.
        parties: The participants involved.
        topic: The topic involved, if one.
        severity: Urgency contribution, 0 to 1.
        evidence: A one-line, human-readable reason.
    """

    kind: BreakdownKind
    parties: tuple[str, ...]
    topic: str | None
    severity: float
    evidence: str


@dataclass(frozen=True, slots=True)
class Assessment:
    """A mediator's answer to "should I speak now?".

    Attributes:
        intervene: Whether it will speak this turn.
        motivation: Motivation to intervene, 1 (none) to 5 (urgent).
        reasons: Why, one line each.
        breakdowns: What it noticed.
    """

    intervene: bool
    motivation: float
    reasons: tuple[str, ...] = ()
    breakdowns: tuple[Breakdown, ...] = field(default_factory=tuple)


class ConversationMediator(Protocol):
    """A plug-in mediator for conversations: decide when, then how.

    Implementations see only the public `ConversationView`. `no_consecutive` promises never to
    intervene in two consecutive turns (checked by `parley.testing.check_mediator`).
    """

    name: str
    no_consecutive: bool

    def assess(self, view: ConversationView) -> Assessment:
        """Decide whether to intervene this turn, with a motivation score and reasons."""
        ...

    def intervene(self, view: ConversationView, assessment: Assessment) -> Utterance:
        """The intervention to deliver (act INTERVENE, speaker MEDIATOR, turn = view.turn)."""
        ...
