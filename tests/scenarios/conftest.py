"""Fixtures for scenario tests."""

from __future__ import annotations

import copy
from typing import Any

import pytest
from scenario_samples import BASE_SCENARIO


@pytest.fixture
def scenario_data() -> dict[str, Any]:
    """A fresh deep copy of the tiny valid scenario."""
    return copy.deepcopy(BASE_SCENARIO)
