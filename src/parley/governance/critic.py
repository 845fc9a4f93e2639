"""A rule-based Critic and MergeChannels (Algorithm 2): human > safety > clarity > persuasion.

Conflicts are detected by shared topics and resolved by precedence with the losing item logged;
persuasion is only admitted after the information gate; the result is fitted to a token budget.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from typing import Any, Literal, Protocol

from parley.governance.config import DomainConfig, load_yaml_data
from parley.governance.stcc import expected_gain, rank_attributes
from parley.governance.tci import TaskCompletenessIndex
from parley.governance.text import count_tokens, find_phrases

Channel = Literal["human", "safety", "clarity", "persuasion"]
PRECEDENCE: tuple[Channel, ...] = ("human", "safety", "clarity", "persuasion")
_PROHIBITIVE = ("never", "don't", "do not", "avoid", "no ", "stop", "without")
_STALE_TURNS = 5
_STALE_RELEVANCE = 0.5


@dataclass(frozen=True, slots=True)
class Guidance:
    """One item of guidance for the next message.

    Attributes:
        channel: Which stream it came from.
        text: The directive.
        topics: What it touches (for conflict detection).
        relevance: In [0, 1]; ranks critic items.
        actionability: In [0, 1]; ranks critic items.
        turn: Turn at which it was produced (for recency decay).
    """

    channel: Channel
    text: str
    topics: tuple[str, ...] = ()
    relevance: float = 1.0
    actionability: float = 1.0
    turn: int = 0
    say: str = ""

    @property
    def tokens(self) -> int:
        """Approximate token cost."""
        return count_tokens(self.text)

    @property
    def prohibits(self) -> bool:
        """Whether this item forbids its topics (e.g. "Never offer relocation")."""
        lowered = f" {self.text.lower()} "
        return any(word in lowered for word in _PROHIBITIVE)

    def to_json(self) -> dict[str, Any]:
        """A JSON-ready dict."""
        return {
            "channel": self.channel,
            "text": self.text,
            "topics": list(self.topics),
            "relevance": round(self.relevance, 3),
            "turn": self.turn,
        }

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Guidance:
        """Inverse of to_json (for stored human overrides)."""
        return cls(
            data["channel"],
            data["text"],
            tuple(data["topics"]),
            float(data["relevance"]),
            1.0,
            int(data["turn"]),
        )


@dataclass(frozen=True, slots=True)
class Dropped:
    """A guidance item left out of the merge, and why."""

    item: Guidance
    reason: str
    winner: Guidance | None = None

    def to_json(self) -> dict[str, Any]:
        """A JSON-ready dict."""
        return {
            "item": self.item.to_json(),
            "reason": self.reason,
            "winner": self.winner.to_json() if self.winner else None,
        }


@dataclass(frozen=True, slots=True)
class MergedGuidance:
    """The result of MergeChannels: kept items in precedence order, and everything dropped."""

    kept: tuple[Guidance, ...]
    dropped: tuple[Dropped, ...] = ()
    tokens: int = 0
    conflicts: int = field(default=0)

    def persuasion(self) -> tuple[Guidance, ...]:
        """Kept persuasion tactics."""
        return tuple(item for item in self.kept if item.channel == "persuasion")


def _lowered_topics(item: Guidance) -> set[str]:
    return {topic.lower() for topic in item.topics}


def conflicts(winner: Guidance, loser: Guidance) -> bool:
    """Whether two items clash: a prohibition on a shared topic, or shared style topics with a human item."""
    shared = _lowered_topics(winner) & _lowered_topics(loser)
    if not shared and winner.channel in ("human", "safety"):
        shared = {t for t in _lowered_topics(winner) if find_phrases(loser.text, [t])}
    return bool(shared) and (winner.prohibits or winner.channel == "human")


class Critic(Protocol):
    """Anything that suggests tactics for the next message (clarity before the gate, persuasion after)."""

    def suggest(
        self, tci: TaskCompletenessIndex, gate_open: bool, turn: int, muted: frozenset[str] = frozenset()
    ) -> list[Guidance]:
        """Suggestions for the next message; items touching a muted topic must be withheld."""
        ...


class RuleCritic:
    """Tactical suggestions: clarity tactics before the gate, persuasion tactics after it."""

    def __init__(self, config: DomainConfig) -> None:
        self._config = config
        tactics = load_yaml_data("tactics.yaml").get(config.name, [])
        self._tactics = tuple(
            Guidance(
                "persuasion",
                t["text"],
                tuple(t.get("topics", ())),
                float(t.get("relevance", 0.5)),
                0.7,
                say=str(t.get("say", "")),
            )
            for t in tactics
        )

    def suggest(
        self, tci: TaskCompletenessIndex, gate_open: bool, turn: int, muted: frozenset[str] = frozenset()
    ) -> list[Guidance]:
        """Suggestions for the next message (tactics touching a muted topic are withheld)."""
        if not gate_open:
            return self._clarity(tci, turn)
        return [replace(t, turn=turn) for t in self._tactics if not set(t.topics) & muted]

    def _clarity(self, tci: TaskCompletenessIndex, turn: int) -> list[Guidance]:
        ranked = rank_attributes(self._config, tci)[:3]
        top_gain = max((expected_gain(spec, tci) for spec in ranked), default=1.0) or 1.0
        items = [
            Guidance(
                "clarity",
                f"Ask about {spec.label} with a few concrete options.",
                (spec.name,),
                expected_gain(spec, tci) / top_gain,
                0.9,
                turn,
            )
            for spec in ranked
        ]
        items.extend(
            Guidance(
                "clarity",
                f"Confirm {self._config.field(name).label}: the last answer was uncertain.",
                (name,),
                0.8,
                0.8,
                turn,
            )
            for name in tci.soft
            if name not in tci.confirmed
        )
        return items


def safety_guidance(config: DomainConfig) -> list[Guidance]:
    """Standing safety signals: one prohibition per forbidden topic of the boundary."""
    return [
        Guidance("safety", f"Never raise {p.topic}.", (p.topic, *p.phrases))
        for p in config.boundary.prohibited_topics
    ]


def human_guidance(config: DomainConfig, text: str, turn: int) -> Guidance:
    """A principal's free-text guidance as a human override, with the topics it mentions."""
    tactics = load_yaml_data("tactics.yaml").get(config.name, [])
    known = {topic for t in tactics for topic in t.get("topics", ())}
    known.update(phrase for p in config.boundary.prohibited_topics for phrase in p.phrases)
    topics = tuple(sorted(topic for topic in known if find_phrases(text, [topic])))
    return Guidance("human", text.strip(), topics, 1.0, 1.0, turn)


