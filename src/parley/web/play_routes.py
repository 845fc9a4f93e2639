"""The play page's API: start a game against an agent, see it, preview a move, make it.

Games belong to the signed-in principal (another principal's game id answers 404). A move names the
turn it was made on; a stale or repeated one answers 409 and changes nothing. A finished game is
saved as a run folder (`play/<game id>` under the console's runs folder) for the run browser and
the rating form.
"""

from __future__ import annotations

import logging
import threading
from collections import OrderedDict
from pathlib import Path
from typing import NoReturn

from fastapi import FastAPI

from parley.cli.coaching import plain_advice
from parley.cli.human import brief_of, number, read_move
from parley.errors import ParleyError
from parley.protocol.actions import Accept, Action, Propose, Reject, Say, Walk
from parley.protocol.clock import Clock
from parley.web.play import (
    Game,
    GameError,
    GameNotFound,
    GameStore,
    Position,
    PositionCache,
    StaleMove,
    check_setup,
    checked_move,
    package_of,
    playable_agents,
    replay,
    save_run,
)
from parley.web.play_models import (
    GLOSSARY,
    AdviceModel,
    AgentOption,
    BriefModel,
    GameList,
    GameState,
    GameSummary,
    MoveBody,
    NewGameBody,
    OfferModel,
    PlayOptions,
    PreviewBody,
    PreviewModel,
    ScenarioOption,
    allowed_moves,
    controls,
    end_model,
    offer_model,
    transcript,
)
from parley.web.routing import READ_ERRORS, WRITE_ERRORS, SignedInPrincipal, fail
from parley.web.shelf import Shelf

logger = logging.getLogger(__name__)

_ADVICE_CACHE = 64


def _refuse(error: GameError) -> NoReturn:
    if isinstance(error, GameNotFound):
        fail(404, str(error))
    if isinstance(error, StaleMove):
        fail(409, str(error))
    fail(422, str(error))


class _Advisor:
    """ASTRA's coach for the person's current move, in plain words (cached per game and turn)."""

    def __init__(self) -> None:
        self._cache: OrderedDict[tuple[str, int], AdviceModel] = OrderedDict()
        self._lock = threading.Lock()

    def advise(self, game: Game, position: Position) -> AdviceModel | None:
        view = position.view
        if not game.coach or view is None:
            return None
        key = (game.game_id, game.version)
        with self._lock:
            if key in self._cache:
                return self._cache[key]
        from parley.agents.astra import Coach

        advice = AdviceModel.of(plain_advice(Coach().advise(view), view, position.vocabulary))
        with self._lock:
            self._cache[key] = advice
            while len(self._cache) > _ADVICE_CACHE:
                self._cache.popitem(last=False)
        return advice


def _state(game: Game, position: Position, advice: AdviceModel | None, run: str | None) -> GameState:
    scenario = position.scenario
    party = scenario.party(game.party)
    persona = party.setup().persona
    view = position.view
    table = offer_model(position, view.offer, "them") if view is not None and view.offer is not None else None
    result = position.result
    return GameState(
        game_id=game.game_id,
        version=game.version,
        scenario=scenario.name,
        title=scenario.title,
        description=scenario.description.strip(),
        agent=game.agent,
        party=game.party,
        other=position.other,
        coach=game.coach,
        brief=BriefModel.of(brief_of(game.party, persona, party.utility, position.vocabulary)),
        controls=controls(position),
        round=view.round if view is not None else (result.rounds if result is not None else 0),
        max_rounds=scenario.rules.max_rounds,
        your_turn=view is not None,
        moves=allowed_moves(position),
        table=table,
        transcript=transcript(position),
        advice=advice,
        ended=end_model(position),
        run=run,
        glossary=dict(GLOSSARY),
    )


