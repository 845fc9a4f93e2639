"""ProMediate testbed speed: one 6-party, 60-turn social-mediated conversation, and the full Table 1 grid.

Targets from the issue: the conversation (with full consensus tracking) in ≤ 1 s, and the whole
experiment (6 cases × 4 modes × 3 mediators × 5 runs = 360 conversations, metrics included) in
≤ 5 minutes on the 2-core development machine.
"""

from __future__ import annotations

import os
import time

from harness import command_for, measure, table, verdict

from parley.experiments.promediate import grid, run_grid
from parley.mediation.mediators import SocialMediator
from parley.metrics.consensus import conversation_metrics
from parley.scenarios.importers.promediate import load_promediate_case
from parley.simulation.conversation import run_conversation
from parley.simulation.modes import ConflictMode

CONVERSATION_TARGET_S = 1.0
EXPERIMENT_TARGET_S = 300.0


def _one_conversation() -> None:
    result = run_conversation(
        load_promediate_case("flagship"), SocialMediator(), mode=ConflictMode.COMPETING, seed=0
    )
    conversation_metrics(result.trajectory)


def run(quick: bool) -> str:
    """Time one conversation and the full grid (quick: one run per cell instead of five)."""
    scenario = load_promediate_case("flagship")
    turns = len(run_conversation(scenario, SocialMediator(), seed=0).consensus) - 1
    timing = measure(_one_conversation, repeat=3 if quick else 7, warmup=1)
    runs = 1 if quick else 5
    jobs = min(2, os.cpu_count() or 1)
    cells = grid()
    started = time.perf_counter()
    rows = run_grid(cells, runs, jobs=jobs)
    elapsed = time.perf_counter() - started
    scaled = elapsed * 5 / runs
    rows_table = table(
        ["measurement", "result", "target", "verdict"],
        [
            [
                f"one conversation: flagship, {len(scenario.parties)} parties, {turns} turns, "
                "social mediator, competing, consensus tracking + all metrics",
                timing.describe("ms"),
                f"≤ {CONVERSATION_TARGET_S:g} s",
                verdict(timing.median <= CONVERSATION_TARGET_S),
            ],
            [
                f"Table 1 grid: {len(rows)} conversations ({runs} run(s) per cell), {jobs} processes",
                f"{elapsed:.1f} s" + ("" if runs == 5 else f" (≈ {scaled:.0f} s for 5 runs)"),
                f"≤ {EXPERIMENT_TARGET_S:g} s for 360",
                verdict(scaled <= EXPERIMENT_TARGET_S),
            ],
        ],
    )
    return (
        "## ProMediate testbed\n\n"
        "Deterministic participants and mediators (no LLM); times include consensus tracking (Algorithm 1) "
        "and CC/TLE/RL/ME/MI. The grid uses `parley.experiments.promediate.run_grid` in worker processes; "
        "`parley experiment promediate --runs 5 --jobs 2` runs the same grid and writes the report.\n\n"
        + rows_table
        + f"\nReproduce: `{command_for('promediate', quick)}`\n"
    )