def _rank_critic(items: Sequence[Guidance], turn: int, per_topic: int = 1) -> list[Guidance]:
    def score(item: Guidance) -> float:
        age = max(0, turn - item.turn)
        return item.relevance * item.actionability * (0.5 ** (age / _STALE_TURNS))

    ranked = sorted(items, key=lambda item: (PRECEDENCE.index(item.channel), -score(item)))
    seen: dict[str, int] = {}
    diverse: list[Guidance] = []
    for item in ranked:
        key = item.topics[0] if item.topics else item.text
        if seen.get(key, 0) < per_topic:
            diverse.append(item)
            seen[key] = seen.get(key, 0) + 1
    return diverse


def merge_channels(
    critic: Sequence[Guidance],
    human: Sequence[Guidance],
    safety: Sequence[Guidance],
    *,
    budget: int,
    gate_open: bool,
    turn: int,
) -> MergedGuidance:
    """Algorithm 2: merge the three streams under precedence and a token budget.

    Human overrides and safety warnings are kept verbatim whatever the budget; persuasion is
    dropped before the gate, dropped first when the budget is tight, and stale low-relevance items
    decay away (older than 5 turns with relevance below 0.5).
    """
    dropped: list[Dropped] = []
    fixed = [*human, *safety]
    candidates: list[Guidance] = []
    for item in _rank_critic(critic, turn):
        if item.channel == "persuasion" and not gate_open:
            dropped.append(Dropped(item, "persuasion before the information gate"))
        elif turn - item.turn > _STALE_TURNS and item.relevance < _STALE_RELEVANCE:
            dropped.append(Dropped(item, "stale"))
        else:
            winner = next((w for w in fixed if conflicts(w, item)), None)
            if winner is not None:
                dropped.append(Dropped(item, f"conflicts with {winner.channel} guidance", winner))
            else:
                candidates.append(item)
    used = sum(item.tokens for item in fixed)
    kept = list(fixed)
    for item in candidates:
        if used + item.tokens <= budget:
            kept.append(item)
            used += item.tokens
        else:
            dropped.append(Dropped(item, "token budget"))
    conflict_count = sum(1 for d in dropped if d.winner is not None and d.winner.channel == "human")
    return MergedGuidance(tuple(kept), tuple(dropped), used, conflict_count)
