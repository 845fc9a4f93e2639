"""Coaching a human negotiator with ASTRA: the partner's signals, a recommended offer, accept/walk advice.

The coach reasons from the human's own `PartyView` only (their utility, their BATNA, the public
record), so it never uses anything the human could not see.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from parley.agents.astra.agent import AstraNegotiator
from parley.agents.astra.config import AstraConfig
from parley.agents.astra.decision import Memory
from parley.agents.astra.opponent import collect_evidence
from parley.agents.astra.reasons import Reason
from parley.agents.astra.trace import format_trace
from parley.domain.issues import Value
from parley.protocol.view import PartyView


@dataclass(frozen=True, slots=True)
class Advice:
    """What the coach tells the human before a move.

    Attributes:
        action: The recommended move: "ask", "accept", "walk", "warn", "reask" or "propose".
        fairness: The partner's fairness ("fair", "unfair", "unknown").
        stance: The partner's stance ("generous", "neutral", "greedy", "unknown").
        offer: The recommended package to propose (when action is "propose").
        offer_points: (your points, the partner's estimated points) of that package, 0-36 scale.
        partner_offer_points: (your, partner's estimated) points of the offer on the table, if any.
        accept: Whether to accept the offer on the table.
        walk: Whether to walk away.
        tactic: The tactic behind the recommended offer (e.g. "RC"), if any.
        reasons: Why, as ASTRA gives it (code, figures and the trace's wording).
        trace: The full ASTRA decision trace behind the advice.
    """

    action: str
    fairness: str
    stance: str
    offer: Mapping[str, Value] | None
    offer_points: tuple[float, float] | None
    partner_offer_points: tuple[float, float] | None
    accept: bool
    walk: bool
    tactic: str | None
    reasons: tuple[Reason, ...]
    trace: Mapping[str, Any] = field(default_factory=lambda: {})


class Coach:
    """ASTRA as a coach: advice for the party whose view it is given.

    Args:
        config: ASTRA settings for the advice (defaults as for the agent).
    """

    def __init__(self, config: AstraConfig | None = None) -> None:
        self._planner = AstraNegotiator("coach", 0, config or AstraConfig())

    def advise(self, view: PartyView) -> Advice:
        """Advice for the next move of view.party, from that party's view alone."""
        memory = self._memory(view)
        decision, trace = self._planner.plan(view, memory)
        chosen = trace.get("chosen")
        partner_offer = trace.get("partner_offer")
        tactic = trace.get("tactic")
        return Advice(
            action=decision.mode,
            fairness=str(trace["fairness"]),
            stance=str(trace["stance"]),
            offer=dict(chosen["package"]) if chosen and decision.mode == "propose" else None,
            offer_points=(float(chosen["agent_points"]), float(chosen["partner_points"])) if chosen else None,
            partner_offer_points=(
                float(partner_offer["agent_points"]),
                float(partner_offer["partner_points"]),
            )
            if partner_offer
            else None,
            accept=decision.mode == "accept",
            walk=decision.mode == "walk",
            tactic=str(tactic["name"]) if tactic else None,
            reasons=tuple(decision.reasons),
            trace=trace,
        )

    def _memory(self, view: PartyView) -> Memory:
        """Rebuild the agent's memory from the record.

        A warning is assumed at the first sub-BATNA offer no better than the one before it (where
        ASTRA warns), provided a later offer exists; otherwise the advice is to warn now.
        """
        own = self._planner.own_side(view.utility)
        evidence = collect_evidence(view)
        reservation = own.reservation_points
        points = [own.points(row) for row in evidence.partner_offers]
        stalled = [
            i
            for i in range(1, len(points))
            if points[i] < reservation - 1e-9 and points[i] <= points[i - 1] + 1e-9
        ]
        warned_at = stalled[0] + 1 if stalled and stalled[0] < len(points) - 1 else None
        return Memory(warned_at=warned_at, reasked=True)


_ACTION_WORDS = {
    "ask": "Ask the partner which issues matter most to them.",
    "reask": "Their offers contradict what they told you: ask again about their priorities.",
    "accept": "Accept the offer on the table.",
    "walk": "Walk away: your alternative is better than continuing.",
    "warn": "Warn them that you will walk away if offers stay below your alternative.",
    "propose": "Make this counter-offer:",
}


def format_advice(advice: Advice) -> str:
    """Render advice as a few lines of text for the terminal."""
    if advice.fairness == "unknown":
        lines = ["Coach: the partner has made no offer yet."]
    elif advice.stance == "unknown":
        lines = [f"Coach: the partner's offer looks {advice.fairness} (stance not known yet)."]
    else:
        lines = [f"Coach: the partner looks {advice.fairness} and {advice.stance}."]
    if advice.partner_offer_points is not None:
        mine, theirs = advice.partner_offer_points
        lines.append(f"  Their last offer: {mine:.1f} points for you, about {theirs:.1f} for them (of 36).")
    lines.append("  " + _ACTION_WORDS.get(advice.action, advice.action))
    if advice.offer is not None and advice.offer_points is not None:
        package = ", ".join(f"{name}={value}" for name, value in advice.offer.items())
        lines.append(
            f"    {package}  (you {advice.offer_points[0]:.1f}, them about {advice.offer_points[1]:.1f})"
            + (f", tactic {advice.tactic}" if advice.tactic else "")
        )
    lines.extend(f"  - {reason.text}" for reason in advice.reasons)
    return "\n".join(lines)


def format_advice_details(advice: Advice) -> str:
    """The advice followed by the full ASTRA trace behind it."""
    return format_advice(advice) + "\n" + format_trace(advice.trace)
