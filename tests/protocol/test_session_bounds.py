"""Bounds (rounds, offers, deadline), stagnation policies and protocol violations end sessions cleanly."""

from __future__ import annotations

import threading
from collections.abc import Iterator, Mapping
from typing import Any

import pytest

from parley.domain import Value
from parley.protocol import (
    Accept,
    Action,
    FakeClock,
    Judgement,
    JudgeView,
    MediatorView,
    Negotiator,
    PartyView,
    Phase,
    Propose,
    Reject,
    Rules,
    Say,
    Session,
    SessionResult,
    Verdict,
    Walk,
)
from parley.scenarios.model import Scenario
from parley.testing import ScriptedNegotiator


def play(
    scenario: Scenario, negotiators: Mapping[str, Negotiator], rules: Rules, **options: Any
) -> SessionResult:
    return Session(scenario.space, scenario.setups(), negotiators, rules, **options).run()


class Mover:
    """Always proposes or counters with the next package of a cycle, never accepts."""

    def __init__(self, packages: list[dict[str, Value]]) -> None:
        self._packages: Iterator[dict[str, Value]] = iter(packages * 100)

    def act(self, view: PartyView) -> Action:
        return Propose(next(self._packages))


class Stubborn:
    """Repeats one package; accepts only a mediator's proposal."""

    def __init__(self, package: dict[str, Value]) -> None:
        self.package = package

    def act(self, view: PartyView) -> Action:
        if view.offer is not None and view.table is not None and view.table.proposer == "mediator":
            return Accept()
        return Propose(self.package)


def movers(scenario: Scenario) -> dict[str, Negotiator]:
    space = scenario.space
    return {
        name: Mover([dict(space.outcome((7 * i + 3 * k) % space.size)) for i in range(5)])
        for k, name in enumerate(scenario.party_names)
    }


def no_deal(result: SessionResult) -> tuple[str, int, str | None, str]:
    assert result.agreement is None
    assert result.no_deal is not None
    assert result.trajectory[-1].kind == "no_deal"
    return result.no_deal.reason, result.no_deal.round, result.no_deal.walker, result.no_deal.detail


@pytest.mark.parametrize("max_rounds", [1, 2, 5])
def test_round_cap_ends_with_bound_hit(casino: Scenario, max_rounds: int) -> None:
    result = play(casino, movers(casino), Rules(max_rounds=max_rounds))
    assert no_deal(result) == ("bound_hit", max_rounds, None, "rounds bound reached")
    assert max(e.round for e in result.trajectory) == max_rounds


class LenientJudge:
    """Rules CONTINUE whatever happens (a broken custom judge)."""

    def judge(self, view: JudgeView) -> Judgement:
        return Judgement(Verdict.CONTINUE)


@pytest.mark.parametrize("rules", [Rules(max_rounds=3), Rules(max_rounds=50, max_offers=4)])
def test_bounds_hold_even_when_the_judge_lets_them_pass(casino: Scenario, rules: Rules) -> None:
    result = play(casino, movers(casino), rules, judge=LenientJudge())
    reason, round_number, walker, detail = no_deal(result)
    assert (reason, walker) == ("bound_hit", None) and detail.endswith("bound reached")
    assert round_number <= rules.max_rounds
    assert not any(e.kind == "judgement" for e in result.trajectory)


def test_round_cap_in_three_party_sessions(three_party: Scenario) -> None:
    result = play(three_party, movers(three_party), Rules(max_rounds=4))
    assert no_deal(result) == ("bound_hit", 4, None, "rounds bound reached")


def test_offer_cap(casino: Scenario) -> None:
    result = play(casino, movers(casino), Rules(max_offers=3))
    assert no_deal(result)[0::3] == ("bound_hit", "offers bound reached")
    tabled = [e for e in result.trajectory if e.kind == "action" and e.data["kind"] == "propose"]
    assert len(tabled) == 3


