"""The public API: `import parley` stays cheap, its calls play what the CLI plays, and its results render
as the CLI's tables (plain text, rich, Jupyter)."""

from __future__ import annotations

import json
import math
import subprocess
import sys
import types
from pathlib import Path
from typing import Any

import pytest
from rich.console import Console
from typer.testing import CliRunner

import parley
from parley.agents import registry
from parley.cli.app import app
from parley.errors import ScenarioError
from parley.protocol import Accept, PartyView, Propose, Walk


@pytest.fixture(autouse=True)
def columns(monkeypatch: pytest.MonkeyPatch) -> None:
    """str(report) and the CLI both lay tables out 120 columns wide."""
    monkeypatch.setenv("COLUMNS", "120")


@pytest.fixture
def fresh_registry(monkeypatch: pytest.MonkeyPatch) -> None:
    registry.names()
    monkeypatch.setattr(registry, "_REGISTRY", dict(registry._REGISTRY))


def cli(*args: str) -> str:
    result = CliRunner().invoke(app, list(args), env={"COLUMNS": "120"})
    assert result.exit_code == 0, result.output
    return result.output


class Greedy:
    """Proposes its best package; accepts an offer worth at least 60% of its best."""

    def __init__(self, party: str, seed: int) -> None:
        self.party = party

    def act(self, view: PartyView) -> Accept | Propose:
        offer = view.offer
        if offer is not None and view.utility.evaluate(offer) >= 0.6 * view.utility.bounds()[1]:
            return Accept()
        return Propose(view.space.outcome(int(view.utility.evaluate_space().argmax())))


class Walker:
    def __init__(self, party: str, seed: int) -> None:
        pass

    def act(self, view: PartyView) -> Walk:
        return Walk("[bold red]not today[/]")


def test_import_parley_loads_nothing_but_its_lazy_exports() -> None:
    code = "import sys, parley\nprint(sorted(m for m in sys.modules if m.startswith('parley')))"
    completed = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=120, check=False
    )
    assert completed.stdout.strip() == "['parley', 'parley._lazy']", completed.stderr
    heavy = ("numpy", "pydantic", "yaml", "scipy", "rich", "typer")
    code = f"import sys, parley\nprint([m for m in {heavy!r} if m in sys.modules])"
    completed = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=120, check=False
    )
    assert completed.stdout.strip() == "[]", completed.stderr


def test_every_exported_name_resolves() -> None:
    for name in parley.__all__:
        assert getattr(parley, name) is not None
    assert parley.NegotiatorFactory is registry.NegotiatorFactory


# -- sessions ----------------------------------------------------------------------------------------


def test_run_session_plays_the_game_parley_run_plays(tmp_path: Path) -> None:
    report = parley.run_session("casino", ["boulware", "base"], seed=7)
    output = cli(
        "run", "casino", "--agent", "boulware", "--agent", "base", "--seed", "7", "--save", str(tmp_path)
    )
    assert report.trajectory.to_jsonl(versioned=True) == (tmp_path / "trajectory.jsonl").read_text()
    shown = str(report)
    assert "Agreement" in shown and "Parties" in shown and "Distance to the Pareto frontier" in shown
    assert shown in output and output.index(shown) > output.index("Campsite supplies")  # after the transcript


def test_run_session_takes_classes_objects_and_scenarios() -> None:
    casino = parley.load_scenario("casino")
    report = parley.run_session(casino, [Greedy, Greedy(party="B", seed=0)], seed=3, max_rounds=5)
    assert dict(report.agents) == {"A": "Greedy", "B": "Greedy"}
    assert report.rounds <= 5
    assert [o.party for o in report.outcomes()] == ["A", "B"]
    again = parley.run_session(casino, [Greedy, Greedy], seed=3, max_rounds=5)
    assert again.trajectory.to_jsonl() == report.trajectory.to_jsonl()  # deterministic by seed


