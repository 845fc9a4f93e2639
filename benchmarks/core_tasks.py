"""Task subprocesses for bench_core: each task measures one thing and reports JSON on stdout.

Run as `python benchmarks/core_tasks.py TASK [--option value ...]`. The `negmas-*` tasks import
NegMAS (AGPL), so they run only in the bench venv; parley's source never imports it. Both sides
are built from the same numbers: NegMAS utilities are copied from parley's weighted tables.
"""

from __future__ import annotations

import argparse
import functools
import statistics
import sys
import tempfile
import time
import warnings
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))

from harness import measure, peak_rss_mb, report, serve

from parley.agents.registry import create
from parley.domain import Issue, LinearAdditiveUtility, OutcomeSpace
from parley.protocol.rules import Rules
from parley.protocol.session import Session
from parley.scenarios.model import Party, Scenario

BOULWARE, CONCEDER = "boulware", "conceder"
BIG_ISSUES, BIG_OPTIONS, BIG_SEED = 6, 10, 2024


# -- shared scenarios ------------------------------------------------------------------------------


def casino() -> tuple[Scenario, str]:
    """The shipped CaSiNo scenario (or the bench-local stand-in) and which one it is."""
    try:
        from parley.scenarios import load_scenario  # type: ignore[attr-defined]

        return load_scenario("casino"), "shipped `casino` scenario"
    except ImportError:
        from fallbacks import casino_scenario

        return casino_scenario(), "bench-local CaSiNo stand-in (shipped scenario missing)"


def big_scenario(max_rounds: int = 100) -> Scenario:
    """Two opposed linear-additive parties over 6 issues × 10 options (1,000,000 outcomes)."""
    rng = np.random.default_rng(BIG_SEED)
    space = OutcomeSpace.of([Issue.integer_range(f"issue{i}", 0, BIG_OPTIONS - 1) for i in range(BIG_ISSUES)])
    parties = []
    for position, name in enumerate(("buyer", "seller")):
        weights = rng.dirichlet(np.ones(BIG_ISSUES))
        values = {}
        for i in range(BIG_ISSUES):
            table = np.sort(rng.random(BIG_OPTIONS))
            values[f"issue{i}"] = (table if position == 0 else table[::-1]).tolist()
        utility = LinearAdditiveUtility(
            space, {f"issue{i}": float(w) for i, w in enumerate(weights)}, values, reservation_value=0.25
        )
        parties.append(Party(name, name, utility))
    rules = Rules(max_rounds=max_rounds, stagnation_rounds=max_rounds, on_stagnation="continue")
    return Scenario("big", "1e6-outcome space", "", space, tuple(parties), rules)


@functools.cache
def _registered() -> bool:
    """Whether parley registers both agents (asked once, outside the timed loop)."""
    from parley.agents.registry import available

    return BOULWARE in available() and CONCEDER in available()


def parley_agents(scenario: Scenario, seed: int, *, lean: bool = False) -> tuple[dict[str, Any], str]:
    """Boulware for the first party and Conceder for the second, from parley's registry.

    lean=True uses the bench-local stand-ins instead (what the domain's memory-lean calls allow).
    """
    names = scenario.party_names
    if not lean and _registered():
        return {
            names[0]: create(BOULWARE, party=names[0], seed=seed),
            names[1]: create(CONCEDER, party=names[1], seed=seed + 1),
        }, "registered `boulware` and `conceder`"
    from fallbacks import TimeBasedStandIn

    return {names[0]: TimeBasedStandIn(0.2), names[1]: TimeBasedStandIn(2.0)}, "bench-local stand-ins"


def run_parley(scenario: Scenario, seed: int, *, lean: bool = False) -> Any:
    """One parley negotiation (negotiators built fresh, as a tournament would)."""
    negotiators, _ = parley_agents(scenario, seed, lean=lean)
    return Session(scenario.space, scenario.setups(), negotiators, scenario.rules).run()


