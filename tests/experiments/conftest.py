"""Fixtures for the experiment tests: a scenario file that validates but that no baseline can play."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml


@pytest.fixture
def unplayable_scenario(tmp_path: Path) -> Path:
    """12 issues × 20 options (4.1e15 outcomes): it validates, but the baselines cannot enumerate
    the space, so every game with them ends in a protocol violation in its first move."""
    issues = [{"name": f"i{k}", "options": [f"o{j}" for j in range(20)]} for k in range(12)]
    rising = [j / 19 for j in range(20)]
    falling = [1 - value for value in rising]
    document = {
        "name": "unplayable",
        "title": "Too large for the baselines",
        "issues": issues,
        "parties": [
            {
                "name": name,
                "batna": 0.1,
                "utility": {"type": "linear_additive", "values": {i["name"]: values for i in issues}},
            }
            for name, values in (("A", rising), ("B", falling))
        ],
    }
    path = tmp_path / "unplayable.yaml"
    path.write_text(yaml.safe_dump(document), encoding="utf-8")
    return path
