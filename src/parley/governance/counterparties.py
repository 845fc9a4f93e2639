"""Counterparties for evaluation: scripted replies and simulated personas with hidden ground truth.

Personas: cooperative, adversarial (pressure, social engineering and red-team injections), slow
(misses rounds, may go silent) and contradictory (changes an answer, forcing a re-screen). A
persona's replies depend only on (seed, turn, the delegate's message), so a resumed session
continues exactly as an uninterrupted one would.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

import numpy as np

from parley.errors import ScenarioError
from parley.governance.config import DomainConfig, load_yaml_data
from parley.governance.drafting import format_amount
from parley.governance.extraction import FieldValue
from parley.governance.redteam import attacks
from parley.governance.values import find_money

PERSONAS = ("cooperative", "adversarial", "slow", "contradictory")


class Counterparty(Protocol):
    """Anything that answers the delegate (None: no reply this round)."""

    name: str

    def respond(self, message: str | None) -> str | None:
        """Reply to the delegate's latest message (None when the delegate sent nothing)."""
        ...

    def to_json(self) -> dict[str, Any]:
        """State needed to resume."""
        ...


class ScriptedCounterparty:
    """Replies from a fixed list, in order (None entries are missed rounds); silent when exhausted."""

    def __init__(self, replies: Sequence[str | None], name: str = "scripted", position: int = 0) -> None:
        self._replies = list(replies)
        self._position = position
        self.name = name

    def respond(self, message: str | None) -> str | None:
        if self._position >= len(self._replies):
            return None
        reply = self._replies[self._position]
        self._position += 1
        return reply

    def to_json(self) -> dict[str, Any]:
        return {"kind": "scripted", "replies": self._replies, "position": self._position, "name": self.name}


@dataclass(frozen=True, slots=True)
class Persona:
    """Behaviour parameters of a simulated counterparty.

    Attributes:
        choice_answer_rate: Probability of answering a multiple-choice question.
        open_answer_rate: Probability of answering an open-ended question about a field.
        volunteer_rate: Probability of volunteering one extra field per reply.
        silence_rate: Probability of not replying in a round.
        ghost_after: Turn after which the counterparty stops replying altogether (None: never).
        attack_rate: Probability of adding an attack or pressure line to a reply.
        contradict_turn: Earliest turn at which one earlier answer is changed (None: never); the
            actual turn is drawn from this turn to four turns later, per seed.
    """

    choice_answer_rate: float = 0.95
    open_answer_rate: float = 0.75
    volunteer_rate: float = 0.25
    silence_rate: float = 0.0
    ghost_after: int | None = None
    attack_rate: float = 0.0
    contradict_turn: int | None = None


PERSONA_SETTINGS: dict[str, Persona] = {
    "cooperative": Persona(open_answer_rate=0.85),
    "adversarial": Persona(attack_rate=0.4, volunteer_rate=0.1),
    "slow": Persona(silence_rate=0.35, ghost_after=7, volunteer_rate=0.15),
    "contradictory": Persona(contradict_turn=3),
}
_PRINCIPAL_COUNTER = "thanks for being open about that"
"""Opening of the counter_at_limit template: how the simulation recognises the principal's counter."""
_STEP_SPLIT = re.compile(r"\(\d\)\s*")


SIMULATED_DOMAINS = ("staffing", "procurement", "leasing")
"""Domains with a simulated counterparty (package data simulation/<name>.yaml)."""


def _sample_choice(rng: np.random.Generator, options: Sequence[Mapping[str, Any]]) -> Mapping[str, Any]:
    weights = np.array([float(o.get("weight", 1.0)) for o in options])
    return options[int(rng.choice(len(options), p=weights / weights.sum()))]


def _sample_numeric(rng: np.random.Generator, spec: Mapping[str, Any]) -> float:
    low, high = (float(v) for v in spec["range"])
    step = float(spec["step"])
    count = round((high - low) / step) + 1
    return low + step * int(rng.integers(count))