def negmas_ufuns(scenario: Scenario) -> tuple[Any, tuple[Any, ...]]:
    """The NegMAS outcome space and utilities equal to the scenario's (same tables, same BATNAs)."""
    from negmas import make_issue, make_os
    from negmas.preferences import LinearAdditiveUtilityFunction
    from negmas.preferences.value_fun import TableFun

    space = scenario.space
    outcome_space = make_os([make_issue(list(issue.values), issue.name) for issue in space.issues])
    ufuns = []
    for party in scenario.parties:
        utility = party.utility
        if not isinstance(utility, LinearAdditiveUtility) or utility.offset:
            raise TypeError(f"party {party.name}: only linear-additive utilities without offset convert")
        values = {
            issue.name: TableFun(dict(zip(issue.values, table.tolist(), strict=True)))
            for issue, table in zip(space.issues, utility.weighted_tables, strict=True)
        }
        ufuns.append(
            LinearAdditiveUtilityFunction(
                values=values,
                weights={name: 1.0 for name in space.names},
                outcome_space=outcome_space,
                reserved_value=utility.reservation_value,
            )
        )
    return outcome_space, tuple(ufuns)


def run_negmas(outcome_space: Any, ufuns: Sequence[Any], steps: int, one_offer_per_step: bool) -> Any:
    """One NegMAS SAO negotiation, Boulware (first) against Conceder (second)."""
    from negmas import SAOMechanism
    from negmas.sao.negotiators import BoulwareTBNegotiator, ConcederTBNegotiator

    mechanism = SAOMechanism(
        outcome_space=outcome_space, n_steps=steps, one_offer_per_step=one_offer_per_step
    )
    mechanism.add(BoulwareTBNegotiator(), ufun=ufuns[0])
    mechanism.add(ConcederTBNegotiator(), ufun=ufuns[1])
    mechanism.run()
    return mechanism


# -- tasks -----------------------------------------------------------------------------------------


def task_parley_casino(args: argparse.Namespace) -> dict[str, Any]:
    scenario, scenario_kind = casino()
    lean = args.agents == "lean"
    _, agent_kind = parley_agents(scenario, 0, lean=lean)
    seeds = iter(range(10**9))
    timing = measure(
        lambda: run_parley(scenario, next(seeds), lean=lean), repeat=args.repeat, number=args.number, warmup=5
    )
    results = [run_parley(scenario, seed, lean=lean) for seed in range(50)]
    agreements = [r.agreement for r in results if r.agreement is not None]
    moves = [sum(1 for e in r.trajectory if e.kind == "action") for r in results]
    engine = _replay_timing(scenario, results[0].trajectory, args)
    return {
        "timing": timing.to_json(),
        "engine_timing": engine.to_json(),
        "scenario": scenario_kind,
        "agents": agent_kind,
        "agreement_rate": len(agreements) / len(results),
        "moves": statistics.mean(moves),
        "utilities": [statistics.mean(a.utilities[p] for a in agreements) for p in scenario.party_names]
        if agreements
        else None,
    }


def _replay_timing(scenario: Scenario, trajectory: Any, args: argparse.Namespace) -> Any:
    """The engine alone: replaying one recorded negotiation's moves (trivial negotiators)."""
    from parley.protocol.replay import replay

    setups = scenario.setups()
    return measure(
        lambda: replay(trajectory, scenario.space, setups, scenario.rules),
        repeat=args.repeat,
        number=args.number,
        warmup=5,
    )


def task_negmas_casino(args: argparse.Namespace) -> dict[str, Any]:
    scenario, _ = casino()
    outcome_space, ufuns = negmas_ufuns(scenario)
    single = args.one_offer_per_step == "yes"
    timing = measure(
        lambda: run_negmas(outcome_space, ufuns, args.steps, single),
        repeat=args.repeat,
        number=args.number,
        warmup=5,
    )
    runs = [run_negmas(outcome_space, ufuns, args.steps, single) for _ in range(20)]
    agreements = [m.agreement for m in runs if m.agreement is not None]
    return {
        "timing": timing.to_json(),
        "agreement_rate": len(agreements) / len(runs),
        "moves": statistics.mean(len(m.extended_trace) for m in runs),
        "utilities": [statistics.mean(float(u(a)) for a in agreements) for u in ufuns]
        if agreements
        else None,
    }


