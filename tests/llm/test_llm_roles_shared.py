"""The pieces the experiments' LLM runs share (`parley.experiments.llm_roles`: the "LLM roles" section,
its usage lines, the usage summed over sessions and read back from a stored row) and the CLI's
open-store / note / play sequence (`parley.cli.llm.play_experiment_llm`)."""

from __future__ import annotations

import io
import json
from pathlib import Path
from typing import Any

import httpx
import pytest
import typer
from rich.console import Console

from parley.cli.batch import Batch, Progress
from parley.cli.llm import play_experiment_llm
from parley.errors import ScenarioError
from parley.experiments.gaia.llm import PlayedSession, RoleChoice
from parley.experiments.llm_roles import (
    SectionText,
    SessionUsage,
    llm_sessions,
    roles_section,
    row_usage,
    summarise,
    usage_lines,
)
from parley.experiments.task_store import STORE_FILE, TaskStore
from parley.llm import EventLoopThread, LLMRuntime, LLMSettings, UsageTotals

ROLE_TEXT = {"alpha": "alpha (the first)", "beta": "beta (the second)", "gamma": "gamma (the third)"}
TEXT = SectionText(
    played="In every session (N here) a model played",
    role_text=ROLE_TEXT,
    others="Twins played the others",
    setup="Nothing else changed.",
    decider="stage",
    closing=" See the CSV.",
)
GOOD = {
    "calls": 2,
    "prompt_tokens": 20,
    "completion_tokens": 4,
    "unpriced_calls": 0,
    "decisions": 2,
    "fallbacks": 1,
    "latency_s": 0.5,
    "cost_usd": 0.01,
    "fallback_causes": {"endpoint_error": 1},
    "models": ["m"],
}


def totals(
    decisions: int, fallbacks: int, *, model: str = "m", causes: dict[str, int] | None = None
) -> UsageTotals:
    return UsageTotals(
        calls=decisions,
        decisions=decisions,
        fallbacks=fallbacks,
        fallback_causes=causes or {},
        models={model},
    )


def table_row(lines: list[str], role: str) -> list[str]:
    return next(line.strip("|").split(" | ") for line in lines if line.startswith(f"| {role} "))


# -- summarise, llm_sessions, usage_lines ------------------------------------------------------------------


def test_summarise_adds_up_by_role_and_by_session_name() -> None:
    sessions: list[SessionUsage] = [
        ("s1", {"alpha": totals(2, 1, causes={"timeout": 1}), "beta": totals(3, 0)}),
        ("s2", {"alpha": totals(4, 0)}),
        ("s1", {"beta": totals(1, 1, causes={"timeout": 1})}),
    ]
    summary = summarise(sessions)
    assert (summary.total.decisions, summary.total.fallbacks) == (10, 2)
    assert summary.by_role["alpha"].decisions == 6 and summary.by_role["beta"].fallbacks == 1
    assert summary.by_session["s1"].decisions == 6 and summary.by_session["s2"].decisions == 4
    assert summary.total.fallback_causes == {"timeout": 2}


def test_summarise_of_nothing_and_of_sessions_without_roles_is_empty() -> None:
    for sessions in ([], [("s", {})]):
        summary = summarise(sessions)
        assert summary.by_role == {} and summary.by_session == {} and summary.total == UsageTotals()


def test_llm_sessions_leaves_rule_played_sessions_out() -> None:
    usage = {"alpha": totals(1, 0)}
    played = [
        PlayedSession({"domain": "staffing", "persona": "p", "seed": 3}, usage),
        PlayedSession({"domain": "leasing"}),
        PlayedSession({}, {}),
    ]
    assert llm_sessions(played) == [("staffing-p-3", usage), ("None-None-None", {})]
    assert llm_sessions([PlayedSession({"seed": 1})]) == []


def test_usage_lines_give_the_table_and_the_any_fallback_share() -> None:
    sessions: list[SessionUsage] = [("a", {"alpha": totals(2, 1)}), ("b", {"alpha": totals(2, 0)})]
    lines = usage_lines(sessions, ["alpha", "beta"], {"beta": "cfg"}, unit="Conversations", closing=" More.")
    assert lines[0].startswith("| role | model |") and lines[-2] == ""
    assert lines[-1].startswith("Conversations in which any role fell back to its twin: 1 of 2, 50% [")
    assert lines[-1].endswith("(Wilson 95%). More.")
    assert table_row(lines, "alpha")[8].startswith("0.250 [") and "(1 of 4)" in table_row(lines, "alpha")[8]
    assert (
        table_row(lines, "beta")[1] == "cfg (no reply)" and table_row(lines, "beta")[8] == "— (no decision)"
    )


