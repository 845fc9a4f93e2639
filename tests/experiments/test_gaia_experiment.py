"""The GAIA experiment end to end on a tiny grid, through `parley experiment gaia`."""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from parley.cli.app import app
from parley.experiments.gaia import CONDITIONS, extraction_accuracy, run_experiment, run_one
from parley.governance.config import load_config


def test_one_cell_is_deterministic() -> None:
    config = load_config("procurement")
    first = run_one(config, "cooperative", 4, CONDITIONS[0])
    assert first == run_one(config, "cooperative", 4, CONDITIONS[0])
    assert first["extraction_total"] >= first["extraction_correct"] > 0


def test_extraction_accuracy_compares_with_ground_truth() -> None:
    config = load_config("staffing")
    confirmed = {"seniority": "senior", "compensation": "95000", "work_authorization": "Green card holder"}
    truth = {"seniority": "senior", "compensation": 90000.0, "work_authorization": "green_card"}
    assert extraction_accuracy(config, confirmed, truth) == (2, 3)


def test_grid_covers_every_condition() -> None:
    records = run_experiment(1, domains=("leasing",), personas=("slow",))
    assert [r["condition"] for r in records] == [c.name for c in CONDITIONS]


@pytest.mark.e2e
def test_cli_writes_the_report_and_figures(tmp_path: Path) -> None:
    out = tmp_path / "gaia.md"
    result = CliRunner().invoke(app, ["experiment", "gaia", "--seeds", "1", "--out", str(out)])
    assert result.exit_code == 0, result.output
    text = out.read_text(encoding="utf-8")
    assert "## Expected directions" in text and "| development set (rules refined on it) | 124 (60) |" in text
    assert (tmp_path / "figures" / "gaia_tci_by_condition.png").stat().st_size > 1000
    bad = CliRunner().invoke(app, ["experiment", "gaia", "--seeds", "0", "--out", str(out)])
    assert bad.exit_code == 2 and "'--seeds'" in bad.output and "greater than or equal to 1" in bad.output
