"""Typed trajectories: one payload type per event kind, a versioned file format, a generated schema."""

from __future__ import annotations

import itertools
import json
from collections.abc import Iterable
from pathlib import Path
from types import MappingProxyType
from typing import Any

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from jsonschema import Draft202012Validator

from linear_growth import assert_grows_linearly
from parley.experiments.gaia.figures import figure_problems
from parley.experiments.runner import run_negotiation
from parley.governance.config import load_config
from parley.governance.counterparties import ScriptedCounterparty, SimulatedCounterparty
from parley.governance.escalation import EscalationRequest, PolicyPrincipal
from parley.governance.memory import PrincipalMemory
from parley.governance.portfolio import member_seed, run_portfolio
from parley.governance.session import run_session
from parley.governance.store import SessionStore
from parley.governance.strategy import with_strategy
from parley.mediation.mediators import create_mediator
from parley.protocol.actions import Propose, Say
from parley.protocol.artefact import Agreement, NoDeal
from parley.protocol.clock import FakeClock
from parley.protocol.events import TRAJECTORY_VERSION, Event, Trajectory, TrajectoryError
from parley.protocol.governed import (
    GOVERNED,
    ClaimVerification,
    CounterpartyMessage,
    DelegateMessage,
    Escalation,
    FactUpdated,
    NoReply,
    PreflightSkipped,
    Reconfirmed,
    Reversal,
    SafetyEvent,
    SessionStopped,
)
from parley.protocol.payloads import (
    PAYLOADS,
    Consensus,
    DelegateViolation,
    LlmUsage,
    MediatorProposal,
    SessionStarted,
    StateTransition,
    UntypedPayload,
    Violation,
    parse_payload,
)
from parley.protocol.replay import replay
from parley.protocol.trajectory_schema import PUBLISHED, render, trajectory_event_schema
from parley.protocol.view import Record
from parley.scenarios import load_scenario
from parley.scenarios.importers.promediate import load_promediate_case
from parley.simulation.conversation import run_conversation
from parley.simulation.modes import ConflictMode

EVENT = Draft202012Validator(json.loads(PUBLISHED.read_text(encoding="utf-8")))
PERSONAS = ("cooperative", "adversarial")
SCREENED = [
    "I'm a U.S. citizen.",
    "I can do a 6-hour overlap with Pacific time. Mostly Python and React.",
    "I have 8 years of professional experience. I could start in January.",
    "I'm after a permanent role. My salary expectation is $95K.",
    "Hybrid suits me, 3 days a week in the office.",
]
NO_DEAL = {"reason": "walk", "round": 3, "walker": "A", "detail": ""}
TOTALS = {
    "calls": 2,
    "prompt_tokens": 10,
    "completion_tokens": 5,
    "latency_s": 0.5,
    "cost_usd": 0.0,
    "unpriced_calls": 2,
    "decisions": 2,
    "fallbacks": 1,
    "fallback_share": 0.5,
    "fallback_causes": {"timeout": 1},
    "models": ["fake"],
}
LLM_USAGE: dict[str, Any] = {"total": TOTALS, "by_role": {"negotiator": TOTALS}, "by_session": {}}


# -- the published schema --------------------------------------------------------------------------


def test_the_published_schema_is_generated_from_the_payload_types() -> None:
    assert PUBLISHED.read_text(encoding="utf-8") == render(), (
        "docs/schemas/trajectory-event.schema.json is out of date: "
        "run .venv/bin/python -m parley.protocol.trajectory_schema"
    )
    Draft202012Validator.check_schema(trajectory_event_schema())


def test_the_schema_describes_every_registered_kind() -> None:
    rules = trajectory_event_schema()["allOf"]
    described = {rule["if"]["properties"]["kind"]["const"] for rule in rules}
    assert described == set(PAYLOADS) | {"action"}


@pytest.mark.parametrize(
    ("kind", "data"),
    [
        ("stagnation", {"rounds": 2, "policy": "bored"}),
        ("stagnation", {"rounds": -1, "policy": "walk"}),
        ("withdrawal", {"reason": "x"}),
        ("judgement", {"verdict": "agreement", "reason": "tired"}),
        ("consensus", {"group": "high", "topics": {}}),
        ("session_started", {"parties": ["A"], "issues": {}}),
        ("state_transition", {"to": "AGREE"}),
        ("violation", {"detail": 1, "action": None}),
    ],
)
def test_the_schema_rejects_malformed_data_of_typed_kinds(kind: str, data: dict[str, Any]) -> None:
    assert not EVENT.is_valid(Event(0, kind, data=data).to_json())
    assert isinstance(parse_payload(kind, data), UntypedPayload)  # the reader agrees


