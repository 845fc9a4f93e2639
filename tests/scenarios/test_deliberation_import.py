"""LLM-Deliberation games import generally; the shipped base game and its recorded run score as logged."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from parley.domain.utility import AdditiveBonusUtility, LinearAdditiveUtility
from parley.errors import ScenarioError
from parley.scenarios.importers.deliberation import (
    base_game_folder,
    load_deliberation_game,
    load_shipped_game,
    parse_deal,
    read_scores,
    recorded_final_deal,
    recorded_run_folder,
)

HISTORY = "history10_45_30.json"


def test_base_game_has_six_parties_five_issues_and_the_veto_rule() -> None:
    game = load_deliberation_game()
    assert len(game.parties) == 6
    assert game.space.shape == (3, 3, 4, 4, 5)
    assert game.space.names[0] == "Infrastructure Mix"
    assert game.rules.acceptance.required == 5
    assert set(game.rules.acceptance.vetoes) == {"SportCo", "Department of Tourism"}
    assert game.metadata["thresholds"] == {
        "Mayor": 30.0,
        "Other cities": 31.0,
        "Local Labour Union": 50.0,
        "SportCo": 55.0,
        "Department of Tourism": 65.0,
        "Environmental League": 55.0,
    }
    # The evaluator counts a party as agreeing above its minimum (whole scores: minimum + 1), p1 at it.
    batnas = {p.name: p.utility.reservation_value for p in game.parties}
    for party, threshold in game.metadata["thresholds"].items():
        strict = game.metadata["threshold_comparison"][party] == ">"
        assert batnas[party] == threshold + (1 if strict else 0)
    assert [p.name for p in game.parties if game.metadata["threshold_comparison"][p.name] == ">="] == [
        "SportCo"
    ]
    assert isinstance(game.party("SportCo").utility, AdditiveBonusUtility)  # the unanimity bonus
    assert all(isinstance(p.utility, LinearAdditiveUtility) for p in game.parties if p.name != "SportCo")
    assert game.metadata["initial_deal"]["Compensation to other cities"] == "E5"
    # 24 turns (4 per party), then SportCo's final deal suggestion: it proposes in rounds 1 and 25.
    assert game.metadata["turn_budget"]["turns"] == 24 and game.rules.max_rounds == 25
    order = game.rules.order(game.party_names)
    assert order[0] == "SportCo" == order[(game.rules.max_rounds - 1) % len(order)]


def test_scores_come_straight_from_the_score_files() -> None:
    game = load_deliberation_game()
    sportco = game.party("SportCo").utility
    deal = parse_deal("A1, B1, C4, D1, E5", game.space)
    # Read the score file itself and add up the named options.
    rows = read_scores(base_game_folder() / "scores_files" / "SportCo.txt").scores
    expected = rows[0][0] + rows[1][0] + rows[2][3] + rows[3][0] + rows[4][4]
    assert sportco.evaluate(deal) == pytest.approx(expected)


def test_recorded_run_final_deal_scores_as_the_log_says() -> None:
    game = load_deliberation_game(recorded_run_folder())
    history = recorded_run_folder() / HISTORY
    deal = parse_deal(recorded_final_deal(history), game.space)
    assert deal == parse_deal("A2, B2, C2, D2, E3", game.space)
    final = json.loads(history.read_text(encoding="utf-8"))["rounds"][-1]
    assert final["agent"] == "SportCo"
    # The proposer's scratchpad lists the score of each option of the deal and their sum.
    line = next(x for x in final["full_answer"].splitlines() if x.startswith("Adjusted Compromise"))
    claimed = {label: float(score) for label, score in re.findall(r"([A-E]\d) \((\d+)\)", line)}
    total = re.search(r"= (\d+)", final["full_answer"][final["full_answer"].index(line) :])
    assert total is not None
    rows = read_scores(recorded_run_folder() / "scores_files" / "SportCo.txt").scores
    assert sorted(claimed) == sorted(deal.values())
    for issue, label in deal.items():
        column = game.space.names.index(issue)
        assert rows[column][game.space.issues[column].index_of(label)] == claimed[label]
    # The Environmental League stays below its minimum (47 < 55): no unanimity, so no bonus for SportCo.
    assert game.party("Environmental League").utility.evaluate(deal) == 47.0
    sportco = game.party("SportCo").utility
    assert (
        sportco.evaluate(deal) == pytest.approx(float(total.group(1))) == pytest.approx(sum(claimed.values()))
    )


def test_recorded_run_uses_the_same_scores_as_the_base_game() -> None:
    base, recorded = load_deliberation_game(), load_deliberation_game(recorded_run_folder())
    text = "A2, B3, C3, D2, E4"
    for party in base.parties:
        mine = party.utility.evaluate(parse_deal(text, base.space))
        assert mine == recorded.party(party.name).utility.evaluate(parse_deal(text, recorded.space))


def _write_game(folder: Path, *, issues_text: bool = True) -> Path:
    (folder / "scores_files").mkdir(parents=True)
    (folder / "config.txt").write_text(
        "Port,port,p1,cooperative,m\nCity,city,player,cooperative,m\nFarm,farm,p2,greedy,m\n",
        encoding="utf-8",
    )
    scores = {"port": "10, 0\n0, 5, 9\n8", "city": "3, 6\n7, 2, 0\n5", "farm": "0, 4\n1, 1, 8\n6"}
    for stem, text in scores.items():
        (folder / "scores_files" / f"{stem}.txt").write_text(text, encoding="utf-8")
    if issues_text:
        (folder / "global_instructions.txt").write_text(
            'Intro.\nIssue A: "Dock size"\nA1 big\nA2 small\nIssue B: "Water"\nB1 x\n', encoding="utf-8"
        )
    return folder


def test_a_synthetic_second_game_imports(tmp_path: Path) -> None:
    game = load_deliberation_game(_write_game(tmp_path / "harbour"), name="harbour")
    assert game.name == "harbour"
    assert game.space.names == ("Dock size", "Water")
    assert game.space.shape == (2, 3)
    assert game.rules.acceptance.required == 2
    assert game.rules.acceptance.vetoes == ("Port", "Farm")
    deal = parse_deal("A1, B3", game.space)
    assert [p.utility.evaluate(deal) for p in game.parties] == [19.0, 3.0, 8.0]
    assert [p.utility.reservation_value for p in game.parties] == [8.0, 5.0, 6.0]


def test_issue_names_fall_back_when_instructions_are_missing(tmp_path: Path) -> None:
    game = load_deliberation_game(_write_game(tmp_path / "g", issues_text=False))
    assert game.space.names == ("Issue A", "Issue B")


def test_malformed_score_line_names_file_and_line(tmp_path: Path) -> None:
    folder = _write_game(tmp_path / "g")
    (folder / "scores_files" / "city.txt").write_text("3, 6\n7, x, 0\n5", encoding="utf-8")
    with pytest.raises(ScenarioError, match=r"city\.txt: line 2: expected numbers, got '7, x, 0'"):
        load_deliberation_game(folder)


def test_score_files_must_agree_in_shape(tmp_path: Path) -> None:
    folder = _write_game(tmp_path / "g")
    (folder / "scores_files" / "farm.txt").write_text("0, 4, 1\n1, 1, 8\n6", encoding="utf-8")
    with pytest.raises(ScenarioError, match=r"farm\.txt.*options per issue \[3, 3\], port\.txt has \[2, 3\]"):
        load_deliberation_game(folder)


def test_missing_config_names_the_file(tmp_path: Path) -> None:
    with pytest.raises(ScenarioError, match=r"config\.txt: file not found"):
        load_deliberation_game(tmp_path)


def test_bad_deal_labels_are_rejected() -> None:
    game = load_deliberation_game()
    with pytest.raises(ScenarioError, match="unknown option label 'Z9'"):
        parse_deal("A1, B1, C1, D1, Z9", game.space)
    with pytest.raises(ScenarioError, match="misses issues"):
        parse_deal("A1, B1", game.space)


def test_shipped_games_by_name() -> None:
    assert load_shipped_game("base").space.size == 720
    with pytest.raises(ScenarioError, match="unknown LLM-Deliberation game"):
        load_shipped_game("nope")
