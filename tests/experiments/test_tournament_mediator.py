"""Tournament games with an offer mediator (issue 20): the rows record it, stores do not mix, bad
names are one line, and the mediator only ever sees public offers and coarse signals."""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any, ClassVar

import pytest
from typer.testing import CliRunner

from parley.cli.app import app
from parley.domain.issues import Value
from parley.domain.utility import UtilityFunction
from parley.errors import ScenarioError
from parley.experiments import tournament as tournament_module
from parley.experiments.tournament import (
    NO_MEDIATOR,
    ROW_FIELDS,
    Game,
    ResultStore,
    TournamentSpec,
    create_offer_mediator,
    mediator_name,
    plan,
    play,
    row_mediator,
    run_games,
)
from parley.mediation.pareto import ParetoMediator
from parley.protocol.events import Event
from parley.protocol.rules import Rules
from parley.protocol.session import MediatorView, OfferMediator
from parley.scenarios import scenario_to_yaml
from parley.scenarios.generate import GameSpec, generate_game

runner = CliRunner()


@pytest.fixture(scope="module")
def stalled_game(tmp_path_factory: pytest.TempPathFactory) -> str:
    """A generated three-party game in which tit-for-tat in every seat stalls (seed 0, 490 outcomes)."""
    path = tmp_path_factory.mktemp("mediator") / "game.yaml"
    path.write_text(scenario_to_yaml(generate_game(GameSpec(seed=0, parties=3, issues=3, max_rounds=30))))
    return str(path)


def _game(scenario: str, mediator: str = NO_MEDIATOR) -> Game:
    return Game(scenario, ("tit-for-tat",) * 3, 0, 0, mediator)


# -- rows ------------------------------------------------------------------------------------------


def test_a_mediated_game_records_the_mediator_and_the_packages_it_tabled(stalled_game: str) -> None:
    plain = play(_game(stalled_game))
    mediated = play(_game(stalled_game, "pareto"))
    assert {r["mediator"] for r in plain} == {"none"}
    assert {r["mediator_proposals"] for r in plain} == {0}
    assert {r["mediator"] for r in mediated} == {"pareto"}
    tabled = {r["mediator_proposals"] for r in mediated}
    assert len(tabled) == 1 and tabled.pop() >= 1
    # The mediator's package changed this game: without it the parties stall, with it they agree.
    assert not plain[0]["agreement"] and mediated[0]["agreement"]
    assert [r["game"] for r in plain] == [r["game"] for r in mediated]  # same key: stores keep them apart
    assert set(ROW_FIELDS) <= set(mediated[0])
    json.dumps(mediated, allow_nan=False)  # strict JSON


def test_plan_carries_the_mediator_name_and_the_cli_flag_reaches_the_rows(
    stalled_game: str, tmp_path: Path
) -> None:
    games = plan(TournamentSpec(("conceder", "boulware"), ("casino",), mediator="PARETO"))
    assert {g.mediator for g in games} == {"pareto"}
    assert {g.mediator for g in plan(TournamentSpec(("conceder", "boulware"), ("casino",)))} == {"none"}
    result = runner.invoke(
        app,
        ["tournament", "--agents", "tit-for-tat", "--self-play", "--scenarios", stalled_game,
         "--repetitions", "1", "--jobs", "1", "--mediator", "pareto", "--out", str(tmp_path)],
        env={"COLUMNS": "200"},
    )  # fmt: skip
    assert result.exit_code == 0, result.stdout + result.stderr
    rows = ResultStore(tmp_path).rows()
    assert rows and {r["mediator"] for r in rows} == {"pareto"}
    assert all(r["mediator_proposals"] >= 1 for r in rows)
    header = (tmp_path / "results.csv").read_text(encoding="utf-8").splitlines()[0]
    assert ",mediator,mediator_proposals," in header


