"""Golden transcript: one fixed bilateral baseline game must replay to the same bytes, forever.

When a change to the engine or the baselines alters the transcript on purpose, regenerate with
``PARLEY_UPDATE_GOLDEN=1 .venv/bin/pytest tests/protocol/test_golden.py`` and review the diff.
"""

from __future__ import annotations

import os
from pathlib import Path

from parley.agents.baselines import TimeBasedNegotiator
from parley.agents.baselines.concession import BOULWARE_EXPONENT, CONCEDER_EXPONENT
from parley.experiments.runner import party_seed
from parley.protocol import Session, SessionResult, replay
from parley.testing.scenarios import casino_like_scenario

GOLDEN = Path(__file__).parent / "golden" / "boulware_vs_conceder_casino_seed7.jsonl"
SEED = 7


def golden_game() -> SessionResult:
    scenario = casino_like_scenario()
    negotiators = {
        "alice": TimeBasedNegotiator("alice", party_seed(SEED, 0), exponent=BOULWARE_EXPONENT),
        "bob": TimeBasedNegotiator("bob", party_seed(SEED, 1), exponent=CONCEDER_EXPONENT),
    }
    metadata = {"scenario": scenario.name, "seed": SEED, "agents": {"alice": "boulware", "bob": "conceder"}}
    return Session(scenario.space, scenario.setups(), negotiators, scenario.rules, metadata=metadata).run()


def test_golden_transcript() -> None:
    transcript = golden_game().trajectory.to_jsonl()
    if os.environ.get("PARLEY_UPDATE_GOLDEN") == "1":
        GOLDEN.parent.mkdir(parents=True, exist_ok=True)
        GOLDEN.write_text(transcript, encoding="utf-8")
    expected = GOLDEN.read_text(encoding="utf-8")
    assert transcript == expected, (
        f"transcript differs from {GOLDEN.name}; if the change is intended, rerun with PARLEY_UPDATE_GOLDEN=1"
    )


def test_golden_game_reaches_a_clean_deal_and_replays() -> None:
    result = golden_game()
    assert result.agreement is not None
    assert result.agreement.is_clean
    scenario = casino_like_scenario()
    again = replay(result.trajectory, scenario.space, scenario.setups(), scenario.rules)
    assert again.trajectory.to_jsonl() == GOLDEN.read_text(encoding="utf-8")
