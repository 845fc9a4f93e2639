"""ASTRA in multi-party games: one IPP per other party, and the coalition a package needs.

Under a k-of-n rule with vetoers a package passes when k parties accept it, every vetoer among
them. ASTRA, proposing or accepting, is one of the k; the others it needs are every other vetoer
plus enough of the rest. For each package the most willing such coalition is the vetoers and the
non-vetoers who (by their own IPP) gain most from it, and the package is as acceptable as that
coalition's least satisfied member: its estimated points are what stage 2 weighs against ASTRA's.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

import numpy as np

from parley.agents.astra.opponent import PartnerModel
from parley.agents.astra.signals import POINTS_SCALE
from parley.domain.issues import Value
from parley.domain.space import IndexArray
from parley.domain.utility import FloatArray
from parley.protocol.actions import Propose, ProposeCoalition
from parley.protocol.coalition import open_attempt, proposed_packages, read_record
from parley.protocol.events import PartyId
from parley.protocol.view import PartyView, Phase


class PartnerEstimate(Protocol):
    """What stages 2 and 3 need of the other side: a partner's IPP or a coalition of IPPs."""

    @property
    def reservation_points(self) -> float:
        """The other side's estimated floor (points)."""
        ...

    def linear_point_tables(self) -> tuple[FloatArray, ...] | None:
        """Per issue, points per option when the estimate is linear-additive (else None)."""
        ...

    def cache_key(self) -> tuple[Any, ...]:
        """What the estimate depends on (equal keys give equal points)."""
        ...

    def points(self, indices: IndexArray) -> FloatArray:
        """Estimated points of outcomes given as option-index rows."""
        ...

    def points_of(self, row: Sequence[int]) -> float:
        """Estimated points of one package."""
        ...

    def to_json(self) -> dict[str, Any]:
        """A JSON-ready summary for the decision trace."""
        ...


def withdrawn(view: PartyView) -> set[PartyId]:
    """Parties that have left the table (k-of-n games) according to the public record."""
    return {e.party for e in view.record if e.kind == "withdrawal" and e.party is not None}


def present_partners(view: PartyView) -> tuple[PartyId, ...]:
    """The other parties still at the table, in scenario order."""
    gone = withdrawn(view)
    return tuple(p for p in view.opponents if p not in gone)


@dataclass(frozen=True)
class CoalitionModel:
    """The other parties' IPPs combined into the acceptance of the coalition a package needs.

    Attributes:
        models: One IPP per other party still at the table.
        vetoes: The other parties whose acceptance every package needs.
        needed: How many other parties must accept (vetoers included).
    """

    models: Mapping[PartyId, PartnerModel]
    vetoes: tuple[PartyId, ...]
    needed: int

    @classmethod
    def of(cls, view: PartyView, models: Mapping[PartyId, PartnerModel]) -> CoalitionModel:
        """The coalition estimate for the view's party under its scenario's acceptance rule."""
        rule = view.rules.acceptance
        required = len(view.parties) if rule.required is None else rule.required
        vetoes = tuple(v for v in rule.vetoes if v != view.party and v in models)
        return cls(dict(models), vetoes, max(0, required - 1))

    @property
    def reservation_points(self) -> float:
        """The weakest estimated floor among the parties (they share ASTRA's prior)."""
        return min((m.reservation_points for m in self.models.values()), default=0.0)

    def linear_point_tables(self) -> tuple[FloatArray, ...] | None:
        """None: a coalition's points are a minimum, not a sum over issues."""
        return None

    def cache_key(self) -> tuple[Any, ...]:
        return (self.vetoes, self.needed, tuple((p, m.cache_key()) for p, m in self.models.items()))

    def points(self, indices: IndexArray) -> FloatArray:
        """Per outcome, the estimated points of the least satisfied member of its most willing coalition."""
        if self.needed <= 0 or not self.models:
            return np.full(len(indices), POINTS_SCALE)
        names = list(self.models)
        matrix = np.vstack([self.models[p].points(indices) for p in names])
        veto_rows = [names.index(v) for v in self.vetoes]
        other_rows = [i for i in range(len(names)) if i not in veto_rows]
        rest = min(self.needed - len(veto_rows), len(other_rows))
        worst = np.full(matrix.shape[1], np.inf)
        if veto_rows:
            worst = matrix[veto_rows].min(axis=0)
        if rest > 0:
            others = matrix[other_rows]
            # the rest-th best among the non-vetoers: the weakest member the coalition must include
            kth = np.partition(others, len(other_rows) - rest, axis=0)[len(other_rows) - rest]
            worst = np.minimum(worst, kth)
        if self.needed > len(names):  # too few parties left for any package to pass
            worst = np.minimum(worst, 0.0)
        return worst

    def points_of(self, row: Sequence[int]) -> float:
        return float(self.points(np.array([row], dtype=np.int64))[0])

    def members(self, row: Sequence[int]) -> list[PartyId]:
        """The parties making up the most willing coalition for one package (vetoers first)."""
        indices = np.array([row], dtype=np.int64)
        others = [p for p in self.models if p not in self.vetoes]
        rest = max(0, self.needed - len(self.vetoes))
        ranked = sorted(others, key=lambda p: -float(self.models[p].points(indices)[0]))
        return [*self.vetoes, *ranked[:rest]]

    def to_json(self) -> dict[str, Any]:
        return {
            "source": "coalition",
            "needed": self.needed,
            "vetoes": list(self.vetoes),
            "reservation_points": round(self.reservation_points, 3),
            "parties": {party: model.to_json() for party, model in self.models.items()},
        }


