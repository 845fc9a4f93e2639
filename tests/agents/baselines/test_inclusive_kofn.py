"""Time-based agents under k of n: they pick from their band by maximin over the others' estimated
values (`inclusive`), and nothing changes under unanimity or in bilateral games."""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Mapping
from dataclasses import replace
from typing import Any

import numpy as np
import pytest

from parley.agents.baselines.concession import TimeBasedNegotiator, leaves_out, pick_inclusive
from parley.agents.baselines.core import SessionMemory
from parley.agents.baselines.ranked import ranked_space
from parley.agents.registry import create
from parley.domain.utility import UtilityFunction
from parley.errors import ScenarioError
from parley.experiments.runner import run_negotiation
from parley.protocol.actions import Action
from parley.protocol.rules import AcceptanceRule, Rules
from parley.protocol.session import Negotiator, SessionResult
from parley.protocol.view import PartyView, Phase, Record
from parley.scenarios import load_scenario
from parley.scenarios.generate import GameSpec, generate_game
from parley.scenarios.model import Scenario

"""The first set of blind multi-party scenarios: played once, now spent (tuning use is allowed)."""


def _game(seed: int, parties: int) -> Scenario:
    return generate_game(GameSpec(seed=seed, parties=parties, issues=3, max_rounds=30))


def _conceders(game: Scenario, *, inclusive: bool) -> dict[str, Negotiator]:
    return {
        party.name: TimeBasedNegotiator(party.name, seed=i, exponent=2.0, inclusive=inclusive)
        for i, party in enumerate(game.parties)
    }


def _transcript(result: SessionResult) -> str:
    return json.dumps([[e.kind, e.round, e.party, e.data] for e in result.trajectory], sort_keys=True)


def _good_for_all(game: Scenario, result: SessionResult) -> bool:
    if result.agreement is None:
        return False
    terms = result.agreement.terms
    return all(p.utility.evaluate(terms) >= p.utility.reservation_value - 1e-9 for p in game.parties)


# -- gating: unanimity and bilateral games play exactly as before ----------------------------------------


@pytest.mark.parametrize(("seed", "parties"), [(2, 3), (5, 4), (6, 4), (9, 4)])
def test_unanimous_games_are_unchanged(seed: int, parties: int) -> None:
    game = _game(seed, parties)
    assert not _leaves_out(game)
    on = run_negotiation(game, _conceders(game, inclusive=True), seed=0)
    off = run_negotiation(game, _conceders(game, inclusive=False), seed=0)
    assert _transcript(on) == _transcript(off)


@pytest.mark.parametrize("seed", [0, 1, 2, 3])
def test_bilateral_games_are_unchanged(seed: int) -> None:
    game = generate_game(GameSpec(seed=seed, parties=2, issues=4, max_rounds=40))
    on = run_negotiation(game, _conceders(game, inclusive=True), seed=seed)
    off = run_negotiation(game, _conceders(game, inclusive=False), seed=seed)
    assert _transcript(on) == _transcript(off)


def _leaves_out(game: Scenario) -> bool:
    required = game.rules.acceptance.required
    return required is not None and required < len(game.parties)


def test_k_of_n_games_do_change() -> None:
    # The option is live where it should be: some k-of-n game plays differently with it.
    games = [_game(seed, parties) for seed, parties in [(0, 3), (0, 4), (1, 4), (3, 4), (8, 3)]]
    assert all(_leaves_out(g) for g in games)
    changed = [
        _transcript(run_negotiation(g, _conceders(g, inclusive=True), seed=0))
        != _transcript(run_negotiation(g, _conceders(g, inclusive=False), seed=0))
        for g in games
    ]
    assert any(changed)


def test_the_rule_reader_sees_k_below_n_only() -> None:
    game = _game(0, 4)
    view = _view(game, game.parties[0].name)
    assert leaves_out(view)
    unanimous = replace(view.rules, acceptance=AcceptanceRule(None, ()))
    assert not leaves_out(_with_rules(view, unanimous))
    all_needed = replace(view.rules, acceptance=AcceptanceRule(len(game.parties), ()))
    assert not leaves_out(_with_rules(view, all_needed))


def _view(game: Scenario, party: str) -> PartyView:
    return PartyView(
        party=party,
        parties=tuple(game.party_names),
        round=1,
        phase=Phase.PROPOSE,
        space=game.space,
        utility=game.parties[game.party_names.index(party)].utility,
        rules=game.rules,
        table=None,
        record=Record([]),
        persona={},
    )


def _with_rules(view: PartyView, rules: Rules) -> PartyView:
    return PartyView(
        party=view.party,
        parties=view.parties,
        round=view.round,
        phase=view.phase,
        space=view.space,
        utility=view.utility,
        rules=rules,
        table=view.table,
        record=view.record,
        persona=view.persona,
    )


# -- what it picks ----------------------------------------------------------------------------------------


