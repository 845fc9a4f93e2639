"""The ProMediate LLM roles on recorded replies (parsing, repair, re-ask, twin fallback, guards), a
golden LLM-backed conversation replayed byte for byte, and `parley mediate` with --record/--replay."""

from __future__ import annotations

import hashlib
import json
import os
import re
import shutil
from collections.abc import Mapping, Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from parley.cli.app import app
from parley.errors import LLMError
from parley.llm import EventLoopThread, LLMRuntime, LLMSession, LLMSettings
from parley.llm.promediate import (
    LLMAgreementScorer,
    LLMAttitudeExtractor,
    LLMGenericMediator,
    LLMIntelligenceJudge,
    LLMParticipant,
    LLMSocialMediator,
    llm_participants,
    private_claims,
)
from parley.llm.types import LLMRequest
from parley.mediation import (
    MEDIATOR,
    ActKind,
    Assessment,
    Breakdown,
    BreakdownKind,
    ConversationView,
    GenericMediator,
    SocialMediator,
    Strategy,
    Utterance,
)
from parley.metrics.consensus import ConversationRecord, consensus_series, read_record, score_intervention
from parley.scenarios.importers.promediate import load_promediate_case
from parley.scenarios.model import Scenario
from parley.simulation import (
    Attitude,
    ConflictMode,
    RuleAgreementScorer,
    SimulatedParticipant,
    StructuredAttitudeExtractor,
    Thought,
    run_conversation,
)
from parley.simulation.conversation import initial_attitudes, public_options, simulated_participants
from parley.testing import FakeLLM, StubReply, StubServer, check_mediator

FIXTURES = Path(__file__).parent / "fixtures" / "promediate"
GOLDEN = Path(__file__).parent / "golden" / "promediate"
OFFLINE = "http://127.0.0.1:9/v1"  # replays never connect; only the model names matter
PRICING, TERM, FORMULARY = "Discount Pricing Schedule", "Contract Term", "Formulary Status"


def cases(name: str) -> list[dict[str, Any]]:
    return json.loads((FIXTURES / f"{name}.json").read_text("utf-8"))


def scripted(replies: Sequence[Any]) -> FakeLLM:
    """Strings are sent as they are, objects as JSON, {"__error__": ...} as an endpoint failure."""
    script: list[str | Exception] = []
    for reply in replies:
        if isinstance(reply, dict) and "__error__" in reply:
            script.append(LLMError(str(reply["__error__"])))  # pyright: ignore[reportUnknownArgumentType]
        else:
            script.append(reply if isinstance(reply, str) else json.dumps(reply))
    return FakeLLM(script)


def fallbacks(llm: LLMSession) -> int:
    return sum(1 for e in llm.events if e.kind == "llm_fallback")


def hmo() -> Scenario:
    return load_promediate_case("hmo")


def hmo_view(case: Scenario, turn: int = 5) -> ConversationView:
    """Alex and Jamie split on pricing (Jamie objecting, irritated); Lee on the formulary."""
    said = (
        Utterance(
            1, "Alex", ActKind.STATE, PRICING, "A", tone=0.1, text="We should go with option A on pricing."
        ),
        Utterance(
            2, "Jamie", ActKind.OBJECT, PRICING, "A", None, "Alex", -0.5, None, "A does not work, Alex."
        ),
        Utterance(
            3, "Lee", ActKind.STATE, FORMULARY, "A", tone=0.0, text="An open formulary is what we need."
        ),
        Utterance(4, "Jamie", ActKind.STATE, PRICING, "B", tone=-0.4, text="Pricing has to be B."),
    )
    options = public_options(case)
    return ConversationView(case.space.names, options, case.party_names, turn, 38, said[: turn - 1])


