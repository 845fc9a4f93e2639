"""Built-in conversation mediators: conformance, the generic rules, the social mediator's when and how."""

from __future__ import annotations

import inspect
from collections.abc import Callable
from typing import Any

import pytest

from parley.errors import ScenarioError
from parley.mediation.breakdowns import detect_breakdowns
from parley.mediation.conversation import (
    MEDIATOR,
    ActKind,
    Assessment,
    BreakdownKind,
    ConversationView,
    Strategy,
    Utterance,
)
from parley.mediation.mediators import (
    GenericMediator,
    NoAgentMediator,
    SocialMediator,
    consensus_option,
    create_mediator,
    worst_off_package,
)
from parley.mediation.pareto import ParetoMediator
from parley.simulation.conversation import Conversation
from parley.testing import check_mediator
from parley.testing.mediators import MediatorCheckError

PARTIES = ("Ann", "Bob", "Cy")
OPTIONS = {
    "price": {"A": "low", "B": "mid", "C": "high"},
    "term": {"A": "short", "B": "long"},
    "staff": {"A": "none"},
}

BUILT_IN: dict[str, Callable[[int], Any]] = {
    "none": lambda seed: NoAgentMediator(),
    "generic": lambda seed: GenericMediator(),
    "social": lambda seed: SocialMediator(),
    "pareto": lambda seed: ParetoMediator(),
}


def view(
    utterances: list[Utterance], turn: int | None = None, silent: tuple[int, ...] = ()
) -> ConversationView:
    current = turn if turn is not None else (utterances[-1].turn + 1 if utterances else 1)
    return ConversationView(
        ("price", "term", "staff"), OPTIONS, PARTIES, current, 30, tuple(utterances), silent
    )


def say(
    turn: int,
    speaker: str,
    act: ActKind,
    topic: str | None = "price",
    option: str | None = None,
    **extra: Any,
) -> Utterance:
    return Utterance(turn, speaker, act, topic, option, text=f"{speaker} {act.value} {option}", **extra)


@pytest.mark.parametrize("name", sorted(BUILT_IN))
def test_every_built_in_mediator_passes_the_conformance_checks(name: str) -> None:
    report = check_mediator(BUILT_IN[name])
    assert report.conversations > 0
    if name != "none":
        assert report.interventions > 0


class PeekingMediator(SocialMediator):
    """Cheats: finds the running conversation on the call stack and reads a private utility."""

    def assess(self, view: ConversationView) -> Assessment:
        for frame in inspect.stack():
            conversation = frame.frame.f_locals.get("conversation") or frame.frame.f_locals.get("self")
            if isinstance(conversation, Conversation):
                space = conversation.scenario.space
                first, second = (
                    p.utility.evaluate(space.outcome(0)) for p in conversation.scenario.parties[:2]
                )
                return Assessment(
                    first > second and view.last is not None and not view.last.is_intervention, 4.0
                )
        return Assessment(False, 1.0)


def test_check_mediator_catches_a_mediator_that_reads_private_preferences() -> None:
    with pytest.raises(MediatorCheckError, match=r"\[public_only\]"):
        check_mediator(lambda seed: PeekingMediator())


class Chatterbox(SocialMediator):
    """Breaks its promise: speaks every turn."""

    def assess(self, view: ConversationView) -> Assessment:
        return Assessment(True, 5.0, ("always",))


def test_check_mediator_catches_consecutive_interventions() -> None:
    with pytest.raises(MediatorCheckError, match=r"\[no_consecutive\]"):
        check_mediator(lambda seed: Chatterbox())


def test_generic_fires_on_disagreement_and_never_twice_in_a_row() -> None:
    record = [
        say(1, "Ann", ActKind.STATE, option="A"),
        say(2, "Bob", ActKind.OBJECT, option="A"),
        say(3, "Cy", ActKind.OBJECT, option="A"),
    ]
    generic = GenericMediator()
    assessment = generic.assess(view(record))
    assert assessment.intervene and assessment.reasons[0].startswith("disagreement")
    spoken = generic.intervene(view(record), assessment)
    assert spoken.speaker == MEDIATOR and spoken.act is ActKind.INTERVENE and spoken.topic == "price"
    assert not generic.assess(view([*record, spoken])).intervene


