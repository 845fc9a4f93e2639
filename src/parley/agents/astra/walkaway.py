"""ASTRA's walk-away rules (seed §2.2), as interpreted here: (a) no concession in K consecutive
partner offers, (b) offers below the BATNA after a warning. Either rule may warn instead of walking.
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence

from parley.agents.astra.config import AstraConfig
from parley.agents.astra.decision import Decision, Memory
from parley.agents.astra.opponent import Evidence
from parley.agents.astra.own import OwnSide
from parley.protocol.actions import Accept, Say, Walk

WARNING_MESSAGE = "That offer is worse for me than walking away. If it stays below that, I will leave."
DEADLOCK_MESSAGE = (
    "You have not moved in your last few offers. I can meet you part of the way, "
    "but not if I am the only one conceding."
)


def no_concession_streak(agent_points_of_partner_offers: Sequence[float]) -> int:
    """How many of the partner's latest consecutive offers conceded nothing to the agent.

    Each offer after the first counts when it gives the agent no more points than the one before.
    """
    streak = 0
    for before, after in zip(
        agent_points_of_partner_offers[-2::-1], agent_points_of_partner_offers[::-1], strict=False
    ):
        if after > before + 1e-9:
            break
        streak += 1
    return streak


def walk_or_warn(
    config: AstraConfig, memory: Memory, own: OwnSide, evidence: Evidence, offered: float
) -> Decision | None:
    """Rule (a), then rule (b), against the partner's latest offer (worth offered points to the agent).

    Returns:
        The walk, warning or acceptance a rule calls for, or None when neither fires. `memory`
        records a warning when one is given.
    """
    reservation = own.reservation_points
    received = [own.points(row) for row in evidence.partner_offers]
    streak = no_concession_streak(received)
    if streak >= config.no_concession_limit:
        deadlock = deadlock_rule(config, memory, evidence, received, streak, offered, reservation)
        if deadlock is not None:
            return deadlock
    if offered < reservation - 1e-9:
        return below_batna_rule(config, memory, own, evidence, reservation)
    return None


def deadlock_rule(
    config: AstraConfig,
    memory: Memory,
    evidence: Evidence,
    received: Sequence[float],
    streak: int,
    offered: float,
    reservation: float,
) -> Decision | None:
    """Rule (a): the partner made no concession in K consecutive offers.

    Walks only when no partner offer so far reaches the BATNA. With an offer at or above the
    BATNA on the table, walking is strictly worse for the principal: warn once, keep
    conceding within the floor, and take the standing offer when the partner ignores the
    warning for K more offers.
    """
    limit = config.no_concession_limit
    reason = f"partner made no concession in {streak} consecutive offers"
    if max(received) < reservation - 1e-9:
        return Decision(Walk(reason), "walk", [reason, "none of its offers reaches my BATNA"])
    if offered < reservation - 1e-9:
        return None
    if memory.deadlock_warned_at is None:
        memory.deadlock_warned_at = len(evidence.partner_offers)
        why = "its offer beats my BATNA, so I warn instead of walking"
        return Decision(Say(DEADLOCK_MESSAGE), "warn", [reason, why])
    ignored = len(evidence.partner_offers) - memory.deadlock_warned_at
    if ignored >= limit and streak >= limit:
        why = f"it ignored my warning for {ignored} offers; its offer ({offered:.1f}) beats my BATNA"
        return Decision(Accept(), "accept", [reason, why])
    return None


def below_batna_rule(
    config: AstraConfig, memory: Memory, own: OwnSide, evidence: Evidence, reservation: float
) -> Decision | None:
    """Rule (b): warn when a sub-BATNA offer does not improve; walk when the warning is ignored.

    Ignored means the partner's latest `below_batna_limit` offers since the warning all stay
    below the BATNA and none improves on the offer before it (in the agent's points): a
    partner still conceding toward the zone of agreement is heeding the warning.
    """
    offers = evidence.partner_offers
    if memory.warned_at is None:
        # An opening anchor below the BATNA is normal; a partner standing still below it is not.
        if len(offers) < 2 or own.points(offers[-1]) > own.points(offers[-2]) + 1e-9:
            return None
        memory.warned_at = len(offers)
        reason = "offer below my BATNA and no better than the previous one: warn before walking"
        return Decision(Say(WARNING_MESSAGE), "warn", [reason])
    limit = config.below_batna_limit
    if len(offers) - memory.warned_at < limit:
        return None
    # the offer that drew the warning (or a later one) and the `limit` offers after it
    recent = [own.points(row) for row in offers[-(limit + 1) :]]
    below = all(points < reservation - 1e-9 for points in recent[-limit:])
    improved = any(after > before + 1e-9 for before, after in itertools.pairwise(recent))
    if below and not improved:
        reason = f"{limit} offers below my BATNA after a warning, without improving"
        return Decision(Walk(reason), "walk", [reason])
    return None
