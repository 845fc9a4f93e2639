"""`parley experiment promediate` with LLM-backed roles, end to end through the CLI against the stub
server: the LLM condition in Table 1, the usage section (per condition and role, as ASTRA's and GAIA's),
the quoted command, a byte-identical replay, resuming, fallbacks, and hostile model names."""

from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import pytest
from promediate_stub import stub_policy
from role_support import OFFLINE
from typer.testing import CliRunner

from parley.cli.app import app
from parley.cli.mediate import _llm_command, _promediate_command  # pyright: ignore[reportPrivateUsage]
from parley.errors import ScenarioError
from parley.experiments.promediate import MEDIATOR_NAMES, MODES, grid
from parley.experiments.promediate_llm import ConversationRoles, llm_section
from parley.llm import UsageTotals
from parley.scenarios.importers.promediate import PROMEDIATE_CASES, load_promediate_case
from parley.testing import StubReply, StubServer
from parley.testing.llm import completion_body

TINY = [
    *("experiment", "promediate", "--runs", "2", "--cases", "hmo", "--modes", "competing"),
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


def usage_rows(report: str) -> dict[tuple[str, str], list[str]]:
    """The LLM section's tables, by (condition, role): each row's cells (split on unescaped pipes)."""
    section = report.split("## LLM roles and usage", 1)[1].split("\n## ", 1)[0]
    rows: dict[tuple[str, str], list[str]] = {}
    condition = ""
    for line in section.splitlines():
        if line.startswith("### Condition `"):
            condition = line.split("`")[1]
        elif line.startswith("| ") and not line.startswith("| role |"):
            cells = [c.strip() for c in line.replace("\\|", "\0").strip("|").split("|")]
            rows[(condition, cells[0])] = [c.replace("\0", "\\|") for c in cells]
    return rows


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
    rows = usage_rows(report)
    assert set(rows) == {
        ("social", "intelligence"),
        ("llm-social", "mediator"),
        ("llm-social", "intelligence"),
    }
    for cells in rows.values():  # model, calls, tokens in/out, latency, USD, decisions, share, causes
        assert (
            len(cells) == 10 and cells[1] == "m" and int(cells[2]) > 0 and int(cells[3]) > int(cells[4]) > 0
        )
        assert cells[5].endswith(")") and cells[6] == "— (no price)" and int(cells[7]) > 0
    # The scripted model misbehaves on purpose (repair, re-ask, twin): shares are measured, not assumed.
    for cells in rows.values():
        fallbacks = int(cells[8].rsplit("(", 1)[1].split(" of ")[0])
        assert cells[8].endswith(f"({fallbacks} of {cells[7]})") and (cells[9] == "—") == (fallbacks == 0)
    assert report.count("Conversations in which any role fell back to its twin: ") == 2
    assert "### Condition `social` (2 conversations)" in report
    quoted = report.splitlines()[2]
    assert quoted.startswith(
        "Measured with `parley experiment promediate --runs 2 --cases hmo --modes competing "
        "--mediators social,llm-social --deliberation-seeds 0 --jobs 1 "
        "--judge llm --concurrency 2 --llm SPEC`"
    )
    assert "127.0.0.1" not in report and "http" not in quoted
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
    report = (tmp_path / "allowed" / "promediate.md").read_text("utf-8")
    (key, cells), *_ = usage_rows(report).items()
    assert key == ("llm-generic", "mediator") and len(usage_rows(report)) == 1
    decisions = int(cells[7])
    assert cells[1] == "m (no reply)" and decisions > 0
    assert cells[8].startswith("1.000 [") and cells[8].endswith(f", 1.000] ({decisions} of {decisions})")
    assert cells[9] != "—" and f"({decisions})" in cells[9]  # the one cause, counted
    assert "Conversations in which any role fell back to its twin: 1 of 1, 100% [21, 100]" in report
    assert report.splitlines()[2].endswith(
        "--llm SPEC --llm-config FILE --allow-fallback`: 1 conversations (1 cases × 1 conflict modes × 1 "
        "mediators × 1 seeds (0; tuning: the testbed and mediators were developed on these seeds))."
    )
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
    assert "--llm SPEC --llm-budget-seconds 0.001 --allow-fallback`" in out.read_text("utf-8").splitlines()[2]


RULE_TINY = [
    *("experiment", "promediate", "--runs", "1", "--cases", "hmo", "--modes", "competing"),
    *("--mediators", "none,social", "--deliberation-seeds", "0", "--quiet"),
]


@pytest.mark.e2e
def test_without_an_llm_role_the_report_is_byte_identical_with_or_without_llm_flags(tmp_path: Path) -> None:
    """No LLM role played: no LLM section and no LLM option in the quote, whatever flags are given."""
    plain, flagged = tmp_path / "plain" / "promediate.md", tmp_path / "flagged" / "promediate.md"
    first = CliRunner().invoke(app, [*RULE_TINY, "--out", str(plain)])
    second = CliRunner().invoke(
        app, [*RULE_TINY, "--out", str(flagged), "--llm", f"{OFFLINE}#m", "--llm-budget-tokens", "5"]
    )
    assert first.exit_code == 0 and second.exit_code == 0, first.output + second.output
    assert plain.read_bytes() == flagged.read_bytes()
    report = plain.read_text("utf-8")
    assert report.startswith("# ProMediate with parley's deterministic testbed\n")
    assert "LLM roles" not in report and not plain.with_suffix(".rows.jsonl").exists()
    assert report.splitlines()[2].startswith(
        "Measured with `parley experiment promediate --runs 1 --cases hmo --modes competing "
        "--mediators none,social --deliberation-seeds 0 --jobs 1`: 2 conversations"
    )


def test_the_default_command_is_quoted_as_before_and_every_changed_option_is_quoted() -> None:
    full = grid(list(PROMEDIATE_CASES), list(MODES), list(MEDIATOR_NAMES))
    assert _promediate_command(5, None, 0, 1, cells=full) == "parley experiment promediate --runs 5 --jobs 1"
    some = grid(["hmo"], [MODES[0], MODES[2]], ["social"])
    modes = f"{MODES[0].value},{MODES[2].value}"
    quoted = _promediate_command(3, "evaluation", 2, 2, cells=some, deliberation_seeds=0)
    assert quoted == (
        f"parley experiment promediate --split evaluation --cases hmo --modes {modes} "
        "--mediators social --sensitivity-seeds 2 --deliberation-seeds 0 --jobs 2"
    )


def test_the_quoted_llm_options_never_show_an_endpoint_or_a_key() -> None:
    flags: dict[str, Any] = {
        "llm": "http://user:sk-secret@example.invalid/v1#gpt",
        "llm_role": ["Mediator=openai:gpt-4o", "sk_secret_token=http://x/v1#m", "a|b\nc=x"],
        "llm_config": Path("/home/me/keys.yaml"),
        "record": Path("/tmp/rec"),
        "replay": Path("/tmp/replay-secret"),
        "llm_budget_seconds": 1.5,
        "llm_budget_tokens": 900,
        "llm_strict": True,
        "allow_fallback": True,
    }
    quoted = _llm_command(ConversationRoles("llm:Alex", "llm", "llm"), 3, flags, used=True)
    assert quoted == (
        " --participants llm:Alex --consensus llm --judge llm --concurrency 3 --llm SPEC "
        "--llm-role mediator=SPEC --llm-role ROLE=SPEC --llm-role ROLE=SPEC --llm-config FILE --replay DIR "
        "--llm-budget-seconds 1.5 --llm-budget-tokens 900 --llm-strict --allow-fallback"
    )
    assert _llm_command(ConversationRoles(), 3, flags, used=False) == ""


HOSTILE_MODEL = "evil|model\nwith | pipes\r\n" + "x" * 10_000


@pytest.mark.e2e
def test_a_hostile_model_name_from_the_endpoint_stays_one_table_cell(tmp_path: Path) -> None:
    policy = stub_policy(load_promediate_case("hmo"))

    def answer(body: Mapping[str, Any]) -> StubReply:
        reply = policy(body)
        return StubReply(body=json.dumps(completion_body(reply.text, HOSTILE_MODEL, body)))

    tiny = ["experiment", "promediate", "--runs", "1", "--cases", "hmo", "--modes", "competing"]
    tiny += ["--mediators", "llm-generic", "--deliberation-seeds", "0", "--concurrency", "1", "--quiet"]
    out = tmp_path / "promediate.md"
    with StubServer(answer) as stub:
        result = CliRunner().invoke(app, [*tiny, "--out", str(out), "--llm", stub.spec("m")])
    assert result.exit_code == 0, result.output
    report = out.read_text("utf-8")
    section = report.split("## LLM roles and usage", 1)[1].split("\n## ", 1)[0]
    table = [line for line in section.splitlines() if line.startswith("|")]
    assert len(table) == 3  # header, rule, the mediator's row: no line broken by the name
    row = table[2]
    assert row.replace("\\|", "").count("|") == 11 and len(row) < 400  # ten cells, the name cut short
    assert usage_rows(report)[("llm-generic", "mediator")][1].startswith("evil\\|model with \\| pipes")
    assert "x" * 200 not in report


def test_malformed_stored_usage_is_a_one_line_error() -> None:
    good = UsageTotals(calls=1, decisions=1).to_json()
    row = {"case": "hmo", "mode": "competing", "mediator": "llm-generic", "run": 0}
    with pytest.raises(
        ScenarioError, match=r"malformed LLM usage for hmo-competing-llm-generic-0 \(.*\); delete"
    ):
        llm_section([{**row, "llm": {"mediator": {**good, "fallbacks": 2}}}], ConversationRoles(), 1)
    with pytest.raises(ScenarioError, match="malformed LLM usage"):
        llm_section([{**row, "llm": ["not", "a", "mapping"]}], ConversationRoles(), 1)
    lines = llm_section([{**row, "llm": {"mediator": good}}], ConversationRoles(), 1, {"mediator": "cfg"})
    assert any(
        line.startswith("| mediator | — (no reply)") or line.startswith("| mediator | cfg") for line in lines
    )
