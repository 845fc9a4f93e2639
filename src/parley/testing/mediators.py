"""`check_mediator`: conformance checks for conversation mediators and O13 offer mediators.

A conversation mediator must use only the public record, be deterministic by seed, deliver
well-formed interventions and, when it promises so (`no_consecutive`), never speak in two
consecutive turns. An offer mediator must table only legal packages, be deterministic, and
propose the same thing when the parties' private utilities change but offers and signals do not.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any

from parley.domain.utility import UtilityFunction
from parley.mediation.conversation import (
    MEDIATOR,
    ActKind,
    Assessment,
    ConversationMediator,
    ConversationView,
    Utterance,
)
from parley.protocol.actions import Accept, Action, Propose
from parley.protocol.events import Trajectory
from parley.protocol.payloads import MediatorProposal
from parley.protocol.rules import Rules
from parley.protocol.session import OfferMediator, PartySetup, Session
from parley.protocol.view import PartyView
from parley.scenarios.importers.promediate import load_promediate_case
from parley.scenarios.model import Party, Scenario
from parley.simulation.conversation import Conversation, run_conversation
from parley.simulation.modes import ConflictMode

MEDIATOR_CHECKS = ("public_only", "deterministic", "well_formed", "no_consecutive")
"""Checks run on conversation mediators."""
OFFER_MEDIATOR_CHECKS = ("public_only", "deterministic", "well_formed")
"""Checks run on offer mediators."""


@dataclass(frozen=True, slots=True)
class MediatorReport:
    """What `check_mediator` ran (it raises on the first failure, so a report means all passed).

    Attributes:
        checks: Checks that passed.
        conversations: Conversations (or sessions) played.
        interventions: Interventions (or proposals) inspected.
    """

    checks: tuple[str, ...]
    conversations: int
    interventions: int


class MediatorCheckError(AssertionError):
    """A mediator failed a conformance check."""

    def __init__(self, check: str, detail: str) -> None:
        self.check = check
        super().__init__(f"check_mediator [{check}]: {detail}")


def check_mediator(
    factory: Callable[[int], Any],
    *,
    scenarios: Sequence[Scenario] | None = None,
    seeds: Sequence[int] = (0, 1),
) -> MediatorReport:
    """Run the conformance checks over a mediator.

    Args:
        factory: Builds a fresh mediator from a seed: a `ConversationMediator` (assess/intervene)
            or an `OfferMediator` (propose).
        scenarios: Conversation scenarios to play (default: the HMO and Williams ProMediate cases).
        seeds: Seeds to play.

    Raises:
        MediatorCheckError: the first failed check, with a one-line explanation.
    """
    probe = factory(seeds[0])
    if hasattr(probe, "propose") and not hasattr(probe, "assess"):
        return _check_offer_mediator(factory, seeds)
    cases = (
        list(scenarios)
        if scenarios is not None
        else [load_promediate_case("hmo"), load_promediate_case("williams")]
    )
    conversations = interventions = 0
    for scenario in cases:
        for seed in seeds:
            for mode in (ConflictMode.COMPETING, ConflictMode.ACCOMMODATING):
                found = _check_conversation(factory, scenario, mode, seed)
                conversations += 3
                interventions += found
    return MediatorReport(MEDIATOR_CHECKS, conversations, interventions)


def _check_conversation(
    factory: Callable[[int], Any], scenario: Scenario, mode: ConflictMode, seed: int
) -> int:
    label = f"{scenario.name}/{mode.value}/seed {seed}"
    mediator: ConversationMediator = factory(seed)
    result = run_conversation(scenario, mediator, mode=mode, seed=seed)
    turns = [u.turn for u in result.utterances if u.is_intervention]
    for utterance in result.utterances:
        if utterance.is_intervention:
            _well_formed(utterance, utterance.turn, scenario, label)
    if getattr(mediator, "no_consecutive", False):
        for earlier, later in itertools.pairwise(turns):
            if later == earlier + 1:
                raise MediatorCheckError(
                    "no_consecutive", f"{label}: intervened in turns {earlier} and {later}"
                )
    again = run_conversation(scenario, factory(seed), mode=mode, seed=seed)
    if again.trajectory.to_jsonl() != result.trajectory.to_jsonl():
        raise MediatorCheckError("deterministic", f"{label}: the same seed gave a different transcript")
    _check_public_only(factory, scenario, mode, seed, result.trajectory, label)
    return len(turns)


def _well_formed(utterance: Utterance, turn: int, scenario: Scenario, label: str) -> None:
    topics = scenario.space.names
    problems: list[str] = []
    if utterance.act is not ActKind.INTERVENE or utterance.speaker != MEDIATOR:
        problems.append(
            f"act {utterance.act.value!r} by {utterance.speaker!r} (expected intervene by {MEDIATOR!r})"
        )
    if utterance.turn != turn:
        problems.append(f"turn {utterance.turn} (expected {turn})")
    if utterance.topic is not None and utterance.topic not in topics:
        problems.append(f"unknown topic {utterance.topic!r}")
    if utterance.strategy is None:
        problems.append("no strategy")
    if not utterance.text.strip():
        problems.append("empty text")
    for topic, option in (utterance.package or {}).items():
        if topic not in topics or not scenario.space.issue(topic).contains(option):
            problems.append(f"package names an unknown {topic!r}: {option!r}")
    if problems:
        raise MediatorCheckError("well_formed", f"{label}, turn {turn}: " + "; ".join(problems))


def _check_public_only(
    factory: Callable[[int], Any],
    scenario: Scenario,
    mode: ConflictMode,
    seed: int,
    trajectory: Trajectory,
    label: str,
) -> None:
    """Replay the recorded public record to a mediator inside a scenario whose private preferences
    are rotated among parties: its assessments and interventions must not change."""
    baseline = Conversation(scenario, factory(seed), mode=mode, seed=seed)
    shuffled = Conversation(_rotate_utilities(scenario), factory(seed), mode=mode, seed=seed)
    said = [Utterance.from_json(e.data) for e in trajectory.of_kind("utterance", "intervention")]
    silent = tuple(e.round for e in trajectory.of_kind("silence"))
    for turn in range(1, len(said) + len(silent) + 1):
        before = tuple(u for u in said if u.turn < turn)
        quiet = tuple(t for t in silent if t < turn)
        answer_a = _answer(baseline, replace(baseline.view(turn), utterances=before, silent_turns=quiet))
        answer_b = _answer(shuffled, replace(shuffled.view(turn), utterances=before, silent_turns=quiet))
        if answer_a != answer_b:
            raise MediatorCheckError(
                "public_only",
                f"{label}, turn {turn}: the decision changed when only private preferences changed",
            )


def _answer(conversation: Conversation, view: ConversationView) -> tuple[Assessment, Utterance | None]:
    """Ask the conversation's mediator, as the conversation loop would."""
    mediator = conversation.mediator
    assessment = mediator.assess(view)
    if not 1.0 <= assessment.motivation <= 5.0:
        raise MediatorCheckError(
            "well_formed", f"turn {view.turn}: motivation {assessment.motivation} outside 1..5"
        )
    return assessment, mediator.intervene(view, assessment) if assessment.intervene else None


