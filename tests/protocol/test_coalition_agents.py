"""Built-in agents in the coalition sub-protocol: baselines and ASTRA answer invitations like offers,
ASTRA proposes coalitions, and `parley run` shows the coalition events and records them in --json."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path
from typing import Any, ClassVar

import numpy as np
import pytest
from typer.testing import CliRunner

from parley.agents.astra import create_astra
from parley.agents.baselines import HardlinerNegotiator, TimeBasedNegotiator
from parley.agents.registry import register
from parley.cli.app import app
from parley.experiments.runner import build_negotiators, run_negotiation
from parley.protocol import AcceptanceRule, PartyView, replay
from parley.protocol.actions import Action, DeclineCoalition, JoinCoalition, ProposeCoalition, Say
from parley.protocol.coalition import CoalitionInvitation
from parley.scenarios import load_scenario, scenario_to_yaml
from parley.scenarios.generate import GameSpec, generate_game
from parley.scenarios.model import Scenario

VETOER = "birch"


def _game() -> Scenario:
    """A generated three-party game under 2 of 3 with one vetoer."""
    game = generate_game(GameSpec(seed=4, parties=3, issues=3, max_rounds=20))
    rules = replace(game.rules, acceptance=AcceptanceRule(required=2, vetoes=(VETOER,)))
    return replace(game, rules=rules)


def _best_for(game: Scenario, party: str) -> dict[str, Any]:
    utility = next(p.utility for p in game.parties if p.name == party)
    space = game.space
    values = [utility.evaluate(space.outcome(i)) for i in range(space.size)]
    return dict(space.outcome(int(np.argmax(values))))


class CoalitionProposer:
    """Proposes a coalition with the vetoer around the vetoer's best package, then talks."""

    package: ClassVar[dict[str, Any]] = {}

    def __init__(self, party: str = "", seed: int = 0) -> None:
        self.party = party
        self.moved = False

    def act(self, view: PartyView) -> Action:
        if not self.moved and view.table is None:
            self.moved = True
            return ProposeCoalition(self.package, (VETOER,))
        return Say("waiting")


def _invitation(game: Scenario, package: dict[str, Any]) -> tuple[PartyView, CoalitionInvitation]:
    """A view of the vetoer's first move and an invitation around package (from a played session)."""
    seen: list[tuple[PartyView, CoalitionInvitation]] = []

    class Spy:
        def act(self, view: PartyView) -> Action:
            return Say("hm")

        def answer_coalition(self, view: PartyView, invitation: CoalitionInvitation) -> Any:
            seen.append((view, invitation))
            return None

    CoalitionProposer.package = package
    names = game.party_names
    negotiators: dict[str, Any] = {names[0]: CoalitionProposer(names[0]), VETOER: Spy()}
    negotiators |= {p: Spy() for p in names if p not in negotiators}
    run_negotiation(game, negotiators, seed=0)
    return seen[0]


@pytest.mark.parametrize("factory", [TimeBasedNegotiator, HardlinerNegotiator, create_astra])
def test_agents_join_their_best_package_and_decline_one_below_their_batna(factory: Any) -> None:
    game = _game()
    view, invitation = _invitation(game, _best_for(game, VETOER))
    agent = factory(party=VETOER, seed=0)
    assert isinstance(agent.answer_coalition(view, invitation), JoinCoalition)
    utility = next(p.utility for p in game.parties if p.name == VETOER)
    space = game.space
    worst = min(range(space.size), key=lambda i: utility.evaluate(space.outcome(i)))
    assert utility.evaluate(space.outcome(worst)) < utility.reservation_value
    view, invitation = _invitation(game, dict(space.outcome(worst)))
    assert isinstance(factory(party=VETOER, seed=0).answer_coalition(view, invitation), DeclineCoalition)


