"""`parley experiment astra` with ASTRA's LLM stages, through the CLI against a local OpenAI-compatible
stub (no network): the "LLM roles" section and CSV columns, a byte-identical replay, the store header
that refuses another endpoint, fallbacks and their exit code, and one-line errors for bad flags."""

from __future__ import annotations

import csv
import json
import re
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

import httpx
import pytest
from role_support import OFFLINE
from typer.testing import CliRunner

from parley.cli.app import app
from parley.errors import ScenarioError
from parley.experiments.astra import RunSpec, run_one
from parley.experiments.astra.llm import (
    PlayedRun,
    RoleChoice,
    SectionContext,
    choose_roles,
    csv_columns,
    llm_key,
    llm_section,
    plays_llm,
    run_with_llm,
)
from parley.experiments.astra.runs import casino_game
from parley.experiments.batch import record_row
from parley.experiments.llm_roles import check_endpoints, store_settings
from parley.experiments.task_store import TaskStore
from parley.llm import EventLoopThread, LLMRuntime, LLMSettings, UsageTotals
from parley.testing import StubReply, StubServer

TINY = ["experiment", "astra", "--runs", "2", "--tournament-seeds", "0", "--jobs", "1", "--quiet"]
ROLES = ("astra_interpreter", "astra_parameters", "astra_partner", "astra_tactic")
FAST_FAIL = "max_attempts: 1\ncircuit_failures: 0\n"
"""An LLM config that gives up on a failing endpoint at once (no retries, so no back-off sleeps)."""


def scripted_answer(schema: str, user: str) -> dict[str, Any]:
    """A well-formed reply to every ASTRA stage, as a function of the request only."""
    issues = re.findall(r"^- (\w+)[ :]", user, re.MULTILINE)
    if schema == "InterpretationReply":
        return {"priorities": issues[:2], "offer": None, "reason": "from the messages"}
    if schema == "ParametersReply":
        floor = re.search(r"between ([\d.]+)", user)
        previous = re.search(r"My previous offer: ([\d.]+) points", user)
        top = float(previous.group(1)) - 1 if previous else 36.0
        return {"lambda": 0.6, "s_max": max(float(floor.group(1)) if floor else 0.0, top), "reason": "r"}
    if schema == "PartnerEstimateReply":
        points = re.search(r"It gives you ([\d.]+) points", user)
        score = round(float(points.group(1)) / 3.6, 1) if points else 5.0
        return {"total_score": score, "strategic_intermediary": 5}
    if schema == "TacticReply":
        return {"tactic": "LGR", "reason": "signals"}
    if schema == "RankingReply":
        count = re.search(r"Rank all (\d+)", user)
        return {"ranking": list(range(int(count.group(1)) if count else 1, 0, -1))}
    raise AssertionError(f"unexpected schema {schema}")


def astra_policy(body: Mapping[str, Any]) -> StubReply:
    schema = str(body.get("response_format", {}).get("json_schema", {}).get("name", ""))
    return StubReply.ok(json.dumps(scripted_answer(schema, body["messages"][1]["content"])))


def invoke(*args: str) -> Any:
    return CliRunner().invoke(app, [*TINY, *args])


def one_line(output: str) -> str:
    lines = [line for line in output.splitlines() if line.strip()]
    assert "Traceback" not in output and len(lines) == 1, output
    return lines[0]


def usage_rows(report: str) -> dict[str, list[str]]:
    """The LLM roles table of a report, by role: its cells."""
    section = report.split("## LLM roles", 1)[1].split("\n## ", 1)[0]
    rows = [line.strip("|").split(" | ") for line in section.splitlines() if line.startswith("| astra_")]
    return {cells[0].strip(): [c.strip() for c in cells] for cells in rows}


def runs_csv(out: Path) -> list[dict[str, str]]:
    with out.with_name(out.stem + "_runs.csv").open(encoding="utf-8") as handle:
        return list(csv.DictReader(handle))


@pytest.fixture(scope="module")
def recorded(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Path, Path, Any]]:
    """One small live run against the stub, recorded: (report, recording, CLI result)."""
    folder = tmp_path_factory.mktemp("live")
    out, recording = folder / "astra.md", folder / "rec"
    with StubServer(astra_policy) as stub:
        result = invoke("--out", str(out), "--llm", stub.spec("astra-m"), "--record", str(recording))
    yield out, recording, result


# -- end to end ------------------------------------------------------------------------------------------