def test_the_schema_accepts_the_version_only_as_a_supported_number() -> None:
    line = {"trajectory_version": TRAJECTORY_VERSION, **Event(0, "no_deal", data=NO_DEAL).to_json()}
    EVENT.validate(line)
    for bad in (3, "2", True, 2.5):
        assert not EVENT.is_valid({**line, "trajectory_version": bad}), bad


# -- payloads of real sessions ---------------------------------------------------------------------


def typed_kinds(trajectory: Trajectory) -> set[str]:
    """The kinds in trajectory, checking each registered kind parses into a type (not untyped)."""
    for event in trajectory:
        if event.kind in PAYLOADS or event.kind == "action":
            assert not isinstance(event.payload, UntypedPayload), (event.kind, event.payload)
    return {event.kind for event in trajectory}


def test_every_engine_event_has_a_typed_payload() -> None:
    seen: set[str] = set()
    for scenario in ("casino", "office_move"):
        loaded = load_scenario(scenario)
        agents = ("hardliner", "boulware", "conceder", "random", "tit-for-tat")
        for lineup in itertools.islice(itertools.product(agents, repeat=len(loaded.parties)), 0, None, 4):
            seen |= typed_kinds(run_negotiation(loaded, list(lineup), seed=3).trajectory)
    assert {"session_started", "action", "agreement", "no_deal"} <= seen


def test_the_engine_payloads_carry_the_recorded_values() -> None:
    result = run_negotiation(load_scenario("casino"), ["boulware", "conceder"], seed=7)
    head = result.trajectory[0].typed(SessionStarted)
    assert head.parties == ("A", "B") or len(head.parties) == 2
    assert head.rules.max_rounds >= 1 and head.scenario == "casino"
    proposals = [e.payload for e in result.trajectory if isinstance(e.payload, Propose)]
    assert proposals and all(set(p.package) == set(head.issues) for p in proposals)
    assert result.agreement is not None
    assert result.trajectory[-1].typed(Agreement) == result.agreement


def test_a_mediated_conversation_has_typed_consensus_events() -> None:
    scenario = load_promediate_case("hmo")
    result = run_conversation(scenario, create_mediator("social"), mode=ConflictMode.GENERAL, seed=2)
    kinds = typed_kinds(result.trajectory)
    assert {"conversation_started", "consensus", "attitude", "preferences"} <= kinds
    series = [e.typed(Consensus).group for e in result.trajectory.of_kind("consensus")]
    assert series == [round(value, 6) for value in result.consensus]


def test_a_governed_delegation_has_typed_records() -> None:
    store = SessionStore()
    script = ["Work authorization - I need H-1B sponsorship.", "OK, $100K works for me."]
    config = with_strategy(load_config("staffing"), "legacy")
    outcome = run_session(
        config, ScriptedCounterparty(script), PolicyPrincipal(), store, config_source="staffing"
    )
    events = Trajectory(store.load_events(outcome.session_id))
    typed_kinds(events)
    transitions = [e.typed(StateTransition) for e in events.of_kind("state_transition")]
    assert transitions and all(t.rationale for t in transitions)
    assert transitions[0].source == "START"


# -- every kind parley emits has a type -----------------------------------------------------------


def emitted(events: Iterable[Event]) -> set[str]:
    """The kinds of events; fails on a kind with no registered payload type, on data that fits none,
    and on a line the published schema refuses."""
    kinds: set[str] = set()
    for event in events:
        assert event.kind in PAYLOADS or event.kind == "action", f"{event.kind!r} has no payload type"
        assert not isinstance(event.payload, UntypedPayload), (event.kind, event.payload.problem)
        EVENT.validate(json.loads(json.dumps(event.to_json())))
        kinds.add(event.kind)
    return kinds


