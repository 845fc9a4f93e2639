"""YAML round trip (scenario → YAML → scenario) and robustness of the loader against mutated files."""

from __future__ import annotations

import copy
from pathlib import Path
from typing import Any

import numpy as np
import pytest
import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from scenario_samples import BASE_SCENARIO

from parley.errors import ScenarioError
from parley.scenarios import (
    list_scenarios,
    load_scenario,
    scenario_from_data,
    scenario_from_yaml,
    scenario_to_yaml,
)
from parley.scenarios.importers.casino import dialogue_to_scenario, load_dialogues
from parley.scenarios.model import Scenario


def assert_same_scenario(first: Scenario, second: Scenario) -> None:
    """Equal names, spaces, rules, metadata, parties and utilities over every outcome."""
    assert (first.name, first.title, first.description) == (second.name, second.title, second.description)
    assert first.space == second.space
    assert [issue.unit for issue in first.space.issues] == [issue.unit for issue in second.space.issues]
    assert first.rules == second.rules
    assert dict(first.metadata) == dict(second.metadata)
    for one, other in zip(first.parties, second.parties, strict=True):
        assert (one.name, one.role, one.brief) == (other.name, other.role, other.brief)
        assert dict(one.persona) == dict(other.persona)
        assert dict(one.signals) == dict(other.signals)
        assert type(one.utility) is type(other.utility)
        assert one.utility.reservation_value == other.utility.reservation_value
        np.testing.assert_allclose(one.utility.evaluate_space(), other.utility.evaluate_space())


@pytest.mark.parametrize("name", [info.name for info in list_scenarios()])
def test_shipped_scenarios_round_trip(name: str) -> None:
    scenario = load_scenario(name)
    assert_same_scenario(scenario, scenario_from_yaml(scenario_to_yaml(scenario), "round-trip.yaml"))


def test_imported_dialogue_round_trips() -> None:
    dialogue = load_dialogues(Path(__file__).resolve().parents[1] / "data" / "casino" / "casino_valid.json")[
        0
    ]
    scenario = dialogue_to_scenario(dialogue)
    again = scenario_from_yaml(scenario_to_yaml(scenario))
    assert_same_scenario(scenario, again)
    assert scenario_to_yaml(scenario).count("allocated_to: mturk_agent_1") == 3


def test_table_and_ranked_utilities_round_trip() -> None:
    data = copy.deepcopy(BASE_SCENARIO)
    data["parties"][0]["utility"] = {
        "type": "table",
        "default": 1.0,
        "entries": [
            {"outcome": {"price": "low", "colour": "red", "crates": 3}, "utility": 9.0},
            {"outcome": {"price": "mid", "colour": "blue", "crates": 0}, "utility": -2.0},
        ],
    }
    data["parties"][1]["utility"] = {
        "type": "ranked",
        "preferences": {"colour": {"ranking": ["blue", "green"], "unacceptable": ["red"]}},
        "weights": {"colour": 2.0},
        "rank_scores": [1.0, 0.5],
    }
    data["parties"][1]["batna"] = 0.5
    scenario = scenario_from_data(data, "tiny.yaml")
    text = scenario_to_yaml(scenario)
    assert "type: table" in text and "type: ranked" in text
    assert_same_scenario(scenario, scenario_from_yaml(text))
    assert scenario.party("A").utility.evaluate({"price": "low", "colour": "red", "crates": 3}) == 9.0
    assert scenario.party("A").utility.evaluate({"price": "high", "colour": "red", "crates": 3}) == 1.0


def test_shorthands_come_back_expanded() -> None:
    scenario = scenario_from_data(copy.deepcopy(BASE_SCENARIO))
    written = yaml.safe_load(scenario_to_yaml(scenario))
    b_values = written["parties"][1]["utility"]["values"]
    assert b_values["crates"] == [6.0, 4.0, 2.0, 0.0]  # 2 per unit of the 3 − crates that B keeps
    assert written["issues"][2] == {"name": "crates", "range": {"min": 0, "max": 3}, "allocated_to": "A"}


# --- robustness: mutated files raise ScenarioError or load, nothing else -------------------------

TOKENS = [
    "",
    "x",
    "-1",
    "0",
    "3",
    "2.5",
    "1e400",
    "yes",
    "null",
    "[]",
    "{}",
    "[1, 2]",
    "{a: 1}",
    ":",
    "- ",
    "&a",
    "*a",
]
REPLACEMENTS: list[Any] = [
    None,
    True,
    -1,
    0,
    3,
    2.5,
    10**12,
    "x",
    "A",
    "price",
    [],
    {},
    [1, "a"],
    {"type": "x"},
]
BASE_TEXT = yaml.safe_dump(BASE_SCENARIO, sort_keys=False)


def _paths(data: Any, prefix: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    """Every key or index path in nested data."""
    found: list[tuple[Any, ...]] = [prefix] if prefix else []
    if isinstance(data, dict):
        for key, value in data.items():
            found += _paths(value, (*prefix, key))
    elif isinstance(data, list):
        for position, value in enumerate(data):
            found += _paths(value, (*prefix, position))
    return found


PATHS = _paths(BASE_SCENARIO)


def _load_or_scenario_error(text: str) -> None:
    try:
        scenario_from_yaml(text, "mutated.yaml")
    except ScenarioError as error:
        assert "\n" not in str(error)
        assert str(error).startswith("mutated.yaml")


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(st.tuples(st.sampled_from(PATHS), st.sampled_from(REPLACEMENTS)), min_size=1, max_size=3))
def test_mutated_data_raises_only_scenario_error(edits: list[tuple[tuple[Any, ...], Any]]) -> None:
    data = copy.deepcopy(BASE_SCENARIO)
    for path, value in edits:
        target: Any = data
        try:
            for part in path[:-1]:
                target = target[part]
            target[path[-1]] = copy.deepcopy(value)
        except (KeyError, IndexError, TypeError):
            continue  # an earlier edit removed this path
    _load_or_scenario_error(yaml.safe_dump(data, sort_keys=False))


@settings(max_examples=150, deadline=None)
@given(
    st.lists(
        st.tuples(st.integers(0, len(BASE_TEXT)), st.integers(0, 8), st.sampled_from(TOKENS)),
        min_size=1,
        max_size=3,
    )
)
def test_mutated_text_raises_only_scenario_error(edits: list[tuple[int, int, str]]) -> None:
    text = BASE_TEXT
    for start, length, token in edits:
        start = min(start, len(text))
        text = text[:start] + token + text[start + length :]
    _load_or_scenario_error(text)