@pytest.mark.e2e
def test_llm_run_reports_roles_with_calls_and_tokens(recorded: tuple[Path, Path, Any]) -> None:
    out, _, result = recorded
    assert result.exit_code == 0, result.output
    report = out.read_text("utf-8")
    assert report.count("## LLM roles") == 1
    assert "--llm SPEC" in report.splitlines()[2]
    assert "the model's replies are not" in report.splitlines()[2]  # no claim that a rerun reproduces it
    assert "every agent is deterministic by seed" not in report
    rows = usage_rows(report)
    assert set(rows) == set(ROLES)
    for role in ("astra_parameters", "astra_partner", "astra_tactic"):
        cells = rows[role]
        assert cells[1] == "astra-m" and int(cells[2]) > 0 and int(cells[3]) > 0 and int(cells[4]) > 0
        assert cells[8].startswith("0.000 [0.000, ")  # the stub always answers well: no fallback
    assert "Sessions in which any role fell back to its twin: 0 of 6" in report
    rows_csv = runs_csv(out)
    assert len(rows_csv) == 18
    shares = {(r["agent"], r["llm_fallback_share"]) for r in rows_csv}
    assert {share for agent, share in shares if agent == "astra"} == {"0.0"}
    assert {share for agent, share in shares if agent != "astra"} == {""}
    assert not (out.parent / "astra.store").exists()  # the default store goes once the report is out
    assert "llm:" not in result.output  # no fallback line


@pytest.mark.e2e
def test_replay_reproduces_the_report_and_csv(recorded: tuple[Path, Path, Any], tmp_path: Path) -> None:
    live, recording, _ = recorded
    again = tmp_path / "replayed.md"  # another --out: the CSV, and the header naming it, follow its stem
    result = invoke("--out", str(again), "--llm", f"{OFFLINE}#astra-m", "--replay", str(recording))
    assert result.exit_code == 0, result.output
    header = again.read_text("utf-8").splitlines()[2]
    assert "recomputed from `replayed_runs.csv`" in header and "astra_runs.csv" not in header
    assert (tmp_path / "replayed_runs.csv").is_file() and not (tmp_path / "astra_runs.csv").exists()
    assert "recomputed from `astra_runs.csv`" in live.read_text("utf-8").splitlines()[2]
    # (the command line quotes --llm SPEC for both and the latencies come from the recording)
    replayed = (
        again.read_text("utf-8").replace(" --replay DIR", "").replace("replayed_runs.csv", "astra_runs.csv")
    )
    assert replayed == live.read_text("utf-8")
    assert runs_csv(again) == runs_csv(live)


@pytest.mark.e2e
def test_a_replay_miss_is_one_line_and_keeps_finished_sessions(
    recorded: tuple[Path, Path, Any], tmp_path: Path
) -> None:
    _, recording, _ = recorded
    store = tmp_path / "store"
    args = ["--out", str(tmp_path / "astra.md"), "--store", str(store), "--replay", str(recording)]
    result = CliRunner().invoke(
        app, [*TINY, "--runs", "3", "--llm", f"{OFFLINE}#astra-m", *args]
    )  # the recording has seeds 5000-5001 only
    assert result.exit_code == 1
    assert "replay" in one_line(result.output).lower()
    lines = (store / "tasks.jsonl").read_text("utf-8").splitlines()
    llm_keys = [json.loads(line)["key"] for line in lines[1:] if json.loads(line)["key"].startswith("llm|")]
    assert llm_keys and all("|5002|" not in key for key in llm_keys)
    assert not (tmp_path / "astra.md").exists()


@pytest.mark.e2e
def test_the_store_refuses_another_endpoint_and_resumes_the_same(
    recorded: tuple[Path, Path, Any], tmp_path: Path
) -> None:
    _, recording, _ = recorded
    out, store = tmp_path / "astra.md", tmp_path / "store"
    common = ["--out", str(out), "--store", str(store), "--replay", str(recording)]
    first = invoke(*common, "--llm", f"{OFFLINE}#astra-m")
    assert first.exit_code == 0, first.output
    header = json.loads((store / "tasks.jsonl").read_text("utf-8").splitlines()[0])
    assert header["config"]["llm"]["roles"] == list(ROLES)
    assert header["config"]["llm"]["endpoints"]["astra_tactic"] == f"{OFFLINE}#astra-m (json_schema)"
    stored = (store / "tasks.jsonl").read_text("utf-8")

    other = invoke(*common, "--llm", f"{OFFLINE}#another-model")
    assert other.exit_code == 1 and "pass another --store or delete it" in one_line(other.output)
    fewer = invoke(*common, "--llm", f"{OFFLINE}#astra-m", "--llm-role", "tactics")
    assert fewer.exit_code == 1 and "pass another --store or delete it" in one_line(fewer.output)
    rule = invoke("--out", str(out), "--store", str(store))
    assert rule.exit_code == 1 and "pass another --store or delete it" in one_line(rule.output)

    again = invoke(*common, "--llm", f"{OFFLINE}#astra-m")  # everything stored: nothing is played again
    assert again.exit_code == 0, again.output
    assert (store / "tasks.jsonl").read_text("utf-8") == stored


