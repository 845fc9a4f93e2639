"""ASTRA's response modes on scripted partners: asking, accepting, walking, proposing, tracing."""

from __future__ import annotations

import itertools
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
import pytest

from parley.agents import create
from parley.agents.astra import AstraConfig, AstraNegotiator, format_trace
from parley.agents.astra.agent import RECIPROCAL_SHARE, no_concession_streak
from parley.domain.issues import Issue
from parley.domain.space import OutcomeSpace
from parley.domain.utility import LinearAdditiveUtility
from parley.errors import ScenarioError
from parley.protocol.actions import Action, Propose, Say
from parley.protocol.rules import Rules
from parley.protocol.session import PartySetup, Session, SessionResult
from parley.protocol.view import PartyView
from parley.scenarios.model import Scenario
from parley.testing import ScriptedNegotiator, check_negotiator
from parley.testing.scenarios import casino_like_scenario

# alice (ASTRA) values food 5, water 4, firewood 3 per unit she takes; the issues count her units.
PRIORITIES = ("firewood", "water", "food")


def _package(food: int, water: int, firewood: int) -> dict[str, int]:
    return {"food": food, "water": water, "firewood": firewood}


def _play(
    steps: Sequence[Action | Any], *, config: AstraConfig | None = None, rounds: int = 30
) -> tuple[SessionResult, AstraNegotiator]:
    scenario = casino_like_scenario(
        second_priorities=PRIORITIES, rules=Rules(max_rounds=rounds, on_stagnation="continue")
    )
    astra = AstraNegotiator("alice", 0, config)
    partner = ScriptedNegotiator(steps)
    session = Session(scenario.space, scenario.setups(), {"alice": astra, "bob": partner}, scenario.rules)
    return session.run(), astra


def _moves(result: SessionResult, party: str) -> list[Mapping[str, Any]]:
    return [e.data for e in result.trajectory if e.kind == "action" and e.party == party]


def _traces(result: SessionResult) -> list[Mapping[str, Any]]:
    return [e.data for e in result.trajectory if e.kind == "trace"]


def test_asks_for_priorities_first_and_uses_the_answer() -> None:
    result, _ = _play([Say("firewood first, then water", PRIORITIES), Propose(_package(0, 0, 0))])
    first = _moves(result, "alice")[0]
    assert first["kind"] == "say" and first["asks_priorities"]
    traces = _traces(result)
    assert traces[0]["mode"] == "ask"
    assert traces[1]["ipp"]["source"] == "stated"
    assert traces[1]["ipp"]["order"] == list(PRIORITIES)


def test_assumes_opposite_priorities_when_the_answer_has_none() -> None:
    result, _ = _play([Say("let us just trade"), Propose(_package(1, 1, 1))])
    ipp = _traces(result)[1]["ipp"]
    assert ipp["source"] in ("assumed-opposite", "offers")
    # alice's own order is food > water > firewood, so the opposite puts firewood first
    assert ipp["order"][0] == "firewood"


def test_accepts_an_offer_at_least_as_good_as_its_own_latest() -> None:
    def accept_if_generous(view: PartyView) -> Action:
        return Propose(_package(3, 3, 3))  # everything for alice: 36 points

    result, _ = _play(
        [Say("firewood matters most", PRIORITIES), Propose(_package(0, 0, 0)), accept_if_generous]
    )
    assert result.agreement is not None
    assert dict(result.agreement.terms) == _package(3, 3, 3)
    assert _moves(result, "alice")[-1]["kind"] == "accept"
    assert _traces(result)[-1]["mode"] == "accept"


def _offer(points: int) -> Propose:
    """A partner offer worth `points` to alice (food 5, water 4, firewood 3 per unit)."""
    packages = {0: (0, 0, 0), 3: (0, 0, 1), 4: (0, 1, 0), 6: (0, 0, 2), 8: (0, 2, 0), 14: (2, 1, 0)}
    return Propose(_package(*packages[points]))


