"""Tournaments: every agent pairing on every scenario, repeated, in parallel, resumable from disk.

Games run through the batch layer (`parley.experiments.batch`: local processes or Dask, stop
signals). Results go to a JSONL store whole games at a time: each batch of games is one write, flushed
and synced, so a crash can tear at most the write in flight. A game is done only once all its
rows are stored; on resume, torn lines and the rows of incomplete (or repeated) games are
dropped and those games are played again. SIGINT and SIGTERM stop the worker processes before
the tournament stops. The summary (mean ± 95% CI per agent) streams the store, so memory does
not grow with the tournament.
"""

from __future__ import annotations

import csv
import itertools
import json
import logging
import math
import os
from collections.abc import Callable, Iterable, Iterator, Sequence
from contextlib import AbstractContextManager
from dataclasses import dataclass, field, fields, replace
from functools import lru_cache
from pathlib import Path
from typing import Any, cast

from parley._plugins import cause, discover, is_spec, load_spec, non_ascii_note, quoted
from parley.errors import ScenarioError
from parley.experiments.batch import run_tasks
from parley.experiments.runner import run_negotiation
from parley.experiments.task_store import Result, hold, sync_directory
from parley.jsonio import result_row_line
from parley.metrics.bargaining import PartyOutcome, outcomes
from parley.metrics.stats import Estimate, RunningEstimate
from parley.protocol.events import Event
from parley.protocol.payloads import LlmUsage
from parley.protocol.session import OfferMediator
from parley.scenarios.model import Scenario

logger = logging.getLogger(__name__)

RESULTS_FILE = "results.jsonl"
CSV_FILE = "results.csv"
OUTCOME_FIELDS = tuple(f.name for f in fields(PartyOutcome))  # asdict() deep-copies; these are flat
ROW_FIELDS = (
    "game",
    "scenario",
    "repetition",
    "seed",
    "opponents",
    "end",
    *OUTCOME_FIELDS,
    "mediator",
    "mediator_proposals",
    "failed",
    "error",
    "llm_fallback_share",
)
"""The fields of a result row, in the order results.csv lists them."""
Row = dict[str, Any]

NO_MEDIATOR = "none"
"""The mediator name of a game played without one (rows stored before mediators existed read so)."""
OFFER_MEDIATORS = ("none", "pareto", "proactive")
"""Built-in offer mediators for tournament games: none, the O13 `ParetoMediator` (asked on stagnation)
or the `ProactiveMediator` (decides when to step in; "proactive(KEY=VALUE,...)" sets its options)."""
MEDIATOR_GROUP = "parley.mediators"
"""The entry-point group mediator plugins are declared in (shared with the conversation mediators); a
tournament takes a plugin whose factory, called with no arguments, returns an offer mediator."""


def offer_mediator_names() -> list[str]:
    """The built-in offer mediators, then the installed `parley.mediators` plugins (none imported)."""
    return [*OFFER_MEDIATORS, *sorted(discover(MEDIATOR_GROUP, "mediator", reserved=_RESERVED))]


_RESERVED = frozenset({"none", "noagent", "pareto", "proactive", "generic", "social"})


def create_offer_mediator(name: str) -> OfferMediator | None:
    """The offer mediator a tournament game is played with (None for "none").

    Args:
        name: "none", "pareto", "proactive" or "proactive(KEY=VALUE,...)" (in any case), a
            `parley.mediators` plugin whose factory returns an offer mediator, or a
            "package.module:factory" spec.

    Raises:
        ScenarioError: unknown name, a plugin that cannot be loaded, or a factory that fails or
            returns something with no ``propose(view)`` (one line each).
    """
    key = name.strip().lower()
    if key in (NO_MEDIATOR, "noagent"):
        return None
    if key == "pareto":
        from parley.mediation.pareto import ParetoMediator

        return ParetoMediator()
    if key == "proactive" or key.startswith("proactive("):
        from parley.mediation.proactive import create_proactive

        return create_proactive(name)
    plugin = discover(MEDIATOR_GROUP, "mediator", reserved=_RESERVED).get(name)
    if plugin is not None:
        return _build_mediator(plugin.load(), plugin.label)
    if is_spec(name):
        return _build_mediator(load_spec("mediator", name), f"mediator {quoted(name)}")
    raise ScenarioError(
        f"unknown mediator {quoted(name)}{non_ascii_note(name)}; expected one of "
        f"{offer_mediator_names()} (or package.module:factory)"
    )


