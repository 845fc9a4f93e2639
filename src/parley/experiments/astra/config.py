"""The ASTRA experiment's fixed configuration: disjoint tuning and evaluation seeds, the evaluated
(P1) systems with the one free parameter each is tuned on and its grid, and the tuned-values file
that `parley experiment astra --tune` writes and every evaluation run reads (checked on load)."""

from __future__ import annotations

import json
import math
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from pydantic import BaseModel, ConfigDict, ValidationError

from parley.agents.astra.config import AstraConfig
from parley.errors import ScenarioError

TUNING_SEEDS: tuple[int, ...] = tuple(range(100))
"""Seeds every tuned parameter is chosen on (seeds 0-99: the runs the concession cap used to be
chosen and reported on, so spent for evaluation)."""
EVALUATION_SEEDS: tuple[int, ...] = tuple(range(5000, 5100))
"""Seeds never used for tuning (disjoint from `TUNING_SEEDS`): the report's figures."""
SEED_SPLITS: dict[str, tuple[int, ...]] = {"tuning": TUNING_SEEDS, "evaluation": EVALUATION_SEEDS}
"""The experiment's seed split, by name (`parley experiment astra --split`)."""

TUNED_FILE = Path(__file__).with_name("tuned.json")
"""The committed tuned values (written by `parley experiment astra --tune`)."""
MAX_TUNED_BYTES = 1_000_000
"""A tuned file is a few kilobytes; anything larger is refused unread."""

OBJECTIVE = (
    "mean P1 score over every tuning session (CaSiNo points; a no-deal counts the BATNA, 5), pooled "
    "over the base, greedy and fair partners; among equal best values the registered default, else "
    "the earliest"
)
"""What the grid search maximises, for every system alike."""


SYSTEMS: dict[str, str] = {"astra": "astra", "astra-ablation": "astra-ablation", "time-based": "linear"}
"""The evaluated (P1) systems, by the name the report gives them, and the registered agent each is
built from."""


@dataclass(frozen=True, slots=True)
class Tunable:
    """A free parameter of an evaluated (P1) system.

    Attributes:
        system: The system (a key of `SYSTEMS`).
        parameter: The agent option the grid search sets.
        grid: The values tried, in order.
        default: The agent's registered default (kept for ties, and for the system's other
            parameters while this one is searched).
    """

    system: str
    parameter: str
    grid: tuple[float, ...]
    default: float


_ASTRA = AstraConfig()

TUNABLES: tuple[Tunable, ...] = (
    Tunable("astra", "reciprocal_share", (0.25, 0.5, 0.75, 1.0), _ASTRA.reciprocal_share),
    Tunable("astra", "concession_exponent", (0.1, 0.2, 0.35, 0.5, 1.0), _ASTRA.concession_exponent),
    Tunable(
        "astra-ablation",
        "ablation_target_points",
        (9.0, 12.0, 15.0, 18.0, 21.0, 24.0, 27.0, 30.0),
        _ASTRA.ablation_target_points,
    ),
    Tunable("time-based", "exponent", (0.1, 0.2, 0.5, 1.0, 2.0, 5.0), 1.0),
)
"""The grids: ASTRA's tit-for-tat concession cap and its deadline-curve exponent (its two
concession-schedule settings), where the ablation's linear concession ends (points), and the
time-based baseline's exponent e. Each is searched alone (one pass, the system's other parameters at
their defaults); a system's tuned values are then used together."""


def agent_of(system: str) -> str:
    """The registered agent behind a P1 system (any other name stands for itself)."""
    return SYSTEMS.get(system, system)


def tunable(system: str, parameter: str) -> Tunable:
    """The entry of `TUNABLES` for system's parameter.

    Raises:
        ScenarioError: no such entry.
    """
    for entry in TUNABLES:
        if (entry.system, entry.parameter) == (system, parameter):
            return entry
    known = ", ".join(f"{e.system}.{e.parameter}" for e in TUNABLES)
    raise ScenarioError(f"no tuned parameter {system}.{parameter}; expected one of {known}")


def split_seeds(split: str, runs: int | None = None) -> tuple[int, ...]:
    """The first runs seeds of split (all of them for None).

    Raises:
        ScenarioError: the split is unknown, or runs is not in [1, the split's size].
    """
    if split not in SEED_SPLITS:
        raise ScenarioError(f"unknown split {split!r}; expected one of {', '.join(SEED_SPLITS)}")
    seeds = SEED_SPLITS[split]
    if runs is not None and not 1 <= runs <= len(seeds):
        raise ScenarioError(f"--runs must be between 1 and {len(seeds)} for the {split} split, got {runs}")
    return seeds if runs is None else seeds[:runs]


@dataclass(frozen=True, slots=True)
class GridPoint:
    """One grid value's result on the tuning seeds.

    Attributes:
        value: The parameter value.
        mean: The objective (mean P1 score, points).
        half_width: Its Student-t 95% half-width (0 when every session scored the same).
        sessions: Sessions behind the mean.
    """

    value: float
    mean: float
    half_width: float
    sessions: int


@dataclass(frozen=True, slots=True)
class TunedParameter:
    """The grid search for one system: every value's result and the value chosen."""

    system: str
    parameter: str
    grid: tuple[GridPoint, ...]
    chosen: float


