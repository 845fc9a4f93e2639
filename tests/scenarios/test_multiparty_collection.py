"""The `multiparty/` collection: shipped as package data, listed, loaded by name, described by its
README, and unknown names answered in one line."""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

import pytest
from typer.testing import CliRunner

from parley.cli.app import app
from parley.errors import ScenarioError
from parley.scenarios import load_scenario, scenario_names, shipped_scenario_names
from parley.scenarios.catalog import (
    load_multiparty_scenario,
    multiparty_directory,
    multiparty_scenario_names,
)
from parley.scenarios.model import Scenario

ROOT = Path(__file__).resolve().parents[2]
NAMES = multiparty_scenario_names()
README = multiparty_directory() / "README.md"
runner = CliRunner()


def _rule(scenario: Scenario) -> str:
    acceptance = scenario.rules.acceptance
    parties = len(scenario.parties)
    required = acceptance.required
    text = f"all {parties}" if required is None or required == parties else f"{required} of {parties}"
    return text + (f"; vetoes: {', '.join(acceptance.vetoes)}" if acceptance.vetoes else "")


def _counts(scenario: Scenario) -> tuple[int, int]:
    """(packages passing the acceptance rule, packages good for every party), as `scenarios show`."""
    acceptance = scenario.rules.acceptance
    vetoes = [scenario.party_names.index(v) for v in acceptance.vetoes]
    passing = scenario.analysis.acceptable(acceptance.required, vetoes)
    return int(passing.sum()), int(scenario.analysis.individually_rational.sum())


def _readme_rows() -> dict[str, list[str]]:
    rows: dict[str, list[str]] = {}
    for line in README.read_text(encoding="utf-8").splitlines():
        if line.startswith("| `"):
            cells = [cell.strip() for cell in line.strip().strip("|").split("|")]
            rows[cells[0].strip("`")] = cells[1:]
    return rows


def test_the_collection_holds_the_28_files_and_nothing_else() -> None:
    assert len(NAMES) == 28
    files = sorted(path.name for path in multiparty_directory().iterdir() if path.is_file())
    assert files == sorted([*(f"{name}.yaml" for name in NAMES), "README.md"])
    assert [f"multiparty/{name}" for name in NAMES] == [
        n for n in scenario_names() if n.startswith("multiparty/")
    ]
    # A sub-folder of data/, not shipped files: the bare name is not a scenario of its own.
    assert not set(NAMES) & set(shipped_scenario_names())


def test_a_scenario_loads_under_its_collection_name() -> None:
    scenario = load_scenario("multiparty/port_terminal_automation")
    assert scenario.name == "multiparty/port_terminal_automation"
    assert len(scenario.parties) == 5
    assert Path(scenario.source or "") == multiparty_directory() / "port_terminal_automation.yaml"
    assert load_multiparty_scenario("port_terminal_automation").party_names == scenario.party_names


def test_the_readme_table_matches_every_scenario() -> None:
    rows = _readme_rows()
    assert sorted(rows) == NAMES
    for name in NAMES:
        scenario = load_scenario(f"multiparty/{name}")
        passing, everyone = _counts(scenario)
        expected = [
            str(len(scenario.parties)),
            str(len(scenario.space.issues)),
            f"{scenario.space.size:,}",
            _rule(scenario),
            f"{passing:,}",
            f"{everyone:,}",
        ]
        assert rows[name][:6] == expected, name
        assert rows[name][6] in {"A", "B"}


def test_the_readme_names_the_writers_use_and_licence() -> None:
    text = README.read_text(encoding="utf-8")
    for needed in ("2026-11-28", "benchmarks/heldout_scenarios.py", "docs/results/generalisation.md"):
        assert needed in text
    assert "same licence as parley" in text
    licence = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]["license"]
    assert licence in text


