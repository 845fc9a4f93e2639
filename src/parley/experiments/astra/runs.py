"""Running the ASTRA experiment: the randomised CaSiNo games, the plan of sessions, playing and
measuring each one (in parallel processes), and the record each session leaves."""

from __future__ import annotations

import logging
import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from functools import cache
from typing import Any

import numpy as np

from parley.agents.registry import available
from parley.domain.issues import Issue
from parley.domain.space import OutcomeSpace
from parley.domain.utility import LinearAdditiveUtility
from parley.experiments.astra.config import SYSTEMS, TunedConfig, agent_of
from parley.experiments.batch import Row, TaskStore, map_specs, record_from_row, record_row
from parley.experiments.runner import build_negotiators, run_negotiation
from parley.metrics.bargaining import outcomes
from parley.protocol.rules import Rules
from parley.protocol.session import SessionResult
from parley.scenarios.model import Party, Scenario

logger = logging.getLogger(__name__)

CASINO_ITEMS: tuple[str, ...] = ("food", "water", "firewood")
CASINO_UNITS = 3
CASINO_POINTS = (5.0, 4.0, 3.0)
"""Points per unit of a High, Medium and Low priority item."""
CASINO_BATNA = 5.0
TABLE1_AGENTS: tuple[str, ...] = tuple(SYSTEMS)
"""The evaluated (P1) systems of table 1: ASTRA, its ablation and a time-based baseline."""
TABLE1_PARTNERS = ("base", "greedy", "fair")
TOURNAMENT_SEEDS = 10
"""Sessions per (scenario, baseline) pair in the tournament (the split's first seeds): half with
ASTRA moving first."""

Options = tuple[tuple[str, float], ...]
"""Agent options of the evaluated system, as (name, value) pairs (hashable, for the spec)."""

ProgressCallback = Callable[[int, int], None]
"""Called with (finished, total) after each run."""


@dataclass(frozen=True, slots=True)
class RunSpec:
    """One session of the experiment.

    Attributes:
        study: "table1" or "tournament".
        agent: The evaluated system (one of `TABLE1_AGENTS`, or any registered agent name).
        partner: The partner's agent name.
        scenario: Scenario name ("casino-random" for the randomised CaSiNo games).
        seed: The run's seed (also draws the CaSiNo priorities).
        agent_first: Whether the evaluated agent plays the first party (moves first).
        options: Options for the evaluated agent (its tuned parameter; empty: registered defaults).
    """

    study: str
    agent: str
    partner: str
    scenario: str
    seed: int
    agent_first: bool = True
    options: Options = ()


@dataclass(frozen=True, slots=True)
class RunRecord:
    """What one session produced (one CSV row), scores in the scenario's own units.

    Attributes:
        agent_options: The evaluated agent's options as "name=value" (empty: registered defaults).
        lambdas: (stance, fairness, λ) of every ASTRA proposal (for the heatmap).
        tactics: (stance, fairness, tactic) of every ASTRA proposal.
    """

    study: str
    agent: str
    partner: str
    scenario: str
    seed: int
    agent_first: bool
    agent_utility: float
    partner_utility: float
    agent_normalized: float
    partner_normalized: float
    agreement: bool
    agent_walked: bool
    partner_walked: bool
    ending: str
    rounds: int
    pareto_distance: float
    pareto_distance_normalized: float
    agent_priorities: str
    partner_priorities: str
    agent_options: str = ""
    lambdas: tuple[tuple[str, str, float], ...] = field(default=())
    tactics: tuple[tuple[str, str, str], ...] = field(default=())


def casino_game(seed: int) -> Scenario:
    """A CaSiNo campsite game with both campers' priority orders drawn from seed.

    3 items x 3 units; High/Medium/Low = 5/4/3 points per unit; BATNA 5 points each. The issues
    count the units camper A takes (B gets the rest), as in the shipped `casino` scenario, whose
    rules are reused when it is available.
    """
    rng = np.random.default_rng(seed)
    first, second = rng.permutation(len(CASINO_ITEMS)), rng.permutation(len(CASINO_ITEMS))
    space = OutcomeSpace.of(
        [Issue.integer_range(item, 0, CASINO_UNITS, unit="packages") for item in CASINO_ITEMS]
    )
    a_order = [CASINO_ITEMS[i] for i in first]
    b_order = [CASINO_ITEMS[i] for i in second]
    parties = (_camper("A", space, a_order, takes=True), _camper("B", space, b_order, takes=False))
    return Scenario(
        "casino-random",
        "Campsite supplies (random priorities)",
        "Split 3 food, 3 water and 3 firewood packages between two campers.",
        space,
        parties,
        _casino_rules(),
        metadata={"seed": seed, "priorities": {"A": a_order, "B": b_order}},
    )