def _build_mediator(factory: object, label: str) -> OfferMediator:
    if not callable(factory):
        raise ScenarioError(f"{label} is a {type(factory).__name__}, not a mediator factory")
    try:
        mediator = factory()
    except ScenarioError:
        raise
    except Exception as error:  # the plugin's bug: one line naming it
        raise ScenarioError(f"{label} failed to build a mediator: {cause(error)}") from None
    if not callable(getattr(mediator, "propose", None)):
        raise ScenarioError(
            f"{label}: its factory returned a {type(mediator).__name__}, not an offer mediator "
            "(an object with propose(view)): conversation mediators do not play bargaining games"
        )
    return cast(OfferMediator, mediator)


def mediator_name(name: str | None) -> str:
    """The name a game records for its mediator: "none" for no mediator, built-ins in lower case."""
    if name is None or name.strip().lower() in (NO_MEDIATOR, "noagent"):
        return NO_MEDIATOR
    return name.strip().lower() if name.strip().lower() in OFFER_MEDIATORS else name


@dataclass(frozen=True, slots=True)
class Game:
    """One negotiation to play: a scenario, one agent per party (in party order), a repetition.

    Attributes:
        mediator: The offer mediator consulted on stagnation ("none": no mediator). With one, the
            scenario's `on_stagnation` is set to "mediate" for this game (as `parley run` does).
    """

    scenario: str
    agents: tuple[str, ...]
    repetition: int
    seed: int
    mediator: str = NO_MEDIATOR

    @property
    def key(self) -> str:
        """Unique id of this game inside a tournament (used to resume)."""
        return f"{self.scenario}|{','.join(self.agents)}|{self.repetition}"


def rows_per_game(key: str) -> int:
    """How many rows (one per party) a complete game with this key has."""
    parts = key.rsplit("|", 2)
    return parts[1].count(",") + 1 if len(parts) == 3 else 1


