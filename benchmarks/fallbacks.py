"""Bench-local stand-ins: a CaSiNo scenario and a minimal time-based negotiator.

Used when parley's registered `boulware` / `conceder` or shipped `casino` are missing, and as a
labelled reference row showing what an agent built on the domain's memory-lean calls
(`RankedOutcomes`, `OutcomeSpace.outcome`) costs on a 10^6-outcome space.
"""

from __future__ import annotations

from parley.domain import Issue, LinearAdditiveUtility, OutcomeSpace, RankedOutcomes
from parley.protocol.actions import Accept, Action, Propose
from parley.protocol.rules import Rules
from parley.protocol.view import PartyView
from parley.scenarios.model import Party, Scenario

CASINO_ITEMS = ("food", "water", "firewood")
CASINO_POINTS = (5.0, 4.0, 3.0)  # per unit for a High / Medium / Low priority item (CaSiNo)
CASINO_WALK_AWAY_POINTS = 5.0


def casino_scenario(max_rounds: int = 20) -> Scenario:
    """Bench-local CaSiNo: 3 items × 3 units; options are the units the first party receives."""
    space = OutcomeSpace.of([Issue.integer_range(item, 0, 3) for item in CASINO_ITEMS])
    first_priorities = {"food": 0, "water": 1, "firewood": 2}
    second_priorities = {"water": 0, "firewood": 1, "food": 2}
    first = LinearAdditiveUtility(
        space,
        {item: CASINO_POINTS[rank] for item, rank in first_priorities.items()},
        {item: [0.0, 1.0, 2.0, 3.0] for item in CASINO_ITEMS},
        CASINO_WALK_AWAY_POINTS,
    )
    second = LinearAdditiveUtility(
        space,
        {item: CASINO_POINTS[rank] for item, rank in second_priorities.items()},
        {item: [3.0, 2.0, 1.0, 0.0] for item in CASINO_ITEMS},
        CASINO_WALK_AWAY_POINTS,
    )
    return Scenario(
        "casino-bench",
        "CaSiNo campsite (bench-local)",
        "Split 3 food, 3 water and 3 firewood packages.",
        space,
        (Party("agent_1", "camper", first), Party("agent_2", "camper", second)),
        Rules(max_rounds=max_rounds),
    )


class TimeBasedStandIn:
    """A minimal time-based concession negotiator (target = floor + (best − floor)·(1 − t^(1/e))).

    Written the memory-lean way: `RankedOutcomes.of` (one order and one sorted utility array per
    utility, shared across sessions) and packages built on demand, so a 10^6-outcome space costs
    about 16 MB per party.
    """

    def __init__(self, exponent: float) -> None:
        self._exponent = exponent

    def act(self, view: PartyView) -> Action:
        ranking = RankedOutcomes.of(view.utility)
        floor = max(view.reservation_value, ranking.worst)
        target = floor + (ranking.best - floor) * (1.0 - view.relative_time ** (1.0 / self._exponent))
        offer = view.offer
        if offer is not None and view.utility.evaluate(offer) >= target - 1e-9:
            return Accept()
        rank = max(ranking.count_at_least(target - 1e-9) - 1, 0)  # the worst package still on target
        return Propose(ranking.outcome(rank))
