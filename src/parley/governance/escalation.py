"""Escalation (Algorithm 6, §3.4 payloads), principal decisions and the `Principal` protocol.

An escalation is a stored request (situation, problem, options with trade-offs, explicit ask);
a decision is a stored answer recording who decided what and when.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from enum import StrEnum
from pathlib import Path
from typing import Any, Protocol

import yaml
from pydantic import BaseModel, ConfigDict, Field, ValidationError

from parley.errors import ScenarioError


class Trigger(StrEnum):
    """Why the delegate escalated."""

    BOUNDARY = "boundary"
    AMBIGUITY = "persistent_ambiguity"
    SENTIMENT = "negative_sentiment"
    ADVERSARIAL = "adversarial"
    PREFLIGHT = "preflight_failure"
    CONFLICT = "human_critic_conflict"
    FINAL_APPROVAL = "final_approval"
    ROUND_LIMIT = "round_limit"


@dataclass(frozen=True, slots=True)
class EscalationOption:
    """One option put to the principal.

    Attributes:
        key: "A", "B", ...
        title: Short description.
        trade_offs: Pros and cons in one sentence.
        effect: What the delegate does if chosen ("counter_at_limit", "raise_limit", "decline", ...).
        parameters: Effect parameters (e.g. the new limit).
    """

    key: str
    title: str
    trade_offs: str
    effect: str
    parameters: Mapping[str, Any] = field(default_factory=lambda: {})

    def to_json(self) -> dict[str, Any]:
        """A JSON-ready dict."""
        return {
            "key": self.key,
            "title": self.title,
            "trade_offs": self.trade_offs,
            "effect": self.effect,
            "parameters": dict(self.parameters),
        }


@dataclass(frozen=True, slots=True)
class EscalationRequest:
    """The §3.4 payload: situation, problem, options with trade-offs, explicit request.

    Attributes:
        request_id: Unique id ("SESSION-e3").
        session_id: Owning session.
        trigger: Why.
        state: State when escalating.
        last_messages: The last three messages (speaker, text).
        ledger: TCI snapshot: tci, tci_weighted, revealed (field → value), missing.
        problem: One-paragraph problem statement.
        boundary_at_risk: The term and values at risk, if any.
        safety_events: Safety findings behind the escalation.
        options: Options with trade-offs.
        ask: The explicit request ("Approve A, B or C, or give guidance").
        created: Clock time.
        suggested: What the principal's earlier decisions suggest (`parley.governance.memory`); only
            ever shown, never applied. Empty when there is nothing to suggest.
    """

    request_id: str
    session_id: str
    trigger: Trigger
    state: str
    last_messages: tuple[tuple[str, str], ...]
    ledger: Mapping[str, Any]
    problem: str
    options: tuple[EscalationOption, ...]
    ask: str
    boundary_at_risk: Mapping[str, Any] = field(default_factory=lambda: {})
    safety_events: tuple[str, ...] = ()
    created: float = 0.0
    suggested: Mapping[str, Any] = field(default_factory=lambda: {})

    def option(self, key: str) -> EscalationOption:
        """The option with key (case-insensitive).

        Raises:
            ScenarioError: if no such option exists (naming the valid keys).
        """
        for option in self.options:
            if option.key.upper() == key.strip().upper():
                return option
        valid = ", ".join(o.key for o in self.options)
        raise ScenarioError(
            f"no option {key!r}; expected one of {valid}", source=self.request_id, field="option"
        )

    def to_json(self) -> dict[str, Any]:
        """A JSON-ready dict ("suggested" only when there is a suggestion)."""
        suggested = {"suggested": dict(self.suggested)} if self.suggested else {}
        return {
            "request_id": self.request_id,
            "session_id": self.session_id,
            "trigger": self.trigger.value,
            "state": self.state,
            "last_messages": [list(m) for m in self.last_messages],
            "ledger": dict(self.ledger),
            "problem": self.problem,
            "boundary_at_risk": dict(self.boundary_at_risk),
            "safety_events": list(self.safety_events),
            "options": [o.to_json() for o in self.options],
            "ask": self.ask,
            "created": self.created,
            **suggested,
        }

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> EscalationRequest:
        """Inverse of to_json."""
        return cls(
            str(data["request_id"]),
            str(data["session_id"]),
            Trigger(data["trigger"]),
            str(data["state"]),
            tuple((str(m[0]), str(m[1])) for m in data["last_messages"]),
            dict(data["ledger"]),
            str(data["problem"]),
            tuple(
                EscalationOption(o["key"], o["title"], o["trade_offs"], o["effect"], dict(o["parameters"]))
                for o in data["options"]
            ),
            str(data["ask"]),
            dict(data.get("boundary_at_risk", {})),
            tuple(data.get("safety_events", [])),
            float(data.get("created", 0.0)),
            dict(data.get("suggested", {})),
        )


@dataclass(frozen=True, slots=True)
class Decision:
    """A principal's answer to one escalation request.

    Attributes:
        request_id: Which request.
        option: Chosen option key, or None when only guidance is given.
        guidance: Free-text guidance (becomes a human override for MergeChannels).
        decided_by: Who decided.
        decided_at: Clock time of the decision.
    """

    request_id: str
    option: str | None
    guidance: str = ""
    decided_by: str = "principal"
    decided_at: float = 0.0

    def to_json(self) -> dict[str, Any]:
        """A JSON-ready dict."""
        return {
            "request_id": self.request_id,
            "option": self.option,
            "guidance": self.guidance,
            "decided_by": self.decided_by,
            "decided_at": self.decided_at,
        }


class Principal(Protocol):
    """The human with authority. `decide` returns None to defer (the request stays stored)."""

    name: str

    def decide(self, request: EscalationRequest, now: float) -> Decision | None:
        """Answer request now, or None to answer later."""
        ...


class _PolicyFile(BaseModel):
    model_config = ConfigDict(extra="forbid")
    name: str = "policy"
    default: str | None = "A"
    decisions: dict[str, str] = Field(default_factory=lambda: {})
    guidance: dict[str, str] = Field(default_factory=lambda: {})
    defer: list[str] = Field(default_factory=lambda: [])


class PolicyPrincipal:
    """Scripted decisions by trigger (for simulations), e.g. {boundary: B, final_approval: A}.

    Args:
        decisions: Trigger value → option key.
        default: Option for triggers not listed (None defers them).
        guidance: Trigger value → guidance text sent with the decision.
        defer: Triggers left for a later decision (stored, not answered).
        name: Recorded as decided_by.
    """

    def __init__(
        self,
        decisions: Mapping[str, str] | None = None,
        *,
        default: str | None = "A",
        guidance: Mapping[str, str] | None = None,
        defer: tuple[str, ...] = (),
        name: str = "policy",
    ) -> None:
        self._decisions = dict(decisions or {})
        self._default = default
        self._guidance = dict(guidance or {})
        self._defer = frozenset(defer)
        self.name = name

    def decide(self, request: EscalationRequest, now: float) -> Decision | None:
        trigger = request.trigger.value
        if trigger in self._defer:
            return None
        key = self._decisions.get(trigger, self._default)
        if key is None:
            return None
        if key.upper() not in {o.key for o in request.options}:
            key = request.options[0].key
        return Decision(request.request_id, key.upper(), self._guidance.get(trigger, ""), self.name, now)

    @classmethod
    def load(cls, path: str | Path) -> PolicyPrincipal:
        """Read a policy YAML file (keys: name, default, decisions, guidance, defer).

        Raises:
            ScenarioError: if the file is missing or invalid (naming file and field).
        """
        source = str(path)
        try:
            raw = yaml.safe_load(Path(path).read_text(encoding="utf-8")) or {}
            policy = _PolicyFile.model_validate(raw)
        except FileNotFoundError:
            raise ScenarioError("policy file not found", source=source) from None
        except yaml.YAMLError as error:
            raise ScenarioError(f"not valid YAML ({error})", source=source) from None
        except ValidationError as error:
            first = error.errors()[0]
            raise ScenarioError(first["msg"], source=source, field=".".join(map(str, first["loc"]))) from None
        known = {t.value for t in Trigger}
        for trigger in (*policy.decisions, *policy.guidance, *policy.defer):
            if trigger not in known:
                raise ScenarioError(
                    f"unknown trigger {trigger!r}; expected one of {sorted(known)}",
                    source=source,
                    field="decisions",
                )
        return cls(
            policy.decisions,
            default=policy.default,
            guidance=policy.guidance,
            defer=tuple(policy.defer),
            name=policy.name,
        )


class StoredPrincipal:
    """Answers nothing now: every request is stored and decided later (`parley delegate decide`)."""

    name = "stored"

    def decide(self, request: EscalationRequest, now: float) -> Decision | None:
        return None


class InteractivePrincipal:
    """Asks a person (in a terminal) through injected show/ask functions.

    Args:
        show: Renders a request.
        ask: Prompts for text and returns the answer.
        name: Recorded as decided_by.
    """

    def __init__(
        self, show: Callable[[EscalationRequest], None], ask: Callable[[str], str], name: str
    ) -> None:
        self._show = show
        self._ask = ask
        self.name = name

    def decide(self, request: EscalationRequest, now: float) -> Decision | None:
        self._show(request)
        keys = [option.key for option in request.options]
        while True:
            answer = self._ask(f"Choose {'/'.join(keys)}, type guidance, or 'later'").strip()
            if answer.lower() == "later":
                return None
            if answer.upper() in keys:
                return Decision(request.request_id, answer.upper(), "", self.name, now)
            if answer:
                return Decision(request.request_id, None, answer, self.name, now)
