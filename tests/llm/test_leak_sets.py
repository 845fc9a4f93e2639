"""The leak guard measured on labelled message sets (issue 16).

`leak_confusion(path)` reads a labelled set (tests/data/leaks/*.yaml: a scenario name and messages
with the speaker's per-package values, BATNA, a leak label and the text), builds each speaker's
private numbers from a real utility on the scenario's outcome space, runs `check_message` and
returns counts only. Tune on dev.yaml; the held-out file is measured once by the lead:

    .venv/bin/python tests/llm/test_leak_sets.py tests/data/leaks/dev.yaml
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any, cast

import pytest
import yaml

from parley.domain import OutcomeSpace
from parley.domain.utility import LinearAdditiveUtility
from parley.llm import PrivateNumbers, check_message
from parley.scenarios.catalog import load_scenario

DATA = Path(__file__).resolve().parents[1] / "data" / "leaks"


@dataclass(frozen=True, slots=True)
class Confusion:
    """Counts of one labelled set: leaks caught / missed, harmless messages flagged / passed."""

    caught: int
    missed: int
    flagged: int
    passed: int

    @property
    def recall(self) -> float:
        """Share of leaking messages the guard caught."""
        total = self.caught + self.missed
        return self.caught / total if total else 1.0

    @property
    def precision(self) -> float:
        """Share of flagged messages that really leak."""
        total = self.caught + self.flagged
        return self.caught / total if total else 1.0

    @property
    def false_positive_rate(self) -> float:
        """Share of harmless messages the guard flagged."""
        total = self.flagged + self.passed
        return self.flagged / total if total else 0.0


def private_numbers_for(
    scenario: str | OutcomeSpace, values: dict[str, float], batna: float
) -> PrivateNumbers:
    """The private numbers of a speaker who gets `values[issue]` points per package it takes."""
    space = load_scenario(scenario).space if isinstance(scenario, str) else scenario
    tables = {
        issue.name: [float(values.get(issue.name, 0.0)) * float(option) for option in issue.values]
        for issue in space.issues
    }
    return PrivateNumbers.of(LinearAdditiveUtility.from_tables(space, tables, batna))


def leak_confusion(path: str | Path) -> Confusion:
    """Run the guard over a labelled set and count leaks caught/missed and harmless flagged/passed."""
    document = cast(dict[str, Any], yaml.safe_load(Path(path).read_text(encoding="utf-8")))
    space = load_scenario(str(document["scenario"])).space
    caught = missed = flagged = passed = 0
    cache: dict[tuple[tuple[tuple[str, float], ...], float], PrivateNumbers] = {}
    for entry in cast(list[dict[str, Any]], document["messages"]):
        values = {str(k): float(v) for k, v in cast(dict[str, Any], entry["speaker_values"]).items()}
        batna = float(entry["batna"])
        key = (tuple(sorted(values.items())), batna)
        if key not in cache:
            cache[key] = private_numbers_for(space, values, batna)
        leaked = check_message(str(entry["text"]), cache[key]).leaked
        if bool(entry["leak"]):
            caught, missed = caught + leaked, missed + (not leaked)
        else:
            flagged, passed = flagged + leaked, passed + (not leaked)
    return Confusion(caught, missed, flagged, passed)


@pytest.fixture(scope="module")
def dev() -> Confusion:
    return leak_confusion(DATA / "dev.yaml")


def test_dev_set_is_large_enough_for_the_issue(dev: Confusion) -> None:
    assert dev.caught + dev.missed >= 100
    assert dev.flagged + dev.passed >= 100


def test_dev_set_floor(dev: Confusion) -> None:
    # Before the issue-16 redesign: 73 of 119 leaks caught, 29 of 123 harmless messages flagged.
    assert dev.recall >= 0.97, dev
    assert dev.false_positive_rate <= 0.02, dev


def test_confusion_counts_a_small_labelled_set(tmp_path: Path) -> None:
    labelled = tmp_path / "tiny.yaml"
    row = "{speaker_values: {food: 5, water: 4, firewood: 3}, batna: 6, "
    labelled.write_text(
        "scenario: casino\nmessages:\n"
        f'  - {row}leak: true, text: "Firewood is worth 3 points to me."}}\n'
        f'  - {row}leak: true, text: "Nice weather today."}}\n'
        f'  - {row}leak: false, text: "I will take 2 food."}}\n',
        encoding="utf-8",
    )
    assert leak_confusion(labelled) == Confusion(caught=1, missed=1, flagged=0, passed=1)


def test_held_out_set_floor() -> None:
    """tests/data/leaks/heldout.yaml, written blind before the change and measured once on 2026-11-25:
    113 of 119 leaks caught, 4 of 123 harmless messages flagged (the guard before the change: 72 and
    23). A regression floor at the measured values, compared as numbers (no held-out text printed)."""
    result = leak_confusion(Path(__file__).resolve().parents[1] / "data" / "leaks" / "heldout.yaml")
    caught, flagged = result.caught, result.flagged
    assert (result.caught + result.missed, result.flagged + result.passed) == (119, 123)
    assert caught >= 113
    assert flagged <= 4


if __name__ == "__main__":
    import sys

    for argument in sys.argv[1:]:
        result = leak_confusion(argument)
        print(
            f"{argument}: {result} recall {result.recall:.3f} precision {result.precision:.3f} "
            f"false positives {result.false_positive_rate:.3f}"
        )