def test_generic_fires_on_stall_confusion_and_drift() -> None:
    generic = GenericMediator()
    stalled = generic.assess(view([say(1, "Ann", ActKind.STATE, option="A")], turn=4, silent=(2, 3)))
    assert stalled.reasons[0].startswith("stall")
    asked = [say(1, "Ann", ActKind.ASK, addressee="Cy")]
    assert generic.assess(view(asked)).reasons[0].startswith("confusion")
    confusion = generic.intervene(view(asked), generic.assess(view(asked)))
    assert confusion.strategy is Strategy.EVALUATIVE and "low" in confusion.text
    hopping = [
        say(1, "Ann", ActKind.STATE, "price", "A"),
        say(2, "Bob", ActKind.STATE, "term", "A"),
        say(3, "Cy", ActKind.STATE, "staff", "A"),
        say(4, "Ann", ActKind.SUPPORT, "term", "A"),
    ]
    drift = generic.assess(view(hopping))
    assert drift.intervene and drift.reasons[0].startswith("drift")
    refocus = generic.intervene(view(hopping), drift)
    assert refocus.topic == "price"  # the topic with the widest spread of stated positions
    flowing = [say(1, "Ann", ActKind.STATE, option="A"), say(2, "Bob", ActKind.SUPPORT, option="A")]
    assert not generic.assess(view(flowing)).intervene


def test_breakdown_detection_by_kind() -> None:
    hostile = [say(1, "Ann", ActKind.OBJECT, option="B", tone=-0.9), say(2, "Bob", ActKind.STATE, option="B")]
    kinds = {b.kind for b in detect_breakdowns(view(hostile))}
    assert BreakdownKind.EMOTIONAL in kinds
    split = [
        say(1, "Ann", ActKind.STATE, option="A"),
        say(2, "Bob", ActKind.STATE, option="B"),
        say(3, "Cy", ActKind.STATE, option="B"),
    ]
    perceptual = [b for b in detect_breakdowns(view(split)) if b.kind is BreakdownKind.PERCEPTUAL]
    assert perceptual and perceptual[0].parties == ("Ann",) and perceptual[0].topic == "price"
    anchored = [say(t, "Ann", ActKind.STATE, option="A") for t in (1, 3, 5)]
    assert BreakdownKind.COGNITIVE in {b.kind for b in detect_breakdowns(view(anchored))}
    circling = [say(t, PARTIES[t % 2], ActKind.STATE, option="AB"[t % 2]) for t in range(1, 7)]
    assert BreakdownKind.COMMUNICATION in {b.kind for b in detect_breakdowns(view(circling))}


def test_social_waits_for_others_then_answers_emotion_with_a_transformative_move() -> None:
    heated = [
        say(1, "Ann", ActKind.STATE, option="A", tone=-0.6),
        say(2, "Bob", ActKind.OBJECT, option="A", tone=-0.9, addressee="Ann"),
        say(3, "Ann", ActKind.OBJECT, option="B", tone=-0.9, addressee="Bob"),
        say(4, "Bob", ActKind.OBJECT, option="A", tone=-0.9, addressee="Ann"),
    ]
    social = SocialMediator()
    assessment = social.assess(view(heated))
    assert assessment.intervene and assessment.motivation >= social.threshold
    assert BreakdownKind.EMOTIONAL in {b.kind for b in assessment.breakdowns}
    assert len(social.candidates(assessment)) == 3
    move = social.intervene(view(heated), assessment)
    assert move.strategy is Strategy.TRANSFORMATIVE
    assert "Ann" in move.text and "Bob" in move.text
    cooled = [*heated, move, say(6, "Cy", ActKind.OBJECT, option="A", tone=-0.9)]
    assert not social.assess(view(cooled)).intervene  # cooldown: let everyone respond first


def test_problem_solving_package_lifts_the_worst_off_party() -> None:
    record = [
        say(1, "Ann", ActKind.STATE, "price", "A"),
        say(2, "Bob", ActKind.STATE, "price", "A"),
        say(3, "Cy", ActKind.STATE, "price", "C"),
        say(4, "Cy", ActKind.STATE, "term", "B"),
        say(5, "Ann", ActKind.STATE, "term", "A"),
        say(6, "Bob", ActKind.OBJECT, "term", "B"),
    ]
    current = {
        "price": consensus_option(view(record), "price"),
        "term": consensus_option(view(record), "term"),
    }
    assert current == {"price": "A", "term": "A"}
    # Standings (+1 own stated option, -1 objected) under the majority package (A, A): Ann 2, Bob 1, Cy 0.
    # Without Bob's objection, (A, B) gives Ann 1, Bob 1, Cy 1: the worst-off party rises from 0 to 1.
    assert worst_off_package(view(record[:5])) == {"price": "A", "term": "B", "staff": "A"}
    # With it, every package leaves someone at 0 or below: nothing lifts the worst-off party.
    assert worst_off_package(view(record)) is None


def test_create_mediator_by_name() -> None:
    assert isinstance(create_mediator("NoAgent"), NoAgentMediator)
    social = create_mediator("social", threshold=2.0)
    assert isinstance(social, SocialMediator) and social.threshold == 2.0
    with pytest.raises(ScenarioError, match="unknown mediator 'wise'"):
        create_mediator("wise")