@pytest.mark.e2e
def test_a_failing_endpoint_falls_back_to_the_twins_and_exits_3(tmp_path: Path) -> None:
    config = tmp_path / "llm.yaml"
    config.write_text(FAST_FAIL, "utf-8")
    out = tmp_path / "astra.md"
    with StubServer(lambda _body: StubReply.error(500)) as stub:
        args = ["--out", str(out), "--llm", stub.spec("broken"), "--llm-config", str(config)]
        refused = invoke(*args)
        allowed = invoke(*args, "--allow-fallback")
    assert refused.exit_code == 3, refused.output
    assert "fell back to the rule twin, so the model played no part" in refused.output
    assert re.search(r"llm: astra_parameters: (\d+) of \1 decisions fell back", refused.output)
    assert allowed.exit_code == 0, allowed.output
    assert "llm: astra_tactic:" in allowed.output and "played no part" not in allowed.output
    report = out.read_text("utf-8")
    rows = usage_rows(report)
    for role in ("astra_parameters", "astra_partner", "astra_tactic"):
        assert rows[role][8].startswith("1.000 [") and rows[role][1] == "broken (no reply)"
        assert rows[role][9].startswith("HTTP 500") and rows[role][9].endswith(f"({rows[role][7]})")
    assert "Sessions in which any role fell back to its twin: 6 of 6, 100%" in report
    astra = [r for r in runs_csv(out) if r["agent"] == "astra"]
    assert len(astra) == 6 and {r["llm_fallback_share"] for r in astra} == {"1.0"}


@pytest.mark.e2e
def test_an_unreachable_endpoint_is_said_once_and_exits_3(tmp_path: Path) -> None:
    config = tmp_path / "llm.yaml"
    config.write_text(FAST_FAIL, "utf-8")
    result = invoke("--out", str(tmp_path / "a.md"), "--llm", f"{OFFLINE}#m", "--llm-config", str(config))
    assert result.exit_code == 3 and "Traceback" not in result.output
    lines = [line for line in result.output.splitlines() if line.startswith(("llm:", "error:"))]
    assert lines[0].startswith("llm: POST http://127.0.0.1:9/v1") and lines[-1].startswith(
        "error: llm: every"
    )
    assert len([line for line in lines if "decisions fell back" in line]) == 4


@pytest.mark.e2e
def test_llm_strict_ends_at_the_first_fallback_in_one_line(tmp_path: Path) -> None:
    config = tmp_path / "llm.yaml"
    config.write_text(FAST_FAIL, "utf-8")
    out = tmp_path / "astra.md"
    with StubServer(lambda _body: StubReply.error(503)) as stub:
        result = invoke(
            "--out", str(out), "--llm", stub.spec("m"), "--llm-config", str(config), "--llm-strict"
        )
    notice, error = [line for line in result.output.splitlines() if line.strip()]
    assert result.exit_code == 1 and "Traceback" not in result.output
    assert notice.startswith("llm: POST") and "HTTP 503" in notice  # (the endpoint's first failure)
    assert "--llm-strict: role astra_interpreter fell back to its rule twin" in error
    assert not out.exists()


@pytest.mark.e2e
def test_llm_role_chooses_the_stages_a_model_plays(tmp_path: Path) -> None:
    out = tmp_path / "astra.md"
    with StubServer(astra_policy) as stub:
        result = invoke("--out", str(out), "--llm-role", f"tactics={stub.spec('tactic-m')}")
        schemas = {str(body["response_format"]["json_schema"]["name"]) for body in stub.stats.requests}
    assert result.exit_code == 0, result.output
    report = out.read_text("utf-8")
    assert set(usage_rows(report)) == {"astra_tactic"}
    assert "Rule twins played the others: preference interpreter" in report
    assert "--llm-role astra_tactic" in report.splitlines()[2]
    assert schemas and schemas <= {"TacticReply", "RankingReply"}