@dataclass(frozen=True, slots=True)
class TournamentSpec:
    """What to play.

    Attributes:
        agents: Agent names: registered, installed plugins, or "package.module:factory" specs.
        scenarios: Shipped scenario names or file paths.
        repetitions: Games per pairing and scenario.
        seed: Base seed (each game's seed derives from it and the repetition).
        self_play: Also pair each agent with itself.
        mediator: Offer mediator of every game (see `create_offer_mediator`; "none": no mediator).
    """

    agents: tuple[str, ...]
    scenarios: tuple[str, ...]
    repetitions: int = 1
    seed: int = 0
    self_play: bool = False
    mediator: str = NO_MEDIATOR


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
        ScenarioError: an agent or scenario is unknown, a plugin cannot be loaded, or nothing
            would be played.
    """
    from parley.agents.registry import check_names

    check_names(spec.agents)  # names, installed plugins and module:factory specs, before any game
    if spec.repetitions < 1:
        raise ScenarioError(f"repetitions must be at least 1, got {spec.repetitions}")
    create_offer_mediator(spec.mediator)  # an unknown or broken mediator fails before any game
    mediator = mediator_name(spec.mediator)
    games: list[Game] = []
    for name in spec.scenarios:
        scenario = _scenario(name)
        for lineup in assignments(spec.agents, len(scenario.parties), self_play=spec.self_play):
            for repetition in range(spec.repetitions):
                games.append(Game(name, lineup, repetition, spec.seed * 100_003 + repetition, mediator))
    if not games:
        raise ScenarioError(
            "the tournament is empty: give at least two agents (or --self-play) and one scenario"
        )
    return games


class _Drop(logging.Filter):
    def filter(self, record: logging.LogRecord) -> bool:
        return False


_SESSION_LOG = logging.getLogger("parley.protocol.session")
_DROP = _Drop()


def play(game: Game) -> list[Row]:
    """Play one game and return one result row per party.

    A game that cannot be set up (an agent that cannot be built, or that raises on a space it
    cannot handle) or that ends in a protocol violation is *failed*: its rows say so (`failed`,
    `error`) and summaries count it apart instead of averaging its no-deal utilities in. The
    session's own warning about an agent that raised is not logged here: the row records it.
    """
    scenario = _scenario(game.scenario)
    agents = dict(zip(scenario.party_names, game.agents, strict=True))
    _SESSION_LOG.addFilter(_DROP)
    try:
        mediator = create_offer_mediator(game.mediator)
        rules = replace(scenario.rules, on_stagnation="mediate") if mediator is not None else None
        result = run_negotiation(scenario, list(game.agents), seed=game.seed, rules=rules, mediator=mediator)
        party_outcomes = outcomes(scenario, result, agents)
    except Exception as error:  # the game could not be played: record why, keep the tournament going
        nan = math.nan
        failed = [PartyOutcome(p, a, nan, nan, False, False, 0, nan, nan, False) for p, a in agents.items()]
        return [_row(game, agents, o, "error", _one_line(f"{type(error).__name__}: {error}")) for o in failed]
    finally:
        _SESSION_LOG.removeFilter(_DROP)
    share = _fallback_share(result.trajectory)
    tabled = sum(1 for event in result.trajectory if event.kind == "mediator_proposal")
    no_deal = result.no_deal
    if no_deal is None:
        return [_row(game, agents, o, "agreement", "", share, tabled) for o in party_outcomes]
    error = ""
    if no_deal.reason == "protocol_violation":
        error = _one_line(f"protocol violation by {no_deal.walker}: {no_deal.detail}")
    return [_row(game, agents, o, no_deal.reason, error, share, tabled) for o in party_outcomes]


def _fallback_share(trajectory: Iterable[Event]) -> float | None:
    """The share of LLM decisions the rule twins made instead (None: no LLM decided anything)."""
    usage = [event.payload for event in trajectory if event.kind == "llm_usage"]
    totals = [summary.total for summary in usage if isinstance(summary, LlmUsage)]
    if not totals:
        return None
    return totals[-1].fallback_share if totals[-1].decisions else None


def _row(
    game: Game,
    agents: dict[str, str],
    outcome: PartyOutcome,
    end: str,
    error: str,
    fallback_share: float | None = None,
    tabled: int = 0,
) -> Row:
    return {
        "game": game.key,
        "scenario": game.scenario,
        "repetition": game.repetition,
        "seed": game.seed,
        "opponents": ",".join(a for p, a in agents.items() if p != outcome.party),
        "end": end,
        **{name: getattr(outcome, name) for name in OUTCOME_FIELDS},
        "mediator": game.mediator,
        "mediator_proposals": tabled,
        "failed": bool(error),
        "error": error,
        "llm_fallback_share": fallback_share,
    }


def _one_line(text: str) -> str:
    return " ".join(text.split())


def row_mediator(row: Row) -> str:
    """The mediator a stored row's game was played with ("none" for rows stored before mediators)."""
    value = row.get("mediator")
    return value if isinstance(value, str) and value else NO_MEDIATOR


def is_failed(row: Row) -> bool:
    """Whether a row belongs to a failed game (rows stored before `failed` existed: a violation)."""
    return bool(row.get("failed", row.get("end") == "protocol_violation"))


def _parse(line: bytes) -> Row | None:
    """The row on one stored line, or None for a torn or foreign line."""
    try:
        row = json.loads(line)
    except ValueError:  # JSONDecodeError, or bytes that are not UTF-8
        return None
    if not isinstance(row, dict) or not isinstance(row.get("game"), str) or "party" not in row:
        return None
    return row


@dataclass(slots=True)
class _Scan:
    """What a pass over the store found."""

    complete: set[str] = field(default_factory=set[str])
    repeated: set[str] = field(default_factory=set[str])
    bad_lines: int = 0
    incomplete: int = 0
    newline_at_end: bool = True

    @property
    def clean(self) -> bool:
        return not (self.bad_lines or self.incomplete or self.repeated) and self.newline_at_end