def governed_events() -> list[Event]:
    """A delegate session (an ask above the band: a widened limit and guidance), its principal's
    memory log before and after forgetting, and a two-counterparty portfolio with its members."""
    store = SessionStore()
    config = load_config("staffing")
    script = [*SCREENED, "I need $110K.", "$110K works for me.", "Thanks, that summary looks right to me."]
    principal = PolicyPrincipal({"boundary": "B"}, guidance={"boundary": "Go to $110K at most."})
    legacy = with_strategy(config, "legacy")  # (an ask above the band escalates at once)
    outcome = run_session(legacy, ScriptedCounterparty(script), principal, store, config_source="staffing")
    events = store.load_events(outcome.session_id)
    PrincipalMemory(store).forget(by="test", now=1.0)
    events += store.load_events(store.memory_log)
    members = [SimulatedCounterparty(config, name, member_seed(3, i)) for i, name in enumerate(PERSONAS)]
    policy = PolicyPrincipal({"boundary": "A", "final_approval": "A"})
    portfolio = run_portfolio(
        config, members, policy, store, config_source="staffing", seed=3, clock=FakeClock()
    )
    for session_id in (portfolio.portfolio_id, *(c.member.session_id for c in portfolio.candidates)):
        events += store.load_events(session_id)
    return events


def test_every_kind_a_governed_delegation_emits_has_a_payload_type() -> None:
    kinds = emitted(governed_events())
    assert {
        "session_started",
        "state_transition",
        "counterparty_message",
        "moderator_label",
        "terms_read",
        "tci_ledger",
        "question",
        "guidance",
        "draft",
        "preflight",
        "delegate_message",
        "negotiation_strategy",
        "escalation",
        "decision",
        "human_override",
        "authorization_change",
        "fact_updated",
        "agreement",
        "session_ended",
        "memory_recorded",
        "memory_forgotten",
        "portfolio_started",
        "portfolio_comparison",
        "member_decision",
    } <= kinds


def test_every_kind_a_mediated_conversation_emits_has_a_payload_type() -> None:
    scenario = load_promediate_case("hmo")
    result = run_conversation(scenario, create_mediator("social"), mode=ConflictMode.GENERAL, seed=2)
    kinds = emitted(result.trajectory)
    assert {
        "mediator_assessment",
        "speaker_selection",
        "utterance",
        "intervention",
        "conversation_ended",
    } <= kinds


def test_every_kind_a_bargaining_session_emits_has_a_payload_type() -> None:
    result = run_negotiation(load_scenario("casino"), ["boulware", "conceder"], seed=7)
    assert {"session_started", "action", "agreement"} <= emitted(result.trajectory)


LLM_GOLDENS = sorted((Path(__file__).parents[1] / "llm").rglob("trajectory.jsonl"))


@pytest.mark.parametrize("path", LLM_GOLDENS, ids=lambda p: p.parent.name)
def test_every_kind_of_the_recorded_llm_sessions_has_a_payload_type(path: Path) -> None:
    kinds = emitted(Trajectory.load(path))  # (ASTRA, GAIA and ProMediate with LLM roles)
    assert "llm_usage" in kinds


def test_the_llm_goldens_cover_the_llm_layers_notes() -> None:
    kinds = set[str]().union(*(emitted(Trajectory.load(path)) for path in LLM_GOLDENS))
    assert {"llm_fallback", "llm_guard", "mediator_candidates", "llm_usage"} <= kinds


RARE_RECORDS: list[tuple[str, dict[str, Any], type[Any]]] = [
    # (kinds the sessions above do not reach, written as their emitters write them)
    ("reconfirmed", {"field": "seniority", "value": "senior", "rationale": "r"}, Reconfirmed),
    (
        "fact_updated",
        {"field": "compensation", "old": 9.0, "new": "95k", "reason": "correction"},
        FactUpdated,
    ),
    (
        "claim_verification",
        {"field": "f", "claim": "c", "status": "verified", "detail": "", "source": "s"},
        ClaimVerification,
    ),
    ("session_stopped", {"session_id": "s", "error": "did not end", "rationale": "r"}, SessionStopped),
    (
        "safety_event",
        {"type": "limit_disclosure", "findings": [{"term": "x"}], "rationale": "r"},
        SafetyEvent,
    ),
    (
        "safety_event",
        {"type": "prompt_injection", "family": None, "reason": None, "count": 1, "since_decision": 1},
        SafetyEvent,
    ),
    ("safety_event", {"type": "holding_fallback"}, SafetyEvent),
    ("preflight", {"skipped": True, "rationale": "preflight disabled (ablation)"}, PreflightSkipped),
    ("no_reply", {"silent_rounds": 2, "rationale": "r"}, NoReply),
    ("reversal", {"fields": ["seniority"]}, Reversal),
    ("llm_usage", LLM_USAGE, LlmUsage),
]


