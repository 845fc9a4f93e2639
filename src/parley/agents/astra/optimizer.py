"""ASTRA stage 2: exact offer optimisation over the λ × S_max grid.

For every λ and S_max in the grid: maximise S_a + (1 - λ)·S_p subject to S_a <= S_max,
S_a >= the agent's floor and S_p >= the partner's (estimated) floor, all in points. Two exact
methods: a vectorised sweep over the enumerated space (small and medium spaces) and a
mixed-integer program solved with HiGHS (spaces too large to enumerate; linear-additive
utilities). `solve_by_loop` is the plain per-candidate reference both are tested against.
"""

from __future__ import annotations

import itertools
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Literal

import highspy
import numpy as np
from numpy.typing import NDArray

from parley.domain.utility import FloatArray
from parley.errors import ScenarioError

Method = Literal["auto", "sweep", "milp", "loop"]
"""How to solve stage 2 ("auto": sweep when the space can be enumerated, else MILP)."""

SWEEP_LIMIT = 2_000_000
"""Largest space (outcomes) the sweep enumerates; beyond it the MILP is used."""

TOLERANCE = 1e-7
"""Slack (points) on the S_max bound and the floors, and when comparing objective values."""

Row = tuple[int, ...]

CHUNK = 32_768
"""Outcomes scored at once by the sweep (keeps the λ x chunk matrix in cache)."""

FEASIBLE = 2
"""HiGHS's primal solution status for "a feasible solution is known"."""


@dataclass(frozen=True, slots=True)
class GridSolution:
    """The optimum of one grid cell.

    Attributes:
        lambda_: λ of the cell.
        s_max: S_max of the cell (points).
        row: The optimal package as option indices (None when the cell is infeasible).
        objective: S_a + (1 - λ)·S_p at the optimum.
        proven: False when the MILP hit its per-solve work limit and returned its best package
            without proving it optimal.
    """

    lambda_: float
    s_max: float
    row: Row | None
    objective: float
    proven: bool = True


@dataclass(frozen=True, slots=True)
class Floors:
    """Lowest acceptable points for each side (S_a >= agent, S_p >= partner)."""

    agent: float
    partner: float


def parameter_grid(
    lambda_: float, s_max: float, *, spread: float = 0.3, depth: float = 10.0
) -> tuple[tuple[float, ...], tuple[float, ...]]:
    """The seed's grid: λ within ±spread in 0.1 steps (clipped to [0, 1]).

    S_max goes from the chosen value down by depth points in 1-point steps.
    """
    steps = round(spread * 10)
    lambdas = sorted({round(min(1.0, max(0.0, lambda_ + k / 10)), 10) for k in range(-steps, steps + 1)})
    s_values = tuple(s_max - k for k in range(int(depth) + 1))
    return tuple(lambdas), s_values


# -- the vectorised sweep ------------------------------------------------------------------------


def solve_by_sweep(
    agent_points: FloatArray,
    partner_points: FloatArray,
    lambdas: Sequence[float],
    s_max_values: Sequence[float],
    floors: Floors,
    rows: NDArray[np.int64],
) -> list[GridSolution]:
    """Solve every grid cell at once over the enumerated space.

    Outcomes are bucketed by the tightest S_max they satisfy; each bucket is scored for every λ
    in one matrix operation and the best per cell is the best over the buckets it admits. Ties
    go to the higher S_a, then to the lower outcome index.

    Args:
        agent_points: S_a of every outcome.
        partner_points: S_p (under the IPP) of every outcome.
        lambdas: The λ values.
        s_max_values: The S_max values.
        floors: Both floors.
        rows: Option indices of every outcome (same order as the points).
    """
    feasible = np.flatnonzero(
        (agent_points >= floors.agent - TOLERANCE) & (partner_points >= floors.partner - TOLERANCE)
    )
    agent, partner = agent_points[feasible], partner_points[feasible]
    weights = 1.0 - np.asarray(lambdas, dtype=np.float64)
    thresholds = np.sort(np.asarray(s_max_values, dtype=np.float64))
    bucket = np.searchsorted(thresholds + TOLERANCE, agent, side="left")
    best_value = np.full(len(lambdas), -np.inf)
    best_index = np.full(len(lambdas), -1, dtype=np.int64)
    by_threshold: dict[float, tuple[FloatArray, NDArray[np.int64]]] = {}
    for position, threshold in enumerate(thresholds):
        members = np.flatnonzero(bucket == position)
        if members.size:
            value, index = _bucket_best(agent[members], partner[members], weights)
            better = value > best_value + TOLERANCE
            tie = np.abs(value - best_value) <= TOLERANCE
            take = better | (tie & (agent[members][index] > agent[np.maximum(best_index, 0)]))
            best_value = np.where(take, value, best_value)
            best_index = np.where(take, members[index], best_index)
        by_threshold[float(threshold)] = (best_value.copy(), best_index.copy())
    return [
        _sweep_solution(lam, s, i, by_threshold[float(s)], feasible, rows)
        for i, lam in enumerate(lambdas)
        for s in s_max_values
    ]


