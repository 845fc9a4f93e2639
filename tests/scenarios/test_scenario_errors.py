"""Every kind of bad scenario file fails with one ScenarioError line naming file, field and problem."""

from __future__ import annotations

import logging
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from scenario_samples import write_yaml

from parley.errors import ScenarioError
from parley.scenarios import load_scenario, validate_file

Mutation = Callable[[dict[str, Any]], None]


def _set(path: str, value: Any) -> Mutation:
    """A mutation setting the dotted path (list positions as numbers) to value."""

    def mutate(data: dict[str, Any]) -> None:
        *parents, last = [int(p) if p.isdigit() else p for p in path.split(".")]
        target: Any = data
        for part in parents:
            target = target[part]
        target[last] = value

    return mutate


def _delete(path: str) -> Mutation:
    def mutate(data: dict[str, Any]) -> None:
        *parents, last = [int(p) if p.isdigit() else p for p in path.split(".")]
        target: Any = data
        for part in parents:
            target = target[part]
        del target[last]

    return mutate


def _both(*mutations: Mutation) -> Mutation:
    def mutate(data: dict[str, Any]) -> None:
        for mutation in mutations:
            mutation(data)

    return mutate


TABLE_UTILITY = {
    "type": "table",
    "default": 0,
    "entries": [{"outcome": {"price": "low", "colour": "red", "crates": 1}, "utility": 5}],
}

