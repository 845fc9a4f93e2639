"""The generalisation benchmark's mediator study and sweep: tuning only, fixed seeds, one-line errors."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType

import pytest
from typer.testing import CliRunner

from parley.cli.app import app

SCRIPT = Path(__file__).resolve().parents[2] / "benchmarks" / "generalisation.py"


@pytest.fixture(scope="module")
def bench() -> ModuleType:
    spec = importlib.util.spec_from_file_location("generalisation_bench", SCRIPT)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


def test_shipped_seeds_are_fixed_and_more_than_before(bench: ModuleType) -> None:
    evaluations = [split for split in bench.SPLITS if split != "tuning"]
    assert sorted(bench.SHIPPED_MULTIPARTY_SEEDS) == sorted(evaluations)
    used: set[int] = set()
    for split in evaluations:
        seeds = set(bench.SHIPPED_MULTIPARTY_SEEDS[split])
        assert len(seeds) >= 6
        assert not seeds & set(bench.SPLITS["tuning"])
        assert not seeds & used  # each evaluation split plays the shipped scenarios on seeds of its own
        assert not set(bench.SPLITS[split]) & set(bench.SPLITS["tuning"])
        used |= seeds


@pytest.mark.parametrize("split", ["evaluation", "evaluation2"])
def test_mediator_settings_are_never_swept_on_the_evaluation_split(
    bench: ModuleType, capsys: pytest.CaptureFixture[str], split: str
) -> None:
    with pytest.raises(SystemExit) as stopped:
        bench.main(["--split", split, "--mediator-sweep", "proactive(start=0.3)"])
    assert stopped.value.code == 2
    assert "tuned on the tuning split only" in capsys.readouterr().err


@pytest.mark.parametrize("name", ["proactiv", "proactive(start=7)", "proactive(gap=zero)", "pro\u200bactive"])
def test_a_bad_mediator_setting_is_one_line(
    bench: ModuleType, capsys: pytest.CaptureFixture[str], name: str
) -> None:
    with pytest.raises(SystemExit):
        bench.main(["--split", "tuning", "--mediator-sweep", name])
    error = capsys.readouterr().err.strip().splitlines()
    assert error and "Traceback" not in "\n".join(error)
    assert len([line for line in error if "error:" in line]) == 1


def test_the_sweep_tables_every_setting(
    bench: ModuleType, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(bench, "MEDIATOR_SWEEP_SEEDS", 2)
    out = tmp_path / "sweep"
    assert (
        bench.main(
            [
                "--split",
                "tuning",
                "--out",
                str(out),
                "--mediator-sweep",
                "proactive(gap=2)",
                "--sweep-agents",
                "linear",
                "--report",
                str(out / "table.md"),
            ]
        )
        == 0
    )
    table = (out / "table.md").read_text(encoding="utf-8")
    assert "| all linear |" in table and "`proactive(gap=2)`" in table and "`none`" in table
    assert (out / "mediator-sweep" / "proactive_gap_2_").is_dir()


def test_the_tournament_cli_refuses_a_bad_proactive_option_in_one_line(tmp_path: Path) -> None:
    flags = ["--agents", "linear", "--scenarios", "wind_farm", "--out", str(tmp_path / "t")]
    result = CliRunner().invoke(app, ["tournament", *flags, "--mediator", "proactive(start=5)"])
    assert result.exit_code != 0
    assert "Traceback" not in result.output
    assert "start" in result.output and "out of range" in result.output
    assert len(result.output.strip().splitlines()) == 1
