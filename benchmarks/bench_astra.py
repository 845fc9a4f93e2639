"""ASTRA decision latency (CaSiNo, 1e6 and 1e9 outcomes) and stage 2 against a plain per-candidate loop.

No LP-based bidder exists in NegMAS, so stage 2's exact solvers are compared with the obvious
alternative: a Python loop over every (λ, S_max) cell and every outcome with the same objective.
"""

from __future__ import annotations

import itertools
import statistics
import time
from collections.abc import Callable, Sequence
from functools import partial
from typing import Any

import numpy as np
from harness import command_for, table

from parley.agents.astra import AstraConfig, AstraNegotiator
from parley.agents.astra.optimizer import Floors, parameter_grid, solve_by_loop, solve_by_sweep
from parley.domain.issues import Issue
from parley.domain.space import OutcomeSpace
from parley.domain.utility import LinearAdditiveUtility
from parley.experiments.runner import run_negotiation
from parley.protocol.actions import Action, Propose
from parley.protocol.rules import Rules
from parley.protocol.session import PartySetup, Session
from parley.protocol.view import PartyView
from parley.scenarios import load_scenario

TARGETS_MS = {"casino": 10.0, "1e6": 300.0, "1e9": 2000.0}


class TimedAstra:
    """ASTRA with a stopwatch around each decision (benchmark only)."""

    def __init__(self, inner: AstraNegotiator) -> None:
        self.inner = inner
        self.seconds: list[tuple[str, float]] = []

    def act(self, view: PartyView) -> Action:
        start = time.perf_counter()
        action = self.inner.act(view)
        self.seconds.append((action.kind, time.perf_counter() - start))
        return action

    def explain(self) -> Any:
        return self.inner.explain()