def focal_partner(view: PartyView, offers_by_party: Mapping[PartyId, int]) -> PartyId:
    """The other party stage 1 reads: the one whose offer is on the table, else the latest to offer.

    Args:
        view: The view.
        offers_by_party: How many offers each other party at the table has made.
    """
    table = view.table
    if table is not None and table.proposer in offers_by_party:
        return table.proposer
    for event in reversed(view.record):
        party = event.party
        if (
            party is not None
            and party in offers_by_party
            and event.kind == "action"
            and isinstance(event.payload, Propose)
        ):
            return party
    return next(iter(offers_by_party), view.opponents[0])


REVEALED_CANDIDATES = 3
"""Most revealed packages ASTRA checks against its own acceptance rule per coalition decision."""


def revealed_coalition(
    view: PartyView, action: object, accepts: Callable[[Mapping[str, Value]], bool]
) -> ProposeCoalition | None:
    """On a turn to propose, the planned proposal as a coalition proposal around a package the
    members it needs have revealed they would accept (`revealed_candidate`); None otherwise.

    Args:
        view: The view of a move.
        action: The move the agent planned (its message is kept).
        accepts: Whether the agent would accept a package offered to it now.
    """
    if view.phase is not Phase.PROPOSE or not isinstance(action, Propose):
        return None
    found = revealed_candidate(view, accepts)
    if found is None:
        return None
    package, members = found
    return ProposeCoalition(package, members, action.message)


def proposes_next(view: PartyView) -> bool:
    """Whether the view's party is the next round's proposer (it only gets that turn when it does
    not counter in this round: a counter of the next proposer becomes the table)."""
    present = [p for p in view.rules.order(view.parties) if p not in withdrawn(view)]
    return bool(present) and present[view.round % len(present)] == view.party


def revealed_candidate(
    view: PartyView, accepts: Callable[[Mapping[str, Value]], bool]
) -> tuple[dict[str, Value], tuple[PartyId, ...]] | None:
    """A package and the parties to ask, for a coalition the members have revealed they would accept.

    When the sub-protocol is on (k of n) and no attempt is open: among the packages the other
    parties revealed (their own offers, the tables they accepted, the coalitions they joined; read
    from the public record by `parley.protocol.coalition.read_record`), those revealed by every other
    vetoer still at the table and by enough others to reach k with the proposer, worth at least the
    proposer's BATNA and never proposed as a coalition before, best for the proposer first; the
    first that the proposer itself would accept as an offer (`accepts`, at most
    `REVEALED_CANDIDATES` checked), asked of the vetoers and the parties that revealed it most
    recently.
    """
    gone = withdrawn(view)
    present = [p for p in view.parties if p not in gone]
    if not view.rules.allows_coalitions(len(present)) or open_attempt(view.record):
        return None
    rule = view.rules.acceptance
    needed = (rule.required or len(present)) - 1
    vetoes = [v for v in rule.vetoes if v != view.party and v in present]
    revealed, _ = read_record(view.record, view.parties, view.rules)
    tried = [dict(p) for p in proposed_packages(view.record)]
    support: dict[tuple[int, ...], list[tuple[int, PartyId]]] = {}
    packages: dict[tuple[int, ...], dict[str, Value]] = {}
    for party in present:
        if party == view.party:
            continue
        for age, package in enumerate(revealed[party]):
            row = view.space.to_indices(package)
            packages.setdefault(row, package)
            support.setdefault(row, []).append((age, party))
    reservation = float(view.utility.reservation_value)
    candidates: list[tuple[float, tuple[int, ...]]] = []
    for row, backers in support.items():
        who = {party for _, party in backers}
        if all(v in who for v in vetoes) and len(who) >= needed and packages[row] not in tried:
            worth = float(view.utility.evaluate(packages[row]))
            if worth >= reservation:
                candidates.append((worth, row))
    candidates.sort(key=lambda item: (-item[0], item[1]))
    for _, row in candidates[:REVEALED_CANDIDATES]:
        if not accepts(packages[row]):
            continue
        latest: dict[PartyId, int] = {}
        for age, party in support[row]:
            latest[party] = max(age, latest.get(party, -1))
        others = sorted((p for p in latest if p not in vetoes), key=lambda p: (-latest[p], p))
        return packages[row], (*vetoes, *others[: max(0, needed - len(vetoes))])
    return None
