"""Where ASTRA stands against the round bound: moves left, its deadline aspiration, and whether a
package better than a given worth can still be agreed before the bound.

Every walk-away and concession rule reads these instead of counting a fixed number of rounds, so
the same rules fit a game of 10 rounds and one of 1,000.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from parley.agents.astra.signals import POINTS_SCALE
from parley.protocol.view import PartyView

RESERVATION_MARGIN_POINTS = 1.0
"""Before its last move ASTRA asks for at least this much above its BATNA (points; less when its
best package is closer to the BATNA): a deal worth the BATNA exactly is no better than no deal."""

REACH_TOLERANCE = 1e-9
"""Points by which a package must beat a worth to count as better."""


@dataclass(frozen=True, slots=True)
class Horizon:
    """The party's position against the round bound.

    Attributes:
        relative_time: Progress through the round budget, 0 (first round) to 1 (last round).
        moves_left: The party's moves until the bound, this one included.
        total_moves: The party's moves in a whole session at its current pace.
    """

    relative_time: float
    moves_left: int
    total_moves: int

    @property
    def last_move(self) -> bool:
        """Whether this is the party's last move before the bound."""
        return self.moves_left <= 1


def horizon(view: PartyView) -> Horizon:
    """The party's horizon in this view.

    The party's next move comes as many rounds after this one as this one came after its previous
    move (one round when it has not moved yet), so in an alternating protocol where it moves every
    second round the second-to-last round is its last chance.
    """
    mine = [e.round for e in view.record if e.kind == "action" and e.party == view.party]
    gap = max(1, view.round - mine[-1]) if mine else 1
    bound = view.rules.max_rounds
    return Horizon(view.relative_time, 1 + max(0, bound - view.round) // gap, max(1, math.ceil(bound / gap)))


def reservation_margin(reservation_points: float) -> float:
    """How far above its BATNA ASTRA stays before its last move (points)."""
    return max(0.0, min(RESERVATION_MARGIN_POINTS, (POINTS_SCALE - reservation_points) / 4))


def aspiration(time: Horizon, reservation_points: float, exponent: float) -> float:
    """The most ASTRA may still ask at this point of the session (points): a deadline ceiling.

    A time-dependent curve from its best package (36 points) at the start to just above its BATNA
    at the bound: reservation' + (36 - reservation')·(1 - t^(1/e)), reservation' the BATNA plus
    `reservation_margin`. With e < 1 it holds out most of the session and concedes late.

    Args:
        time: The horizon.
        reservation_points: The BATNA in points.
        exponent: e > 0.
    """
    low = min(POINTS_SCALE, reservation_points + reservation_margin(reservation_points))
    return low + (POINTS_SCALE - low) * (1.0 - time.relative_time ** (1.0 / exponent))


def stall_limit(time: Horizon, share: float) -> int:
    """Partner offers without a concession before ASTRA speaks of a deadlock: a share of the session."""
    return max(2, round(share * time.total_moves))


def better_reachable(time: Horizon, worth: float, best_points: float = POINTS_SCALE) -> bool:
    """Whether a package worth more than worth to ASTRA can still be agreed before the bound.

    ASTRA has a move after this one and some package is worth more to it. Deliberately not
    narrowed by the IPP: an estimate of the others' floor is a prior, and walking (or settling
    for the BATNA) on a wrong estimate forfeits deals a late concession would have brought.

    Args:
        time: The horizon.
        worth: The worth to beat (points).
        best_points: ASTRA's best package (points; 36 on its scale).
    """
    return not time.last_move and best_points > worth + REACH_TOLERANCE
