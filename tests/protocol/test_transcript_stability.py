"""Transcripts are byte-identical across processes, whatever Python's string-hash seed."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap

import pytest

_SCRIPT = textwrap.dedent(
    """
    from parley.domain import Issue, LinearAdditiveUtility, OutcomeSpace
    from parley.protocol.actions import Accept, Propose
    from parley.protocol.session import PartySetup, Session

    space = OutcomeSpace.of([Issue.integer_range("x", 0, 3), Issue.integer_range("y", 0, 3)])
    names = ["zeta", "alpha", "mid", "omega"]
    setups = [
        PartySetup(name, LinearAdditiveUtility(space, {"x": 1.0, "y": 1.0},
                   {"x": [0, 1, 2, 3], "y": [0, 1, 2, 3]}, reservation_value=5.0 + i))
        for i, name in enumerate(names)
    ]

    class Opener:
        def act(self, view):
            return Propose({"x": 0, "y": 1}) if view.round == 1 else Accept()

    class Yes:
        def act(self, view):
            return Accept()

    negotiators = {name: (Opener() if i == 0 else Yes()) for i, name in enumerate(names)}
    result = Session(space, setups, negotiators).run()
    assert result.agreement is not None and len(result.agreement.violations) == 4
    print(result.trajectory.to_jsonl(), end="")
    """
)


def _transcript(hash_seed: str) -> str:
    environment = {**os.environ, "PYTHONHASHSEED": hash_seed}
    completed = subprocess.run(
        [sys.executable, "-c", _SCRIPT],
        capture_output=True,
        text=True,
        env=environment,
        check=True,
        timeout=120,
    )
    return completed.stdout


@pytest.mark.e2e
def test_batna_violations_are_recorded_in_party_order_in_every_process() -> None:
    transcripts = {_transcript(seed) for seed in ("0", "1", "2", "3")}
    assert len(transcripts) == 1
    violations = [line for line in transcripts.pop().splitlines() if '"kind":"batna_violation"' in line]
    assert [line.split('"party":"')[1].split('"')[0] for line in violations] == [
        "zeta",
        "alpha",
        "mid",
        "omega",
    ]