class ResultStore:
    """Append-only JSONL of result rows, written whole games at a time (see the module notes)."""

    def __init__(self, directory: Path) -> None:
        self.directory = directory
        self.path = directory / RESULTS_FILE
        directory.mkdir(parents=True, exist_ok=True)

    def _lines(self) -> Iterator[tuple[bytes, Row | None]]:
        if not self.path.exists():
            return
        with self.path.open("rb") as handle:
            for line in handle:
                yield line, _parse(line)

    def iter_rows(self) -> Iterator[Row]:
        """Every stored row, read one at a time (torn lines are skipped)."""
        return (row for _, row in self._lines() if row is not None)

    def rows(self) -> list[Row]:
        """Every stored row in a list: for small stores; `iter_rows` keeps memory flat."""
        return list(self.iter_rows())

    def done(self) -> set[str]:
        """Keys of the games all of whose rows are stored."""
        return self._scan().complete

    def _scan(self) -> _Scan:
        scan = _Scan()
        parties: dict[str, set[str]] = {}
        last = b"\n"
        for line, row in self._lines():
            last = line
            if row is None:
                scan.bad_lines += 1
                continue
            seen = parties.setdefault(row["game"], set())
            party = str(row["party"])
            if party in seen:
                scan.repeated.add(row["game"])
            seen.add(party)
        scan.newline_at_end = last.endswith(b"\n")
        for key, seen in parties.items():
            if len(seen) >= rows_per_game(key):
                scan.complete.add(key)
            else:
                scan.incomplete += 1
        return scan

    def recover(self) -> set[str]:
        """Make the store whole after a crash and return the keys of its complete games.

        Torn lines, the rows of games stored only in part, and second copies of a game's row are
        dropped by rewriting the file (into a temporary file that then replaces it atomically), so
        the incomplete games can be played again without any row appearing twice.
        """
        scan = self._scan()
        if scan.clean:
            return scan.complete
        temporary = self.path.with_name(self.path.name + ".tmp")
        written: set[tuple[str, str]] = set()
        with temporary.open("wb") as handle:
            for line, row in self._lines():
                if row is None or row["game"] not in scan.complete:
                    continue
                if row["game"] in scan.repeated:
                    pair = (row["game"], str(row["party"]))
                    if pair in written:
                        continue
                    written.add(pair)
                handle.write(line if line.endswith(b"\n") else line + b"\n")
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(temporary, self.path)
        sync_directory(self.directory)
        logger.warning(
            "%s: dropped %d torn line(s), the rows of %d incomplete game(s) and %d repeated game(s); "
            "those games are played again",
            self.path,
            scan.bad_lines,
            scan.incomplete,
            len(scan.repeated),
        )
        return scan.complete

    def add(self, rows: Iterable[Row]) -> None:
        """Append rows durably, in one write (flushed and synced): give whole games."""
        data = "".join(result_row_line(row) for row in rows).encode("utf-8")
        if not data:
            return
        if self._ends_mid_line():  # a crash left half a line: close it so the next row starts clean
            data = b"\n" + data
        with self.path.open("ab") as handle:
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())

    def _ends_mid_line(self) -> bool:
        if not self.path.exists() or self.path.stat().st_size == 0:
            return False
        with self.path.open("rb") as handle:
            handle.seek(-1, os.SEEK_END)
            return handle.read(1) != b"\n"

    def check_mediator(self, mediator: str) -> None:
        """Refuse to mix games played with another mediator into this store.

        Raises:
            ScenarioError: the store holds a game played with a mediator other than mediator.
        """
        for row in self.iter_rows():
            stored = row_mediator(row)
            if stored != mediator:
                raise ScenarioError(
                    f"{self.path} holds games played with mediator {quoted(stored)} (now "
                    f"{quoted(mediator)}); results made with and without a mediator are not mixed: "
                    "choose another --out or delete it"
                )

    def write_csv(self) -> Path:
        """Write results.csv beside the JSONL (streamed, replaced atomically) and return its path."""
        target = self.directory / CSV_FILE
        temporary = target.with_name(target.name + ".tmp")
        with temporary.open("w", newline="", encoding="utf-8") as handle:
            writer = csv.DictWriter(handle, fieldnames=ROW_FIELDS, restval="", extrasaction="ignore")
            writer.writeheader()
            writer.writerows(self.iter_rows())
        os.replace(temporary, target)
        return target

    def store(self, results: Sequence[Result]) -> None:
        """Append finished games (each game's key with its rows) durably, in one write."""
        self.add(row for _, rows in results for row in rows)

    def writing(self) -> AbstractContextManager[None]:
        """Hold the store for this process (POSIX advisory lock on its folder).

        Raises:
            ScenarioError: another process is writing to the same folder.
        """
        return hold(
            self.directory,
            "another tournament is writing to this folder; wait for it or choose another --out",
        )


