"""The proactive mediator under k of n (`pool`): it tables only packages some party revealed, it changes
nothing under unanimity or in bilateral games, and it still never reads a utility."""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import replace
from typing import Any

import pytest
from utility_reach import holds_a_utility

from parley.domain.space import OutcomeSpace
from parley.domain.utility import LinearAdditiveUtility, TableUtility, UtilityFunction
from parley.errors import ScenarioError
from parley.experiments.runner import build_negotiators
from parley.experiments.tournament import create_offer_mediator
from parley.mediation.proactive import ProactiveMediator, create_proactive
from parley.protocol.coalition import read_record
from parley.protocol.events import Event
from parley.protocol.session import MediatorView, Session, SessionResult
from parley.protocol.view import Record
from parley.scenarios.generate import GameSpec, generate_game
from parley.scenarios.model import Scenario


def _game(seed: int, parties: int, issues: int = 3) -> Scenario:
    return generate_game(GameSpec(seed=seed, parties=parties, issues=issues, max_rounds=30))


class Recording(ProactiveMediator):
    """Keeps every view it is given and the record as it stood then (a view's record is live)."""

    def __init__(self, **options: Any) -> None:
        super().__init__(**options)
        self.views: list[MediatorView] = []
        self.seen: list[list[Event]] = []

    def propose(self, view: MediatorView) -> Mapping[str, Any] | None:
        self.views.append(view)
        self.seen.append(list(view.record))
        return super().propose(view)


def _play(game: Scenario, agent: str, mediator: ProactiveMediator, seed: int = 0) -> SessionResult:
    negotiators = build_negotiators(game, [agent] * len(game.parties), seed, {})
    rules = replace(game.rules, on_stagnation="mediate")
    return Session(game.space, game.setups(), negotiators, rules, mediator=mediator).run()


def _transcript(result: SessionResult) -> str:
    return json.dumps([[e.kind, e.round, e.party, e.data] for e in result.trajectory], sort_keys=True)


def _k_of_n(game: Scenario) -> bool:
    required = game.rules.acceptance.required
    return required is not None and required < len(game.parties)


# -- gating ---------------------------------------------------------------------------------------------


@pytest.mark.parametrize(("seed", "parties"), [(2, 3), (5, 4), (6, 4), (9, 4)])
@pytest.mark.parametrize("agent", ["conceder", "linear", "base"])
def test_pool_changes_nothing_under_unanimity(seed: int, parties: int, agent: str) -> None:
    game = _game(seed, parties)
    assert not _k_of_n(game)
    before = _play(game, agent, ProactiveMediator())
    after = _play(game, agent, ProactiveMediator(pool=1))
    assert before.trajectory.of_kind("mediator_proposal")  # the mediator did step in
    assert _transcript(before) == _transcript(after)


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_pool_changes_nothing_in_bilateral_games(seed: int) -> None:
    game = generate_game(GameSpec(seed=seed, parties=2, issues=4, max_rounds=40))
    before = _play(game, "conceder", ProactiveMediator())
    after = _play(game, "conceder", ProactiveMediator(pool=1))
    assert _transcript(before) == _transcript(after)


# -- what it tables under k of n ----------------------------------------------------------------------------


@pytest.mark.parametrize(("seed", "parties"), [(0, 3), (0, 4), (1, 4), (3, 4), (10, 4)])
def test_under_k_of_n_it_tables_only_revealed_packages(seed: int, parties: int) -> None:
    game = _game(seed, parties)
    assert _k_of_n(game)
    mediator = Recording(pool=1, start=0.0, deadline=0.0, trial=0)
    result = _play(game, "linear", mediator)
    events = list(result.trajectory)
    tabled = [e for e in events if e.kind == "mediator_proposal"]
    assert tabled
    for event in tabled:
        before = [e for e in events[: event.seq] if e.audience == "public"]
        revealed = read_record(before, game.party_names, game.rules)[0]
        rows = {game.space.to_indices(dict(p)) for packages in revealed.values() for p in packages}
        assert game.space.to_indices(dict(event.data["package"])) in rows


