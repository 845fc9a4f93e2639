"""A ProMediate simulated participant backed by an LLM: thought generation, motivation scoring and
articulation (ProMediate B.2, inner-thought speaker selection), with a deterministic twin.

The model drafts candidate thoughts as structured acts; code checks each is a legal act about a
real topic and option (re-ask once, else the twin thinks). A second call scores each thought's
speaking motivation (1–5); the best one competes in the conversation's speaker selection. When
selected, a third call words it. The twin `SimulatedParticipant` hears everything, so it can take
over at any step with an up-to-date state.
"""

from __future__ import annotations

import json
from collections.abc import Collection, Mapping, Sequence
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator

from parley.errors import ScenarioError
from parley.llm.context import LLMSession
from parley.llm.role import Role, SchemaOverrides
from parley.llm.roles.promediate_common import (
    PARTICIPANT_ROLE,
    check_text,
    drop_unset,
    history_text,
    match_name,
    match_option,
    match_package,
    name_overrides,
    names_text,
    options_text,
    positions_text,
    quoted,
)
from parley.llm.structured import Name, Note, sized_list, strict_schema
from parley.mediation.conversation import ActKind, ConversationView, Utterance
from parley.scenarios.model import Scenario
from parley.simulation.conversation import public_options, simulated_participants
from parley.simulation.modes import ConflictMode
from parley.simulation.participants import Participant, SimulatedParticipant, SpeakingSettings, Thought

PARTICIPANT_ACTS = ("state", "propose", "support", "object", "concede", "ask", "summarise")
"""Acts a participant may perform (intervene is the mediator's)."""

MAX_THOUGHTS = 4
"""Most candidate thoughts per turn (the prompt asks for at most four)."""
MAX_THOUGHT = 160
"""Most characters of a candidate thought (a short sentence)."""
MAX_UTTERANCE = 400
"""Most characters of what a participant says (one to three sentences)."""

_NEEDS_OPTION = frozenset({"state", "propose", "support", "object", "concede"})

MODE_GUIDANCE: Mapping[ConflictMode, str] = {
    ConflictMode.COMPETING: "competing — you push for your own preferences, concede slowly and only "
    "for good reasons, and defend your positions firmly when challenged.",
    ConflictMode.AVOIDING: "avoiding — you prefer to sidestep contentious topics, take the easier "
    "ones first, and keep remarks mild.",
    ConflictMode.ACCOMMODATING: "accommodating — you value the relationship, follow where the group "
    "is going, support others' proposals and concede readily.",
    ConflictMode.GENERAL: "no set persona — negotiate as a thoughtful professional would.",
}
"""One line per conflict mode for the participant's private block (the seed's descriptions, reworded)."""


class ThoughtDraft(BaseModel):
    """One candidate thought, as the structured act it would become.

    Attributes:
        act: What saying it would do.
        topic: The topic (required except for summarise).
        option: The option it names (required for state, propose, support, object, concede).
        addressee: The participant it answers or asks, if any.
        content: The thought itself, in a few words.
    """

    model_config = ConfigDict(extra="ignore")

    act: Literal["state", "propose", "support", "object", "concede", "ask", "summarise"]
    topic: Name | None = None
    option: Name | None = None
    addressee: Name | None = None
    content: str = Field(min_length=1, max_length=MAX_THOUGHT)

    @field_validator("act", mode="before")
    @classmethod
    def _spelling(cls, value: Any) -> Any:
        return "summarise" if str(value).strip().lower() == "summarize" else str(value).strip().lower()


class ThoughtsReply(BaseModel):
    """Candidate thoughts (an empty list: nothing to say this turn; the list itself is required)."""

    model_config = ConfigDict(extra="ignore")

    thoughts: list[ThoughtDraft] = Field(max_length=MAX_THOUGHTS)


