"""Coalitions around revealed packages (O13, k of n): a package the members offered or accepted forms one."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from parley.agents.astra.coalition import proposes_next, revealed_candidate, revealed_coalition
from parley.experiments.runner import build_negotiators, run_negotiation
from parley.protocol import AcceptanceRule, PartyView
from parley.protocol.actions import Action, Propose, ProposeCoalition, Reject
from parley.protocol.coalition import read_record
from parley.scenarios.generate import GameSpec, generate_game
from parley.scenarios.model import Scenario

VETOER = "birch"


def _game(seed: int = 4) -> Scenario:
    """A generated three-party game under 2 of 3 with one vetoer; the first party's BATNA is 0
    (any package the vetoer offers is worth a deal to it)."""
    game = generate_game(GameSpec(seed=seed, parties=3, issues=3, max_rounds=20))
    rules = replace(game.rules, acceptance=AcceptanceRule(required=2, vetoes=(VETOER,)))
    first = replace(game.parties[0], utility=game.parties[0].utility.with_reservation(0.0))
    return replace(game, rules=rules, parties=(first, *game.parties[1:]))


class RevealedProposer:
    """Opens with its best package, then proposes a coalition around what the others revealed."""

    def __init__(self, party: str) -> None:
        self.party = party
        self.proposals: list[ProposeCoalition] = []

    def act(self, view: PartyView) -> Action:
        best = view.space.outcome(int(view.utility.evaluate_space().argmax()))
        planned = Propose(best)
        coalition = revealed_coalition(view, planned, lambda package: True)
        if coalition is not None:
            self.proposals.append(coalition)
            return coalition
        if proposes_next(view) and revealed_candidate(view, lambda package: True) is not None:
            return Reject("keeping my turn")  # (a counter would become the table and skip my turn)
        return planned


def test_a_coalition_around_a_package_every_required_member_offered_forms() -> None:
    game = _game()
    names = game.party_names
    negotiators: dict[str, Any] = build_negotiators(game, ["boulware"] * len(names), 0, {})
    proposer = negotiators[names[0]] = RevealedProposer(names[0])
    result = run_negotiation(game, negotiators, seed=0)
    assert proposer.proposals, "the vetoer offered its best package: a coalition should be proposed"
    first = proposer.proposals[0]
    assert VETOER in first.members
    proposed_at = next(e.seq for e in result.trajectory if e.data.get("kind") == "propose_coalition")
    revealed, _ = read_record(list(result.trajectory)[:proposed_at], names, game.rules)
    assert all(dict(first.package) in revealed[m] for m in first.members)
    formed = result.trajectory.of_kind("coalition_formed")
    assert formed and formed[0].data["package"] == dict(first.package)
    agreement = result.agreement
    assert agreement is not None and dict(agreement.terms) == dict(first.package)
    for party in agreement.accepted_by:
        if party != names[0]:
            assert agreement.utilities[party] >= agreement.reservation_values[party]


def test_no_coalition_without_the_vetoer_revealing_the_package() -> None:
    game = _game()
    names = game.party_names
    negotiators: dict[str, Any] = build_negotiators(game, ["hardliner"] * len(names), 0, {})
    # The non-vetoer repeats the proposer's own package; the vetoer (a hardliner) never does.
    proposer = negotiators[names[0]] = RevealedProposer(names[0])
    result = run_negotiation(game, negotiators, seed=0)
    revealed, _ = read_record(list(result.trajectory), names, game.rules)
    for proposal in proposer.proposals:
        assert dict(proposal.package) in revealed[VETOER]


def test_astra_asks_only_members_that_revealed_the_package_and_they_join() -> None:
    attempts = formed = 0
    for seed in range(6):
        game = generate_game(GameSpec(seed=seed, parties=3 + seed % 3, issues=3, max_rounds=40))
        if not game.rules.allows_coalitions(len(game.parties)):
            continue
        lineup = ["astra", *["linear"] * (len(game.parties) - 1)]
        result = run_negotiation(game, build_negotiators(game, lineup, seed, {}))
        events = list(result.trajectory)
        for event in events:
            if event.kind == "action" and event.data.get("kind") == "propose_coalition":
                attempts += 1
                revealed, _ = read_record(events[: event.seq], game.party_names, game.rules)
                assert all(event.data["package"] in revealed[m] for m in event.data["members"])
        formed += len(result.trajectory.of_kind("coalition_formed"))
    assert attempts > 0 and formed > 0
