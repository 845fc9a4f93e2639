"""Shared test fixtures: small scenarios built in code, and a hypothesis profile for a busy machine."""

from __future__ import annotations

import os

import pytest
from hypothesis import HealthCheck, settings

from parley.scenarios.model import Scenario
from parley.testing.scenarios import casino_like_scenario, table_scenario, three_party_scenario

# Shared CI machines are slow and noisy: never fail a property test on wall-clock time.
settings.register_profile("parley", deadline=None, suppress_health_check=[HealthCheck.too_slow])
# CI replays a fixed set of examples so a run cannot fail by luck; local runs keep exploring.
settings.register_profile("ci", parent=settings.get_profile("parley"), derandomize=True)
settings.load_profile("ci" if os.environ.get("CI") else "parley")


@pytest.fixture
def casino() -> Scenario:
    """A CaSiNo-like bilateral campsite split (alice vs bob, scores 0..36, BATNA 5)."""
    return casino_like_scenario()


@pytest.fixture
def three_party() -> Scenario:
    """Three parties (ana, ben, cy) over a 4 × 4 × 4 space."""
    return three_party_scenario()


@pytest.fixture
def table() -> Scenario:
    """Two parties with random non-additive utility tables."""
    return table_scenario()