def test_deadline_on_a_ticking_fake_clock(casino: Scenario) -> None:
    clock = FakeClock(tick=1.0)
    result = play(casino, movers(casino), Rules(max_rounds=50, deadline_seconds=10.0), clock=clock)
    reason, round_number, _, detail = no_deal(result)
    assert (reason, detail) == ("bound_hit", "deadline bound reached")
    assert round_number < 50
    times = [e.time for e in result.trajectory]
    assert times == sorted(times)
    assert times[-1] > 10.0


def test_frozen_clock_gives_zero_times(casino: Scenario) -> None:
    result = play(casino, movers(casino), Rules(max_rounds=3))
    assert {e.time for e in result.trajectory} == {0.0}


def test_fake_clock_reads_and_advances() -> None:
    clock = FakeClock(start=5.0, tick=0.5)
    assert [clock.now(), clock.now()] == [5.0, 5.5]
    clock.advance(10.0)
    assert clock.now() == 16.0
    frozen = FakeClock()
    assert frozen.now() == frozen.now() == 0.0


def stubborn_pair(scenario: Scenario) -> dict[str, Negotiator]:
    return {
        "alice": Stubborn({"food": 3, "water": 3, "firewood": 2}),  # 33 for alice, 3 for bob (< BATNA 5)
        "bob": Stubborn({"food": 1, "water": 0, "firewood": 0}),  # 5 for alice, 32 for bob
    }


def test_stagnation_walk_makes_the_party_below_its_batna_walk(casino: Scenario) -> None:
    result = play(casino, stubborn_pair(casino), Rules(stagnation_rounds=2))
    # round 1 is movement (first offers); rounds 2 and 3 repeat → the detector fires after round 3
    stagnation = result.trajectory.of_kind("stagnation")
    assert [(e.round, dict(e.data)) for e in stagnation] == [(3, {"rounds": 2, "policy": "walk"})]
    assert no_deal(result) == ("stagnation", 3, "bob", "stagnation: best offer received is below BATNA")


def test_stagnation_without_anyone_below_batna_still_ends(casino: Scenario) -> None:
    negotiators = {
        "alice": Stubborn({"food": 3, "water": 2, "firewood": 0}),
        "bob": Stubborn({"food": 2, "water": 0, "firewood": 0}),
    }
    result = play(casino, negotiators, Rules(stagnation_rounds=3))
    assert no_deal(result) == ("stagnation", 4, None, "")


def test_stagnation_epsilon_ignores_small_moves(casino: Scenario) -> None:
    # alice alternates firewood 2 ↔ 3: a move of 1/3 of the range, under ε = 0.4
    negotiators = {
        "alice": Mover([{"food": 3, "water": 3, "firewood": 2}, {"food": 3, "water": 3, "firewood": 3}]),
        "bob": Stubborn({"food": 1, "water": 0, "firewood": 0}),
    }
    moving = play(casino, negotiators, Rules(stagnation_rounds=2, stagnation_epsilon=0.3))
    assert no_deal(moving)[0] == "bound_hit"
    negotiators["alice"] = Mover(
        [{"food": 3, "water": 3, "firewood": 2}, {"food": 3, "water": 3, "firewood": 3}]
    )
    negotiators["bob"] = Stubborn({"food": 1, "water": 0, "firewood": 0})
    still = play(casino, negotiators, Rules(stagnation_rounds=2, stagnation_epsilon=0.4))
    assert no_deal(still)[0] == "stagnation"


class TinyMediator:
    """Proposes a fixed package (or nothing) and remembers what it was shown."""

    def __init__(self, package: Mapping[str, Value] | None) -> None:
        self.package = package
        self.views: list[MediatorView] = []

    def propose(self, view: MediatorView) -> Mapping[str, Value] | None:
        self.views.append(view)
        return self.package


def test_stagnation_mediate_tables_the_mediators_package(casino: Scenario) -> None:
    middle = {"food": 2, "water": 1, "firewood": 1}
    mediator = TinyMediator(middle)
    result = play(
        casino, stubborn_pair(casino), Rules(stagnation_rounds=2, on_stagnation="mediate"), mediator=mediator
    )
    assert len(mediator.views) == 1
    view = mediator.views[0]
    assert view.parties == ("alice", "bob")
    assert all(e.is_public for e in view.record)
    proposals = result.trajectory.of_kind("mediator_proposal")
    assert [(e.party, dict(e.data["package"])) for e in proposals] == [("mediator", middle)]
    assert [e.round for e in proposals] == [3]  # after round 3 stalls; answered in round 4
    agreement = result.agreement
    assert agreement is not None
    assert agreement.proposer == "mediator"
    assert dict(agreement.terms) == middle
    assert agreement.accepted_by == ("alice", "bob")
    assert agreement.round == 4