class MotivationScore(BaseModel):
    """The speaking motivation of one numbered thought.

    Attributes:
        thought: Its number in the list (from 1).
        motivation: 1 (would keep it to myself) to 5 (must say it now).
        reason: Why, briefly.
    """

    model_config = ConfigDict(extra="ignore")

    thought: int = Field(ge=1, le=MAX_THOUGHTS)
    motivation: float = Field(ge=1.0, le=5.0)
    reason: Note = ""


class MotivationReply(BaseModel):
    """One motivation score per candidate thought."""

    model_config = ConfigDict(extra="ignore")

    scores: list[MotivationScore] = Field(min_length=1, max_length=MAX_THOUGHTS)


class ArticulationReply(BaseModel):
    """The chosen thought in words.

    Attributes:
        text: What the participant says (one to three sentences).
        tone: From -1 (hostile) through 0 (neutral) to 1 (warm).
        package: For a summary: topic → option, the package it sums up.
    """

    model_config = ConfigDict(extra="ignore")

    text: str = Field(min_length=1, max_length=MAX_UTTERANCE)
    tone: float = Field(default=0.0, ge=-1.0, le=1.0)
    package: dict[str, str] | None = None

    @field_validator("package", mode="before")
    @classmethod
    def _leave_out_unset(cls, value: Any) -> Any:
        return drop_unset(value)  # a strict schema names every topic, null for those left out


def preference_text(
    values: Mapping[str, Mapping[str, float]],
    weights: Mapping[str, float],
    options: Mapping[str, Mapping[str, str]],
) -> str:
    """A participant's private preference profile, one topic per line, most preferred first."""
    lines: list[str] = []
    for topic, worth in values.items():
        weight = weights.get(topic, 0.5)
        importance = "high" if weight >= 0.75 else "medium" if weight >= 0.4 else "low"
        ranked = sorted((o for o in worth if worth[o] > 0), key=lambda o: -worth[o])
        neutral = [o for o in worth if worth[o] == 0]
        refused = [o for o in worth if worth[o] < 0]
        describe = options.get(topic, {})
        parts = [", then ".join(f"{o} ({describe.get(o, o)})" for o in ranked) or "no preference"]
        if neutral:
            parts.append("indifferent to " + ", ".join(neutral))
        if refused:
            parts.append("cannot accept " + ", ".join(f"{o} ({describe.get(o, o)})" for o in refused))
        lines.append(f"- {topic} [importance {importance}]: " + "; ".join(parts))
    return "\n".join(lines)


def check_thought(draft: ThoughtDraft, speaker: str, view: ConversationView) -> ThoughtDraft:
    """A thought mapped onto the conversation's topics, options and parties.

    Raises:
        ValueError: an illegal act (unknown topic, option or addressee; a missing option; the
            speaker addressing itself).
    """
    topic = match_name(draft.topic, view.topics, "topic") if draft.topic else None
    if topic is None and draft.act != "summarise":
        raise ValueError(f'act "{draft.act}" needs a "topic"; topics are {list(view.topics)}')
    option = match_option(draft.option, topic, view.options) if draft.option and topic else None
    if option is None and draft.act in _NEEDS_OPTION:
        raise ValueError(
            f'act "{draft.act}" on {topic!r} needs an "option" of {list(view.options[topic or ""])}'
        )
    others = [p for p in view.parties if p != speaker]
    addressee = match_name(draft.addressee, others, "other participant") if draft.addressee else None
    content = check_text(draft.content, "content")
    return draft.model_copy(
        update={"topic": topic, "option": option, "addressee": addressee, "content": content}
    )