def _modes(result: SessionResult) -> list[str]:
    return [t["mode"] for t in _traces(result)]


def _bound_or_last(result: SessionResult) -> None:
    """The session ran to the round bound (nobody walked)."""
    assert result.no_deal is not None and result.no_deal.reason == "bound_hit", result.no_deal


def test_never_walks_from_a_stubborn_sub_batna_partner_before_the_bound() -> None:
    # 4 points, below alice's BATNA (5), never improved: the seed's rule (a) walked at the 4th offer
    offers = [_offer(4)] * 40
    result, _ = _play([Say("firewood first", PRIORITIES), *offers], rounds=24)
    _bound_or_last(result)
    modes = _modes(result)
    assert "walk" not in modes
    assert modes.count("warn") == 1  # the below-BATNA warning, once
    assert _moves(result, "alice")[-1]["kind"] == "propose"  # a final offer, not a walk


def test_warns_of_a_deadlock_after_a_share_of_the_session_not_a_fixed_count() -> None:
    # 14 points for alice, above her BATNA (5), never improved
    def first_deadlock_warning(rounds: int) -> int:
        result, _ = _play([Say("firewood first", PRIORITIES), *[_offer(14)] * (rounds + 5)], rounds=rounds)
        traces = _traces(result)
        return next(t["round"] for t in traces if t["mode"] == "warn")

    short, long = first_deadlock_warning(20), first_deadlock_warning(100)
    assert short < long
    assert long >= 10  # the seed's "three offers without a concession" would warn by round 5


def test_holds_out_against_an_above_batna_standing_offer_and_takes_it_late() -> None:
    offers = [_offer(14)] * 40
    result, _ = _play([Say("firewood first", PRIORITIES), *offers], rounds=30)
    modes = _modes(result)
    assert "walk" not in modes
    assert "warn" in modes and modes.index("warn") < modes.index("accept")
    warning = next(m for m in _moves(result, "alice") if m["kind"] == "say" and not m["asks_priorities"])
    assert "conced" in warning["message"]
    assert result.agreement is not None
    assert dict(result.agreement.terms) == _package(2, 1, 0)
    assert result.agreement.round > 20  # not the seed's "accept once the warning is ignored" (round ~8)


def test_no_warning_for_an_opening_below_batna_that_then_improves() -> None:
    offers = [_offer(0), _offer(3), _offer(4), _offer(6), _offer(8)]
    result, _ = _play([Say("firewood first", PRIORITIES), *offers])
    assert "warn" not in _modes(result)
    assert result.no_deal is not None and result.no_deal.walker == "bob"  # the script ran out


def test_rule_b_warns_once_while_the_partner_keeps_conceding_and_never_walks() -> None:
    # warned at the second offer (no better than the first); afterwards every offer improves
    offers = [_offer(0), _offer(0), _offer(3), _offer(4), _offer(6), _offer(8)]
    result, _ = _play([Say("firewood first", PRIORITIES), *offers])
    modes = _modes(result)
    assert modes.count("warn") == 1
    assert "walk" not in modes
    assert result.no_deal is not None and result.no_deal.walker == "bob"  # the script ran out


def test_rule_b_warning_ignored_still_no_walk_before_the_bound() -> None:
    offers = [_offer(4), _offer(3), *[_offer(3)] * 40]
    result, _ = _play([Say("firewood first", PRIORITIES), *offers], rounds=16)
    modes = _modes(result)
    warning = next(m for m in _moves(result, "alice") if m["kind"] == "say" and not m["asks_priorities"])
    assert "walk" in warning["message"] or "leave" in warning["message"]
    assert "walk" not in modes
    _bound_or_last(result)


