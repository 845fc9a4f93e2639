"""Typed event payloads: one frozen dataclass per event kind, a tagged union read from `Event.data`.

`Event.payload` parses an event's JSON data into the type registered for its kind (`PAYLOADS`);
a kind nobody registered, or data that does not fit, gives an `UntypedPayload` holding the raw
data, never an exception. `docs/schemas/trajectory-event.schema.json` is generated from these
types (`parley.protocol.trajectory_schema`). Governed delegation's own record types live in
`parley.protocol.governed` and are registered here.
"""

from __future__ import annotations

import dataclasses
import functools
import math
import numbers
import types
import typing
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Literal, Union

from parley.domain.issues import Value
from parley.protocol.actions import (
    Accept,
    Action,
    DeclineCoalition,
    JoinCoalition,
    Propose,
    ProposeCoalition,
    Reject,
    Say,
    Walk,
)
from parley.protocol.artefact import Agreement, BatnaViolation, NoDeal, NoDealReason
from parley.protocol.fields import meta
from parley.protocol.governed import (
    GOVERNED,
    DelegateAgreement,
    DelegateSessionStarted,
    DelegateViolation,
    Escalation,
    GovernedPayload,
    StateTransition,
    TciLedgerEntry,
)
from parley.protocol.rules import DEFAULT_COALITION_ROUNDS

EXTRA = "extra"
"""Name of the field that collects the keys a lenient payload type does not declare."""


# -- the negotiation engine's kinds ---------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class AcceptanceRecord:
    """The acceptance rule as played."""

    required: int | None
    vetoes: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class RulesRecord:
    """The protocol rules as played (defaults resolved)."""

    max_rounds: int = field(metadata=meta(minimum=1))
    max_offers: int | None
    deadline_seconds: float | None
    acceptance: AcceptanceRecord
    stagnation_rounds: int
    stagnation_epsilon: float = field(metadata=meta(minimum=0))
    on_stagnation: Literal["walk", "mediate", "continue"]
    act_timeout: float | None
    proposer_order: tuple[str, ...] | None
    coalition_rounds: int = field(
        default=DEFAULT_COALITION_ROUNDS,
        metadata=meta(
            "Rounds a coalition attempt stays open (k-of-n games; 0: coalitions off); present only "
            "when not the default, 2.",
            minimum=0,
            optional=True,
        ),
    )


@dataclass(frozen=True, slots=True)
class SessionStarted:
    """The parties, the outcome space and the rules of a bargaining session, plus its metadata."""

    parties: tuple[str, ...]
    issues: Mapping[str, tuple[Value, ...]]
    rules: RulesRecord
    scenario: str | None = field(default=None, metadata=meta(optional=True))
    seed: int | None = field(default=None, metadata=meta(optional=True))
    agents: Mapping[str, str] = field(default_factory=lambda: {}, metadata=meta(optional=True))
    extra: Mapping[str, Any] = field(default_factory=lambda: {})
    kind: Literal["session_started"] = field(default="session_started", init=False)


@dataclass(frozen=True, slots=True)
class Trace:
    """An agent's private decision trace (free-form: each agent writes its own fields)."""

    extra: Mapping[str, Any] = field(default_factory=lambda: {})
    kind: Literal["trace"] = field(default="trace", init=False)


@dataclass(frozen=True, slots=True)
class JudgementRecord:
    """The judge's verdict on a round."""

    verdict: Literal["agreement", "no_deal", "continue"]
    reason: NoDealReason | None
    kind: Literal["judgement"] = field(default="judgement", init=False)


@dataclass(frozen=True, slots=True)
class Stagnation:
    """No party conceded for `rounds` rounds; policy says what happens next."""

    rounds: int = field(metadata=meta(minimum=0))
    policy: Literal["walk", "mediate", "continue"]
    kind: Literal["stagnation"] = field(default="stagnation", init=False)