def test_show_prints_the_readme_counts() -> None:
    result = runner.invoke(
        app, ["scenarios", "show", "multiparty/city_pension_reform"], env={"COLUMNS": "200"}
    )
    assert result.exit_code == 0, result.output
    flat = " ".join(result.output.split())
    passing, everyone = _readme_rows()["city_pension_reform"][4:6]
    assert f"Outcomes: 216; {passing} pass the acceptance rule" in flat
    assert f"; {everyone} leave every party at or above its BATNA" in flat


def test_list_shows_the_collection() -> None:
    result = runner.invoke(app, ["scenarios", "list"], env={"COLUMNS": "240"})
    assert result.exit_code == 0, result.output
    listed = set(re.findall(r"multiparty/[a-z_]+", result.output))
    assert listed == {f"multiparty/{name}" for name in NAMES}


def test_package_data_globs_carry_every_file() -> None:
    """pyproject's package-data patterns for `parley` match every file of the folder, so a wheel
    carries them (the patterns are relative to src/parley, as setuptools reads them)."""
    config = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    patterns: list[str] = config["tool"]["setuptools"]["package-data"]["parley"]
    package = ROOT / "src" / "parley"
    matched = {path.resolve() for pattern in patterns for path in package.glob(pattern)}
    folder = package / "scenarios" / "data" / "multiparty"
    files = [path for path in folder.iterdir() if path.is_file()]
    assert len(files) == 29
    assert all(path.resolve() in matched for path in files)


@pytest.mark.parametrize(
    ("name", "close"),
    [
        ("port_terminal_automaton", "port_terminal_automation"),  # a typo
        ("p\u043ert_terminal_automation", "port_terminal_automation"),  # Cyrillic o
        ("port_terminal_automation\u200b", "port_terminal_automation"),  # zero-width space
        ("PORT_TERMINAL_AUTOMATION", None),
        ("../casino", None),
        ("../../data/casino", None),
        ("a/port_terminal_automation", "port_terminal_automation"),
        ("README", None),
    ],
)
def test_an_unknown_name_is_one_line_with_the_closest(name: str, close: str | None) -> None:
    with pytest.raises(ScenarioError) as caught:
        load_scenario(f"multiparty/{name}")
    message = str(caught.value)
    assert "\n" not in message
    assert message.startswith(f"unknown multiparty scenario {name!r}")
    if close is None:
        assert "did you mean" not in message
    else:
        assert f"(did you mean {close!r}?)" in message
    assert "shipped: ambari_canal_rotation, " in message


def test_a_file_name_is_read_as_a_path() -> None:
    """A name like "multiparty/x.yaml" ends like a file: a (missing) path, as for any name."""
    with pytest.raises(ScenarioError, match="no such file or folder"):
        load_scenario("multiparty/port_terminal_automation.yaml")
    with pytest.raises(ScenarioError, match=r"did you mean 'port_terminal_automation'\?"):
        load_multiparty_scenario("port_terminal_automation.yaml")


def test_a_huge_name_is_cut_short_in_the_message() -> None:
    name = "port_terminal_" + "x" * 100_000
    with pytest.raises(ScenarioError) as caught:
        load_multiparty_scenario(name)
    message = str(caught.value)
    assert len(message) < 1_500 and "\n" not in message
    assert "(100,014 characters)" in message


def test_an_empty_name_is_not_the_collection() -> None:
    with pytest.raises(ScenarioError, match="no such file or folder"):
        load_scenario("multiparty/")
    with pytest.raises(ScenarioError, match="unknown multiparty scenario ''"):
        load_multiparty_scenario("")


@pytest.mark.parametrize("command", [["scenarios", "show"], ["run"]])
def test_the_cli_answers_an_unknown_name_in_one_line(command: list[str]) -> None:
    args = [*command, "multiparty/port_terminal_automaton"]
    if command == ["run"]:
        args += ["-a", "conceder"] * 5
    result = runner.invoke(app, args, env={"COLUMNS": "200"})
    assert result.exit_code != 0
    assert "Traceback" not in result.output
    lines = [line for line in result.output.splitlines() if line.strip()]
    assert len(lines) == 1, result.output
    assert "did you mean 'port_terminal_automation'?" in lines[0]
