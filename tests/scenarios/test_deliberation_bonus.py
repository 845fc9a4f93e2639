"""p1's unanimity bonus as an `additive_bonus` utility: the YAML round trip, bad bonus blocks in a file,
and GENIUS/GeniusWeb exports that refuse it in one line."""

from __future__ import annotations

import copy
from dataclasses import replace
from pathlib import Path
from typing import Any

import numpy as np
import pytest
import yaml

from parley.domain.utility import AdditiveBonusUtility
from parley.errors import ScenarioError
from parley.scenarios.importers.deliberation import load_deliberation_game, parse_deal
from parley.scenarios.importers.genius_export import export_genius
from parley.scenarios.importers.geniusweb_export import export_geniusweb
from parley.scenarios.loader import scenario_from_data, scenario_from_yaml
from parley.scenarios.model import Scenario
from parley.scenarios.writer import scenario_to_data, scenario_to_yaml

HARBOUR = Path(__file__).resolve().parents[1] / "data" / "deliberation" / "harbour_bullets"


@pytest.fixture(scope="module")
def base() -> Scenario:
    return load_deliberation_game()


def _bonus_party(data: dict[str, Any]) -> dict[str, Any]:
    return next(p for p in data["parties"] if p["utility"]["type"] == "additive_bonus")


def test_the_bonus_round_trips_through_yaml_bit_for_bit(base: Scenario) -> None:
    text = scenario_to_yaml(base)
    again = scenario_from_yaml(text, "base.yaml")
    sportco, back = base.party("SportCo").utility, again.party("SportCo").utility
    assert isinstance(sportco, AdditiveBonusUtility) and isinstance(back, AdditiveBonusUtility)
    assert np.array_equal(back.region, sportco.region) and back.bonus == 10.0
    assert np.array_equal(back.evaluate_space(), sportco.evaluate_space())
    assert np.array_equal(back.additive.evaluate_space(), sportco.additive.evaluate_space())
    assert back.reservation_value == sportco.reservation_value == 55.0
    assert scenario_to_yaml(again) == text  # a second write changes nothing


def test_the_file_lists_the_score_lines_and_the_deals_that_earn_the_bonus(base: Scenario) -> None:
    block = _bonus_party(scenario_to_data(base))["utility"]
    assert list(block) == ["type", "weights", "values", "bonus", "bonus_outcomes"]
    assert block["values"]["Federal Loan"] == [35.0, 29.0, 20.0, 0.0]  # SportCo's score line D
    listed = block["bonus_outcomes"]
    assert len(listed) == int(base.party("SportCo").utility.region.sum()) == 49  # type: ignore[attr-defined]
    others = [p for p in base.parties if p.name != "SportCo"]
    assert all(all(p.utility.is_acceptable(outcome) for p in others) for outcome in listed)


def test_a_discounted_bonus_utility_round_trips(base: Scenario) -> None:
    data = scenario_to_data(base)
    _bonus_party(data)["discount"] = 0.9
    utility = scenario_from_data(data, "discounted.yaml").party("SportCo").utility
    assert isinstance(utility, AdditiveBonusUtility)
    assert utility.discount == utility.additive.discount == 0.9
    again = scenario_from_data(scenario_to_data(scenario_from_data(data)), "again.yaml")
    assert again.party("SportCo").utility.discount == 0.9


def _file_with(base: Scenario, change: Any) -> dict[str, Any]:
    data = copy.deepcopy(scenario_to_data(base))
    change(_bonus_party(data)["utility"])
    return data