def twin_of(case: Scenario, name: str, view: ConversationView) -> SimulatedParticipant:
    """The deterministic participant for name, having heard the view's utterances."""
    twin = simulated_participants(case, ConflictMode.GENERAL, 0)[name]
    assert isinstance(twin, SimulatedParticipant)
    for utterance in view.utterances:
        twin.observe(utterance)
    return twin


# -- participant -------------------------------------------------------------------------------------


@pytest.mark.parametrize("case", cases("participant_think"), ids=lambda c: c["name"])
def test_participant_thinks(case: dict[str, Any], bridge: EventLoopThread) -> None:
    scenario = hmo()
    view = hmo_view(scenario)
    fake = scripted(case["replies"])
    llm = LLMSession(fake, bridge=bridge)
    participant = LLMParticipant(twin_of(scenario, "Alex", view), llm, view.options)

    thought = participant.think(view)

    expect = case["expect"]
    assert len(fake.requests) == expect["calls"]
    assert (fallbacks(llm) == 1) is expect["fallback"]
    if expect["source"] == "none":
        assert thought is None
    elif expect["source"] == "twin":
        assert thought == twin_of(scenario, "Alex", view).think(view)
        assert participant.trace[-1]["source"] == "twin"
    else:
        assert thought is not None
        got = (thought.act.value, thought.topic, thought.option, thought.addressee, thought.motivation)
        assert got == (
            expect["act"],
            expect["topic"],
            expect["option"],
            expect["addressee"],
            expect["motivation"],
        )


@pytest.mark.parametrize("case", cases("participant_speak"), ids=lambda c: c["name"])
def test_participant_speaks(case: dict[str, Any], bridge: EventLoopThread) -> None:
    scenario = hmo()
    view = hmo_view(scenario)
    draft = case["thought"]
    thoughts = {"thoughts": [draft]}
    fake = scripted([thoughts, {"scores": [{"thought": 1, "motivation": 4.0}]}, *case["replies"]])
    llm = LLMSession(fake, bridge=bridge)
    participant = LLMParticipant(twin_of(scenario, "Alex", view), llm, view.options)
    thought = participant.think(view)
    assert thought is not None

    utterance = participant.speak(thought, view)

    expect = case["expect"]
    assert len(fake.requests) == 2 + expect["calls"]
    assert (fallbacks(llm) == 1) is expect["fallback"]
    assert (utterance.turn, utterance.speaker, utterance.act.value) == (5, "Alex", draft["act"])
    if expect["source"] == "twin":
        assert utterance == twin_of(scenario, "Alex", view).speak(thought, view)
    else:
        got = (utterance.text, utterance.tone, dict(utterance.package) if utterance.package else None)
        assert got == (expect["text"], expect["tone"], expect["package"])


def test_participant_prompt_opens_with_its_own_private_block_only(bridge: EventLoopThread) -> None:
    scenario = hmo()
    view = hmo_view(scenario)
    prompts: list[str] = []
    for order in (scenario.parties, scenario.parties[::-1]):
        # Give Jamie and Lee each other's preferences: Alex's prompt must not change.
        utilities = {p.name: p.utility for p in scenario.parties}
        swapped = {"Alex": utilities["Alex"], "Jamie": utilities["Lee"], "Lee": utilities["Jamie"]}
        parties = tuple(replace(p, utility=swapped[p.name]) for p in scenario.parties)
        changed = replace(scenario, parties=parties) if order is not scenario.parties else scenario
        fake = FakeLLM(['{"thoughts": []}'])
        LLMParticipant(twin_of(changed, "Alex", view), LLMSession(fake, bridge=bridge), view.options).think(
            view
        )
        prompts.append("\n".join(m.content for m in fake.requests[0].messages))
    system = prompts[0].split("\n", 1)
    assert system[0] == "PRIVATE TO Alex. Nobody else sees this block."
    assert f"- {FORMULARY} [importance" in system[1].split("How you negotiate")[0]
    assert "cannot accept A (open formulary)" in prompts[0]
    assert prompts[0] == prompts[1]


