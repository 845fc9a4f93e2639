"""Golden transcript: one CaSiNo negotiation, ASTRA vs base (seed 0), with ASTRA's private traces.

Regenerate on purpose with PARLEY_UPDATE_GOLDEN=1 after an intended behaviour change.
"""

from __future__ import annotations

import os
from pathlib import Path

from parley.agents.astra import format_trace
from parley.experiments.runner import run_negotiation
from parley.scenarios import load_scenario

GOLDEN = Path(__file__).parent / "golden"


def _transcript() -> tuple[str, str]:
    result = run_negotiation(load_scenario("casino"), ["astra", "base"], seed=0)
    jsonl = result.trajectory.to_jsonl()
    text = "\n\n".join(
        format_trace(e.data) for e in result.trajectory if e.kind == "trace" and e.party == "A"
    )
    return jsonl, text + "\n"


def test_casino_astra_vs_base_matches_the_golden_transcript() -> None:
    jsonl, text = _transcript()
    files = {
        GOLDEN / "casino_astra_vs_base_seed0.jsonl": jsonl,
        GOLDEN / "casino_astra_vs_base_seed0.txt": text,
    }
    if os.environ.get("PARLEY_UPDATE_GOLDEN") == "1":
        for path, content in files.items():
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(content, encoding="utf-8")
    for path, content in files.items():
        assert path.exists(), f"missing golden file {path}; run with PARLEY_UPDATE_GOLDEN=1 to create it"
        assert content == path.read_text(encoding="utf-8"), (
            f"{path.name} changed; PARLEY_UPDATE_GOLDEN=1 to accept"
        )
    assert '"kind":"trace"' in jsonl and "Selected tactic" in text
