"""The leave-one-scenario-out check of the multi-party target (benchmarks/generalisation_loso.py)."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType

import pytest

from parley.errors import ScenarioError

BENCHMARKS = Path(__file__).resolve().parents[2] / "benchmarks"


@pytest.fixture(scope="module")
def loso() -> ModuleType:
    sys.path.insert(0, str(BENCHMARKS))
    spec = importlib.util.spec_from_file_location(
        "generalisation_loso", BENCHMARKS / "generalisation_loso.py"
    )
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


def _games(loso: ModuleType, rates: dict[tuple[str, str], tuple[int, int]]) -> list[object]:
    games: list[object] = []
    for (scenario, mix), (good, total) in rates.items():
        games += [loso.Played(scenario, mix, i < good) for i in range(total)]
    return games


def test_a_fold_never_uses_the_left_out_scenario(loso: ModuleType) -> None:
    generated = _games(loso, {("gen", "base"): (8, 10), ("gen", "conceder"): (8, 10)})
    # conceder is better only thanks to scenario "b"; without "b" base is better
    shipped = _games(
        loso,
        {("a", "base"): (6, 8), ("b", "base"): (0, 8), ("a", "conceder"): (5, 8), ("b", "conceder"): (8, 8)},
    )
    settings = {"proactive": (generated, shipped)}
    assert loso.choose(settings, "b")[:2] == ("proactive", "base")
    assert loso.choose(settings, "a")[:2] == ("proactive", "conceder")


def test_the_worse_of_the_two_sets_decides(loso: ModuleType) -> None:
    strong_shipped = (_games(loso, {("gen", "linear"): (5, 10)}), _games(loso, {("a", "linear"): (8, 8)}))
    even = (_games(loso, {("gen", "linear"): (7, 10)}), _games(loso, {("a", "linear"): (6, 8)}))
    setting, mix, worst = loso.choose({"proactive(trial=1)": strong_shipped, "proactive(trial=2)": even}, "z")
    assert (setting, mix) == ("proactive(trial=2)", "linear") and worst == pytest.approx(0.7)


def test_no_mix_played_is_a_one_line_error(loso: ModuleType) -> None:
    settings = {"proactive": (_games(loso, {("gen", "random"): (1, 2)}), [])}
    with pytest.raises(ScenarioError, match="played none of the mixes"):
        loso.choose(settings, "a")


def test_a_missing_or_empty_sweep_is_refused(loso: ModuleType, tmp_path: Path) -> None:
    folder = tmp_path / "sweep"
    (folder / "mediator-sweep").mkdir(parents=True)
    with pytest.raises(ScenarioError):
        loso.read_sweep(folder / "elsewhere")
    with pytest.raises(ScenarioError, match="no mediated setting"):
        loso.read_sweep(folder)


def test_the_command_fails_in_one_line_without_a_sweep(
    loso: ModuleType, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert loso.main(["--sweep", str(tmp_path), "--split", "evaluation3", "--out", str(tmp_path / "o")]) == 2
    error = capsys.readouterr().err.strip().splitlines()
    assert len(error) == 1 and error[0].startswith("error: no mediator sweep")
