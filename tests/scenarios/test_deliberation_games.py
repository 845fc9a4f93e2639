"""Games the importer had not seen: test games of several layouts (tests/data/deliberation/) and the
fixes they check — issue names however written, the game's own turn budget, p1's unanimity bonus, the
evaluator's threshold comparison, the licence per family — and bad game folders."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import numpy as np
import pytest

from parley.domain.utility import AdditiveBonusUtility, LinearAdditiveUtility
from parley.errors import ScenarioError
from parley.scenarios.importers.deliberation import (
    MAX_FILE_BYTES,
    SHIPPED_LICENCE,
    detect_family,
    load_deliberation_game,
    load_textarena_game,
    parse_deal,
    read_issue_names,
    read_scores,
    turn_budget,
)
from parley.scenarios.model import Scenario

DATA = Path(__file__).resolve().parents[1] / "data" / "deliberation"
HARBOUR = DATA / "harbour_bullets"
VALLEY = DATA / "valley_markdown"
RECORDED = DATA / "recorded_run"
CLINIC = DATA / "textarena_clinic"
SUPPLY = DATA / "ScorableGames" / "games_descriptions" / "supply"
GAMES = (HARBOUR, VALLEY, RECORDED, CLINIC, SUPPLY)


def scores(game: Scenario, deal: str) -> dict[str, float]:
    outcome = parse_deal(deal, game.space)
    return {party.name: party.utility.evaluate(outcome) for party in game.parties}


def passes(game: Scenario, deal: str) -> bool:
    """Whether the deal passes the game's acceptance rule, each party accepting at its BATNA or above."""
    outcome = parse_deal(deal, game.space)
    accepting = [p.name for p in game.parties if p.utility.evaluate(outcome) >= p.utility.reservation_value]
    return game.rules.acceptance.is_met(accepting, game.party_names)


# -- issue names -------------------------------------------------------------------------------------


def test_bulleted_issue_names_with_prose_after_them_are_the_real_names() -> None:
    game = load_deliberation_game(HARBOUR)
    # "- Issue A: "Dredging Depth" — how deep …", "- Issue B: Fishing Zones. Which …",
    # "- Issue C: Night Traffic (whether …)"
    assert game.space.names == ("Dredging Depth", "Fishing Zones", "Night Traffic")


def test_markdown_headings_a_name_on_the_next_line_and_a_name_in_brackets() -> None:
    game = load_deliberation_game(VALLEY)
    # "## Issue A:" then "Water Rights" on the next line; "**issue B (Grazing Land)** — who …"
    assert game.space.names == ("Water Rights", "Grazing Land")


@pytest.mark.parametrize(
    ("heading", "name"),
    [
        ('Issue A: "Infrastructure Mix"', "Infrastructure Mix"),
        ('- Issue A: "Infrastructure Mix" – whether facilities are built on land', "Infrastructure Mix"),
        ("* Issue A: Infrastructure Mix, which decides where we build", "Infrastructure Mix"),
        ("1. Issue A - Infrastructure Mix: land or water", "Infrastructure Mix"),
        ("### Issue A. Infrastructure Mix", "Infrastructure Mix"),
        ("> **Issue A:** “Infrastructure Mix” is the first issue", "Infrastructure Mix"),
        ("Issue A (Infrastructure Mix): where facilities go", "Infrastructure Mix"),
        ("ISSUE A: Infrastructure Mix; contested", "Infrastructure Mix"),
        ("Issue A: Infra\u200bstructure\u202e Mix", "Infrastructure Mix"),  # zero-width and bidi removed
        ("Issue A: Инфраструктура", "Инфраструктура"),
        ("Issue A: " + "word " * 40, ("word " * 16).strip()),  # runs into prose: cut at 80 characters
    ],
)
def test_issue_headings_in_many_forms(tmp_path: Path, heading: str, name: str) -> None:
    path = tmp_path / "global_instructions.txt"
    path.write_text(f"Intro text.\n{heading}\nA1 one\nIssue B: Second\n", encoding="utf-8")
    assert read_issue_names(path, 2) == [name, "Second"]