def run_games(
    games: Sequence[Game],
    store: ResultStore,
    *,
    jobs: int = 1,
    scheduler: str | None = None,
    on_progress: Callable[[int], None] | None = None,
) -> None:
    """Play the games not yet (wholly) in the store, storing each batch as it finishes.

    Args:
        games: Games to play.
        store: Where results go; it is recovered first (see `ResultStore.recover`).
        jobs: Worker processes on this machine (1 plays in-process).
        scheduler: Address of a Dask distributed scheduler to run on instead of local processes.
        on_progress: Called with the number of games just finished (first with those already stored).

    Raises:
        Interrupted: SIGINT or SIGTERM arrived (called from the main thread); the workers were
            stopped and the store holds whole games only.
        ScenarioError: another process is writing to the same store, or the scheduler cannot be reached.
        WorkerLost: Dask workers kept dying, or the scheduler went away.
    """
    mediators = sorted({game.mediator for game in games})
    if len(mediators) > 1:
        raise ScenarioError(
            f"one store holds games of one mediator; these games use {', '.join(map(quoted, mediators))}"
        )
    if mediators:
        store.check_mediator(mediators[0])
    run_tasks(games, play, store, jobs=jobs, scheduler=scheduler, on_progress=on_progress)


@dataclass(frozen=True, slots=True)
class AgentSummary:
    """One agent's results over a tournament (means with 95% CIs over its played party-games).

    Attributes:
        games: Party-games the agent took part in, failed ones included.
        failed: Of those, the ones in failed games (set-up errors, protocol violations); they are
            left out of every mean.
        first_error: Why the first of them failed ("" when none did).
        discounted_utility: The utility discounted to the session's end (u·d^t, GENIUS discount
            factors); equal to `utility` when no party discounts.
        discounted: Whether some game of this agent's discounted its utility (the table then shows it).
    """

    agent: str
    games: int
    utility: Estimate
    normalized_utility: Estimate
    agreement_rate: Estimate
    walk_rate: Estimate
    rounds: Estimate
    pareto_distance: Estimate
    failed: int = 0
    first_error: str = ""
    discounted_utility: Estimate | None = None
    discounted: bool = False


_MEAN_FIELDS = (
    "utility",
    "discounted_utility",
    "normalized_utility",
    "agreement",
    "walked",
    "rounds",
    "pareto_distance",
)


class _Tally:
    """One agent's running statistics: constant memory however many rows stream past."""

    __slots__ = ("discounted", "failed", "first_error", "games", "means")

    def __init__(self) -> None:
        self.games = 0
        self.failed = 0
        self.first_error = ""
        self.discounted = False
        self.means = {name: RunningEstimate() for name in _MEAN_FIELDS}

    def add(self, row: Row) -> None:
        self.games += 1
        if is_failed(row):
            self.failed += 1
            if not self.first_error:
                self.first_error = str(row.get("error") or row.get("end") or "failed")
            return
        discounted = row.get("discounted_utility")
        if discounted is None:  # rows written before discounting existed: undiscounted
            row = {**row, "discounted_utility": row.get("utility")}
        elif discounted != row.get("utility"):
            self.discounted = True
        for name, running in self.means.items():
            value = row.get(name)
            running.add(float(value) if isinstance(value, bool) else value)

    def summary(self, agent: str) -> AgentSummary:
        means = {name: running.estimate() for name, running in self.means.items()}
        return AgentSummary(
            agent=agent,
            games=self.games,
            utility=means["utility"],
            normalized_utility=means["normalized_utility"],
            agreement_rate=means["agreement"],
            walk_rate=means["walked"],
            rounds=means["rounds"],
            pareto_distance=means["pareto_distance"],
            failed=self.failed,
            first_error=self.first_error,
            discounted_utility=means["discounted_utility"],
            discounted=self.discounted,
        )


def summarize(rows: Iterable[Row]) -> list[AgentSummary]:
    """Per-agent summary, best normalised utility first; rows are read once and not kept."""
    tallies: dict[str, _Tally] = {}
    for row in rows:
        agent = str(row["agent"])
        tally = tallies.get(agent)
        if tally is None:
            tally = tallies[agent] = _Tally()
        tally.add(row)
    summaries = [tally.summary(agent) for agent, tally in tallies.items()]
    return sorted(summaries, key=lambda s: -s.normalized_utility.mean if s.normalized_utility.count else 0.0)