def _rotate_utilities(scenario: Scenario) -> Scenario:
    utilities = [p.utility for p in scenario.parties]
    rotated = utilities[1:] + utilities[:1]
    parties = tuple(replace(p, utility=u) for p, u in zip(scenario.parties, rotated, strict=True))
    return replace(scenario, parties=parties)


# -- offer mediators (O13) -------------------------------------------------------------------------


class _Scripted:
    """Proposes a fixed package every turn and accepts nothing but a mediator's package on request."""

    def __init__(self, packages: Sequence[Mapping[str, Any]], accept_mediator: bool) -> None:
        self._packages = list(packages)
        self._accept = accept_mediator
        self._moves = 0

    def act(self, view: PartyView) -> Action:
        table = view.table
        if self._accept and table is not None and table.proposer == "mediator":
            return Accept()
        package = self._packages[self._moves % len(self._packages)]
        self._moves += 1
        return Propose(dict(package))


def _offer_scenario() -> Scenario:
    from parley.scenarios.importers.deliberation import load_deliberation_game

    return load_deliberation_game()


def _offer_session(
    factory: Callable[[int], Any], seed: int, utilities: Sequence[UtilityFunction], scenario: Scenario
) -> list[dict[str, Any]]:
    parties = scenario.parties
    ideal = {p.name: _best_package(p) for p in scenario.parties}
    negotiators = {p.name: _Scripted([ideal[p.name]], accept_mediator=False) for p in parties}
    setups = [PartySetup(p.name, u, {}, p.signals) for p, u in zip(parties, utilities, strict=True)]
    rules = Rules(
        max_rounds=8, stagnation_rounds=1, on_stagnation="mediate", acceptance=scenario.rules.acceptance
    )
    mediator: OfferMediator = factory(seed)
    result = Session(scenario.space, setups, negotiators, rules, mediator=mediator).run()
    return [dict(e.typed(MediatorProposal).package) for e in result.trajectory.of_kind("mediator_proposal")]


def _best_package(party: Party) -> dict[str, Any]:
    space = party.utility.space
    values = party.utility.evaluate_space()
    return space.outcome(int(values.argmax()))


def _check_offer_mediator(factory: Callable[[int], Any], seeds: Sequence[int]) -> MediatorReport:
    scenario = _offer_scenario()
    proposals = 0
    for seed in seeds:
        own = [p.utility for p in scenario.parties]
        first = _offer_session(factory, seed, own, scenario)
        if _offer_session(factory, seed, own, scenario) != first:
            raise MediatorCheckError("deterministic", f"seed {seed}: the same seed gave different proposals")
        swapped = own[1:] + own[:1]
        if _offer_session(factory, seed, swapped, scenario) != first:
            raise MediatorCheckError(
                "public_only", f"seed {seed}: proposals changed when only the private utilities changed"
            )
        for package in first:
            try:
                scenario.space.validate(package)
            except ValueError as error:
                raise MediatorCheckError(
                    "well_formed", f"seed {seed}: illegal package {package}: {error}"
                ) from None
        proposals += len(first)
    return MediatorReport(OFFER_MEDIATOR_CHECKS, 3 * len(seeds), proposals)