def _bucket_best(
    agent: FloatArray, partner: FloatArray, weights: FloatArray
) -> tuple[FloatArray, NDArray[np.int64]]:
    """Per λ, the best objective in one bucket and the member achieving it (ties: higher S_a, first).

    Works through the bucket in cache-sized chunks, merging chunk winners with the same tie rule.
    """
    best_value = np.full(weights.size, -np.inf)
    best_index = np.zeros(weights.size, dtype=np.int64)
    for start in range(0, agent.size, CHUNK):
        chunk_agent, chunk_partner = agent[start : start + CHUNK], partner[start : start + CHUNK]
        objective = chunk_agent[None, :] + weights[:, None] * chunk_partner[None, :]
        value = objective.max(axis=1)
        ties = objective >= value[:, None] - TOLERANCE
        index = start + np.argmax(np.where(ties, chunk_agent[None, :], -np.inf), axis=1)
        better = value > best_value + TOLERANCE
        tie = (np.abs(value - best_value) <= TOLERANCE) & (agent[index] > agent[best_index])
        take = better | tie
        best_value = np.where(take, value, best_value)
        best_index = np.where(take, index, best_index)
    return best_value, best_index


def _sweep_solution(
    lambda_: float,
    s_max: float,
    position: int,
    best: tuple[FloatArray, NDArray[np.int64]],
    feasible: NDArray[np.int64],
    rows: NDArray[np.int64],
) -> GridSolution:
    value, index = best
    if index[position] < 0:
        return GridSolution(lambda_, s_max, None, float("-inf"))
    row = tuple(int(v) for v in rows[feasible[index[position]]])
    return GridSolution(lambda_, s_max, row, float(value[position]))


# -- the mixed-integer program ---------------------------------------------------------------------


@dataclass(slots=True)
class SolveBudget:
    """Solver seconds one decision may still spend, shared by its grids (see `OfferProgram`).

    Attributes:
        seconds_left: Seconds of solver run time left (may go negative on the last solve).
        skipped: Cells skipped because the budget was spent (reported in the trace).
    """

    seconds_left: float
    skipped: int = 0


