"""GAIA critic backed by an LLM (Algorithm 2's critic stream; twin: the rule critic).

The model suggests tactics; code decides the channel (clarity before the information gate,
persuasion after it), maps clarity topics onto the required fields, withholds tactics on muted
topics, and hands the items to `merge_channels` unchanged — where human overrides and standing
safety prohibitions win every conflict, whatever the model suggested.
"""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field

from parley.governance.config import DomainConfig
from parley.governance.critic import Channel, Critic, Guidance, RuleCritic
from parley.governance.tci import TaskCompletenessIndex
from parley.llm.context import LLMSession
from parley.llm.role import Role, SchemaOverrides
from parley.llm.roles.gaia_common import (
    CRITIC_ROLE,
    facts_text,
    fields_text,
    labels_text,
    match_field,
    prohibited_text,
)
from parley.llm.structured import Name, strict_schema

MAX_SUGGESTIONS = 3
"""Most suggestions in one reply."""
MAX_TACTIC = 120
"""Most characters of a tactic's directive."""
MAX_SAY = 160
"""Most characters of the sentence a persuasion tactic may add to a proposal."""
MAX_TOPICS = 3
"""Most topics one tactic names."""
_ACTIONABILITY = 0.8


class Suggestion(BaseModel):
    """One tactic: the directive, what it touches, how relevant it is, an optional sentence to add."""

    model_config = ConfigDict(extra="ignore")

    text: str = Field(min_length=1, max_length=MAX_TACTIC)
    topics: list[Name] = Field(default_factory=list[str], max_length=MAX_TOPICS)
    relevance: float = Field(default=0.7, ge=0.0, le=1.0)
    say: str = Field(default="", max_length=MAX_SAY)


class CriticReply(BaseModel):
    """Tactics for the next message (the list is required; it may be empty)."""

    model_config = ConfigDict(extra="ignore")

    suggestions: list[Suggestion] = Field(max_length=MAX_SUGGESTIONS)


def check_suggestions(reply: CriticReply, config: DomainConfig, gate_open: bool) -> CriticReply:
    """Clarity tactics name required fields (mapped onto their names) and carry no sentence to add.

    Raises:
        ValueError: a clarity tactic names no known field.
    """
    if gate_open:
        return reply
    checked: list[Suggestion] = []
    for item in reply.suggestions:
        specs = [spec for topic in item.topics if (spec := match_field(config, topic)) is not None]
        if not specs:
            legal = ", ".join(config.field_names)
            raise ValueError(f"clarity tactic {item.text!r} must name fields among: {legal}")
        checked.append(item.model_copy(update={"topics": [s.name for s in specs], "say": ""}))
    return reply.model_copy(update={"suggestions": checked})


def critic_schema(config: DomainConfig, gate_open: bool) -> SchemaOverrides:
    """Per call: before the gate (clarity) a tactic's topics are enums of the required fields."""
    if gate_open:
        return {}
    topics = {"type": "array", "items": {"enum": list(config.field_names)}, "maxItems": MAX_TOPICS}
    item = strict_schema(Suggestion, {"topics": topics})
    return {"suggestions": {"type": "array", "items": item, "maxItems": MAX_SUGGESTIONS}}


class LLMCritic:
    """Tactical suggestions from a model (implements the governance `Critic`).

    Args:
        llm: The session's LLM side (client for role "critic").
        config: Domain config (fields, prohibited topics).
        twin: Critic used on fallback (default: `RuleCritic`).
    """

    def __init__(self, llm: LLMSession, config: DomainConfig, twin: Critic | None = None) -> None:
        self._role = Role(CRITIC_ROLE, CriticReply, "gaia_critic", llm, party="delegate")
        self._config = config
        self.twin: Critic = twin or RuleCritic(config)

    def suggest(
        self, tci: TaskCompletenessIndex, gate_open: bool, turn: int, muted: frozenset[str] = frozenset()
    ) -> list[Guidance]:
        """Suggestions for the next message (the twin's when the model's reply is unusable)."""
        config = self._config
        variables = {
            "subject": config.subject,
            "principal_role": config.principal_role,
            "counterparty_role": config.counterparty_role,
            "fields": fields_text(config),
            "prohibited": prohibited_text(config),
            "phase": "persuasion" if gate_open else "clarity",
            "known": facts_text(config, tci.confirmed),
            "missing": labels_text(config, tci.missing),
            "soft": labels_text(config, [name for name in tci.soft if name not in tci.confirmed]),
            "muted": ", ".join(sorted(muted)) or "none",
        }
        outcome = self._role.call(
            variables,
            validate=lambda reply: check_suggestions(reply, config, gate_open),
            round=turn,
            overrides=critic_schema(config, gate_open),
        )
        if outcome.value is None:
            return self.twin.suggest(tci, gate_open, turn, muted)
        channel: Channel = "persuasion" if gate_open else "clarity"
        items = [
            Guidance(
                channel,
                " ".join(item.text.split()),
                tuple(topic.strip().lower() for topic in item.topics if topic.strip()),
                item.relevance,
                _ACTIONABILITY,
                turn,
                say=" ".join(item.say.split()),
            )
            for item in outcome.value.suggestions
        ]
        return [item for item in items if not set(item.topics) & muted][:MAX_SUGGESTIONS]
