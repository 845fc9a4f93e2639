"""Simulated participants on a game whose p1 earns a unanimity bonus: topics argued with the additive
part, whole packages judged with the true utility (bonus included)."""

from __future__ import annotations

from dataclasses import dataclass, replace

import numpy as np
import pytest

from parley.domain.utility import AdditiveBonusUtility, TableUtility
from parley.errors import ScenarioError
from parley.mediation.conversation import MEDIATOR, ActKind, Assessment, ConversationView, Utterance
from parley.mediation.mediators import create_mediator
from parley.scenarios.importers.deliberation import load_deliberation_game
from parley.scenarios.model import Scenario
from parley.simulation.conversation import run_conversation, simulated_participants
from parley.simulation.modes import ConflictMode
from parley.simulation.participants import (
    PackageVerdict,
    SimulatedParticipant,
    additive_part,
    topic_values,
)


@pytest.fixture(scope="module")
def game() -> Scenario:
    return load_deliberation_game()


def _labels(outcome: dict[str, object]) -> dict[str, str]:
    return {issue: str(value) for issue, value in outcome.items()}


def lifted_package(game: Scenario) -> dict[str, str]:
    """A deal SportCo's score lines put below its BATNA and its bonus lifts to it or above."""
    sportco = game.party("SportCo").utility
    assert isinstance(sportco, AdditiveBonusUtility)
    summed, worth = sportco.additive.evaluate_space(), sportco.evaluate_space()
    batna = sportco.reservation_value
    rows = np.flatnonzero((summed < batna) & (worth >= batna))
    assert rows.size, "the base game has deals only the bonus makes acceptable to SportCo"
    return _labels(game.space.outcome(int(rows[0])))


def test_topic_values_come_from_the_additive_part(game: Scenario) -> None:
    sportco = game.party("SportCo").utility
    assert isinstance(sportco, AdditiveBonusUtility)
    assert additive_part(sportco) is sportco.additive
    assert topic_values(sportco, game.space) == topic_values(sportco.additive, game.space)


def test_a_utility_without_an_additive_part_is_one_line(game: Scenario) -> None:
    table = TableUtility(game.space, np.zeros(game.space.size), 0.0)
    with pytest.raises(
        ScenarioError, match=r"need a utility with an additive part.*got TableUtility"
    ) as raised:
        topic_values(table, game.space)
    assert "\n" not in str(raised.value)


def test_packages_are_judged_with_the_true_utility(game: Scenario) -> None:
    participants = simulated_participants(game, ConflictMode.GENERAL, 0)
    sportco = participants["SportCo"]
    assert isinstance(sportco, SimulatedParticipant) and sportco.utility is game.party("SportCo").utility
    package = lifted_package(game)
    assert sportco.judge_package(package) == PackageVerdict(acceptable=True, acceptable_by_topics=False)
    assert sportco.judge_package(package).decided_beyond_topics  # type: ignore[union-attr]
    # Another party's utility has no bonus: its verdict by topics and as a whole agree.
    mayor = participants["Mayor"]
    assert isinstance(mayor, SimulatedParticipant)
    verdict = mayor.judge_package(package)
    assert verdict is not None and not verdict.decided_beyond_topics


def test_partial_unknown_or_homoglyph_packages_get_no_verdict(game: Scenario) -> None:
    sportco = simulated_participants(game, ConflictMode.GENERAL, 0)["SportCo"]
    assert isinstance(sportco, SimulatedParticipant)
    package = lifted_package(game)
    first = game.space.names[0]
    assert sportco.judge_package({k: v for k, v in package.items() if k != first}) is None
    assert sportco.judge_package(package | {first: "A9"}) is None
    assert sportco.judge_package(package | {first: "\u0410" + package[first][1:]}) is None  # Cyrillic А
    assert sportco.judge_package(package | {first: package[first] + "\u200b"}) is None
    assert replace(sportco, utility=None).judge_package(package) is None


def test_a_negative_bonus_draws_objections_the_topics_alone_would_not(game: Scenario) -> None:
    sportco = game.party("SportCo").utility
    assert isinstance(sportco, AdditiveBonusUtility)
    best = int(np.argmax(sportco.additive.evaluate_space()))
    region = np.zeros(game.space.size, dtype=bool)
    region[best] = True
    penalised = AdditiveBonusUtility(game.space, sportco.additive, -100.0, region, sportco.reservation_value)
    participant = simulated_participants(game, ConflictMode.GENERAL, 0)["SportCo"]
    assert isinstance(participant, SimulatedParticipant)
    verdict = replace(participant, utility=penalised).judge_package(_labels(game.space.outcome(best)))
    assert verdict == PackageVerdict(acceptable=False, acceptable_by_topics=True)


@dataclass
class TablesPackage:
    """A scripted mediator: every other turn it tables one package, naming one of its topics."""

    package: dict[str, str]
    topic: str
    name: str = "tables-package"
    no_consecutive: bool = True

    def assess(self, view: ConversationView) -> Assessment:
        return Assessment(view.turn % 2 == 1 and view.turn > 1, 3.0, ("scripted",))

    def intervene(self, view: ConversationView, assessment: Assessment) -> Utterance:
        option = self.package[self.topic]
        text = f"Consider {option} on {self.topic}, as part of this package."
        return Utterance(
            view.turn, MEDIATOR, ActKind.INTERVENE, self.topic, option, self.package, None, 0.5, text=text
        )


def _package_support(game: Scenario, with_utility: bool) -> int:
    package = lifted_package(game)
    sportco = game.party("SportCo").utility
    assert isinstance(sportco, AdditiveBonusUtility)
    values, _ = topic_values(sportco, game.space)
    topic = min(package, key=lambda t: values[t][package[t]])  # where the package asks most of SportCo
    count = 0
    for seed in range(4):
        participants = simulated_participants(game, ConflictMode.ACCOMMODATING, seed)
        if not with_utility:
            participants["SportCo"] = replace(participants["SportCo"], utility=None)  # type: ignore[type-var]
        result = run_conversation(
            game,
            TablesPackage(package, topic),
            mode=ConflictMode.ACCOMMODATING,
            seed=seed,
            participants=participants,
        )
        for event in result.trajectory.of_kind("speaker_selection"):
            thought = event.data["thought"]
            if (
                event.data["speaker"] == "SportCo"
                and thought
                and thought["reason"] == "the package as a whole pays"
            ):
                count += 1
    return count


def test_sportco_backs_a_package_its_bonus_pays_for_and_only_because_of_the_bonus(game: Scenario) -> None:
    assert _package_support(game, with_utility=True) > 0
    assert _package_support(game, with_utility=False) == 0


def test_a_bonus_game_plays_with_every_conversation_mediator(game: Scenario) -> None:
    for name in ("none", "generic", "social"):
        result = run_conversation(game, create_mediator(name), mode=ConflictMode.COMPETING, seed=1)
        assert (
            len(result.consensus)
            == result.trajectory.of_kind("conversation_started")[0].data["max_turns"] + 1
        )
