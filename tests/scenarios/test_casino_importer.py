"""CaSiNo importer: typed dialogue records, and parley's scoring reproduces the recorded points."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from parley.errors import ScenarioError
from parley.scenarios.importers.casino import (
    WALK_AWAY_POINTS,
    Dialogue,
    dialogue_to_scenario,
    load_dialogues,
)

CASINO = Path(__file__).resolve().parents[1] / "data" / "casino"
FILES = ("casino_valid.json", "casino_test.json")


@pytest.fixture(scope="module")
def dialogues() -> dict[str, list[Dialogue]]:
    return {name: load_dialogues(CASINO / name) for name in FILES}


def test_every_dialogue_is_read(dialogues: dict[str, list[Dialogue]]) -> None:
    assert [len(dialogues[name]) for name in FILES] == [30, 100]
    first = dialogues["casino_valid.json"][0]
    assert first.dialogue_id == 157
    agent_1 = first.participant("mturk_agent_1")
    assert agent_1.priorities == ("Firewood", "Food", "Water")
    assert agent_1.points_scored == 17
    assert first.utterances[0].act == "chat" and first.utterances[0].speaker == "mturk_agent_1"
    assert [u.act for u in first.utterances[-2:]] == ["Submit-Deal", "Accept-Deal"]
    assert first.deal is not None and first.deal.proposer == "mturk_agent_1"
    assert dict(first.deal.units["mturk_agent_1"]) == {"Food": 1, "Water": 1, "Firewood": 2}


def test_scoring_reproduces_points_for_every_deal(dialogues: dict[str, list[Dialogue]]) -> None:
    deals_per_file: dict[str, int] = {}
    for name in FILES:
        deals = 0
        for dialogue in dialogues[name]:
            if dialogue.deal is None:
                continue
            scenario = dialogue_to_scenario(dialogue)
            outcome = scenario.metadata["deal"]
            for party in scenario.parties:
                participant = dialogue.participant(party.name)
                recorded = participant.points_scored
                assert party.utility.evaluate(outcome) == recorded, (dialogue.dialogue_id, party.name)
                assert participant.points_for(dialogue.deal.units[party.name]) == recorded
            deals += 1
        deals_per_file[name] = deals
    assert deals_per_file == {"casino_valid.json": 30, "casino_test.json": 99}


def test_walk_aways_score_the_batna(dialogues: dict[str, list[Dialogue]]) -> None:
    walked = [d for name in FILES for d in dialogues[name] if d.walked_away_by is not None]
    assert len(walked) == 1
    for dialogue in walked:
        assert dialogue.deal is None
        scenario = dialogue_to_scenario(dialogue)
        assert scenario.metadata["ending"] == "walk_away"
        for party in scenario.parties:
            assert party.utility.reservation_value == WALK_AWAY_POINTS
            assert dialogue.participant(party.name).points_scored == WALK_AWAY_POINTS


def test_deal_is_the_submission_that_was_accepted(dialogues: dict[str, list[Dialogue]]) -> None:
    """Dialogues with a rejected offer take the later accepted one, seen from each side consistently."""
    with_rejections = [
        d for name in FILES for d in dialogues[name] if any(u.act == "Reject-Deal" for u in d.utterances)
    ]
    assert len(with_rejections) == 13  # 15 Reject-Deal acts in 13 dialogues
    for dialogue in with_rejections:
        if dialogue.deal is None:
            continue
        units = dialogue.deal.units
        first, second = (p.id for p in dialogue.participants)
        assert all(units[first][item] + units[second][item] == 3 for item in ("Food", "Water", "Firewood"))


def test_scenario_shape(dialogues: dict[str, list[Dialogue]]) -> None:
    dialogue = dialogues["casino_valid.json"][0]
    scenario = dialogue_to_scenario(dialogue)
    assert scenario.party_names == ("mturk_agent_1", "mturk_agent_2")
    assert scenario.space.names == ("food", "water", "firewood")
    assert scenario.party("mturk_agent_1").signals["priorities"] == ["firewood", "food", "water"]
    assert scenario.metadata["allocation"]["food"] == {"owner": "mturk_agent_1", "total": 3}
    assert scenario.metadata["points_scored"] == {"mturk_agent_1": 17, "mturk_agent_2": 19}
    assert "CC BY 4.0" in scenario.metadata["licence"]


def test_malformed_dialogue_names_the_entry(tmp_path: Path) -> None:
    raw = json.loads((CASINO / "casino_valid.json").read_text(encoding="utf-8"))[:2]
    del raw[1]["participant_info"]
    path = tmp_path / "broken.json"
    path.write_text(json.dumps(raw), encoding="utf-8")
    with pytest.raises(
        ScenarioError, match=r"broken\.json: \[1\]: malformed dialogue: missing key 'participant_info'"
    ):
        load_dialogues(path)


def test_not_json(tmp_path: Path) -> None:
    path = tmp_path / "notes.json"
    path.write_text("{not json", encoding="utf-8")
    with pytest.raises(ScenarioError, match="cannot read CaSiNo JSON"):
        load_dialogues(path)
