"""ASTRA's settings: `AstraConfig` (defaults follow the seed), its checks, and building one from options."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, fields
from typing import Any

from parley.agents.astra.optimizer import Method
from parley.agents.astra.signals import POINTS_SCALE
from parley.errors import ScenarioError

METHODS = ("auto", "sweep", "milp", "loop")
"""Accepted values of `AstraConfig.method`."""


@dataclass(frozen=True, slots=True)
class AstraConfig:
    """ASTRA's settings (defaults follow the seed).

    Attributes:
        alpha: Weight of PAP in the final score (seed: 0.35).
        beta: Weight of SA in the final score (seed: 0.65).
        top_n: Distinct stage-2 candidates kept for stage 3.
        lambda_spread: λ is explored within ± this of the chosen value, in 0.1 steps.
        s_max_depth: S_max is explored from the chosen value down by this many points, in 1-point steps.
        no_concession_limit: Walk after this many consecutive partner offers without a concession (K).
        below_batna_limit: Walk after this many sub-BATNA partner offers following a warning.
        ask_preferences: Ask for the partner's priorities early.
        use_stages: False gives the ablation: plain time-based offers instead of stages 2-3.
        method: Stage-2 solver ("auto", "sweep", "milp" or "loop").
        accept_at_deadline: On its last move before the round bound accept any offer at or above
            the BATNA.
        ablation_target_points: Where the ablation's linear concession ends (at least the BATNA).
        milp_node_limit: Branch-and-bound nodes per MILP solve before HiGHS's best package is
            used unproven (only on spaces too large to enumerate; None: prove every cell).
        milp_node_budget: Nodes all MILP solves of one grid may use together; after that each
            cell is solved at the root only (deterministic; None: no budget).
        milp_time_budget: Seconds of solver time one grid may use, a safety net that keeps every
            decision on huge spaces within the 2 s target: once spent, the grid's remaining cells
            are skipped (counted as skipped_cells in the trace). Only skipped cells can make a
            move depend on machine speed (None: no limit).
    """

    alpha: float = 0.35
    beta: float = 0.65
    top_n: int = 5
    lambda_spread: float = 0.3
    s_max_depth: float = 10.0
    no_concession_limit: int = 3
    below_batna_limit: int = 2
    ask_preferences: bool = True
    use_stages: bool = True
    method: Method = "auto"
    accept_at_deadline: bool = True
    ablation_target_points: float = POINTS_SCALE / 2
    milp_node_limit: int | None = 40
    milp_node_budget: int | None = 150
    milp_time_budget: float | None = 0.4

    def __post_init__(self) -> None:
        problems = [
            f"{name} must be {rule}, got {value!r}"
            for name, value, rule, ok in (
                ("alpha", self.alpha, ">= 0", self.alpha >= 0),
                ("beta", self.beta, ">= 0", self.beta >= 0),
                ("top_n", self.top_n, ">= 1", self.top_n >= 1),
                ("lambda_spread", self.lambda_spread, "in [0, 1]", 0 <= self.lambda_spread <= 1),
                ("s_max_depth", self.s_max_depth, ">= 0", self.s_max_depth >= 0),
                ("no_concession_limit", self.no_concession_limit, ">= 1", self.no_concession_limit >= 1),
                ("below_batna_limit", self.below_batna_limit, ">= 1", self.below_batna_limit >= 1),
                ("method", self.method, "auto, sweep, milp or loop", self.method in METHODS),
                ("milp_node_limit", self.milp_node_limit, "None or >= 1", (self.milp_node_limit or 1) >= 1),
                (
                    "milp_node_budget",
                    self.milp_node_budget,
                    "None or >= 1",
                    (self.milp_node_budget or 1) >= 1,
                ),
            )
            if not ok
        ]
        if problems:
            raise ScenarioError("ASTRA option " + "; ".join(problems))


def make_config(options: Mapping[str, Any]) -> AstraConfig:
    """An `AstraConfig` from keyword options, checking the names.

    Raises:
        ScenarioError: an option is not an `AstraConfig` field.
    """
    known = {f.name for f in fields(AstraConfig)}
    unknown = sorted(set(options) - known)
    if unknown:
        raise ScenarioError(f"unknown ASTRA option(s) {unknown}; expected some of {sorted(known)}")
    return AstraConfig(**options)