def test_a_baseline_coalition_game_is_agreed_within_every_members_batna_and_replays() -> None:
    game = _game()
    CoalitionProposer.package = _best_for(game, VETOER)
    names = game.party_names
    negotiators = build_negotiators(game, ["boulware"] * len(names), 0, {})
    negotiators[names[0]] = CoalitionProposer(names[0])
    result = run_negotiation(game, negotiators, seed=0)
    assert result.trajectory.of_kind("coalition_formed")
    agreement = result.agreement
    assert agreement is not None and VETOER in agreement.accepted_by
    for party in agreement.accepted_by:
        if party != names[0]:  # (the scripted proposer checks nothing)
            assert agreement.utilities[party] >= agreement.reservation_values[party]
    again = replay(result.trajectory, game.space, game.setups(), game.rules)
    assert again.trajectory.to_jsonl() == result.trajectory.to_jsonl()


def test_astra_proposes_coalitions_in_k_of_n_games_only() -> None:
    counts = {"k_of_n": 0, "unanimity": 0}
    for seed in range(3):
        game = generate_game(GameSpec(seed=seed + 1, parties=3 + seed % 2, issues=3, max_rounds=40))
        for label, rule in (("k_of_n", game.rules.acceptance), ("unanimity", AcceptanceRule())):
            if label == "k_of_n" and not game.rules.allows_coalitions(len(game.parties)):
                continue
            played = replace(game, rules=replace(game.rules, acceptance=rule))
            result = run_negotiation(
                played, build_negotiators(played, ["astra"] * len(game.parties), seed, {})
            )
            assert result.no_deal is None or result.no_deal.reason != "protocol_violation"
            proposals = [
                e for e in result.trajectory.of_kind("action") if e.data["kind"] == "propose_coalition"
            ]
            counts[label] += len(proposals)
    assert counts["unanimity"] == 0
    assert counts["k_of_n"] > 0


def test_parley_run_shows_the_coalition_and_records_it_in_json(tmp_path: Path) -> None:
    game = _game()
    CoalitionProposer.package = _best_for(game, VETOER)
    register("test-coalition-proposer", CoalitionProposer, "proposes one coalition (tests)")
    path = tmp_path / "game.yaml"
    path.write_text(scenario_to_yaml(game), encoding="utf-8")
    agents = ["test-coalition-proposer", "boulware", "boulware"]
    flags = [f for a in agents for f in ("--agent", a)]
    runner = CliRunner()
    shown = runner.invoke(app, ["run", str(path), *flags], terminal_width=200)
    assert shown.exit_code == 0, shown.output
    assert "(coalition) asks birch to agree" in shown.output
    assert "(coalition) joins" in shown.output and "coalition formed" in shown.output
    printed = runner.invoke(app, ["run", str(path), *flags, "--json"])
    assert printed.exit_code == 0, printed.output
    result = json.loads(printed.output)
    assert result["coalition"] == {"proposer": game.party_names[0], "members": [game.party_names[0], VETOER]}
    plain = runner.invoke(
        app, ["run", str(path), "--agent", "boulware", "--agent", "boulware", "--agent", "boulware", "--json"]
    )
    assert plain.exit_code == 0 and "coalition" not in json.loads(plain.output)


def test_shipped_scenarios_keep_their_files() -> None:
    assert "coalition_rounds" not in scenario_to_yaml(load_scenario("wind_farm"))


@pytest.mark.parametrize("value", ["-1", "'two'", "100000"])
def test_a_bad_coalition_rounds_in_a_scenario_file_fails_in_one_line(tmp_path: Path, value: str) -> None:
    text = scenario_to_yaml(_game()).replace("protocol:\n", f"protocol:\n  coalition_rounds: {value}\n", 1)
    path = tmp_path / "bad.yaml"
    path.write_text(text, encoding="utf-8")
    flags = ["--agent", "boulware"] * 3
    shown = CliRunner().invoke(app, ["run", str(path), *flags])
    assert shown.exit_code != 0
    assert "coalition_rounds" in shown.output and "Traceback" not in shown.output
    assert len(shown.output.strip().splitlines()) == 1, shown.output