def test_walks_at_once_when_no_package_is_worth_its_batna() -> None:
    scenario = casino_like_scenario(
        second_priorities=PRIORITIES, reservation=40.0, rules=Rules(max_rounds=20, on_stagnation="continue")
    )
    astra = AstraNegotiator("alice", 0)
    partner = ScriptedNegotiator([Say("firewood first", PRIORITIES), *[_offer(8)] * 30])
    result = Session(
        scenario.space, scenario.setups(), {"alice": astra, "bob": partner}, scenario.rules
    ).run()
    assert result.no_deal is not None and result.no_deal.walker == "alice"
    assert "no package is worth my BATNA" in result.no_deal.detail


def test_takes_an_offer_worth_its_batna_only_on_its_last_move() -> None:
    # food 5 points a unit: one food unit is worth exactly alice's BATNA (5)
    offers = [Propose(_package(1, 0, 0))] * 40
    result, _ = _play([Say("firewood first", PRIORITIES), *offers], rounds=14)
    assert result.agreement is not None
    accept = next(t for t in _traces(result) if t["mode"] == "accept")
    assert "last move" in " ".join(accept["reasons"])
    rejected = [t for t in _traces(result) if t["mode"] != "accept" and t["partner_offer"] is not None]
    assert rejected and all(t["partner_offer"]["agent_points"] == pytest.approx(5.0) for t in rejected)


def test_proposals_leave_the_wording_to_the_language_package() -> None:
    result, _ = _play([Say("firewood first", PRIORITIES), _offer(8), _offer(8)])
    proposals = [m for m in _moves(result, "alice") if m["kind"] == "propose"]
    assert proposals and all(m["message"] == "" for m in proposals)


def test_no_concession_streak_counts_trailing_non_improvements() -> None:  # (reads warnings, not walks)
    assert no_concession_streak([]) == 0
    assert no_concession_streak([10]) == 0
    assert no_concession_streak([10, 10, 9, 9]) == 3
    assert no_concession_streak([10, 12, 12]) == 1


def test_trace_reports_every_stage_consistently() -> None:
    result, _ = _play(
        [Say("firewood first", PRIORITIES), Propose(_package(0, 1, 0)), Propose(_package(1, 1, 0))]
    )
    proposals = [t for t in _traces(result) if t["mode"] == "propose"]
    assert proposals
    for trace in proposals:
        stage2 = trace["stage2"]
        assert stage2["method"] == "sweep"
        assert min(stage2["lambdas"]) >= stage2["lambda"] - 0.3 - 1e-9
        assert max(stage2["s_max_values"]) == stage2["s_max"]
        assert trace["tactic"]["name"] in {"AEO", "REO", "NCR", "RNC", "LIC", "CSC", "RC", "LGR", "MGF"}
        assert 1 <= len(trace["candidates"]) <= 5
        for candidate in trace["candidates"]:
            assert candidate["PAP"] == pytest.approx(
                0.75 * candidate["TS"] + 0.25 * candidate["SI"], abs=1e-3
            )
            assert candidate["final"] == pytest.approx(
                0.35 * candidate["PAP"] + 0.65 * candidate["SA"], abs=1e-3
            )
            assert candidate["agent_points"] <= stage2["s_max"] + 1e-6
        best = max(trace["candidates"], key=lambda c: c["final"])
        replaced = any("propose it back" in r or "vary my offer" in r for r in trace["reasons"])
        assert replaced or trace["chosen"]["package"] == best["package"]
        assert trace["fairness"] in {"fair", "unfair", "unknown"}
        assert trace["reasons"]
    text = format_trace(proposals[-1])
    assert "Offer (0)" in text and "Selected offer" in text and "tactic" in text


def test_offers_never_rise_above_the_previous_one() -> None:
    result, _ = _play(
        [Say("firewood first", PRIORITIES), *(Propose(_package(0, k % 2, 1)) for k in range(8))]
    )
    space = casino_like_scenario().space
    utility = casino_like_scenario().party("alice").utility
    offers = [utility.evaluate(m["package"]) for m in _moves(result, "alice") if m["kind"] == "propose"]
    assert len(offers) >= 2 and space.size == 64
    assert all(later <= earlier + 1e-9 for earlier, later in itertools.pairwise(offers))