class OfferProgram:
    """The stage-2 problem as one HiGHS mixed-integer program, built once and re-solved per cell.

    One binary per (issue, option), one "exactly one option" row per issue, a row for S_a (bounds
    [agent floor, S_max]) and a row for S_p (>= partner floor). Between cells only the objective
    costs (λ) and the S_a row's upper bound (S_max) change.

    Args:
        agent_tables: Per issue, the agent's points for each option (they add up).
        partner_tables: Per issue, the partner's estimated points for each option.
        floors: Both floors.
        node_limit: Branch-and-bound nodes one solve may explore before the best package found so
            far is returned (marked unproven); a work limit, so results stay deterministic. None
            for no limit.
        node_budget: Branch-and-bound nodes all solves of this program may explore together; once
            spent, each further cell gets the root node only (its LP and heuristics). Bounds the
            work of one whole decision, deterministically. None for no budget.
        time_budget: Solver seconds shared by every solve of one decision, a safety net for
            cells whose root node alone is slow (thin S_a bands over real-valued tables, a
            subset-sum problem; HiGHS does not stop inside a root node). Once it is spent the
            remaining cells are skipped (no package, unproven); only skipped cells can make a
            decision depend on machine speed. None for no limit.
    """

    def __init__(
        self,
        agent_tables: Sequence[FloatArray],
        partner_tables: Sequence[FloatArray],
        floors: Floors,
        node_limit: int | None = None,
        node_budget: int | None = None,
        time_budget: SolveBudget | None = None,
    ) -> None:
        self._node_limit = node_limit
        self._nodes_left = node_budget
        self._time = time_budget
        self._sizes = [len(t) for t in agent_tables]
        self._agent = np.concatenate([np.asarray(t, dtype=np.float64) for t in agent_tables])
        self._partner = np.concatenate([np.asarray(t, dtype=np.float64) for t in partner_tables])
        self._floors = floors
        self._highs = self._build()
        self.solves = 0

    def _build(self) -> highspy.Highs:
        highs = highspy.Highs()
        highs.setOptionValue("output_flag", False)
        highs.setOptionValue("mip_rel_gap", 0.0)
        highs.setOptionValue("mip_abs_gap", 1e-9)
        if self._node_limit is not None:
            highs.setOptionValue("mip_max_nodes", self._node_limit)
        count = self._agent.size
        highs.addVars(count, np.zeros(count), np.ones(count))
        highs.changeColsIntegrality(
            count, np.arange(count, dtype=np.int32), np.full(count, highspy.HighsVarType.kInteger)
        )
        start = 0
        for size in self._sizes:
            columns = np.arange(start, start + size, dtype=np.int32)
            highs.addRow(1.0, 1.0, size, columns, np.ones(size))
            start += size
        columns = np.arange(count, dtype=np.int32)
        highs.addRow(self._floors.agent - TOLERANCE, highspy.kHighsInf, count, columns, self._agent)
        highs.addRow(self._floors.partner - TOLERANCE, highspy.kHighsInf, count, columns, self._partner)
        highs.changeObjectiveSense(highspy.ObjSense.kMaximize)
        return highs

    def solve(self, lambda_: float, s_max: float) -> GridSolution:
        """The optimum for one (λ, S_max) cell."""
        highs = self._highs
        count = self._agent.size
        costs = self._agent + (1.0 - lambda_) * self._partner
        highs.changeColsCost(count, np.arange(count, dtype=np.int32), costs)
        highs.changeRowBounds(len(self._sizes), self._floors.agent - TOLERANCE, s_max + TOLERANCE)
        if self._nodes_left is not None:
            cap = self._nodes_left if self._node_limit is None else min(self._node_limit, self._nodes_left)
            highs.setOptionValue("mip_max_nodes", max(1, cap))
        if self._time is not None and self._time.seconds_left <= 0:
            self._time.skipped += 1
            return GridSolution(lambda_, s_max, None, float("-inf"), False)
        started = highs.getRunTime()
        highs.run()
        self.solves += 1
        if self._nodes_left is not None:
            self._nodes_left = max(0, self._nodes_left - int(highs.getInfo().mip_node_count))
        if self._time is not None:
            self._time.seconds_left -= highs.getRunTime() - started
        status = highs.getModelStatus()
        proven = status == highspy.HighsModelStatus.kOptimal
        if not proven and highs.getInfo().primal_solution_status != FEASIBLE:
            return GridSolution(lambda_, s_max, None, float("-inf"), proven)
        values = np.asarray(highs.getSolution().col_value)
        row = self._decode(values)
        return GridSolution(lambda_, s_max, row, self.objective(row, lambda_), proven)

    def _decode(self, values: FloatArray) -> Row:
        row: list[int] = []
        start = 0
        for size in self._sizes:
            row.append(int(np.argmax(values[start : start + size])))
            start += size
        return tuple(row)

    def objective(self, row: Row, lambda_: float) -> float:
        """S_a + (1 - λ)·S_p of a package."""
        offsets = np.cumsum([0, *self._sizes[:-1]])
        picks = offsets + np.asarray(row)
        return float(self._agent[picks].sum() + (1.0 - lambda_) * self._partner[picks].sum())

    def agent_points(self, row: Row) -> float:
        """S_a of a package."""
        offsets = np.cumsum([0, *self._sizes[:-1]])
        return float(self._agent[offsets + np.asarray(row)].sum())

    def partner_points(self, row: Row) -> float:
        """S_p of a package."""
        offsets = np.cumsum([0, *self._sizes[:-1]])
        return float(self._partner[offsets + np.asarray(row)].sum())