def task_parley_tournament(args: argparse.Namespace) -> dict[str, Any]:
    from parley.experiments.tournament import ResultStore, TournamentSpec, plan, run_games

    def tournament() -> int:
        # On tmpfs when there is one: NegMAS (path=None) writes nothing, so disk fsyncs stay out.
        memory_disk = "/dev/shm" if Path("/dev/shm").is_dir() else None
        with tempfile.TemporaryDirectory(dir=memory_disk) as directory:
            games = plan(TournamentSpec((BOULWARE, CONCEDER), ("casino",), args.repetitions, 0, True))
            run_games(games, ResultStore(Path(directory)), jobs=args.jobs)
            return len(games)

    count = tournament()  # warm-up, and the number of negotiations
    timing = measure(tournament, repeat=args.repeat, warmup=0)
    return {"timing": timing.to_json(), "negotiations": count}


def task_negmas_tournament(args: argparse.Namespace) -> dict[str, Any]:
    from negmas.inout import Scenario as NegmasScenario
    from negmas.sao.negotiators import BoulwareTBNegotiator, ConcederTBNegotiator
    from negmas.tournaments.neg.simple import cartesian_tournament

    scenario, _ = casino()
    outcome_space, ufuns = negmas_ufuns(scenario)
    negmas_scenario = NegmasScenario(outcome_space=outcome_space, ufuns=ufuns)
    counts: list[int] = []

    def tournament() -> None:
        results = cartesian_tournament(
            [BoulwareTBNegotiator, ConcederTBNegotiator],
            [negmas_scenario],
            n_repetitions=args.repetitions,
            njobs=args.jobs,
            n_steps=20,
            mechanism_params={"one_offer_per_step": True},
            rotate_ufuns=False,
            self_play=True,
            path=None,
            verbosity=0,
        )
        counts.append(len(results.details))

    tournament()
    timing = measure(tournament, repeat=args.repeat, warmup=0)
    return {"timing": timing.to_json(), "negotiations": counts[0]}


def task_parley_analysis(args: argparse.Namespace) -> dict[str, Any]:
    from parley.domain import OutcomeAnalysis

    scenario = big_scenario()
    utilities = scenario.utilities()

    def analyse() -> tuple[Any, ...]:
        analysis = OutcomeAnalysis.of(utilities)
        return analysis.frontier, analysis.nash, analysis.kalai, analysis.max_welfare, analysis

    start = time.perf_counter()
    frontier, nash, kalai, welfare, analysis = analyse()
    cold = time.perf_counter() - start
    timing = measure(analyse, repeat=args.repeat, warmup=1)
    points = analysis.points
    rational = np.all(points[frontier] >= analysis.reservation, axis=1)
    return {
        "cold": cold,
        "timing": timing.to_json(),
        "frontier_size": int(frontier.size),
        "rational_frontier_size": int(rational.sum()),
        "nash": points[nash].tolist() if nash is not None else None,
        "kalai": points[kalai].tolist() if kalai is not None else None,
        "welfare": float(points[welfare].sum()) if welfare is not None else None,
    }