def _action(position: Position, body: MoveBody) -> Action:
    """The move the body asks for, with the walk-away check.

    Raises:
        GameError: a missing package or message, nothing to answer, or a deal below the person's
            walk-away value that was not confirmed.
    """
    view = position.view
    if view is None:
        raise GameError("the game is over: no more moves")
    message = body.message.strip()
    if body.kind == "propose":
        if body.package is None:
            raise GameError("a proposal needs a package: choose a value for every issue")
        package = package_of(position, body.package)
        _check_walk_away(offer_model(position, package, "you"), body, "propose")
        return Propose(package, message)
    if body.kind in ("accept", "reject"):
        if view.offer is None:
            raise GameError(f"there is no offer from them to {body.kind} yet")
        if body.kind == "accept":
            _check_walk_away(offer_model(position, view.offer, "them"), body, "accept")
            return Accept(message)
        return Reject(message)
    if body.kind == "say":
        if not message:
            raise GameError("write the message first")
        said = read_move(message, position.vocabulary, view).action  # priorities told or asked for
        return said if isinstance(said, Say) else Say(message)
    return Walk(reason=message or "I'd rather walk away.", message=message)


def _check_walk_away(offer: OfferModel, body: MoveBody, verb: str) -> None:
    if offer.below_walk_away and not body.confirm_below_walk_away:
        raise GameError(
            f"that deal is worth {number(offer.worth)} to you, less than walking away: confirm to "
            f"{verb} it anyway (confirm_below_walk_away)"
        )


def _preview(position: Position, body: PreviewBody) -> PreviewModel:
    view = position.view
    if view is None:
        raise GameError("the game is over: no more moves")
    if body.package is not None:
        offer = offer_model(position, package_of(position, body.package), "you")
        return PreviewModel(
            kind="propose",
            understood=f"You would propose: {offer.text}.",
            offer=offer,
            problem="",
            notes=[],
            confidence=1.0,
            message=body.text or "",
        )
    text = (body.text or "").strip()
    if not text:
        raise GameError("type a message or build an offer first")
    reading = read_move(text, position.vocabulary, view)
    action = reading.action
    offer: OfferModel | None = None
    understood = ""
    if isinstance(action, Propose):
        offer = offer_model(position, action.package, "you")
        understood = f"You would propose: {offer.text}."
    elif isinstance(action, Accept) and view.offer is not None:
        offer = offer_model(position, view.offer, "them")
        understood = f"You would accept their offer: {offer.text}."
    elif isinstance(action, Reject):
        understood = "You would turn down their offer."
    elif isinstance(action, Walk):
        understood = "You would walk away: the game ends without a deal."
    elif isinstance(action, Say):
        told = f" It tells them your priorities: {', '.join(action.priorities)}." if action.priorities else ""
        asks = " It asks about their priorities." if action.asks_priorities else ""
        understood = f"You would send this as a message (no offer).{told}{asks}"
    return PreviewModel(
        kind=action.kind if isinstance(action, Propose | Accept | Reject | Walk | Say) else None,
        understood=understood,
        offer=offer,
        problem=reading.problem,
        notes=list(reading.parsed.notes),
        confidence=reading.parsed.confidence,
        message=text,
    )