class SampledPartner:
    """Proposes packages drawn near its own best outcome, moving away from it over time."""

    def __init__(self, utility: LinearAdditiveUtility, seed: int) -> None:
        self._best = [int(np.argmax(t)) for t in utility.weighted_tables]
        self._rng = np.random.default_rng(seed)

    def act(self, view: PartyView) -> Action:
        row = list(self._best)
        for column in self._rng.choice(len(row), size=min(len(row), view.round // 2), replace=False):
            row[int(column)] = int(self._rng.integers(view.space.shape[int(column)]))
        return Propose(view.space.from_indices(row))


def _random_utility(space: OutcomeSpace, rng: np.random.Generator, integer: bool) -> LinearAdditiveUtility:
    size = space.shape[0]
    draw: Callable[[], list[float]] = (
        (lambda: rng.integers(0, 10, size=size).astype(float).tolist())
        if integer
        else (lambda: rng.random(size).tolist())
    )
    tables = {name: draw() for name in space.names}
    low = sum(min(t) for t in tables.values())
    high = sum(max(t) for t in tables.values())
    return LinearAdditiveUtility(space, dict.fromkeys(space.names, 1.0), tables, low + 0.3 * (high - low))


def _space(issues: int, options: int) -> OutcomeSpace:
    return OutcomeSpace.of([Issue.integer_range(f"issue{i}", 0, options - 1) for i in range(issues)])


def _large_session_times(
    issues: int, options: int, rounds: int, seeds: Sequence[int], integer: bool
) -> list[float]:
    """Seconds per ASTRA proposal over sessions against a sampled partner."""
    space = _space(issues, options)
    times: list[float] = []
    for seed in seeds:
        rng = np.random.default_rng(seed)
        mine, theirs = _random_utility(space, rng, integer), _random_utility(space, rng, integer)
        astra = TimedAstra(AstraNegotiator("a", seed, AstraConfig(ask_preferences=False)))
        parties = [PartySetup("a", mine), PartySetup("b", theirs)]
        negotiators = {"a": astra, "b": SampledPartner(theirs, seed)}
        Session(space, parties, negotiators, Rules(max_rounds=rounds, on_stagnation="continue")).run()
        times += [seconds for kind, seconds in astra.seconds if kind == "propose"]
    return times


def _casino_times(seeds: Sequence[int]) -> list[float]:
    scenario = load_scenario("casino")
    times: list[float] = []
    for seed in seeds:
        astra = TimedAstra(AstraNegotiator("A", seed))
        from parley.agents import create

        run_negotiation(scenario, {"A": astra, "B": create("base", party="B", seed=seed)}, seed=seed)
        times += [seconds for _, seconds in astra.seconds]
    return times


def latency_section(quick: bool) -> str:
    """Median decision time per turn on three space sizes."""
    rows: list[list[object]] = []
    cases = [
        (
            "casino",
            "CaSiNo (64 outcomes), vs base, every move",
            lambda: _casino_times(range(5 if quick else 30)),
        ),
        (
            "1e6",
            "6 issues x 10 options (1e6), real-valued, proposals (sweep)",
            lambda: _large_session_times(6, 10, 8 if quick else 12, range(1 if quick else 3), integer=False),
        ),
        (
            "1e9",
            "9 issues x 10 options (1e9), integer-valued, proposals (MILP)",
            lambda: _large_session_times(9, 10, 6 if quick else 10, range(1 if quick else 2), integer=True),
        ),
        (
            "1e9",
            "9 issues x 10 options (1e9), real-valued, proposals "
            "(MILP, 40 nodes per cell, 150 nodes and 0.4 s per grid)",
            lambda: _large_session_times(9, 10, 6 if quick else 10, range(1 if quick else 2), integer=False),
        ),
    ]
    for key, label, measure in cases:
        times = measure()
        median, slowest = statistics.median(times) * 1000, max(times) * 1000
        target = TARGETS_MS[key]
        # The issue asks for a median on enumerable spaces, and for *every* decision within 2 s on 1e9.
        judged, what = (slowest, "every decision") if key == "1e9" else (median, "median")
        rows.append(
            [
                label,
                len(times),
                f"{median:.1f}",
                f"{slowest:.1f}",
                f"{what} ≤ {target:.0f}",
                "pass" if judged <= target else "FAIL",
            ]
        )
    headers = ["space", "decisions", "median ms", "max ms", "target", "verdict"]
    return "### Decision latency\n\n" + table(headers, rows)


def _grid_problem(
    issues: int, options: int, seed: int
) -> tuple[list[np.ndarray], list[np.ndarray], np.ndarray]:
    rng = np.random.default_rng(seed)
    agent = [rng.random(options) * 36 / issues for _ in range(issues)]
    partner = [rng.random(options) * 36 / issues for _ in range(issues)]
    rows = np.array(list(itertools.product(range(options), repeat=issues)), dtype=np.int64)
    return agent, partner, rows


def _best_of(function: Callable[[], object], repeat: int) -> float:
    best = float("inf")
    for _ in range(repeat):
        start = time.perf_counter()
        function()
        best = min(best, time.perf_counter() - start)
    return best


def stage2_section(quick: bool) -> str:
    """Stage 2 (77 cells) by the vectorised sweep vs a plain Python loop over cells and outcomes."""
    rows: list[list[object]] = []
    for issues, options in ((3, 4), (4, 10)):
        agent, partner, rows_index = _grid_problem(issues, options, 0)
        points_a = sum(t[rows_index[:, i]] for i, t in enumerate(agent))
        points_p = sum(t[rows_index[:, i]] for i, t in enumerate(partner))
        lambdas, s_values = parameter_grid(0.5, float(np.max(points_a)) - 2)
        floors = Floors(5.0, 5.0)
        sweep = _best_of(
            partial(solve_by_sweep, points_a, points_p, lambdas, s_values, floors, rows_index), 5
        )
        loop = _best_of(partial(solve_by_loop, agent, partner, lambdas, s_values, floors), 1 if quick else 3)
        rows.append(
            [
                f"{issues} x {options} ({options**issues:,} outcomes)",
                len(lambdas) * len(s_values),
                f"{sweep * 1000:.2f}",
                f"{loop * 1000:.1f}",
                f"{loop / sweep:.0f}x",
            ]
        )
    headers = ["space", "cells", "sweep ms (best)", "per-candidate loop ms (best)", "speed-up"]
    text = "### Stage 2: vectorised sweep vs a plain per-candidate loop\n\n" + table(headers, rows)
    return text + "\n" + _cell_loop_section(quick)


def _masked_argmax_per_cell(
    agent: np.ndarray,
    partner: np.ndarray,
    lambdas: Sequence[float],
    s_values: Sequence[float],
    floors: Floors,
) -> list[int]:
    """A loop over the grid cells, each a numpy masked argmax over the whole space."""
    feasible = (agent >= floors.agent) & (partner >= floors.partner)
    best: list[int] = []
    for lambda_ in lambdas:
        objective = agent + (1.0 - lambda_) * partner
        for s_max in s_values:
            best.append(int(np.argmax(np.where(feasible & (agent <= s_max), objective, -np.inf))))
    return best


def _cell_loop_section(quick: bool) -> str:
    """On 1e6 outcomes the pure-Python loop is impractical; compare with a numpy loop over cells."""
    agent, partner, rows_index = _grid_problem(6, 10, 1)
    points_a = sum(t[rows_index[:, i]] for i, t in enumerate(agent))
    points_p = sum(t[rows_index[:, i]] for i, t in enumerate(partner))
    lambdas, s_values = parameter_grid(0.5, float(np.max(points_a)) - 2)
    floors = Floors(5.0, 5.0)
    repeat = 2 if quick else 5
    sweep = _best_of(
        partial(solve_by_sweep, points_a, points_p, lambdas, s_values, floors, rows_index), repeat
    )
    cells = _best_of(partial(_masked_argmax_per_cell, points_a, points_p, lambdas, s_values, floors), repeat)
    row = [
        "6 x 10 (1,000,000 outcomes)",
        len(lambdas) * len(s_values),
        f"{sweep * 1000:.0f}",
        f"{cells * 1000:.0f}",
        f"{cells / sweep:.1f}x",
    ]
    headers = ["space", "cells", "sweep ms (best)", "numpy loop over cells ms (best)", "speed-up"]
    return (
        "On a million outcomes, against a loop over cells that each run one numpy masked argmax:\n\n"
        + table(headers, [row])
    )


def run(quick: bool) -> str:
    """Both measurements as one markdown section."""
    return "\n".join(
        [
            "## ASTRA negotiator\n",
            f"Command: `{command_for('astra', quick)}`. Times are wall-clock seconds of "
            "`AstraNegotiator.act` (latency) and of the stage-2 "
            "solvers alone (speed-up). NegMAS has no LP-based bidder to compare with.\n",
            latency_section(quick),
            stage2_section(quick),
        ]
    )


if __name__ == "__main__":
    import sys

    print(run(quick="--quick" in sys.argv))