def task_negmas_analysis(args: argparse.Namespace) -> dict[str, Any]:
    from negmas.preferences.ops import kalai_points, max_welfare_points, nash_points, pareto_frontier

    _, ufuns = negmas_ufuns(big_scenario())
    frontier_times: list[float] = []
    total_times: list[float] = []
    found: dict[str, Any] = {}
    for _ in range(args.repeat):
        start = time.perf_counter()
        frontier, _indices = pareto_frontier(ufuns, sort_by_welfare=True)
        middle = time.perf_counter()
        ranges = [u.minmax() for u in ufuns]
        nash = nash_points(ufuns, frontier, ranges=ranges)
        kalai = kalai_points(ufuns, frontier, ranges=ranges)
        welfare = max_welfare_points(ufuns, frontier, ranges=ranges)
        end = time.perf_counter()
        frontier_times.append(middle - start)
        total_times.append(end - start)
        found = {
            "frontier_size": len(frontier),
            "nash": list(nash[0][0]) if nash else None,
            "kalai": list(kalai[0][0]) if kalai else None,
            "welfare": float(sum(welfare[0][0])) if welfare else None,
        }
    return {"frontier": {"samples": frontier_times}, "timing": {"samples": total_times}, **found}


def task_parley_big(args: argparse.Namespace) -> dict[str, Any]:
    scenario = big_scenario(args.rounds)
    from parley.agents import available

    available()  # import the agent modules before timing, as NegMAS's imports happen before its timer
    before = peak_rss_mb()
    lean = args.agents == "lean"
    start = time.perf_counter()
    result = run_parley(scenario, 0, lean=lean)
    elapsed = time.perf_counter() - start
    _, agent_kind = parley_agents(scenario, 0, lean=lean)
    return {
        "seconds": elapsed,
        "rss_before_mb": before,
        "agents": agent_kind,
        "agreement": result.agreement is not None,
        "moves": sum(1 for e in result.trajectory if e.kind == "action"),
    }


def task_negmas_big(args: argparse.Namespace) -> dict[str, Any]:
    outcome_space, ufuns = negmas_ufuns(big_scenario(args.rounds))
    before = peak_rss_mb()
    start = time.perf_counter()
    mechanism = run_negmas(outcome_space, ufuns, args.rounds, True)
    elapsed = time.perf_counter() - start
    return {
        "seconds": elapsed,
        "rss_before_mb": before,
        "agreement": mechanism.agreement is not None,
        "moves": len(mechanism.extended_trace),
    }


def task_parley_casino_serve(args: argparse.Namespace) -> dict[str, Any]:
    """parley's CaSiNo negotiation, timed in batches on request (see `harness.lockstep`)."""
    scenario, _ = casino()
    seeds = iter(range(10**9))
    return {"batches": serve(lambda: run_parley(scenario, next(seeds)))}


def task_negmas_casino_serve(args: argparse.Namespace) -> dict[str, Any]:
    """NegMAS's CaSiNo negotiation, timed in batches on request (see `harness.lockstep`)."""
    scenario, _ = casino()
    outcome_space, ufuns = negmas_ufuns(scenario)
    single = args.one_offer_per_step == "yes"
    return {"batches": serve(lambda: run_negmas(outcome_space, ufuns, args.steps, single))}


TASKS: dict[str, Callable[[argparse.Namespace], dict[str, Any]]] = {
    "parley-casino": task_parley_casino,
    "negmas-casino": task_negmas_casino,
    "parley-casino-serve": task_parley_casino_serve,
    "negmas-casino-serve": task_negmas_casino_serve,
    "parley-tournament": task_parley_tournament,
    "negmas-tournament": task_negmas_tournament,
    "parley-analysis": task_parley_analysis,
    "negmas-analysis": task_negmas_analysis,
    "parley-big": task_parley_big,
    "negmas-big": task_negmas_big,
}


def main() -> None:
    """Parse the task and its options, run it, report the result."""
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("task", choices=sorted(TASKS))
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--number", type=int, default=50)
    parser.add_argument("--steps", type=int, default=20)
    parser.add_argument("--one-offer-per-step", choices=("yes", "no"), default="yes")
    parser.add_argument("--repetitions", type=int, default=10)
    parser.add_argument("--jobs", type=int, default=1)
    parser.add_argument("--rounds", type=int, default=100)
    parser.add_argument("--agents", choices=("registered", "lean"), default="registered")
    args = parser.parse_args()
    warnings.filterwarnings("ignore")
    report(TASKS[args.task](args))


if __name__ == "__main__":
    main()
