"""Byte-identical determinism by seed, replay of saved trajectories, and JSONL save/load."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from parley.agents import create
from parley.agents.baselines import FairNegotiator, GreedyNegotiator, RandomNegotiator, TimeBasedNegotiator
from parley.protocol import (
    Action,
    Event,
    Negotiator,
    PartyView,
    Rules,
    Session,
    SessionResult,
    Trajectory,
    replay,
)
from parley.scenarios.model import Scenario
from parley.testing.scenarios import casino_like_scenario


def baseline_game(
    scenario: Scenario, seed: int, rules: Rules | None = None, metadata: dict[str, object] | None = None
) -> SessionResult:
    names = scenario.party_names
    negotiators: dict[str, Negotiator] = {
        names[0]: TimeBasedNegotiator(names[0], seed, exponent=0.2),
        names[1]: RandomNegotiator(names[1], seed + 1),
    }
    for i, name in enumerate(names[2:]):
        negotiators[name] = FairNegotiator(name, seed + 2 + i)
    return Session(
        scenario.space, scenario.setups(), negotiators, rules or scenario.rules, metadata=metadata
    ).run()


@pytest.mark.parametrize("seed", [0, 1, 2, 3])
def test_same_seed_same_bytes(casino: Scenario, three_party: Scenario, seed: int) -> None:
    for scenario in (casino, three_party):
        first = baseline_game(scenario, seed).trajectory.to_jsonl()
        second = baseline_game(scenario, seed).trajectory.to_jsonl()
        assert first == second


def test_different_seeds_can_differ(casino: Scenario) -> None:
    transcripts = {baseline_game(casino, seed).trajectory.to_jsonl() for seed in range(6)}
    assert len(transcripts) > 1


@pytest.mark.parametrize("seed", [0, 1, 2, 5, 8])
def test_replay_rebuilds_the_result_and_the_bytes(casino: Scenario, three_party: Scenario, seed: int) -> None:
    for scenario in (casino, three_party):
        original = baseline_game(scenario, seed, metadata={"seed": seed, "scenario": scenario.name})
        again = replay(original.trajectory, scenario.space, scenario.setups(), scenario.rules)
        assert again.ended == original.ended
        assert again.trajectory.to_jsonl() == original.trajectory.to_jsonl()


def test_replay_of_a_mediated_session(casino: Scenario) -> None:
    class Middle:
        def propose(self, view: object) -> dict[str, int]:
            return {"food": 2, "water": 1, "firewood": 1}

    negotiators: dict[str, Negotiator] = {
        "alice": GreedyNegotiator("alice", 1),
        "bob": GreedyNegotiator("bob", 2),
    }
    rules = Rules(stagnation_rounds=2, on_stagnation="mediate", max_rounds=12)
    original = Session(casino.space, casino.setups(), negotiators, rules, mediator=Middle()).run()
    assert original.trajectory.of_kind("mediator_proposal")
    again = replay(original.trajectory, casino.space, casino.setups(), rules)
    assert again.trajectory.to_jsonl() == original.trajectory.to_jsonl()


def test_replay_under_a_shorter_round_cap_stops_at_the_cap(casino: Scenario) -> None:
    original = baseline_game(casino, 3, Rules(max_rounds=20))
    assert original.rounds > 2
    shorter = replay(original.trajectory, casino.space, casino.setups(), Rules(max_rounds=2))
    assert shorter.no_deal is not None
    assert (shorter.no_deal.reason, shorter.no_deal.round) == ("bound_hit", 2)


def test_save_and_load_round_trip(casino: Scenario, tmp_path: Path) -> None:
    original = baseline_game(casino, 4, metadata={"note": "ünïcödé ✓"}).trajectory
    path = original.save(tmp_path / "deep" / "run.jsonl")
    assert path.exists()
    loaded = Trajectory.load(path)
    assert loaded.to_jsonl() == original.to_jsonl()
    assert list(loaded) == list(original)
    saved = path.read_text(encoding="utf-8")
    assert saved == original.to_jsonl(versioned=True)
    assert saved == '{"trajectory_version":2,' + original.to_jsonl()[1:]  # only the first line differs


def test_event_json_round_trip() -> None:
    event = Event(3, "trace", 2, "alice", {"x": [1, 2]}, "alice", 1.25)
    assert Event.from_json(event.to_json()) == event
    assert list(event.to_json()) == ["seq", "kind", "round", "party", "audience", "time", "data"]
    assert not event.is_public
    assert event.visible_to("alice")
    assert not event.visible_to("bob")


def test_trajectory_append_numbers_events_and_filters() -> None:
    trajectory = Trajectory()
    first = trajectory.append("a", round=1, data={"k": 1})
    trajectory.append("b", round=1, party="x", audience="x")
    trajectory.append("a", round=2)
    assert first.seq == 0
    assert [e.seq for e in trajectory] == [0, 1, 2]
    assert [e.seq for e in trajectory.of_kind("a")] == [0, 2]
    assert [e.seq for e in trajectory.public()] == [0, 2]
    assert [e.seq for e in trajectory.visible_to("x")] == [0, 1, 2]
    assert [e.seq for e in trajectory.visible_to("y")] == [0, 2]
    assert trajectory.to_jsonl().count("\n") == 3
    assert Trajectory().to_jsonl() == ""


def test_load_skips_blank_lines(tmp_path: Path) -> None:
    trajectory = Trajectory()
    trajectory.append("a")
    path = tmp_path / "t.jsonl"
    path.write_text("\n" + trajectory.to_jsonl() + "\n\n", encoding="utf-8")
    assert len(Trajectory.load(path)) == 1


class Coached:
    """A deterministic negotiator that explains some of its moves (private traces)."""

    def __init__(self, party: str, seed: int) -> None:
        self.inner = TimeBasedNegotiator(party, seed, exponent=2.0)
        self.moves = 0

    def act(self, view: PartyView) -> Action:
        self.moves += 1
        return self.inner.act(view)

    def explain(self) -> dict[str, object] | None:
        return {"move": self.moves, "note": "why"} if self.moves % 2 else None


@pytest.mark.parametrize("seed", [0, 1])
def test_replay_keeps_private_traces(casino: Scenario, three_party: Scenario, seed: int) -> None:
    for scenario in (casino, three_party):
        negotiators: dict[str, Negotiator] = {
            p: Coached(p, seed + i) for i, p in enumerate(scenario.party_names)
        }
        original = Session(scenario.space, scenario.setups(), negotiators, scenario.rules).run()
        assert original.trajectory.of_kind("trace")
        again = replay(original.trajectory, scenario.space, scenario.setups(), scenario.rules)
        assert again.trajectory.to_jsonl() == original.trajectory.to_jsonl()


@settings(max_examples=30)
@given(
    st.sampled_from(
        ["boulware", "linear", "conceder", "tit-for-tat", "hardliner", "random", "base", "greedy", "fair"]
    ),
    st.sampled_from(["boulware", "conceder", "random", "fair", "greedy"]),
    st.integers(0, 10_000),
)
def test_any_seeded_baseline_game_is_byte_identical_and_replays(first: str, second: str, seed: int) -> None:
    scenario = casino_like_scenario()

    def run() -> SessionResult:
        negotiators = {
            "alice": create(first, party="alice", seed=seed),
            "bob": create(second, party="bob", seed=seed + 1),
        }
        return Session(scenario.space, scenario.setups(), negotiators, scenario.rules).run()

    original = run()
    assert run().trajectory.to_jsonl() == original.trajectory.to_jsonl()
    again = replay(original.trajectory, scenario.space, scenario.setups(), scenario.rules)
    assert again.trajectory.to_jsonl() == original.trajectory.to_jsonl()