def test_silent_mediator_falls_back_to_walk(casino: Scenario) -> None:
    result = play(
        casino,
        stubborn_pair(casino),
        Rules(stagnation_rounds=2, on_stagnation="mediate"),
        mediator=TinyMediator(None),
    )
    assert no_deal(result)[:3] == ("stagnation", 3, "bob")


def test_mediate_without_a_mediator_falls_back_to_walk(casino: Scenario) -> None:
    result = play(casino, stubborn_pair(casino), Rules(stagnation_rounds=2, on_stagnation="mediate"))
    assert no_deal(result)[:3] == ("stagnation", 3, "bob")


def test_an_illegal_mediator_package_is_a_violation_then_walk(casino: Scenario) -> None:
    mediator = TinyMediator({"food": 9, "water": 1, "firewood": 1})
    result = play(
        casino, stubborn_pair(casino), Rules(stagnation_rounds=2, on_stagnation="mediate"), mediator=mediator
    )
    violations = result.trajectory.of_kind("violation")
    assert [e.party for e in violations] == ["mediator"]
    assert "9 is not an option of issue 'food'" in violations[0].data["detail"]
    assert no_deal(result)[0] == "stagnation"


def test_stagnation_in_the_last_round_stays_within_the_cap(casino: Scenario) -> None:
    result = play(casino, stubborn_pair(casino), Rules(max_rounds=3, stagnation_rounds=2))
    assert [e.round for e in result.trajectory.of_kind("stagnation")] == [3]
    assert no_deal(result)[:2] == ("stagnation", 3)
    assert max(e.round for e in result.trajectory) == 3


def test_stagnation_continue_only_logs(casino: Scenario) -> None:
    result = play(
        casino, stubborn_pair(casino), Rules(max_rounds=10, stagnation_rounds=2, on_stagnation="continue")
    )
    rounds = [e.round for e in result.trajectory.of_kind("stagnation")]
    assert rounds == [3, 5, 7, 9]
    assert no_deal(result)[:2] == ("bound_hit", 10)


def test_walk_ends_the_session_with_the_reason(casino: Scenario) -> None:
    result = play(
        casino,
        {
            "alice": ScriptedNegotiator([Propose({"food": 3, "water": 3, "firewood": 3})]),
            "bob": ScriptedNegotiator([Walk("too greedy")]),
        },
        Rules(),
    )
    assert no_deal(result) == ("walk", 1, "bob", "too greedy")


def test_walk_without_a_reason_gets_one(casino: Scenario) -> None:
    result = play(casino, {"alice": ScriptedNegotiator([Walk()]), "bob": ScriptedNegotiator([])}, Rules())
    assert no_deal(result) == ("walk", 1, "alice", "walked away")


class Raises:
    def act(self, view: PartyView) -> Action:
        raise RuntimeError("boom")


class ReturnsText:
    def act(self, view: PartyView) -> Action:
        return "accept"  # type: ignore[return-value]


class Blocks:
    def __init__(self) -> None:
        self.release = threading.Event()

    def act(self, view: PartyView) -> Action:
        self.release.wait(30)
        return Say("finally")


VIOLATIONS: dict[str, tuple[Negotiator, str]] = {
    "raises": (Raises(), "raised RuntimeError: boom"),
    "not an action": (ReturnsText(), "returned str, expected an Action"),
    "illegal option": (
        ScriptedNegotiator([Propose({"food": 4, "water": 0, "firewood": 0})]),
        "4 is not an option of issue 'food'",
    ),
    "missing issue": (ScriptedNegotiator([Propose({"food": 1, "water": 0})]), "missing ['firewood']"),
    "unknown issue": (
        ScriptedNegotiator([Propose({"food": 1, "water": 0, "firewood": 0, "tent": 1})]),
        "unknown ['tent']",
    ),
    "accept with nothing on the table": (
        ScriptedNegotiator([Accept()]),
        "cannot accept: no offer from another party is on the table",
    ),
    "reject with nothing on the table": (ScriptedNegotiator([Reject()]), "cannot reject"),
}


