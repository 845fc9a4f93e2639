"""Games a signed-in person plays in the browser against a registered agent, kept server-side.

A game is stored as its set-up (scenario, agent, the person's party, seed) and the person's moves,
in the console's SQLite file (table `web_games`). Its position is rebuilt by replaying those moves
through the ordinary engine: the agent is deterministic by seed, so the replay is the game. Each
stored move carries a digest of the record the person saw when making it; a replay that shows the
person something else stops with `GameError` instead of continuing a different game.

A move names the turn it was made on (`version`, the number of the person's moves so far): a
second submit of the same turn, or one from a stale tab, is refused with `StaleMove` and changes
nothing.
"""

from __future__ import annotations

import hashlib
import json
import secrets
import sqlite3
import threading
from collections import OrderedDict
from collections.abc import Mapping, Sequence
from contextlib import AbstractContextManager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from parley.agents.registry import available, space_problem
from parley.domain.issues import Value
from parley.errors import ParleyError, ProtocolViolation
from parley.experiments.runner import build_negotiators, run_negotiation
from parley.jsonio import NO_VALUE_FIELDS, dumps
from parley.language import Vocabulary
from parley.protocol.actions import Action, action_from_json, action_to_json
from parley.protocol.engine import check_move
from parley.protocol.events import Event, Trajectory
from parley.protocol.session import Negotiator, SessionResult
from parley.protocol.view import PartyView
from parley.scenarios.model import Scenario
from parley.web.auth import connected
from parley.web.shelf import Shelf, UnknownScenario

__all__ = [
    "MAX_GAMES_PER_PRINCIPAL",
    "NOT_PLAYABLE",
    "Game",
    "GameError",
    "GameNotFound",
    "GameStore",
    "Position",
    "StaleMove",
    "playable_agents",
    "replay",
]

NOT_PLAYABLE = frozenset({"llm", "astra-llm"})
"""Registered agents the console does not offer: they need an LLM endpoint and are not replayable."""
MAX_GAMES_PER_PRINCIPAL = 500
"""Games one principal may keep; starting one more removes their oldest finished game record."""
MAX_SEED = 2**31 - 1

_SCHEMA = """
CREATE TABLE IF NOT EXISTS web_games (
    id TEXT PRIMARY KEY, principal TEXT NOT NULL, scenario TEXT NOT NULL, agent TEXT NOT NULL,
    party TEXT NOT NULL, seed INTEGER NOT NULL, coach INTEGER NOT NULL, moves TEXT NOT NULL,
    version INTEGER NOT NULL, ended INTEGER NOT NULL, created REAL NOT NULL, updated REAL NOT NULL);
CREATE INDEX IF NOT EXISTS web_games_principal ON web_games (principal, created);
"""


class GameError(ParleyError):
    """A game cannot be found, started or continued as asked (one line, for the person)."""


class GameNotFound(GameError):
    """No such game for this principal."""


class StaleMove(GameError):
    """A move was made on a turn that is no longer the game's current one (answered already)."""

    def __init__(self, sent: int, current: int, ended: bool) -> None:
        self.sent = sent
        self.current = current
        if ended:
            message = "this game is over: nothing was sent (the page now shows how it ended)"
        else:
            message = (
                f"this move was made on turn {sent + 1}, but the game is at turn {current + 1}: it was "
                "already answered (another tab, or a second click); nothing was sent"
            )
        super().__init__(message)


@dataclass(frozen=True, slots=True)
class Game:
    """One stored game.

    Attributes:
        game_id: Its id (random, URL-safe).
        principal: Who plays it (only they can see or continue it).
        scenario: The scenario's name, as `load_scenario` takes it.
        agent: The registered agent on the other side.
        party: The party the person plays.
        seed: The game's seed.
        coach: Whether the person gets ASTRA's advice.
        moves: The person's moves: {"action": action JSON, "seen": digest of the record shown}.
        version: How many moves the person has made.
        ended: Whether the game is over.
        created: When it started (clock seconds).
        updated: When the last move was stored.
    """

    game_id: str
    principal: str
    scenario: str
    agent: str
    party: str
    seed: int
    coach: bool
    moves: tuple[Mapping[str, Any], ...]
    version: int
    ended: bool
    created: float
    updated: float

    @property
    def run_id(self) -> str:
        """Its folder under the console's runs folder once it has ended."""
        return f"play/{self.game_id}"