def solve_by_milp(
    agent_tables: Sequence[FloatArray],
    partner_tables: Sequence[FloatArray],
    lambdas: Sequence[float],
    s_max_values: Sequence[float],
    floors: Floors,
    *,
    keep: int | None = None,
    node_limit: int | None = None,
    node_budget: int | None = None,
    time_budget: SolveBudget | None = None,
) -> list[GridSolution]:
    """Solve the grid cells with one reused HiGHS model, skipping solves that cannot change the answer.

    Three exact shortcuts: (1) for each λ, an optimum that already satisfies a tighter S_max stays
    optimal there (the feasible set only shrank); (2) for one S_max, when the same package is
    optimal at two λ values it is optimal at every λ between them (the optimal value is convex
    in 1 - λ and that package's value is linear in it); (3) with keep = N, cells are visited from
    the highest S_max down and the sweep stops once `top_optima(..., N)` of the optima found so
    far (N distinct optima no other found optimum dominates) all score more agent points than the
    next S_max allows: an optimum of a lower cell can neither dominate nor outrank them, so the
    top-N candidates equal the full grid's. The cells returned are then the full grid's first
    cells (highest S_max first), unchanged; the cells skipped by (3) are not returned.

    Every cell gets an optimal package, but where several are optimal HiGHS may return another one
    than the sweep and the loop (which take the highest S_a, then the first outcome), so the
    distinct optima, and the candidates, can differ from theirs by such ties.

    With a node_limit, a hard cell (e.g. λ = 1 over real-valued utilities, a subset-sum problem)
    returns its best package so far, marked unproven; node_budget caps the nodes of all cells
    together and time_budget their run time (see `OfferProgram`).
    """
    program = OfferProgram(agent_tables, partner_tables, floors, node_limit, node_budget, time_budget)
    previous: dict[float, GridSolution] = {}
    solutions: list[GridSolution] = []
    levels = sorted(s_max_values, reverse=True)
    ordered = sorted(lambdas)
    for position, s_max in enumerate(levels):
        level = _solve_level(program, ordered, s_max, previous)
        previous.update({solution.lambda_: solution for solution in level})
        solutions.extend(level)
        following = levels[position + 1] if position + 1 < len(levels) else None
        if keep is not None and following is not None and _enough(program, solutions, keep, following):
            break
    return solutions


def _solve_level(
    program: OfferProgram, lambdas: Sequence[float], s_max: float, previous: Mapping[float, GridSolution]
) -> list[GridSolution]:
    """Every λ at one S_max (λ ascending), solving as few cells as the shortcuts allow."""
    found: dict[float, GridSolution] = {}

    def solve(lambda_: float) -> GridSolution:
        if lambda_ not in found:
            last = previous.get(lambda_)
            if last is not None and (last.row is None or program.agent_points(last.row) <= s_max + TOLERANCE):
                found[lambda_] = GridSolution(lambda_, s_max, last.row, last.objective, last.proven)
            else:
                found[lambda_] = program.solve(lambda_, s_max)
        return found[lambda_]

    def fill(low: int, high: int) -> None:
        first, last = solve(lambdas[low]), solve(lambdas[high])
        if high - low <= 1:
            return
        if first.row is not None and first.row == last.row and first.proven and last.proven:
            for lambda_ in lambdas[low + 1 : high]:
                found[lambda_] = GridSolution(
                    lambda_, s_max, first.row, program.objective(first.row, lambda_)
                )
            return
        middle = (low + high) // 2
        fill(low, middle)
        fill(middle, high)

    fill(0, len(lambdas) - 1)
    return [found[lambda_] for lambda_ in lambdas]


