"""The k-of-n coalition sub-protocol: forming, declining, refusing, expiring, leaving and replaying."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from parley.domain import Issue, LinearAdditiveUtility, OutcomeSpace
from parley.protocol import AcceptanceRule, PartySetup, PartyView, Rules, Session, replay
from parley.protocol.actions import (
    Accept,
    Action,
    DeclineCoalition,
    JoinCoalition,
    Propose,
    ProposeCoalition,
    Say,
    Walk,
    action_from_json,
    action_to_json,
)
from parley.protocol.coalition import NO_ANSWER_METHOD, CoalitionInvitation, open_attempt
from parley.protocol.payloads import CoalitionEnded, CoalitionFormed, UntypedPayload
from parley.protocol.session import SessionResult

SPACE = OutcomeSpace.of([Issue.options("site", ["north", "south"]), Issue.integer_range("budget", 1, 3)])
DEAL = {"site": "north", "budget": 2}
PARTIES = ("a", "b", "c")
TWO_OF_THREE = AcceptanceRule(required=2, vetoes=("b",))
IDLE = Say("let me think")


class Player:
    """Fixed moves (the last one repeated) and fixed answers per round (None: not yet)."""

    def __init__(self, moves: Sequence[Action], answers: Mapping[int, Any] | None = None) -> None:
        self.moves = list(moves)
        self.answers = dict(answers or {})
        self.invitations: list[CoalitionInvitation] = []

    def act(self, view: PartyView) -> Action:
        return self.moves.pop(0) if len(self.moves) > 1 else self.moves[0]

    def answer_coalition(self, view: PartyView, invitation: CoalitionInvitation) -> Any:
        self.invitations.append(invitation)
        return self.answers.get(view.round, JoinCoalition())


class Unaware:
    """A negotiator written before coalitions existed: it only rejects."""

    def act(self, view: PartyView) -> Action:
        return IDLE


def _setups(reservations: Mapping[str, float] | None = None) -> list[PartySetup]:
    tables = {"site": [1.0, 0.0], "budget": [0.0, 1.0, 2.0]}
    reservations = reservations or {}
    return [
        PartySetup(
            p,
            LinearAdditiveUtility(
                SPACE, {"site": 1.0, "budget": 1.0}, tables, reservation_value=reservations.get(p, 0.0)
            ),
        )
        for p in PARTIES
    ]


def _run(
    negotiators: Mapping[str, Any],
    acceptance: AcceptanceRule = TWO_OF_THREE,
    *,
    coalition_rounds: int = 2,
    max_rounds: int = 6,
) -> SessionResult:
    rules = Rules(
        max_rounds=max_rounds,
        acceptance=acceptance,
        on_stagnation="continue",
        coalition_rounds=coalition_rounds,
    )
    return Session(SPACE, _setups(), negotiators, rules).run()


def _proposer(*members: str, package: Mapping[str, Any] = DEAL) -> Player:
    return Player([ProposeCoalition(package, members), IDLE])


def test_a_coalition_with_the_vetoer_forms_and_its_package_is_agreed() -> None:
    result = _run({"a": _proposer("b"), "b": Player([IDLE]), "c": Player([IDLE])})
    formed = result.trajectory.of_kind("coalition_formed")
    assert len(formed) == 1 and formed[0].is_public
    payload = formed[0].payload
    assert isinstance(payload, CoalitionFormed) and payload.members == ("a", "b")
    agreement = result.agreement
    assert agreement is not None and agreement.terms == DEAL
    assert agreement.accepted_by == ("a", "b")  # c, not a member, accepted nothing
    assert agreement.proposer == "a" and agreement.round == 1
    assert agreement.is_clean
    assert set(agreement.utilities) == set(PARTIES)  # every party's worth recorded, for audit
    kinds = [e.data["kind"] for e in result.trajectory.of_kind("action")]
    assert kinds == ["propose_coalition", "join_coalition"]


def test_the_agreement_is_checked_against_each_members_batna() -> None:
    negotiators = {"a": _proposer("b"), "b": Player([IDLE]), "c": Player([IDLE])}
    rules = Rules(max_rounds=4, acceptance=TWO_OF_THREE, on_stagnation="continue")
    setups = _setups({"b": 3.5, "c": 9.0})  # b joins below its BATNA; c (not a member) is not checked
    result = Session(SPACE, setups, negotiators, rules).run()
    assert result.agreement is not None
    assert [v.party for v in result.agreement.violations] == ["b"]
    assert [e.party for e in result.trajectory.of_kind("batna_violation")] == ["b"]


def test_a_vetoers_decline_ends_the_attempt_and_names_it() -> None:
    vetoer = Player([IDLE], {1: DeclineCoalition("not this package")})
    result = _run({"a": _proposer("b", "c"), "b": vetoer, "c": Player([IDLE])})
    assert result.agreement is None
    (ended,) = result.trajectory.of_kind("coalition_ended")
    payload = ended.payload
    assert isinstance(payload, CoalitionEnded) and payload.reason == "declined" and payload.parties == ("b",)
    assert not result.trajectory.of_kind("coalition_formed")
    # c was asked after b: the attempt ended first, so c was never asked
    answers = [e.party for e in result.trajectory.of_kind("action") if "coalition" in e.data["kind"]]
    assert answers == ["a", "b"]


def test_a_spare_members_decline_does_not_end_an_attempt_that_still_reaches_k() -> None:
    spare = Player([IDLE], {1: DeclineCoalition()})
    result = _run({"a": _proposer("b", "c"), "b": Player([IDLE]), "c": spare})
    assert result.agreement is not None and result.agreement.accepted_by == ("a", "b")


def _four(negotiators: Mapping[str, Any], acceptance: AcceptanceRule) -> SessionResult:
    four = ("a", "b", "c", "d")
    tables = {"site": [1.0, 0.0], "budget": [0.0, 1.0, 2.0]}
    setups = [PartySetup(p, LinearAdditiveUtility(SPACE, {"site": 1.0, "budget": 1.0}, tables)) for p in four]
    players: dict[str, Any] = {p: Player([IDLE]) for p in four} | dict(negotiators)
    rules = Rules(max_rounds=3, acceptance=acceptance, on_stagnation="continue")
    return Session(SPACE, setups, players, rules).run()


def test_a_decline_that_leaves_the_coalition_short_of_k_ends_it() -> None:
    rule = AcceptanceRule(required=3, vetoes=("b",))
    result = _four({"a": _proposer("b", "c"), "c": Player([IDLE], {1: DeclineCoalition()})}, rule)
    (ended,) = result.trajectory.of_kind("coalition_ended")
    assert ended.data == {"reason": "declined", "parties": ["c"], "proposal": ended.data["proposal"]}


@pytest.mark.parametrize(
    ("members", "expected"),
    [
        (("c",), "a coalition must include every vetoer; missing 'b'"),
        ((), "a coalition must include every vetoer; missing 'b'"),
        (("b", "b"), "a party is asked more than once"),
        (("a", "b"), "cannot ask 'a': not another party at the table"),
        (("b", "zed\n\u200b"), "cannot ask 'zed\\n\\u200b': not another party at the table"),
    ],
)
def test_a_coalition_without_a_vetoer_or_malformed_is_refused_in_one_line(
    members: tuple[str, ...], expected: str
) -> None:
    result = _run({"a": _proposer(*members), "b": Player([IDLE]), "c": Player([IDLE])})
    assert result.no_deal is not None and result.no_deal.reason == "protocol_violation"
    assert result.no_deal.walker == "a"
    assert result.no_deal.detail == f"a: coalition refused: {expected}"
    assert "\n" not in result.no_deal.detail
    assert not result.trajectory.of_kind("coalition_formed", "coalition_ended")


def test_a_coalition_short_of_k_is_refused() -> None:
    rule = AcceptanceRule(required=3)
    result = _run({"a": _proposer("b"), "b": Player([IDLE]), "c": Player([IDLE])}, rule)
    # required=3 of 3 is unanimity: the sub-protocol is off
    assert result.no_deal is not None and "this game needs every party" in result.no_deal.detail
    result = _four({"a": _proposer("b")}, AcceptanceRule(required=3))
    assert result.no_deal is not None
    assert (
        result.no_deal.detail == "a: coalition refused: a coalition needs 3 parties with its proposer, got 2"
    )


def test_bad_packages_and_answers_are_refused() -> None:
    bad = _proposer("b", package={"site": "west", "budget": 2})
    result = _run({"a": bad, "b": Player([IDLE]), "c": Player([IDLE])})
    assert result.no_deal is not None and result.no_deal.detail.startswith(
        "a: coalition refused: illegal package"
    )
    rude = Player([IDLE], {1: Accept()})
    result = _run({"a": _proposer("b"), "b": rude, "c": Player([IDLE])})
    assert result.no_deal is not None and result.no_deal.walker == "b"
    assert "expected JoinCoalition, DeclineCoalition or None" in result.no_deal.detail


def test_an_answer_returned_as_a_move_and_a_coalition_while_responding_are_refused() -> None:
    result = _run({"a": Player([JoinCoalition()]), "b": Player([IDLE]), "c": Player([IDLE])})
    assert result.no_deal is not None and "not a move" in result.no_deal.detail
    responder = Player([ProposeCoalition(DEAL, ("a",))])
    result = _run({"a": Player([Propose(DEAL)]), "b": responder, "c": Player([IDLE])})
    assert result.no_deal is not None and result.no_deal.walker == "b"
    assert "on one's own turn to propose" in result.no_deal.detail


def test_unanimity_and_coalitions_off_refuse_the_move() -> None:
    result = _run({"a": _proposer("b"), "b": Player([IDLE]), "c": Player([IDLE])}, AcceptanceRule())
    assert result.no_deal is not None and "needs every party" in result.no_deal.detail
    result = _run({"a": _proposer("b"), "b": Player([IDLE]), "c": Player([IDLE])}, coalition_rounds=0)
    assert result.no_deal is not None and "coalition_rounds is 0" in result.no_deal.detail


def test_one_open_attempt_at_a_time() -> None:
    slow = Player([IDLE], {1: None, 2: None, 3: None})
    proposer = Player([ProposeCoalition(DEAL, ("b",)), IDLE])
    third = Player([IDLE, IDLE, ProposeCoalition(DEAL, ("b",))])  # round 3: its turn, a's still open
    result = _run({"a": proposer, "b": slow, "c": third}, coalition_rounds=4)
    assert result.no_deal is not None and result.no_deal.walker == "c"
    assert result.no_deal.detail == "c: coalition refused: another coalition attempt is still open"


def test_an_attempt_expires_after_its_rounds_and_a_late_answer_forms_it_in_time() -> None:
    late = Player([IDLE], {1: None})  # answers in round 2, the attempt's last round
    result = _run({"a": _proposer("b"), "b": late, "c": Player([IDLE])})
    assert result.agreement is not None and result.agreement.round == 2
    never = Player([IDLE], {1: None, 2: None, 3: None})
    result = _run({"a": _proposer("b"), "b": never, "c": Player([IDLE])})
    (ended,) = result.trajectory.of_kind("coalition_ended")
    assert (ended.round, ended.data["reason"], ended.data["parties"]) == (2, "expired", ["b"])
    assert len(never.invitations) == 2  # asked once in each round the attempt was open
    assert never.invitations[0].last_round == 2 and never.invitations[0].members == ("b",)
    assert result.no_deal is not None and result.no_deal.reason == "bound_hit"


def test_attempts_count_toward_the_bounds() -> None:
    never = Player([IDLE], {r: None for r in range(1, 20)})
    result = _run({"a": _proposer("b"), "b": never, "c": Player([IDLE])}, coalition_rounds=10, max_rounds=3)
    assert result.no_deal is not None and result.no_deal.reason == "bound_hit" and result.rounds == 3
    assert len(never.invitations) == 3
    rules = Rules(max_rounds=9, max_offers=1, acceptance=TWO_OF_THREE, on_stagnation="continue")
    negotiators = {"a": _proposer("b"), "b": Player([IDLE], {1: None}), "c": Player([IDLE])}
    result = Session(SPACE, _setups(), negotiators, rules).run()
    assert result.no_deal is not None and result.no_deal.detail == "offers bound reached"


def test_negotiators_that_do_not_know_the_protocol_decline() -> None:
    result = _run({"a": _proposer("b"), "b": Unaware(), "c": Unaware()})
    (decline,) = [e for e in result.trajectory.of_kind("action") if e.data["kind"] == "decline_coalition"]
    assert decline.party == "b" and decline.data["reason"] == NO_ANSWER_METHOD
    assert result.trajectory.of_kind("coalition_ended")[0].data["reason"] == "declined"


def test_a_member_leaving_ends_the_attempt() -> None:
    rule = AcceptanceRule(required=2)
    slow = Player([IDLE], {1: None, 2: None})
    walker = Player([Walk("bored")])
    result = _run({"a": Player([ProposeCoalition(DEAL, ("b", "c")), IDLE]), "b": slow, "c": walker}, rule)
    ended = result.trajectory.of_kind("coalition_ended")
    assert ended and ended[0].data["reason"] == "left" and ended[0].data["parties"] == ["c"]


def test_a_broken_answer_is_a_clean_violation() -> None:
    class Broken(Player):
        def answer_coalition(self, view: PartyView, invitation: CoalitionInvitation) -> Any:
            raise RuntimeError("boom")

    result = _run({"a": _proposer("b"), "b": Broken([IDLE]), "c": Player([IDLE])})
    assert result.no_deal is not None and result.no_deal.walker == "b"
    assert result.no_deal.detail == "answer_coalition raised RuntimeError: boom"


def test_replay_equals_the_original() -> None:
    for negotiators in (
        {"a": _proposer("b", "c"), "b": Player([IDLE], {1: None}), "c": Unaware()},
        {"a": _proposer("b"), "b": Player([IDLE], {1: DeclineCoalition("no")}), "c": Player([IDLE])},
        {"a": _proposer("b"), "b": Player([IDLE], {1: None, 2: None}), "c": Player([Propose(DEAL)])},
    ):
        rules = Rules(max_rounds=5, acceptance=TWO_OF_THREE, on_stagnation="continue", coalition_rounds=3)
        original = Session(SPACE, _setups(), negotiators, rules).run()
        again = replay(original.trajectory, SPACE, _setups(), rules)
        assert again.trajectory.to_jsonl() == original.trajectory.to_jsonl()
        assert again.ended == original.ended


def test_actions_and_payloads_round_trip() -> None:
    for action in (
        ProposeCoalition(DEAL, ("b", "c"), "hi"),
        JoinCoalition("ok"),
        DeclineCoalition("no", "m"),
    ):
        assert action_from_json(action_to_json(action)) == action
    result = _run({"a": _proposer("b"), "b": Player([IDLE]), "c": Player([IDLE])})
    for event in result.trajectory:
        assert not isinstance(event.payload, UntypedPayload), event.kind
    # a malformed coalition event is read as untyped, never an exception
    from parley.protocol.payloads import parse_payload

    assert isinstance(parse_payload("coalition_ended", {"reason": "bored"}), UntypedPayload)
    assert isinstance(
        parse_payload("coalition_formed", {"members": "a", "package": {}, "proposal": -1}), UntypedPayload
    )


def test_the_open_attempt_is_readable_from_the_record() -> None:
    seen: list[bool] = []

    class Watcher(Player):
        def act(self, view: PartyView) -> Action:
            seen.append(open_attempt(view.record))
            return IDLE

    result = _run({"a": _proposer("b"), "b": Player([IDLE], {1: None}), "c": Watcher([IDLE])})
    assert result.agreement is not None
    assert seen == [True]  # c answered the table in round 1 while the attempt was open


def test_the_coalition_rounds_rule_is_recorded_only_when_not_the_default() -> None:
    result = _run({"a": Player([IDLE]), "b": Player([IDLE]), "c": Player([IDLE])}, max_rounds=1)
    assert "coalition_rounds" not in result.trajectory[0].data["rules"]
    result = _run(
        {"a": Player([IDLE]), "b": Player([IDLE]), "c": Player([IDLE])}, max_rounds=1, coalition_rounds=5
    )
    assert result.trajectory[0].data["rules"]["coalition_rounds"] == 5
    with pytest.raises(Exception, match="coalition_rounds must not be negative"):
        Rules(coalition_rounds=-1)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    reservations=st.lists(st.floats(0.0, 3.0), min_size=3, max_size=3),
    members=st.lists(st.sampled_from(PARTIES), max_size=3),
    answers=st.lists(st.sampled_from(["join", "decline", "later"]), min_size=3, max_size=3),
    package=st.tuples(st.sampled_from(["north", "south"]), st.integers(1, 3)),
    proposer=st.sampled_from(PARTIES),
)
def test_no_agreement_violates_a_members_batna_or_lacks_a_vetoer(
    reservations: list[float], members: list[str], answers: list[str], package: tuple[str, int], proposer: str
) -> None:
    """Members that join only what is worth their BATNA never end below it; every deal has the vetoer."""
    deal = {"site": package[0], "budget": package[1]}
    setups = _setups(dict(zip(PARTIES, reservations, strict=True)))

    class Careful(Player):
        def answer_coalition(self, view: PartyView, invitation: CoalitionInvitation) -> Any:
            wish = answers[PARTIES.index(view.party)]
            if wish == "later":
                return None
            worth = view.utility.evaluate(invitation.package)
            return (
                JoinCoalition() if wish == "join" and worth >= view.reservation_value else DeclineCoalition()
            )

    negotiators = {
        p: Careful([ProposeCoalition(deal, tuple(members))] if p == proposer else [IDLE]) for p in PARTIES
    }
    rules = Rules(max_rounds=4, acceptance=TWO_OF_THREE, on_stagnation="continue")
    result = Session(SPACE, setups, negotiators, rules).run()
    agreement = result.agreement
    if agreement is None:
        return
    assert "b" in agreement.accepted_by and len(agreement.accepted_by) >= 2
    for party in agreement.accepted_by:
        if party != proposer:
            assert agreement.utilities[party] >= agreement.reservation_values[party] - 1e-9
    assert all(v.party == proposer for v in agreement.violations)
