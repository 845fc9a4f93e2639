"""Walking away under a k-of-n rule: the walker leaves the table while a deal is still possible."""

from __future__ import annotations

from collections.abc import Mapping

from parley.domain import Issue, LinearAdditiveUtility, OutcomeSpace
from parley.protocol import (
    Accept,
    AcceptanceRule,
    Action,
    PartySetup,
    PartyView,
    Propose,
    Reject,
    Rules,
    Session,
    Walk,
)
from parley.protocol.session import SessionResult
from parley.testing import ScriptedNegotiator

SPACE = OutcomeSpace.of([Issue.options("site", ["north", "south"]), Issue.integer_range("budget", 1, 3)])
DEAL = {"site": "north", "budget": 2}
PARTIES = ("a", "b", "c", "d")


class Recorder:
    """Plays a fixed move for every turn and counts how often it was asked."""

    def __init__(self, move: Action) -> None:
        self.move = move
        self.calls = 0

    def act(self, view: PartyView) -> Action:
        self.calls += 1
        return self.move


def _setups() -> list[PartySetup]:
    tables = {"site": [1.0, 0.0], "budget": [0.0, 1.0, 2.0]}
    return [
        PartySetup(p, LinearAdditiveUtility(SPACE, {"site": 1.0, "budget": 1.0}, tables)) for p in PARTIES
    ]


def _run(
    moves: Mapping[str, Action], acceptance: AcceptanceRule
) -> tuple[SessionResult, dict[str, Recorder]]:
    negotiators = {p: Recorder(moves.get(p, Accept())) for p in PARTIES}
    rules = Rules(max_rounds=6, acceptance=acceptance, on_stagnation="continue")
    return Session(SPACE, _setups(), negotiators, rules).run(), negotiators


def test_a_walker_leaves_and_the_rest_still_pass_a_deal() -> None:
    result, negotiators = _run({"a": Propose(DEAL), "d": Walk("not for me")}, AcceptanceRule(required=3))
    assert result.agreement is not None
    assert result.agreement.accepted_by == ("a", "b", "c")
    withdrawals = result.trajectory.of_kind("withdrawal")
    assert [(e.party, e.data["remaining"]) for e in withdrawals] == [("d", 3)]
    assert negotiators["d"].calls == 1  # never asked again once it left


def test_a_walker_holding_a_veto_ends_the_session() -> None:
    result, _ = _run({"a": Propose(DEAL), "d": Walk("vetoed")}, AcceptanceRule(required=3, vetoes=("d",)))
    assert result.agreement is None and result.no_deal is not None
    assert (result.no_deal.reason, result.no_deal.walker) == ("walk", "d")
    assert not result.trajectory.of_kind("withdrawal")


def test_the_walk_that_leaves_too_few_parties_ends_the_session() -> None:
    moves = {"a": Propose(DEAL), "c": Walk("first out"), "d": Walk("second out")}
    result, _ = _run(moves, AcceptanceRule(required=3))
    assert result.no_deal is not None and result.no_deal.walker == "d"
    assert [e.party for e in result.trajectory.of_kind("withdrawal")] == ["c"]


def test_under_unanimity_any_walk_ends_the_session() -> None:
    result, _ = _run({"a": Propose(DEAL), "d": Walk("no")}, AcceptanceRule())
    assert result.no_deal is not None and (result.no_deal.reason, result.no_deal.walker) == ("walk", "d")


def test_a_withdrawn_partys_acceptance_no_longer_counts() -> None:
    # Round 1: a tables DEAL and b accepts it. Round 2: b walks (and leaves), then c accepts too.
    # Counting b's earlier acceptance would pass DEAL with a, b, c; without b only a and c remain.
    steps: dict[str, list[Action]] = {
        "a": [Propose(DEAL), Accept(), *[Reject()] * 10],
        "b": [Accept(), Walk("b leaves")],
        "c": [Reject(), *[Accept()] * 10],
        "d": [Reject()] * 10,
    }
    negotiators = {p: ScriptedNegotiator(moves) for p, moves in steps.items()}
    rules = Rules(max_rounds=4, acceptance=AcceptanceRule(required=3), on_stagnation="continue")
    result = Session(SPACE, _setups(), negotiators, rules).run()
    accepts_after_walk = [
        e.party
        for e in result.trajectory
        if e.kind == "action" and e.round == 2 and e.data["kind"] == "accept"
    ]
    assert "c" in accepts_after_walk
    assert result.agreement is None
    assert result.no_deal is not None and result.no_deal.reason == "bound_hit"


def test_a_withdrawal_leaves_the_next_session_with_every_party() -> None:
    # Sessions with the same parties and rules share their seating: a walker leaving one session
    # must not leave the next.
    rule = AcceptanceRule(required=3)
    _run({"a": Propose(DEAL), "d": Walk("not for me")}, rule)
    result, negotiators = _run({"a": Propose(DEAL), "b": Reject(), "c": Reject()}, rule)
    assert all(recorder.calls >= 1 for recorder in negotiators.values())
    assert not result.trajectory.of_kind("withdrawal")
    first_round = [e.party for e in result.trajectory.of_kind("action") if e.round == 1]
    assert first_round == ["a", "b", "c", "d"]
