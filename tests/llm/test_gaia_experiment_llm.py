"""`parley experiment gaia` with the delegate's LLM roles, through the CLI against a local
OpenAI-compatible stub (no network): the "LLM roles" section, a byte-identical replay, the store header
that refuses another endpoint, fallbacks and their exit code, and one-line errors for bad flags."""

from __future__ import annotations

import copy
import json
import re
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

import pytest
from role_support import OFFLINE
from typer.testing import CliRunner

import parley.experiments.gaia.llm as gaia_llm
import parley.experiments.gaia.report as gaia_report
import parley.experiments.gaia.runs as gaia_runs
from parley.cli.app import app
from parley.errors import ScenarioError
from parley.experiments.gaia.detection import moderator_detection
from parley.experiments.gaia.llm import (
    PlayedSession,
    RoleChoice,
    SectionContext,
    _played,  # pyright: ignore[reportPrivateUsage]
    choose_roles,
    llm_key,
    llm_section,
    plays_llm,
)
from parley.experiments.gaia.runs import CONDITIONS, SessionSpec, run_session_task
from parley.governance.classifier import classifiers_enabled
from parley.llm import UsageTotals
from parley.metrics.gaia import DetectionRates
from parley.testing import StubReply, StubServer

TINY = ["experiment", "gaia", "--seeds", "1", "--sensitivity-seeds", "0", "--jobs", "1", "--quiet"]
ROLES = ("drafter", "extractor", "moderator", "critic")
FAST_FAIL = "max_attempts: 1\ncircuit_failures: 0\n"
"""An LLM config that gives up on a failing endpoint at once (no retries, so no back-off sleeps)."""
LLM_SESSIONS = 12
"""The headline arm's sessions of a one-seed run: 3 domains x 4 personas."""


def gaia_policy(body: Mapping[str, Any]) -> StubReply:
    """A well-formed reply to every GAIA role, as a function of the request only."""
    schema = str(body.get("response_format", {}).get("json_schema", {}).get("name", ""))
    user = str(body["messages"][1]["content"])
    if schema == "DraftReply":
        content = user.split("Content to convey:\n", 1)[-1].rsplit("\n\nMessage (JSON only):", 1)[0]
        return StubReply.ok(json.dumps({"text": content}))
    if schema == "ModeratorReply":
        return StubReply.ok(json.dumps({"label": "cooperative", "confidence": 0.9}))
    if schema == "ExtractionReply":
        return StubReply.ok(json.dumps({"findings": []}))
    if schema == "CriticReply":
        return StubReply.ok(json.dumps({"suggestions": []}))
    raise AssertionError(f"unexpected schema {schema}")


def invoke(*args: str) -> Any:
    return CliRunner().invoke(app, [*TINY, *args])


def one_line(output: str) -> str:
    lines = [line for line in output.splitlines() if line.strip()]
    assert "Traceback" not in output and len(lines) == 1, output
    return lines[0]


def usage_rows(report: str) -> dict[str, list[str]]:
    """The LLM roles table of a report, by role: its cells."""
    section = report.split("## LLM roles", 1)[1].split("\n## ", 1)[0]
    rows = [line.strip("|").split(" | ") for line in section.splitlines() if line.startswith("| ")]
    return {cells[0].strip(): [c.strip() for c in cells] for cells in rows if cells[0].strip() in ROLES}


_RULE_PLAYED: dict[SessionSpec, list[dict[str, Any]]] = {}
_DETECTION: dict[bool, dict[str, DetectionRates]] = {}


