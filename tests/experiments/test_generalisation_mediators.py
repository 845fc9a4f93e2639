"""The generalisation benchmark's mediator study and sweep: tuning only, fixed seeds, one-line errors."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType

import pytest
from typer.testing import CliRunner

from parley.cli.app import app
from parley.experiments.tournament import mediator_name

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
    assert sorted(bench.SHIPPED_MULTIPARTY_SEEDS) == sorted(bench.SPLITS)
    used: set[int] = set()
    for split in bench.SPLITS:  # the tuning split first: its seeds are disjoint from every evaluation's
        seeds = set(bench.SHIPPED_MULTIPARTY_SEEDS[split])
        assert len(seeds) >= 6
        assert not seeds & used  # each split plays the shipped scenarios on seeds of its own
        if split != "tuning":
            assert not seeds & set(bench.SPLITS["tuning"])
            assert not set(bench.SPLITS[split]) & set(bench.SPLITS["tuning"])
        used |= seeds
    tuning = set(bench.SHIPPED_MULTIPARTY_SEEDS["tuning"])
    assert len(tuning) == 8
    assert not tuning & (set(range(1000, 1008)) | set(range(2000, 2008)))  # the seen evaluation seeds
    assert bench.SHIPPED_MULTIPARTY_SEEDS["evaluation"] == range(1000, 1008)  # unchanged
    assert bench.SHIPPED_MULTIPARTY_SEEDS["evaluation2"] == range(2000, 2008)
    assert not tuning & set(range(3000, 3008))


def test_the_shipped_tuning_games_use_only_tuning_seeds(bench: ModuleType) -> None:
    games = bench.shipped_multiparty_games("tuning", ["linear"], "proactive")
    assert len(games) == len(bench.SHIPPED_MULTIPARTY) * len(bench.SHIPPED_MULTIPARTY_SEEDS["tuning"])
    assert {g.seed for g in games} == set(bench.SHIPPED_MULTIPARTY_SEEDS["tuning"])
    assert {g.scenario for g in games} == set(bench.SHIPPED_MULTIPARTY)
    assert all(g.mediator == "proactive" and set(g.agents) == {"linear"} for g in games)


@pytest.mark.parametrize("split", ["evaluation", "evaluation2", "evaluation3", "evaluation4"])
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
    monkeypatch.setattr(bench, "SHIPPED_MULTIPARTY", ("office_move", "wind_farm"))
    monkeypatch.setitem(bench.SHIPPED_MULTIPARTY_SEEDS, "tuning", range(100, 102))
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
    assert "| all linear |" in table and "`proactive(gap=2)`: generated" in table and "`none`" in table
    assert "`proactive(gap=2)`: shipped" in table and "`proactive(gap=2)`: worst" in table
    assert "seeds 100-101" in table  # the shipped scenarios on their tuning seeds
    assert (out / "mediator-sweep" / "proactive_gap_2_").is_dir()
    shipped = bench.ResultStore(out / "mediator-sweep" / "proactive_gap_2_-shipped")
    rows = list(shipped.iter_rows())
    assert {r["scenario"] for r in rows} == {"office_move", "wind_farm"}
    assert {r["seed"] for r in rows} == {100, 101}
    assert {r["mediator"] for r in rows} == {mediator_name("proactive(gap=2)")}
    line = next(li for li in table.splitlines() if li.startswith("| all linear |"))
    assert len(line.strip("|").split("|")) == 1 + 3 * 2  # generated, shipped and worst per setting


def test_the_sweep_can_leave_the_shipped_scenarios_out(
    bench: ModuleType, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(bench, "MEDIATOR_SWEEP_SEEDS", 1)
    out = tmp_path / "sweep"
    flags = ["--split", "tuning", "--out", str(out), "--mediator-sweep", "proactive", "--no-shipped"]
    assert bench.main([*flags, "--sweep-agents", "linear", "--report", str(out / "table.md")]) == 0
    table = (out / "table.md").read_text(encoding="utf-8")
    assert "`proactive`: generated" in table and "shipped" not in table and "worst" not in table
    assert "| all linear |" in table and "| mean over the mixes |" in table
    assert not (out / "mediator-sweep" / "proactive-shipped").exists()


def test_the_tournament_cli_refuses_a_bad_proactive_option_in_one_line(tmp_path: Path) -> None:
    flags = ["--agents", "linear", "--scenarios", "wind_farm", "--out", str(tmp_path / "t")]
    result = CliRunner().invoke(app, ["tournament", *flags, "--mediator", "proactive(start=5)"])
    assert result.exit_code != 0
    assert "Traceback" not in result.output
    assert "start" in result.output and "out of range" in result.output
    assert len(result.output.strip().splitlines()) == 1


def test_the_mediator_study_plays_the_shipped_scenarios_on_tuning_seeds_in_the_tuning_split(
    bench: ModuleType, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(bench, "MEDIATOR_TUNING_SEEDS", 1)
    monkeypatch.setattr(bench, "agents", lambda: ("linear",))
    monkeypatch.setattr(bench, "SHIPPED_MULTIPARTY", ("office_move",))
    monkeypatch.setitem(bench.SHIPPED_MULTIPARTY_SEEDS, "tuning", range(100, 102))
    monkeypatch.setitem(bench.SPLITS, "tuning", range(0, 100))
    out = tmp_path / "study"
    flags = ["--split", "tuning", "--limit", "1", "--mediator", "proactive", "--mediator-only"]
    assert bench.main([*flags, "--out", str(out), "--report", str(out / "study.md")]) == 0
    text = (out / "study.md").read_text(encoding="utf-8")
    assert "Shipped multi-party scenarios (office_move; seeds 100-101)" in text
    rows = list(bench.ResultStore(out / "mediator" / "shipped-proactive").iter_rows())
    assert rows and {r["seed"] for r in rows} == {100, 101}
    assert {r["agent"] for r in rows} == {"linear", "astra"}


def _result(bench: ModuleType, rate: float, utility: float) -> object:
    interval = bench.Interval(rate, rate, rate, 10)
    return bench.MediatedResult(
        10, interval, bench.Interval(utility, utility, utility, 10), interval, interval, 0
    )


def test_mixes_are_ranked_by_the_lower_of_their_two_tuning_rates(bench: ModuleType) -> None:
    generated = {
        "all strong-on-one": _result(bench, 0.9, 0.5),
        "all even": _result(bench, 0.7, 0.5),
        "all unplayed-shipped": _result(bench, 0.95, 0.9),
        "all tie-b": _result(bench, 0.6, 0.8),
        "all tie-a": _result(bench, 0.6, 0.8),
    }
    shipped = {
        "all strong-on-one": _result(bench, 0.4, 0.5),
        "all even": _result(bench, 0.7, 0.5),
        "all tie-b": _result(bench, 0.6, 0.1),
        "all tie-a": _result(bench, 0.6, 0.1),
    }
    assert bench.rank_mixes(generated, shipped) == [
        "all even",  # worst 0.7
        "all tie-a",  # worst 0.6, same utility: by name
        "all tie-b",
        "all strong-on-one",  # worst 0.4 although best on generated games
        "all unplayed-shipped",  # never played on the shipped games: counts 0 there
    ]