def test_a_report_shows_agent_text_as_text(fresh_registry: None) -> None:
    parley.register_agent("[/]sneaky", Walker)
    report = parley.run_session("casino", ["[/]sneaky", "boulware"])
    assert report.agreement is None and report.no_deal is not None
    shown = str(report)
    assert "[/]sneaky" in shown and "[bold red]not today[/]" in shown
    assert repr(report) == "<SessionReport casino: A: [/]sneaky, B: boulware; no deal (walk) in round 1>"


def test_run_session_refuses_what_it_cannot_play() -> None:
    with pytest.raises(ValueError, match="casino has 2 parties"):
        parley.run_session("casino", ["boulware"])
    with pytest.raises(TypeError, match="not the string 'boulware'"):
        parley.run_session("casino", "boulware")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="seed must not be negative"):
        parley.run_session("casino", ["boulware", "base"], seed=-1)
    with pytest.raises(ValueError, match="max_rounds must be at least 1"):
        parley.run_session("casino", ["boulware", "base"], max_rounds=0)
    shared = Greedy("A", 0)
    with pytest.raises(ValueError, match="same negotiator object"):
        parley.run_session("casino", [shared, shared])
    with pytest.raises(ScenarioError, match="unknown agent 'nobody'"):
        parley.run_session("casino", ["nobody", "base"])
    with pytest.raises(ScenarioError, match="agent 'make_int' built a int, not a negotiator"):

        def make_int(*, party: str, seed: int) -> int:
            return 1

        parley.run_session("casino", [make_int, "base"])  # type: ignore[list-item]
    with pytest.raises(TypeError, match="got a float for B"):
        parley.run_session("casino", ["base", 1.5])  # type: ignore[list-item]


def test_a_bad_scenario_argument_is_one_line(tmp_path: Path) -> None:
    for scenario in ("no-such-scenario", "x" * 100_000, str(tmp_path / "missing.yaml"), "\u200bcasino"):
        with pytest.raises(ScenarioError) as error:
            parley.run_session(scenario, ["boulware", "base"])
        assert "\n" not in str(error.value)
    broken = tmp_path / "broken.yaml"
    broken.write_text("name: [unclosed\n")
    with pytest.raises(ScenarioError, match=r"broken\.yaml"):
        parley.analyze(broken)


# -- rendering ---------------------------------------------------------------------------------------


def test_reports_render_in_rich_and_in_jupyter() -> None:
    report = parley.run_session("casino", ["boulware", "base"], seed=7)
    console = Console(record=True, width=120, color_system="truecolor", force_terminal=True)
    console.print(report)
    assert "Agreement" in console.export_text(clear=False) and "\x1b[" in console.export_text(styles=True)
    bundle = report._repr_mimebundle_(include=[], exclude=[])
    assert "Agreement" in bundle["text/plain"] and "<pre" in bundle["text/html"]
    analysis = parley.analyze("casino")
    assert "Bargaining solutions" in analysis._repr_mimebundle_(include=[], exclude=[])["text/html"]


# -- analysis ----------------------------------------------------------------------------------------


def test_analyze_shows_what_parley_analyze_prints() -> None:
    analysis = parley.analyze("casino")
    assert str(analysis) == cli("analyze", "casino")
    assert analysis.size == 64 and len(analysis.frontier) == 10
    assert analysis.nash == {"food": 3, "water": 1, "firewood": 0}
    assert analysis.utilities(analysis.nash) == {"A": 19.0, "B": 23.0}
    assert repr(analysis) == "<AnalysisReport casino: 64 outcomes, 10 on the Pareto frontier>"
    with pytest.raises(ValueError, match="missing"):
        analysis.utilities({"food": 3})


def test_analyze_refuses_a_space_too_large_to_enumerate() -> None:
    big = parley.scenario_from_data(
        {
            "name": "huge",
            "issues": [{"name": f"i{n}", "range": {"min": 0, "max": 999}} for n in range(4)],
            "parties": [
                {
                    "name": p,
                    "batna": 0,
                    "utility": {"type": "linear_additive", "values": {"i0": {"per_unit": 1}}},
                }
                for p in ("a", "b")
            ],
        }
    )
    with pytest.raises(ScenarioError, match="1,000,000,000,000 outcomes, too many to enumerate"):
        parley.analyze(big)


