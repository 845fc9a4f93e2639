"""`parley run`, `parley mediate` and `parley scenarios` under bad set-ups and odd text (issue 15).

Each failure is one line on stderr with a non-zero exit code and no traceback; agent, LLM and
human text is shown as plain text, never read as rich markup.
"""

from __future__ import annotations

import io
from collections.abc import Iterator
from pathlib import Path

import pytest
import yaml
from rich.console import Console
from typer.testing import CliRunner

from parley.agents import registry
from parley.cli.app import app
from parley.cli.display import TranscriptPrinter
from parley.protocol import Action, PartyView, Say, Walk
from parley.protocol.events import Event
from parley.scenarios import load_scenario

pytestmark = pytest.mark.e2e
runner = CliRunner()
MARKUP = "[/] [bold]not bold[/bold] [red"


def invoke(*args: str, input: str | None = None) -> tuple[int, str, str]:
    result = runner.invoke(app, list(args), input=input, env={"COLUMNS": "160"})
    return result.exit_code, result.stdout, result.stderr


def _huge_scenario(path: Path, issues: int = 12, options: int = 20) -> Path:
    def utility(falling: bool) -> dict[str, object]:
        values = [float(options - 1 - j if falling else j) for j in range(options)]
        return {"type": "linear_additive", "values": {f"i{k}": values for k in range(issues)}}

    data = {
        "name": "huge",
        "issues": [{"name": f"i{k}", "options": [f"o{j}" for j in range(options)]} for k in range(issues)],
        "parties": [
            {"name": "A", "role": "a", "batna": 10, "utility": utility(False)},
            {"name": "B", "role": "b", "batna": 10, "utility": utility(True)},
        ],
    }
    path.write_text(yaml.safe_dump(data), encoding="utf-8")
    return path


class _Talker:
    """Says something full of rich markup, then walks away with more of it."""

    def __init__(self, party: str, seed: int) -> None:
        self._moves = 0

    def act(self, view: PartyView) -> Action:
        self._moves += 1
        return Say(MARKUP) if self._moves == 1 else Walk(f"bye {MARKUP}")


class _Crasher:
    """A registered agent with a bug: its second move raises."""

    def __init__(self, party: str, seed: int) -> None:
        self._moves = 0

    def act(self, view: PartyView) -> Action:
        self._moves += 1
        if self._moves > 1:
            raise ValueError(f"broken {MARKUP}")
        return Say("hello")


