"""ASTRA's response modes other than proposing (seed §2.2): answering and asking for priorities,
accepting, walking or warning, re-asking, and the order in which a move tries them around its proposal.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from parley.agents.astra.config import AstraConfig
from parley.agents.astra.deadline import horizon, reservation_margin
from parley.agents.astra.decision import Decision, Memory
from parley.agents.astra.opponent import ConsistencyFinding, Evidence
from parley.agents.astra.own import OwnSide
from parley.agents.astra.reasons import Reason, Why
from parley.agents.astra.walkaway import walk_or_warn
from parley.protocol.actions import Accept, Say
from parley.protocol.view import PartyView

ASK_MESSAGE = "Before we trade offers: which issues matter most to you, and which least?"
REASK_MESSAGE = "Your offers do not fit the priorities I understood. Which issue matters most to you?"
ANSWER_MESSAGE = "From most to least important to me: {order}."
ASK_BACK_MESSAGE = "What matters most to you?"


def opening_move(config: AstraConfig, view: PartyView, own: OwnSide, evidence: Evidence) -> Decision | None:
    """Answer the partner's question about priorities, or ask for theirs; None when neither is due."""
    answer = answer_priorities(config, view, own, evidence)
    if answer is not None:
        return answer
    if should_ask(config, view, evidence):
        return Decision(
            Say(ASK_MESSAGE, asks_priorities=True),
            "ask",
            [Reason(Why.ASK_PRIORITIES, "no partner priorities known yet: ask")],
        )
    return None


def respond_to_offer(
    config: AstraConfig,
    view: PartyView,
    memory: Memory,
    own: OwnSide,
    evidence: Evidence,
    findings: Sequence[ConsistencyFinding],
    proposal: Decision,
    reachable: Callable[[float], bool],
) -> Decision:
    """Accept, walk, warn or re-ask in answer to the offer on the table, else make the proposal.

    Args:
        config: Settings.
        view: The view.
        memory: Updated with any warning or re-ask given.
        own: ASTRA's side.
        evidence: What the partner (the focal one in multi-party games) said and offered.
        findings: Consistency findings about the partner.
        proposal: The proposal this move would make.
        reachable: Whether a package worth more than the given points to ASTRA can still be agreed
            before the bound.
    """
    if view.offer is None:
        return proposal
    offered = own.points(view.space.to_indices(view.offer))
    time = horizon(view)
    return (
        accept_offer(config, view, own, evidence, proposal, offered, reachable)
        or walk_or_warn(config, memory, own, evidence, offered, time)
        or reask(config, memory, findings)
        or proposal
    )


def accept_offer(
    config: AstraConfig,
    view: PartyView,
    own: OwnSide,
    evidence: Evidence,
    proposal: Decision,
    offered: float,
    reachable: Callable[[float], bool],
) -> Decision | None:
    """Accept at or above the BATNA when the offer beats my last offer, my next one, or the deadline.

    An offer worth no more than the BATNA (within `reservation_margin`) is accepted only when
    nothing better can still be agreed before the bound: a deal at the BATNA is worth no more than
    no deal.
    """
    reservation = own.reservation_points
    if offered < reservation - 1e-9:
        return None
    if offered < reservation + reservation_margin(reservation) - 1e-9 and reachable(offered):
        return None
    latest = own.points(evidence.own_offers[-1]) if evidence.own_offers else None
    planned = proposal.chosen.agent_points if proposal.chosen is not None else None
    reason = None
    if latest is not None and offered >= latest - 1e-9:
        reason = Reason(
            Why.ACCEPT_AT_LEAST_LAST,
            f"offer gives me {offered:.1f} points, at least my last offer ({latest:.1f})",
            {"offered": offered, "latest": latest},
        )
    elif planned is not None and offered >= planned - 1e-9:
        reason = Reason(
            Why.ACCEPT_AT_LEAST_PLANNED,
            f"offer gives me {offered:.1f} points, at least what I would propose ({planned:.1f})",
            {"offered": offered, "planned": planned},
        )
    elif config.accept_at_deadline and is_last_move(view):
        reason = Reason(
            Why.ACCEPT_LAST_MOVE,
            f"my last move before the deadline: {offered:.1f} points beats my BATNA ({reservation:.1f})",
            {"offered": offered, "reservation": reservation},
        )
    return None if reason is None else Decision(Accept(), "accept", [reason])


def reask(config: AstraConfig, memory: Memory, findings: Sequence[ConsistencyFinding]) -> Decision | None:
    """Ask again for priorities (once) when the partner's offer contradicts the priorities understood."""
    if (
        any(f.check == "offer_below_agent_offer" for f in findings)
        and config.ask_preferences
        and not memory.reasked
    ):
        memory.reasked = True
        return Decision(Say(REASK_MESSAGE, asks_priorities=True), "reask", [f.reason for f in findings])
    return None


def answer_priorities(
    config: AstraConfig, view: PartyView, own: OwnSide, evidence: Evidence
) -> Decision | None:
    """Answer a partner's direct question about priorities (once), truthfully, and ask back if needed."""
    if not _asked_for_priorities(view):
        return None
    order = own.priorities()
    ask_back = should_ask(config, view, evidence)
    text = ANSWER_MESSAGE.format(order=", ".join(order)) + (f" {ASK_BACK_MESSAGE}" if ask_back else "")
    reason = Reason(
        Why.ANSWER_PRIORITIES,
        "the partner asked for my priorities: answer truthfully (it helps find integrative trades)",
    )
    return Decision(Say(text, priorities=order, asks_priorities=ask_back), "answer", [reason])


def _asked_for_priorities(view: PartyView) -> bool:
    """Whether a partner asked for priorities after this party's latest move."""
    for event in reversed(view.record):
        if event.kind != "action":
            continue
        if event.party == view.party:
            return False  # answered already, or no question since
        if isinstance(move := event.payload, Say) and move.asks_priorities:
            return True
    return False


def should_ask(config: AstraConfig, view: PartyView, evidence: Evidence) -> bool:
    """Whether to ask for the partner's priorities: early, before any offer, nothing known yet."""
    return (
        config.ask_preferences
        and not evidence.statements
        and not evidence.asked
        and not evidence.own_offers
        and view.relative_time < 1 / 3
    )


def is_last_move(view: PartyView) -> bool:
    """Whether this is the party's last move before the round bound (see `deadline.horizon`)."""
    return horizon(view).last_move
