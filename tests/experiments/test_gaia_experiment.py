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
    result = CliRunner().invoke(
        app, ["experiment", "gaia", "--seeds", "1", "--sensitivity-seeds", "0", "--out", str(out)]
    )
    assert result.exit_code == 0, result.output
    text = out.read_text(encoding="utf-8")
    assert (
        "## The seed's claims, tested" in text
        and "| development set (rules refined on it) | 124 (60) |" in text
    )
    assert (tmp_path / "figures" / "gaia_tci_by_condition.png").stat().st_size > 1000
    bad = CliRunner().invoke(app, ["experiment", "gaia", "--seeds", "0", "--out", str(out)])
    assert bad.exit_code == 2 and "'--seeds'" in bad.output and "greater than or equal to 1" in bad.output


def test_the_seed_split_is_declared_and_disjoint() -> None:
    from parley.experiments.gaia.runs import (
        EVALUATION_SEEDS,
        SEED_SPLITS,
        TUNING_SEEDS,
        describe_seeds,
        seed_list,
    )

    assert (tuple(range(20)), tuple(range(100, 140))) == (TUNING_SEEDS, EVALUATION_SEEDS)
    assert not set(TUNING_SEEDS) & set(EVALUATION_SEEDS)
    assert SEED_SPLITS == {"tuning": TUNING_SEEDS, "evaluation": EVALUATION_SEEDS}
    assert seed_list(3) == (0, 1, 2) and seed_list([101, 100, 101]) == (101, 100)
    assert describe_seeds(EVALUATION_SEEDS) == "40 seeds (100–139; evaluation: never used for tuning)"
    assert "tuning" in describe_seeds(range(5)) and "not a declared split" in describe_seeds([5, 100])


def test_the_grid_runs_the_seeds_given() -> None:
    records = run_experiment([51], domains=("leasing",), personas=("slow",), conditions=CONDITIONS[:1])
    assert [(r["seed"], r["condition"]) for r in records] == [(51, CONDITIONS[0].name)]


def test_an_unknown_split_is_a_one_line_error(tmp_path: Path) -> None:
    result = CliRunner().invoke(
        app, ["experiment", "gaia", "--split", "holdout", "--out", str(tmp_path / "g.md")]
    )
    assert result.exit_code == 2 and "unknown split 'holdout'" in result.output
    assert "Traceback" not in result.output


def test_the_report_says_which_seeds_and_compares_deal_rates(tmp_path: Path) -> None:
    from parley.experiments.gaia import run_share_experiment, write_results

    seeds = [50]  # outside both splits: a test never looks at an evaluation seed
    records = run_experiment(seeds, domains=("procurement",), personas=("cooperative",))
    legacy = run_experiment(
        seeds,
        domains=("procurement",),
        personas=("cooperative",),
        conditions=CONDITIONS[:1],
        strategy="legacy",
    )
    shares = run_share_experiment(seeds, domains=("procurement",), personas=("cooperative",))
    out = write_results(records, seeds, tmp_path / "gaia.md", tmp_path / "figures", "cmd", shares, legacy)
    text = out.read_text(encoding="utf-8")
    assert "1 seeds (50; not a declared split)" in text
    assert "## Deal rate on the personas, both strategies" in text
    assert "| cooperative | " in text and "## Term reader" in text