@pytest.mark.parametrize(
    "prose",
    ["Issue A is the hardest one.", "Issue A, however, matters less.", "The Issue A: later", "Issues A: no"],
)
def test_prose_that_mentions_an_issue_is_not_a_heading(tmp_path: Path, prose: str) -> None:
    path = tmp_path / "global_instructions.txt"
    path.write_text(f"{prose}\n", encoding="utf-8")
    assert read_issue_names(path, 1) == ["Issue A"]


def test_the_first_heading_of_a_letter_wins_and_missing_letters_fall_back(tmp_path: Path) -> None:
    path = tmp_path / "global_instructions.txt"
    path.write_text('Issue A: "First"\nIssue A: "Again"\nIssue C: Third\n', encoding="utf-8")
    assert read_issue_names(path, 3) == ["First", "Issue B", "Third"]


def test_two_issues_with_one_name_are_an_error(tmp_path: Path) -> None:
    path = tmp_path / "global_instructions.txt"
    path.write_text('Issue A: "Water"\nIssue B: Water\u200b\n', encoding="utf-8")
    with pytest.raises(ScenarioError, match=r"issues A and B are both called 'Water'"):
        read_issue_names(path, 2)


# -- the turn budget ---------------------------------------------------------------------------------


def test_the_round_limit_is_the_games_own_turn_budget_then_p1s_final_proposal() -> None:
    # LLM-Deliberation: the turns, then rounds up to the next one that is p1's (p1 opens the rotation).
    assert _turns_and_rounds(load_deliberation_game(HARBOUR)) == (12, 13)  # 4 turns × 3 parties
    assert _turns_and_rounds(load_deliberation_game(VALLEY)) == (28, 29)  # 4 turns × 7 parties
    assert _turns_and_rounds(load_deliberation_game(RECORDED)) == (10, 13)  # the run's 10 slots, 3 parties
    assert load_textarena_game(CLINIC).rules.max_rounds == 30  # 120 turns, 4 a round
    assert load_textarena_game(SUPPLY).rules.max_rounds == 60  # 120 turns, 2 a round
    assert "recorded run history_12_00_00.json" in turn_budget(RECORDED, "llm-deliberation", 3).source
    assert turn_budget(RECORDED, "llm-deliberation", 3).rounds == 10  # without p1 to close: the turns
    assert (
        "final deal suggestion (round 13)"
        in turn_budget(RECORDED, "llm-deliberation", 3, p1_closes=True).source
    )


def _turns_and_rounds(game: Scenario) -> tuple[int, int]:
    return game.metadata["turn_budget"]["turns"], game.rules.max_rounds


@pytest.mark.parametrize("path", [HARBOUR, VALLEY, RECORDED], ids=lambda p: p.name)
def test_p1_proposes_in_the_first_and_the_last_round(path: Path) -> None:
    game = load_deliberation_game(path)
    p1 = next(p.name for p in game.parties if p.role == "p1")
    order = game.rules.order(game.party_names)
    assert order[0] == p1 == order[(game.rules.max_rounds - 1) % len(order)]
    assert game.rules.max_rounds - game.metadata["turn_budget"]["turns"] in range(1, len(order) + 1)


def test_a_recorded_run_without_slots_is_an_error(tmp_path: Path) -> None:
    game = shutil.copytree(RECORDED, tmp_path / "run")
    (game / "history_12_00_00.json").write_text(json.dumps({"rounds": []}), encoding="utf-8")
    with pytest.raises(
        ScenarioError, match=r"history_12_00_00\.json: expected a non-empty 'slot_assignment'"
    ):
        load_deliberation_game(game)
    (game / "history_12_00_00.json").write_text("{not json", encoding="utf-8")
    with pytest.raises(ScenarioError, match=r"history_12_00_00\.json: not a recorded run"):
        load_deliberation_game(game)


# -- the unanimity bonus and the threshold comparison -----------------------------------------------