# -- names -----------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "name",
    [
        "nope",
        "p\u0430reto",  # Cyrillic a
        "pareto\u200b",  # zero-width space
        "x" * 100_000,
        "",
    ],
)
def test_an_unknown_mediator_is_one_line_from_the_cli(name: str, tmp_path: Path) -> None:
    result = runner.invoke(
        app,
        ["tournament", "--agents", "conceder,boulware", "--scenarios", "casino", "--jobs", "1",
         "--mediator", name, "--out", str(tmp_path / "out")],
        env={"COLUMNS": "200"},
    )  # fmt: skip
    assert result.exit_code != 0
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1, result.stderr
    assert "unknown mediator" in lines[0] and "pareto" in lines[0]
    assert len(lines[0]) < 400
    assert "Traceback" not in result.stdout + result.stderr
    assert not (tmp_path / "out" / "results.jsonl").exists()  # nothing was played


def test_non_ascii_names_are_pointed_out() -> None:
    with pytest.raises(ScenarioError, match="non-ASCII"):
        create_offer_mediator("p\u0430reto")


def test_names_resolve_to_the_builtins() -> None:
    assert create_offer_mediator("none") is None
    assert create_offer_mediator("None") is None
    assert isinstance(create_offer_mediator(" Pareto "), ParetoMediator)
    assert mediator_name(None) == mediator_name("NONE") == "none"
    assert mediator_name("Pareto") == "pareto"


def not_a_factory() -> None:
    """A factory that builds nothing (for the spec tests)."""


class _ConversationOnly:
    def assess(self, view: object) -> None: ...

    def intervene(self, view: object, assessment: object) -> None: ...


def conversation_factory() -> _ConversationOnly:
    return _ConversationOnly()


def broken_factory() -> ParetoMediator:
    raise RuntimeError("boom\nwith a second line")


@pytest.mark.parametrize(
    ("spec", "message"),
    [
        (f"{__name__}:not_a_factory", "not an offer mediator"),
        (f"{__name__}:conversation_factory", "conversation mediators do not play"),
        (f"{__name__}:broken_factory", "failed to build a mediator: RuntimeError: boom with a second line"),
        (f"{__name__}:missing", "mediator"),
        ("no_such_package_zz.module:factory", "mediator"),
    ],
)
def test_bad_mediator_specs_are_one_line_errors(spec: str, message: str) -> None:
    with pytest.raises(ScenarioError) as caught:
        create_offer_mediator(spec)
    assert message in str(caught.value)
    assert "\n" not in str(caught.value)


def test_a_plugin_offer_mediator_is_found_by_entry_point(monkeypatch: pytest.MonkeyPatch) -> None:
    from parley._plugins import Plugin

    plugin = Plugin("mediator", "mine", "parley.mediation.pareto:ParetoMediator", "parley-mine 0.1")
    monkeypatch.setattr(tournament_module, "discover", lambda *args, **kwargs: {"mine": plugin})  # pyright: ignore[reportUnknownLambdaType]
    assert isinstance(create_offer_mediator("mine"), ParetoMediator)
    assert "mine" in tournament_module.offer_mediator_names()


# -- stores ----------------------------------------------------------------------------------------


def test_a_store_made_without_a_mediator_refuses_mediated_games(stalled_game: str, tmp_path: Path) -> None:
    store = ResultStore(tmp_path)
    run_games([_game(stalled_game)], store)
    before = store.path.read_bytes()
    with pytest.raises(ScenarioError, match="with and without a mediator are not mixed"):
        run_games([_game(stalled_game, "pareto")], store)
    assert store.path.read_bytes() == before  # nothing was played into it
    run_games([_game(stalled_game)], store)  # the same mediator resumes as before


def test_a_store_made_with_a_mediator_refuses_plain_games_and_mixed_batches(
    stalled_game: str, tmp_path: Path
) -> None:
    store = ResultStore(tmp_path / "a")
    run_games([_game(stalled_game, "pareto")], store)
    with pytest.raises(ScenarioError, match="mediator 'pareto' \\(now 'none'\\)"):
        run_games([_game(stalled_game)], store)
    mixed = [_game(stalled_game), dataclasses.replace(_game(stalled_game, "pareto"), repetition=1)]
    with pytest.raises(ScenarioError, match="one store holds games of one mediator"):
        run_games(mixed, ResultStore(tmp_path / "b"))


