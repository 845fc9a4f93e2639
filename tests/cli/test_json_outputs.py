"""`parley run --json` and `--save` write strict JSON matching the published schemas, deal or no deal."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from jsonschema import Draft202012Validator
from typer.testing import CliRunner

from parley.cli.app import app

pytestmark = pytest.mark.e2e
runner = CliRunner()
SCHEMAS = Path(__file__).resolve().parents[2] / "docs" / "schemas"


def validator(name: str) -> Draft202012Validator:
    schema = json.loads((SCHEMAS / name).read_text(encoding="utf-8"))
    Draft202012Validator.check_schema(schema)
    return Draft202012Validator(schema)


RESULT = validator("result.schema.json")
EVENT = validator("trajectory-event.schema.json")


def refuse(name: str) -> Any:
    raise ValueError(f"{name} in output")


def strict(text: str) -> Any:
    """What a strict parser (JavaScript's JSON.parse, jq) reads: no NaN, Infinity or -Infinity."""
    return json.loads(text, parse_constant=refuse)


def run(*args: str) -> tuple[int, str, str]:
    result = runner.invoke(app, ["run", *args], env={"COLUMNS": "160"})
    return result.exit_code, result.stdout, result.stderr


# hardliner vs hardliner stalls and one walks on stagnation; hardliner vs boulware runs out of rounds.
NO_DEAL = [("hardliner", "hardliner", "stagnation"), ("hardliner", "boulware", "bound_hit")]


@pytest.mark.parametrize(("first", "second", "reason"), NO_DEAL)
def test_a_no_deal_game_prints_strict_json_with_null_distances(first: str, second: str, reason: str) -> None:
    code, out, err = run("casino", "--agent", first, "--agent", second, "--json")
    assert code == 0, err
    summary = strict(out)
    RESULT.validate(summary)
    assert summary["no_deal"]["reason"] == reason
    assert summary["pareto_distance"] is None
    assert summary["nash_distance"] is None
    assert [p["utility"] for p in summary["parties"]] == [5.0, 5.0]  # no deal: each party's BATNA


def test_a_deal_prints_strict_json_with_distances() -> None:
    code, out, err = run("casino", "--agent", "boulware", "--agent", "conceder", "--json")
    assert code == 0, err
    summary = strict(out)
    RESULT.validate(summary)
    assert "agreement" in summary
    assert isinstance(summary["pareto_distance"], float)
    assert isinstance(summary["nash_distance"], float)


@pytest.mark.parametrize(
    ("first", "second"), [("boulware", "conceder"), ("hardliner", "hardliner"), ("hardliner", "boulware")]
)
def test_saved_files_are_strict_json_matching_the_schemas(first: str, second: str, tmp_path: Path) -> None:
    code, out, err = run("casino", "--agent", first, "--agent", second, "--json", "--save", str(tmp_path))
    assert code == 0, err
    saved = strict((tmp_path / "result.json").read_text(encoding="utf-8"))
    RESULT.validate(saved)
    assert saved == strict(out)
    events = [strict(line) for line in (tmp_path / "trajectory.jsonl").read_text().splitlines()]
    for event in events:
        EVENT.validate(event)
    assert events[-1]["kind"] == ("agreement" if "agreement" in saved else "no_deal")


def test_the_result_schema_is_not_vacuous() -> None:
    code, out, _ = run("casino", "--agent", "hardliner", "--agent", "hardliner", "--json")
    assert code == 0
    good = strict(out)
    RESULT.validate(good)
    for bad in [
        {**good, "pareto_distance": "NaN"},
        {**good, "agreement": {}},  # both an agreement and a no-deal record
        {k: v for k, v in good.items() if k != "nash_distance"},
        {**good, "parties": [{**good["parties"][0], "utility": None}]},
    ]:
        assert not RESULT.is_valid(bad), bad


def test_save_at_an_existing_file_is_a_one_line_error(tmp_path: Path) -> None:
    target = tmp_path / "taken"
    target.write_text("keep me", encoding="utf-8")
    code, _, err = run("casino", "--agent", "boulware", "--agent", "conceder", "--save", str(target))
    assert code == 2
    assert "Traceback" not in err
    assert str(target) in err.replace("\n", "")
    assert target.read_text(encoding="utf-8") == "keep me"


def test_a_value_json_cannot_hold_is_a_one_line_error_and_nothing_is_written(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from parley.cli import run as run_module

    summary = run_module._summary

    def broken(*args: Any) -> dict[str, Any]:
        built = summary(*args)
        built["parties"][0]["utility"] = float("nan")  # a bug: a utility is never "no value"
        return built

    monkeypatch.setattr(run_module, "_summary", broken)
    target = tmp_path / "out"
    code, out, err = run("casino", "-a", "boulware", "-a", "conceder", "--json", "--save", str(target))
    assert code == 1
    assert "Traceback" not in err
    assert "non-finite number nan" in err and "$.parties[0].utility" in err.replace("\n", "")
    assert out == ""
    assert not target.exists()


def test_mediate_saves_strict_metrics_with_null_for_metrics_that_have_no_value(tmp_path: Path) -> None:
    # Without a mediator there are no interventions (no ME, MI) and no drop is ever answered (no RL).
    args = ["mediate", "hmo", "--mediator", "none", "--seed", "1", "--quiet", "--save", str(tmp_path)]
    result = runner.invoke(app, args, env={"COLUMNS": "160"})
    assert result.exit_code == 0, result.stderr
    metrics = strict((tmp_path / "metrics.json").read_text(encoding="utf-8"))
    assert metrics["interventions"] == 0 and metrics["ME"] is None and metrics["MI"] is None
    assert metrics["drops"] > 0 and metrics["RL_turns"] is None and metrics["RL_seconds"] is None
    assert isinstance(metrics["CC"], float)
    for line in (tmp_path / "trajectory.jsonl").read_text(encoding="utf-8").splitlines():
        strict(line)


def test_an_llm_run_saves_strict_json_matching_the_schemas(tmp_path: Path) -> None:
    from parley.testing.llm import StubReply, StubServer

    # Every reply is unusable: the LLM negotiator falls back to its rule twin on every move.
    with StubServer(lambda body: StubReply.ok("no idea")) as stub:
        code, out, err = run(
            "casino", "-a", "llm", "-a", "hardliner", "--llm", stub.spec(), "--allow-fallback",
            "--json", "--save", str(tmp_path),
        )  # fmt: skip
    assert code == 0, err
    saved = strict((tmp_path / "result.json").read_text(encoding="utf-8"))
    RESULT.validate(saved)
    assert saved == strict(out)
    assert saved["llm_fallback"]["negotiator"]["fallbacks"] > 0
    assert isinstance(saved["llm_usage"], str)
    for line in (tmp_path / "trajectory.jsonl").read_text(encoding="utf-8").splitlines():
        EVENT.validate(strict(line))