def test_p1_gets_ten_points_on_deals_every_other_party_agrees_with() -> None:
    game = load_deliberation_game(HARBOUR)
    port = game.party("Port Authority").utility
    assert isinstance(port, AdditiveBonusUtility)
    assert port.additive.evaluate(parse_deal("A1 B2 C1", game.space)) == 37.0  # the score lines alone
    # A1 B2 C1: the Port Authority scores 37 < 45; the guild (45 > 30) and the council (35 > 25) agree:
    # with the bonus, 47, and the deal passes.
    assert scores(game, "A1 B2 C1")["Port Authority"] == 47.0
    assert passes(game, "A1 B2 C1")
    # A2 B2 C2: nobody else agrees: no bonus.
    assert scores(game, "A2 B2 C2")["Port Authority"] == 35.0
    bonus = game.metadata["unanimity_bonus"]
    assert bonus == {"party": "Port Authority", "points": 10.0, "modelled": True}


def test_llm_deliberation_counts_agreement_strictly_above_the_minimum_except_for_p1() -> None:
    game = load_deliberation_game(HARBOUR)
    comparison = game.metadata["threshold_comparison"]
    assert comparison == {"Port Authority": ">=", "Fishers Guild": ">", "River Council": ">"}
    assert "evaluate_deals" in game.metadata["threshold_comparison_source"]
    # A2 B2 C1: the council scores exactly its minimum 25: it does not agree, and it holds a veto.
    assert scores(game, "A2 B2 C1")["River Council"] == 25.0
    assert not passes(game, "A2 B2 C1")
    # A1 B3 C1: the guild scores exactly 30: no unanimity, so no bonus (47, not 57), yet 2 of 3 pass.
    assert scores(game, "A1 B3 C1") == {"Port Authority": 47.0, "Fishers Guild": 30.0, "River Council": 37.0}
    assert passes(game, "A1 B3 C1")
    # A2 B3 C2: p1 at exactly its minimum 45 agrees (at or above).
    assert game.party("Port Authority").utility.reservation_value == 45.0
    assert scores(game, "A2 B3 C2")["Port Authority"] == 45.0


def test_textarena_counts_agreement_at_or_above_the_minimum() -> None:
    game = load_deliberation_game(HARBOUR, family="textarena")
    assert set(game.metadata["threshold_comparison"].values()) == {">="}
    assert "ScorableGames" in game.metadata["threshold_comparison_source"]
    assert passes(game, "A2 B2 C1")  # the council at exactly 25 agrees here
    assert scores(game, "A1 B3 C1")["Port Authority"] == 57.0  # the guild at 30 agrees: bonus


def test_the_bonus_is_ten_points_exactly_where_every_other_party_agrees() -> None:
    game = load_deliberation_game(VALLEY)
    dam = game.party("Dam Operator").utility
    others = [p for p in game.parties if p.name != "Dam Operator"]
    agree = np.all([p.utility.evaluate_space() >= p.utility.reservation_value for p in others], axis=0)
    rows = read_scores(VALLEY / "scores_files" / "dam.txt").scores
    sums = np.array([rows[0][a] + rows[1][b] for a in range(3) for b in range(3)])
    assert agree.any() and not agree.all()
    assert np.array_equal(dam.evaluate_space(), sums + 10.0 * agree)


def test_games_without_p1_have_no_bonus_and_no_vetoes() -> None:
    game = load_textarena_game(CLINIC)
    assert game.metadata["unanimity_bonus"] is None
    assert game.rules.acceptance.vetoes == ()
    assert game.rules.acceptance.required == 3
    assert all(isinstance(p.utility, LinearAdditiveUtility) for p in game.parties)


def test_fractional_scores_take_the_lowest_score_above_the_minimum(tmp_path: Path) -> None:
    game = shutil.copytree(HARBOUR, tmp_path / "g")
    (game / "scores_files" / "fishers.txt").write_text("10.5, 0\n30, 15.25, 0\n20, 5\n30\n", encoding="utf-8")
    fishers = load_deliberation_game(game).party("Fishers Guild").utility
    assert fishers.reservation_value == 30.5  # A1 B3 C1 = 10.5 + 0 + 20; next 30.75 (A1 B2 C2)


def test_a_party_that_can_agree_with_nothing_is_an_error(tmp_path: Path) -> None:
    game = shutil.copytree(HARBOUR, tmp_path / "g")
    (game / "scores_files" / "fishers.txt").write_text("10, 0\n30, 15, 0\n20, 5\n60\n", encoding="utf-8")
    with pytest.raises(ScenarioError, match=r"'Fishers Guild' agrees with no deal: .* above its minimum 60"):
        load_deliberation_game(game)
    assert (
        load_deliberation_game(game, family="textarena").party("Fishers Guild").utility.reservation_value
        == 60
    )


