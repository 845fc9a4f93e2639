"""The O13 Pareto mediator: on stagnation, table a package every party should prefer to the current one.

It reads only what `MediatorView` carries — the public offers and the coarse signals a scenario
allows (stated priorities, must-haves) — and never a utility function. From each party's own offers
it estimates which options the party favours (earlier offers weigh more: openings reveal the most;
options are ordered, so an offered option's neighbours count for more than distant ones),
weights issues by the stated priorities (or, without them, by how firmly the party held each
issue). "The current one" for a party is what the others currently offer it (the mean estimated
value of their latest offers); the mediator picks the package that maximises the smallest estimated
gain over that, among packages that honour every stated must-have and that it has not tabled before.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
from numpy.typing import NDArray

from parley.domain.issues import Value
from parley.domain.space import OutcomeSpace
from parley.protocol.session import MediatorView

FloatArray = NDArray[np.float64]


@dataclass
class ParetoMediator:
    """Proposes Pareto-improving packages from public offers and coarse signals only.

    Attributes:
        decay: Weight of each later offer relative to the one before (openings count most).
        max_outcomes: Largest space it enumerates; above this it stays silent.
    """

    decay: float = 0.8
    max_outcomes: int = 2_000_000
    name: str = "pareto"

    def propose(self, view: MediatorView) -> Mapping[str, Value] | None:
        """A package improving on the table for every party (by its estimates), or None."""
        offers = [(party, package) for party, package in view.record.offers() if party in view.parties]
        if not offers or view.space.size > self.max_outcomes:
            return None
        space = view.space
        latest = {party: space.to_indices(dict(package)) for party, package in offers}
        indices = space.enumerate_indices()
        gains = np.stack([self._gain(view, party, offers, indices, latest) for party in view.parties])
        allowed = self._allowed(view, indices) & self._fresh(view, indices)
        informed = np.array([any(p == party for p, _ in offers) for party in view.parties])
        worst = np.where(informed[:, None], gains, np.maximum(gains, 0.0)).min(axis=0)
        worst = np.where(allowed & (gains.min(axis=0) >= -1e-12), worst, -np.inf)
        best = int(np.lexsort((-gains.sum(axis=0), -worst))[0])
        if not np.isfinite(worst[best]) or worst[best] <= 1e-9:
            return None
        return space.outcome(best)

    def _gain(
        self,
        view: MediatorView,
        party: str,
        offers: Sequence[tuple[str, Mapping[str, Value]]],
        indices: NDArray[np.int64],
        latest: Mapping[str, Sequence[int]],
    ) -> FloatArray:
        """Estimated value to party of every package, minus what the others currently offer it."""
        tables = self._estimated_tables(view.space, [pkg for p, pkg in offers if p == party])
        weights = self._weights(view.space, view.signals.get(party, {}), tables)
        references = [row for other, row in latest.items() if other != party] or list(latest.values())
        values = np.zeros(indices.shape[0])
        base = 0.0
        for column, (table, weight) in enumerate(zip(tables, weights, strict=True)):
            values += weight * table[indices[:, column]]
            base += weight * float(np.mean([table[row[column]] for row in references]))
        return values - base

    def _estimated_tables(
        self, space: OutcomeSpace, packages: Sequence[Mapping[str, Value]]
    ) -> list[FloatArray]:
        tables = [np.zeros(issue.cardinality) for issue in space.issues]
        for age, package in enumerate(packages):
            weight = self.decay**age
            for column, position in enumerate(space.to_indices(dict(package))):
                # Options are ordered: an offer at one option says its neighbours beat far-away ones.
                span = max(1, space.issues[column].cardinality - 1)
                distance = np.abs(np.arange(space.issues[column].cardinality) - position) / span
                tables[column] += weight * (1.0 - distance)
        return [t / t.max() if t.max() > 0 else t for t in tables]

    @staticmethod
    def _weights(
        space: OutcomeSpace, signals: Mapping[str, Any], tables: Sequence[FloatArray]
    ) -> list[float]:
        priorities = [p for p in signals.get("priorities", ()) if p in space.names]
        if priorities:
            rank = {name: i for i, name in enumerate(priorities)}
            return [float(len(priorities) - rank[n]) if n in rank else 0.5 for n in space.names]
        # Without stated priorities: an issue the party never varied on is one it holds firmly.
        return [float(t.max() / t.sum()) if t.sum() > 0 else 0.0 for t in tables]

    @staticmethod
    def _allowed(view: MediatorView, indices: NDArray[np.int64]) -> NDArray[np.bool_]:
        allowed = np.ones(indices.shape[0], dtype=bool)
        for signals in view.signals.values():
            for issue_name, options in dict(signals.get("must_haves", {})).items():
                if issue_name not in view.space.names:
                    continue
                column = view.space.names.index(issue_name)
                issue = view.space.issues[column]
                positions = [issue.index_of(v) for v in options if issue.contains(v)]
                allowed &= np.isin(indices[:, column], positions)
        return allowed

    @staticmethod
    def _fresh(view: MediatorView, indices: NDArray[np.int64]) -> NDArray[np.bool_]:
        """Packages the mediator has not already tabled."""
        fresh = np.ones(indices.shape[0], dtype=bool)
        for who, package in view.record.offers():
            if who == "mediator":
                fresh[view.space.index(dict(package))] = False
        return fresh
