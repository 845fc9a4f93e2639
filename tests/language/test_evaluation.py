"""The CaSiNo accuracy measurement: its definitions on a tiny corpus, and a regression floor on real data."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from parley.errors import ScenarioError
from parley.language.evaluation import evaluate_casino, states_quantities

VALID = Path(__file__).parents[1] / "data" / "casino" / "casino_valid.json"
AGENT_1, AGENT_2 = "mturk_agent_1", "mturk_agent_2"


def turn(speaker: str, text: str, task_data: dict[str, Any] | None = None) -> dict[str, Any]:
    return {"id": speaker, "text": text, "task_data": task_data or {}}


def participants() -> dict[str, Any]:
    return {
        AGENT_1: {"value2issue": {"High": "Firewood", "Medium": "Water", "Low": "Food"}},
        AGENT_2: {"value2issue": {"High": "Food", "Medium": "Water", "Low": "Firewood"}},
    }


def tiny_corpus(tmp_path: Path) -> Path:
    deal = {
        "issue2youget": {"Firewood": "3", "Water": "1", "Food": "0"},
        "issue2theyget": {"Firewood": "0", "Water": "2", "Food": "3"},
    }
    dialogue = {
        "dialogue_id": 5,
        "participant_info": participants(),
        "chat_logs": [
            turn(AGENT_1, "Firewood is my top priority, I don't need food."),
            turn(AGENT_2, "What do you need most?"),
            turn(AGENT_1, "I take all 3 firewood and 1 water, you get the rest."),
            turn(AGENT_2, "Food matters most to me. Fine."),
            turn(AGENT_1, "Submit-Deal", deal),
            turn(AGENT_2, "Accept-Deal", {"data": "accept_deal"}),
        ],
        "annotations": [
            ["Firewood is my top priority, I don't need food.", "self-need,no-need"],
            ["What do you need most?", "elicit-pref"],
        ],
    }
    path = tmp_path / "tiny.json"
    path.write_text(json.dumps([dialogue]))
    return path


def test_definitions_on_a_tiny_corpus(tmp_path: Path) -> None:
    result = evaluate_casino(tiny_corpus(tmp_path))
    assert [case.text for case in result.submitter_deals] == [
        "I take all 3 firewood and 1 water, you get the rest."
    ]
    assert result.deal_accuracy(result.submitter_deals).hits == 1
    assert [case.speaker for case in result.either_deals] == [AGENT_1]  # agent 2 names no quantity
    assert [(c.kind, c.read, c.correct) for c in result.priorities] == [
        ("top", "firewood", True),
        ("least", "food", True),
        ("top", "food", True),
    ]
    assert {k: (r.hits, r.total) for k, r in result.annotation_recall.items()} == {
        "elicit-pref": (1, 1),
        "no-need": (1, 1),
        "self-need": (1, 1),
    }


def test_selector_needs_an_item_and_a_quantity() -> None:
    assert states_quantities("I can give you 2 water")
    assert not states_quantities("I can give you 2 of them")
    assert not states_quantities("water is great")


def test_unreadable_corpus_is_reported(tmp_path: Path) -> None:
    path = tmp_path / "bad.json"
    path.write_text('{"not": "a list"}')
    with pytest.raises(ScenarioError, match=r"bad\.json: expected a JSON list of dialogues"):
        evaluate_casino(path)


def test_accuracy_on_the_validation_file_does_not_regress() -> None:
    """Floors are the numbers measured on casino_valid.json (docs/results/language.md) minus a margin."""
    result = evaluate_casino(VALID)
    submitter, either = result.submitter_deals, result.either_deals
    assert (len(submitter), len(either)) == (27, 29)
    assert result.deal_accuracy(submitter).hits >= 9  # measured 10/27
    assert result.deal_precision(submitter).value >= 0.75  # measured 10/12
    assert result.deal_accuracy(either).hits >= 13  # measured 14/29
    top = result.priority_precision("top")
    assert top.total >= 40 and top.value >= 0.65  # measured 33/47 = 0.70
    assert result.priority_precision("top", explicit_only=True).value >= 0.8  # measured 13/15
    assert result.annotation_recall["self-need"].value >= 0.55  # measured 9/14
    assert result.annotation_recall["elicit-pref"].value >= 0.75  # measured 7/8


@pytest.mark.e2e
def test_benchmark_script_prints_the_measurement() -> None:
    import subprocess
    import sys

    root = Path(__file__).parents[2]
    completed = subprocess.run(
        [sys.executable, str(root / "benchmarks" / "language_accuracy.py"), str(VALID), "--failures", "2"],
        capture_output=True,
        text=True,
        check=True,
        timeout=120,
    )
    assert "deals (submitter): accuracy " in completed.stdout and "(evaluation " in completed.stdout
    assert completed.stdout.count("  DEAL ") == 2
