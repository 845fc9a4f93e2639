"""The ANAC reference strategies (`parley.agents.baselines.anac`): each one's published rules, on
scripted partners, and whole games on generated scenarios."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np
import pytest

from parley.agents import create
from parley.agents.baselines.anac import (
    AgentKNegotiator,
    Atlas3Negotiator,
    CUHKNegotiator,
    HardHeadedNegotiator,
    IssueFrequencyModel,
    MiCRONegotiator,
)
from parley.agents.baselines.core import BaselineNegotiator
from parley.domain.issues import Value
from parley.experiments.runner import run_negotiation
from parley.protocol.actions import Action, Propose
from parley.protocol.rules import Rules
from parley.protocol.session import Session, SessionResult
from parley.scenarios.generate import GameSpec, generate_game
from parley.testing import ScriptedNegotiator
from parley.testing.scenarios import casino_like_scenario

ANAC = ("hardheaded", "agentk", "micro", "atlas3", "cuhk")


def _package(food: int, water: int, firewood: int) -> dict[str, int]:
    return {"food": food, "water": water, "firewood": firewood}


def _play(agent: BaselineNegotiator, steps: Sequence[Action], rounds: int = 20) -> SessionResult:
    scenario = casino_like_scenario(rules=Rules(max_rounds=rounds, on_stagnation="continue"))
    partner = ScriptedNegotiator(steps)
    return Session(scenario.space, scenario.setups(), {"alice": agent, "bob": partner}, scenario.rules).run()


def _offers(result: SessionResult, party: str = "alice") -> list[dict[str, int]]:
    return [
        {name: int(value) for name, value in e.data["package"].items()}
        for e in result.trajectory
        if e.kind == "action" and e.party == party and e.data["kind"] == "propose"
    ]


def _worth(package: Mapping[str, Value]) -> float:
    """alice's points in the casino-like game (food 5, water 4, firewood 3 per unit she gets)."""
    return 5.0 * float(package["food"]) + 4.0 * float(package["water"]) + 3.0 * float(package["firewood"])


def test_every_anac_strategy_is_registered_and_builds() -> None:
    kinds = {
        "hardheaded": HardHeadedNegotiator,
        "agentk": AgentKNegotiator,
        "micro": MiCRONegotiator,
        "atlas3": Atlas3Negotiator,
        "cuhk": CUHKNegotiator,
    }
    for name, kind in kinds.items():
        assert isinstance(create(name, party="alice", seed=0), kind)


def test_frequency_model_learns_unchanged_issues_and_offered_options() -> None:
    model = IssueFrequencyModel((3, 3))
    for row in [(2, 0), (2, 1), (2, 2), (2, 0)]:  # keeps issue 0 at option 2, moves on issue 1
        model.observe(row)
    assert model.weights[0] > model.weights[1]
    assert model.weights.sum() == pytest.approx(1.0)
    scores = model.scores(np.array([[2, 0], [0, 0], [2, 2]]))
    assert scores[0] > scores[1] and scores[0] >= scores[2]
    assert model.offers == 4