@dataclass(frozen=True, slots=True)
class Withdrawal:
    """A party left a multilateral session; remaining parties play on."""

    reason: str
    remaining: int = field(metadata=meta(minimum=0))
    kind: Literal["withdrawal"] = field(default="withdrawal", init=False)


@dataclass(frozen=True, slots=True)
class Violation:
    """A party (or the mediator) broke the protocol; action is the offending move's repr."""

    detail: str
    action: str | None
    kind: Literal["violation"] = field(default="violation", init=False)


@dataclass(frozen=True, slots=True)
class MediatorProposal:
    """A package the mediator put on the table."""

    package: Mapping[str, Value]
    kind: Literal["mediator_proposal"] = field(default="mediator_proposal", init=False)


@dataclass(frozen=True, slots=True)
class CoalitionFormed:
    """Every party asked into a coalition joined: the package is agreed by its members (the
    event's party is the proposer). Non-members accepted nothing and are bound by nothing."""

    members: tuple[str, ...] = field(metadata=meta("The proposer and the parties that joined."))
    package: Mapping[str, Value]
    proposal: int = field(metadata=meta("Sequence number of the coalition's proposal event.", minimum=0))
    kind: Literal["coalition_formed"] = field(default="coalition_formed", init=False)


@dataclass(frozen=True, slots=True)
class CoalitionEnded:
    """A coalition attempt ended without forming: who declined, who left, or who never answered."""

    reason: Literal["declined", "expired", "left"]
    parties: tuple[str, ...] = field(
        metadata=meta("Who declined (declined), left the table (left) or had not answered (expired).")
    )
    proposal: int = field(metadata=meta("Sequence number of the coalition's proposal event.", minimum=0))
    kind: Literal["coalition_ended"] = field(default="coalition_ended", init=False)


@dataclass(frozen=True, slots=True)
class BatnaBreach:
    """The event's party accepted terms worth less to it than its BATNA."""

    utility: float
    reservation_value: float
    kind: Literal["batna_violation"] = field(default="batna_violation", init=False)


# -- mediated conversations (parley.simulation) ---------------------------------------------------


@dataclass(frozen=True, slots=True)
class ConversationStarted:
    """The parties and topics of a mediated conversation, plus its settings."""

    parties: tuple[str, ...]
    topics: tuple[str, ...]
    options: Mapping[str, Mapping[str, str]] = field(metadata=meta("Topic to option to its description."))
    max_turns: int = field(metadata=meta(minimum=0))
    scenario: str | None = field(default=None, metadata=meta(optional=True))
    mode: str | None = field(default=None, metadata=meta(optional=True))
    mediator: str | None = field(default=None, metadata=meta(optional=True))
    seed: int | None = field(default=None, metadata=meta(optional=True))
    extra: Mapping[str, Any] = field(default_factory=lambda: {})
    kind: Literal["conversation_started"] = field(default="conversation_started", init=False)


@dataclass(frozen=True, slots=True)
class Preferences:
    """A participant's private starting attitudes, topic by topic."""

    attitudes: Mapping[str, Mapping[str, Any]]
    kind: Literal["preferences"] = field(default="preferences", init=False)


@dataclass(frozen=True, slots=True)
class AttitudeChange:
    """The attitudes an utterance changed, topic by topic."""

    attitudes: Mapping[str, Mapping[str, Any]]
    kind: Literal["attitude"] = field(default="attitude", init=False)


@dataclass(frozen=True, slots=True)
class Consensus:
    """Group and per-topic consensus after a turn, in [0, 1] (rounded to 6 decimals)."""

    group: float
    topics: Mapping[str, float]
    kind: Literal["consensus"] = field(default="consensus", init=False)


@dataclass(frozen=True, slots=True)
class Silence:
    """Nobody spoke this turn."""

    turn: int
    kind: Literal["silence"] = field(default="silence", init=False)