class LLMParticipant:
    """A conversation participant whose thoughts, motivation and words come from an LLM.

    Implements `parley.simulation.Participant`.

    Args:
        twin: The deterministic participant for the same party (its profile, mode and speaking
            settings are used; it takes over whenever the model's answer cannot be used).
        llm: The session's LLM side (client for role "participant").
        options: Per topic, option → public description.
        history_limit: Most recent utterances shown per call.
        role: Role name for client overrides and usage.
    """

    def __init__(
        self,
        twin: SimulatedParticipant,
        llm: LLMSession,
        options: Mapping[str, Mapping[str, str]],
        *,
        history_limit: int = 12,
        role: str = PARTICIPANT_ROLE,
    ) -> None:
        self.twin = twin
        self._options = options
        self._history_limit = history_limit
        party = twin.name
        self._thoughts = Role(role, ThoughtsReply, "promediate_thoughts", llm, party=party)
        self._motivation = Role(role, MotivationReply, "promediate_motivation", llm, party=party)
        self._articulation = Role(role, ArticulationReply, "promediate_articulate", llm, party=party)
        self._chosen: Thought | None = None
        self.trace: list[dict[str, Any]] = []

    @property
    def name(self) -> str:
        """Participant name."""
        return self.twin.name

    @property
    def speaking(self) -> SpeakingSettings:
        """The twin's speaking-motivation settings (the case file's)."""
        return self.twin.speaking

    def think(self, view: ConversationView) -> Thought | None:
        """Draft candidate thoughts, score their motivation, and return the most motivated one."""
        self._chosen = None
        variables = self.variables(view)
        drafted = self._thoughts.call(
            variables,
            validate=lambda r: self._check_thoughts(r, view),
            round=view.turn,
            overrides=self._names(view),
        )
        if drafted.value is None:
            return self._twin_thinks(view, "thoughts", drafted.fallback)
        drafts = drafted.value.thoughts
        if not drafts:
            self.trace.append({"turn": view.turn, "source": "llm", "thought": None})
            return None
        scored = self._motivation.call(
            variables | {"thoughts": _numbered(drafts)},
            validate=lambda r: _check_scores(r, len(drafts)),
            round=view.turn,
            overrides=motivation_schema(len(drafts)),
        )
        if scored.value is None:
            return self._twin_thinks(view, "motivation", scored.fallback)
        motivation = {s.thought: s.motivation for s in scored.value.scores}
        index = max(range(len(drafts)), key=lambda i: (motivation[i + 1], -i))
        best = drafts[index]
        self._chosen = Thought(
            self.name,
            ActKind(best.act),
            best.topic,
            best.option,
            round(motivation[index + 1], 4),
            best.addressee,
            best.content,
        )
        self.trace.append({"turn": view.turn, "source": "llm", "thought": best.content})
        return self._chosen

    def speak(self, thought: Thought, view: ConversationView) -> Utterance:
        """Word the selected thought (the twin words thoughts it had itself, and on fallback)."""
        if thought is not self._chosen:
            return self.twin.speak(thought, view)
        variables = self.variables(view) | {"thought": _thought_text(thought)}
        worded = self._articulation.call(
            variables,
            validate=lambda r: self._check_articulation(r, thought),
            round=view.turn,
            overrides=self._names(view),
        )
        if worded.value is None:
            self.trace.append({"turn": view.turn, "source": "twin", "step": "articulation"})
            return self.twin.speak(thought, view)
        reply = worded.value
        package = dict(reply.package) if reply.package else None
        if thought.act is ActKind.SUMMARISE and package is None:
            package = dict(view.positions().get(self.name, {})) or None
        return Utterance(
            view.turn,
            self.name,
            thought.act,
            thought.topic,
            thought.option,
            package,
            thought.addressee,
            round(reply.tone, 4),
            None,
            reply.text,
        )

    def _names(self, view: ConversationView) -> dict[str, dict[str, Any]]:
        return name_overrides(view.options, [p for p in view.parties if p != self.name])

    def observe(self, utterance: Utterance) -> None:
        """Pass what was said to the twin, so it can take over with an up-to-date state."""
        self.twin.observe(utterance)

    def variables(self, view: ConversationView) -> dict[str, Any]:
        """Template variables for this view: the private block, then the public record."""
        own = [u for u in view.utterances if u.speaker == self.name]
        return {
            "name": self.name,
            "preferences": preference_text(self.twin.values, self.twin.weights, self._options),
            "mode": MODE_GUIDANCE[self.twin.mode],
            "others": names_text([p for p in view.parties if p != self.name]),
            "topics": options_text(view.options),
            "turn": view.turn,
            "max_turns": view.max_turns,
            "positions": positions_text(view),
            "history": history_text(view, self._history_limit),
            "said": "\n".join(f"- turn {u.turn}: {quoted(u.text)}" for u in own[-3:]) or "(nothing yet)",
        }

    # -- checks ----------------------------------------------------------------------------------

    def _check_thoughts(self, reply: ThoughtsReply, view: ConversationView) -> ThoughtsReply:
        checked: list[ThoughtDraft] = []
        for number, draft in enumerate(reply.thoughts, start=1):
            try:
                checked.append(check_thought(draft, self.name, view))
            except ValueError as error:
                raise ValueError(f"thought {number}: {error}") from None
        return reply.model_copy(update={"thoughts": checked})

    def _check_articulation(self, reply: ArticulationReply, thought: Thought) -> ArticulationReply:
        text = check_text(reply.text)
        package = None
        if thought.act is ActKind.SUMMARISE and reply.package:
            package = match_package(reply.package, self._options)
        return reply.model_copy(update={"text": text, "package": package})

    def _twin_thinks(self, view: ConversationView, step: str, reason: str | None) -> Thought | None:
        self.trace.append({"turn": view.turn, "source": "twin", "step": step, "fallback": reason})
        return self.twin.think(view)


