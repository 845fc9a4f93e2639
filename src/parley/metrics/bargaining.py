"""Bargaining outcome metrics computed from a finished session and its scenario."""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from parley.protocol.session import SessionResult
from parley.scenarios.model import Scenario


@dataclass(frozen=True, slots=True)
class PartyOutcome:
    """How one party fared in one session.

    Attributes:
        party: Party id.
        agent: Name of the negotiator that played it.
        utility: Utility obtained (the BATNA value when there was no deal).
        normalized_utility: utility rescaled to the party's [min, max] over the space.
        agreement: Whether a deal passed.
        walked: Whether this party walked away.
        rounds: Rounds played.
        pareto_distance: Normalised distance of the final point to the Pareto frontier (nan if no deal).
        nash_distance: Normalised distance of the final point to the Nash point (nan if no deal or none).
        below_batna: The party accepted a deal worth less than its BATNA.
        discounted_utility: utility discounted to the session's end, u·d^t with the party's
            discount factor d and t = rounds / max_rounds (GENIUS/ANAC time discounting); equal
            to utility when the party does not discount (nan only in a failed game's row).
    """

    party: str
    agent: str
    utility: float
    normalized_utility: float
    agreement: bool
    walked: bool
    rounds: int
    pareto_distance: float
    nash_distance: float
    below_batna: bool
    discounted_utility: float = math.nan


def _normalize(value: float, low: float, high: float) -> float:
    return (value - low) / (high - low) if high > low else 1.0


def final_point(scenario: Scenario, result: SessionResult) -> np.ndarray | None:
    """Every party's utility of the agreement, or None without one."""
    if result.agreement is None:
        return None
    return np.array([result.agreement.utilities[name] for name in scenario.party_names], dtype=np.float64)


def outcomes(scenario: Scenario, result: SessionResult, agents: dict[str, str]) -> list[PartyOutcome]:
    """Per-party outcome metrics for one finished session."""
    point = final_point(scenario, result)
    analysis = scenario.analysis if scenario.space.fits_in_memory(2_000_000) else None
    pareto = nash = math.nan
    if point is not None and analysis is not None:
        pareto = analysis.distance_to_frontier(point, normalized=True)
        if analysis.nash is not None:
            nash = analysis.distance_to_outcome(point, analysis.nash, normalized=True)
    walker = result.no_deal.walker if result.no_deal is not None else None
    rows: list[PartyOutcome] = []
    for index, party in enumerate(scenario.parties):
        low, high = party.utility.bounds()
        utility = float(point[index]) if point is not None else party.utility.reservation_value
        rows.append(
            PartyOutcome(
                party=party.name,
                agent=agents.get(party.name, "?"),
                utility=utility,
                normalized_utility=_normalize(utility, low, high),
                agreement=point is not None,
                walked=walker == party.name
                and result.no_deal is not None
                and result.no_deal.reason in ("walk", "stagnation"),
                rounds=result.rounds,
                pareto_distance=pareto,
                nash_distance=nash,
                below_batna=point is not None and utility < party.utility.reservation_value - 1e-9,
                discounted_utility=party.utility.discounted(utility, result.time),
            )
        )
    return rows