@pytest.mark.parametrize("case", list(VIOLATIONS))
def test_protocol_violations_end_cleanly(casino: Scenario, case: str) -> None:
    culprit, detail = VIOLATIONS[case]
    other = ScriptedNegotiator([Say("waiting")] * 5)
    result = play(casino, {"alice": culprit, "bob": other}, Rules())
    violations = result.trajectory.of_kind("violation")
    assert [e.party for e in violations] == ["alice"]
    assert detail in violations[0].data["detail"]
    reason, round_number, walker, recorded = no_deal(result)
    assert (reason, round_number, walker) == ("protocol_violation", 1, "alice")
    assert detail in recorded
    assert other.views == []  # the session stopped at the broken move


def test_a_responder_violation_is_attributed_to_the_responder(casino: Scenario) -> None:
    result = play(
        casino, {"alice": ScriptedNegotiator([Say("hello")]), "bob": ScriptedNegotiator([Accept()])}, Rules()
    )
    assert no_deal(result)[:3] == ("protocol_violation", 1, "bob")


def test_accepting_your_own_offer_as_proposer_is_a_violation(three_party: Scenario) -> None:
    package = dict(three_party.space.outcome(0))
    negotiators = {
        "ana": ScriptedNegotiator([Propose(package), Say("...")]),
        "ben": ScriptedNegotiator([Accept(), Accept()]),
        "cy": ScriptedNegotiator([Reject()]),
    }
    result = play(three_party, negotiators, Rules())
    # round 2: ben proposes, but he already accepted the package on the table
    assert no_deal(result)[:3] == ("protocol_violation", 2, "ben")


def test_act_timeout_is_a_violation(casino: Scenario) -> None:
    slow = Blocks()
    try:
        result = play(casino, {"alice": slow, "bob": ScriptedNegotiator([])}, Rules(act_timeout=0.05))
    finally:
        slow.release.set()
    reason, round_number, walker, detail = no_deal(result)
    assert (reason, round_number, walker) == ("protocol_violation", 1, "alice")
    assert detail == "alice: took longer than 0.05 s to move"


def test_moves_within_the_timeout_are_fine(casino: Scenario) -> None:
    alice = ScriptedNegotiator([Propose({"food": 2, "water": 0, "firewood": 1})])
    result = play(casino, {"alice": alice, "bob": ScriptedNegotiator([Accept()])}, Rules(act_timeout=30.0))
    assert result.agreement is not None
    assert alice.views[0].phase is Phase.PROPOSE


class ExplainsBadly:
    """Moves legally, but its explain() hook breaks."""

    def __init__(self, trace: object) -> None:
        self.trace = trace

    def act(self, view: PartyView) -> Action:
        return Say("hello")

    def explain(self) -> object:
        if isinstance(self.trace, Exception):
            raise self.trace
        return self.trace


@pytest.mark.parametrize(
    ("trace", "detail"),
    [
        (RuntimeError("no words"), "explain() raised RuntimeError: no words"),
        ("just text", "explain() raised"),
    ],
)
def test_a_broken_explain_hook_is_a_violation_not_a_crash(
    casino: Scenario, trace: object, detail: str
) -> None:
    result = play(casino, {"alice": ExplainsBadly(trace), "bob": ScriptedNegotiator([])}, Rules())
    reason, round_number, walker, recorded = no_deal(result)
    assert (reason, round_number, walker) == ("protocol_violation", 1, "alice")
    assert detail in recorded


def test_an_empty_trace_is_not_recorded(casino: Scenario) -> None:
    result = play(casino, {"alice": ExplainsBadly({}), "bob": ScriptedNegotiator([])}, Rules())
    assert result.trajectory.of_kind("trace") == []