def test_it_picks_the_maximin_package_of_its_band() -> None:
    game = _game(0, 4)
    owner, *others = game.parties
    ranked = ranked_space(game.space, owner.utility)
    memory = SessionMemory(Record([]), ranked, [p.name for p in others])
    # Two others with opposite tastes, read from their offers: one offers its best packages, one its worst.
    first, second = memory.models[others[0].name], memory.models[others[1].name]
    for rank in range(3):
        first.observe_offer(ranked.package(rank))
        second.observe_offer(ranked.package(ranked.size - 1 - rank))
    band = range(ranked.size // 3, ranked.size // 3 + 40)
    chosen = pick_inclusive(band, memory)
    estimates = np.vstack([m.estimate_ranks(band) for m in memory.models.values() if m.offers])
    worst = estimates.min(axis=0)
    assert worst[chosen - band.start] == pytest.approx(worst.max())
    by_sum = band.start + int(np.argmax(estimates.sum(axis=0)))
    # The constructed tastes pull apart: the sum's favourite leaves one of them worse off.
    assert worst[by_sum - band.start] < worst.max()


def test_it_skips_its_previous_proposal_when_it_can() -> None:
    game = _game(0, 3)
    owner, *others = game.parties
    ranked = ranked_space(game.space, owner.utility)
    memory = SessionMemory(Record([]), ranked, [p.name for p in others])
    memory.models[others[0].name].observe_offer(ranked.package(5))
    band = range(10, 30)
    first = pick_inclusive(band, memory)
    memory.last_rank = first
    assert pick_inclusive(band, memory) != first
    assert pick_inclusive(range(first, first + 1), memory) == first  # no alternative: it repeats


def test_it_needs_an_offer_to_read() -> None:
    game = _game(0, 3)
    ranked = ranked_space(game.space, game.parties[0].utility)
    memory = SessionMemory(Record([]), ranked, [p.name for p in game.parties[1:]])
    with pytest.raises(ValueError, match="offer"):
        pick_inclusive(range(0, 5), memory)


def test_a_spent_k_of_n_scenario_now_ends_good_for_every_party() -> None:
    # eastvale_waste_plant_siting (4 of 6, two vetoers, a single package good for every party): with
    # conceders in every seat the sum-pick ends in a deal that leaves a party below its BATNA; the
    # maximin pick reaches the package good for all (seed of the held-out run).
    game = load_scenario("multiparty/eastvale_waste_plant_siting")
    assert _leaves_out(game)
    on = run_negotiation(game, _conceders(game, inclusive=True), seed=4000)
    off = run_negotiation(game, _conceders(game, inclusive=False), seed=4000)
    assert _good_for_all(game, on)
    assert not _good_for_all(game, off)


# -- information hiding -------------------------------------------------------------------------------------


def _utilities_reached(value: object, depth: int = 0) -> list[UtilityFunction]:
    if depth > 6:
        return []
    if isinstance(value, UtilityFunction):
        return [value]
    if isinstance(value, Mapping):
        return [u for v in value.values() for u in _utilities_reached(v, depth + 1)]  # pyright: ignore[reportUnknownVariableType, reportUnknownArgumentType]
    if isinstance(value, list | tuple | set | frozenset | Record):
        return [u for v in value for u in _utilities_reached(v, depth + 1)]  # pyright: ignore[reportUnknownVariableType, reportUnknownArgumentType]
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return [
            u
            for f in dataclasses.fields(value)
            for u in _utilities_reached(getattr(value, f.name), depth + 1)
        ]
    return []


class _Watched(TimeBasedNegotiator):
    """Checks on every move that the only utility its view reaches is its own."""

    def __init__(self, party: str, seed: int, own: UtilityFunction) -> None:
        super().__init__(party, seed, exponent=2.0)
        self.own = own
        self.moves = 0

    def act(self, view: PartyView) -> Action:
        reached = _utilities_reached(view)
        assert reached and all(u is self.own for u in reached)
        assert all(e.audience in ("public", self.party) for e in view.record)
        self.moves += 1
        return super().act(view)


def test_it_reads_no_other_party_s_utility() -> None:
    game = _game(3, 4)
    watched = {p.name: _Watched(p.name, i, p.utility) for i, p in enumerate(game.parties)}
    run_negotiation(game, dict[str, Negotiator](watched), seed=0)
    assert all(agent.moves for agent in watched.values())


# -- options ----------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "options",
    [
        {"inclusive": "yes"},
        {"inclusive": 1},
        {"inclusive": None},
        {"inclusive": "true\u200b"},
        {"exponent": float("nan")},
        {"exponent": float("inf")},
        {"exponent": -1.0},
        {"anchor": float("nan")},
        {"band": -0.1},
    ],
)
def test_bad_options_are_one_line(options: dict[str, Any]) -> None:
    with pytest.raises(ValueError) as caught:
        TimeBasedNegotiator("ash", **options)
    assert "\n" not in str(caught.value) and len(str(caught.value)) < 200


def test_the_registry_passes_the_option_on() -> None:
    agent = create("conceder", party="ash", seed=0, inclusive=False)
    assert isinstance(agent, TimeBasedNegotiator)
    with pytest.raises((ValueError, ScenarioError)):
        create("conceder", party="ash", seed=0, inclusive="garbage")