def _game(row: sqlite3.Row) -> Game:
    return Game(
        game_id=str(row["id"]),
        principal=str(row["principal"]),
        scenario=str(row["scenario"]),
        agent=str(row["agent"]),
        party=str(row["party"]),
        seed=int(row["seed"]),
        coach=bool(row["coach"]),
        moves=tuple(json.loads(str(row["moves"]))),
        version=int(row["version"]),
        ended=bool(row["ended"]),
        created=float(row["created"]),
        updated=float(row["updated"]),
    )


class GameStore:
    """The console's games in the SQLite file at db_path (table created if missing).

    Every call opens and closes its own connection, so one object serves any number of threads.
    """

    def __init__(self, db_path: str | Path) -> None:
        self.path = str(db_path)
        with self._connected() as db:
            db.executescript(_SCHEMA)

    def _connected(self) -> AbstractContextManager[sqlite3.Connection]:
        return connected(self.path, rows=True)

    def create(
        self, principal: str, scenario: str, agent: str, party: str, seed: int, coach: bool, *, now: float
    ) -> Game:
        """Store a new game with no moves yet."""
        game_id = secrets.token_urlsafe(12)
        with self._connected() as db:
            db.execute("BEGIN IMMEDIATE")
            try:
                db.execute(
                    "INSERT INTO web_games VALUES (?,?,?,?,?,?,?,?,?,?,?,?)",
                    (game_id, principal, scenario, agent, party, seed, int(coach), "[]", 0, 0, now, now),
                )
                self._prune(db, principal)
            except BaseException:
                db.execute("ROLLBACK")
                raise
            db.execute("COMMIT")
        return self.load(game_id, principal)

    @staticmethod
    def _prune(db: sqlite3.Connection, principal: str) -> None:
        db.execute(
            "DELETE FROM web_games WHERE principal=? AND ended=1 AND id NOT IN ("
            "SELECT id FROM web_games WHERE principal=? ORDER BY created DESC LIMIT ?)",
            (principal, principal, MAX_GAMES_PER_PRINCIPAL),
        )

    def load(self, game_id: str, principal: str) -> Game:
        """The game game_id of principal.

        Raises:
            GameNotFound: no such game for this principal (another's game is not told apart).
        """
        with self._connected() as db:
            row = db.execute(
                "SELECT * FROM web_games WHERE id=? AND principal=?", (game_id[:100], principal)
            ).fetchone()
        if row is None:
            raise GameNotFound(f"no game {game_id[:40]!r} of yours: start one on the play page")
        return _game(row)

    def games(self, principal: str, limit: int = 50) -> list[Game]:
        """principal's latest games, newest first."""
        with self._connected() as db:
            rows = db.execute(
                "SELECT * FROM web_games WHERE principal=? ORDER BY created DESC, id LIMIT ?",
                (principal, limit),
            ).fetchall()
        return [_game(row) for row in rows]

    def add_move(self, game: Game, move: Mapping[str, Any], *, ended: bool, now: float) -> Game:
        """Store the person's next move, if the game is still at game.version.

        Raises:
            StaleMove: another move was stored meanwhile (or the game ended).
        """
        moves = json.dumps([*game.moves, dict(move)], sort_keys=True, allow_nan=False)
        with self._connected() as db:
            changed = db.execute(
                "UPDATE web_games SET moves=?, version=version+1, ended=?, updated=? "
                "WHERE id=? AND principal=? AND version=? AND ended=0",
                (moves, int(ended), now, game.game_id, game.principal, game.version),
            ).rowcount
        if changed != 1:
            current = self.load(game.game_id, game.principal)
            raise StaleMove(game.version, current.version, current.ended)
        return self.load(game.game_id, game.principal)

    def end(self, game: Game, *, now: float) -> None:
        """Mark a game over that ended on the agent's move (the person's last move was stored earlier)."""
        with self._connected() as db:
            db.execute(
                "UPDATE web_games SET ended=1, updated=? WHERE id=? AND principal=?",
                (now, game.game_id, game.principal),
            )


# -- what can be played ----------------------------------------------------------------------------------


def playable_agents() -> dict[str, str]:
    """Registered agents the console offers (name → one-line description): no LLM-backed ones."""
    return {name: entry.description for name, entry in available().items() if name not in NOT_PLAYABLE}


