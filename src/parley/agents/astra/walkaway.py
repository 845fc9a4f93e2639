"""ASTRA's walk-away rules (seed §2.2), relative to the deadline and to what is still reachable.

The seed walks after (a) three partner offers without a concession or (b) two sub-BATNA offers
after a warning. Counted in offers, both fire early in a long game (round 8 of 100) while a deal
is still within reach, and a walk is worth no more than the BATNA the bound leaves anyway (parley
has no discount factor: waiting costs nothing). Here both conditions only make ASTRA *warn* (once
each, as the seed's agent does before walking), rule (a) after a share of the session's moves
rather than three offers. ASTRA walks only when no package is worth its BATNA at all; on its last
move it makes a final proposal instead of walking (the partner may still take it, and the bound
ends the session just as a walk would).
"""

from __future__ import annotations

from collections.abc import Sequence

from parley.agents.astra.config import AstraConfig
from parley.agents.astra.deadline import Horizon, better_reachable, stall_limit
from parley.agents.astra.decision import Decision, Memory
from parley.agents.astra.opponent import Evidence
from parley.agents.astra.own import OwnSide
from parley.agents.astra.reasons import Reason, Why
from parley.protocol.actions import Say, Walk

WARNING_MESSAGE = "That offer is worse for me than walking away. If it stays below that, I will leave."
REACHABLE_ANYTIME = Horizon(0.0, 2, 2)
"""A horizon with moves to come: what is reachable at all, whatever the time."""
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
    config: AstraConfig,
    memory: Memory,
    own: OwnSide,
    evidence: Evidence,
    offered: float,
    time: Horizon,
) -> Decision | None:
    """The walk or warning the partner's latest offer (worth offered points to ASTRA) calls for.

    Args:
        config: Settings.
        memory: Updated with any warning given.
        own: ASTRA's side.
        evidence: What the partner (the focal one in multi-party games) offered.
        offered: ASTRA's points of the offer on the table.
        time: The horizon.

    Returns:
        The walk or warning, or None.
    """
    reservation = own.reservation_points
    if offered < reservation - 1e-9 and not better_reachable(REACHABLE_ANYTIME, reservation - 1e-9):
        reason = Reason(
            Why.NOTHING_TO_GAIN,
            f"no package is worth my BATNA ({reservation:.1f} points): nothing to negotiate for",
            {"reservation": reservation},
        )
        return Decision(Walk(reason.text), "walk", [reason])
    received = [own.points(row) for row in evidence.partner_offers]
    streak = no_concession_streak(received)
    limit = stall_limit(time, config.stall_share)
    if streak >= limit and memory.deadlock_warned_at is None and offered >= reservation - 1e-9:
        memory.deadlock_warned_at = len(evidence.partner_offers)
        reason = Reason(
            Why.NO_CONCESSION,
            f"partner made no concession in {streak} consecutive offers ({limit} is my limit)",
            {"streak": streak, "limit": limit},
        )
        why = Reason(
            Why.WARN_NOT_WALK, "its offer beats my BATNA and a deal is still reachable: warn, do not walk"
        )
        return Decision(Say(DEADLOCK_MESSAGE), "warn", [reason, why])
    if offered < reservation - 1e-9 and not time.last_move:
        return below_batna_warning(memory, own, evidence)
    return None


def below_batna_warning(memory: Memory, own: OwnSide, evidence: Evidence) -> Decision | None:
    """Warn (once) when a sub-BATNA offer does not improve on the partner's previous one.

    An opening anchor below the BATNA is normal; a partner standing still below it is not.
    """
    offers = evidence.partner_offers
    if memory.warned_at is not None or len(offers) < 2:
        return None
    if own.points(offers[-1]) > own.points(offers[-2]) + 1e-9:
        return None
    memory.warned_at = len(offers)
    reason = Reason(
        Why.WARN_BELOW_BATNA,
        "offer below my BATNA and no better than the previous one: warn (I walk only at the bound)",
    )
    return Decision(Say(WARNING_MESSAGE), "warn", [reason])
