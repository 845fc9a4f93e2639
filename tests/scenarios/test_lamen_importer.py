"""LAMEN importer: every shipped game imports, payoffs match the source tables, other games import too."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from parley.errors import ScenarioError
from parley.scenarios import load_scenario
from parley.scenarios.importers.lamen import (
    data_root,
    import_lamen_game,
    lamen_game_names,
    read_lamen_issue,
)

UPSTREAM = Path("/work/shared/data/lamen")


def test_every_game_file_is_shipped_and_imports() -> None:
    root = data_root()
    assert (root / "LICENSE.txt").is_file()
    game_files = {path.name for path in (root / "games").glob("*.yaml")}
    manifest = yaml.safe_load(
        (root.parent.parent / "importers" / "lamen_games.yaml").read_text(encoding="utf-8")
    )
    assert {Path(entry["game"]).name for entry in manifest.values()} == game_files
    for name in lamen_game_names():
        scenario = load_scenario(f"lamen/{name}")
        assert scenario.is_bilateral
        assert all(party.utility.reservation_value == 0 for party in scenario.parties)


def test_every_issue_file_imports() -> None:
    for path in sorted((data_root() / "issues").glob("*.yaml")):
        issue = read_lamen_issue(path)
        assert len(issue.payoffs[0]) == len(issue.payoffs[1]) == issue.issue.cardinality


@pytest.mark.skipif(not UPSTREAM.is_dir(), reason="upstream copy not available")
def test_shipped_copy_is_verbatim() -> None:
    for source in UPSTREAM.rglob("*"):
        if source.is_file():
            assert (data_root() / source.relative_to(UPSTREAM)).read_bytes() == source.read_bytes()


def test_rio_copa_payoffs_match_the_tables() -> None:
    scenario = load_scenario("lamen/rio_copa")
    cpc, rio = scenario.parties
    assert (cpc.name, rio.name) == ("CPC", "Rio Copa Foods")
    # rp_financing: 25M now → CPC 1250, Rio 500; rp_family_employees: 5 employees → 500 / 1250;
    # rp_non_compete_period: 5 years → 750 / 750; rp_contingent_liability: 50 percent → 250 / 250.
    middle = {
        "financing terms": "25 million now",
        "family employees": "5 employees",
        "non-compete period": "5 years",
        "contingent liability": "50 percent",
    }
    assert (cpc.utility.evaluate(middle), rio.utility.evaluate(middle)) == (2750, 2750)
    # 20M now (2500 / 0), 0 employees (1000 / 0), 10 years (1500 / 0), 100 percent (500 / 500).
    cpc_best = {
        "financing terms": "20 million now",
        "family employees": "0 employees",
        "non-compete period": "10 years",
        "contingent liability": "100 percent",
    }
    assert (cpc.utility.evaluate(cpc_best), rio.utility.evaluate(cpc_best)) == (5500, 500)
    assert scenario.metadata["issue_types"]["family employees"] == "integrative"


def test_hotel_labels_are_aligned_across_sides() -> None:
    """The tourist's labels run in reverse order (with a "$000" typo for "$800") in room_price.yaml."""
    scenario = load_scenario("lamen/hotel")
    hotel, tourist = scenario.parties
    assert scenario.space.issue("room_price").values[0] == "$100"
    assert (
        hotel.utility.evaluate({"room_price": "$100"}),
        tourist.utility.evaluate({"room_price": "$100"}),
    ) == (0, 9)
    assert (
        hotel.utility.evaluate({"room_price": "$800"}),
        tourist.utility.evaluate({"room_price": "$800"}),
    ) == (7, 2)
    assert scenario.metadata["label_repairs"] == ["label '$000' of side 2 read as '$800'"]


def test_weights_scale_raw_payoffs() -> None:
    scenario = load_scenario("lamen/generic_merger")
    company_a, company_b = scenario.parties
    # gen-m-employees (side 2 row wrapped in an extra list upstream), weighted 2 for Company B.
    outcome = {"benefits": "50%", "control": "5-5", "employees": "25%-75%", "ownership": "50%"}
    assert company_a.utility.evaluate(outcome) == 5 + 2 * 5 + 0 + 5
    assert company_b.utility.evaluate(outcome) == 5 + 5 + 2 * 10 + 5


def _write(path: Path, data: object) -> Path:
    path.write_text(yaml.safe_dump(data), encoding="utf-8")
    return path


def test_another_game_in_the_same_format_imports(tmp_path: Path) -> None:
    game = _write(
        tmp_path / "pizza.yaml",
        {
            "name": "pizza",
            "description": "Alice and Bob split a pizza.",
            "sides": ["You are Alice.", "You are Bob."],
            "parties": ["Alice", "Bob"],
        },
    )
    slices = _write(
        tmp_path / "slices.yaml",
        {
            "name": "slices",
            "issue_type": "distributive",
            "descriptions": ["Slices for Alice.", "Slices for Alice."],
            "payoffs": [[0, 1, 2], [2, 1, 0]],
            "payoff_labels": [["0", "1", "2"], ["0", "1", "2"]],
        },
    )
    scenario = import_lamen_game(game, [slices], weights=[[3], [1]])
    assert scenario.name == "pizza" and scenario.party_names == ("Alice", "Bob")
    assert [p.utility.evaluate({"slices": "2"}) for p in scenario.parties] == [6, 0]
    assert "Slices for Alice." in scenario.party("Bob").brief


def test_bad_issue_file_names_file_and_field(tmp_path: Path) -> None:
    bad = _write(
        tmp_path / "bad.yaml",
        {
            "name": "x",
            "descriptions": ["a", "b"],
            "payoffs": [[0, 1], [1]],
            "payoff_labels": [["a", "b"], ["a", "b"]],
        },
    )
    with pytest.raises(
        ScenarioError, match=r"bad\.yaml: payoffs\[1\]: expected 2 payoffs \(one per label\), got 1"
    ):
        read_lamen_issue(bad)
    unmatched = _write(
        tmp_path / "labels.yaml",
        {
            "name": "x",
            "descriptions": ["a", "b"],
            "payoffs": [[0, 1, 2], [2, 1, 0]],
            "payoff_labels": [["a", "b", "c"], ["a", "y", "z"]],
        },
    )
    with pytest.raises(
        ScenarioError, match=r"payoff_labels\[1\]: side 2 has no labels \['b', 'c'\] of side 1"
    ):
        read_lamen_issue(unmatched)
    missing = _write(
        tmp_path / "missing.yaml", {"name": "x", "payoffs": [[0], [0]], "payoff_labels": [["a"], ["a"]]}
    )
    with pytest.raises(ScenarioError, match=r"missing\.yaml: descriptions: required field is missing"):
        read_lamen_issue(missing)


def test_unknown_game() -> None:
    with pytest.raises(ScenarioError, match="unknown LAMEN game 'chess'; shipped: car_dealership"):
        load_scenario("lamen/chess")