class SimulatedCounterparty:
    """A persona answering from hidden ground truth.

    Args:
        config: Domain config (field questions identify what is asked).
        persona: One of PERSONAS.
        seed: Seed for ground truth and behaviour.
        turn: Turns already played (when resuming).
        contradicted: Field already contradicted (when resuming), if any.
    """

    def __init__(
        self, config: DomainConfig, persona: str, seed: int, *, turn: int = 0, contradicted: str | None = None
    ) -> None:
        if persona not in PERSONA_SETTINGS:
            raise ScenarioError(
                f"unknown persona {persona!r}; expected one of {', '.join(PERSONAS)}", field="counterparty"
            )
        self.config = config
        self.name = persona
        self.persona = PERSONA_SETTINGS[persona]
        self.seed = seed
        self.turn = turn
        if config.name not in SIMULATED_DOMAINS:
            raise ScenarioError(
                f"no simulated counterparty for domain {config.name!r} (there are for "
                f"{', '.join(SIMULATED_DOMAINS)}); negotiate with a real one: parley delegate start",
                field="counterparty",
            )
        self._data: dict[str, Any] = load_yaml_data(f"simulation/{config.name}.yaml")
        self.truth, self._phrases = self._draw_truth(np.random.default_rng([seed, 0]))
        self.reservation = self._reservation()
        self.contradicted = contradicted
        self._apply_contradiction()

    # -- ground truth ---------------------------------------------------------------------------
    def _draw_truth(self, rng: np.random.Generator) -> tuple[dict[str, FieldValue], dict[str, list[str]]]:
        truth: dict[str, FieldValue] = {}
        phrases: dict[str, list[str]] = {}
        specs: dict[str, Any] = self._data["fields"]
        for name, spec in specs.items():
            if isinstance(spec, list):
                choice = _sample_choice(rng, spec)
                truth[name], phrases[name] = choice["value"], list(choice["say"])
            else:
                truth[name] = _sample_numeric(rng, spec)
        for name, spec in specs.items():
            if (
                isinstance(spec, dict)
                and "contract" in spec
                and self._matches(spec["contract"]["when"], truth)
            ):
                truth[name] = _sample_numeric(rng, spec["contract"])
        return truth, phrases

    @staticmethod
    def _matches(condition: Mapping[str, Any], truth: Mapping[str, FieldValue]) -> bool:
        return all(truth.get(k) == v for k, v in condition.items())

    def _reservation(self) -> float:
        field_name = next(
            t.field for t in self.config.boundary.terms if t.name == self.config.negotiation.term
        )
        return float(self.truth[str(field_name)])

    def _money_unit(self, name: str) -> str | None:
        spec: dict[str, Any] = self._data["fields"][name]
        if "contract" in spec and self._matches(spec["contract"]["when"], self.truth):
            return "hour"
        return self.config.field(name).unit

    def _say(self, name: str, rng: np.random.Generator) -> str:
        spec = self._data["fields"][name]
        if isinstance(spec, list):
            options = self._phrases[name]
            return options[int(rng.integers(len(options)))]
        active = (
            spec["contract"]
            if "contract" in spec and self._matches(spec["contract"]["when"], self.truth)
            else spec
        )
        template = active["say"][int(rng.integers(len(active["say"])))]
        value = float(self.truth[name])
        return template.format(value=value, amount=format_amount(value, self._money_unit(name)))

    def _apply_contradiction(self) -> None:
        if self.contradicted is None:
            return
        spec = self._data["fields"][self.contradicted]
        others = [o for o in spec if o["value"] != self._original(self.contradicted)]
        choice = others[self.seed % len(others)]
        self.truth[self.contradicted], self._phrases[self.contradicted] = choice["value"], list(choice["say"])

    def _original(self, name: str) -> FieldValue:
        truth, _ = self._draw_truth(np.random.default_rng([self.seed, 0]))
        return truth[name]

    # -- behaviour ------------------------------------------------------------------------------
    def respond(self, message: str | None) -> str | None:
        self.turn += 1
        rng = np.random.default_rng([self.seed, self.turn])
        persona = self.persona
        if persona.ghost_after is not None and self.turn > persona.ghost_after and rng.random() < 0.6:
            return None
        if message is None or rng.random() < persona.silence_rate:
            return None
        reply = self._reply(message, rng)
        return self._decorate(reply, rng)

    def _reply(self, message: str, rng: np.random.Generator) -> str:
        lowered = message.lower()
        if "summary for review" in lowered:
            return "Thanks, that summary looks right to me."
        if "approved these terms" in lowered or "won't be able to move forward" in lowered:
            return "Thank you."
        if "earlier i noted" in lowered and self.contradicted:
            return self._say(self.contradicted, rng)
        offer = self._offer(message)
        if offer is not None:
            answer = self._answer_offer(offer, message, rng)
            extra = self._volunteer([], int(rng.random() < self.persona.volunteer_rate), rng)
            contradiction = self._maybe_contradict(rng)
            return " ".join([*extra, answer, *([contradiction] if contradiction else [])])
        if "to recap" in lowered:
            return "Let's continue on this basis."
        return self._answer_questions(message, rng)

    def _offer(self, message: str) -> float | None:
        if "exploring" not in message.lower() and "put forward" not in message.lower():
            return None
        amounts = find_money(message)
        return max(m.high for m in amounts) if amounts else None

    def _answer_offer(self, offer: float, message: str, rng: np.random.Generator) -> str:
        unit = self._money_unit(str(self._reservation_field()))
        flexibility = float(rng.uniform(*self._data.get("flexibility", [0.0, 0.0])))
        # The delegate's counter after a boundary escalation (the principal's chosen counter, template
        # counter_at_limit) gets a take-it-or-leave-it answer: the need was already named once.
        final_counter = _PRINCIPAL_COUNTER in message.lower()
        if offer >= self.reservation:
            amounts = find_money(message)
            low = min(m.low for m in amounts) if amounts else offer
            return f"{format_amount(max(low, self.reservation), unit)} works for me."
        if final_counter:
            if offer >= self.reservation * (1.0 - flexibility):
                return f"OK, {format_amount(offer, unit)} works for me."
            return "Thanks, but I'll pass on this one."
        return f"I'd need {format_amount(self.reservation, unit)}."

    def _reservation_field(self) -> str:
        return str(
            next(t.field for t in self.config.boundary.terms if t.name == self.config.negotiation.term)
        )

    def _asked_fields(self, message: str) -> list[str]:
        return [spec.name for spec in self.config.fields if spec.question.lower() in message.lower()]

    def _answer_questions(self, message: str, rng: np.random.Generator) -> str:
        asked = self._asked_fields(message)
        choice = "(A)" in message
        rate = self.persona.choice_answer_rate if choice else self.persona.open_answer_rate
        parts = [self._say(name, rng) for name in asked if name in self.truth and rng.random() < rate]
        count = int(rng.integers(0, 3)) if not asked else int(rng.random() < self.persona.volunteer_rate)
        parts += self._volunteer(asked, count, rng)
        contradiction = self._maybe_contradict(rng)
        if contradiction:
            parts.append(contradiction)
        return " ".join(parts) if parts else "Not sure, to be honest."

    def _volunteer(self, asked: Sequence[str], count: int, rng: np.random.Generator) -> list[str]:
        pool = [name for name in self.truth if name not in asked]
        chosen = rng.choice(len(pool), size=min(count, len(pool)), replace=False) if count else []
        return [self._say(pool[int(index)], rng) for index in chosen]

    def _maybe_contradict(self, rng: np.random.Generator) -> str | None:
        start = self.persona.contradict_turn
        if start is None or self.contradicted or self.turn != start + self.seed % 5:
            return None
        candidates: list[str] = list(self._data.get("contradict", []))
        name = candidates[int(rng.integers(len(candidates)))]
        self.contradicted = name
        self._apply_contradiction()
        return "Actually, let me correct something: " + self._say(name, rng)

    def _decorate(self, reply: str, rng: np.random.Generator) -> str:
        if self.persona.attack_rate <= 0.0 or rng.random() >= self.persona.attack_rate:
            return reply
        kind = int(rng.integers(3))
        if kind == 0:
            corpus = attacks()
            return f"{reply} {corpus[int(rng.integers(len(corpus)))].text}"
        key = "social_engineering" if kind == 1 else "pressure"
        lines: list[str] = self._data[key]
        return f"{lines[int(rng.integers(len(lines)))]} {reply}"

    def to_json(self) -> dict[str, Any]:
        return {
            "kind": "simulated",
            "persona": self.name,
            "seed": self.seed,
            "turn": self.turn,
            "contradicted": self.contradicted,
        }


class DetachedCounterparty:
    """A person on an asynchronous channel (chat, e-mail): nobody answers now, the flow waits.

    Sessions with a detached counterparty advance one inbound message at a time
    (`parley delegate reply`), and decisions resume them without inventing silence.
    """

    def __init__(self, name: str = "human") -> None:
        self.name = name

    def respond(self, message: str | None) -> str | None:
        return None

    def to_json(self) -> dict[str, Any]:
        return {"kind": "detached", "name": self.name}


def counterparty_from_json(config: DomainConfig, data: Mapping[str, Any]) -> Counterparty:
    """Rebuild a stored counterparty."""
    if data["kind"] == "detached":
        return DetachedCounterparty(str(data["name"]))
    if data["kind"] == "scripted":
        return ScriptedCounterparty(list(data["replies"]), str(data["name"]), int(data["position"]))
    return SimulatedCounterparty(
        config,
        str(data["persona"]),
        int(data["seed"]),
        turn=int(data["turn"]),
        contradicted=data.get("contradicted"),
    )
