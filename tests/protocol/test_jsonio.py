"""The one JSON writer (`parley.jsonio`): strict JSON out, NaN as null only where declared, and every
trajectory it writes matches the published event schema."""

from __future__ import annotations

import itertools
import json
import math
import subprocess
import sys
from pathlib import Path
from types import MappingProxyType
from typing import Any

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from jsonschema import Draft202012Validator

from parley.experiments.runner import run_negotiation
from parley.jsonio import NO_VALUE_FIELDS, JSONValueError, dumps, dumps_line, loads, result_row_line
from parley.protocol.events import Event, Trajectory
from parley.scenarios import load_scenario

SCHEMAS = Path(__file__).resolve().parents[2] / "docs" / "schemas"


def validator(name: str) -> Draft202012Validator:
    schema = json.loads((SCHEMAS / name).read_text(encoding="utf-8"))
    Draft202012Validator.check_schema(schema)
    return Draft202012Validator(schema)


def refuse(name: str) -> Any:
    raise ValueError(f"{name} in output")


def strict(text: str) -> Any:
    """What a strict parser (JavaScript's JSON.parse, jq) reads: no NaN, Infinity or -Infinity."""
    return json.loads(text, parse_constant=refuse)


# -- the writer ------------------------------------------------------------------------------------

KEYS = st.sampled_from(["pareto_distance", "nash_distance", "utility", "x", "ü"])
LEAVES = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(),
    st.floats(allow_nan=True, allow_infinity=True),
    st.text(max_size=5),
)
TREES = st.recursive(
    LEAVES,
    lambda children: st.one_of(
        st.lists(children, max_size=4),
        st.tuples(children, children),
        st.dictionaries(KEYS, children, max_size=4),
    ),
    max_leaves=20,
)


def undeclared_nonfinite(value: Any, key: str | None, declared: frozenset[str]) -> bool:
    """Whether value holds a non-finite float the writer may not turn into null."""
    if isinstance(value, float):
        return not math.isfinite(value) and not (math.isnan(value) and key in declared)
    if isinstance(value, dict):
        return any(undeclared_nonfinite(v, k, declared) for k, v in value.items())
    if isinstance(value, list | tuple):
        return any(undeclared_nonfinite(v, None, declared) for v in value)
    return False


def expected(value: Any, key: str | None, declared: frozenset[str]) -> Any:
    """value as the writer must write it (declared NaNs null, tuples lists)."""
    if isinstance(value, float) and math.isnan(value):
        assert key in declared
        return None
    if isinstance(value, dict):
        return {k: expected(v, k, declared) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [expected(v, None, declared) for v in value]
    return value


@given(TREES, st.sampled_from([frozenset(), NO_VALUE_FIELDS]), st.sampled_from([None, 2]))
def test_the_writer_never_emits_nan_or_infinity(
    value: Any, declared: frozenset[str], indent: int | None
) -> None:
    if undeclared_nonfinite(value, None, declared):
        with pytest.raises(JSONValueError, match=r"non-finite number .* at \$"):
            dumps(value, no_value=declared, indent=indent)
        return
    text = dumps(value, no_value=declared, indent=indent)
    assert "NaN" not in text
    assert "Infinity" not in text
    assert strict(text) == expected(value, None, declared)


@given(TREES)
def test_a_jsonl_record_is_one_strict_line(value: Any) -> None:
    if undeclared_nonfinite(value, None, NO_VALUE_FIELDS):
        with pytest.raises(JSONValueError):
            dumps_line(value, no_value=NO_VALUE_FIELDS)
        return
    line = dumps_line(value, no_value=NO_VALUE_FIELDS)
    assert line.endswith("\n")
    assert "\n" not in line[:-1]
    strict(line)


@given(TREES)
def test_the_canonical_form_is_byte_identical_to_plain_json(value: Any) -> None:
    """Canonical JSON (sorted keys, no spaces, UTF-8: audit hash chains, cache keys) through the one
    writer is byte for byte what json.dumps gives for any strict value, so hashes do not change."""
    if undeclared_nonfinite(value, None, frozenset()):
        return
    plain = json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False, allow_nan=False)
    assert dumps(value, compact=True, sort_keys=True, ensure_ascii=False) == plain


def test_a_declared_nan_is_null_and_an_undeclared_one_names_its_place() -> None:
    row = {"pareto_distance": math.nan, "parties": [{"utility": 1.0}, {"utility": math.nan}]}
    with pytest.raises(JSONValueError) as error:
        dumps(row, no_value=NO_VALUE_FIELDS)
    assert str(error.value) == (
        "cannot write JSON: non-finite number nan (strict JSON has no NaN or Infinity) "
        "at $.parties[1].utility"
    )
    assert error.value.path == "$.parties[1].utility"
    row["parties"] = []
    assert dumps(row, no_value=NO_VALUE_FIELDS) == '{"pareto_distance": null, "parties": []}'


@pytest.mark.parametrize("value", [math.inf, -math.inf])
def test_an_infinity_is_never_no_value(value: float) -> None:
    with pytest.raises(JSONValueError, match=r"at \$\.nash_distance"):
        dumps({"nash_distance": value}, no_value=NO_VALUE_FIELDS)


def test_without_a_declaration_nan_raises_even_in_a_distance_field() -> None:
    with pytest.raises(JSONValueError):
        dumps({"pareto_distance": math.nan})