def test_detects_an_offer_inconsistent_with_the_stated_priorities() -> None:
    # bob says firewood matters most, then keeps food and water instead (seed table 6, check 1)
    result, _ = _play(
        [
            Say("firewood first", PRIORITIES),
            Propose(_package(0, 0, 3)),
            Propose(_package(0, 0, 3)),
            Propose(_package(1, 0, 3)),
        ]
    )
    checks = {f["check"] for t in _traces(result) for f in t["consistency"]}
    assert checks & {"offer_below_agent_offer", "stated_vs_offers"}


def test_registry_builds_both_variants_and_rejects_unknown_options() -> None:
    astra = create("astra", party="alice", seed=1, alpha=0.5, beta=0.5)
    ablation = create("astra-ablation", party="alice", seed=1)
    assert isinstance(astra, AstraNegotiator) and astra.config.alpha == 0.5
    assert isinstance(ablation, AstraNegotiator) and not ablation.config.use_stages
    with pytest.raises(ScenarioError, match="unknown ASTRA option"):
        create("astra", party="alice", seed=1, gamma=2)


def test_ablation_proposes_by_time_without_stage_3() -> None:
    result, _ = _play(
        [Say("firewood first", PRIORITIES), *(Propose(_package(0, 0, 0)) for _ in range(2))],
        config=AstraConfig(use_stages=False),
    )
    proposals = [t for t in _traces(result) if t["mode"] == "propose"]
    assert proposals and all(t["candidates"] == [] and t["tactic"] is None for t in proposals)
    assert proposals[0]["agent"] == "astra-ablation"


@pytest.mark.parametrize("name", ["astra", "astra-ablation"])
def test_passes_the_conformance_checks(name: str) -> None:
    report = check_negotiator(lambda party, seed: create(name, party=party, seed=seed), seeds=(0, 1))
    assert "deterministic" in report.checks and report.sessions > 0


def _large_scenario(issues: int, options: int) -> Scenario:
    rng = np.random.default_rng(7)
    space = OutcomeSpace.of([Issue.integer_range(f"issue{i}", 0, options - 1) for i in range(issues)])

    def utility() -> LinearAdditiveUtility:
        tables = {name: rng.integers(0, 10, size=options).astype(float).tolist() for name in space.names}
        return LinearAdditiveUtility(space, dict.fromkeys(space.names, 1.0), tables, reservation_value=20.0)

    from parley.scenarios.model import Party

    return Scenario(
        "large", "Large", "", space, (Party("alice", "a", utility()), Party("bob", "b", utility()))
    )


def test_uses_the_milp_on_spaces_too_large_to_enumerate() -> None:
    scenario = _large_scenario(7, 10)  # 10 million outcomes: above the sweep limit
    astra = AstraNegotiator("alice", 0, AstraConfig(ask_preferences=False))
    partner = ScriptedNegotiator([Propose(dict.fromkeys(scenario.space.names, 0))])
    rules = Rules(max_rounds=4, on_stagnation="continue")
    setups = [PartySetup(p.name, p.utility) for p in scenario.parties]
    result = Session(scenario.space, setups, {"alice": astra, "bob": partner}, rules).run()
    proposals = [e.data for e in result.trajectory if e.kind == "trace" and e.data["mode"] == "propose"]
    assert proposals and proposals[0]["stage2"]["method"] == "milp"
    assert proposals[0]["candidates"]