@dataclass(frozen=True, slots=True)
class TunedConfig:
    """What `--tune` chose, on which seeds, and how (the file's content).

    Attributes:
        seeds: The tuning seeds the grid search ran on (a subset of `TUNING_SEEDS`).
        parameters: One grid search per entry of `TUNABLES`, in that order.
        command: The command that wrote it.
    """

    seeds: tuple[int, ...]
    parameters: tuple[TunedParameter, ...]
    command: str

    def chosen(self, system: str, parameter: str) -> float:
        """The tuned value of system's parameter."""
        return next(p.chosen for p in self.parameters if (p.system, p.parameter) == (system, parameter))

    def options(self, system: str) -> tuple[tuple[str, float], ...]:
        """The agent options that give system its tuned values (empty for an untuned system)."""
        return tuple((p.parameter, p.chosen) for p in self.parameters if p.system == system)


def best_value(points: Sequence[GridPoint], default: float) -> float:
    """The grid value with the highest objective; among equal best ones the registered default if
    it is one of them, else the earliest."""
    top = max(point.mean for point in points)
    best = [point.value for point in points if point.mean == top]
    return default if default in best else best[0]


class _Point(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid", allow_inf_nan=False, strict=True)
    value: float
    mean: float
    half_width: float
    sessions: int


class _Parameter(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid", allow_inf_nan=False, strict=True)
    system: str
    parameter: str
    grid: list[_Point]
    chosen: float


class _File(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid", allow_inf_nan=False, strict=True)
    experiment: str
    objective: str
    command: str
    tuning_seeds: list[int]
    parameters: list[_Parameter]


def save_tuned(config: TunedConfig, path: Path = TUNED_FILE) -> Path:
    """Write config as strict JSON (sorted keys, no NaN) and return the path."""
    content = {
        "experiment": "astra",
        "objective": OBJECTIVE,
        "command": config.command,
        "tuning_seeds": list(config.seeds),
        "parameters": [
            {
                "system": p.system,
                "parameter": p.parameter,
                "chosen": p.chosen,
                "grid": [
                    {"value": g.value, "mean": g.mean, "half_width": g.half_width, "sessions": g.sessions}
                    for g in p.grid
                ],
            }
            for p in config.parameters
        ],
    }
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(content, indent=2, sort_keys=True, allow_nan=False) + "\n", encoding="utf-8")
    return path


def load_tuned(path: Path = TUNED_FILE) -> TunedConfig:
    """Read and check a tuned file: tuning seeds only, today's systems and grids, the best value chosen.

    Raises:
        ScenarioError: the file is missing, unreadable, not the tuned-file format, or does not
            match the configuration in code (stale grids, foreign seeds, a hand-picked value).
    """
    source = str(path)
    try:
        if path.stat().st_size > MAX_TUNED_BYTES:
            raise ScenarioError(f"larger than {MAX_TUNED_BYTES} bytes; not a tuned file", source=source)
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise ScenarioError(
            "no tuned values here; run `parley experiment astra --tune` first", source=source
        ) from None
    except (OSError, UnicodeDecodeError) as error:
        raise ScenarioError(f"cannot read the tuned values: {error}", source=source) from None
    try:
        data = _File.model_validate(json.loads(text))
    except (ValueError, ValidationError) as error:
        first = str(error).splitlines()[0]
        raise ScenarioError(f"not a tuned-values file ({first})", source=source) from None
    return _checked(data, source)


def _checked(data: _File, source: str) -> TunedConfig:
    if data.experiment != "astra":
        raise ScenarioError(f"tuned values for {data.experiment!r}, not astra", source=source)
    foreign = sorted(set(data.tuning_seeds) - set(TUNING_SEEDS))
    if foreign or not data.tuning_seeds:
        raise ScenarioError(
            f"tuned on seeds outside the tuning split: {foreign[:5] or 'none given'}", source=source
        )
    names = [f"{p.system}.{p.parameter}" for p in data.parameters]
    if names != [f"{entry.system}.{entry.parameter}" for entry in TUNABLES]:
        raise ScenarioError(
            f"tuned systems {names} do not match the experiment's; rerun --tune", source=source
        )
    parameters = tuple(_parameter(p, source) for p in data.parameters)
    return TunedConfig(tuple(data.tuning_seeds), parameters, data.command)


def _parameter(data: _Parameter, source: str) -> TunedParameter:
    entry = tunable(data.system, data.parameter)
    points = tuple(GridPoint(p.value, p.mean, p.half_width, p.sessions) for p in data.grid)
    if tuple(p.value for p in points) != entry.grid:
        raise ScenarioError(
            f"the grid for {data.system} is not today's ({entry.parameter} in {list(entry.grid)}); "
            "rerun --tune",
            source=source,
        )
    if any(not math.isfinite(p.mean) or p.sessions < 1 for p in points):
        raise ScenarioError(f"the grid for {data.system} has an empty or non-finite point", source=source)
    if data.chosen != best_value(points, entry.default):
        raise ScenarioError(
            f"{data.system}'s chosen {data.parameter} {data.chosen} is not the grid's best "
            f"({best_value(points, entry.default)})",
            source=source,
        )
    return TunedParameter(data.system, data.parameter, points, data.chosen)