def test_numpy_values_and_read_only_mappings_are_written_as_plain_json() -> None:
    value = {
        "f32": np.float32(0.5),
        "i64": np.int64(3),
        "b": np.bool_(True),
        "array": np.array([1.0, 2.0]),
        "view": MappingProxyType({"a": 1}),
    }
    assert strict(dumps(value)) == {"f32": 0.5, "i64": 3, "b": True, "array": [1.0, 2.0], "view": {"a": 1}}
    with pytest.raises(JSONValueError, match=r"at \$\.array\[1\]"):
        dumps({"array": np.array([1.0, np.nan])})
    assert strict(dumps({"nash_distance": np.float64("nan")}, no_value=NO_VALUE_FIELDS)) == {
        "nash_distance": None
    }


def test_unwritable_values_raise_one_line_errors() -> None:
    looped: list[Any] = []
    looped.append(looped)
    for value, message in [
        ({"a": {1, 2}}, r"a set has no JSON form at \$\.a"),
        ({"a": [object()]}, r"an? object has no JSON form at \$\.a\[0\]"),
        ({("t",): 1}, r"a tuple key has no JSON form at \$"),
        (looped, r"circular reference at \$\[0\]"),
    ]:
        with pytest.raises(JSONValueError, match=message) as error:
            dumps(value)
        assert "\n" not in str(error.value)


def test_the_strict_reader_refuses_what_strict_parsers_refuse() -> None:
    assert loads('{"a": null, "b": 1.5}') == {"a": None, "b": 1.5}
    for text in ('{"a": NaN}', "[Infinity]", "[-Infinity]"):
        with pytest.raises(ValueError, match="is not JSON"):
            loads(text)


def test_a_tournament_row_is_written_with_null_distances() -> None:
    row = {"game": "g", "utility": 5.0, "pareto_distance": math.nan, "nash_distance": math.nan}
    assert result_row_line(row) == '{"game":"g","utility":5.0,"pareto_distance":null,"nash_distance":null}\n'
    with pytest.raises(JSONValueError, match=r"at \$\.utility"):
        result_row_line({**row, "utility": math.nan})


def test_importing_the_writer_loads_nothing_heavy() -> None:
    code = (
        "import sys, parley.jsonio; "
        "print(sorted(m for m in sys.modules if m.split('.')[0] in {'numpy', 'scipy', 'parley', 'pydantic'}))"
    )
    loaded = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert loaded.stdout.strip() == "['parley', 'parley._lazy', 'parley.errors', 'parley.jsonio']"


# -- trajectories ----------------------------------------------------------------------------------

EVENT = validator("trajectory-event.schema.json")
AGENTS = ("hardliner", "boulware", "conceder", "astra", "random", "tit-for-tat")


def check_trajectory(trajectory: Trajectory) -> list[dict[str, Any]]:
    events = [strict(line) for line in trajectory.to_jsonl().splitlines()]
    for event in events:
        EVENT.validate(event)
    return events


@pytest.mark.parametrize("scenario", ["casino", "procurement", "office_move"])
def test_every_trajectory_event_is_strict_json_matching_the_schema(scenario: str) -> None:
    loaded = load_scenario(scenario)
    ends: set[str] = set()
    lineups = itertools.islice(itertools.product(AGENTS, repeat=len(loaded.parties)), 0, None, 5)
    for lineup in lineups:
        events = check_trajectory(run_negotiation(loaded, list(lineup), seed=2).trajectory)
        ends.add(events[-1]["kind"])
    assert ends <= {"agreement", "no_deal"}


def test_a_no_deal_trajectory_matches_the_schema() -> None:
    result = run_negotiation(load_scenario("casino"), ["hardliner", "hardliner"], seed=0)
    assert result.no_deal is not None
    events = check_trajectory(result.trajectory)
    assert events[-1]["kind"] == "no_deal"
    assert events[-1]["data"]["reason"] in ("stagnation", "walk", "bound_hit")


def test_the_event_schema_is_not_vacuous() -> None:
    good = Event(0, "no_deal", 3, None, {"reason": "walk", "round": 3, "walker": "A", "detail": ""}).to_json()
    EVENT.validate(good)
    for bad in [
        {**good, "data": {**good["data"], "reason": "bored"}},
        {**good, "seq": -1},
        {**good, "extra": 1},
        {**good, "kind": "action", "party": "A", "data": {"kind": "propose", "message": ""}},
    ]:
        assert not EVENT.is_valid(bad), bad


def test_a_trajectory_with_a_non_finite_number_refuses_to_be_written(tmp_path: Path) -> None:
    trajectory = Trajectory([Event(0, "note"), Event(1, "trace", party="A", data={"score": math.inf})])
    with pytest.raises(JSONValueError) as error:
        trajectory.save(tmp_path / "t.jsonl")
    assert str(error.value) == (
        "cannot write JSON: trace event 1 by A: non-finite number inf "
        "(strict JSON has no NaN or Infinity) at $.data.score"
    )
    assert not (tmp_path / "t.jsonl").exists()


def test_the_shared_definitions_agree_across_schemas() -> None:
    event = json.loads((SCHEMAS / "trajectory-event.schema.json").read_text(encoding="utf-8"))
    result = json.loads((SCHEMAS / "result.schema.json").read_text(encoding="utf-8"))
    for name in ("value", "agreement", "no_deal_reason", "no_deal"):
        assert result["$defs"][name] == event["$defs"][name], name


def test_the_readme_links_every_published_schema() -> None:
    readme = (SCHEMAS.parents[1] / "README.md").read_text(encoding="utf-8")
    published = sorted(path.name for path in SCHEMAS.glob("*.schema.json"))
    assert published == ["result.schema.json", "results-row.schema.json", "trajectory-event.schema.json"]
    for name in published:
        assert f"(docs/schemas/{name})" in readme, name
        validator(name)  # each is a valid draft 2020-12 schema