# -- families, licences, briefs ----------------------------------------------------------------------


def test_the_family_is_detected_from_the_layout() -> None:
    assert detect_family(HARBOUR) == "llm-deliberation"  # initial_deal.txt
    assert detect_family(RECORDED) == "llm-deliberation"  # a recorded run
    assert detect_family(CLINIC) == "textarena"  # neither
    assert detect_family(SUPPLY) == "textarena"  # under ScorableGames/, initial deal or not


def test_textarena_games_do_not_get_the_llm_deliberation_licence() -> None:
    clinic, supply = load_textarena_game(CLINIC), load_textarena_game(SUPPLY)
    for game in (clinic, supply):
        assert game.metadata["licence"] != SHIPPED_LICENCE
        assert "S-Abdelnabi/LLM-Deliberation), see" not in game.metadata["licence"]
    assert "TextArena" in clinic.metadata["licence"] and "not stated" in clinic.metadata["licence"]
    assert supply.metadata["licence"].startswith("MIT License (test fixture written for parley), see ")
    assert load_deliberation_game().metadata["licence"] == SHIPPED_LICENCE
    harbour = load_deliberation_game(HARBOUR).metadata["licence"]
    assert harbour.startswith("not stated") and "LLM-Deliberation" in harbour


def test_textarena_config_comments_and_blank_lines_are_skipped() -> None:
    game = load_textarena_game(CLINIC)
    assert game.party_names == ("Head Nurse", "Surgeon", "Administrator", "Patient Advocate")
    assert game.metadata["initial_deal"] is None
    assert game.name == "textarena-textarena_clinic"


def test_briefs_get_their_score_placeholders_filled() -> None:
    game = load_deliberation_game(HARBOUR)
    brief = game.party("Port Authority").brief
    assert "Issue A (max score 20): A1 (0), A2 (20)" in brief
    assert "Issue C (max score 22): C1 (22), C2 (0)" in brief
    assert "#" not in brief
    assert "C1 (10), C2 (0)" in game.party("River Council").brief  # greedy incentive folder


def test_p1_opens_the_game_and_the_others_follow_in_config_order() -> None:
    harbour = load_deliberation_game(HARBOUR)
    assert harbour.party_names == ("Fishers Guild", "Port Authority", "River Council")
    assert harbour.rules.proposer_order == ("Port Authority", "River Council", "Fishers Guild")
    assert load_deliberation_game(VALLEY).rules.proposer_order is None  # p1 is listed first already
    assert load_textarena_game(CLINIC).rules.proposer_order is None  # no p1


# -- bad game folders: one ScenarioError line naming the file ---------------------------------------


@pytest.fixture
def game(tmp_path: Path) -> Path:
    return shutil.copytree(HARBOUR, tmp_path / "game")


@pytest.mark.parametrize(
    ("file", "content", "message"),
    [
        ("config.txt", b"\xff\xfe not text\n", r"config\.txt: not UTF-8 text"),
        ("config.txt", b"Port,port\x00,p1,c,m\n", r"config\.txt: a binary file"),
        ("config.txt", b"", r"config\.txt: expected at least two parties, got 0"),
        ("config.txt", b"A,a,p1,c,m\nA,b,p2,c,m\n", r"config\.txt: line 2: party 'A' is named twice"),
        ("config.txt", b"A,../../x,p1,c,m\nB,b,p2,c,m\n", r"config\.txt: line 1: expected a file stem"),
        ("config.txt", b"A,a\n", r"config\.txt: line 1: expected 'name,file,role,incentive,model'"),
        ("scores_files/port.txt", b"0, 20\n", r"port\.txt: expected issue score lines and a threshold"),
        ("scores_files/port.txt", b"0, 20\n1, 2, 3\n0, x\n45\n", r"port\.txt: line 3: expected numbers"),
        ("scores_files/port.txt", b"0, nan\n5, 15, 25\n22, 0\n45\n", r"port\.txt: line 1: expected finite"),
        ("scores_files/port.txt", b"0, 20\n5, 15, 25\n22, 0\n45 46\n", r"port\.txt: last line must be one"),
        ("scores_files/port.txt", b"1\n" * 28, r"port\.txt: expected at most 26 issues, got 27"),
        ("scores_files/port.txt", b"0, 20, 9\n5, 15, 25\n22, 0\n45\n", r"port\.txt: scores file has options"),
        ("initial_deal.txt", b"A1, B9, C1\n", r"initial_deal\.txt: .*unknown option label 'B9'"),
        (
            "global_instructions.txt",
            b"\xc3\x28 broken",
            r"instructions\.txt: not UTF-8 text \(byte 1\)",
        ),
    ],
)
def test_a_broken_file_is_one_line_naming_it(game: Path, file: str, content: bytes, message: str) -> None:
    (game / file).write_bytes(content)
    with pytest.raises(ScenarioError, match=message) as raised:
        load_deliberation_game(game)
    assert "\n" not in str(raised.value)