# (id, mutation, expected field path, fragment expected in the message)
CASES: list[tuple[str, Mutation, str, str]] = [
    ("unknown top-level key", _set("isues", []), "isues", "unknown key 'isues' (did you mean 'issues'?"),
    ("unknown party key", _set("parties.0.batan", 3), "parties[0].batan", "did you mean 'batna'?"),
    ("unknown protocol key", _set("protocol.max_round", 3), "protocol.max_round", "unknown key 'max_round'"),
    (
        "unknown utility key",
        _set("parties.1.utility.wieghts", {}),
        "parties[1].utility.wieghts",
        "did you mean 'weights'?",
    ),
    (
        "batna not a number",
        _set("parties.1.batna", "high"),
        "parties[1].batna",
        "expected a number, got 'high'",
    ),
    (
        "max_rounds not an integer",
        _set("protocol.max_rounds", "ten"),
        "protocol.max_rounds",
        "expected an integer",
    ),
    ("issues not a list", _set("issues", "price"), "issues", "expected a list, got 'price'"),
    ("party not a mapping", _set("parties.0", "A"), "parties[0]", "expected a mapping, got 'A'"),
    ("missing batna", _delete("parties.0.batna"), "parties[0].batna", "required field is missing"),
    ("missing name", _delete("name"), "name", "required field is missing"),
    ("one party only", lambda d: d["parties"].pop(), "parties", "expected at least 2 item(s)"),
    ("no issues", _set("issues", []), "issues", "expected at least 1 item(s)"),
    (
        "unknown issue in weights",
        _set("parties.0.utility.weights.prise", 1.0),
        "parties[0].utility.weights.prise",
        "unknown issue 'prise' (did you mean 'price'?",
    ),
    (
        "unknown issue in values",
        _set("parties.1.utility.values.size", [1, 2]),
        "parties[1].utility.values.size",
        "unknown issue 'size'",
    ),
    (
        "weight without values",
        _delete("parties.0.utility.values.colour"),
        "parties[0].utility.weights.colour",
        "has a weight but no values",
    ),
    (
        "value table too short",
        _set("parties.0.utility.values.price", [1, 2]),
        "parties[0].utility.values.price",
        "expected 3 values (one per option of 'price'), got 2",
    ),
    (
        "value not a number",
        _set("parties.1.utility.values.colour", [0, "lots", 2]),
        "parties[1].utility.values.colour[1]",
        "expected a finite number, got 'lots'",
    ),
    (
        "option not in issue",
        _set("parties.0.utility.values.colour", {"red": 1, "purple": 2, "green": 0, "blue": 0}),
        "parties[0].utility.values.colour.purple",
        "'purple' is not an option of issue 'colour'",
    ),
    (
        "mapping misses an option",
        _set("parties.0.utility.values.colour", {"red": 1}),
        "parties[0].utility.values.colour",
        "missing ['green', 'blue']",
    ),
    (
        "per_unit on text options",
        _set("parties.0.utility.values.colour", {"per_unit": 2}),
        "parties[0].utility.values.colour",
        "per_unit needs an issue of quantities",
    ),
    (
        "per_unit with unknown key",
        _set("parties.0.utility.values.crates", {"per_unit": 2, "complement": 3}),
        "parties[0].utility.values.crates.complement",
        "unknown key 'complement'",
    ),
    (
        "value table of wrong type",
        _set("parties.0.utility.values.price", "cheap"),
        "parties[0].utility.values.price",
        "expected a list of 3 numbers",
    ),
    (
        "numeric key where a name is expected",
        _set("parties.0.utility.weights", {1: 0.5}),
        "parties[0].utility.weights[1]",
        "expected text keys, got key 1",
    ),
    ("duplicate issue", _set("issues.1.name", "price"), "issues[1].name", "duplicate issue name 'price'"),
    ("duplicate party", _set("parties.1.name", "A"), "parties[1].name", "duplicate party name 'A'"),
    (
        "duplicate option",
        _set("issues.0.options", ["low", "mid", "low"]),
        "issues[0].options[2]",
        "duplicate option 'low'",
    ),
    ("empty options", _set("issues.0.options", []), "issues[0].options", "expected at least one option"),
    (
        "empty range",
        _set("issues.2.range", {"min": 3, "max": 0}),
        "issues[2].range",
        "expected max >= min, got min=3, max=0",
    ),
    (
        "huge range",
        _set("issues.2.range", {"min": 0, "max": 10**9}),
        "issues[2].range",
        "expected at most 100,000 options",
    ),
    (
        "options and range",
        _set("issues.0.range", {"min": 0, "max": 2}),
        "issues[0]",
        "expected exactly one of 'options' or 'range', got both",
    ),
    ("neither options nor range", _delete("issues.0.options"), "issues[0]", "got neither"),
    (
        "boolean option",
        _set("issues.0.options", ["low", True]),
        "issues[0].options",
        "expected text or a number",
    ),
    (
        "batna above the best outcome",
        _set("parties.0.batna", 50),
        "parties[0].batna",
        "expected a BATNA at most 11 (the best outcome for 'A'), got 50",
    ),
    ("infinite batna", _set("parties.0.batna", float("inf")), "parties[0].batna", "expected a finite number"),
    (
        "unknown utility type",
        _set("parties.0.utility.type", "quadratic"),
        "parties[0].utility",
        "expected type one of linear_additive, table, ranked, additive_bonus, got 'quadratic'",
    ),
    ("missing utility type", _delete("parties.0.utility.type"), "parties[0].utility", "missing 'type'"),
    (
        "bad stagnation policy",
        _set("protocol.stagnation.on_stagnation", "panic"),
        "protocol.stagnation.on_stagnation",
        "expected one of 'walk', 'mediate' or 'continue', got 'panic'",
    ),
    ("zero rounds", _set("protocol.max_rounds", 0), "protocol.max_rounds", "expected a value >= 1, got 0"),
    (
        "epsilon out of range",
        _set("protocol.stagnation.epsilon", 1.5),
        "protocol.stagnation.epsilon",
        "expected a value < 1.0, got 1.5",
    ),
    (
        "negative deadline",
        _set("protocol.deadline_seconds", -5),
        "protocol.deadline_seconds",
        "expected a value > 0",
    ),
    (
        "more acceptances than parties",
        _set("protocol.acceptance", {"required": 3}),
        "protocol.acceptance.required",
        "expected at most 2 (the number of parties), got 3",
    ),
    (
        "unknown veto party",
        _set("protocol.acceptance", {"vetoes": ["C"]}),
        "protocol.acceptance.vetoes[0]",
        "unknown party 'C'",
    ),
    (
        "proposer order incomplete",
        _set("protocol.proposer_order", ["A"]),
        "protocol.proposer_order",
        "expected every party once (A, B), got ['A']",
    ),
    (
        "allocation to unknown party",
        _set("issues.2.allocated_to", "Z"),
        "issues[2].allocated_to",
        "unknown party 'Z'",
    ),
    (
        "allocation of a text issue",
        _set("issues.0.allocated_to", "A"),
        "issues[0].allocated_to",
        "expected a range with min 0 and step 1",
    ),
    (
        "allocation twice",
        _set("metadata.allocation", {"crates": {"owner": "A", "total": 3}}),
        "metadata",
        "not both",
    ),
    (
        "bad allocation metadata",
        _both(_delete("issues.2.allocated_to"), _set("metadata.allocation", {"crates": {"owner": "A"}})),
        "metadata.allocation.crates",
        "exactly the keys owner and total",
    ),
    (
        "priority names unknown issue",
        _set("parties.0.signals.priorities", ["price", "size"]),
        "parties[0].signals.priorities[1]",
        "unknown issue 'size'",
    ),
    (
        "must-have not an option",
        _set("parties.0.signals.must_haves", {"colour": ["pink"]}),
        "parties[0].signals.must_haves.colour[0]",
        "'pink' is not an option",
    ),
    (
        "table outcome with unknown option",
        _set(
            "parties.1.utility",
            {
                **TABLE_UTILITY,
                "entries": [{"outcome": {"price": "free", "colour": "red", "crates": 1}, "utility": 1}],
            },
        ),
        "parties[1].utility.entries[0].outcome.price",
        "'free' is not an option of issue 'price'",
    ),
    (
        "table outcome missing an issue",
        _set(
            "parties.1.utility", {**TABLE_UTILITY, "entries": [{"outcome": {"price": "low"}, "utility": 1}]}
        ),
        "parties[1].utility.entries[0].outcome",
        "missing ['colour', 'crates']",
    ),
    (
        "table outcome listed twice",
        _set("parties.1.utility", {**TABLE_UTILITY, "entries": TABLE_UTILITY["entries"] * 2}),
        "parties[1].utility.entries[1].outcome",
        "the same outcome as entries[0]",
    ),
    (
        "ranked option both ranked and unacceptable",
        _set(
            "parties.1.utility",
            {
                "type": "ranked",
                "preferences": {"colour": {"ranking": ["red", "blue"], "unacceptable": ["red"]}},
            },
        ),
        "parties[1].utility.preferences.colour.unacceptable",
        "'red' is both ranked and unacceptable",
    ),
    (
        "ranked unknown key",
        _set("parties.1.utility", {"type": "ranked", "preferences": {"colour": {"rank": ["red"]}}}),
        "parties[1].utility.preferences.colour.rank",
        "did you mean 'ranking'?",
    ),
    (
        "ranked option listed twice",
        _set("parties.1.utility", {"type": "ranked", "preferences": {"colour": {"ranking": ["red", "red"]}}}),
        "parties[1].utility.preferences.colour.ranking[1]",
        "option 'red' is listed twice",
    ),
]