def test_sweep_and_loop_play_identical_negotiations() -> None:
    from parley.experiments.runner import run_negotiation
    from parley.scenarios import load_scenario

    scenario = load_scenario("casino")
    transcripts = []
    for method in ("sweep", "loop"):
        astra = create("astra", party="A", seed=3, method=method)
        result = run_negotiation(scenario, {"A": astra, "B": create("base", party="B", seed=3)}, seed=3)
        transcripts.append(result.trajectory.to_jsonl().replace(f'"method":"{method}"', '"method":"?"'))
    assert transcripts[0] == transcripts[1]


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"alpha": -1.0}, "alpha must be >= 0, got -1.0"),
        ({"top_n": 0}, "top_n must be >= 1, got 0"),
        ({"method": "simplex"}, "method must be auto, sweep, milp or loop, got 'simplex'"),
    ],
)
def test_bad_options_give_one_clear_error(options: dict[str, Any], message: str) -> None:
    with pytest.raises(ScenarioError, match=message):
        create("astra", party="alice", seed=0, **options)


def test_two_astras_reach_a_deal_on_casino() -> None:
    from parley.experiments.runner import run_negotiation
    from parley.scenarios import load_scenario

    result = run_negotiation(load_scenario("casino"), ["astra", "astra"], seed=0)
    assert result.agreement is not None, result.no_deal
    assert all(value >= 5.0 for value in result.agreement.utilities.values())


def test_concedes_at_most_half_of_the_partners_latest_concession() -> None:
    offers = [_offer(0), _offer(3), _offer(4), _offer(6), _offer(8), _offer(14), _offer(14)]
    result, _ = _play([Say("firewood first", PRIORITIES), *offers])
    received: list[float] = []
    previous: float | None = None
    for trace in _traces(result):
        partner_offer = trace["partner_offer"]
        if partner_offer is not None and (not received or received[-1] != partner_offer["agent_points"]):
            received.append(partner_offer["agent_points"])
        if trace["mode"] != "propose":
            continue
        mine = trace["chosen"]["agent_points"]
        if previous is not None and trace["tactic"]["name"] != "CSC":
            latest = received[-1] - received[-2] if len(received) >= 2 else 0.0
            assert previous - mine <= RECIPROCAL_SHARE * max(latest, 0.0) + 1e-9
        previous = mine


def test_stance_is_read_from_the_partners_concession_in_my_points() -> None:
    result, _ = _play([Say("firewood first", PRIORITIES), _offer(3), _offer(8), _offer(4)])
    stances = [t["stance"] for t in _traces(result) if t["partner_offer"] is not None]
    assert stances[0] == "unknown"
    assert "generous" in stances  # 3 -> 8 points for alice
    assert stances[-1] == "greedy"  # 8 -> 4 points for alice


def _play_partner_first(steps: Sequence[Action | Any]) -> SessionResult:
    scenario = casino_like_scenario(
        second_priorities=PRIORITIES,
        rules=Rules(max_rounds=12, on_stagnation="continue", proposer_order=("bob", "alice")),
    )
    astra = AstraNegotiator("alice", 0)
    partner = ScriptedNegotiator(steps)
    return Session(scenario.space, scenario.setups(), {"alice": astra, "bob": partner}, scenario.rules).run()


def test_answers_a_direct_priorities_question_truthfully_once_and_asks_back() -> None:
    result = _play_partner_first(
        [Say("What matters most to you?", asks_priorities=True), Propose(_package(0, 0, 0))]
    )
    answer = _moves(result, "alice")[0]
    assert answer["kind"] == "say"
    assert answer["priorities"] == [
        "food",
        "water",
        "firewood",
    ]  # alice's true order: 5, 4, 3 points per unit
    assert answer["asks_priorities"]  # it knows nothing of the partner yet, so it asks back
    assert sum(1 for m in _moves(result, "alice") if m["kind"] == "say" and m["priorities"]) == 1


def test_does_not_volunteer_priorities_when_not_asked() -> None:
    result = _play_partner_first([Say("Hello there."), Propose(_package(0, 0, 0))])
    assert not any(m["kind"] == "say" and m["priorities"] for m in _moves(result, "alice"))