@pytest.mark.parametrize(("kind", "data", "expected"), RARE_RECORDS)
def test_records_the_sessions_do_not_reach_are_typed(
    kind: str, data: dict[str, Any], expected: type[Any]
) -> None:
    assert isinstance(parse_payload(kind, data), expected)
    assert EVENT.is_valid(Event(0, kind, data=data).to_json())


def test_a_record_keeps_the_keys_its_type_does_not_declare() -> None:
    data = {"text": "hello", "state": "SCREEN", "rationale": "sent", "tone": "new field"}
    message = parse_payload("delegate_message", data)
    assert message == DelegateMessage("hello", "SCREEN", "sent", {"tone": "new field"})


def test_an_escalation_gives_back_the_request_it_stored() -> None:
    store = SessionStore()
    config = load_config("staffing")
    outcome = run_session(
        config,
        SimulatedCounterparty(config, "adversarial", 1),
        PolicyPrincipal(),
        store,
        config_source="staffing",
    )
    asked = [e for e in store.load_events(outcome.session_id) if e.kind == "escalation"]
    assert asked
    for event in asked:
        request = event.typed(Escalation)
        assert request.request_json() == {k: v for k, v in event.data.items() if k != "rationale"}
        assert EscalationRequest.from_json(request.request_json()).to_json() == request.request_json()


@pytest.mark.parametrize(
    ("kind", "data"),
    [
        (
            "decision",
            {
                "request_id": 1,
                "option": "A",
                "guidance": "",
                "decided_by": "p",
                "decided_at": 0.0,
                "trigger": "x",
            },
        ),
        ("authorization_change", {"term": "salary", "minimum": None, "maximum": float("nan")}),
        ("authorization_change", {"term": "salary", "minimum": None, "maximum": float("inf")}),
        ("authorization_change", {"term": "salary", "minimum": None, "maximum": True}),
        (
            "tci_ledger",
            {"turn": 1, "tci": "high", "tci_weighted": 0.1, "question_kind": "q", "information_gain": 0},
        ),
        ("question", {"kind": "stcc", "fields": "seniority", "expected_gain": 0.1}),
        (
            "moderator_label",
            {
                "label": "cooperative",
                "top_label": "x",
                "confidence": 1,
                "family": None,
                "scores": {"a": "b"},
                "cues": {},
            },
        ),
        ("delegate_message", {"text": None, "state": "SCREEN"}),
        ("escalation", {"trigger": "boundary"}),  # a request without its situation, problem and options
        ("memory_forgotten", {"principal": None, "domain": None, "request_ids": [1], "by": "x"}),
        ("preflight", {"skipped": False}),
        ("llm_usage", {**LLM_USAGE, "total": {**LLM_USAGE["total"], "fallback_share": 2.0}}),
        ("speaker_selection", {"speaker": None, "motivations": {"a": float("nan")}, "thought": None}),
        ("llm_fallback", {"role": "negotiator", "reason": "timeout", "detail": "", "calls": -1}),
        ("llm_guard", {"guard": None}),
        ("mediator_candidates", {"candidates": [], "rated_by": "vibes", "delivered": 0}),
    ],
)
def test_malformed_governance_and_conversation_records_are_untyped(kind: str, data: dict[str, Any]) -> None:
    assert isinstance(parse_payload(kind, data), UntypedPayload)


def test_huge_and_disguised_text_parses_as_text_in_bounded_time() -> None:
    huge = "\u200b" + "\u0430" * 2_000_000  # zero-width space, then Cyrillic a
    message = parse_payload("counterparty_message", {"text": huge, "rationale": "inbound"})
    assert message == CounterpartyMessage(huge, "inbound")

    def parse(text: str) -> object:
        return parse_payload("counterparty_message", {"text": "\u200b" + text, "rationale": "inbound"})

    assert_grows_linearly(parse, "\u0430", 500_000, 4)  # growth, not speed: the text is taken whole
    assert isinstance(parse_payload("counterparty_message", {"text": [huge]}), UntypedPayload)