@pytest.fixture
def test_agents(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    registry.available()  # the built-ins first, so nothing replaces the test agents later
    for name, factory in (("test-talker", _Talker), ("test-crasher", _Crasher)):
        monkeypatch.setitem(registry._REGISTRY, name, registry.AgentEntry(name, factory, "test agent"))
    yield


# -- spaces too large for the agents, games that fail because of their set-up -----------------------


def test_show_does_not_enumerate_a_space_too_large_to_count(tmp_path: Path) -> None:
    path = _huge_scenario(tmp_path / "huge.yaml")
    code, out, err = invoke("scenarios", "show", str(path))
    assert code == 0, out + err
    assert "not counted" in " ".join(out.split()) and "Traceback" not in out + err


def test_validate_warns_when_the_space_is_too_large_for_agents(tmp_path: Path) -> None:
    path = _huge_scenario(tmp_path / "huge.yaml")
    code, out, err = invoke("scenarios", "validate", str(path))
    assert code == 0, out + err
    assert "OK" in out
    warnings = [line for line in err.splitlines() if line.startswith("warning:")]
    assert warnings, err
    assert any(
        "4,096,000,000,000,000 outcomes" in line and "20,000,000" in line and "boulware" in line
        for line in warnings
    ), warnings
    assert not any("astra," in line or line.endswith("astra") for line in warnings)  # ASTRA copes
    code, out, err = invoke("scenarios", "validate", str(path), "--agent", "astra", "--agent", "astra")
    assert code == 0 and "OK" in out and "warning" not in err
    code, out, err = invoke("scenarios", "validate", str(path), "--agent", "boulware", "--agent", "astra")
    assert code == 0 and err.count("warning:") == 1 and "boulware" in err and "party A" in err


def test_validate_is_quiet_about_spaces_every_agent_can_play() -> None:
    code, out, err = invoke("scenarios", "validate", str(load_scenario("casino").source))
    assert code == 0 and "OK" in out and "warning" not in err


def test_run_refuses_a_space_too_large_for_an_agent_in_one_line(tmp_path: Path) -> None:
    path = _huge_scenario(tmp_path / "huge.yaml")
    code, out, err = invoke("run", str(path), "-a", "boulware", "-a", "conceder")
    assert code == 1, out + err
    assert len(err.strip().splitlines()) == 1, err
    assert "boulware" in err and "20,000,000" in err and "4,096,000,000,000,000" in err
    assert "Traceback" not in out + err
    assert "(propose)" not in out  # nothing was played


def test_a_protocol_violation_by_an_agent_is_an_error(test_agents: None, tmp_path: Path) -> None:
    code, out, err = invoke("run", "casino", "-a", "test-crasher", "-a", "hardliner")
    assert code == 1, out + err
    violation = "error: the game ended in a protocol violation by A (test-crasher): raised ValueError"
    assert err.strip().splitlines() == [f"{violation}: broken {MARKUP}"]
    assert "Traceback" not in out + err
    code, out, err = invoke(
        "run", "casino", "-a", "test-crasher", "-a", "hardliner", "--json", "--save", str(tmp_path)
    )
    assert code == 1 and len(err.strip().splitlines()) == 1
    assert '"reason": "protocol_violation"' in out  # the result is still shown and saved
    assert (tmp_path / "result.json").exists()


# -- agent, LLM and human text is plain text ---------------------------------------------------------


def test_agent_text_with_rich_markup_is_shown_as_it_is(test_agents: None) -> None:
    code, out, err = invoke("run", "casino", "-a", "test-talker", "-a", "hardliner")
    assert code == 0, out + err
    assert MARKUP in out
    assert f"bye {MARKUP}" in out  # the walk reason, in the transcript and the no-deal table


def test_the_transcript_printer_never_reads_event_text_as_markup() -> None:
    scenario = load_scenario("casino")
    buffer = io.StringIO()
    printer = TranscriptPrinter(Console(file=buffer, width=200), scenario)
    printer(
        Event(
            1,
            "action",
            1,
            "A",
            {"kind": "say", "message": MARKUP, "priorities": [], "asks_priorities": False},
        )
    )
    printer(Event(2, "violation", 1, "B", {"detail": f"raised ValueError: {MARKUP}", "action": None}))
    printer(Event(3, "action", 2, "B", {"kind": "walk", "reason": MARKUP}))
    text = buffer.getvalue()
    assert text.count(MARKUP) == 3, text


def test_a_human_can_type_markup_and_sees_their_party_name() -> None:
    code, out, err = invoke("run", "lease", "-a", "human", "-a", "hardliner", input=f"say: {MARKUP}\nquit\n")
    assert code == 0, out + err
    assert "[landlord] your move" in out  # (rich would read "[landlord]" as a style and drop it)
    assert MARKUP in out


def test_mediate_shows_utterances_as_plain_text(capsys: pytest.CaptureFixture[str]) -> None:
    from parley.cli.mediate import _printer, resolve_conversation_scenario

    case = resolve_conversation_scenario("hmo")
    show = _printer(case)
    speaker = case.party_names[0]
    show(Event(5, "utterance", 3, speaker, {"text": MARKUP, "act": "[/]"}))
    show(Event(6, "intervention", 4, "mediator", {"text": MARKUP, "strategy": "[bold]"}))
    show(Event(7, "consensus", 4, None, {"group": 0.5, "topics": {"[/]topic": 0.25}}))
    out = capsys.readouterr().out
    assert out.count(MARKUP) == 2 and "[/]topic" in out, out


# -- bad options: one line, never a traceback ---------------------------------------------------------


@pytest.mark.parametrize(
    ("args", "expected"),
    [
        (
            ("run", "casino", "-a", "boulware", "-a", "conceder", "--seed", "-1"),
            "--seed must not be negative, got -1",
        ),
        (
            ("run", "casino", "-a", "boulware", "-a", "conceder", "--max-rounds", "0"),
            "--max-rounds must be at least 1, got 0",
        ),
        (
            ("run", "casino", "-a", "boulware", "-a", "conceder", "--max-rounds", "-3"),
            "--max-rounds must be at least 1, got -3",
        ),
        (("mediate", "hmo", "--quiet", "--seed", "-1"), "--seed must not be negative, got -1"),
    ],
)
def test_bad_numbers_are_usage_errors_in_one_line(args: tuple[str, ...], expected: str) -> None:
    code, out, err = invoke(*args)
    assert code == 2, out + err
    assert err.strip().splitlines() == [f"error: {expected}"]
    assert "1000003" not in err and "Traceback" not in out + err


@pytest.mark.parametrize("command", ["run", "mediate"])
@pytest.mark.parametrize("where", ["existing file", "under a file", "unwritable"])
def test_save_to_a_place_that_cannot_hold_a_folder_is_one_line(
    command: str, where: str, tmp_path: Path
) -> None:
    blocker = tmp_path / "taken"
    blocker.write_text("keep me", encoding="utf-8")
    target = {
        "existing file": blocker,
        "under a file": blocker / "out",
        "unwritable": Path("/proc/parley-cannot-write-here"),
    }[where]
    args = (
        ("run", "casino", "-a", "boulware", "-a", "conceder")
        if command == "run"
        else ("mediate", "hmo", "--quiet")
    )
    code, out, err = invoke(*args, "--save", str(target))
    assert code != 0, out + err
    assert len(err.strip().splitlines()) == 1, err
    assert str(target) in err and "Traceback" not in out + err
    assert blocker.read_text(encoding="utf-8") == "keep me"


def test_mediate_plot_with_an_unknown_format_is_one_line(tmp_path: Path) -> None:
    code, out, err = invoke("mediate", "hmo", "--quiet", "--plot", str(tmp_path / "plot.txt"))
    assert code == 2, out + err
    assert len(err.strip().splitlines()) == 1 and "plot.txt" in err
    assert "Traceback" not in out + err


@pytest.mark.parametrize("where", ["a folder", "under a file", "unwritable"])
def test_promediate_report_at_a_place_it_cannot_be_written_fails_before_playing(
    where: str, tmp_path: Path
) -> None:
    blocker = tmp_path / "taken"
    blocker.write_text("keep me", encoding="utf-8")
    out = {
        "a folder": tmp_path,
        "under a file": blocker / "report.md",
        "unwritable": Path("/proc/parley/report.md"),
    }[where]
    args = ("experiment", "promediate", "--runs", "1", "--cases", "hmo", "--modes", "general")
    code, stdout, err = invoke(*args, "--mediators", "none", "--deliberation-seeds", "0", "--out", str(out))
    assert code == 2, stdout + err
    assert len(err.strip().splitlines()) == 1 and str(out) in err
    assert "Traceback" not in stdout + err and "conversations" not in stdout