def test_llm_participants_replace_only_the_named_parties(bridge: EventLoopThread) -> None:
    scenario = hmo()
    players = llm_participants(scenario, LLMSession(FakeLLM([]), bridge=bridge), names=["Jamie"], seed=4)
    assert isinstance(players["Jamie"], LLMParticipant)
    assert isinstance(players["Alex"], SimulatedParticipant) and isinstance(
        players["Lee"], SimulatedParticipant
    )
    with pytest.raises(Exception, match="no parties"):
        llm_participants(scenario, LLMSession(FakeLLM([]), bridge=bridge), names=["Morgan"])


# -- mediators ---------------------------------------------------------------------------------------


def observed_assessment() -> Assessment:
    breakdowns = (
        Breakdown(BreakdownKind.PERCEPTUAL, ("Jamie", "Alex"), PRICING, 0.7, "Alex A, Jamie B"),
        Breakdown(BreakdownKind.EMOTIONAL, ("Jamie",), None, 0.4, "Jamie irritated"),
    )
    return Assessment(True, 4.3, ("split on pricing",), breakdowns)


@pytest.mark.parametrize("case", cases("social_assess"), ids=lambda c: c["name"])
def test_social_mediator_assesses(case: dict[str, Any], bridge: EventLoopThread) -> None:
    view = hmo_view(hmo())
    fake = scripted(case["replies"])
    llm = LLMSession(fake, bridge=bridge)

    assessment = LLMSocialMediator(llm).assess(view)

    expect = case["expect"]
    assert len(fake.requests) == expect["calls"] and (fallbacks(llm) == 1) is expect["fallback"]
    if expect["source"] == "twin":
        assert assessment == SocialMediator().assess(view)
        return
    assert (assessment.intervene, assessment.motivation) == (expect["intervene"], expect["motivation"])
    assert [b.kind.value for b in assessment.breakdowns] == expect["kinds"]
    assert [list(b.parties) for b in assessment.breakdowns] == expect["parties"]
    assert [b.topic for b in assessment.breakdowns] == expect["topics"]


@pytest.mark.parametrize("case", cases("social_intervene"), ids=lambda c: c["name"])
def test_social_mediator_intervenes(case: dict[str, Any], bridge: EventLoopThread) -> None:
    view = hmo_view(hmo())
    fake = scripted(case["replies"])
    llm = LLMSession(fake, bridge=bridge)

    utterance = LLMSocialMediator(llm).intervene(view, observed_assessment())

    expect = case["expect"]
    assert len(fake.requests) == expect["calls"] and fallbacks(llm) == expect["fallbacks"]
    assert (utterance.turn, utterance.speaker, utterance.act) == (5, MEDIATOR, ActKind.INTERVENE)
    assert private_claims(utterance.text) == []
    if expect["source"] == "twin":
        twin = SocialMediator()
        assert utterance == twin.intervene(view, twin.assess(view))
        return
    got = (
        utterance.strategy,
        utterance.topic,
        utterance.option,
        dict(utterance.package) if utterance.package else None,
        utterance.addressee,
        utterance.text,
    )
    expected = (Strategy(expect["strategy"]), expect["topic"], expect["option"], expect["package"])
    assert got == (*expected, expect["addressee"], expect["text"])


@pytest.mark.parametrize("case", cases("generic_assess"), ids=lambda c: c["name"])
def test_generic_mediator_assesses(case: dict[str, Any], bridge: EventLoopThread) -> None:
    view = hmo_view(hmo())
    fake = scripted(case["replies"])
    llm = LLMSession(fake, bridge=bridge)
    assessment = LLMGenericMediator(llm).assess(view)
    expect = case["expect"]
    assert len(fake.requests) == expect["calls"] and (fallbacks(llm) == 1) is expect["fallback"]
    if expect["source"] == "twin":
        assert assessment == GenericMediator().assess(view)
    else:
        assert (assessment.intervene, assessment.motivation) == (expect["intervene"], expect["motivation"])