@dataclass(frozen=True, slots=True)
class Said:
    """What a participant ("utterance") or the mediator ("intervention") said in a turn.

    `parley.mediation.conversation.Utterance.from_json` reads the same data into its enums.
    """

    turn: int = field(metadata=meta(minimum=0))
    speaker: str
    act: str = field(metadata=meta("The dialogue act (parley.mediation.conversation.ActKind)."))
    topic: str | None
    option: str | None
    package: Mapping[str, str] | None
    addressee: str | None
    tone: float = field(metadata=meta("From -1 (hostile) through 0 to 1 (warm).", minimum=-1, maximum=1))
    strategy: str | None = field(metadata=meta("For interventions, the mediation strategy used."))
    text: str


@dataclass(frozen=True, slots=True)
class ConversationEnded:
    """The conversation's summary: turns, who spoke, final consensus and positions."""

    turns: int = field(metadata=meta(minimum=0))
    utterances: int = field(metadata=meta(minimum=0))
    interventions: int = field(metadata=meta(minimum=0))
    silent_turns: int = field(metadata=meta(minimum=0))
    final_consensus: float
    positions: Mapping[str, Mapping[str, str | None]]
    settled: Mapping[str, str | None]
    kind: Literal["conversation_ended"] = field(default="conversation_ended", init=False)


@dataclass(frozen=True, slots=True)
class BreakdownSeen:
    """A socio-cognitive breakdown the mediator saw (ProMediate §3.2)."""

    breakdown: str = field(
        metadata=meta('"perceptual", "emotional", "cognitive" or "communication".', key="kind")
    )
    parties: tuple[str, ...]
    topic: str | None
    severity: float


@dataclass(frozen=True, slots=True)
class MediatorAssessment:
    """The mediator's private reading of a turn: whether to intervene, and why."""

    intervene: bool
    motivation: float
    reasons: tuple[str, ...]
    breakdowns: tuple[BreakdownSeen, ...]
    kind: Literal["mediator_assessment"] = field(default="mediator_assessment", init=False)


@dataclass(frozen=True, slots=True)
class SpeakerThought:
    """What the chosen speaker meant to say."""

    act: str
    topic: str | None
    option: str | None
    reason: str


@dataclass(frozen=True, slots=True)
class SpeakerSelection:
    """Who spoke this turn (None: nobody) and every participant's motivation (None: no thought)."""

    speaker: str | None
    motivations: Mapping[str, float | None]
    thought: SpeakerThought | None
    kind: Literal["speaker_selection"] = field(default="speaker_selection", init=False)


# -- LLM accounting (parley.llm) -----------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class UsageTotals:
    """LLM calls, tokens, cost and rule-twin fallbacks, summed (over a run, a role or a session)."""

    calls: int = field(metadata=meta(minimum=0))
    prompt_tokens: int = field(metadata=meta(minimum=0))
    completion_tokens: int = field(metadata=meta(minimum=0))
    latency_s: float = field(metadata=meta(minimum=0))
    cost_usd: float = field(metadata=meta(minimum=0))
    unpriced_calls: int = field(metadata=meta(minimum=0))
    decisions: int = field(metadata=meta(minimum=0))
    fallbacks: int = field(metadata=meta(minimum=0))
    fallback_share: float = field(
        metadata=meta("Fallbacks per decision (0 without decisions).", minimum=0, maximum=1)
    )
    fallback_causes: Mapping[str, int]
    models: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class LlmUsage:
    """The LLM usage of a session: totals, per role and per session."""

    total: UsageTotals
    by_role: Mapping[str, UsageTotals]
    by_session: Mapping[str, UsageTotals]
    kind: Literal["llm_usage"] = field(default="llm_usage", init=False)


@dataclass(frozen=True, slots=True)
class LlmFallback:
    """An LLM role fell back to its deterministic twin (why, and after how many calls)."""

    role: str
    reason: str
    detail: str
    calls: int = field(metadata=meta(minimum=0))
    kind: Literal["llm_fallback"] = field(default="llm_fallback", init=False)