@given(
    st.dictionaries(
        st.sampled_from(["text", "state", "type", "kind", "term", "maximum", "fields", "rationale"]),
        st.none() | st.booleans() | st.floats() | st.integers() | st.text() | st.lists(st.text()),
    )
)
def test_parsing_governance_records_never_raises(data: dict[str, Any]) -> None:
    for kind in GOVERNED:
        parse_payload(kind, data)


# -- parsing rules ---------------------------------------------------------------------------------


def test_an_unknown_kind_gets_an_untyped_payload_never_an_error() -> None:
    event = Event(0, "plugin_note", data={"anything": [1, {"x": None}]})
    assert event.payload == UntypedPayload("plugin_note", {"anything": [1, {"x": None}]})
    assert event.payload is event.payload  # parsed once


def test_data_that_fits_no_type_is_untyped_and_typed_says_why_in_one_line() -> None:
    event = Event(4, "no_deal", data={"reason": "bored", "round": 1})
    assert isinstance(event.payload, UntypedPayload)
    with pytest.raises(TrajectoryError) as error:
        event.typed(NoDeal)
    message = str(error.value)
    assert "\n" not in message and message.startswith("no_deal event 4: expected NoDeal data: ")
    assert "$.reason: expected one of 'walk'" in message and message.endswith("got 'bored'")


def test_a_kind_shared_by_two_subsystems_picks_the_type_that_fits() -> None:
    assert isinstance(parse_payload("violation", {"detail": "x", "action": None}), Violation)
    delegate = parse_payload("violation", {"slips": ["a"], "severity": ["high"], "rationale": "r"})
    assert delegate == DelegateViolation(("a",), ("high",), "r")


@pytest.mark.parametrize(
    "data",
    [
        {"reason": "walk", "round": True, "walker": None, "detail": ""},  # a bool is not a round
        {"reason": "walk", "round": 1.0, "walker": None, "detail": ""},
        {"reason": "walk", "round": 1, "walker": 7, "detail": ""},
        {"reason": "walk", "round": 1, "walker": None, "detail": "", "extra": 1},
        {"reason": "w\u200balk", "round": 1},  # zero-width space
        {"reason": "w\u0430lk", "round": 1},  # Cyrillic a
    ],
)
def test_malformed_or_disguised_values_are_refused(data: dict[str, Any]) -> None:
    assert isinstance(parse_payload("no_deal", data), UntypedPayload)


def test_a_homoglyph_kind_is_not_the_kind_it_looks_like() -> None:
    payload = parse_payload("n\u043e_deal", NO_DEAL)  # Cyrillic o
    assert isinstance(payload, UntypedPayload) and payload.problem == ""


def test_read_only_data_parses_like_a_dict() -> None:
    assert parse_payload("no_deal", MappingProxyType(NO_DEAL)) == NoDeal("walk", 3, "A", "")


def test_actions_need_their_tag() -> None:
    assert isinstance(parse_payload("action", {"message": ""}), UntypedPayload)
    say = parse_payload(
        "action", {"kind": "say", "message": "hi", "priorities": ["a"], "asks_priorities": False}
    )
    assert say == Say("hi", ("a",), False)


def test_huge_data_parses() -> None:
    package = {f"issue{i}": i for i in range(20_000)}
    payload = Event(0, "mediator_proposal", data={"package": package}).typed(MediatorProposal)
    assert len(payload.package) == 20_000


@given(st.dictionaries(st.text(max_size=8), st.recursive(st.none() | st.integers() | st.text(), st.lists)))
def test_parsing_never_raises(data: dict[str, Any]) -> None:
    for kind in [*PAYLOADS, "action", "other"]:
        parse_payload(kind, data)


# -- versioned files -------------------------------------------------------------------------------


def saved_game(tmp_path: Path) -> tuple[Trajectory, Path]:
    trajectory = run_negotiation(load_scenario("casino"), ["hardliner", "conceder"], seed=1).trajectory
    return trajectory, trajectory.save(tmp_path / "t.jsonl")


def test_a_saved_trajectory_carries_its_version_and_loads_back(tmp_path: Path) -> None:
    trajectory, path = saved_game(tmp_path)
    first = json.loads(path.read_text(encoding="utf-8").splitlines()[0])
    assert first["trajectory_version"] == TRAJECTORY_VERSION
    for line in path.read_text(encoding="utf-8").splitlines():
        EVENT.validate(json.loads(line))
    assert list(Trajectory.load(path)) == list(trajectory)