@pytest.mark.parametrize("case", cases("generic_intervene"), ids=lambda c: c["name"])
def test_generic_mediator_intervenes(case: dict[str, Any], bridge: EventLoopThread) -> None:
    view = hmo_view(hmo())
    fake = scripted(case["replies"])
    llm = LLMSession(fake, bridge=bridge)
    utterance = LLMGenericMediator(llm).intervene(view, Assessment(True, 4.0, ("disagreement",)))
    expect = case["expect"]
    assert len(fake.requests) == expect["calls"] and (fallbacks(llm) == 1) is expect["fallback"]
    if expect["source"] == "twin":
        twin = GenericMediator()
        assert utterance == twin.intervene(view, twin.assess(view))
    else:
        got = (utterance.strategy, utterance.topic, utterance.option, utterance.text)
        assert got == (Strategy(expect["strategy"]), expect["topic"], expect["option"], expect["text"])


@pytest.mark.parametrize("mediator", [LLMGenericMediator, LLMSocialMediator])
def test_mediator_never_speaks_twice_in_a_row_and_waits_without_asking(
    mediator: type[LLMGenericMediator] | type[LLMSocialMediator], bridge: EventLoopThread
) -> None:
    view = hmo_view(hmo())
    spoke = Utterance(
        5, MEDIATOR, ActKind.INTERVENE, PRICING, strategy=Strategy.FACILITATIVE, text="Let us pause."
    )
    after = replace(view, turn=6, utterances=(*view.utterances, spoke))
    fake = FakeLLM([])
    assessment = mediator(LLMSession(fake, bridge=bridge)).assess(after)
    assert not assessment.intervene and fake.requests == []
    if mediator is LLMSocialMediator:
        heard = Utterance(6, "Lee", ActKind.STATE, PRICING, "A", text="A, please.")
        cooling = replace(view, turn=7, utterances=(*after.utterances, heard))
        assert not mediator(LLMSession(fake, bridge=bridge)).assess(cooling).intervene and fake.requests == []