@dataclass(frozen=True, slots=True)
class LlmGuard:
    """A guard changed or refused what an LLM role produced; each guard records its own fields."""

    guard: str
    role: str | None = field(
        default=None, metadata=meta("The role guarded (absent: the negotiator).", optional=True)
    )
    extra: Mapping[str, Any] = field(default_factory=lambda: {})
    kind: Literal["llm_guard"] = field(default="llm_guard", init=False)


@dataclass(frozen=True, slots=True)
class RatedCandidate:
    """One intervention an LLM mediator drafted, with its rating."""

    strategy: str | None
    rating: float
    text: str


@dataclass(frozen=True, slots=True)
class MediatorCandidates:
    """An LLM mediator's drafted interventions, rated, and the one delivered (private to the mediator)."""

    candidates: tuple[RatedCandidate, ...]
    rated_by: Literal["rubric", "model"]
    delivered: int = field(metadata=meta("Index of the delivered candidate.", minimum=0))
    kind: Literal["mediator_candidates"] = field(default="mediator_candidates", init=False)


@dataclass(frozen=True, slots=True)
class UntypedPayload:
    """The data of a kind no payload type is registered for (a plugin's), or that fits none.

    Attributes:
        event_kind: The event's kind.
        data: Its data, as recorded.
        problem: Why the registered types did not fit, or "" for an unregistered kind.
    """

    event_kind: str
    data: Mapping[str, Any]
    problem: str = ""


Payload = (
    SessionStarted
    | Action
    | Trace
    | JudgementRecord
    | Stagnation
    | Withdrawal
    | Violation
    | MediatorProposal
    | CoalitionFormed
    | CoalitionEnded
    | BatnaBreach
    | Agreement
    | NoDeal
    | DelegateSessionStarted
    | ConversationStarted
    | Preferences
    | AttitudeChange
    | Consensus
    | Silence
    | Said
    | ConversationEnded
    | MediatorAssessment
    | SpeakerSelection
    | LlmUsage
    | LlmFallback
    | LlmGuard
    | MediatorCandidates
    | GovernedPayload
    | UntypedPayload
)

PAYLOADS: Mapping[str, tuple[type[Any], ...]] = {
    "session_started": (SessionStarted, DelegateSessionStarted),
    "trace": (Trace,),
    "judgement": (JudgementRecord,),
    "stagnation": (Stagnation,),
    "withdrawal": (Withdrawal,),
    "violation": (Violation, DelegateViolation),
    "mediator_proposal": (MediatorProposal,),
    "coalition_formed": (CoalitionFormed,),
    "coalition_ended": (CoalitionEnded,),
    "batna_violation": (BatnaBreach,),
    "agreement": (Agreement, DelegateAgreement),
    "no_deal": (NoDeal,),
    "conversation_started": (ConversationStarted,),
    "preferences": (Preferences,),
    "attitude": (AttitudeChange,),
    "consensus": (Consensus,),
    "silence": (Silence,),
    "utterance": (Said,),
    "intervention": (Said,),
    "conversation_ended": (ConversationEnded,),
    "mediator_assessment": (MediatorAssessment,),
    "speaker_selection": (SpeakerSelection,),
    "llm_usage": (LlmUsage,),
    "llm_fallback": (LlmFallback,),
    "llm_guard": (LlmGuard,),
    "mediator_candidates": (MediatorCandidates,),
    **GOVERNED,
}
"""Payload types by event kind, tried in order (governed delegation reuses three engine kinds:
`session_started`, `violation` and `agreement`; its own kinds are `parley.protocol.governed.GOVERNED`).
"action" events hold one of the `ACTIONS`, told apart by their "kind" tag."""

ACTIONS: tuple[type[Any], ...] = (
    Propose,
    Accept,
    Reject,
    Walk,
    Say,
    ProposeCoalition,
    JoinCoalition,
    DeclineCoalition,
)
"""The payload types of "action" events, told apart by their "kind" tag."""

