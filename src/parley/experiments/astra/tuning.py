"""The grid search behind every tuned parameter of the ASTRA experiment: for each entry of
`config.TUNABLES` its system plays table 1 (base, greedy, fair partners) on the tuning seeds once
per grid value, and the value with the best mean P1 score is kept (`config.OBJECTIVE`)."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence

from parley.errors import ScenarioError
from parley.experiments.astra.config import (
    EVALUATION_SEEDS,
    TUNABLES,
    TUNING_SEEDS,
    GridPoint,
    TunedConfig,
    TunedParameter,
    best_value,
)
from parley.experiments.astra.runs import (
    ProgressCallback,
    RunRecord,
    RunSpec,
    plan_runs,
    run_experiment,
)
from parley.metrics.stats import mean_ci


def tuning_specs(seeds: Sequence[int]) -> list[RunSpec]:
    """Every tuning session: each tunable x grid value x partner x seed (table 1 only).

    Raises:
        ScenarioError: a seed is not a tuning seed (evaluation seeds are never tuned on).
    """
    check_tuning_seeds(seeds)
    return [
        spec
        for entry in TUNABLES
        for value in entry.grid
        for spec in plan_runs(
            seeds=seeds, systems=[(entry.system, ((entry.parameter, value),))], tournament=False
        )
    ]


def check_tuning_seeds(seeds: Sequence[int]) -> None:
    """Refuse an empty seed list or one with a seed outside `TUNING_SEEDS`.

    Raises:
        ScenarioError: as above (naming an evaluation seed as such).
    """
    if not seeds:
        raise ScenarioError("tuning needs at least one tuning seed")
    leaked = sorted(set(seeds) & set(EVALUATION_SEEDS))
    if leaked:
        raise ScenarioError(f"evaluation seeds are never tuned on, got {leaked[:5]}")
    foreign = sorted(set(seeds) - set(TUNING_SEEDS))
    if foreign:
        raise ScenarioError(f"not tuning seeds: {foreign[:5]} (tuning seeds are 0-{max(TUNING_SEEDS)})")


def choose(records: Sequence[RunRecord], seeds: Sequence[int], command: str) -> TunedConfig:
    """The grid results of records (from `tuning_specs(seeds)`) and the best value per system.

    Raises:
        ScenarioError: a grid value has no session.
    """
    scores: dict[tuple[str, str], list[float]] = defaultdict(list)
    for record in records:
        scores[(record.agent, record.agent_options)].append(record.agent_utility)
    parameters: list[TunedParameter] = []
    for entry in TUNABLES:
        points: list[GridPoint] = []
        for value in entry.grid:
            sample = scores.get((entry.system, f"{entry.parameter}={value:g}"), [])
            if not sample:
                raise ScenarioError(f"no tuning session for {entry.system} at {entry.parameter}={value:g}")
            estimate = mean_ci(sample)
            spread = 0.0 if estimate.count < 2 else estimate.half_width
            points.append(GridPoint(value, estimate.mean, spread, estimate.count))
        chosen = best_value(points, entry.default)
        parameters.append(TunedParameter(entry.system, entry.parameter, tuple(points), chosen))
    return TunedConfig(tuple(seeds), tuple(parameters), command)


def tune(
    seeds: Sequence[int], *, command: str, jobs: int = 1, on_progress: ProgressCallback | None = None
) -> TunedConfig:
    """Run the grid search on seeds (tuning seeds only) and return what it chose.

    Raises:
        ScenarioError: a seed is not a tuning seed.
    """
    specs = tuning_specs(seeds)
    records = run_experiment(specs, jobs=jobs, on_progress=on_progress)
    return choose(records, seeds, command)
