"""Every registered negotiator passes `check_negotiator` (new agents are picked up automatically)."""

from __future__ import annotations

import pytest

from parley.agents import available, create
from parley.errors import ScenarioError
from parley.protocol import Negotiator
from parley.testing import check_negotiator
from parley.testing.conformance import CHECKS


@pytest.mark.parametrize("name", list(available()))
def test_registered_negotiator_conforms(name: str) -> None:
    try:
        create(name, party="probe", seed=0)
    except ScenarioError as error:  # e.g. an LLM-backed agent with no LLM configured
        pytest.skip(f"{name} cannot be built without options: {error}")

    def factory(party: str, seed: int) -> Negotiator:
        return create(name, party=party, seed=seed)

    report = check_negotiator(factory)
    assert report.checks == CHECKS
    assert report.sessions == 3 * 3 * 7  # scenarios × seeds × (2 self-play + 3 scripted + 2 no-peeking)
    assert report.moves > 0
    assert sum(report.endings.values()) == report.sessions