@pytest.mark.e2e
@pytest.mark.parametrize(
    ("options", "message"),
    [
        (["--llm", "http://localhost:11434/v1"], "needs the model after '#'"),
        (["--llm", "not a spec"], "is not an LLM spec"),
        (["--llm", ""], "is not an LLM spec"),
        (["--llm", f"{OFFLINE}#m", "--llm-role", "judge"], "is not one of ASTRA's LLM roles"),
        (["--llm", f"{OFFLINE}#m", "--llm-role", "\u0430stra_tactic"], "is not one of ASTRA's LLM roles"),
        (["--llm", f"{OFFLINE}#m", "--llm-role", "tac\u200btics"], "is not one of ASTRA's LLM roles"),
        (["--llm", f"{OFFLINE}#m", "--llm-role", "tactics="], "expects ROLE or ROLE=SPEC"),
        (["--llm", f"{OFFLINE}#m", "--llm-role", "tactics", "--llm-role", "astra_tactic"], "twice"),
        (["--llm-role", "tactics"], "no LLM endpoint for astra_tactic"),
        (["--llm", f"{OFFLINE}#m", "--llm-config", "/nonexistent/llm.yaml"], "cannot read LLM config"),
        (["--llm", "openai:gpt-4o-mini", "--replay", "/nonexistent", "--record", "/x"], "exclude each other"),
        (["--llm", f"{OFFLINE}#m", "--replay", "/nonexistent/rec"], "no recording to replay"),
        (["--tune", "--llm", f"{OFFLINE}#m"], "--tune searches the rule-based systems"),
    ],
)
def test_bad_llm_flags_are_one_line_errors(options: list[str], message: str, tmp_path: Path) -> None:
    out = tmp_path / "astra.md"
    result = CliRunner().invoke(
        app, ["experiment", "astra", "--runs", "1", "--tournament-seeds", "0", "--out", str(out), *options]
    )
    assert result.exit_code == 2, result.output
    assert message in one_line(result.output.replace("\n", " ") + "\n")
    assert not out.exists()


def test_a_huge_llm_config_value_is_one_line(tmp_path: Path) -> None:
    config = tmp_path / "llm.yaml"
    config.write_text("temperature: " + "9" * 5000 + "\n", "utf-8")
    result = CliRunner().invoke(
        app, [*TINY, "--out", str(tmp_path / "a.md"), "--llm", f"{OFFLINE}#m", "--llm-config", str(config)]
    )
    assert result.exit_code == 2 and "cannot read LLM config" in one_line(result.output)


# -- the pieces ------------------------------------------------------------------------------------------


def test_choose_roles_accepts_role_and_stage_names_and_keeps_the_stage_order() -> None:
    assert choose_roles([]).roles == ROLES and not choose_roles([]).explicit
    choice = choose_roles(["tactics=openai:gpt-4o", " ASTRA_INTERPRETER "])
    assert choice.roles == ("astra_interpreter", "astra_tactic")
    assert choice.stages == ("interpreter", "tactics")
    assert choice.overrides == ("astra_tactic=openai:gpt-4o",) and choice.explicit
    for bad in ("", "=x", "negotiator", "x" * 10_000):
        with pytest.raises(ScenarioError):
            choose_roles([bad])


@pytest.mark.parametrize("entry", ["x" * 10_000, "tactics=" + " " * 10_000, "y" * 10_000 + "=spec"])
def test_choose_roles_errors_stay_one_short_line_whatever_the_entry(entry: str) -> None:
    with pytest.raises(ScenarioError) as caught:
        choose_roles([entry])
    message = str(caught.value)
    assert "\n" not in message and len(message) < 400


def test_store_settings_name_each_roles_endpoint_without_credentials() -> None:
    settings = LLMSettings.model_validate(
        {"default": "http://user:secret@127.0.0.1:8000/v1#m", "roles": {"astra_tactic": "vllm:other"}}
    )
    recorded = store_settings(settings, choose_roles([]))
    assert "secret" not in json.dumps(recorded) and "user" not in json.dumps(recorded)
    assert recorded["endpoints"]["astra_parameters"] == "http://127.0.0.1:8000/v1#m (json_schema)"
    assert recorded["endpoints"]["astra_tactic"] == "http://localhost:8000/v1#other (json_schema)"
    with pytest.raises(ScenarioError, match="no LLM endpoint for astra_interpreter"):
        check_endpoints(LLMSettings.model_validate({"roles": {"astra_tactic": "vllm:x"}}), choose_roles([]))


def answer(request: httpx.Request) -> httpx.Response:
    """The scripted ASTRA model behind an `httpx.MockTransport`."""
    body = json.loads(request.content)
    text = astra_policy(body).text
    usage = {"prompt_tokens": 40, "completion_tokens": 9, "total_tokens": 49}
    message = {"role": "assistant", "content": text}
    reply = {"id": "x", "model": body["model"], "choices": [{"index": 0, "message": message}], "usage": usage}
    return httpx.Response(200, json=reply)