def _bad_option(block: dict[str, Any], label: str) -> None:
    block["bonus_outcomes"][0]["Infrastructure Mix"] = label


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (
            lambda b: b["bonus_outcomes"].append(dict(b["bonus_outcomes"][0])),
            r"bonus_outcomes\[49\]: the same",
        ),
        (lambda b: b["bonus_outcomes"][0].pop("Federal Loan"), r"missing \['Federal Loan'\]"),
        (lambda b: b["bonus_outcomes"][0].update({"Harbour": "A1"}), r"unknown issue 'Harbour'"),
        (lambda b: _bad_option(b, "A9"), r"'A9' is not an option of issue 'Infrastructure Mix'"),
        (lambda b: _bad_option(b, "\u0410" + "1"), r"is not an option of issue"),  # Cyrillic А
        (lambda b: _bad_option(b, "A\u200b1"), r"is not an option of issue"),  # zero-width space
        (lambda b: _bad_option(b, True), r"expected an option of 'Infrastructure Mix', got bool"),
        (lambda b: b.update({"bonus": float("nan")}), r"utility\.bonus: expected a finite number"),
        (lambda b: b.update({"bonus": "ten"}), r"utility\.bonus: expected a number, got 'ten'"),
        (lambda b: b.pop("bonus"), r"utility\.bonus: required field is missing"),
        (lambda b: b.update({"bonus_outcomes": "all"}), r"bonus_outcomes: expected a list"),
        (
            lambda b: b.update({"bonus_outcome": []}),
            r"unknown key 'bonus_outcome' \(did you mean 'bonus_outcomes'",
        ),
        (lambda b: b["values"].update({"Federal Loan": [1.0]}), r"expected 4 values"),
    ],
)
def test_a_bad_bonus_block_is_one_line_naming_the_field(base: Scenario, change: Any, message: str) -> None:
    with pytest.raises(ScenarioError, match=message) as raised:
        scenario_from_data(_file_with(base, change), "game.yaml")
    assert "\n" not in str(raised.value) and "parties[3].utility" in str(raised.value)


def test_a_bonus_over_a_space_too_large_to_list_is_refused() -> None:
    data = {
        "name": "huge",
        "issues": [{"name": f"i{n}", "range": {"min": 0, "max": 99}} for n in range(4)],  # 10^8 outcomes
        "parties": [
            {
                "name": "a",
                "batna": 0,
                "utility": {"type": "additive_bonus", "bonus": 1, "bonus_outcomes": []},
            },
            {"name": "b", "batna": 0, "utility": {"type": "linear_additive"}},
        ],
    }
    with pytest.raises(ScenarioError, match=r"at most 1,000,000 outcomes, the space has 100,000,000"):
        scenario_from_data(data, "huge.yaml")


def test_an_empty_bonus_region_is_a_plain_sum(base: Scenario) -> None:
    data = _file_with(base, lambda b: b.update({"bonus_outcomes": []}))
    utility = scenario_from_data(data, "game.yaml").party("SportCo").utility
    assert isinstance(utility, AdditiveBonusUtility) and not utility.region.any()
    assert np.array_equal(utility.evaluate_space(), utility.additive.evaluate_space())


def test_a_yaml_file_with_the_bonus_loads_from_disk(base: Scenario, tmp_path: Path) -> None:
    path = tmp_path / "game.yaml"
    path.write_text(scenario_to_yaml(base), encoding="utf-8")
    again = scenario_from_yaml(path.read_text(encoding="utf-8"), str(path))
    deal = parse_deal("A2, B3, C1, D2, E1", again.space)  # listed first in the file: every other agrees
    assert again.party("SportCo").utility.evaluate(deal) == base.party("SportCo").utility.evaluate(deal)
    assert yaml.safe_load(path.read_text(encoding="utf-8"))["parties"][3]["utility"]["bonus"] == 10.0


@pytest.mark.parametrize("export", [export_genius, export_geniusweb], ids=["genius", "geniusweb"])
def test_genius_formats_refuse_the_bonus_in_one_line_and_write_nothing(
    export: Any, base: Scenario, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    with pytest.raises(ScenarioError, match=r"'SportCo' earns a bonus of 10 on 49 deals") as raised:
        export(base, tmp_path / "out")
    assert "export as yaml" in str(raised.value) and "\n" not in str(raised.value)
    assert not (tmp_path / "out").exists()
    assert not caplog.records  # refused before any party was rescaled (and logged)


@pytest.mark.parametrize("export", [export_genius, export_geniusweb], ids=["genius", "geniusweb"])
def test_a_game_without_the_bonus_still_exports(export: Any, tmp_path: Path) -> None:
    game = load_deliberation_game(HARBOUR)
    port = game.party("Port Authority").utility
    assert isinstance(port, AdditiveBonusUtility)
    parties = tuple(replace(p, utility=port.additive) if p.utility is port else p for p in game.parties)
    files = export(replace(game, parties=parties), tmp_path / "out")
    assert len(files) >= 4 and all(file.is_file() for file in files)
