"""`run_negotiation`: the agent names it records (issue 15: `agent_names` was documented but ignored)."""

from __future__ import annotations

import pytest

from parley.agents.registry import create
from parley.experiments.runner import build_negotiators, run_negotiation
from parley.scenarios import load_scenario


def _recorded(result: object) -> dict[str, str]:
    started = result.trajectory.of_kind("session_started")[0]  # type: ignore[attr-defined]
    return dict(started.data["agents"])


def test_ready_negotiators_are_recorded_under_the_names_given() -> None:
    scenario = load_scenario("casino")
    negotiators = build_negotiators(scenario, ["boulware", "conceder"], seed=3)
    result = run_negotiation(scenario, negotiators, seed=3, agent_names={"A": "boulware", "B": "conceder"})
    assert _recorded(result) == {"A": "boulware", "B": "conceder"}


def test_names_follow_the_parties_not_the_order_of_the_mapping() -> None:
    scenario = load_scenario("casino")
    negotiators = {
        "B": create("hardliner", party="B", seed=1),
        "A": create("boulware", party="A", seed=0),
    }
    result = run_negotiation(scenario, negotiators, seed=0)
    assert _recorded(result) == {"A": "TimeBasedNegotiator", "B": "HardlinerNegotiator"}
    partly = run_negotiation(scenario, negotiators, seed=0, agent_names={"B": "stubborn"})
    assert _recorded(partly) == {"A": "TimeBasedNegotiator", "B": "stubborn"}


def test_named_agents_are_recorded_by_name_and_extra_names_are_refused() -> None:
    scenario = load_scenario("casino")
    result = run_negotiation(scenario, ["linear", "conceder"], seed=0)
    assert _recorded(result) == {"A": "linear", "B": "conceder"}
    with pytest.raises(ValueError, match=r"agent_names names parties that are not in 'casino': \['C'\]"):
        run_negotiation(scenario, ["linear", "conceder"], seed=0, agent_names={"C": "x"})


def test_a_negative_seed_is_reported_as_given() -> None:
    with pytest.raises(ValueError, match=r"seed must not be negative, got -1$"):
        run_negotiation(load_scenario("casino"), ["linear", "conceder"], seed=-1)
