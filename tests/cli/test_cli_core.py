"""End-to-end tests of the core CLI commands through typer's CliRunner."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from parley.cli.app import app
from parley.scenarios import load_scenario, scenario_to_yaml

pytestmark = pytest.mark.e2e
runner = CliRunner()


def invoke(*args: str, input: str | None = None) -> tuple[int, str]:
    result = runner.invoke(app, list(args), input=input, env={"COLUMNS": "160"})
    return result.exit_code, result.output


def test_run_prints_transcript_and_agreement() -> None:
    code, output = invoke("run", "casino", "--agent", "boulware", "--agent", "conceder", "--seed", "7")
    assert code == 0, output
    assert "(propose)" in output
    assert "Agreement" in output
    assert "Distance to the Pareto frontier" in output


def test_run_json_and_save(tmp_path: Path) -> None:
    code, output = invoke(
        "run", "procurement", "-a", "linear", "-a", "conceder", "--json", "--save", str(tmp_path)
    )
    assert code == 0, output
    summary = json.loads(output)
    assert summary["scenario"] == "procurement"
    assert {p["party"] for p in summary["parties"]} == set(load_scenario("procurement").party_names)
    saved = json.loads((tmp_path / "result.json").read_text())
    assert saved == summary
    lines = (tmp_path / "trajectory.jsonl").read_text().splitlines()
    assert json.loads(lines[0])["kind"] == "session_started"
    assert json.loads(lines[-1])["kind"] in ("agreement", "no_deal")


def test_run_is_deterministic_by_seed() -> None:
    first = invoke("run", "casino", "-a", "random", "-a", "tit-for-tat", "--seed", "3", "--json")
    second = invoke("run", "casino", "-a", "random", "-a", "tit-for-tat", "--seed", "3", "--json")
    assert first == second


@pytest.mark.parametrize(
    ("args", "expected"),
    [
        (("run", "casino", "-a", "boulware"), "give one --agent per party"),
        (("run", "no-such-scenario", "-a", "boulware", "-a", "boulware"), "no-such-scenario"),
        (("run", "casino", "-a", "boulware", "-a", "nobody"), "unknown agent 'nobody'"),
        (("run", "casino", "-a", "boulware", "-a", "conceder", "--coach"), "make one of the agents 'human'"),
    ],
)
def test_run_bad_input_gives_one_line_error(args: tuple[str, ...], expected: str) -> None:
    code, output = invoke(*args)
    assert code == 2
    assert expected in output
    assert "Traceback" not in output


def test_human_player_is_reasked_politely_then_closes_a_deal() -> None:
    moves = "\n".join(
        [
            "blorp",  # not understood: asked again
            "I'll take 3 food and 3 water, you get the firewood",
            "deal",  # the hardliner's offer is below the BATNA: the person is asked to confirm
            "yes",
        ]
    )
    code, output = invoke("run", "casino", "-a", "human", "-a", "hardliner", input=moves + "\n")
    assert code == 0, output
    assert "I couldn't find a move in that" in output
    assert "On the table:" in output
    assert "less than walking away" in output
    assert "Agreement" in output
    assert "accepted a deal below its BATNA" in output


def test_human_can_walk_away() -> None:
    code, output = invoke("run", "casino", "-a", "human", "-a", "hardliner", input="I'm walking away\n")
    assert code == 0, output
    assert "No deal" in output
    assert "walk" in output


def test_scenarios_list_show_validate(tmp_path: Path) -> None:
    code, output = invoke("scenarios", "list")
    assert code == 0 and "casino" in output and "procurement" in output
    code, output = invoke("scenarios", "show", "staffing")
    assert code == 0 and "salary" in output and "BATNA" in output
    good = tmp_path / "good.yaml"
    good.write_text(scenario_to_yaml(load_scenario("lease")))
    code, output = invoke("scenarios", "validate", str(good))
    assert code == 0 and "OK" in output
    bad = tmp_path / "bad.yaml"
    bad.write_text(good.read_text().replace("issues:", "isues:", 1))
    code, output = invoke("scenarios", "validate", str(bad))
    assert code == 1
    assert "bad.yaml" in output and "Traceback" not in output
    assert len(output.strip().splitlines()) == 1


def test_show_counts_the_packages_a_deal_could_use_and_validate_warns_when_there_are_none(
    tmp_path: Path,
) -> None:
    code, output = invoke("scenarios", "show", "wind_farm")
    flat = " ".join(output.split())
    # wind_farm: 3 of 4 with the municipality's veto passes more packages than unanimity would
    assert code == 0 and "554 pass the acceptance rule" in flat and "215 leave every party" in flat
    hopeless = tmp_path / "hopeless.yaml"
    text = scenario_to_yaml(load_scenario("office_move"))
    # engineering then needs the riverside campus and sales the city centre: no package serves both
    text = text.replace("batna: 2.5", "batna: 5.7").replace("batna: 2.0", "batna: 4.8")
    hopeless.write_text(text)
    code, output = invoke("scenarios", "validate", str(hopeless))
    assert code == 0 and "OK" in output
    assert "no package passes the acceptance rule" in " ".join(output.split())
    code, output = invoke("scenarios", "validate", str(tmp_path / "missing.yaml"))
    assert code == 1 and "Traceback" not in output


def test_analyze_with_plot_and_trajectory(tmp_path: Path) -> None:
    code, output = invoke("run", "casino", "-a", "boulware", "-a", "conceder", "--save", str(tmp_path))
    assert code == 0, output
    plot = tmp_path / "space.png"
    code, output = invoke(
        "analyze", "casino", "--plot", str(plot), "--trajectory", str(tmp_path / "trajectory.jsonl")
    )
    assert code == 0, output
    assert "Nash" in output and "Pareto frontier" in output
    assert plot.stat().st_size > 10_000


def test_analyze_rejects_unreadable_trajectory(tmp_path: Path) -> None:
    missing = tmp_path / "missing.jsonl"
    code, output = invoke("analyze", "casino", "--trajectory", str(missing))
    assert code == 2 and "cannot read trajectory" in output


def test_tournament_writes_results_and_resumes(tmp_path: Path) -> None:
    args = (
        "tournament",
        "--agents",
        "boulware,conceder",
        "--agents",
        "hardliner",
        "--scenarios",
        "casino",
        "--repetitions",
        "2",
        "--jobs",
        "1",
        "--out",
        str(tmp_path),
    )
    code, output = invoke(*args)
    assert code == 0, output
    assert "Tournament results" in output and "boulware" in output
    rows = (tmp_path / "results.jsonl").read_text().splitlines()
    assert len(rows) == 3 * 2 * 2 * 2  # ordered pairs × repetitions × parties
    assert (tmp_path / "results.csv").exists()
    code, output = invoke(*args)
    assert code == 0
    assert len((tmp_path / "results.jsonl").read_text().splitlines()) == len(rows)


def test_tournament_unknown_agent() -> None:
    code, output = invoke(
        "tournament", "--agents", "boulware,ghost", "--scenarios", "casino", "--out", "/tmp/x"
    )
    assert code == 2 and "ghost" in output


def test_coach_advises_before_each_human_move() -> None:
    # (ASTRA opens at its best package and holds it: the coach warns once before it suggests a counter)
    moves = (
        "what matters most to you?\nI'll take 3 food and 2 water, you get the rest\n"
        "I'll take 3 food and 1 water, you get the rest\nquit\n"
    )
    code, output = invoke("run", "casino", "-a", "human", "-a", "astra", "--coach", input=moves)
    assert code == 0, output
    assert output.count("Coach:") >= 2  # before the opening move and before answering an offer
    assert "Make this counter-offer" in output
    assert "From most to least important to me" in output  # ASTRA answers the person's question