def test_a_version_1_file_without_a_marker_still_loads(tmp_path: Path) -> None:
    trajectory, _ = saved_game(tmp_path)
    old = tmp_path / "old.jsonl"
    old.write_text(trajectory.to_jsonl(), encoding="utf-8")  # as parley wrote it before versions
    loaded = Trajectory.load(old)
    assert list(loaded) == list(trajectory)
    assert loaded[0].typed(SessionStarted).parties == trajectory[0].typed(SessionStarted).parties


@pytest.mark.parametrize("version", [3, 0, -1, "2", True, 2.0, None, [2], 10**100])
def test_an_unknown_version_is_refused_in_one_line(tmp_path: Path, version: Any) -> None:
    path = tmp_path / "t.jsonl"
    path.write_text(json.dumps({"trajectory_version": version, **Event(0, "note").to_json()}) + "\n", "utf-8")
    with pytest.raises(TrajectoryError) as error:
        Trajectory.load(path)
    message = str(error.value)
    assert "\n" not in message and "unsupported trajectory version" in message and len(message) < 200


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("not json\n", "line 1: not JSON"),
        ('{"seq":0,"kind":"x"}\n[1]\n', "line 2: expected a JSON object per line"),
        ('{"kind":"x"}\n', "line 1: missing 'seq'"),
        ('{"seq":"zero","kind":"x"}\n', "line 1: not an event"),
        ('{"seq":0,"kind":"x","data":[1]}\n', "line 1: 'data' is not an object"),
        ('{"seq":0,"kind":"x","party":{"a":1}}\n', "line 1: 'party' is not a string or null"),
        ('{"seq":0,"kind":"x","time":NaN}\n', "line 1: not JSON"),
        ("[" * 100_000 + "\n", "line 1: not JSON"),
    ],
)
def test_a_malformed_file_is_refused_naming_the_line(tmp_path: Path, text: str, expected: str) -> None:
    path = tmp_path / "t.jsonl"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(TrajectoryError) as error:
        Trajectory.load(path)
    assert str(error.value).startswith(f"{path}: {expected}") and "\n" not in str(error.value)


def test_a_missing_or_binary_file_is_refused_in_one_line(tmp_path: Path) -> None:
    with pytest.raises(TrajectoryError, match=r"^.*missing\.jsonl: not readable \(No such file"):
        Trajectory.load(tmp_path / "missing.jsonl")
    binary = tmp_path / "b.jsonl"
    binary.write_bytes(b"\xff\xfe\x00")
    with pytest.raises(TrajectoryError, match=r"b\.jsonl: not readable \('utf-8' codec can't decode"):
        Trajectory.load(binary)


def test_blank_lines_and_an_empty_file_load() -> None:
    assert len(Trajectory.loads("")) == 0
    assert len(Trajectory.loads('\n{"seq":0,"kind":"note"}\n\n')) == 1


# -- converted readers -----------------------------------------------------------------------------


def test_numpy_values_in_a_package_are_read_as_plain_numbers() -> None:
    payload = Event(0, "mediator_proposal", data={"package": {"a": np.int64(2), "b": np.float64(0.5)}})
    package = payload.typed(MediatorProposal).package
    assert package == {"a": 2, "b": 0.5} and type(package["a"]) is int


def test_replay_refuses_a_malformed_move_in_one_line() -> None:
    casino = load_scenario("casino")
    original = run_negotiation(casino, ["boulware", "conceder"], seed=7).trajectory
    events = list(original)
    first = next(e for e in events if e.kind == "action")
    events[first.seq] = Event(
        first.seq, "action", first.round, first.party, {"kind": "propose", "package": [1]}
    )
    with pytest.raises(TrajectoryError) as error:
        replay(Trajectory(events), casino.space, casino.setups(), casino.rules)
    assert str(error.value).startswith(f"action event {first.seq}: not a move: $.package: expected an object")


