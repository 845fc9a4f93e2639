"""Every registered negotiator passes `check_negotiator` (new agents are picked up automatically)."""

from __future__ import annotations

import pytest

from parley.agents import available, create
from parley.errors import ScenarioError
from parley.protocol import Negotiator
from parley.testing import check_negotiator
from parley.testing.conformance import CHECKS

# Agents that cannot be built without options; each is checked by the test named here instead.
CHECKED_ELSEWHERE = {
    "llm": "tests/llm/test_llm_conformance.py (with a scripted FakeLLM behind it)",
    "astra-llm": "tests/llm/test_astra_roles.py (with a scripted FakeLLM behind it)",
}


def test_only_known_agents_need_options() -> None:
    for name in available():
        if name in CHECKED_ELSEWHERE:
            with pytest.raises(ScenarioError):
                create(name, party="probe", seed=0)
        else:
            create(name, party="probe", seed=0)


@pytest.mark.parametrize("name", [n for n in available() if n not in CHECKED_ELSEWHERE])
def test_registered_negotiator_conforms(name: str) -> None:
    def factory(party: str, seed: int) -> Negotiator:
        return create(name, party=party, seed=seed)

    report = check_negotiator(factory)
    assert report.checks == CHECKS
    assert report.sessions == 3 * 3 * 7  # scenarios × seeds × (2 self-play + 3 scripted + 2 no-peeking)
    assert report.moves > 0
    assert sum(report.endings.values()) == report.sessions