def scripted_reply(scenario: Scenario, schema: str, messages: Sequence[Mapping[str, str]]) -> str:
    """A well-formed reply to any ProMediate role request, as a function of the request only.

    It misbehaves on purpose at fixed points (broken JSON, a private-preference claim, an unknown
    topic twice, an out-of-range score) so the golden transcript exercises repair, re-ask and the
    twin fallback as well.
    """
    system, user = messages[0]["content"], messages[1]["content"]
    first_ask = len(messages) == 2
    found = re.search(r"Turn (\d+) of", user)
    turn = int(found.group(1)) if found else 0
    pick = hashlib.sha256(user.encode()).digest()[0]
    topics, options, parties = scenario.space.names, public_options(scenario), scenario.party_names
    if schema == "ThoughtsReply":
        name = system.split()[2].rstrip(".")
        if name == "Jamie" and turn == 7:
            return json.dumps(
                {"thoughts": [{"act": "state", "topic": "Parking", "option": "A", "content": "?"}]}
            )
        first, second = topics[pick % len(topics)], topics[(pick // 7) % len(topics)]
        favourite = re.search(rf"- {re.escape(first)} \[importance \w+\]: ([A-E]) ", system)
        option = favourite.group(1) if favourite else next(iter(options[first]))
        other = [p for p in parties if p != name][pick % 2]
        thoughts = [
            {"act": "state", "topic": first, "option": option, "content": f"{option} on {first} matters."},
            {
                "act": "propose",
                "topic": second.lower(),
                "option": list(options[second])[-1],
                "content": "A way out.",
            },
            {"act": "ask", "topic": first, "addressee": other, "content": "Ask what they need."},
        ]
        text = json.dumps({"thoughts": thoughts})
        return f"```json\n{text[:-1]},}}\n```" if turn == 2 and first_ask else text
    if schema == "MotivationReply":
        high = 6.0 if turn == 3 and first_ask else 4.9
        return json.dumps(
            {
                "scores": [
                    {"thought": n, "motivation": min(high, 2.0 + ((pick >> n) % 30) / 10)} for n in (1, 2, 3)
                ]
            }
        )
    if schema == "ArticulationReply":
        thought = json.loads(
            user[user.index("{", user.index("Your thought to voice now")) : user.rindex("}") + 1]
        )
        about = f"On {thought['topic']}, " if "topic" in thought else "Taking stock, "
        words = f"I lean to option {thought['option']}." if "option" in thought else "what do you need?"
        return json.dumps({"text": about + words, "tone": round(((pick % 9) - 4) / 10, 2)})
    if schema == "SocialWhenReply":
        if pick % 3:
            return json.dumps({"breakdowns": [], "motivation": 1.5, "reasons": ["flowing"]})
        evidence = {"kind": "perceptual", "parties": list(parties[:2]), "topic": topics[pick % len(topics)]}
        report = evidence | {"severity": 0.8, "evidence": "they stand apart"}
        return json.dumps({"breakdowns": [report], "motivation": 4.4, "reasons": ["parties stand apart"]})
    if schema == "CandidatesReply":
        topic = re.search(r"topic ([^;)]+)\)", user)
        about = topic.group(1) if topic and topic.group(1) in topics else topics[0]
        letter = next(iter(options[about]))
        leak = "Alex's first choice is known to me. " if first_ask and pick % 2 else ""
        candidates = [
            {
                "strategy": "facilitative",
                "topic": about,
                "text": f"{leak}{parties[0]}, what matters on {about}?",
            },
            {
                "strategy": "evaluative",
                "topic": about,
                "option": letter,
                "text": f"{letter} on {about} looks closest.",
            },
            {
                "strategy": "problem_solving",
                "package": {about: letter},
                "text": f"{parties[1]}, try {letter}?",
            },
        ]
        return json.dumps({"candidates": candidates})
    if schema == "ScoresReply":
        return json.dumps(
            {"scores": [{"candidate": n, "rating": 2.0 + ((pick >> n) % 30) / 10} for n in (1, 2, 3)]}
        )
    if schema == "WhenReply":
        return json.dumps({"engage": pick % 4 == 0, "motivation": 4.0 if pick % 4 == 0 else 1.2})
    if schema == "InterventionDraft":
        return json.dumps(
            {
                "strategy": "facilitative",
                "topic": topics[pick % len(topics)],
                "text": "Shall we hear everyone?",
            }
        )
    raise AssertionError(f"unexpected schema {schema}")


def fake_for(scenario: Scenario) -> FakeLLM:
    def answer(request: LLMRequest) -> str:
        messages = [{"role": m.role, "content": m.content} for m in request.messages]
        return scripted_reply(scenario, request.schema_name or "", messages)

    return FakeLLM(answer)


@pytest.mark.parametrize("mediator", [LLMGenericMediator, LLMSocialMediator])
def test_llm_mediators_pass_the_conformance_checks(
    mediator: type[LLMGenericMediator] | type[LLMSocialMediator], bridge: EventLoopThread
) -> None:
    """Public record only (private preferences rotated: same decisions), deterministic, well formed,
    never twice in a row — with the prompts built by the real code and answered by a fake model."""
    scenario = hmo()
    report = check_mediator(
        lambda seed: mediator(LLMSession(fake_for(scenario), bridge=bridge)), scenarios=[scenario], seeds=(0,)
    )
    assert report.interventions > 0


def test_private_claims_are_caught() -> None:
    assert private_claims("Lee's first choice is A and Jamie's bottom line is B.") == [
        "bottom line",
        "first choice",
    ]
    assert private_claims("Jamie told me privately she ranks B highest.") == ["privately", "told me"]
    assert private_claims("Alex and Jamie both said B on pricing; can we settle there?") == []


# -- consensus and MI ----------------------------------------------------------------------------------


@pytest.mark.parametrize("case", cases("attitude"), ids=lambda c: c["name"])
def test_attitude_extraction(case: dict[str, Any], bridge: EventLoopThread) -> None:
    scenario = hmo()
    previous = initial_attitudes(scenario)["Alex"]
    utterance = Utterance(6, "Alex", ActKind.STATE, TERM, "B", tone=0.0, text=case["text"])
    fake = scripted(case["replies"])
    llm = LLMSession(fake, bridge=bridge)

    found = LLMAttitudeExtractor(llm, public_options(scenario)).extract(utterance, previous)

    expect = case["expect"]
    assert len(fake.requests) == expect["calls"] and (fallbacks(llm) == 1) is expect["fallback"]
    if expect["source"] == "twin":
        assert found == StructuredAttitudeExtractor().extract(utterance, previous)
    else:
        assert {t: a.to_json() for t, a in found.items()} == expect["attitudes"]
    assert case["text"] in fake.requests[0].messages[1].content


def attitude(data: Mapping[str, Any]) -> Attitude:
    accepts, rejects = frozenset(data["accepts"]), frozenset(data["rejects"])
    return Attitude(data["position"], accepts, rejects, data["tone"], data["openness"], data["engaged"])


@pytest.mark.parametrize("case", cases("agreement"), ids=lambda c: c["name"])
def test_agreement_scoring(case: dict[str, Any], bridge: EventLoopThread) -> None:
    first, second = attitude(case["first"]), attitude(case["second"])
    fake = scripted(case["replies"])
    llm = LLMSession(fake, bridge=bridge)
    scorer = LLMAgreementScorer(llm)

    scores = scorer.score(first, second)

    expect = case["expect"]
    assert len(fake.requests) == expect["calls"] and (fallbacks(llm) == 1) is expect["fallback"]
    expected = (
        RuleAgreementScorer().score(first, second) if expect["source"] == "twin" else tuple(expect["scores"])
    )
    assert scores == expected and all(0.0 <= s <= 1.0 for s in scores)
    assert (
        scorer.score(first, second) == scores and len(fake.requests) == expect["calls"]
    )  # asked once per pair


def record_with_intervention(scenario: Scenario) -> tuple[ConversationRecord, Utterance]:
    """The hmo view's four utterances, then an evaluative intervention at turn 5."""
    said = hmo_view(scenario).utterances
    mediator = Utterance(
        5, MEDIATOR, ActKind.INTERVENE, PRICING, "C", None, None, 0.5, Strategy.EVALUATIVE, "C?"
    )
    record = ConversationRecord(
        scenario.party_names,
        scenario.space.names,
        public_options(scenario),
        38,
        initial_attitudes(scenario),
        (*said, mediator),
        tuple(float(t) for t in range(6)),
    )
    return record, mediator


@pytest.mark.parametrize("case", cases("intelligence"), ids=lambda c: c["name"])
def test_intelligence_judge(case: dict[str, Any], bridge: EventLoopThread) -> None:
    scenario = hmo()
    record, mediator = record_with_intervention(scenario)
    fake = scripted(case["replies"])
    llm = LLMSession(fake, bridge=bridge)

    judged = LLMIntelligenceJudge(llm).judge(record, mediator)

    expect = case["expect"]
    assert len(fake.requests) == expect["calls"] and (fallbacks(llm) == 1) is expect["fallback"]
    assert judged.source == expect["source"]
    if expect["source"] == "rubric":
        assert judged.score == score_intervention(record, mediator)
    else:
        assert dict(judged.score.dimensions) == expect["dimensions"] and judged.score.mean == expect["mean"]
    prompt = fake.requests[0].messages[1].content
    assert "Pricing has to be B." in prompt and "C?" in prompt
