"""Typed trajectories: one payload type per event kind, a versioned file format, a generated schema."""

from __future__ import annotations

import itertools
import json
from pathlib import Path
from types import MappingProxyType
from typing import Any

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from jsonschema import Draft202012Validator

from parley.experiments.runner import run_negotiation
from parley.governance.config import load_config
from parley.governance.counterparties import ScriptedCounterparty
from parley.governance.escalation import PolicyPrincipal
from parley.governance.session import run_session
from parley.governance.store import SessionStore
from parley.governance.strategy import with_strategy
from parley.mediation.mediators import create_mediator
from parley.protocol.actions import Propose, Say
from parley.protocol.artefact import Agreement, NoDeal
from parley.protocol.events import TRAJECTORY_VERSION, Event, Trajectory, TrajectoryError
from parley.protocol.payloads import (
    PAYLOADS,
    Consensus,
    DelegateViolation,
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
NO_DEAL = {"reason": "walk", "round": 3, "walker": "A", "detail": ""}


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