@pytest.fixture(autouse=True, scope="module")
def _played_once() -> Iterator[None]:
    """Each rule-played session is played once in this module and handed (a deep copy of its rows) to
    every later run that needs it: most runs here play the same 108 rule sessions beside the 12 of the
    headline arm. Likewise the report's table of the moderator on the red-team corpus (740 probes) is
    measured once. What these tests check is the LLM-played arm, its section of the report and the CLI
    around it, which are never cached; the rule-played sessions are a pure function of their spec, the
    table of the shipped data (test_gaia_method's byte-identical rerun and test_gaia_experiment check
    them)."""

    def played_once(spec: SessionSpec) -> list[dict[str, Any]]:
        if spec not in _RULE_PLAYED:
            _RULE_PLAYED[spec] = run_session_task(spec)
        return copy.deepcopy(_RULE_PLAYED[spec])

    def detected_once() -> dict[str, DetectionRates]:
        switch = classifiers_enabled()
        if switch not in _DETECTION:
            _DETECTION[switch] = moderator_detection()
        return dict(_DETECTION[switch])

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(gaia_runs, "run_session_task", played_once)
        patch.setattr(gaia_llm, "run_session_task", played_once)
        patch.setattr(gaia_report, "moderator_detection", detected_once)
        yield


@pytest.fixture(scope="module")
def recorded(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Path, Path, Any, int]]:
    """One small live run against the stub, recorded: (report, recording, CLI result, requests)."""
    folder = tmp_path_factory.mktemp("live")
    out, recording = folder / "gaia.md", folder / "rec"
    with StubServer(gaia_policy) as stub:
        result = invoke("--out", str(out), "--llm", stub.spec("gaia-m"), "--record", str(recording))
        requests = len(stub.stats.requests)
    yield out, recording, result, requests


# -- end to end ------------------------------------------------------------------------------------------


@pytest.mark.e2e
def test_llm_run_reports_roles_with_calls_and_tokens(recorded: tuple[Path, Path, Any, int]) -> None:
    out, _, result, requests = recorded
    assert result.exit_code == 0, result.output
    report = out.read_text("utf-8")
    assert report.count("## LLM roles") == 1 and report.rstrip().endswith("(Wilson 95%).")
    assert "--llm SPEC" in report
    rows = usage_rows(report)
    assert set(rows) == set(ROLES)
    calls = sum(int(cells[2]) for cells in rows.values())
    assert calls == requests > 0
    for role in ("drafter", "moderator"):
        cells = rows[role]
        assert cells[1] == "gaia-m" and int(cells[2]) > 0 and int(cells[3]) > 0 and int(cells[4]) > 0
        assert cells[8].startswith("0.000 [0.000, ")  # the stub always answers well: no fallback
    assert f"({LLM_SESSIONS} here)" in report
    assert not (out.parent / "gaia.store").exists()  # the default store goes once the report is out


@pytest.mark.e2e
def test_replay_reproduces_the_report(recorded: tuple[Path, Path, Any, int], tmp_path: Path) -> None:
    live, recording, _, _ = recorded
    again = tmp_path / "gaia.md"
    result = invoke("--out", str(again), "--llm", f"{OFFLINE}#gaia-m", "--replay", str(recording))
    assert result.exit_code == 0, result.output
    assert again.read_text("utf-8").replace(" --replay DIR", "") == live.read_text("utf-8")


@pytest.mark.e2e
def test_the_store_refuses_another_endpoint(tmp_path: Path) -> None:
    store = tmp_path / "s.store"
    with StubServer(gaia_policy) as stub:
        first = invoke("--out", str(tmp_path / "a.md"), "--llm", stub.spec("m1"), "--store", str(store))
        other = invoke("--out", str(tmp_path / "b.md"), "--llm", stub.spec("m2"), "--store", str(store))
        before = len(stub.stats.requests)
        same = invoke("--out", str(tmp_path / "c.md"), "--llm", stub.spec("m1"), "--store", str(store))
        resumed_calls = len(stub.stats.requests) - before
    assert first.exit_code == 0, first.output
    assert other.exit_code == 1, other.output
    assert "made with another configuration" in one_line(other.output)
    assert same.exit_code == 0 and resumed_calls == 0, same.output  # every session read back
    assert (tmp_path / "a.md").read_text("utf-8") == (tmp_path / "c.md").read_text("utf-8")