def _enough(program: OfferProgram, solutions: Sequence[GridSolution], keep: int, s_max: float) -> bool:
    """Whether the top keep optima found so far are complete and all score more than s_max agent points.

    Counting dominated optima too could stop with fewer than keep candidates left once they are
    dropped, where the full grid has more.
    """
    rows = dict.fromkeys(s.row for s in solutions if s.row is not None)
    found = [(row, program.agent_points(row), program.partner_points(row)) for row in rows]
    top = top_optima(found, keep)
    return len(top) == keep and all(agent > s_max + TOLERANCE for _, agent, _ in top)


# -- the candidates stage 3 chooses from -----------------------------------------------------------

DOMINANCE_TOLERANCE = 1e-9
"""Points by which an optimum must be better for a side to count (dominance and sorting)."""

Scored = tuple[Row, float, float]
"""A package with its S_a and S_p (points)."""


def dominates(first: Scored, second: Scored) -> bool:
    """first is at least as good for both sides and strictly better for one."""
    _, first_agent, first_partner = first
    _, second_agent, second_partner = second
    at_least = (
        first_agent >= second_agent - DOMINANCE_TOLERANCE
        and first_partner >= second_partner - DOMINANCE_TOLERANCE
    )
    strictly = (
        first_agent > second_agent + DOMINANCE_TOLERANCE
        or first_partner > second_partner + DOMINANCE_TOLERANCE
    )
    return at_least and strictly


def top_optima(found: Sequence[Scored], keep: int) -> list[Scored]:
    """The keep best distinct optima no other one dominates: best S_a first, then best S_p, then first found.

    Args:
        found: Distinct packages in the order the grid found them.
        keep: How many to return at most.
    """
    undominated = [c for c in found if not any(dominates(other, c) for other in found)]
    undominated.sort(key=lambda c: (-round(c[1], 9), -round(c[2], 9)))
    return undominated[:keep]


# -- the plain reference loop --------------------------------------------------------------------


def solve_by_loop(
    agent_tables: Sequence[FloatArray],
    partner_tables: Sequence[FloatArray],
    lambdas: Sequence[float],
    s_max_values: Sequence[float],
    floors: Floors,
) -> list[GridSolution]:
    """Brute force: a Python loop over every grid cell and every outcome (reference and benchmark)."""
    agent = [[float(v) for v in t] for t in agent_tables]
    partner = [[float(v) for v in t] for t in partner_tables]
    rows = list(itertools.product(*(range(len(t)) for t in agent)))
    scored = [
        (
            row,
            sum(a[i] for a, i in zip(agent, row, strict=True)),
            sum(p[i] for p, i in zip(partner, row, strict=True)),
        )
        for row in rows
    ]
    solutions: list[GridSolution] = []
    for lambda_ in lambdas:
        for s_max in s_max_values:
            best: GridSolution = GridSolution(lambda_, s_max, None, float("-inf"))
            best_agent = float("-inf")
            for row, s_a, s_p in scored:
                if (
                    s_a > s_max + TOLERANCE
                    or s_a < floors.agent - TOLERANCE
                    or s_p < floors.partner - TOLERANCE
                ):
                    continue
                value = s_a + (1.0 - lambda_) * s_p
                if value > best.objective + TOLERANCE or (
                    value >= best.objective - TOLERANCE and s_a > best_agent
                ):
                    best, best_agent = GridSolution(lambda_, s_max, tuple(row), value), s_a
            solutions.append(best)
    return solutions


def choose_method(method: Method, space_size: int, linear: bool) -> Literal["sweep", "milp", "loop"]:
    """Resolve "auto" for a space of space_size outcomes.

    Raises:
        ScenarioError: the space is too large to enumerate and the utility is not linear-additive.
    """
    if method != "auto":
        return method
    if space_size <= SWEEP_LIMIT:
        return "sweep"
    if not linear:
        raise ScenarioError(
            f"ASTRA needs a linear-additive utility on a space of {space_size:,} outcomes "
            f"(more than {SWEEP_LIMIT:,} cannot be enumerated)"
        )
    return "milp"
