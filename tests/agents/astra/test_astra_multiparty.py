"""ASTRA beyond two parties and against the deadline: one IPP per party, the coalition a package needs,
walk-away and concession rules relative to the round bound (issue 20)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np
import pytest

from parley.agents.astra import AstraNegotiator
from parley.agents.astra.coalition import CoalitionModel
from parley.agents.astra.deadline import Horizon, aspiration, better_reachable, horizon, stall_limit
from parley.agents.astra.opponent import PartnerModel, collect_evidence
from parley.domain.issues import Issue
from parley.domain.space import OutcomeSpace
from parley.experiments.runner import run_negotiation
from parley.protocol.actions import Action, Propose, Say
from parley.protocol.rules import AcceptanceRule, Rules
from parley.protocol.session import Session, SessionResult
from parley.protocol.view import PartyView
from parley.scenarios.generate import GameSpec, generate_game
from parley.testing import ScriptedNegotiator
from parley.testing.scenarios import three_party_scenario

SPACE = OutcomeSpace.of([Issue.integer_range("x", 0, 3), Issue.integer_range("y", 0, 3)])


def _model(x: list[float], y: list[float]) -> PartnerModel:
    tables = (np.array(x), np.array(y))
    return PartnerModel(SPACE, ("x", "y"), tables, "offers", 10.0)


def test_the_coalition_is_the_vetoers_and_the_most_willing_others() -> None:
    rising, falling, flat = [0.0, 1 / 3, 2 / 3, 1.0], [1.0, 2 / 3, 1 / 3, 0.0], [0.5] * 4
    models = {"v": _model(rising, rising), "a": _model(falling, falling), "b": _model(rising, falling)}
    coalition = CoalitionModel(models, vetoes=("v",), needed=2)
    rows = SPACE.enumerate_indices()
    per_party = np.vstack([m.points(rows) for m in models.values()])
    expected = np.minimum(per_party[0], per_party[1:].max(axis=0))  # the vetoer and the better other
    np.testing.assert_allclose(coalition.points(rows), expected)
    assert coalition.members((3, 0)) == ["v", "b"]  # b likes a high x as v does; a does not
    assert coalition.points_of((3, 3)) == pytest.approx(float(expected[-1]))
    unanimous = CoalitionModel(models, vetoes=(), needed=3)
    np.testing.assert_allclose(unanimous.points(rows), per_party.min(axis=0))
    assert CoalitionModel({"f": _model(flat, flat)}, (), 0).points(rows).tolist() == [36.0] * 16
    too_few = CoalitionModel({"v": models["v"]}, ("v",), 2)  # a party left: no package can pass
    assert (too_few.points(rows) <= 0.0).all()
    assert coalition.to_json()["source"] == "coalition" and set(coalition.to_json()["parties"]) == set(models)


class _Capture:
    """Wraps ASTRA and keeps its last view (to read the evidence it had)."""

    def __init__(self, inner: AstraNegotiator) -> None:
        self.inner = inner
        self.view: PartyView | None = None

    def act(self, view: PartyView) -> Action:
        self.view = view
        return self.inner.act(view)

    def explain(self) -> Mapping[str, Any] | None:
        return self.inner.explain()


def _three_party(rules: Rules, ben: list[Any], cy: list[Any]) -> tuple[SessionResult, _Capture]:
    scenario = three_party_scenario(rules=rules)
    astra = _Capture(AstraNegotiator("ana", 0))
    negotiators = {"ana": astra, "ben": ScriptedNegotiator(ben), "cy": ScriptedNegotiator(cy)}
    session = Session(scenario.space, scenario.setups(), negotiators, scenario.rules)
    return session.run(), astra


def test_each_other_party_gets_its_own_evidence_and_ipp() -> None:
    north = {"site": "north", "budget": 1, "months": 12}
    west = {"site": "west", "budget": 4, "months": 12}
    rules = Rules(max_rounds=8, on_stagnation="continue", acceptance=AcceptanceRule(2, ("cy",)))
    result, astra = _three_party(
        rules,
        [Say("budget first", ("budget", "months", "site")), *[Propose(north)] * 10],
        [Propose(west)] * 10,
    )
    assert astra.view is not None
    ben, cy = collect_evidence(astra.view, "ben"), collect_evidence(astra.view, "cy")
    space = astra.view.space
    assert ben.partner_offers and set(ben.partner_offers) == {space.to_indices(north)}
    assert cy.partner_offers and set(cy.partner_offers) == {space.to_indices(west)}
    assert ben.statements == (("budget", "months", "site"),) and cy.statements == ()
    assert set(collect_evidence(astra.view).partner_offers) == {
        space.to_indices(north),
        space.to_indices(west),
    }
    traces = [e.data for e in result.trajectory if e.kind == "trace" and e.data["mode"] == "propose"]
    assert traces
    ipp = traces[-1]["ipp"]
    assert ipp["source"] == "coalition" and ipp["needed"] == 1 and ipp["vetoes"] == ["cy"]
    assert ipp["parties"]["ben"]["source"] == "stated" and ipp["parties"]["cy"]["source"] == "offers"


def test_a_withdrawn_party_leaves_the_coalition() -> None:
    rules = Rules(max_rounds=10, on_stagnation="continue", acceptance=AcceptanceRule(2))
    offer = {"site": "east", "budget": 2, "months": 6}
    result, _ = _three_party(rules, [Propose(offer)] * 20, [])  # cy walks at once and withdraws
    assert any(e.kind == "withdrawal" and e.party == "cy" for e in result.trajectory)
    later = [
        e.data
        for e in result.trajectory
        if e.kind == "trace" and e.data["mode"] == "propose" and e.round > 2 and e.party == "ana"
    ]
    assert later and all(set(t["ipp"]["parties"]) == {"ben"} for t in later)


@pytest.mark.parametrize("seed", range(6))
def test_all_astra_multi_party_games_end_in_deals_or_at_the_bound_never_in_walks(seed: int) -> None:
    game = generate_game(GameSpec(seed=seed, parties=3 + seed % 3, issues=3, max_rounds=40))
    result = run_negotiation(game, ["astra"] * len(game.parties), seed=seed)
    assert result.no_deal is None or result.no_deal.reason == "bound_hit", result.no_deal


def test_all_astra_reaches_deals_in_most_generated_multi_party_games() -> None:
    deals = 0
    for seed in range(12):
        game = generate_game(
            GameSpec(seed=seed, parties=3 + seed % 3, issues=3 + (seed // 3) % 3, max_rounds=60)
        )
        deals += run_negotiation(game, ["astra"] * len(game.parties), seed=seed).agreement is not None
    assert deals >= 8


@pytest.mark.parametrize("seed", range(10))
def test_self_play_on_a_generated_bilateral_game_ends_in_a_deal(seed: int) -> None:
    # the issue's failure: two ASTRAs anchored on their best package and one walked at round 8
    game = generate_game(GameSpec(seed=seed, parties=2, issues=3 + seed % 4, max_rounds=40))
    result = run_negotiation(game, ["astra", "astra"], seed=seed)
    assert result.agreement is not None, result.no_deal


@pytest.mark.parametrize("rounds", [20, 100])
def test_never_walks_before_the_bound_against_a_partner_that_never_moves(rounds: int) -> None:
    game = generate_game(GameSpec(seed=4, parties=2, issues=4, max_rounds=rounds))
    result = run_negotiation(game, ["astra", "hardliner"], seed=4)
    assert result.no_deal is not None and result.no_deal.reason == "bound_hit"
    assert result.rounds == rounds


# -- the deadline helpers --------------------------------------------------------------------------


def test_aspiration_falls_from_the_best_package_to_just_above_the_batna() -> None:
    start, middle, end = (aspiration(Horizon(t, 10, 20), 6.0, 0.25) for t in (0.0, 0.5, 1.0))
    assert start == pytest.approx(36.0)
    assert 30.0 < middle < 36.0  # a Boulware curve holds out most of the session
    assert end == pytest.approx(7.0)  # the BATNA plus its one-point margin
    tougher = aspiration(Horizon(0.5, 10, 20), 6.0, 0.1)
    assert tougher > middle
    assert aspiration(Horizon(1.0, 1, 20), 35.0, 0.25) <= 36.0  # a BATNA near the top: a smaller margin


def test_stall_limit_and_reachability_scale_with_the_session() -> None:
    assert stall_limit(Horizon(0.1, 18, 20), 0.15) == 3
    assert stall_limit(Horizon(0.1, 90, 100), 0.15) == 15
    assert stall_limit(Horizon(0.1, 3, 4), 0.15) == 2  # never fewer than two offers
    assert better_reachable(Horizon(0.5, 5, 10), 20.0)
    assert not better_reachable(Horizon(1.0, 1, 10), 20.0)  # the last move: nothing comes after it
    assert not better_reachable(Horizon(0.5, 5, 10), 36.0)  # nothing is worth more than the best


def test_horizon_counts_moves_in_the_partys_own_rhythm() -> None:
    scenario = three_party_scenario(rules=Rules(max_rounds=9, on_stagnation="continue"))
    probe = ScriptedNegotiator([Propose({"site": "east", "budget": 2, "months": 6})] * 20)
    others = {name: ScriptedNegotiator([Say("hello")] * 20) for name in ("ben", "cy")}
    Session(scenario.space, scenario.setups(), {"ana": probe, **others}, scenario.rules).run()
    times = [horizon(view) for view in probe.views]
    assert times[0].moves_left == 9  # ana moves every round (as proposer or responder)
    assert times[-1].last_move and times[-1].moves_left == 1
    assert [t.moves_left for t in times] == sorted((t.moves_left for t in times), reverse=True)
