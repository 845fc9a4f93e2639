"""Small scenarios built in code, for conformance checks and tests (no files, no data sets needed)."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from parley.domain.issues import Issue
from parley.domain.space import OutcomeSpace
from parley.domain.utility import LinearAdditiveUtility, TableUtility
from parley.protocol.rules import Rules
from parley.scenarios.model import Party, Scenario

CASINO_ITEMS = ("food", "water", "firewood")
"""The three CaSiNo issues; each has 3 units to split."""
CASINO_POINTS = (5.0, 4.0, 3.0)
"""Points per unit for a high, medium and low priority item."""
CASINO_WALK_AWAY = 5.0
"""Points each side gets when nobody agrees."""


def casino_like_scenario(
    *,
    first_priorities: Sequence[str] = ("food", "water", "firewood"),
    second_priorities: Sequence[str] = ("water", "food", "firewood"),
    reservation: float = CASINO_WALK_AWAY,
    rules: Rules | None = None,
) -> Scenario:
    """A CaSiNo-style campsite split between "alice" and "bob".

    Each issue is how many of 3 units go to alice (bob gets the rest); a unit is worth 5, 4 or 3
    points to a party by the item's priority for it, so scores run from 0 to 36.

    Args:
        first_priorities: alice's items from most to least important.
        second_priorities: bob's items from most to least important.
        reservation: Each party's walk-away score (the BATNA).
        rules: Protocol rules (default: 20 rounds).
    """
    space = OutcomeSpace.of([Issue.integer_range(item, 0, 3) for item in CASINO_ITEMS])
    alice = LinearAdditiveUtility(
        space, _points(first_priorities), {i: [0, 1, 2, 3] for i in CASINO_ITEMS}, reservation
    )
    bob = LinearAdditiveUtility(
        space, _points(second_priorities), {i: [3, 2, 1, 0] for i in CASINO_ITEMS}, reservation
    )
    return Scenario(
        "casino-like",
        "Campsite supplies",
        "Two campers split 3 food, 3 water and 3 firewood packages.",
        space,
        (Party("alice", "camper", alice), Party("bob", "camper", bob)),
        rules or Rules(max_rounds=20),
    )


def _points(priorities: Sequence[str]) -> dict[str, float]:
    if sorted(priorities) != sorted(CASINO_ITEMS):
        raise ValueError(f"priorities must order {list(CASINO_ITEMS)}, got {list(priorities)}")
    return {item: points for item, points in zip(priorities, CASINO_POINTS, strict=True)}


def three_party_scenario(*, rules: Rules | None = None) -> Scenario:
    """Three parties ("ana", "ben", "cy") over three 4-option issues with partly opposed interests."""
    space = OutcomeSpace.of(
        [
            Issue.options("site", ["north", "east", "south", "west"]),
            Issue.integer_range("budget", 1, 4),
            Issue.integer_range("months", 3, 12, step=3),
        ]
    )
    rising, falling = [0.0, 1.0, 2.0, 3.0], [3.0, 2.0, 1.0, 0.0]
    ana = LinearAdditiveUtility(
        space, {"site": 3, "budget": 2, "months": 1}, {"site": rising, "budget": rising, "months": falling}, 6
    )
    ben = LinearAdditiveUtility(
        space,
        {"site": 1, "budget": 3, "months": 2},
        {"site": falling, "budget": falling, "months": rising},
        6,
    )
    cy = LinearAdditiveUtility(
        space,
        {"site": 2, "budget": 1, "months": 3},
        {"site": [1.0, 3.0, 2.0, 0.0], "budget": rising, "months": rising},
        5,
    )
    return Scenario(
        "three-party",
        "A shared facility",
        "Three partners choose a site, a budget level and a duration.",
        space,
        (Party("ana", "partner", ana), Party("ben", "partner", ben), Party("cy", "partner", cy)),
        rules or Rules(max_rounds=12),
    )


def table_scenario(seed: int = 0, *, reservation_share: float = 0.4, rules: Rules | None = None) -> Scenario:
    """Two parties with random, non-additive utility tables over a 4 × 3 × 2 space.

    Args:
        seed: Seed for the tables.
        reservation_share: Each BATNA as a share of the way from the party's worst to its best outcome.
        rules: Protocol rules (default: 10 rounds).
    """
    space = OutcomeSpace.of(
        [
            Issue.options("colour", ["red", "green", "blue", "grey"]),
            Issue.integer_range("size", 1, 3),
            Issue.options("express", ["no", "yes"]),
        ]
    )
    rng = np.random.default_rng(seed)
    parties: list[Party] = []
    for name in ("pat", "lee"):
        table = rng.integers(0, 20, size=space.size).astype(np.float64)
        reservation = float(table.min() + reservation_share * (table.max() - table.min()))
        parties.append(Party(name, "trader", TableUtility(space, table, reservation)))
    return Scenario(
        "table",
        "Odd tastes",
        "Two traders with idiosyncratic tastes agree on one order.",
        space,
        tuple(parties),
        rules or Rules(max_rounds=10),
    )


def conformance_scenarios() -> tuple[Scenario, ...]:
    """The default scenarios of `check_negotiator`: bilateral additive, bilateral table, three-party."""
    return (casino_like_scenario(), table_scenario(), three_party_scenario())