_ACTIONS_BY_TAG: Mapping[str, type[Any]] = {
    "propose": Propose,
    "accept": Accept,
    "reject": Reject,
    "walk": Walk,
    "say": Say,
    "propose_coalition": ProposeCoalition,
    "join_coalition": JoinCoalition,
    "decline_coalition": DeclineCoalition,
}


def parse_payload(kind: str, data: Mapping[str, Any]) -> Payload:
    """The typed payload of an event of this kind with this data; never raises.

    An unregistered kind, or data no registered type fits, gives an `UntypedPayload`.
    """
    if kind == "action":
        action = _ACTIONS_BY_TAG.get(str(data.get("kind")))
        if action is None:
            return UntypedPayload(kind, data, f"$.kind: expected one of {', '.join(_ACTIONS_BY_TAG)}")
        try:
            return parse(action, data)
        except (TypeError, ValueError) as error:
            return UntypedPayload(kind, data, str(error))
    candidates = PAYLOADS.get(kind)
    if candidates is None:
        return UntypedPayload(kind, data)
    problems: list[str] = []
    for candidate in candidates:
        try:
            return parse(candidate, data)
        except (TypeError, ValueError) as error:
            problems.append(f"{candidate.__name__}: {error}")
    return UntypedPayload(kind, data, "; ".join(problems))


# -- reading JSON by type --------------------------------------------------------------------------


def parse(hint: Any, value: Any, path: str = "$") -> Any:
    """Value, checked against the type hint and converted (lists to tuples, ints to floats).

    Supports str, int, float (finite only: strict JSON has no NaN), bool, None, Any, Literal, unions,
    tuple[X, ...], Mapping[str, X] and dataclasses (lenient ones collect unknown keys in an `extra` field).

    Raises:
        ValueError: the value does not fit, naming the JSON path.
    """
    if hint is Any:
        return value
    if hint is str:
        if not isinstance(value, str):
            raise ValueError(f"{path}: expected a string, got {_shown(value)}")
        return str(value)
    if hint is bool:
        if not isinstance(value, bool):
            raise ValueError(f"{path}: expected a boolean, got {_shown(value)}")
        return value
    # (numbers.Integral and Real also admit the numpy scalars an agent may put in a package)
    if hint is int:
        if type(value) is bool or not isinstance(value, numbers.Integral):
            raise ValueError(f"{path}: expected an integer, got {_shown(value)}")
        return int(value)
    if hint is float:
        if type(value) is bool or not isinstance(value, numbers.Real):
            raise ValueError(f"{path}: expected a number, got {_shown(value)}")
        try:
            number = float(value)
        except OverflowError:  # (an integer too large for a float)
            number = math.inf
        if not math.isfinite(number):  # (strict JSON has no NaN or infinity)
            raise ValueError(f"{path}: expected a finite number, got {_shown(value)}")
        return number
    if hint is type(None):
        if value is not None:
            raise ValueError(f"{path}: expected null, got {_shown(value)}")
        return None
    if dataclasses.is_dataclass(hint):
        return _parse_dataclass(typing.cast(type[Any], hint), value, path)
    return _parse_generic(hint, value, path)


_PLAIN = frozenset({str, int, float, bool, type(None)})


def _parse_generic(hint: Any, value: Any, path: str) -> Any:
    origin, args = typing.get_origin(hint), typing.get_args(hint)
    if origin is Literal:
        if not any(value == arg and type(value) is type(arg) for arg in args):
            raise ValueError(f"{path}: expected one of {', '.join(map(repr, args))}, got {_shown(value)}")
        return value
    if origin in (Union, types.UnionType):
        plain = type(value) in args and type(value) in _PLAIN
        if plain and (type(value) is not float or math.isfinite(value)):  # the usual case, at once
            return value
        problems: list[str] = []
        for arg in args:
            try:
                return parse(arg, value, path)
            except ValueError as error:
                problems.append(str(error))
        joined = " | ".join(problems)
        raise ValueError(problems[0] if len(problems) == 1 else f"{path}: fits none of {joined}")
    if origin is tuple:
        if not isinstance(value, list | tuple):
            raise ValueError(f"{path}: expected a list, got {_shown(value)}")
        items = typing.cast(list[Any], value)
        return tuple(parse(args[0], item, f"{path}[{i}]") for i, item in enumerate(items))
    if origin in (Mapping, dict):
        if not isinstance(value, Mapping):
            raise ValueError(f"{path}: expected an object, got {_shown(value)}")
        found = typing.cast(Mapping[Any, Any], value)
        return {str(key): parse(args[1], item, f"{path}.{key}") for key, item in found.items()}
    raise TypeError(f"{path}: no reader for type {hint!r}")