@pytest.mark.parametrize(("mutation", "field", "fragment"), [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_bad_file_gives_one_line_error(
    tmp_path: Path, scenario_data: dict[str, Any], mutation: Mutation, field: str, fragment: str
) -> None:
    mutation(scenario_data)
    path = write_yaml(tmp_path / "bad.yaml", scenario_data)
    with pytest.raises(ScenarioError) as caught:
        validate_file(path)
    message = str(caught.value)
    assert "\n" not in message
    assert message.startswith(f"{path}: {field}: "), message
    assert fragment in message, message
    assert caught.value.field == field
    assert caught.value.source == str(path)


RAW_CASES: list[tuple[str, str, str]] = [
    ("syntax error", "name: tiny\nissues: [unclosed\n", "invalid YAML at line 3"),
    ("tab indentation", "name: tiny\nissues:\n\t- name: a\n", "invalid YAML at line 3, column 1"),
    ("duplicate key", "name: tiny\nname: other\n", "invalid YAML at line 2, column 1: duplicate key 'name'"),
    ("top level list", "- name: tiny\n", "expected a mapping at the top level, got a list"),
    ("empty file", "", "expected a mapping at the top level, got nothing (null)"),
]


@pytest.mark.parametrize(("text", "fragment"), [c[1:] for c in RAW_CASES], ids=[c[0] for c in RAW_CASES])
def test_bad_yaml_text_gives_one_line_error(tmp_path: Path, text: str, fragment: str) -> None:
    path = tmp_path / "bad.yaml"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(ScenarioError) as caught:
        validate_file(path)
    assert "\n" not in str(caught.value)
    assert str(caught.value).startswith(f"{path}: ")
    assert fragment in str(caught.value)


def test_missing_file(tmp_path: Path) -> None:
    with pytest.raises(ScenarioError, match="file not found"):
        validate_file(tmp_path / "absent.yaml")


def test_unknown_scenario_name_lists_the_shipped_ones() -> None:
    with pytest.raises(ScenarioError, match=r"unknown scenario 'nope'; .*casino.*lamen/hotel"):
        load_scenario("nope")


def test_several_problems_are_counted(tmp_path: Path, scenario_data: dict[str, Any]) -> None:
    scenario_data["parties"][0]["batna"] = "x"
    scenario_data["parties"][1]["batna"] = "y"
    path = write_yaml(tmp_path / "bad.yaml", scenario_data)
    with pytest.raises(ScenarioError, match=r"\(and 1 more problem\)$"):
        validate_file(path)


def test_batna_below_worst_outcome_only_warns(
    tmp_path: Path, scenario_data: dict[str, Any], caplog: pytest.LogCaptureFixture
) -> None:
    scenario_data["parties"][1]["batna"] = -4
    path = write_yaml(tmp_path / "low.yaml", scenario_data)
    with caplog.at_level(logging.WARNING, logger="parley.scenarios.loader"):
        scenario = validate_file(path)
    assert scenario.party("B").utility.reservation_value == -4
    assert "parties[1].batna -4 is below B's worst outcome (0)" in caplog.text
