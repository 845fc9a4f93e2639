"""The agent's own side prepared for ASTRA: its point scale, per-issue points and enumerated points."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from functools import cached_property

import numpy as np

from parley.agents.astra.opponent import linear_tables
from parley.agents.astra.optimizer import SWEEP_LIMIT, Method, choose_method
from parley.agents.astra.signals import POINTS_SCALE, PointScale
from parley.domain.space import IndexArray, OutcomeSpace
from parley.domain.utility import FloatArray, LinearAdditiveUtility, RankedPreferenceUtility, UtilityFunction


def outcome_limit(utility: UtilityFunction) -> int | None:
    """The most outcomes ASTRA can play holding utility: any number when it is linear-additive (or
    ranked, which is), since stage 2 then solves a MILP; else what it can sweep (`choose_method`)."""
    linear = utility.linear if isinstance(utility, RankedPreferenceUtility) else utility
    return None if isinstance(linear, LinearAdditiveUtility) else SWEEP_LIMIT


@dataclass(frozen=True)
class OwnSide:
    """The agent's own utility prepared for ASTRA: point scale, per-issue points, enumerated points.

    Attributes:
        space: The outcome space.
        utility: The agent's utility.
        scale: Utility to points.
        value_tables: Per issue, the worth of each option (for the IPP's "opposite" prior).
        point_tables: Per issue, points per option when the utility is linear-additive (else None).
        rows: Every outcome as option indices, when the space can be enumerated (else None).
        all_points: Points of every outcome, aligned with rows (else None).
        method: The stage-2 solver to use.
    """

    space: OutcomeSpace
    utility: UtilityFunction
    scale: PointScale
    value_tables: tuple[FloatArray, ...]
    point_tables: tuple[FloatArray, ...] | None
    rows: IndexArray | None
    all_points: FloatArray | None
    method: str

    @classmethod
    def prepare(cls, utility: UtilityFunction, method: Method) -> OwnSide:
        """Precompute everything that stays fixed during a negotiation."""
        space = utility.space
        linear = utility.linear if isinstance(utility, RankedPreferenceUtility) else utility
        scale = PointScale(*utility.bounds())
        point_tables = _point_tables(linear, scale) if isinstance(linear, LinearAdditiveUtility) else None
        resolved = choose_method(method, space.size, point_tables is not None)
        rows = all_points = None
        if resolved == "sweep" or point_tables is None:
            rows = space.enumerate_indices()
            all_points = scale.points_array(utility.evaluate_indices(rows))
        tables = linear_tables(utility)
        return cls(space, utility, scale, tables, point_tables, rows, all_points, resolved)

    @cached_property
    def enumerated(self) -> tuple[IndexArray, FloatArray] | None:
        """Every outcome as option indices with its points, whatever the stage-2 method, when the
        space can be swept (None above `SWEEP_LIMIT`)."""
        if self.rows is not None and self.all_points is not None:
            return self.rows, self.all_points
        if self.space.size > SWEEP_LIMIT:
            return None
        rows = self.space.enumerate_indices()
        return rows, self.scale.points_array(self.utility.evaluate_indices(rows))

    def priorities(self) -> tuple[str, ...]:
        """Issue names from the one whose options differ most in worth to the one that differs least."""
        spans = [float(np.ptp(table)) for table in self.value_tables]
        order = sorted(range(len(spans)), key=lambda i: (-spans[i], i))
        return tuple(self.space.names[i] for i in order)

    def points(self, row: Sequence[int]) -> float:
        """The agent's points for one package."""
        if self.point_tables is not None:
            return float(sum(float(t[i]) for t, i in zip(self.point_tables, row, strict=True)))
        return self.scale.points(self.utility.evaluate_indices(np.array([row], dtype=np.int64))[0])

    @property
    def reservation_points(self) -> float:
        """The BATNA in points."""
        return self.scale.points(self.utility.reservation_value)


def _point_tables(utility: LinearAdditiveUtility, scale: PointScale) -> tuple[FloatArray, ...]:
    tables = utility.weighted_tables
    shift = (utility.offset - scale.low) / len(tables)
    return tuple((t + shift) / scale.span * POINTS_SCALE for t in tables)
