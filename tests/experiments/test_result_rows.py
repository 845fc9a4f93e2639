"""Tournament result rows as strict JSON matching the published row schema (no NaN for no-deal games)."""

from __future__ import annotations

import json
import math
import typing
from pathlib import Path
from typing import Any

import pytest
from jsonschema import Draft202012Validator

from parley.experiments.tournament import ResultStore, TournamentSpec, plan, play, run_games, summarize
from parley.jsonio import JSONValueError, result_row_line
from parley.protocol.artefact import NoDealReason

SCHEMAS = Path(__file__).resolve().parents[2] / "docs" / "schemas"
ROW_SCHEMA = json.loads((SCHEMAS / "results-row.schema.json").read_text(encoding="utf-8"))
Draft202012Validator.check_schema(ROW_SCHEMA)
ROW = Draft202012Validator(ROW_SCHEMA)


def refuse(name: str) -> Any:
    raise ValueError(f"{name} in output")


def strict(text: str) -> Any:
    """What a strict parser (JavaScript's JSON.parse, jq) reads: no NaN, Infinity or -Infinity."""
    return json.loads(text, parse_constant=refuse)


def games() -> list[Any]:
    return plan(TournamentSpec(("hardliner", "boulware", "conceder"), ("casino",), self_play=True))


def test_rows_of_deals_and_no_deals_are_strict_json_matching_the_schema() -> None:
    ends: set[str] = set()
    for game in games():
        for row in play(game):
            line = result_row_line(row)
            assert line.endswith("\n") and "\n" not in line[:-1]
            written = strict(line)
            ROW.validate(written)
            ends.add(written["end"])
            if not written["agreement"]:
                assert written["pareto_distance"] is None and written["nash_distance"] is None
                assert math.isfinite(written["utility"])  # no deal: the BATNA, never null
    assert "agreement" in ends and ends - {"agreement"}, ends


def test_the_row_schema_names_every_way_a_game_ends() -> None:
    expected = {"agreement", "error", *typing.get_args(NoDealReason)}
    assert set(ROW_SCHEMA["properties"]["end"]["enum"]) == expected
    assert set(ROW_SCHEMA["required"]) == set(ROW_SCHEMA["properties"])


def test_the_row_schema_is_not_vacuous() -> None:
    row = strict(result_row_line(play(games()[0])[0]))
    ROW.validate(row)
    for bad in [
        {**row, "end": "bored"},
        {**row, "utility": None},  # only a failed game has no utility
        {**row, "extra": 1},
        {**row, "walked": 0},
        {**row, "failed": True, "error": ""},
        {**row, "end": "error"},
    ]:
        assert not ROW.is_valid(bad), bad


def test_rows_of_unplayable_games_are_strict_json_matching_the_schema(unplayable_scenario: Path) -> None:
    spec = TournamentSpec(("boulware", "hardliner"), (str(unplayable_scenario),))
    rows = [strict(result_row_line(row)) for game in plan(spec) for row in play(game)]
    for row in rows:
        ROW.validate(row)
    assert all(row["failed"] and row["error"] for row in rows)
    assert all(row["pareto_distance"] is None for row in rows)


def test_a_failed_game_has_no_utility_and_any_other_game_must_have_one() -> None:
    row = play(games()[0])[0]
    failed = {
        **row,
        "end": "error",
        "failed": True,
        "error": "ValueError: cannot build",
        "utility": math.nan,
        "normalized_utility": math.nan,
        "pareto_distance": math.nan,
        "nash_distance": math.nan,
    }
    written = strict(result_row_line(failed))
    ROW.validate(written)
    assert written["utility"] is None and written["normalized_utility"] is None
    with pytest.raises(JSONValueError, match=r"at \$\.utility"):
        result_row_line({**row, "utility": math.nan})


def test_the_summary_reads_null_distances_as_missing() -> None:
    rows = [strict(result_row_line(row)) for game in games() for row in play(game)]
    assert any(row["pareto_distance"] is None for row in rows)
    by_agent = {s.agent: s for s in summarize(rows)}
    hardliner = by_agent["hardliner"]
    assert hardliner.games == 6
    finite = [
        r["pareto_distance"] for r in rows if r["agent"] == "hardliner" and r["pareto_distance"] is not None
    ]
    assert hardliner.pareto_distance.count == len(finite)


def test_a_tournament_writes_strict_results_jsonl(tmp_path: Path) -> None:
    store = ResultStore(tmp_path)
    run_games(games(), store)
    lines = (tmp_path / "results.jsonl").read_text(encoding="utf-8").splitlines()
    assert lines
    for line in lines:
        ROW.validate(strict(line))


def test_rows_carry_the_llm_fallback_share() -> None:
    from parley.experiments.tournament import _fallback_share  # pyright: ignore[reportPrivateUsage]
    from parley.protocol.events import Trajectory

    def usage(decisions: int, fallbacks: int) -> Trajectory:
        trajectory = Trajectory()
        share = fallbacks / decisions if decisions else 0.0
        total = {  # as the LLM layer writes it (`parley.llm.accounting`), every field present
            "calls": decisions,
            "prompt_tokens": 10 * decisions,
            "completion_tokens": 2 * decisions,
            "latency_s": 0.5,
            "cost_usd": 0.0,
            "unpriced_calls": 0,
            "decisions": decisions,
            "fallbacks": fallbacks,
            "fallback_share": share,
            "fallback_causes": {"timeout": fallbacks} if fallbacks else {},
            "models": ["stub"],
        }
        data = {"total": total, "by_role": {"negotiator": total}, "by_session": {"s1": total}}
        trajectory.append("llm_usage", round=3, data=data)
        return trajectory

    assert _fallback_share(Trajectory()) is None  # no LLM in the game
    assert _fallback_share(usage(0, 0)) is None  # an LLM role that never decided
    assert _fallback_share(usage(11, 11)) == 1.0
    assert _fallback_share(usage(8, 2)) == 0.25
    row = strict(result_row_line(play(games()[0])[0]))
    assert row["llm_fallback_share"] is None