def motivation_schema(count: int) -> SchemaOverrides:
    """Per call: exactly one score per thought, each naming one of the thought numbers 1..count."""
    score = strict_schema(
        MotivationScore, {"thought": {"type": "integer", "enum": list(range(1, count + 1))}}
    )
    return {"scores": sized_list(score, count)}


def _check_scores(reply: MotivationReply, count: int) -> MotivationReply:
    numbers = sorted(s.thought for s in reply.scores)
    if numbers != list(range(1, count + 1)):
        raise ValueError(f"give exactly one score for each thought 1..{count}; got scores for {numbers}")
    return reply


def _thought_text(thought: Thought) -> str:
    fields = {
        "act": thought.act.value,
        "topic": thought.topic,
        "option": thought.option,
        "addressee": thought.addressee,
        "thought": thought.reason,
    }
    return json.dumps({k: v for k, v in fields.items() if v is not None}, ensure_ascii=False)


def _numbered(drafts: Sequence[ThoughtDraft]) -> str:
    return "\n".join(
        f"{number}. " + json.dumps(d.model_dump(exclude_none=True), ensure_ascii=False)
        for number, d in enumerate(drafts, start=1)
    )


def llm_participants(
    scenario: Scenario,
    llm: LLMSession,
    *,
    mode: ConflictMode = ConflictMode.GENERAL,
    seed: int = 0,
    names: Collection[str] | None = None,
    history_limit: int = 12,
) -> dict[str, Participant]:
    """Every participant of a conversation, LLM-backed for the parties in names (default: all).

    The others — and every LLM participant's twin — are exactly the deterministic participants
    `run_conversation` would build for this mode and seed.

    Raises:
        ScenarioError: names holds a party the scenario does not have.
    """
    chosen = set(scenario.party_names if names is None else names)
    unknown = sorted(chosen - set(scenario.party_names))
    if unknown:
        raise ScenarioError(
            f"no parties {unknown} in {scenario.name}; parties are {list(scenario.party_names)}"
        )
    options = public_options(scenario)
    participants: dict[str, Participant] = {}
    for name, twin in simulated_participants(scenario, mode, seed).items():
        if name in chosen and isinstance(twin, SimulatedParticipant):
            participants[name] = LLMParticipant(twin, llm, options, history_limit=history_limit)
        else:
            participants[name] = twin
    return participants