def test_a_missing_scores_file_and_a_missing_folder(game: Path, tmp_path: Path) -> None:
    (game / "scores_files" / "port.txt").unlink()
    with pytest.raises(ScenarioError, match=r"port\.txt: file not found"):
        load_deliberation_game(game)
    with pytest.raises(ScenarioError, match=r"nowhere: expected a game folder"):
        load_deliberation_game(tmp_path / "nowhere")


def test_a_huge_file_is_refused_before_it_is_read(game: Path) -> None:
    with (game / "global_instructions.txt").open("ab") as file:
        file.truncate(MAX_FILE_BYTES + 1)
    with pytest.raises(ScenarioError, match=r"global_instructions\.txt: expected at most 2,097,152 bytes"):
        load_deliberation_game(game)


def test_a_folder_where_a_file_should_be(game: Path) -> None:
    (game / "scores_files" / "port.txt").unlink()
    (game / "scores_files" / "port.txt").mkdir()
    with pytest.raises(ScenarioError, match=r"port\.txt: expected a file, got a folder"):
        load_deliberation_game(game)


def test_an_unreadable_file(game: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    target = game / "scores_files" / "council.txt"
    original = Path.read_bytes

    def refuse(path: Path) -> bytes:
        if path == target:  # (as chmod 0 would, for anyone but root)
            raise PermissionError(13, "Permission denied", str(path))
        return original(path)

    monkeypatch.setattr(Path, "read_bytes", refuse)
    with pytest.raises(ScenarioError, match=r"council\.txt: cannot read the file: Permission denied"):
        load_deliberation_game(game)


def test_a_bom_and_windows_line_ends_are_read(game: Path) -> None:
    text = (game / "config.txt").read_text(encoding="utf-8").replace("\n", "\r\n")
    (game / "config.txt").write_bytes(b"\xef\xbb\xbf" + text.encode("utf-8"))
    assert load_deliberation_game(game).party_names[1] == "Port Authority"


def test_party_names_lose_invisible_characters(game: Path) -> None:
    text = (
        (game / "config.txt")
        .read_text(encoding="utf-8")
        .replace("Fishers Guild", "Fishers\u200b Guild\u2066")
    )
    (game / "config.txt").write_text(text, encoding="utf-8")
    assert load_deliberation_game(game).party_names[0] == "Fishers Guild"


@pytest.mark.parametrize("path", GAMES, ids=lambda p: p.name)
def test_every_test_game_loads_and_round_trips_through_yaml(path: Path) -> None:
    from parley.scenarios.loader import scenario_from_yaml
    from parley.scenarios.writer import scenario_to_yaml

    game = load_deliberation_game(path)
    again = scenario_from_yaml(scenario_to_yaml(game))
    assert again.space == game.space
    assert again.rules == game.rules
    for mine, theirs in zip(game.parties, again.parties, strict=True):
        assert type(theirs.utility) is type(mine.utility)  # p1's bonus stays a bonus, not a table
        assert np.array_equal(mine.utility.evaluate_space(), theirs.utility.evaluate_space())
        assert mine.utility.reservation_value == theirs.utility.reservation_value
    assert dict(again.metadata)["threshold_comparison"] == dict(game.metadata)["threshold_comparison"]