@pytest.mark.e2e
def test_a_failing_endpoint_falls_back_to_the_twins_and_exits_3(tmp_path: Path) -> None:
    config = tmp_path / "llm.yaml"
    config.write_text(FAST_FAIL, "utf-8")
    out = tmp_path / "gaia.md"
    with StubServer(lambda _body: StubReply.error(500)) as stub:
        args = ["--out", str(out), "--llm", stub.spec("broken"), "--llm-config", str(config)]
        store = ["--store", str(tmp_path / "gaia.store")]
        refused = invoke(*args, *store)
        before = len(stub.stats.requests)
        allowed = invoke(*args, *store, "--allow-fallback")  # the same sessions, read back from the store
        resumed_calls = len(stub.stats.requests) - before
    assert refused.exit_code == 3, refused.output
    assert "fell back to the rule twin, so the model played no part" in refused.output
    assert re.search(r"llm: moderator: (\d+) of \1 decisions fell back", refused.output)
    assert allowed.exit_code == 0, allowed.output
    assert "played no part" not in allowed.output and resumed_calls == 0
    rows = usage_rows(out.read_text("utf-8"))
    for role in ("drafter", "moderator"):
        assert rows[role][8].startswith("1.000 [") and rows[role][1] == "broken (no reply)"
        assert rows[role][9].startswith("HTTP 500")
    report = out.read_text("utf-8")
    assert (
        f"Sessions in which any role fell back to its twin: {LLM_SESSIONS} of {LLM_SESSIONS}, 100%" in report
    )


@pytest.mark.e2e
def test_llm_strict_ends_at_the_first_fallback_in_one_line(tmp_path: Path) -> None:
    config = tmp_path / "llm.yaml"
    config.write_text(FAST_FAIL, "utf-8")
    out = tmp_path / "gaia.md"
    with StubServer(lambda _body: StubReply.error(503)) as stub:
        result = invoke(
            "--out", str(out), "--llm", stub.spec("m"), "--llm-config", str(config), "--llm-strict"
        )
    assert result.exit_code != 0 and "Traceback" not in result.output
    assert "--llm-strict" in result.output.splitlines()[-1]
    assert not out.exists()


@pytest.mark.e2e
def test_llm_role_chooses_the_roles_a_model_plays(tmp_path: Path) -> None:
    out = tmp_path / "gaia.md"
    with StubServer(gaia_policy) as stub:
        result = invoke("--out", str(out), "--llm-role", f"moderator={stub.spec('mod-m')}")
        schemas = {str(body["response_format"]["json_schema"]["name"]) for body in stub.stats.requests}
    assert result.exit_code == 0, result.output
    report = out.read_text("utf-8")
    assert set(usage_rows(report)) == {"moderator"}
    assert "The rule-based ones played the others: drafter" in report
    assert "--llm-role moderator" in report
    assert schemas == {"ModeratorReply"}


@pytest.mark.e2e
@pytest.mark.parametrize(
    ("options", "message"),
    [
        (["--llm", "http://localhost:11434/v1"], "needs the model after '#'"),
        (["--llm", "not a spec"], "is not an LLM spec"),
        (["--llm", ""], "is not an LLM spec"),
        (["--llm", f"{OFFLINE}#m", "--llm-role", "judge"], "is not one of GAIA's LLM roles"),
        (["--llm", f"{OFFLINE}#m", "--llm-role", "m\u043ederator"], "is not one of GAIA's LLM roles"),
        (["--llm", f"{OFFLINE}#m", "--llm-role", "dra\u200bfter"], "is not one of GAIA's LLM roles"),
        (["--llm", f"{OFFLINE}#m", "--llm-role", "x" * 5000], "is not one of GAIA's LLM roles"),
        (["--llm", f"{OFFLINE}#m", "--llm-role", "critic="], "expects ROLE or ROLE=SPEC"),
        (["--llm", f"{OFFLINE}#m", "--llm-role", "critic", "--llm-role", "CRITIC"], "twice"),
        (["--llm-role", "critic"], "no LLM endpoint for critic"),
        (["--llm", f"{OFFLINE}#m", "--llm-config", "/nonexistent/llm.yaml"], "cannot read LLM config"),
        (["--llm", "openai:gpt-4o-mini", "--replay", "/nonexistent", "--record", "/x"], "exclude each other"),
        (["--llm", f"{OFFLINE}#m", "--replay", "/nonexistent/rec"], "no recording to replay"),
    ],
)
def test_bad_llm_flags_are_one_line_errors(options: list[str], message: str, tmp_path: Path) -> None:
    out = tmp_path / "gaia.md"
    result = invoke("--out", str(out), *options)
    assert result.exit_code == 2, result.output
    assert message in one_line(result.output.replace("\n", " ") + "\n")
    assert not out.exists()