def test_a_record_lists_typed_offers_and_messages_and_skips_malformed_ones() -> None:
    events = [
        Event(0, "action", 1, "A", {"kind": "propose", "package": {"x": 1}, "message": "hi"}),
        Event(1, "action", 1, "B", {"kind": "propose", "package": "not a package", "message": ""}),
        Event(2, "mediator_proposal", 1, "mediator", {"package": {"x": 2}}),
        Event(3, "action", 2, "B", {"kind": "accept", "message": "ok"}),
    ]
    record = Record(events)
    assert record.offers() == [("A", {"x": 1}), ("mediator", {"x": 2})]
    assert record.messages() == [("A", "hi"), ("B", "ok")]


# -- converted governance and web readers -------------------------------------------------------------

LABEL = {
    "label": "pressure",
    "top_label": "pressure",
    "confidence": 0.9,
    "family": None,
    "scores": {},
    "cues": {},
}
PREFLIGHT: dict[str, Any] = {
    "draft": "We accept $130K.",
    "binding": True,
    "commitments": [{"sentence": "We accept $130K.", "cue": "we accept", "reason": "rule"}],
    "breaches": [],
    "approaching": [],
    "prohibited": [],
    "disclosures": [],
    "rewrite": None,
    "requires_approval": True,
    "sendable": None,
    "problems": [],
    "normalization": [],
    "refused": False,
    "classifier": None,
    "cleared": [],
    "rationale": "requires approval",
}


def test_the_live_safety_list_reads_typed_records_and_skips_malformed_ones() -> None:
    from parley.web.live import _safety  # pyright: ignore[reportPrivateUsage]

    events = [
        Event(0, "moderator_label", 1, "delegate", {**LABEL, "label": "cooperative"}),
        Event(1, "moderator_label", 2, "delegate", LABEL),
        Event(2, "moderator_label", 3, "delegate", {"label": "pressure"}),  # fits no type: skipped
        Event(3, "preflight", 3, "delegate", PREFLIGHT),
        Event(4, "preflight", 3, "delegate", {**PREFLIGHT, "refused": "yes"}),  # skipped
        Event(
            5, "violation", 4, "delegate", {"slips": ["binding"], "severity": ["high"], "rationale": "unsafe"}
        ),
        Event(6, "violation", 5, "A", {"detail": "bad move", "action": None}),
    ]
    assert [(s.kind, s.text) for s in _safety(events)] == [
        ("counterparty", "labelled pressure"),
        ("preflight", "draft needs approval: requires approval"),
        ("violation", "{'rationale': 'unsafe', 'severity': ['high'], 'slips': ['binding']}"),
        ("violation", "bad move"),
    ]


def test_the_figures_check_reads_typed_messages_and_skips_malformed_ones() -> None:
    config = load_config("staffing")
    above = "We can offer $150K for the role."
    events = [
        Event(0, "delegate_message", 1, "delegate", {"text": above, "state": "NEGOTIATE", "rationale": "r"}),
        Event(1, "delegate_message", 2, "delegate", {"state": "NEGOTIATE"}),  # no text: skipped, no KeyError
        Event(
            2,
            "authorization_change",
            3,
            "principal",
            {"term": "annual_salary", "minimum": None, "maximum": "x"},
        ),
    ]
    problems = figure_problems(config, events)
    assert [(p.turn, p.value, p.rule) for p in problems] == [(1, 150000.0, "beyond_authority")]
    widened = Event(
        3,
        "authorization_change",
        3,
        "principal",
        {"term": "annual_salary", "minimum": None, "maximum": 160000},
    )
    assert figure_problems(config, [widened, *events[:1]]) == []  # (within the widened limit)


def test_the_run_browser_reads_both_versions_and_refuses_an_unknown_one_in_one_line(tmp_path: Path) -> None:
    from parley.web.runs import RunNotFound, read_trajectory, scenario_name

    trajectory, saved = saved_game(tmp_path)
    folder = tmp_path / "run"
    folder.mkdir()
    target = folder / "trajectory.jsonl"
    for text in (saved.read_text(encoding="utf-8"), trajectory.to_jsonl()):  # version 2, then 1
        target.write_text(text, encoding="utf-8")
        assert list(read_trajectory(folder)) == list(trajectory)
        assert scenario_name(read_trajectory(folder), None) == "casino"
    target.write_text(json.dumps({"trajectory_version": 3, **Event(0, "note").to_json()}) + "\n", "utf-8")
    with pytest.raises(RunNotFound) as error:
        read_trajectory(folder)
    assert "unsupported trajectory version" in str(error.value) and "\n" not in str(error.value)