def test_usage_lines_without_any_llm_session_say_so_without_nan() -> None:
    lines = usage_lines([], ["alpha"], {})
    assert lines[-1] == "Sessions in which any role fell back to its twin: 0 of 0, — (Wilson 95%)."
    assert table_row(lines, "alpha")[1] == "— (no reply)"
    assert "nan" not in "\n".join(lines).lower()


def test_usage_lines_make_hostile_role_and_model_names_safe_for_a_table() -> None:
    hostile = "x|y\u200b\n" + "z" * 500
    lines = usage_lines([("s", {"alpha": totals(1, 0, model=hostile)})], ["alpha"], {})
    row = next(line for line in lines if line.startswith("| alpha "))
    assert "\n" not in row and "x\\|y" in row and "z" * 121 not in row


# -- roles_section ---------------------------------------------------------------------------------------


def test_roles_section_says_which_roles_a_model_played_and_which_the_twins_did() -> None:
    sessions: list[SessionUsage] = [("a", {"alpha": totals(2, 2)}), ("b", {"alpha": totals(2, 0)})]
    lines = roles_section(sessions, TEXT, ["alpha"], {"alpha": "cfg"}, jobs=3)
    assert lines[:2] == ["## LLM roles", ""] and lines[-1] == ""
    intro = lines[2]
    assert intro.startswith("In every session (N here) a model played: alpha (the first). ")
    assert "Twins played the others: beta (the second); gamma (the third). Nothing else changed. " in intro
    assert "one at a time (3 worker process(es) played the rule-based sessions); each was stored" in intro
    assert lines[4].startswith("A stage whose reply is unusable")
    assert "Sessions in which any role fell back to its twin: 1 of 2, 50% [" in lines[-2]
    assert lines[-2].endswith("(Wilson 95%). See the CSV.")


def test_roles_section_with_every_role_chosen_names_no_twins_and_a_scheduler() -> None:
    lines = roles_section([], TEXT, list(ROLE_TEXT), {}, jobs=4, scheduler=True)
    intro = lines[2]
    assert "Twins played the others" not in intro
    assert "alpha (the first); beta (the second); gamma (the third). Nothing else" in intro
    assert "(a Dask scheduler played the rule-based sessions)" in intro and "worker process" not in intro
    assert "0 of 0, —" in lines[-2]


def test_roles_section_refuses_a_chosen_role_it_cannot_describe() -> None:
    with pytest.raises(KeyError):
        roles_section([], TEXT, ["delta"], {})


# -- row_usage --------------------------------------------------------------------------------------------


def test_row_usage_reads_back_what_an_llm_task_stored() -> None:
    usage = row_usage({"seed": 1, "llm": {"alpha": GOOD}}, "1")
    assert usage is not None and usage["alpha"].fallbacks == 1 and usage["alpha"].models == {"m"}
    assert row_usage({"seed": 1}, "1") is None


@pytest.mark.parametrize(
    "bad",
    [
        ["not", "a", "mapping"],
        "text",
        7,
        {"alpha": "x"},
        {"alpha": {}},
        {"alpha": {**GOOD, "calls": -1}},
        {"alpha": {**GOOD, "calls": True}},
        {"alpha": {**GOOD, "fallbacks": 9}},
        {"alpha": {**GOOD, "latency_s": float("nan")}},
        {"alpha": {**GOOD, "cost_usd": float("inf")}},
        {"alpha": {**GOOD, "models": 5}},
    ],
)
def test_row_usage_refuses_malformed_stored_usage_in_one_line(bad: object) -> None:
    with pytest.raises(
        ScenarioError, match=r"malformed LLM usage for seed 'x\\u200b' .*delete the store"
    ) as error:
        row_usage({"seed": "x\u200b", "llm": bad}, repr("x\u200b"))
    assert "\n" not in str(error.value) and len(str(error.value)) < 400


# -- play_experiment_llm ------------------------------------------------------------------------------------


def refuse(request: httpx.Request) -> httpx.Response:
    raise AssertionError(f"no call expected, got {request.url}")


