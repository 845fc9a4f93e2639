"""A small valid scenario, as data, shared by the scenario tests (and a helper to write YAML)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import yaml

BASE_SCENARIO: dict[str, Any] = {
    "name": "tiny",
    "title": "A tiny test scenario",
    "description": "Two parties split three crates and pick a price and a colour.",
    "issues": [
        {"name": "price", "options": ["low", "mid", "high"], "description": "Price band."},
        {"name": "colour", "options": ["red", "green", "blue"]},
        {"name": "crates", "range": {"min": 0, "max": 3}, "allocated_to": "A"},
    ],
    "parties": [
        {
            "name": "A",
            "role": "buyer",
            "batna": 2.0,
            "utility": {
                "type": "linear_additive",
                "weights": {"price": 2.0, "colour": 1.0},
                "values": {
                    "price": [3, 2, 0],
                    "colour": {"red": 1, "green": 2, "blue": 0},
                    "crates": {"per_unit": 1},
                },
            },
            "brief": "You are buying.",
            "signals": {"priorities": ["price", "crates"], "must_haves": {"colour": ["red", "green"]}},
        },
        {
            "name": "B",
            "role": "seller",
            "batna": 1.0,
            "utility": {
                "type": "linear_additive",
                "values": {
                    "price": [0, 2, 3],
                    "colour": [0, 1, 2],
                    "crates": {"per_unit": 2, "complement_of": 3},
                },
            },
            "persona": {"persona": "greedy"},
        },
    ],
    "protocol": {"max_rounds": 10, "stagnation": {"rounds": 4, "epsilon": 0.0, "on_stagnation": "walk"}},
    "metadata": {"origin": "tests"},
}


def write_yaml(path: Path, data: Any) -> Path:
    """Dump data to path as YAML and return the path."""
    path.write_text(yaml.safe_dump(data, sort_keys=False), encoding="utf-8")
    return path