def _camper(name: str, space: OutcomeSpace, order: list[str], *, takes: bool) -> Party:
    """A camper valuing the items in order (High first); the issues count the units A takes."""
    values = {
        item: [
            CASINO_POINTS[order.index(item)] * (k if takes else CASINO_UNITS - k)
            for k in range(CASINO_UNITS + 1)
        ]
        for item in CASINO_ITEMS
    }
    weights = dict.fromkeys(CASINO_ITEMS, 1.0)
    utility = LinearAdditiveUtility(space, weights, values, CASINO_BATNA)
    return Party(name, "camper", utility, signals={"priorities": order})


@cache
def _casino_rules() -> Rules:
    try:
        from parley.scenarios import load_scenario

        return load_scenario("casino").rules
    except Exception as error:  # the template is optional: fall back to the CaSiNo defaults
        logger.info("no casino template (%s); using 20 rounds", error)
        return Rules(max_rounds=20, stagnation_rounds=6)


@cache
def _shipped(name: str) -> Scenario:
    from parley.scenarios import load_scenario

    return load_scenario(name)


def bilateral_scenarios() -> list[str]:
    """Names of the shipped two-party scenarios."""
    from parley.scenarios import list_scenarios

    return [info.name for info in list_scenarios() if len(info.parties) == 2]


def baseline_names() -> list[str]:
    """Every registered rule-based baseline (from `parley.agents.baselines`)."""
    import importlib

    baselines = importlib.import_module("parley.agents.baselines")
    return [name for name, entry in available().items() if _defined_in(entry.factory, baselines.__name__)]


def _defined_in(factory: Callable[..., object], package: str) -> bool:
    """Whether factory (or the function a functools.partial wraps) comes from package."""
    target = getattr(factory, "func", factory)
    return str(getattr(target, "__module__", "")).startswith(package)


def plan_runs(
    runs: int | None = None,
    *,
    seeds: Sequence[int] | None = None,
    tuned: TunedConfig | None = None,
    systems: Sequence[tuple[str, Options]] | None = None,
    tournament_seeds: int = TOURNAMENT_SEEDS,
    tournament: bool = True,
) -> list[RunSpec]:
    """Every session of the experiment: table-1 cells x seeds, then the tournament.

    Args:
        runs: Seeds 0..runs-1 (when seeds is not given).
        seeds: The seeds to play (a split's, see `config.split_seeds`).
        tuned: Tuned values for the systems (None: registered defaults).
        systems: (system, options) pairs to evaluate instead of every system of `SYSTEMS` with
            its tuned (or registered default) options.
        tournament_seeds: Sessions per scenario x partner pair: the first this many seeds.
        tournament: Whether to add the tournament.
    """
    played = tuple(seeds) if seeds is not None else tuple(range(runs or 0))
    chosen = list(systems) if systems is not None else [_system(system, tuned) for system in SYSTEMS]
    specs = [
        RunSpec("table1", agent, partner, "casino-random", seed, options=options)
        for agent, options in chosen
        for partner in TABLE1_PARTNERS
        for seed in played
    ]
    if tournament:
        astra = _system("astra", tuned)[1]
        specs += [
            RunSpec("tournament", "astra", partner, scenario, seed, agent_first=i % 2 == 0, options=astra)
            for scenario in bilateral_scenarios()
            for partner in [*baseline_names(), "astra"]
            for i, seed in enumerate(played[:tournament_seeds])
        ]
    return specs


def _system(system: str, tuned: TunedConfig | None) -> tuple[str, Options]:
    return (system, tuned.options(system) if tuned is not None else ())


@dataclass(frozen=True, slots=True)
class AgentOverride:
    """Another registered agent to play the evaluated system's seat (e.g. ``astra-llm`` for ``astra``).

    Attributes:
        agent: The registered agent name.
        options: Its options (they replace the spec's; the record still names the spec's system).
    """

    agent: str
    options: Mapping[str, Any]