class _Games:
    """The play service behind the routes: stored games, their replayed positions and the coach."""

    def __init__(self, db_path: Path, runs_dir: Path, clock: Clock, shelf: Shelf) -> None:
        self.shelf = shelf
        self.store = GameStore(db_path)
        self.positions = PositionCache(shelf)
        self.advisor = _Advisor()
        self.runs_dir = runs_dir
        self.clock = clock

    def finish(self, game: Game, position: Position) -> str | None:
        """Save a game that has ended as a run folder; its run id, or None if it could not be saved."""
        if position.result is None:
            return None
        folder = self.runs_dir / game.run_id
        if not (folder / "result.json").is_file():
            try:
                save_run(folder, game, position)
            except OSError as error:
                logger.warning("could not save game %s to %s: %s", game.game_id, folder, error)
                return None
        return game.run_id

    def state(self, game: Game, position: Position) -> GameState:
        """The answer for game at position (the coach's advice and the run id included)."""
        if position.result is not None and not game.ended:  # it ended on the agent's move
            self.store.end(game, now=self.clock.now())
        return _state(game, position, self.advisor.advise(game, position), self.finish(game, position))

    def current(self, game_id: str, principal: str) -> tuple[Game, Position]:
        """The stored game and its position (replayed, or from the cache)."""
        try:
            game = self.store.load(game_id, principal)
            return game, self.positions.get(game)
        except GameError as error:
            _refuse(error)

    def start(self, body: NewGameBody, principal: str) -> GameState:
        """Store a new game and show it."""
        try:
            check_setup(self.shelf, body.scenario, body.agent, body.party, body.seed)
            setup = (body.scenario, body.agent, body.party, body.seed, body.coach)
            game = self.store.create(principal, *setup, now=self.clock.now())
            position = self.positions.get(game)
        except GameError as error:
            _refuse(error)
        except ParleyError as error:
            fail(422, str(error))
        return self.state(game, position)

    def move(self, game_id: str, body: MoveBody, principal: str) -> GameState:
        """Check, replay and store the person's move on turn body.version."""
        game, position = self.current(game_id, principal)
        try:
            if body.version != game.version or game.ended:
                raise StaleMove(body.version, game.version, game.ended)
            stored = checked_move(position, _action(position, body))
            after = replay(self.shelf, game, stored)
            game = self.store.add_move(game, stored, ended=after.result is not None, now=self.clock.now())
        except GameError as error:
            _refuse(error)
        self.positions.put(game, after)
        return self.state(game, after)


def add_play_routes(
    app: FastAPI, db_path: Path, runs_dir: Path, clock: Clock, scenarios_dir: Path | None = None
) -> None:
    """The play API on app, storing games in db_path and finished games under runs_dir/play.

    scenarios_dir: a folder of parley YAML scenarios offered besides the shipped ones (or None).
    """
    games = _Games(db_path, runs_dir, clock, Shelf(scenarios_dir))

    @app.get("/api/play/options")
    def play_options(signed_in: SignedInPrincipal) -> PlayOptions:
        """The two-party scenarios and the agents a game can be played with."""
        return PlayOptions(
            scenarios=[ScenarioOption.of(choice) for choice in games.shelf.choices()],
            agents=[AgentOption(name=name, description=text) for name, text in playable_agents().items()],
            glossary=dict(GLOSSARY),
        )

    @app.get("/api/games")
    def list_games(signed_in: SignedInPrincipal) -> GameList:
        """Your latest games, newest first."""
        return GameList(games=[GameSummary.of(game) for game in games.store.games(signed_in.principal)])

    @app.post("/api/games", status_code=201, responses=WRITE_ERRORS)
    def new_game(body: NewGameBody, signed_in: SignedInPrincipal) -> GameState:
        """Start a game: you play `party` of `scenario` against `agent`."""
        return games.start(body, signed_in.principal)

    @app.get("/api/games/{game_id}", responses=READ_ERRORS)
    def game_state(game_id: str, signed_in: SignedInPrincipal) -> GameState:
        """The game as you see it: your brief, the offer on the table, the transcript, the coach."""
        return games.state(*games.current(game_id, signed_in.principal))

    @app.post("/api/games/{game_id}/preview", responses=WRITE_ERRORS)
    def preview(game_id: str, body: PreviewBody, signed_in: SignedInPrincipal) -> PreviewModel:
        """How a message (or a package built with the controls) would be read, before it is sent."""
        _, position = games.current(game_id, signed_in.principal)
        try:
            return _preview(position, body)
        except GameError as error:
            _refuse(error)

    @app.post("/api/games/{game_id}/moves", responses=WRITE_ERRORS)
    def move(game_id: str, body: MoveBody, signed_in: SignedInPrincipal) -> GameState:
        """Make your move on turn `version`; a stale or repeated turn is refused with 409."""
        return games.move(game_id, body, signed_in.principal)