def _parse_dataclass(cls: type[Any], value: Any, path: str) -> Any:
    if not isinstance(value, Mapping):
        raise ValueError(f"{path}: expected an object, got {_shown(value)}")
    data = typing.cast(Mapping[str, Any], value)
    hints = type_hints(cls)
    given: dict[str, Any] = {}
    known: set[str] = set()
    lenient = False
    for spec in dataclasses.fields(cls):
        if spec.name == EXTRA:
            lenient = True
            continue
        key = json_key(spec)
        known.add(key)
        if key not in data:
            if not spec.init and spec.name == "kind":
                continue  # the tag of a payload stored without it (an event's kind says it)
            if spec.metadata.get("optional") or (_has_default(spec) and spec.init):
                continue
            raise ValueError(f"{path}: missing {key!r}")
        converted = parse(hints[spec.name], data[key], f"{path}.{key}")
        _check_bounds(spec, converted, f"{path}.{key}")
        if spec.init:
            given[spec.name] = converted
    unknown = [key for key in data if key not in known]
    if unknown and not lenient:
        raise ValueError(f"{path}: unexpected {', '.join(map(repr, sorted(unknown)))}")
    if lenient:
        given[EXTRA] = {key: data[key] for key in unknown}
    return cls(**given)


def _check_bounds(spec: dataclasses.Field[Any], value: Any, path: str) -> None:
    low, high = spec.metadata.get("minimum"), spec.metadata.get("maximum")
    if not isinstance(value, int | float) or isinstance(value, bool):
        return
    if (low is not None and value < low) or (high is not None and value > high):
        raise ValueError(f"{path}: expected a number in [{low}, {high}], got {value!r}")


def _has_default(spec: dataclasses.Field[Any]) -> bool:
    return spec.default is not dataclasses.MISSING or spec.default_factory is not dataclasses.MISSING


def json_key(spec: dataclasses.Field[Any]) -> str:
    """The JSON key of a dataclass field."""
    return str(spec.metadata.get("key", spec.name))


@functools.cache
def type_hints(cls: type[Any]) -> dict[str, Any]:
    """A dataclass's resolved field types (cached: resolving them is slow)."""
    return typing.get_type_hints(cls)


def _shown(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 40 else text[:37] + "..."


__all__ = [
    "ACTIONS",
    "PAYLOADS",
    "AcceptanceRecord",
    "Agreement",
    "AttitudeChange",
    "BatnaBreach",
    "BatnaViolation",
    "BreakdownSeen",
    "CoalitionEnded",
    "CoalitionFormed",
    "Consensus",
    "ConversationEnded",
    "ConversationStarted",
    "DelegateAgreement",
    "DelegateSessionStarted",
    "DelegateViolation",
    "Escalation",
    "JudgementRecord",
    "LlmFallback",
    "LlmGuard",
    "LlmUsage",
    "MediatorAssessment",
    "MediatorCandidates",
    "MediatorProposal",
    "NoDeal",
    "Payload",
    "Preferences",
    "RatedCandidate",
    "RulesRecord",
    "Said",
    "SessionStarted",
    "Silence",
    "SpeakerSelection",
    "SpeakerThought",
    "Stagnation",
    "StateTransition",
    "TciLedgerEntry",
    "Trace",
    "UntypedPayload",
    "UsageTotals",
    "Violation",
    "Withdrawal",
    "parse",
    "parse_payload",
]