def test_old_rows_without_the_field_read_as_no_mediator(stalled_game: str, tmp_path: Path) -> None:
    store = ResultStore(tmp_path)
    rows = play(_game(stalled_game))
    for row in rows:
        del row["mediator"], row["mediator_proposals"]
    store.add(rows)
    assert {row_mediator(r) for r in store.rows()} == {"none"}
    run_games([_game(stalled_game)], store)  # already stored: nothing to play, no complaint
    with pytest.raises(ScenarioError, match="mediator 'none'"):
        run_games([_game(stalled_game, "pareto")], store)
    assert row_mediator({"mediator": None}) == row_mediator({"mediator": 3}) == "none"


# -- what the mediator sees ------------------------------------------------------------------------


def _walk(value: object, depth: int = 0) -> Iterator[object]:
    """Every object reachable from value through containers, dataclass fields and events."""
    yield value
    if depth > 8:
        return
    children: list[object] = []
    if isinstance(value, Mapping):
        children = [*value.keys(), *value.values()]  # pyright: ignore[reportUnknownArgumentType]
    elif isinstance(value, list | tuple | set | frozenset):
        children = list(value)  # pyright: ignore[reportUnknownArgumentType]
    elif dataclasses.is_dataclass(value) and not isinstance(value, type):
        children = [getattr(value, f.name) for f in dataclasses.fields(value)]
    for child in children:
        yield from _walk(child, depth + 1)


class _Spy:
    """Wraps the Pareto mediator and keeps every view it is handed, with its record as it was then
    (the record is the mediator's live window: events after the call are appended to it)."""

    views: ClassVar[list[tuple[MediatorView, list[Event]]]] = []

    def __init__(self) -> None:
        self.inner = ParetoMediator()

    def propose(self, view: MediatorView) -> Mapping[str, Value] | None:
        _Spy.views.append((view, list(view.record)))
        return self.inner.propose(view)


def test_the_mediator_never_receives_a_utility(
    stalled_game: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _Spy.views = []
    real = tournament_module.create_offer_mediator

    def create(name: str) -> OfferMediator | None:
        return _Spy() if name == "spy" else real(name)

    monkeypatch.setattr(tournament_module, "create_offer_mediator", create)
    store = ResultStore(tmp_path)
    run_games([_game(stalled_game, "spy")], store, jobs=1)  # in this process, so the spy is used
    assert _Spy.views, "the mediator was never consulted"
    assert all(r["mediator_proposals"] >= 1 for r in store.rows())
    scenario = tournament_module._scenario(stalled_game)  # pyright: ignore[reportPrivateUsage]
    reservations = {float(p.utility.reservation_value) for p in scenario.parties}
    for view, record in _Spy.views:
        assert {f.name for f in dataclasses.fields(view)} == {
            "space",
            "parties",
            "round",
            "record",
            "signals",
            "rules",
        }
        # The public rules (round bound, acceptance rule) hold no utility or BATNA either.
        assert view.rules is None or isinstance(view.rules, Rules)
        rules = dataclasses.asdict(view.rules) if view.rules is not None else {}
        reachable = list(_walk([view.parties, view.round, view.signals, record, rules]))
        assert not any(isinstance(item, UtilityFunction) for item in reachable)
        assert not any(callable(getattr(item, "evaluate", None)) for item in reachable)
        text = json.dumps([str(item) for item in reachable]).lower()
        assert "utility" not in text and "reservation" not in text and "batna" not in text
        assert record and all(event.audience == "public" for event in record)
        for event in record:
            assert event.kind not in {"trace", "private", "persona"}
            assert not (event.kind == "open" and any(_holds(event, r) for r in reservations))
        assert all(set(signals) <= {"priorities", "must_haves"} for signals in view.signals.values())


def _holds(event: Any, value: float) -> bool:
    return any(isinstance(item, float) and item == value for item in _walk(getattr(event, "payload", None)))