def test_a_huge_llm_config_value_is_one_line(tmp_path: Path) -> None:
    config = tmp_path / "llm.yaml"
    config.write_text("temperature: " + "9" * 5000 + "\n", "utf-8")
    result = invoke("--out", str(tmp_path / "a.md"), "--llm", f"{OFFLINE}#m", "--llm-config", str(config))
    assert result.exit_code == 2 and "cannot read LLM config" in one_line(result.output)


# -- the pieces ------------------------------------------------------------------------------------------


def test_choose_roles_keeps_the_canonical_order() -> None:
    assert choose_roles([]) == RoleChoice(ROLES)
    choice = choose_roles(["critic=openai:gpt-4o", " DRAFTER "])
    assert choice.roles == ("drafter", "critic") and choice.explicit
    assert choice.overrides == ("critic=openai:gpt-4o",)
    with pytest.raises(ScenarioError, match="twice"):
        choose_roles(["critic", "critic=openai:gpt-4o"])


def test_only_the_headline_arm_of_the_strategy_plays_llm() -> None:
    headline = SessionSpec("table1", "staffing", "cooperative", 0, "principal", CONDITIONS[0])
    assert plays_llm(headline, "principal") and not plays_llm(headline, "legacy")
    assert not plays_llm(
        SessionSpec("table1", "staffing", "cooperative", 0, "principal", CONDITIONS[1]), "principal"
    )
    assert not plays_llm(SessionSpec("share", "staffing", "cooperative", 0, "principal"), "principal")
    assert llm_key(headline).startswith("llm|")


def _usage(decisions: int, fallbacks: int) -> dict[str, Any]:
    totals = UsageTotals(calls=decisions, decisions=decisions, fallbacks=fallbacks)
    return totals.to_json()


@pytest.mark.parametrize(
    "bad",
    [
        {"moderator": {**_usage(2, 3)}},
        {"moderator": {**_usage(2, 1), "calls": -1}},
        {"moderator": {**_usage(2, 1), "latency_s": float("nan")}},
        {"moderator": {**_usage(2, 1), "calls": True}},
        {"moderator": "x"},
        {"moderator": {}},
    ],
)
def test_malformed_stored_usage_is_refused(bad: dict[str, Any]) -> None:
    with pytest.raises(ScenarioError, match="malformed LLM usage"):
        _played([{"domain": "staffing", "seed": 0, "llm": bad}])


def test_section_counts_fallbacks_per_role_with_wilson_intervals() -> None:
    def played(fallbacks: int) -> PlayedSession:
        usage = {"moderator": UsageTotals(calls=4, decisions=4, fallbacks=fallbacks, models={"m|x\u200b"})}
        return PlayedSession({"domain": "staffing", "persona": "p", "seed": 0}, usage)

    runs = [played(0), played(4), PlayedSession({"domain": "staffing"})]
    lines = llm_section(runs, SectionContext(RoleChoice(("moderator",)), {"moderator": "m"}, "principal"))
    text = "\n".join(lines)
    row = next(line for line in lines if line.startswith("| moderator"))
    assert "0.500 [" in row and "(4 of 8)" in row and "m\\|x " in row
    assert "(2 here)" in text and "1 of 2, 50%" in text
    assert "NaN" not in text


def test_without_llm_flags_the_report_has_no_llm_section(tmp_path: Path) -> None:
    out = tmp_path / "gaia.md"
    result = invoke("--out", str(out))
    assert result.exit_code == 0, result.output
    assert "LLM roles" not in out.read_text("utf-8")
