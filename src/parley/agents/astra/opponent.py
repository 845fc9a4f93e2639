"""ASTRA opponent modelling: evidence about the partner, the inferred partner preferences (IPP), checks.

The IPP is a linear-additive estimate of the partner's utility over the shared space. It starts
from "opposite to my own" preferences, takes its issue order from the partner's stated priorities
(`Say.priorities`) and otherwise from what the partner keeps for itself in its offers, and learns
per-option values of categorical issues from how often the partner offers them.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any

import numpy as np

from parley.agents.astra.reasons import Reason, Why
from parley.agents.astra.signals import POINTS_SCALE, PointScale
from parley.domain.space import IndexArray, OutcomeSpace
from parley.domain.utility import (
    FloatArray,
    LinearAdditiveUtility,
    RankedPreferenceUtility,
    UtilityFunction,
)
from parley.protocol.actions import Propose, Say
from parley.protocol.events import PartyId
from parley.protocol.view import PartyView

HIGH_PRIORITY_WEIGHT = 5.0
"""Weight of the partner's most important issue (CaSiNo's High = 5 points per unit)."""

LOW_PRIORITY_WEIGHT = 3.0
"""Weight of its least important issue (CaSiNo's Low = 3 points per unit)."""

Row = tuple[int, ...]
"""One package as option indices."""


@dataclass(frozen=True, slots=True)
class Evidence:
    """What one party has seen of the others, read from its record.

    Attributes:
        partner_offers: Packages the partner(s) put forward, as option indices, in order.
        statements: Priority orders the partner(s) stated (issue names, most important first).
        own_offers: The agent's own packages, in order.
        sequence: Every package put forward by the agent ("self") or a partner ("partner"), in order.
        asked: The agent has asked for the partner's priorities.
        answered_after_ask: The partner has acted since the agent last asked.
        partner_moves: Number of moves the partner(s) made.
    """

    partner_offers: tuple[Row, ...]
    statements: tuple[tuple[str, ...], ...]
    own_offers: tuple[Row, ...]
    sequence: tuple[tuple[str, Row], ...]
    asked: bool
    answered_after_ask: bool
    partner_moves: int


def collect_evidence(view: PartyView, partner: PartyId | None = None) -> Evidence:
    """Read the partner's offers and statements and the agent's own moves from the view's record.

    Args:
        view: The agent's view.
        partner: The one other party to read (its moves alone count as the partner's); None pools
            every other party into one aggregate partner (the same thing in a bilateral game).
    """
    space = view.space
    partner_offers: list[Row] = []
    statements: list[tuple[str, ...]] = []
    own_offers: list[Row] = []
    sequence: list[tuple[str, Row]] = []
    asked = answered = False
    moves = 0
    for event in view.record:
        if event.kind != "action" or event.party is None:
            continue
        move = event.payload
        mine = event.party == view.party
        if not mine and partner is not None and event.party != partner:
            continue
        if mine and isinstance(move, Say) and move.asks_priorities:
            asked, answered = True, False
        if not mine:
            moves += 1
            answered = answered or asked
            if isinstance(move, Say) and (stated := tuple(n for n in move.priorities if n in space.names)):
                statements.append(tuple(dict.fromkeys(stated)))
        if isinstance(move, Propose):
            row = _row(space, move.package)
            if row is None:
                continue
            (own_offers if mine else partner_offers).append(row)
            sequence.append(("self" if mine else "partner", row))
    return Evidence(
        tuple(partner_offers), tuple(statements), tuple(own_offers), tuple(sequence), asked, answered, moves
    )


def _row(space: OutcomeSpace, package: Mapping[str, Any]) -> Row | None:
    try:
        return space.to_indices(package)
    except (KeyError, ValueError, TypeError):
        return None


def linear_tables(utility: UtilityFunction) -> tuple[FloatArray, ...]:
    """Per issue, the worth of each option to this utility (exact when it is linear-additive).

    For other utilities (explicit tables) each option gets the mean utility of the outcomes that
    contain it, a linear-additive approximation that needs the space to be enumerable.
    """
    if isinstance(utility, RankedPreferenceUtility):
        utility = utility.linear
    if isinstance(utility, LinearAdditiveUtility):
        return utility.weighted_tables
    indices = utility.space.enumerate_indices()
    values = utility.evaluate_indices(indices)
    tables: list[FloatArray] = []
    for column, cardinality in enumerate(utility.space.shape):
        sums = np.bincount(indices[:, column], weights=values, minlength=cardinality)
        counts = np.bincount(indices[:, column], minlength=cardinality)
        tables.append(sums / np.maximum(counts, 1))
    return tuple(tables)


def _normalize(table: FloatArray) -> FloatArray:
    low, high = float(table.min()), float(table.max())
    if high - low <= 1e-12:
        return np.full(table.shape, 0.5, dtype=np.float64)
    return ((table - low) / (high - low)).astype(np.float64)


def _is_monotone(table: FloatArray) -> bool:
    steps = np.diff(table)
    return bool(np.all(steps >= -1e-12) or np.all(steps <= 1e-12))


def rank_weights(count: int) -> FloatArray:
    """Issue weights by rank, from 5 (most important) down to 3 (least), as CaSiNo's High/Low."""
    if count == 1:
        return np.array([HIGH_PRIORITY_WEIGHT], dtype=np.float64)
    step = (HIGH_PRIORITY_WEIGHT - LOW_PRIORITY_WEIGHT) / (count - 1)
    return np.asarray(HIGH_PRIORITY_WEIGHT - step * np.arange(count), dtype=np.float64)


@dataclass(frozen=True)
class PartnerModel:
    """The inferred partner preferences (IPP): a linear-additive estimate of the partner's utility.

    Attributes:
        space: The outcome space.
        order: Issue names, the partner's most important first.
        tables: Per issue (space order), the partner's estimated worth of each option, in [0, 1].
        source: Where the issue order came from: "assumed-opposite", "stated" or "offers".
        reservation_points: The partner's estimated BATNA, in its points.
    """

    space: OutcomeSpace
    order: tuple[str, ...]
    tables: tuple[FloatArray, ...]
    source: str
    reservation_points: float

    @cached_property
    def weights(self) -> dict[str, float]:
        """Issue weights by rank (5 for the most important down to 3)."""
        return dict(zip(self.order, (float(w) for w in rank_weights(len(self.order))), strict=True))

    @cached_property
    def utility(self) -> LinearAdditiveUtility:
        """The IPP as a utility function (reservation value: the estimated BATNA)."""
        values = {
            issue.name: table.tolist() for issue, table in zip(self.space.issues, self.tables, strict=True)
        }
        draft = LinearAdditiveUtility(self.space, self.weights, values)
        scale = PointScale(*draft.bounds())
        return draft.with_reservation(scale.utility(self.reservation_points))

    @cached_property
    def scale(self) -> PointScale:
        """Maps the IPP's utility to partner points (0 to 36)."""
        return PointScale(*self.utility.bounds())

    @cached_property
    def point_tables(self) -> tuple[FloatArray, ...]:
        """Per issue, the partner's points for each option (they add up to the points of a package)."""
        count = len(self.space.issues)
        low, span = self.scale.low, self.scale.span
        return tuple((table - low / count) / span * POINTS_SCALE for table in self.utility.weighted_tables)

    def points(self, indices: IndexArray) -> FloatArray:
        """The partner's estimated points for outcomes given as option-index rows."""
        return self.scale.points_array(self.utility.evaluate_indices(indices))

    def points_of(self, row: Sequence[int]) -> float:
        """The partner's estimated points for one package."""
        return float(self.points(np.array([row], dtype=np.int64))[0])

    def cache_key(self) -> tuple[Any, ...]:
        """What the estimate depends on (equal keys give equal points)."""
        return (self.order, tuple(t.tobytes() for t in self.tables), self.reservation_points)

    def linear_point_tables(self) -> tuple[FloatArray, ...] | None:
        """`point_tables` (the IPP is linear-additive)."""
        return self.point_tables

    def ideal(self) -> Row:
        """The partner's best package under the IPP."""
        return tuple(int(np.argmax(t)) for t in self.point_tables)

    def to_json(self) -> dict[str, Any]:
        """A JSON-ready summary for the decision trace."""
        return {
            "source": self.source,
            "order": list(self.order),
            "weights": {name: round(w, 3) for name, w in self.weights.items()},
            "values": {
                issue.name: [round(float(v), 3) for v in table]
                for issue, table in zip(self.space.issues, self.tables, strict=True)
            },
            "reservation_points": round(self.reservation_points, 3),
        }


def estimate_partner(
    space: OutcomeSpace,
    own_tables: Sequence[FloatArray],
    evidence: Evidence,
    reservation_points: float,
) -> PartnerModel:
    """The default preference interpretation: build the IPP from statements, offers and a prior.

    Args:
        space: The outcome space.
        own_tables: The agent's own worth of each option, per issue (see `linear_tables`).
        evidence: What the partner said and offered.
        reservation_points: The partner's estimated BATNA in its points.
    """
    prior_tables = [1.0 - _normalize(np.asarray(t, dtype=np.float64)) for t in own_tables]
    tables = [
        _learn_table(issue.is_numeric and _is_monotone(np.asarray(own)), prior, evidence.partner_offers, i)
        for i, (issue, own, prior) in enumerate(zip(space.issues, own_tables, prior_tables, strict=True))
    ]
    importance = [float(np.ptp(t)) for t in own_tables]
    prior_order = [space.names[i] for i in sorted(range(len(importance)), key=lambda i: (importance[i], i))]
    revealed = revealed_order(space, tables, evidence.partner_offers, prior_order)
    order, source = prior_order, "assumed-opposite"
    if evidence.partner_offers:
        order, source = revealed, "offers"
    if evidence.statements and not stated_contradicts_offers(evidence.statements[-1], revealed, evidence):
        order, source = _complete(evidence.statements[-1], order), "stated"
    return PartnerModel(space, tuple(order), tuple(tables), source, reservation_points)


def _learn_table(keep_prior: bool, prior: FloatArray, offers: Sequence[Row], column: int) -> FloatArray:
    """Blend the prior with how often the partner offered each option (categorical issues only)."""
    if keep_prior or not offers:
        return prior
    counts = np.bincount([row[column] for row in offers], minlength=prior.size).astype(np.float64)
    evidence_weight = len(offers) / (len(offers) + 1.0)
    return _normalize((1.0 - evidence_weight) * prior + evidence_weight * counts / counts.max())


def kept_shares(tables: Sequence[FloatArray], offers: Sequence[Row]) -> FloatArray:
    """Per issue, the mean worth (0 to 1) of what the partner kept for itself in its offers."""
    if not offers:
        return np.zeros(len(tables))
    rows = np.array(offers, dtype=np.int64)
    return np.array([float(np.mean(table[rows[:, i]])) for i, table in enumerate(tables)])


def revealed_order(
    space: OutcomeSpace, tables: Sequence[FloatArray], offers: Sequence[Row], prior_order: Sequence[str]
) -> list[str]:
    """Issues by how much the partner keeps of them in its offers (ties keep the prior order)."""
    shares = kept_shares(tables, offers)
    position = {name: i for i, name in enumerate(prior_order)}
    return sorted(
        space.names, key=lambda name: (-round(float(shares[space.names.index(name)]), 9), position[name])
    )


def stated_contradicts_offers(stated: Sequence[str], revealed: Sequence[str], evidence: Evidence) -> bool:
    """Whether the partner's offers clearly contradict its stated top priority.

    With two or more partner offers, the issue it says matters most being the one it keeps least
    of (last in the revealed order, and not tied) counts as a contradiction.
    """
    if len(evidence.partner_offers) < 2 or not stated or len(revealed) < 2:
        return False
    return stated[0] == revealed[-1]


def _complete(stated: Sequence[str], fallback: Sequence[str]) -> list[str]:
    """A full order: the stated issues first, then the others in fallback order."""
    return [*stated, *(name for name in fallback if name not in stated)]


@dataclass(frozen=True, slots=True)
class ConsistencyFinding:
    """One inconsistency between the IPP and what the partner did or said (seed table 6).

    Attributes:
        check: "offer_below_agent_offer", "stated_vs_offers" or "stated_vs_ipp".
        detail: Plain-words explanation.
        values: The figures and names behind it (see `parley.agents.astra.reasons.Why`).
    """

    check: str
    detail: str
    values: Mapping[str, float | str] = field(default_factory=lambda: {})

    @property
    def reason(self) -> Reason:
        """The finding as a reason for a move."""
        return Reason(_FINDING_CODES[self.check], self.detail, self.values)


_FINDING_CODES = {
    "offer_below_agent_offer": Why.OFFER_BELOW_MINE,
    "stated_vs_offers": Why.STATED_VS_OFFERS,
    "stated_vs_ipp": Why.STATED_VS_ESTIMATE,
}


def check_consistency(
    evidence: Evidence, model: PartnerModel, previous: PartnerModel | None
) -> tuple[ConsistencyFinding, ...]:
    """Seed appendix A.1: does the IPP agree with the partner's behaviour?

    Checks: (1) the partner's latest offer gives it fewer (estimated) points than the agent's offer
    just before it; (2) its stated top priority is the issue it keeps least of; (3) a new statement
    reorders the issues the previous IPP had. Over-specified offers (more units than exist) cannot
    reach an agent: the engine rejects packages outside the space.
    """
    findings: list[ConsistencyFinding] = []
    sequence = evidence.sequence
    if len(sequence) >= 2 and sequence[-1][0] == "partner" and sequence[-2][0] == "self":
        own = model.points_of(sequence[-2][1])
        theirs = model.points_of(sequence[-1][1])
        if theirs < own - 1e-9:
            findings.append(
                ConsistencyFinding(
                    "offer_below_agent_offer",
                    f"partner's offer gives it {theirs:.1f} points, less than the {own:.1f} in my last offer",
                    {"theirs": theirs, "mine": own},
                )
            )
    if evidence.statements:
        stated = evidence.statements[-1]
        shares_order = revealed_order(model.space, model.tables, evidence.partner_offers, model.order)
        if stated_contradicts_offers(stated, shares_order, evidence):
            findings.append(
                ConsistencyFinding(
                    "stated_vs_offers",
                    f"partner says {stated[0]} matters most but keeps least of it in its offers",
                    {"issue": stated[0]},
                )
            )
        if previous is not None and _statement_changes(previous, model, stated):
            findings.append(
                ConsistencyFinding(
                    "stated_vs_ipp",
                    f"partner states priorities {list(stated)}; I had estimated {list(previous.order)}",
                )
            )
    return tuple(findings)


def _statement_changes(previous: PartnerModel, model: PartnerModel, stated: Sequence[str]) -> bool:
    """A statement newly adopted by the IPP that reorders what the previous estimate had."""
    adopted = previous.source != "stated" and model.source == "stated"
    return adopted and list(previous.order[: len(stated)]) != list(stated)
