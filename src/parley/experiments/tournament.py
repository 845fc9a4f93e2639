"""Tournaments: every agent pairing on every scenario, repeated, in parallel, resumable from disk.

Results are appended game by game to a JSONL store, so an interrupted tournament resumes where
it stopped; the summary (mean ± 95% CI per agent) is computed from the store alone.
"""

from __future__ import annotations

import csv
import itertools
import json
import logging
import os
from collections import defaultdict
from collections.abc import Callable, Iterable, Iterator, Sequence
from concurrent.futures import ProcessPoolExecutor, as_completed
from dataclasses import dataclass, fields
from functools import lru_cache
from pathlib import Path
from typing import Any

from parley.errors import ScenarioError
from parley.experiments.runner import run_negotiation
from parley.metrics.bargaining import PartyOutcome, outcomes
from parley.metrics.stats import Estimate, mean_ci
from parley.scenarios.model import Scenario

logger = logging.getLogger(__name__)

RESULTS_FILE = "results.jsonl"
OUTCOME_FIELDS = tuple(f.name for f in fields(PartyOutcome))  # asdict() deep-copies; these are flat
Row = dict[str, Any]


@dataclass(frozen=True, slots=True)
class Game:
    """One negotiation to play: a scenario, one agent per party (in party order), a repetition."""

    scenario: str
    agents: tuple[str, ...]
    repetition: int
    seed: int

    @property
    def key(self) -> str:
        """Unique id of this game inside a tournament (used to resume)."""
        return f"{self.scenario}|{','.join(self.agents)}|{self.repetition}"


@dataclass(frozen=True, slots=True)
class TournamentSpec:
    """What to play.

    Attributes:
        agents: Registered agent names.
        scenarios: Shipped scenario names or file paths.
        repetitions: Games per pairing and scenario.
        seed: Base seed (each game's seed derives from it and the repetition).
        self_play: Also pair each agent with itself.
    """

    agents: tuple[str, ...]
    scenarios: tuple[str, ...]
    repetitions: int = 1
    seed: int = 0
    self_play: bool = False


@lru_cache(maxsize=64)
def _scenario(name: str) -> Scenario:
    from parley.scenarios import load_scenario

    return load_scenario(name)


def assignments(agents: Sequence[str], parties: int, *, self_play: bool) -> list[tuple[str, ...]]:
    """Agent lineups for a scenario with the given number of parties.

    Bilateral: every ordered pair (both role assignments). More parties: each agent once in each
    seat, the other seats filled by the following agents in rotation.
    """
    if parties == 2:
        return [
            (a, b) for a, b in itertools.product(agents, repeat=2) if self_play or a != b or len(agents) == 1
        ]
    lineups: list[tuple[str, ...]] = []
    for shift in range(len(agents)):
        lineup = tuple(agents[(shift + seat) % len(agents)] for seat in range(parties))
        if lineup not in lineups:
            lineups.append(lineup)
    return lineups


def plan(spec: TournamentSpec) -> list[Game]:
    """Every game of the tournament, in a fixed order.

    Raises:
        ScenarioError: an agent or scenario is unknown, or nothing would be played.
    """
    from parley.agents.registry import available

    known = available()
    unknown = [a for a in spec.agents if a not in known]
    if unknown:
        raise ScenarioError(f"unknown agents {unknown}; available: {', '.join(known)}")
    if spec.repetitions < 1:
        raise ScenarioError(f"repetitions must be at least 1, got {spec.repetitions}")
    games: list[Game] = []
    for name in spec.scenarios:
        scenario = _scenario(name)
        for lineup in assignments(spec.agents, len(scenario.parties), self_play=spec.self_play):
            for repetition in range(spec.repetitions):
                games.append(Game(name, lineup, repetition, spec.seed * 100_003 + repetition))
    if not games:
        raise ScenarioError(
            "the tournament is empty: give at least two agents (or --self-play) and one scenario"
        )
    return games


def play(game: Game) -> list[Row]:
    """Play one game and return one result row per party."""
    scenario = _scenario(game.scenario)
    result = run_negotiation(scenario, list(game.agents), seed=game.seed)
    agents = dict(zip(scenario.party_names, game.agents, strict=True))
    reason = result.no_deal.reason if result.no_deal is not None else "agreement"
    rows: list[Row] = []
    for outcome in outcomes(scenario, result, agents):
        opponents = [a for p, a in agents.items() if p != outcome.party]
        rows.append(
            {
                "game": game.key,
                "scenario": game.scenario,
                "repetition": game.repetition,
                "seed": game.seed,
                "opponents": ",".join(opponents),
                "end": reason,
                **{name: getattr(outcome, name) for name in OUTCOME_FIELDS},
            }
        )
    return rows


def _play_many(games: Sequence[Game]) -> list[list[Row]]:
    return [play(game) for game in games]