def test_without_pool_it_may_table_a_new_text() -> None:
    # The default reaches for packages nobody offered (within `reach` issues of the forming table):
    # the pool option is what restricts it, not the games.
    found_new = False
    for seed, parties in [(0, 3), (0, 4), (1, 4), (3, 4), (8, 3)]:
        game = _game(seed, parties)
        result = _play(game, "conceder", ProactiveMediator(start=0.0, deadline=0.0, trial=0))
        events = list(result.trajectory)
        for event in (e for e in events if e.kind == "mediator_proposal"):
            before = [e for e in events[: event.seq] if e.audience == "public"]
            revealed = read_record(before, game.party_names, game.rules)[0]
            rows = {game.space.to_indices(dict(p)) for packages in revealed.values() for p in packages}
            found_new |= game.space.to_indices(dict(event.data["package"])) not in rows
    assert found_new


# -- information hiding ------------------------------------------------------------------------------------


def test_under_k_of_n_its_views_hold_no_utility_and_only_public_events() -> None:
    mediator = Recording(pool=1, start=0.0, deadline=0.0)
    _play(_game(0, 4), "conceder", mediator)
    assert mediator.views
    for view, seen in zip(mediator.views, mediator.seen, strict=True):
        assert not holds_a_utility(view)
        assert all(event.audience == "public" for event in seen)
        assert not any(event.kind in ("agreement", "batna_violation", "trace") for event in seen)


def _refuse(*_: object, **__: object) -> Any:
    raise AssertionError("the mediator evaluated a utility")


def test_it_decides_with_every_utility_locked(monkeypatch: pytest.MonkeyPatch) -> None:
    # Replay what it was shown with every way of evaluating a utility raising: its decisions stand.
    mediator = Recording(pool=1, start=0.0, deadline=0.0, trial=0)
    _play(_game(1, 4), "conceder", mediator)
    assert mediator.views
    for cls in (UtilityFunction, LinearAdditiveUtility, TableUtility):
        for method in ("evaluate", "evaluate_indices", "evaluate_space", "bounds", "is_acceptable"):
            if method in vars(cls):
                monkeypatch.setattr(cls, method, _refuse)
    replayed = ProactiveMediator(pool=1, start=0.0, deadline=0.0, trial=0)
    proposals = [
        replayed.propose(_frozen(view, seen))
        for view, seen in zip(mediator.views, mediator.seen, strict=True)
    ]
    assert any(p is not None for p in proposals)


def _frozen(view: MediatorView, seen: list[Event]) -> MediatorView:
    return replace(view, record=Record(seen))


def test_check_mediator_passes_with_pool() -> None:
    from parley.testing.mediators import check_mediator

    check_mediator(lambda seed: ProactiveMediator(pool=1, gap=1, start=0.0, deadline=0.0))


# -- options ----------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "name",
    [
        "proactive(pool=2)",
        "proactive(pool=-1)",
        "proactive(pool=0.5)",
        "proactive(pool=nan)",
        "proactive(pool=inf)",
        "proactive(pool=yes)",
        "proactive(pool=" + "9" * 400 + ")",
        "proactive(pool=1\u200b)",
        "proactive(po\u200bol=1)",
        "proactive(pоol=1)",  # Cyrillic o
        "proactive(pool=)",
    ],
)
def test_a_bad_pool_is_refused_in_one_line(name: str) -> None:
    with pytest.raises(ScenarioError) as caught:
        create_offer_mediator(name)
    message = str(caught.value)
    assert "\n" not in message and len(message) < 400


def test_pool_is_read_from_the_name_and_checked_when_built() -> None:
    assert create_proactive("proactive(pool=1)").pool == 1
    assert create_proactive("proactive").pool == 0
    with pytest.raises(ScenarioError, match="pool"):
        ProactiveMediator(pool=3)


def test_a_rules_free_view_is_read_as_unanimity() -> None:
    # A view without public rules (an older caller) counts as unanimous: pool never applies.
    game = _game(0, 4)
    mediator = Recording(pool=1, start=0.0, deadline=0.0)
    _play(game, "conceder", mediator)
    views = [
        replace(v, record=Record(seen), rules=None)
        for v, seen in zip(mediator.views, mediator.seen, strict=True)
    ]
    with_pool = [ProactiveMediator(pool=1).package(v) for v in views]
    assert any(p is not None for p in with_pool)
    assert with_pool == [ProactiveMediator(pool=0).package(v) for v in views]
    space: OutcomeSpace = views[0].space
    for package in filter(None, with_pool):
        space.validate(dict(package))