def check_setup(shelf: Shelf, scenario_name: str, agent: str, party: str, seed: int) -> Scenario:
    """The scenario of a game set up as given.

    Raises:
        GameError: an unknown scenario, agent or party, a negative or huge seed, or an agent that
            cannot play a space this large.
    """
    try:
        scenario = shelf.scenario(scenario_name)
    except UnknownScenario as error:
        raise GameError(str(error)) from None
    if agent not in playable_agents():
        raise GameError(f"unknown agent {agent[:60]!r}: choose one of {', '.join(playable_agents())}")
    if party not in scenario.party_names:
        raise GameError(
            f"{scenario.name} has parties {' and '.join(scenario.party_names)}, not {party[:60]!r}"
        )
    if not 0 <= seed <= MAX_SEED:
        raise GameError(f"seed must be between 0 and {MAX_SEED}, got {seed}")
    other = next(p for p in scenario.parties if p.name != party)
    problem = space_problem(agent, other.name, scenario.space, other.utility)
    if problem is not None:
        raise GameError(problem)
    return scenario


# -- replaying a game ------------------------------------------------------------------------------------


def record_digest(events: Sequence[Event]) -> str:
    """A digest of the events a party was shown (what a stored move was made in answer to)."""
    text = "\n".join(json.dumps(event.to_json(), sort_keys=True, default=str) for event in events)
    return hashlib.sha256(text.encode()).hexdigest()[:32]


class _Waiting(BaseException):
    """Raised out of the engine when the person must move (BaseException: the engine turns any
    Exception from a negotiator into a protocol violation)."""

    def __init__(self, view: PartyView) -> None:
        super().__init__("waiting for the person's move")
        self.view = view


class _Diverged(BaseException):
    """The replay showed the person a record other than the one a stored move answered."""

    def __init__(self, move: int) -> None:
        super().__init__(f"move {move} was made in another position")
        self.move = move


class _Replayed:
    """The person's seat in a replay: plays the stored moves, then stops the engine at the next one."""

    def __init__(self, moves: Sequence[Mapping[str, Any]]) -> None:
        self._moves = moves
        self._next = 0

    def act(self, view: PartyView) -> Action:
        if self._next >= len(self._moves):
            raise _Waiting(view)
        move = self._moves[self._next]
        if move.get("seen") != record_digest(view.record):
            raise _Diverged(self._next + 1)
        self._next += 1
        return action_from_json(move["action"])


@dataclass(frozen=True)
class Position:
    """A game as it stands: the events so far and either the person's view (their move) or the result.

    Attributes:
        scenario: The scenario.
        vocabulary: Its words.
        party: The person's party.
        events: Every event so far (the other side's private traces included: filter with
            `visible`).
        view: The person's view when it is their move, else None.
        result: The finished session, else None.
    """

    scenario: Scenario
    vocabulary: Vocabulary
    party: str
    events: tuple[Event, ...]
    view: PartyView | None
    result: SessionResult | None

    @property
    def visible(self) -> list[Event]:
        """The events the person may see (public ones and their own)."""
        return [event for event in self.events if event.visible_to(self.party)]

    @property
    def other(self) -> str:
        """The other party."""
        return next(p for p in self.scenario.party_names if p != self.party)


def _negotiators(scenario: Scenario, game: Game, moves: Sequence[Mapping[str, Any]]) -> dict[str, Negotiator]:
    agents = [game.agent if party != game.party else "hardliner" for party in scenario.party_names]
    negotiators = build_negotiators(scenario, agents, game.seed)  # (the person's seat is filled next)
    negotiators[game.party] = _Replayed(moves)
    return negotiators


def replay(shelf: Shelf, game: Game, extra: Mapping[str, Any] | None = None) -> Position:
    """The game's position after its stored moves (and extra, a move not stored yet).

    Raises:
        GameError: the scenario or agent is gone, or the replay no longer matches the stored moves.
    """
    scenario = check_setup(shelf, game.scenario, game.agent, game.party, game.seed)
    vocabulary = shelf.vocabulary(game.scenario)
    moves = [*game.moves, *([extra] if extra is not None else [])]
    events: list[Event] = []
    names = {party: (game.agent if party != game.party else "human") for party in scenario.party_names}
    try:
        result = run_negotiation(
            scenario,
            _negotiators(scenario, game, moves),
            seed=game.seed,
            on_event=events.append,
            agent_names=names,
        )
    except _Waiting as waiting:
        return Position(scenario, vocabulary, game.party, tuple(events), waiting.view, None)
    except _Diverged as diverged:
        raise GameError(
            f"this game cannot be restored: the agent played differently before your move {diverged.move} "
            "(was parley or the scenario updated?); start a new game"
        ) from None
    return Position(scenario, vocabulary, game.party, tuple(result.trajectory), None, result)