# -- tournaments -------------------------------------------------------------------------------------


def test_run_tournament_shows_what_parley_tournament_prints(tmp_path: Path) -> None:
    report = parley.run_tournament(["boulware", "linear"], ["casino"], repetitions=2, out=tmp_path / "api")
    output = cli(
        "tournament", "--agents", "boulware,linear", "--scenarios", "casino", "--repetitions", "2",
        "--jobs", "1", "--out", str(tmp_path / "cli"),
    )  # fmt: skip
    assert str(report) in output
    assert report.games == 4 and report.failed_games == 0 and len(report.rows) == 8
    stored = [json.loads(line) for line in (tmp_path / "api" / "results.jsonl").read_text().splitlines()]
    assert [dict(row) for row in report.rows] == stored
    assert (tmp_path / "api" / "results.csv").is_file()
    assert [s.agent for s in report.summaries] == ["boulware", "linear"]
    assert repr(report) == "<TournamentReport 4 games, 0 failed; agents boulware, linear>"


def test_a_tournament_with_a_registered_class_and_failed_games(fresh_registry: None) -> None:
    class Crashes:
        def __init__(self, party: str, seed: int) -> None:
            raise ValueError("cannot start")

    parley.register_agent("greedy-test", Greedy, "test agent")
    parley.register_agent("crashes-test", Crashes, "test agent")
    assert {"greedy-test", "crashes-test"} <= set(parley.agent_names())
    report = parley.run_tournament(["greedy-test", "boulware", "crashes-test"], ["casino"])
    assert report.games == 6 and report.failed_games == 4
    shown = str(report)
    assert "4 of 6 games failed and are left out of the means, e.g. ValueError: cannot start" in shown
    for row in report.rows:  # strict JSON: a missing figure is None, never NaN
        assert not any(isinstance(v, float) and math.isnan(v) for v in row.values())


def test_run_tournament_refuses_bad_arguments() -> None:
    with pytest.raises(TypeError, match="agents must be a list"):
        parley.run_tournament("boulware", ["casino"])  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="scenarios must be a list"):
        parley.run_tournament(["boulware", "linear"], "casino")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="jobs must be at least 1"):
        parley.run_tournament(["boulware", "linear"], ["casino"], jobs=0)
    with pytest.raises(ScenarioError, match="unknown agents 'nobody'"):
        parley.run_tournament(["boulware", "nobody"], ["casino"])
    with pytest.raises(ScenarioError, match="the tournament is empty"):
        parley.run_tournament([], ["casino"])


def test_to_dataframe_uses_pandas_when_there_is_one(monkeypatch: pytest.MonkeyPatch) -> None:
    report = parley.run_tournament(["boulware", "linear"], ["casino"])
    made: dict[str, Any] = {}

    def data_frame(rows: list[dict[str, Any]], columns: list[str]) -> str:
        made.update(rows=rows, columns=columns)
        return "a frame"

    fake = types.ModuleType("pandas")
    fake.DataFrame = data_frame  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "pandas", fake)
    assert report.to_dataframe() == "a frame"
    from parley.experiments.tournament import ROW_FIELDS

    assert made["columns"] == list(ROW_FIELDS) and made["rows"] == [dict(row) for row in report.rows]
    monkeypatch.setitem(sys.modules, "pandas", None)  # as if it were not installed
    with pytest.raises(ImportError, match="pip install pandas"):
        report.to_dataframe()


def test_to_dataframe_with_real_pandas() -> None:
    pandas = pytest.importorskip("pandas")
    frame = parley.run_tournament(["boulware", "linear"], ["casino"]).to_dataframe()
    assert isinstance(frame, pandas.DataFrame) and len(frame) == 4