def runtime_for(spec: str, bridge: EventLoopThread) -> LLMRuntime:
    settings = LLMSettings.model_validate({"default": spec})
    return LLMRuntime(settings, bridge=bridge, transport=httpx.MockTransport(refuse))


class FakePlay:
    """Stands for `run_with_llm` with its specs bound: writes the store's header, reports progress."""

    def __init__(self, error: Exception | None = None) -> None:
        self.calls: list[dict[str, Any]] = []
        self.error = error

    def __call__(
        self, *, jobs: int, progress: Progress, store: TaskStore, scheduler: str | None
    ) -> list[str]:
        self.calls.append({"jobs": jobs, "scheduler": scheduler, "store": store})
        store.recover()
        progress(1, 1)
        if self.error is not None:
            raise self.error
        return ["played"]


def play(
    batch: Batch, runtime: LLMRuntime, fake: FakePlay, console: Console
) -> tuple[list[str], dict[str, str]]:
    choice = RoleChoice(("moderator",))
    return play_experiment_llm(
        batch, {"seeds": [1]}, runtime, choice, label="GAIA", total=1, play=fake, console=console
    )


def test_play_opens_the_store_with_the_llm_setup_and_notes_parallel_flags(
    tmp_path: Path, bridge: EventLoopThread
) -> None:
    out = io.StringIO()
    console = Console(file=out, width=40, soft_wrap=True, highlight=False)
    batch = Batch("gaia", tmp_path / "gaia.md", jobs=2, quiet=True)
    fake = FakePlay()
    with runtime_for("http://user:secret@127.0.0.1:9/v1#mock-a", bridge) as runtime:
        played, models = play(batch, runtime, fake, console)
    assert played == ["played"] and models == {"moderator": "mock-a"}
    assert fake.calls[0]["jobs"] == 2 and fake.calls[0]["scheduler"] is None
    assert out.getvalue() == (
        "note: the LLM-played GAIA sessions run in this process, one at a time (an LLM runtime holds its "
        "client); --jobs and --scheduler serve the rule-based sessions only\n"
    )
    header = json.loads((batch.folder / STORE_FILE).read_text("utf-8").splitlines()[0])
    llm = header["config"]["llm"]
    assert header["config"]["seeds"] == [1] and llm["roles"] == ["moderator"]
    assert "secret" not in json.dumps(header) and "mock-a" in llm["endpoints"]["moderator"]


def test_play_in_one_process_prints_no_note(tmp_path: Path, bridge: EventLoopThread) -> None:
    out = io.StringIO()
    batch = Batch("gaia", tmp_path / "gaia.md", jobs=1, quiet=True)
    with runtime_for("http://127.0.0.1:9/v1#mock", bridge) as runtime:
        play(batch, runtime, FakePlay(), Console(file=out))
    assert out.getvalue() == ""


def test_play_refuses_a_store_made_with_another_endpoint_in_one_line(
    tmp_path: Path, bridge: EventLoopThread, capsys: pytest.CaptureFixture[str]
) -> None:
    batch = Batch("gaia", tmp_path / "gaia.md", quiet=True)
    with runtime_for("http://127.0.0.1:9/v1#mock-a", bridge) as runtime:
        play(batch, runtime, FakePlay(), Console(file=io.StringIO()))
    capsys.readouterr()
    with runtime_for("http://127.0.0.1:9/v1#mock-b", bridge) as runtime, pytest.raises(typer.Exit) as stop:
        play(batch, runtime, FakePlay(), Console(file=io.StringIO()))
    assert stop.value.exit_code == 1
    error = capsys.readouterr().err
    assert error.startswith("error: ") and error.count("\n") == 1 and "Traceback" not in error


def test_play_turns_a_failing_session_into_a_one_line_error(
    tmp_path: Path, bridge: EventLoopThread, capsys: pytest.CaptureFixture[str]
) -> None:
    batch = Batch("gaia", tmp_path / "gaia.md", quiet=True)
    fake = FakePlay(ScenarioError("replay miss\nfor the moderator"))
    with runtime_for("http://127.0.0.1:9/v1#mock", bridge) as runtime, pytest.raises(typer.Exit) as stop:
        play(batch, runtime, fake, Console(file=io.StringIO()))
    assert stop.value.exit_code == 1
    error = capsys.readouterr().err
    assert "replay miss" in error and error.count("\n") == 1
