"""The LLM-Deliberation comparison of `parley experiment promediate`: the rule variants it plays and the
report section it writes."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from parley.domain.utility import AdditiveBonusUtility, LinearAdditiveUtility
from parley.experiments.deliberation import (
    ALL_UNDONE,
    AS_IMPORTED,
    RULE_VARIANTS,
    deliberation_section,
    played_as,
    run_deliberation,
    variant_findings,
)
from parley.scenarios.importers.deliberation import load_deliberation_game
from parley.scenarios.model import Scenario


@pytest.fixture(scope="module")
def game() -> Scenario:
    return load_deliberation_game()


def variant(label: str) -> Any:
    return next(v for v in RULE_VARIANTS if v.label == label)


def test_as_imported_is_the_game_itself(game: Scenario) -> None:
    assert played_as(game, variant(AS_IMPORTED)) is game


def test_each_variant_undoes_exactly_its_own_choice(game: Scenario) -> None:
    imported = game.party("SportCo").utility
    assert isinstance(imported, AdditiveBonusUtility)
    without_bonus = played_as(game, variant("without p1's +10 bonus"))
    assert isinstance(without_bonus.party("SportCo").utility, LinearAdditiveUtility)
    assert without_bonus.rules == game.rules
    at_minimum = played_as(game, variant("every party agrees at ≥ its minimum"))
    assert {p.name: p.utility.reservation_value for p in at_minimum.parties} == game.metadata["thresholds"]
    widened = at_minimum.party("SportCo").utility
    assert isinstance(widened, AdditiveBonusUtility)
    assert np.all(widened.region >= imported.region) and widened.region.sum() > imported.region.sum()
    config_order = played_as(game, variant("config order (p1 does not open)"))
    assert config_order.rules.proposer_order is None and config_order.rules.max_rounds == 25
    budget = played_as(game, variant("turn budget only (p1 does not close)"))
    assert budget.rules.max_rounds == 24 and budget.rules.proposer_order == game.rules.proposer_order
    undone = played_as(game, variant(ALL_UNDONE))
    assert (undone.rules.max_rounds, undone.rules.proposer_order) == (24, None)
    assert all(isinstance(p.utility, LinearAdditiveUtility) for p in undone.parties)
    assert undone.party("Mayor").utility.reservation_value == 30.0


def test_the_section_states_the_rules_and_every_variant() -> None:
    rows = run_deliberation(1, {"base ×6": ("base",) * 6})
    assert len(rows) == len(RULE_VARIANTS) + 1  # the import twice (with and without the mediator)
    text = "\n".join(deliberation_section(rows))
    assert "5 of 6 must accept, SportCo and Department of Tourism holding vetoes" in text
    assert "for 25 rounds (the game's 24 turns, then SportCo's final proposal)" in text
    assert "SportCo earns +10 on every deal all the other parties agree with" in text
    for rule in RULE_VARIANTS:
        assert f"| {rule.label} |" in text
    assert "agreement rate [95% Wilson]" in text and "NaN" not in text


def test_findings_say_when_no_single_change_moves_a_rate() -> None:
    rows = [
        {"mix": "m", "mediated": False, "seed": s, "agreement": False, "variant": rule.label}
        for rule in RULE_VARIANTS
        for s in range(10)
    ]
    assert variant_findings(rows) == [
        "m: 0.00 as imported, 0.00 with all four choices undone; no single change moves it."
    ]
    for row in rows[10:20] + rows[50:57]:  # without the bonus: 10 of 10; all four undone: 7 of 10
        row["agreement"] = True
    (finding,) = variant_findings(rows)
    assert "0.70 with all four choices undone" in finding
    assert (
        "the largest single change is without p1's +10 bonus: 1.00 (+100 points; intervals separate)"
        in finding
    )
    for row in rows[10:18]:  # 2 of 10 without the bonus: its interval meets the import's
        row["agreement"] = False
    assert "without p1's +10 bonus: 0.20 (+20 points; intervals overlap)" in variant_findings(rows)[0]