def refuse(request: httpx.Request) -> httpx.Response:
    raise AssertionError(f"no call expected, got {request.url}")


def test_run_with_llm_stores_each_session_and_resumes_without_calls(
    tmp_path: Path, bridge: EventLoopThread
) -> None:
    specs = [
        RunSpec("table1", "astra", "base", "casino-random", 5000),
        RunSpec("table1", "time-based", "base", "casino-random", 5000),
    ]
    settings = LLMSettings.model_validate({"default": "http://127.0.0.1:9/v1#mock"})
    choice = choose_roles(["parameters"])
    store = TaskStore(tmp_path / "store", experiment="astra", config={"x": 1})
    with LLMRuntime(settings, bridge=bridge, transport=httpx.MockTransport(answer)) as runtime:
        played = run_with_llm(specs, runtime, choice, store=store)
    assert [plays_llm(s) for s in specs] == [True, False]
    first, second = played
    assert first.usage is not None and set(first.usage) == {"astra_parameters"}
    assert first.usage["astra_parameters"].calls > 0 and first.usage["astra_parameters"].prompt_tokens > 0
    assert second.usage is None and second.record == run_one(specs[1])
    assert first.record.agent == "astra" and first.fallback_share == 0.0

    with LLMRuntime(settings, bridge=bridge, transport=httpx.MockTransport(refuse)) as runtime:
        again = run_with_llm(specs, runtime, choice, store=store)
    assert again == played
    columns = csv_columns(played)
    assert columns[0]["llm_fallback_share"] == 0.0 and columns[1] == {
        "llm_decisions": "",
        "llm_fallbacks": "",
        "llm_fallback_share": "",
    }


def test_malformed_stored_usage_is_refused(tmp_path: Path, bridge: EventLoopThread) -> None:
    spec = RunSpec("table1", "astra", "base", "casino-random", 5000)
    store = TaskStore(tmp_path / "store", experiment="astra", config={})
    store.recover()
    row = record_row(run_one(spec))
    bad = {"astra_tactic": {"calls": -1}}
    store.store([(llm_key(spec), [{**row, "llm": bad}])])
    settings = LLMSettings.model_validate({"default": "http://127.0.0.1:9/v1#mock"})
    with (
        LLMRuntime(settings, bridge=bridge, transport=httpx.MockTransport(refuse)) as runtime,
        pytest.raises(ScenarioError, match="malformed LLM usage"),
    ):
        run_with_llm([spec], runtime, RoleChoice(ROLES), store=store)


def test_section_counts_fallbacks_per_role_with_wilson_intervals() -> None:
    record = run_one(RunSpec("table1", "astra-ablation", "fair", "casino-random", 5001))
    clean = UsageTotals(calls=3, prompt_tokens=300, completion_tokens=30, latency_s=1.5, decisions=3)
    clean.models.add("m|x\n")
    failing = UsageTotals(decisions=4, fallbacks=4, fallback_causes={"endpoint_error": 4})
    played = [
        PlayedRun(record, {"astra_tactic": clean, "astra_partner": failing}),
        PlayedRun(record, {"astra_tactic": clean}),
        PlayedRun(record),
    ]
    section = "\n".join(llm_section(played, SectionContext(RoleChoice(ROLES), dict.fromkeys(ROLES, "cfg"))))
    rows = usage_rows(section)
    assert rows["astra_tactic"][1] == "m\\|x" and rows["astra_tactic"][2] == "6"
    assert rows["astra_tactic"][8].startswith("0.000 [0.000, 0.") and "(0 of 6)" in rows["astra_tactic"][8]
    assert (
        rows["astra_partner"][8].startswith("1.000 [0.") and rows["astra_partner"][9] == "endpoint_error (4)"
    )
    assert (
        rows["astra_interpreter"][1] == "cfg (no reply)" and rows["astra_interpreter"][8] == "— (no decision)"
    )
    assert "fell back to its twin: 1 of 2, 50% [" in section
    assert "nan" not in section.lower()


def test_without_llm_flags_the_report_has_no_llm_section(tmp_path: Path) -> None:
    out = tmp_path / "astra.md"
    result = CliRunner().invoke(
        app, ["experiment", "astra", "--runs", "1", "--tournament-seeds", "0", "--quiet", "--out", str(out)]
    )
    assert result.exit_code == 0, result.output
    assert "## LLM roles" not in out.read_text("utf-8")
    assert "reproduces it exactly (every agent is deterministic by seed)" in out.read_text("utf-8")
    assert "llm_fallback_share" not in out.with_name("astra_runs.csv").read_text("utf-8")
    assert casino_game(5000).name == "casino-random"