def run_one(
    spec: RunSpec,
    *,
    override: AgentOverride | None = None,
    on_result: Callable[[SessionResult], None] | None = None,
) -> RunRecord:
    """Play one session and measure it.

    Args:
        spec: The session.
        override: Another agent in the evaluated system's seat (None: the system's registered agent
            with the spec's options).
        on_result: Called with the finished session before it is measured (e.g. to close its LLM
            accounting).
    """
    scenario = casino_game(spec.seed) if spec.scenario == "casino-random" else _shipped(spec.scenario)
    names = scenario.party_names
    agent_party, partner_party = (names[0], names[1]) if spec.agent_first else (names[1], names[0])
    agents = {agent_party: spec.agent, partner_party: spec.partner}
    seat = override or AgentOverride(agent_of(spec.agent), dict(spec.options))
    registered = {agent_party: seat.agent, partner_party: spec.partner}
    negotiators = build_negotiators(
        scenario, [registered[name] for name in names], spec.seed, {agent_party: seat.options}
    )
    result = run_negotiation(scenario, negotiators, seed=spec.seed, agent_names=agents)
    if on_result is not None:
        on_result(result)
    by_party = {o.party: o for o in outcomes(scenario, result, agents)}
    mine, theirs = by_party[agent_party], by_party[partner_party]
    walker = result.no_deal.walker if result.no_deal is not None else None
    priorities = scenario.metadata.get("priorities", {})
    return RunRecord(
        spec.study,
        spec.agent,
        spec.partner,
        spec.scenario,
        spec.seed,
        spec.agent_first,
        mine.utility,
        theirs.utility,
        mine.normalized_utility,
        theirs.normalized_utility,
        result.agreement is not None,
        walker == agent_party,
        walker == partner_party,
        "agreement" if result.no_deal is None else result.no_deal.reason,
        result.rounds,
        _raw_distance(scenario, result, (agent_party, partner_party)),
        mine.pareto_distance,
        ">".join(priorities.get(agent_party, [])),
        ">".join(priorities.get(partner_party, [])),
        ";".join(f"{name}={value:g}" for name, value in spec.options),
        *_astra_choices(result, agent_party),
    )


def _raw_distance(scenario: Scenario, result: SessionResult, order: Sequence[str]) -> float:
    if result.agreement is None or not scenario.space.fits_in_memory(2_000_000):
        return math.nan
    point = [result.agreement.utilities[name] for name in scenario.party_names]
    return scenario.analysis.distance_to_frontier(point)


def _astra_choices(
    result: SessionResult, party: str
) -> tuple[tuple[tuple[str, str, float], ...], tuple[tuple[str, str, str], ...]]:
    lambdas: list[tuple[str, str, float]] = []
    tactics: list[tuple[str, str, str]] = []
    for event in result.trajectory.of_kind("trace"):
        data = event.data
        if event.party != party or data.get("mode") != "propose" or not data.get("stage2"):
            continue
        key = (str(data["stance"]), str(data["fairness"]))
        lambdas.append((*key, float(data["stage2"]["lambda"])))
        if data.get("tactic"):
            tactics.append((*key, str(data["tactic"]["name"])))
    return tuple(lambdas), tuple(tactics)


def run_task(spec: RunSpec) -> list[Row]:
    """One session as the batch layer's task: its record as the one stored row."""
    return [record_row(run_one(spec))]


def run_experiment(
    specs: Sequence[RunSpec],
    *,
    jobs: int = 1,
    on_progress: ProgressCallback | None = None,
    store: TaskStore | None = None,
    scheduler: str | None = None,
) -> list[RunRecord]:
    """Play every spec not yet in store (in jobs processes, or on a Dask scheduler) and return the
    records in spec order, read back from the store (see `parley.experiments.batch`)."""
    finished = 0

    def advance(count: int) -> None:
        nonlocal finished
        finished += count
        if on_progress is not None:
            on_progress(finished, len(specs))

    rows = map_specs(specs, run_task, store, jobs=jobs, scheduler=scheduler, on_progress=advance)
    return [record_from_row(RunRecord, row) for task in rows for row in task]
