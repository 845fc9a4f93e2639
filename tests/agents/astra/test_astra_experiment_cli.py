"""The ASTRA experiment: randomised CaSiNo games, records, report, and the CLI command end to end."""

from __future__ import annotations

import csv
from pathlib import Path

import pytest
from typer.testing import CliRunner

from parley.cli.app import app
from parley.experiments.astra import RunSpec, casino_game, run_one, table1_markdown


def test_casino_games_follow_the_rules_and_vary_by_seed() -> None:
    game = casino_game(3)
    a, b = game.party("A").utility, game.party("B").utility
    assert game.space.size == 64
    assert a.bounds() == (0.0, 36.0) and b.bounds() == (0.0, 36.0)
    assert a.reservation_value == b.reservation_value == 5.0
    everything = {"food": 3, "water": 3, "firewood": 3}
    assert a.evaluate(everything) == 36.0 and b.evaluate(everything) == 0.0
    orders = {tuple(casino_game(seed).metadata["priorities"]["A"]) for seed in range(12)}
    assert len(orders) > 1
    assert casino_game(3).metadata == game.metadata


def test_a_run_record_is_consistent() -> None:
    record = run_one(RunSpec("table1", "astra", "base", "casino-random", 1))
    assert record.agreement == (record.ending == "agreement")
    assert not record.agreement or record.agent_utility >= 5.0
    assert record.lambdas and all(0.0 <= lam <= 1.0 for _, _, lam in record.lambdas)
    assert "| astra | base | 1 |" in table1_markdown([record])


@pytest.mark.e2e
def test_cli_writes_report_csv_and_heatmap(tmp_path: Path) -> None:
    out = tmp_path / "astra.md"
    result = CliRunner().invoke(
        app,
        ["experiment", "astra", "--runs", "2", "--jobs", "1", "--tournament-seeds", "0", "--out", str(out)],
    )
    assert result.exit_code == 0, result.output
    report = out.read_text(encoding="utf-8")
    assert "## Table 1 (parley)" in report and "figures/astra_lambda_heatmap.png" in report
    assert (tmp_path / "figures" / "astra_lambda_heatmap.png").stat().st_size > 0
    with (tmp_path / "astra_runs.csv").open(encoding="utf-8") as handle:
        rows = list(csv.DictReader(handle))
    assert len(rows) == 18  # 3 P1 systems (astra, ablation, time-based) x 3 partners x 2 runs


def test_cli_rejects_a_bad_run_count(tmp_path: Path) -> None:
    result = CliRunner().invoke(app, ["experiment", "astra", "--runs", "0", "--out", str(tmp_path / "x.md")])
    assert result.exit_code != 0
