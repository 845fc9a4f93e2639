"""ASTRA's settings: `AstraConfig` (defaults follow the seed), its checks, and building one from options."""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, fields
from typing import Any

from parley.agents.astra.optimizer import Method
from parley.agents.astra.signals import POINTS_SCALE
from parley.errors import ScenarioError

RECIPROCAL_SHARE = 0.5
"""Default of `AstraConfig.reciprocal_share`: a concession is at most this share of the partner's
latest one (both in ASTRA's points)."""

METHODS = ("auto", "sweep", "milp", "loop")
"""Accepted values of `AstraConfig.method`."""


@dataclass(frozen=True, slots=True)
class AstraConfig:
    """ASTRA's settings (defaults follow the seed where it gives one).

    The deadline settings (`stall_share`, `concession_exponent`, `deadline_band`,
    `aspiration_slack`, `reciprocal_share`, `partner_floor_share`) are parley's, not the seed's;
    `concession_exponent`, `aspiration_slack` and `partner_floor_share` were chosen on generated
    games with seeds 0-99 only (`benchmarks/generalisation.py --split tuning`; see
    docs/results/generalisation.md), never on the evaluation seeds.

    Attributes:
        alpha: Weight of PAP in the final score (seed: 0.35).
        beta: Weight of SA in the final score (seed: 0.65).
        top_n: Distinct stage-2 candidates kept for stage 3.
        lambda_spread: λ is explored within ± this of the chosen value, in 0.1 steps.
        s_max_depth: S_max is explored from the chosen value down by this many points, in 1-point steps.
        stall_share: ASTRA speaks of a deadlock (and lifts its tit-for-tat cap) once the partner has
            made no concession for this share of the session's moves (at least 2 offers).
        concession_exponent: e of the deadline ceiling (`deadline.aspiration`): ASTRA never asks
            more than reservation' + (36 - reservation')·(1 - t^(1/e)) points at relative time t.
        deadline_band: How far below the deadline ceiling (points) an offer the ceiling forces may go.
        aspiration_slack: How far below the deadline curve (points) tit-for-tat concessions, and
            the keep-alive and deadlock concessions, may take an offer before the last move (None:
            no floor from the curve; the curve is then only a ceiling).
        reciprocal_share: Tit-for-tat cap: one proposal concedes at most this share of the partner's
            latest concession (both in ASTRA's points).
        partner_floor_share: The partner's estimated BATNA (stage 2's floor on S_p) as a share of
            ASTRA's own BATNA in points (1: "the partner's walk-away is as good as mine").
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
    stall_share: float = 0.15
    concession_exponent: float = 0.2
    deadline_band: float = 2.0
    aspiration_slack: float | None = 1.0
    reciprocal_share: float = RECIPROCAL_SHARE
    partner_floor_share: float = 0.0
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
                ("stall_share", self.stall_share, "in (0, 1]", 0 < self.stall_share <= 1),
                (
                    "concession_exponent",
                    self.concession_exponent,
                    "a finite number > 0",
                    math.isfinite(self.concession_exponent) and self.concession_exponent > 0,
                ),
                (
                    "deadline_band",
                    self.deadline_band,
                    "a finite number >= 0",
                    math.isfinite(self.deadline_band) and self.deadline_band >= 0,
                ),
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
