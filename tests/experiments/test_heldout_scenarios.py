"""The pre-registered held-out scenario check of the multi-party target (benchmarks/heldout_scenarios.py)."""

from __future__ import annotations

import importlib.util
import shutil
import sys
from pathlib import Path
from types import ModuleType

import pytest

from parley.errors import ScenarioError

ROOT = Path(__file__).resolve().parents[2]
BENCHMARKS = ROOT / "benchmarks"
SHIPPED = ROOT / "src" / "parley" / "scenarios" / "data"


@pytest.fixture(scope="module")
def heldout() -> ModuleType:
    sys.path.insert(0, str(BENCHMARKS))
    spec = importlib.util.spec_from_file_location("heldout_scenarios", BENCHMARKS / "heldout_scenarios.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


def _result(heldout: ModuleType, good: int, games: int, feasible: int = 5) -> object:
    return heldout.ScenarioResult("s", 3, "unanimous", feasible, good, games, 1)


def test_a_missing_or_empty_folder_is_a_one_line_error(heldout: ModuleType, tmp_path: Path) -> None:
    with pytest.raises(ScenarioError, match="no held-out scenario folder"):
        heldout.scenario_files(tmp_path / "absent")
    with pytest.raises(ScenarioError, match="holds no scenario file"):
        heldout.scenario_files(tmp_path)
    assert heldout.main(["--folder", str(tmp_path), "--out", str(tmp_path / "out")]) == 2


def test_the_configuration_was_fixed_before_the_scenarios(heldout: ModuleType) -> None:
    assert heldout.PRIMARY == ("conceder", "proactive")
    assert list(heldout.SEEDS) == [4000, 4001, 4002, 4003]
    assert heldout.TARGET == 0.60


def test_resampling_whole_scenarios_widens_the_interval(heldout: ModuleType) -> None:
    # half the scenarios always succeed, half never: the game-level Wilson interval is narrow, the
    # scenario-level one must span most of [0, 1]
    results = [_result(heldout, 4, 4) for _ in range(5)] + [_result(heldout, 0, 4) for _ in range(5)]
    low, high = heldout.bootstrap(results)
    assert low < 0.25 and high > 0.75
    assert heldout.bootstrap([]) == (0.0, 0.0)
    assert heldout.bootstrap([_result(heldout, 3, 4)] * 3) == (0.75, 0.75)


def test_the_verdict_line_counts_games_against_the_target(heldout: ModuleType) -> None:
    met = heldout.summary_line("x", [_result(heldout, 3, 4), _result(heldout, 3, 4)])
    assert "6 of 8 = 75.0%" in met and "**met**" in met
    missed = heldout.summary_line("x", [_result(heldout, 1, 4), _result(heldout, 3, 4)])
    assert "4 of 8" in missed and "**not met**" in missed
    assert heldout.summary_line("x", []) == "- x: no games"


def test_a_scenario_without_a_deal_good_for_all_is_set_apart(heldout: ModuleType) -> None:
    results = [_result(heldout, 4, 4), _result(heldout, 0, 4, feasible=0)]
    text = heldout.report([("conceder", "proactive", results)])
    assert "where a deal good for all exists: 4 of 4" in text
    assert "every scenario: 4 of 8" in text


def test_it_plays_a_folder_and_reruns_from_its_store(heldout: ModuleType, tmp_path: Path) -> None:
    folder = tmp_path / "scenarios"
    folder.mkdir()
    shutil.copy(SHIPPED / "office_move.yaml", folder / "office_move.yaml")
    out = tmp_path / "out"
    first = heldout.play_config([folder / "office_move.yaml"], "conceder", "none", out, 1)
    again = heldout.play_config([folder / "office_move.yaml"], "conceder", "none", out, 1)
    assert first == again
    (row,) = first
    assert row.games == len(heldout.SEEDS) and row.feasible > 0 and 0 <= row.good <= row.games
    assert row.rule == "unanimous" and row.parties == 3
