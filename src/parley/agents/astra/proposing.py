"""Building blocks of an ASTRA proposal: the tit-for-tat floor on stage 2, the distinct undominated
grid optima it passes to stage 3, stage 3's tactic context, and the proposal move itself.
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from parley.agents.astra.coalition import PartnerEstimate
from parley.agents.astra.config import RECIPROCAL_SHARE
from parley.agents.astra.deadline import reservation_margin
from parley.agents.astra.decision import Decision, Signals
from parley.agents.astra.opponent import Evidence
from parley.agents.astra.optimizer import Floors, GridSolution, top_optima
from parley.agents.astra.own import OwnSide
from parley.agents.astra.reasons import Reason, Why
from parley.agents.astra.selection import ScoredCandidate, TacticContext, keeps_talks_alive, phase_of
from parley.agents.astra.stages import Candidate, ParameterChoice
from parley.agents.astra.walkaway import no_concession_streak
from parley.protocol.actions import Propose
from parley.protocol.view import PartyView


@dataclass(frozen=True, slots=True)
class Stage2Result:
    """What stage 2 hands to stage 3.

    Attributes:
        candidates: The best distinct undominated grid optima, best S_a first (may be empty).
        info: The stage-2 part of the decision trace (λ, S_max, grids, floors, solver counts).
        reasons: Why the parameters and floors are what they are, in order.
    """

    candidates: list[Candidate]
    info: dict[str, Any]
    reasons: list[Reason]


def tit_for_tat_floor(
    own: OwnSide,
    evidence: Evidence,
    context: TacticContext,
    previous: float | None,
    s_max: float,
    *,
    deadlock: bool,
    forced: bool = False,
    band: float = 0.0,
    received: float | None = None,
    last_move: bool = False,
    share: float = RECIPROCAL_SHARE,
) -> tuple[float, list[Reason]]:
    """The agent's floor for this proposal (points) and why it is where it is.

    Args:
        own: The agent's side.
        evidence: What the partner offered (the focal partner in multi-party games).
        context: Stage 3's context.
        previous: The agent's previous offer (points), if any.
        s_max: The highest S_max of this move.
        deadlock: The agent has warned of a deadlock (the cap is lifted).
        forced: The deadline ceiling lowered S_max below the previous offer: the floor is S_max
            less the larger of band and the tit-for-tat cap.
        band: See forced.
        received: The best offer received so far (points): the floor never falls below it.
        last_move: No margin above the BATNA on the last move.
        share: The reciprocal share of the tit-for-tat cap.
    """
    reservation = own.reservation_points
    floor = reservation + (0.0 if last_move else reservation_margin(reservation))
    reasons: list[Reason] = []
    cap = concession_cap(evidence, own, context, deadlock, share)
    if forced:
        floor = max(floor, s_max - max(band, cap or 0.0))
        reasons.append(
            Reason(
                Why.DEADLINE_FLOOR,
                f"deadline: ask at most {s_max:.1f} points now (floor {floor:.1f})",
                {"s_max": s_max, "floor": floor},
            )
        )
    elif previous is not None and cap is not None:
        floor = max(floor, min(previous, s_max) - cap)
        reasons.append(
            Reason(
                Why.TIT_FOR_TAT,
                f"tit-for-tat: concede at most {cap:.1f} points (floor {floor:.1f})",
                {"cap": cap, "floor": floor},
            )
        )
    if received is not None and received > floor + 1e-9:
        floor = received
        reasons.append(
            Reason(
                Why.BEST_RECEIVED,
                f"never ask less than the best offer I received ({received:.1f} points)",
                {"received": received},
            )
        )
    return min(floor, s_max), reasons


def concession_cap(
    evidence: Evidence, own: OwnSide, context: TacticContext, deadlock: bool, share: float = RECIPROCAL_SHARE
) -> float | None:
    """The most this proposal may concede (agent's points), or None for no cap beyond the BATNA.

    Tit-for-tat in the agent's own points: concede at most share of what the
    partner's latest concession gave the agent, so S_max falls no faster than the partner
    concedes and a partner that concedes on a schedule anyway is not paid back in full. Two
    exceptions keep the talks alive: after HOLD_LIMIT own
    offers without a concession answered by a partner offer without one (a small concession,
    so a partner with the same walk rule does not leave), and once the agent has warned of a
    deadlock over an above-BATNA offer.
    """
    if not evidence.own_offers or deadlock or keeps_talks_alive(context):
        return None
    received = [own.points(row) for row in evidence.partner_offers]
    if len(received) < 2:
        return 0.0
    return share * max(0.0, received[-1] - received[-2])


def stage2_info(
    choice: ParameterChoice,
    lambdas: Sequence[float],
    s_values: Sequence[float],
    floors: Floors,
    method: str,
    solutions: Sequence[GridSolution],
    skipped_cells: int,
) -> dict[str, Any]:
    """The stage-2 part of the decision trace."""
    return {
        "lambda": choice.lambda_,
        "s_max": choice.s_max,
        "lambdas": list(lambdas),
        "s_max_values": list(s_values),
        "floors": {"agent": floors.agent, "partner": floors.partner},
        "method": method,
        "solved_cells": len(solutions),
        "unproven_cells": sum(not s.proven for s in solutions),
        "skipped_cells": skipped_cells,
    }


def top_candidates(
    own: OwnSide, model: PartnerEstimate, solutions: Sequence[GridSolution], top_n: int
) -> list[Candidate]:
    """Distinct grid optima, minus those another optimum dominates (under the IPP), best S_a first.

    A cell capped by S_max can return a package that an optimum of a looser cell beats for both
    sides; conceding to it would cost the agent points without giving the partner any. The rule
    is `top_optima`, which the MILP's early stop also uses.
    """
    rows = list(dict.fromkeys(s.row for s in solutions if s.row is not None))
    found = [(row, own.points(row), model.points_of(row)) for row in rows]
    return [Candidate(row, agent, partner) for row, agent, partner in top_optima(found, top_n)]


def best_row(own: OwnSide) -> tuple[int, ...]:
    """The agent's own best package, as option indices."""
    if own.point_tables is not None:
        return tuple(int(np.argmax(t)) for t in own.point_tables)
    assert own.rows is not None and own.all_points is not None
    return tuple(int(v) for v in own.rows[int(np.argmax(own.all_points))])


def tactic_context(view: PartyView, own: OwnSide, evidence: Evidence, signals: Signals) -> TacticContext:
    """Stage 3's view of the talks: signals, phase, and both sides' concessions in the agent's points."""
    partner = [own.points(row) for row in evidence.partner_offers]
    concessions = tuple(b - a for a, b in itertools.pairwise(partner))
    mine = [own.points(row) for row in evidence.own_offers]
    own_last = mine[-2] - mine[-1] if len(mine) >= 2 else 0.0
    return TacticContext(
        fairness=signals.fairness,
        stance=signals.stance,
        phase=phase_of(view.relative_time, len(mine)),
        partner_offers=len(partner),
        own_offers=len(mine),
        partner_concession=concessions[-1] if concessions else 0.0,
        partner_concessions=concessions,
        own_last_concession=own_last,
        own_conceded=bool(mine) and min(mine) < mine[0] - 1e-9,
        partner_offer_partner_points=signals.offer_partner_points,
        partner_offer_agent_points=signals.offer_agent_points,
        previous_agent_points=mine[-1] if mine else None,
        own_hold_streak=no_concession_streak([-points for points in mine]),
    )


def repeat_offer(
    view: PartyView, own: OwnSide, model: PartnerEstimate, evidence: Evidence, stage2: Stage2Result
) -> Decision:
    """The proposal when stage 2 found no candidate: the agent's previous offer, or its best package."""
    fallback = evidence.own_offers[-1] if evidence.own_offers else best_row(own)
    chosen = Candidate(fallback, own.points(fallback), model.points_of(fallback))
    reasons = [
        *stage2.reasons,
        Reason(Why.NO_CANDIDATE, "no feasible candidate: repeat my previous (or best) offer"),
    ]
    return proposal(view, chosen, reasons, stage2=stage2.info)


def best_received(
    own: OwnSide, model: PartnerEstimate, evidence: Evidence, *, check_floor: bool
) -> Candidate | None:
    """The package worth most to the agent among those the others put forward (None before any).

    With check_floor (multi-party games) only packages whose coalition meets the others' estimated
    floor count: one party's offer binds only that party.
    """
    best: Candidate | None = None
    for row in dict.fromkeys(evidence.partner_offers):
        points = own.points(row)
        if best is not None and points <= best.agent_points + 1e-9:
            continue
        partner = model.points_of(row)
        if check_floor and partner < model.reservation_points - 1e-9:
            continue
        best = Candidate(row, points, partner)
    return best


def proposal(
    view: PartyView,
    chosen: Candidate,
    reasons: list[Reason],
    *,
    stage2: dict[str, Any] | None = None,
    tactic: dict[str, Any] | None = None,
    scored: list[ScoredCandidate] | None = None,
) -> Decision:
    """The move proposing chosen, with what its trace reports."""
    # No message: the transcript renders it with `parley.language` and the scenario's vocabulary.
    package = view.space.from_indices(chosen.row)
    return Decision(Propose(package), "propose", reasons, stage2, tactic, scored or [], chosen)