class ResultStore:
    """Append-only JSONL of result rows; survives crashes (one flushed line per row)."""

    def __init__(self, directory: Path) -> None:
        self.directory = directory
        self.path = directory / RESULTS_FILE
        directory.mkdir(parents=True, exist_ok=True)

    def rows(self) -> list[Row]:
        """Every stored row (a torn last line from a crash is ignored)."""
        if not self.path.exists():
            return []
        rows: list[Row] = []
        for line in self.path.read_text(encoding="utf-8").splitlines():
            try:
                rows.append(json.loads(line))
            except json.JSONDecodeError:
                logger.warning("ignoring a torn line in %s", self.path)
        return rows

    def done(self) -> set[str]:
        """Keys of games already stored."""
        return {row["game"] for row in self.rows()}

    def add(self, rows: Iterable[Row]) -> None:
        """Append rows durably."""
        torn = self._ends_mid_line()
        with self.path.open("a", encoding="utf-8") as handle:
            if torn:  # a crash left half a line: close it so the next row starts clean
                handle.write("\n")
            for row in rows:
                handle.write(json.dumps(row, allow_nan=True) + "\n")
            handle.flush()
            os.fsync(handle.fileno())

    def _ends_mid_line(self) -> bool:
        if not self.path.exists() or self.path.stat().st_size == 0:
            return False
        with self.path.open("rb") as handle:
            handle.seek(-1, os.SEEK_END)
            return handle.read(1) != b"\n"

    def write_csv(self) -> Path:
        """Write results.csv beside the JSONL and return its path."""
        rows = self.rows()
        target = self.directory / "results.csv"
        with target.open("w", newline="", encoding="utf-8") as handle:
            if rows:
                writer = csv.DictWriter(handle, fieldnames=list(rows[0]))
                writer.writeheader()
                writer.writerows(rows)
        return target


def _batches(games: Sequence[Game], size: int) -> Iterator[Sequence[Game]]:
    for start in range(0, len(games), size):
        yield games[start : start + size]


def run_games(
    games: Sequence[Game],
    store: ResultStore,
    *,
    jobs: int = 1,
    scheduler: str | None = None,
    on_progress: Callable[[int], None] | None = None,
) -> None:
    """Play the games not yet in the store, storing each batch as it finishes.

    Args:
        games: Games to play.
        store: Where results go.
        jobs: Worker processes on this machine (1 plays in-process).
        scheduler: Address of a Dask distributed scheduler to run on instead of local processes.
        on_progress: Called with the number of games just finished.
    """
    done = store.done()
    todo = [g for g in games if g.key not in done]
    if on_progress is not None and len(games) - len(todo):
        on_progress(len(games) - len(todo))
    batch = max(1, min(64, len(todo) // max(1, jobs * 8)))
    if scheduler is not None:
        _run_dask(todo, store, scheduler, batch, on_progress)
    elif jobs <= 1:
        for chunk in _batches(todo, batch):
            _record(store, _play_many(chunk), on_progress)
    else:
        with ProcessPoolExecutor(max_workers=jobs) as pool:
            futures = [pool.submit(_play_many, chunk) for chunk in _batches(todo, batch)]
            for future in as_completed(futures):
                _record(store, future.result(), on_progress)


def _record(store: ResultStore, results: list[list[Row]], on_progress: Callable[[int], None] | None) -> None:
    store.add(row for rows in results for row in rows)
    if on_progress is not None:
        on_progress(len(results))


def _run_dask(
    todo: Sequence[Game],
    store: ResultStore,
    scheduler: str,
    batch: int,
    on_progress: Callable[[int], None] | None,
) -> None:
    from distributed import Client
    from distributed import as_completed as dask_completed

    with Client(scheduler) as client:
        futures = [client.submit(_play_many, list(chunk), pure=False) for chunk in _batches(todo, batch)]
        for future in dask_completed(futures):
            _record(store, future.result(), on_progress)


@dataclass(frozen=True, slots=True)
class AgentSummary:
    """One agent's results over a tournament (means with 95% CIs over its party-games)."""

    agent: str
    games: int
    utility: Estimate
    normalized_utility: Estimate
    agreement_rate: Estimate
    walk_rate: Estimate
    rounds: Estimate
    pareto_distance: Estimate


def summarize(rows: Sequence[Row]) -> list[AgentSummary]:
    """Per-agent summary, best normalised utility first."""
    by_agent: dict[str, list[Row]] = defaultdict(list)
    for row in rows:
        by_agent[row["agent"]].append(row)
    summaries = [
        AgentSummary(
            agent=agent,
            games=len(items),
            utility=mean_ci(r["utility"] for r in items),
            normalized_utility=mean_ci(r["normalized_utility"] for r in items),
            agreement_rate=mean_ci(float(r["agreement"]) for r in items),
            walk_rate=mean_ci(float(r["walked"]) for r in items),
            rounds=mean_ci(r["rounds"] for r in items),
            pareto_distance=mean_ci(r["pareto_distance"] for r in items),
        )
        for agent, items in by_agent.items()
    ]
    return sorted(summaries, key=lambda s: -s.normalized_utility.mean if s.normalized_utility.count else 0.0)
