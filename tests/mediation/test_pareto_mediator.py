"""The O13 Pareto mediator: public offers and coarse signals in, Pareto-improving packages out."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import pytest

from parley.domain.issues import Issue
from parley.domain.space import OutcomeSpace
from parley.domain.utility import LinearAdditiveUtility, UtilityFunction
from parley.mediation.pareto import ParetoMediator
from parley.protocol.actions import Accept, Action, Propose
from parley.protocol.events import Event
from parley.protocol.rules import Rules
from parley.protocol.session import MediatorView, PartySetup, Session
from parley.protocol.view import PartyView, Record
from parley.scenarios.importers.deliberation import load_deliberation_game

SPACE = OutcomeSpace.of(
    [Issue.options("price", ["p1", "p2", "p3"]), Issue.options("term", ["t1", "t2", "t3"])]
)


def linear(price: Sequence[float], term: Sequence[float]) -> LinearAdditiveUtility:
    return LinearAdditiveUtility(SPACE, {"price": 1.0, "term": 1.0}, {"price": price, "term": term})


def offers_view(
    offers: list[tuple[str, dict[str, str]]], signals: Mapping[str, Mapping[str, Any]] | None = None
) -> MediatorView:
    events = [
        Event(i, "action", 1, party, {"kind": "propose", "package": package})
        for i, (party, package) in enumerate(offers)
    ]
    return MediatorView(SPACE, ("ann", "bob"), 3, Record(events), signals or {})


def test_silent_without_offers() -> None:
    assert ParetoMediator().propose(offers_view([])) is None


def test_proposes_a_package_both_prefer_to_what_the_other_offers() -> None:
    # Ann cares about price (wants p1), Bob about term (wants t3); each opens with its ideal everywhere.
    ann = linear([10, 5, 0], [2, 1, 0])
    bob = linear([0, 1, 2], [0, 5, 10])
    offers = [("ann", {"price": "p1", "term": "t1"}), ("bob", {"price": "p3", "term": "t3"})]
    signals = {"ann": {"priorities": ["price", "term"]}, "bob": {"priorities": ["term", "price"]}}
    package = ParetoMediator().propose(offers_view(offers, signals))
    assert package == {"price": "p1", "term": "t3"}
    assert ann.evaluate(package) > ann.evaluate(offers[1][1])
    assert bob.evaluate(package) > bob.evaluate(offers[0][1])


def test_must_haves_are_honoured() -> None:
    offers = [("ann", {"price": "p1", "term": "t1"}), ("bob", {"price": "p3", "term": "t3"})]
    signals = {
        "ann": {"priorities": ["price", "term"], "must_haves": {"term": ["t2"]}},
        "bob": {"priorities": ["term", "price"]},
    }
    package = ParetoMediator().propose(offers_view(offers, signals))
    assert package is not None and package["term"] == "t2"


def test_never_tables_the_same_package_twice() -> None:
    offers = [("ann", {"price": "p1", "term": "t1"}), ("bob", {"price": "p3", "term": "t3"})]
    signals = {"ann": {"priorities": ["price", "term"]}, "bob": {"priorities": ["term", "price"]}}
    first = ParetoMediator().propose(offers_view(offers, signals))
    assert first is not None
    events = [
        Event(i, "action", 1, p, {"kind": "propose", "package": pkg}) for i, (p, pkg) in enumerate(offers)
    ]
    events.append(Event(len(events), "mediator_proposal", 2, "mediator", {"package": first}))
    view = MediatorView(SPACE, ("ann", "bob"), 3, Record(events), signals)
    assert ParetoMediator().propose(view) != first


class Repeater:
    """Proposes the same package every turn and accepts nothing (so the talks stall)."""

    def __init__(self, package: Mapping[str, Any]) -> None:
        self._package = dict(package)

    def act(self, view: PartyView) -> Action:
        return Propose(self._package)


class AcceptsMediator(Repeater):
    def act(self, view: PartyView) -> Action:
        if view.table is not None and view.table.proposer == "mediator":
            return Accept()
        return super().act(view)


def _session_proposals(
    utilities: Sequence[UtilityFunction], negotiator: type[Repeater] = Repeater
) -> list[dict[str, Any]]:
    game = load_deliberation_game()
    ideals = [p.utility.space.outcome(int(p.utility.evaluate_space().argmax())) for p in game.parties]
    setups = [PartySetup(p.name, u, {}, p.signals) for p, u in zip(game.parties, utilities, strict=True)]
    negotiators = {p.name: negotiator(ideal) for p, ideal in zip(game.parties, ideals, strict=True)}
    rules = Rules(
        max_rounds=6, stagnation_rounds=1, on_stagnation="mediate", acceptance=game.rules.acceptance
    )
    result = Session(game.space, setups, negotiators, rules, mediator=ParetoMediator()).run()
    return [dict(e.data["package"]) for e in result.trajectory.of_kind("mediator_proposal")]


def test_cannot_read_private_utilities() -> None:
    """Same offers and signals, different private utilities: identical proposals."""
    game = load_deliberation_game()
    own = [p.utility for p in game.parties]
    rotated = own[2:] + own[:2]
    scaled = [u.affine(3.0, -7.0) for u in own]
    first = _session_proposals(own)
    assert first, "the talks should stall and the mediator should propose"
    assert _session_proposals(rotated) == first
    assert _session_proposals(scaled) == first


def test_a_mediated_package_can_pass_under_the_k_of_n_rule() -> None:
    game = load_deliberation_game()
    game_utilities = [p.utility for p in game.parties]
    assert _session_proposals(game_utilities, AcceptsMediator)
    setups = game.setups()
    ideals = [p.utility.space.outcome(int(p.utility.evaluate_space().argmax())) for p in game.parties]
    negotiators = {p.name: AcceptsMediator(i) for p, i in zip(game.parties, ideals, strict=True)}
    rules = Rules(
        max_rounds=6, stagnation_rounds=1, on_stagnation="mediate", acceptance=game.rules.acceptance
    )
    result = Session(game.space, setups, negotiators, rules, mediator=ParetoMediator()).run()
    assert result.agreement is not None and result.agreement.proposer == "mediator"


@pytest.mark.parametrize("decay", [0.5, 0.8, 1.0])
def test_proposals_are_legal_packages(decay: float) -> None:
    offers = [
        ("ann", {"price": "p2", "term": "t1"}),
        ("bob", {"price": "p3", "term": "t2"}),
        ("ann", {"price": "p1", "term": "t1"}),
    ]
    package = ParetoMediator(decay=decay).propose(offers_view(offers))
    if package is not None:
        SPACE.validate(package)


class PeekingOfferMediator(ParetoMediator):
    """Cheats: reads the private utilities off the session object on the call stack."""

    def propose(self, view: MediatorView) -> Mapping[str, Any] | None:
        import inspect

        for frame in inspect.stack():
            session = frame.frame.f_locals.get("self")
            if isinstance(session, Session):
                party = session._parties[view.parties[0]]  # deliberately cheating
                return party.utility.space.outcome(int(party.utility.evaluate_space().argmax()))
        return None


def test_check_mediator_catches_an_offer_mediator_that_reads_utilities() -> None:
    from parley.testing.mediators import MediatorCheckError, check_mediator

    with pytest.raises(MediatorCheckError, match=r"\[public_only\]"):
        check_mediator(lambda seed: PeekingOfferMediator())