def test_hardheaded_opens_at_its_best_and_concedes_only_at_the_very_end() -> None:
    agent = HardHeadedNegotiator("alice", 0)
    result = _play(agent, [Propose(_package(0, 0, 0))] * 40, rounds=30)
    worths = [_worth(p) for p in _offers(result)]
    assert worths[0] == 36.0
    assert min(worths[: len(worths) // 2]) >= 34.0  # e = 0.05: almost no concession in the first half
    assert worths[-1] < worths[0]
    assert worths[-1] >= 0.585 * 36 - 1e-9  # never below P_min (58.5% of the range above the worst)


def test_hardheaded_offers_back_the_opponents_best_bid_once_it_meets_the_target() -> None:
    agent = HardHeadedNegotiator("alice", 0)
    generous = _package(3, 3, 2)  # 33 points for alice
    result = _play(agent, [Propose(_package(0, 0, 0)), *[Propose(generous)] * 40], rounds=30)
    assert result.agreement is not None
    assert dict(result.agreement.terms) == generous or _worth(dict(result.agreement.terms)) >= 33.0


def test_micro_concedes_one_package_per_new_opponent_offer_and_repeats_otherwise() -> None:
    repeating = _play(MiCRONegotiator("alice", 0), [Propose(_package(0, 0, 0))] * 12, rounds=12)
    assert len({tuple(p.values()) for p in _offers(repeating)}) == 2  # its best, then one concession
    new_each_time = [Propose(_package(0, 0, k % 4)) for k in range(4)] + [
        Propose(_package(0, k % 4, 0)) for k in range(1, 4)
    ]
    moving = _play(MiCRONegotiator("alice", 0), new_each_time, rounds=8)
    mine: set[tuple[int, ...]] = set()
    theirs: set[tuple[int, ...]] = set()
    for event in moving.trajectory:
        if event.kind == "action" and event.data["kind"] == "propose":
            (mine if event.party == "alice" else theirs).add(tuple(event.data["package"].values()))
            if event.party == "alice":
                assert (
                    len(mine) <= len(theirs) + 1
                )  # never more new packages than it was sent, plus its first
    assert len(mine) == 5  # it conceded at every move: the partner sent a new package every time
    worths = [_worth(p) for p in _offers(moving)]
    assert worths == sorted(worths, reverse=True)  # MiCRO walks down its own ranking


def test_micro_accepts_what_it_would_concede_to_next() -> None:
    agent = MiCRONegotiator("alice", 0)
    result = _play(agent, [Propose(_package(3, 3, 3))], rounds=4)  # everything for alice
    assert result.agreement is not None


def test_agentk_estimates_the_most_the_opponent_will_offer() -> None:
    agent = AgentKNegotiator("alice", 0)
    offers = [Propose(_package(k % 3, 0, 0)) for k in range(12)]  # 0, 5, 10 points for alice
    _play(agent, offers, rounds=12)
    memory = agent.memory
    assert memory.state["received"].offers
    shares = [agent.ranked.share(w) for _, _, w, _ in memory.state["received"].offers]
    assert max(shares) <= 0.3


def test_agentk_accepts_at_or_above_its_target() -> None:
    agent = AgentKNegotiator("alice", 0)
    result = _play(agent, [Propose(_package(3, 3, 3))], rounds=6)
    assert result.agreement is not None


def test_atlas3_lower_limit_is_the_ess_expected_utility() -> None:
    agent = Atlas3Negotiator("alice", 1)
    half = _package(3, 0, 1)  # 18 points: half of alice's range
    result = _play(agent, [Propose(half)] * 30, rounds=20)
    limit = agent.lower_limit(_last_view(result, agent))
    share = agent.ranked.share(18.0)
    assert limit == pytest.approx(2 * share / (1 + share))
    assert agent.threshold(_last_view(result, agent)) >= limit - 1e-9


def _last_view(result: SessionResult, agent: BaselineNegotiator):  # type: ignore[no-untyped-def]
    """A view of the final state for calling a strategy's helpers (its record is the whole session)."""
    from parley.protocol.view import PartyView, Phase, Record

    scenario = casino_like_scenario()
    events = list(result.trajectory)
    return PartyView(
        "alice",
        ("alice", "bob"),
        20,
        Phase.RESPOND,
        scenario.space,
        agent.ranked.utility,
        Rules(max_rounds=20),
        None,
        Record(events),
        {},
    )


def test_atlas3_and_cuhk_offer_back_the_best_package_late() -> None:
    best = _package(2, 2, 2)  # 24 points for alice
    steps = [Propose(_package(0, 0, 0)), Propose(best), *[Propose(_package(1, 0, 0))] * 40]
    for agent in (Atlas3Negotiator("alice", 0), CUHKNegotiator("alice", 0)):
        result = _play(agent, steps, rounds=30)
        offers = _offers(result)
        assert result.agreement is not None or best in offers[-3:]


@pytest.mark.parametrize("name", ANAC)
def test_each_strategy_plays_generated_games_without_accepting_below_its_batna(name: str) -> None:
    for seed in range(3):
        game = generate_game(GameSpec(seed=seed, parties=2, issues=3))
        for lineup in ([name, "conceder"], ["boulware", name], [name, name]):
            result = run_negotiation(game, lineup, seed=seed)
            assert result.no_deal is None or result.no_deal.reason in ("bound_hit", "walk", "stagnation")
            if result.agreement is not None:
                assert result.agreement.is_clean


@pytest.mark.parametrize("name", ANAC)
def test_each_strategy_gets_deals_from_a_steady_conceder(name: str) -> None:
    deals = 0
    for seed in range(6):
        game = generate_game(GameSpec(seed=seed, parties=2, issues=3, max_rounds=60))
        deals += run_negotiation(game, [name, "linear"], seed=seed).agreement is not None
    assert deals >= 3


@pytest.mark.parametrize("name", ANAC)
def test_each_strategy_plays_multi_party_games(name: str) -> None:
    game = generate_game(GameSpec(seed=2, parties=4, issues=3))
    result = run_negotiation(game, [name, "conceder", "linear", name], seed=2)
    assert result.no_deal is None or result.no_deal.reason != "protocol_violation", result.no_deal
