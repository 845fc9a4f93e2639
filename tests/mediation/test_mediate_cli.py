"""`parley mediate` and `parley experiment promediate` end to end through typer's CliRunner."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from parley.cli.app import app
from parley.protocol.events import Trajectory

runner = CliRunner()


@pytest.mark.e2e
def test_mediate_shows_the_conversation_saves_the_trajectory_and_plots(tmp_path: Path) -> None:
    result = runner.invoke(
        app,
        [
            "mediate",
            "hmo",
            "--mediator",
            "social",
            "--mode",
            "competing",
            "--seed",
            "3",
            "--save",
            str(tmp_path / "run"),
            "--plot",
            str(tmp_path / "consensus.png"),
        ],
    )
    assert result.exit_code == 0, result.output
    assert "Mediator" in result.output and "Consensus per topic" in result.output
    assert "Formulary Status" in result.output
    trajectory = Trajectory.load(tmp_path / "run" / "trajectory.jsonl")
    assert trajectory.of_kind("conversation_started")[0].data["mode"] == "competing"
    metrics = json.loads((tmp_path / "run" / "metrics.json").read_text(encoding="utf-8"))
    assert metrics["interventions"] == len(trajectory.of_kind("intervention")) > 0
    assert (tmp_path / "consensus.png").stat().st_size > 1000


@pytest.mark.e2e
@pytest.mark.parametrize(
    ("arguments", "message"),
    [
        (["mediate", "hmo", "--mode", "angry"], "unknown conflict mode 'angry'"),
        (["mediate", "hmo", "--mediator", "wise"], "unknown mediator 'wise'"),
        (["experiment", "promediate", "--cases", "mars"], "unknown cases ['mars']"),
    ],
)
def test_bad_options_are_one_line_errors(arguments: list[str], message: str) -> None:
    result = runner.invoke(app, arguments)
    assert result.exit_code == 2
    assert message in result.output.replace("\n", "")


@pytest.mark.e2e
def test_experiment_writes_a_report_with_table_and_figures(tmp_path: Path) -> None:
    out = tmp_path / "results" / "promediate.md"
    result = runner.invoke(
        app,
        [
            "experiment",
            "promediate",
            "--runs",
            "1",
            "--cases",
            "hmo",
            "--out",
            str(out),
            "--deliberation-seeds",
            "1",
        ],
    )
    assert result.exit_code == 0, result.output
    report = out.read_text(encoding="utf-8")
    assert "| CC (%) ↑ |" in report and "competing · Social" in report
    assert "LLM-Deliberation base game" in report
    assert (tmp_path / "results" / "figures" / "promediate_consensus.png").exists()
    assert (tmp_path / "results" / "figures" / "promediate_me_mi.png").exists()
    assert "12 conversations" in result.output


def test_the_report_labels_each_seed_claim_with_its_paired_test() -> None:
    from parley.experiments.promediate_report import claims_section

    rows = [
        {"case": "hmo", "mode": "competing", "mediator": mediator, "run": seed, "CC": cc + 0.001 * seed}
        for seed in range(12)
        for mediator, cc in (("social", 0.10), ("generic", 0.05), ("none", 0.02))
    ]
    lines = claims_section(rows)
    competing = next(line for line in lines if line.startswith("| competing: Social CC > Generic CC"))
    assert "| 12 |" in competing and "Wilcoxon signed-rank" in competing and "**reproduced**" in competing
    avoiding = next(line for line in lines if line.startswith("| avoiding: Social CC < Generic CC"))
    assert "| 0 |" in avoiding and "**inconclusive**" in avoiding


GAME = Path(__file__).resolve().parents[1] / "data" / "deliberation" / "harbour_bullets"


def _mediate(*arguments: str) -> tuple[int, str]:
    result = runner.invoke(app, ["mediate", *arguments, "--quiet"])
    return result.exit_code, result.output


@pytest.mark.e2e
def test_mediate_plays_a_game_whose_p1_earns_the_unanimity_bonus(tmp_path: Path) -> None:
    code, output = _mediate("deliberation/base", "--seed", "2", "--save", str(tmp_path / "run"))
    assert code == 0, output
    assert "Consensus per topic" in output and "Federal Loan" in output
    trajectory = Trajectory.load(tmp_path / "run" / "trajectory.jsonl")
    started = trajectory.of_kind("conversation_started")[0].data
    assert "SportCo" in started["parties"]
    assert len(trajectory.of_kind("utterance")) + len(trajectory.of_kind("intervention")) > 0
    metrics = json.loads((tmp_path / "run" / "metrics.json").read_text(encoding="utf-8"))
    assert metrics["interventions"] == len(trajectory.of_kind("intervention"))


@pytest.mark.e2e
def test_mediate_plays_a_bonus_game_from_its_folder_and_from_its_yaml_export(tmp_path: Path) -> None:
    code, output = _mediate(str(GAME), "--mediator", "generic", "--mode", "competing")
    assert code == 0, output
    exported = runner.invoke(app, ["scenarios", "export", str(GAME), "--out", str(tmp_path / "out")])
    assert exported.exit_code == 0, exported.output
    (file,) = (tmp_path / "out").glob("*.yaml")
    assert "type: additive_bonus" in file.read_text(encoding="utf-8")
    code, output = _mediate(str(file), "--mediator", "social")
    assert code == 0, output
    assert "Consensus per topic" in output


@pytest.mark.e2e
def test_mediate_on_a_utility_without_an_additive_part_is_one_line(tmp_path: Path) -> None:
    from parley.scenarios.writer import scenario_to_yaml
    from parley.testing.scenarios import table_scenario

    (tmp_path / "table.yaml").write_text(scenario_to_yaml(table_scenario()), encoding="utf-8")
    code, output = _mediate(str(tmp_path / "table.yaml"))
    assert code != 0
    lines = [line for line in output.splitlines() if line.strip()]
    assert lines == [lines[-1]] and lines[-1].startswith("error: "), output
    assert "additive part" in output and "Traceback" not in output
