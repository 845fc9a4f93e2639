"""`parley experiment promediate` with LLM-backed roles, end to end through the CLI against the stub
server: the LLM condition in Table 1, the usage section, a byte-identical replay, and resuming."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from promediate_stub import stub_policy
from role_support import OFFLINE
from typer.testing import CliRunner

from parley.cli.app import app
from parley.scenarios.importers.promediate import load_promediate_case
from parley.testing import StubReply, StubServer

TINY = ["experiment", "promediate", "--runs", "2", "--cases", "hmo", "--modes", "competing"]
TINY += [
    "--mediators",
    "social,llm-social",
    "--judge",
    "llm",
    "--deliberation-seeds",
    "0",
    "--concurrency",
    "2",
]


def report_body(path: Path) -> list[str]:
    """The report without its third line (wall time and ms per conversation vary between runs)."""
    lines = path.read_text("utf-8").splitlines()
    assert lines[2].startswith("Measured with `parley experiment promediate --runs 2")
    return lines[:2] + lines[3:]


def replay(recording: Path, out: Path) -> str:
    args = [*TINY, "--out", str(out), "--llm", f"{OFFLINE}#m", "--replay", str(recording)]
    result = CliRunner().invoke(app, args)
    assert result.exit_code == 0, result.output
    return result.output


@pytest.mark.e2e
def test_llm_mediator_condition_records_then_replays_byte_identical(tmp_path: Path) -> None:
    live = tmp_path / "live" / "promediate.md"
    with StubServer(stub_policy(load_promediate_case("hmo"))) as stub:
        args = ["--out", str(live), "--llm", stub.spec("m"), "--record", str(tmp_path / "rec")]
        result = CliRunner().invoke(app, [*TINY, *args])
    assert result.exit_code == 0, result.output
    assert "4 conversations" in result.output
    report = live.read_text("utf-8")
    assert "| metric | competing · Social | competing · LLM Social |" in report
    assert "## LLM roles and usage" in report and "LLM-backed here: mediator (llm-social), MI judge" in report
    assert "| llm-social | mediator |" in report and "| social | intelligence |" in report
    header, *rows = (
        json.loads(line) for line in live.with_suffix(".rows.jsonl").read_text("utf-8").splitlines()
    )
    assert header == {"settings": {"participants": "rule", "consensus": "rule", "judge": "llm"}}
    assert sorted((r["mediator"], r["run"]) for r in rows) == [
        ("llm-social", 0),
        ("llm-social", 1),
        ("social", 0),
        ("social", 1),
    ]
    assert all(r["llm"]["intelligence"]["calls"] == r["interventions"] > 0 for r in rows)

    again = tmp_path / "again" / "promediate.md"
    replay(tmp_path / "rec", again)
    assert report_body(again) == report_body(live)

    # A crash after one conversation: the stored row is kept, a torn line is played again.
    store = again.with_suffix(".rows.jsonl")
    kept = store.read_text("utf-8").splitlines()[:2]
    store.write_text("\n".join([*kept, '{"case": "hm']) + "\n", "utf-8")
    replay(tmp_path / "rec", again)
    assert report_body(again) == report_body(live)
    assert len(store.read_text("utf-8").splitlines()) == 1 + 1 + 1 + 3  # header, kept, torn, three new


@pytest.mark.e2e
def test_llm_conditions_need_an_llm_and_matching_stored_rows(tmp_path: Path) -> None:
    out = tmp_path / "promediate.md"
    result = CliRunner().invoke(app, [*TINY, "--out", str(out)])
    assert result.exit_code == 2 and "Traceback" not in result.output
    assert "no LLM configured; pass --llm SPEC" in result.output.replace("\n", " ")
    assert not out.with_suffix(".rows.jsonl").exists()

    out.with_suffix(".rows.jsonl").write_text('{"settings": {"participants": "llm"}}\n', "utf-8")
    (tmp_path / "rec").mkdir()
    (tmp_path / "rec" / "exchanges.jsonl").write_text("", "utf-8")
    result = CliRunner().invoke(
        app, [*TINY, "--out", str(out), "--llm", f"{OFFLINE}#m", "--replay", str(tmp_path / "rec")]
    )
    assert result.exit_code == 2
    assert "pass another --out or delete it" in result.output.replace("\n", " ")


@pytest.mark.e2e
@pytest.mark.parametrize(
    ("option", "message"),
    [
        (["--mediators", "social,oracle"], "unknown mediators ['oracle']"),
        (["--judge", "crowd"], "--judge expects rubric or llm"),
        (["--modes", "angry"], "unknown conflict mode 'angry'"),
    ],
)
def test_bad_llm_options_are_one_line_errors(option: list[str], message: str) -> None:
    result = CliRunner().invoke(app, ["experiment", "promediate", "--cases", "hmo", *option])
    assert result.exit_code == 2 and message in result.output.replace("\n", "")


@pytest.mark.e2e
def test_fallback_flags_are_those_of_parley_run(tmp_path: Path) -> None:
    """--allow-fallback, --llm-strict and the budgets work as in `parley mediate`: a failing
    endpoint exits 3 unless fallbacks are allowed, and --llm-strict stops at the first one."""
    config = tmp_path / "llm.yaml"
    config.write_text("max_attempts: 1\ncircuit_failures: 0\n", "utf-8")  # give up at once
    tiny = ["experiment", "promediate", "--runs", "1", "--cases", "hmo", "--modes", "competing"]
    tiny += ["--mediators", "llm-generic", "--deliberation-seeds", "0", "--concurrency", "1"]
    with StubServer(lambda _body: StubReply.error(500)) as stub:

        def run(name: str, *flags: str) -> tuple[int, str]:
            out = tmp_path / name / "promediate.md"
            args = [*tiny, "--out", str(out), "--llm", stub.spec("m"), "--llm-config", str(config)]
            result = CliRunner().invoke(app, [*args, *flags])
            assert "Traceback" not in result.output
            return result.exit_code, result.output

        refused, allowed, strict = (
            run("refused"),
            run("allowed", "--allow-fallback"),
            run("strict", "--llm-strict"),
        )
    assert refused[0] == 3 and "llm: mediator:" in refused[1] and "played no part" in refused[1]
    assert allowed[0] == 0 and "llm: mediator:" in allowed[1] and "played no part" not in allowed[1]
    assert (
        strict[0] == 2 and "--llm-strict: role mediator fell back to its rule twin" in strict[1]
    )  # as `mediate`
    assert not (tmp_path / "strict" / "promediate.md").exists()


@pytest.mark.e2e
def test_a_spent_budget_falls_back_without_calls(tmp_path: Path) -> None:
    tiny = ["experiment", "promediate", "--runs", "1", "--cases", "hmo", "--modes", "competing"]
    tiny += ["--mediators", "llm-generic", "--deliberation-seeds", "0", "--concurrency", "1"]
    calls: list[object] = []

    def answer(body: object) -> StubReply:
        calls.append(body)
        return StubReply.error(500)

    with StubServer(answer) as stub:
        out = tmp_path / "promediate.md"
        args = [*tiny, "--out", str(out), "--llm", stub.spec("m"), "--llm-budget-seconds", "0.001"]
        result = CliRunner().invoke(app, [*args, "--allow-fallback"])
    assert result.exit_code == 0, result.output
    assert "llm: mediator:" in result.output
    assert len(calls) <= 1  # at most the request that spent the budget
