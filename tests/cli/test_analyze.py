"""`parley analyze`: one ground for every solution, every party shown, one-line errors."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest
from typer.testing import CliRunner

from parley.cli.app import app
from parley.experiments.plots import outcome_space_figure, plt
from parley.scenarios import load_scenario, scenario_to_yaml
from parley.scenarios.model import Scenario

pytestmark = pytest.mark.e2e
runner = CliRunner()


def invoke(*args: str, columns: int = 160) -> tuple[int, str]:
    result = runner.invoke(app, list(args), env={"COLUMNS": str(columns)})
    return result.exit_code, result.output


def with_batnas(scenario: Scenario, batna: float) -> Scenario:
    parties = tuple(
        dataclasses.replace(p, utility=p.utility.with_reservation(batna)) for p in scenario.parties
    )
    return dataclasses.replace(scenario, parties=parties)


def package_text(scenario: Scenario, index: int) -> str:
    return ", ".join(f"{k}={v}" for k, v in scenario.analysis.outcome(index).items())


def test_no_solution_is_reported_when_no_outcome_is_acceptable_to_every_party(tmp_path: Path) -> None:
    # Every casino party scores 0..36: with a BATNA of 30 each, no split suits both.
    scenario = with_batnas(load_scenario("casino"), 30.0)
    assert not scenario.analysis.individually_rational.any()
    path = tmp_path / "greedy.yaml"
    path.write_text(scenario_to_yaml(scenario))
    code, output = invoke("analyze", str(path))
    assert code == 0, output
    assert "no outcome is acceptable to every party" in output
    assert "food=" not in output, "no package may be offered as a solution"
    for label in ("Nash", "Kalai–Smorodinsky", "max welfare"):
        line = next(line for line in output.splitlines() if line.strip("│| ").startswith(label))
        assert "none" in line, line


def test_the_normalisation_convention_is_stated() -> None:
    code, output = invoke("analyze", "casino")
    assert code == 0, output
    assert "normalised" in output
    assert "0 at its BATNA" in output and "1 at its best outcome" in output


@pytest.mark.parametrize("columns", [80, 160])
def test_every_party_utility_is_listed_at_each_solution(columns: int) -> None:
    scenario = load_scenario("wind_farm")
    analysis = scenario.analysis
    code, output = invoke("analyze", "wind_farm", columns=columns)
    assert code == 0, output
    lines = output.splitlines()
    solutions = [analysis.nash, analysis.kalai, analysis.max_welfare]
    for column, party in enumerate(scenario.party_names):
        row = next((line for line in lines if line.strip("│| ").startswith(f"{party} ")), None)
        assert row is not None, f"no line for {party}"
        for index in solutions:
            assert index is not None
            utility = analysis.points[index, column]
            normal = analysis.normalized(analysis.points[index])[column]
            assert f"{utility:g} ({normal:.2f})" in row, (party, row)
    flat = " ".join(line.strip("│| ") for line in lines)
    for index in solutions:
        assert index is not None
        for part in package_text(scenario, index).split(", "):
            assert part in flat, part


def test_the_acceptable_set_under_a_k_of_n_rule_is_reported() -> None:
    scenario = load_scenario("wind_farm")
    rule = scenario.rules.acceptance
    assert rule.required == 3 and rule.vetoes == ("municipality",)
    analysis = scenario.analysis
    under_rule = int(analysis.acceptable(3, [scenario.party_names.index("municipality")]).sum())
    everyone = int(analysis.individually_rational.sum())
    assert under_rule > everyone
    code, output = invoke("analyze", "wind_farm")
    assert code == 0, output
    assert f"{everyone:,} outcomes acceptable to every party" in output
    rule_line = "outcomes pass the acceptance rule (3 of 4 parties, always including municipality)"
    assert f"{under_rule:,} {rule_line}" in output


def test_a_trajectory_of_another_scenario_is_one_line_naming_file_and_mismatch(tmp_path: Path) -> None:
    code, output = invoke("run", "procurement", "-a", "boulware", "-a", "conceder", "--save", str(tmp_path))
    assert code == 0, output
    trajectory = tmp_path / "trajectory.jsonl"
    for extra in ((), ("--plot", str(tmp_path / "space.png"))):
        code, output = invoke("analyze", "casino", "--trajectory", str(trajectory), *extra)
        assert code == 2, output
        assert "Traceback" not in output
        assert len(output.strip().splitlines()) == 1, output
        assert str(trajectory) in output.replace("\n", "")
        assert "procurement" in output and "casino" in output
    assert not (tmp_path / "space.png").exists()


def test_a_trajectory_with_a_package_outside_the_space_is_one_line(tmp_path: Path) -> None:
    code, output = invoke("run", "casino", "-a", "boulware", "-a", "conceder", "--save", str(tmp_path))
    assert code == 0, output
    trajectory = tmp_path / "trajectory.jsonl"
    text = trajectory.read_text()
    assert '"food":' in text
    trajectory.write_text(text.replace('"food":', '"fuel":'))  # an edited or older scenario's file
    code, output = invoke("analyze", "casino", "--trajectory", str(trajectory))
    assert code == 2, output
    assert len(output.strip().splitlines()) == 1, output
    assert "casino" in output and "fuel" in output
    # without its opening event, the offers themselves are checked
    lines = trajectory.read_text().splitlines()
    assert '"session_started"' in lines[0]
    trajectory.write_text("\n".join(lines[1:]) + "\n")
    code, output = invoke("analyze", "casino", "--trajectory", str(trajectory))
    assert code == 2, output
    assert len(output.strip().splitlines()) == 1, output
    assert "not a package of casino" in output and "fuel" in output


@pytest.mark.parametrize("name", ["out.txt", "out", "out.jpg"])
def test_plot_to_an_unsupported_format_is_one_line_listing_the_formats(tmp_path: Path, name: str) -> None:
    target = tmp_path / name
    code, output = invoke("analyze", "casino", "--plot", str(target))
    assert code == 2, output
    assert len(output.strip().splitlines()) == 1, output
    assert "png, pdf, svg" in output
    assert not target.exists()


def test_plot_into_a_path_that_cannot_be_created_is_one_line(tmp_path: Path) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("not a folder")
    code, output = invoke("analyze", "casino", "--plot", str(blocker / "space.png"))
    assert code == 2, output
    assert "Traceback" not in output
    assert len(output.strip().splitlines()) == 1, output
    assert "space.png" in output.replace("\n", "")


@pytest.mark.parametrize("suffix", ["png", "pdf", "svg", "PNG"])
def test_plot_formats_are_written(tmp_path: Path, suffix: str) -> None:
    target = tmp_path / f"space.{suffix}"
    code, output = invoke("analyze", "casino", "--plot", str(target))
    assert code == 0, output
    assert target.stat().st_size > 1000


def test_plot_of_three_or_four_parties_has_a_panel_for_every_pair(tmp_path: Path) -> None:
    for name, pairs in (("office_move", 3), ("wind_farm", 6)):
        scenario = load_scenario(name)
        figure = outcome_space_figure(scenario)
        try:
            panels = [a for a in figure.axes if a.get_xlabel()]
            assert len(panels) == pairs
            shown = {(a.get_xlabel(), a.get_ylabel()) for a in panels}
            names = scenario.party_names
            expected = {
                (f"utility of {names[i]}", f"utility of {names[j]}")
                for i in range(len(names))
                for j in range(i + 1, len(names))
            }
            assert shown == expected
        finally:
            plt.close(figure)


def test_plot_of_many_parties_is_parallel_coordinates_over_every_party() -> None:
    scenario = load_scenario("promediate/river")
    assert len(scenario.parties) == 6
    figure = outcome_space_figure(scenario)
    try:
        (axes,) = figure.axes
        assert [t.get_text() for t in axes.get_xticklabels()] == list(scenario.party_names)
        assert "normalised" in axes.get_ylabel()
    finally:
        plt.close(figure)


def test_analyze_plots_every_party_and_says_how(tmp_path: Path) -> None:
    code, output = invoke(
        "run",
        "office_move",
        "-a",
        "boulware",
        "-a",
        "conceder",
        "-a",
        "linear",
        "--save",
        str(tmp_path / "run"),
    )
    assert code == 0, output
    plot = tmp_path / "space.svg"
    code, output = invoke(
        "analyze",
        "office_move",
        "--plot",
        str(plot),
        "--trajectory",
        str(tmp_path / "run" / "trajectory.jsonl"),
    )
    assert code == 0, output
    assert "a panel for each pair of the 3 parties" in output
    assert plot.stat().st_size > 10_000
    code, output = invoke("analyze", "promediate/river", "--plot", str(tmp_path / "river.png"))
    assert code == 0, output
    assert "parallel coordinates" in output and "6 parties" in output