def checked_move(position: Position, action: Action) -> dict[str, Any]:
    """The stored form of the person's move, once the engine's rules allow it.

    Raises:
        GameError: it is not the person's move, or the move is illegal (a package outside the
            space, accepting with nothing on the table).
    """
    view = position.view
    if view is None:
        raise GameError("the game is over: no more moves")
    try:
        checked, _ = check_move(view.space, view.table, view.party, view.phase, action)
    except ProtocolViolation as violation:
        raise GameError(str(violation)) from None
    return {"action": action_to_json(checked), "seen": record_digest(view.record)}


class PositionCache:
    """Positions of recent games by (game id, version), so a page reload does not replay again."""

    def __init__(self, shelf: Shelf, size: int = 64) -> None:
        self._shelf = shelf
        self._size = size
        self._entries: OrderedDict[tuple[str, int], Position] = OrderedDict()
        self._lock = threading.Lock()

    def get(self, game: Game) -> Position:
        """The game's position, replayed unless a recent one is cached."""
        key = (game.game_id, game.version)
        with self._lock:
            found = self._entries.get(key)
            if found is not None:
                self._entries.move_to_end(key)
                return found
        position = replay(self._shelf, game)
        self.put(game, position)
        return position

    def put(self, game: Game, position: Position) -> None:
        """Remember the position of game at its version."""
        with self._lock:
            self._entries[(game.game_id, game.version)] = position
            while len(self._entries) > self._size:
                self._entries.popitem(last=False)


# -- the finished game as a run folder -------------------------------------------------------------------


def result_summary(scenario: Scenario, result: SessionResult, agents: Mapping[str, str]) -> dict[str, Any]:
    """The result.json of a finished game, as `parley run --save` writes it."""
    from parley.metrics.bargaining import outcomes

    rows = outcomes(scenario, result, dict(agents))
    return {
        "scenario": scenario.name,
        **result.ended,
        "rounds": result.rounds,
        "parties": [
            {
                "party": r.party,
                "agent": r.agent,
                "utility": r.utility,
                "normalized_utility": r.normalized_utility,
                "below_batna": r.below_batna,
            }
            for r in rows
        ],
        "pareto_distance": rows[0].pareto_distance if rows else None,
        "nash_distance": rows[0].nash_distance if rows else None,
    }


def save_run(folder: Path, game: Game, position: Position) -> Path:
    """Write a finished game's trajectory.jsonl, result.json and game.json into folder.

    Raises:
        OSError: the folder cannot be written.
    """
    assert position.result is not None
    agents = {
        party: (game.agent if party != game.party else "human") for party in position.scenario.party_names
    }
    summary = result_summary(position.scenario, position.result, agents)
    files = {
        "trajectory.jsonl": Trajectory(list(position.events)).to_jsonl(versioned=True),
        "result.json": dumps(summary, no_value=NO_VALUE_FIELDS, indent=2) + "\n",
        "game.json": dumps(
            {
                "kind": "play",
                "game": game.game_id,
                "player": game.principal,
                "party": game.party,
                "agent": game.agent,
                "scenario": game.scenario,
                "seed": game.seed,
                "coach": game.coach,
            },
            indent=2,
        )
        + "\n",
    }
    folder.mkdir(parents=True, exist_ok=True)
    for name, text in files.items():
        partial = folder / f".{name}.partial"
        partial.write_text(text, encoding="utf-8")
        partial.replace(folder / name)
    return folder


def package_of(position: Position, package: Mapping[str, Any]) -> dict[str, Value]:
    """A package sent by the page, checked against the space (values keep their JSON types).

    Raises:
        GameError: an issue is missing or unknown, or a value is not one of its options.
    """
    space = position.scenario.space
    unknown = sorted(set(package) - set(space.names))
    if unknown:
        raise GameError(f"unknown issue {unknown[0][:40]!r}; the issues are {', '.join(space.names)}")
    try:
        checked = {name: package[name] for name in space.names}
        space.validate(checked)
    except KeyError as missing:
        raise GameError(f"the offer does not say {missing.args[0]}") from None
    except (ValueError, TypeError) as error:
        raise GameError(f"not an offer in this scenario: {str(error)[:200]}") from None
    return checked
