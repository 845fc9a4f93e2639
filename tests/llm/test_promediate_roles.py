"""The ProMediate LLM roles on recorded replies (parsing, repair, re-ask, twin fallback, guards), a
golden LLM-backed conversation replayed byte for byte, and `parley mediate` with --record/--replay."""

from __future__ import annotations

import itertools
import json
from collections.abc import Mapping
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from promediate_stub import scripted_reply, stub_policy
from role_support import OFFLINE, GoldenRecording, fallbacks, fixture_cases, scripted
from typer.testing import CliRunner

from parley.cli.app import app
from parley.llm import EventLoopThread, LLMSession
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
    run_conversation,
)
from parley.simulation.conversation import initial_attitudes, public_options, simulated_participants
from parley.testing import FakeLLM, StubServer, check_mediator

FIXTURES = Path(__file__).parent / "fixtures" / "promediate"
GOLDEN = Path(__file__).parent / "golden" / "promediate"
PRICING, TERM, FORMULARY = "Discount Pricing Schedule", "Contract Term", "Formulary Status"


def cases(name: str) -> list[dict[str, Any]]:
    return fixture_cases(FIXTURES, name)


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
    audit = [e.data for e in llm.events if e.kind == "mediator_candidates"]
    assert len(audit) == 1 and audit[0]["rated_by"] == ("rubric" if expect["fallbacks"] else "model")
    assert audit[0]["candidates"][audit[0]["delivered"]]["text"] == utterance.text


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


def test_llm_consensus_and_mi_over_a_recorded_conversation(bridge: EventLoopThread) -> None:
    """Algorithm 1 replayed with the LLM extractor and scorer, and MI judged, over a finished run."""
    scenario = hmo()
    result = run_conversation(scenario, SocialMediator(), mode=ConflictMode.COMPETING, seed=1, max_turns=20)
    record = read_record(result.trajectory)
    fake = fake_for(scenario)
    llm = LLMSession(fake, bridge=bridge)

    extractor = LLMAttitudeExtractor(llm, record.options)
    series = consensus_series(record, extractor, LLMAgreementScorer(llm))
    judged = LLMIntelligenceJudge(llm).judge_all(record)

    assert fallbacks(llm) == 0 and len(series.group) == len(record.turns) + 1
    assert all(0.0 <= v <= 1.0 for v in series.group)
    assert series.group != consensus_series(record).group  # the model's scores, not the rules'
    interventions = [u for u in record.turns if u is not None and u.is_intervention]
    assert len(judged) == len(interventions) > 0
    assert all(j.source == "llm" and j.score.mean == 4.0 for j in judged)
    calls = llm.usage().by_role
    assert set(calls) == {"attitude", "agreement", "intelligence"}
    assert calls["intelligence"].calls == len(interventions)


# -- golden transcript ---------------------------------------------------------------------------------


def golden_conversation(llm: LLMSession) -> str:
    """hmo, competing: Alex and Jamie LLM-backed, Lee rule-based, the LLM social mediator; 12 turns."""
    scenario = hmo()
    players = llm_participants(scenario, llm, mode=ConflictMode.COMPETING, seed=3, names=("Alex", "Jamie"))
    result = run_conversation(
        scenario,
        LLMSocialMediator(llm),
        mode=ConflictMode.COMPETING,
        seed=3,
        participants=players,
        max_turns=12,
    )
    llm.finish(result.trajectory)
    return result.trajectory.to_jsonl()


GOLDEN_RUN = GoldenRecording(
    golden_conversation,
    lambda: stub_policy(hmo()),
    {"default": "participant-model", "mediator": "mediator-model"},
)


def test_golden_conversation_replays_byte_identical(bridge: EventLoopThread) -> None:
    expected = GOLDEN_RUN.check(GOLDEN, bridge, __file__)

    events = [json.loads(line) for line in expected.splitlines()]
    spoken = [e for e in events if e["kind"] in ("utterance", "intervention")]
    assert {e["party"] for e in spoken} == {"Alex", "Jamie", "Lee", MEDIATOR}
    assert any(e["data"]["text"].startswith("On ") for e in spoken if e["party"] in ("Alex", "Jamie"))
    assert all(not private_claims(e["data"]["text"]) for e in spoken if e["party"] == MEDIATOR)
    turns = [e["round"] for e in spoken if e["party"] == MEDIATOR]
    assert turns and all(b - a > 1 for a, b in itertools.pairwise(turns))
    reasons = {e["data"]["reason"] for e in events if e["kind"] == "llm_fallback"}
    assert reasons == {"schema_invalid"}  # Jamie's unknown topic at turn 7, twice: the twin thought instead
    usage = events[-1]
    assert usage["kind"] == "llm_usage" and set(usage["data"]["by_role"]) == {"participant", "mediator"}
    exchanges = (GOLDEN / "recording" / "exchanges.jsonl").read_text("utf-8").splitlines()
    reasked = {
        (
            e["request"]["schema_name"],
            e["request"]["messages"][-1]["content"].split("could not be used: ", 1)[1],
        )
        for e in map(json.loads, exchanges)
        if len(e["request"]["messages"]) > 2
    }
    assert {name for name, _ in reasked} == {"ThoughtsReply", "MotivationReply", "CandidatesReply"}
    assert any("private preferences" in error for _, error in reasked)


def test_record_then_replay_is_byte_identical(tmp_path: Path, bridge: EventLoopThread) -> None:
    live = GOLDEN_RUN.record(tmp_path, bridge)
    assert GOLDEN_RUN.replay(tmp_path / "recording", bridge) == live


# -- CLI ---------------------------------------------------------------------------------------------------


def test_cli_mediate_with_llm_social_mediator_records_then_replays(tmp_path: Path) -> None:
    runner = CliRunner()
    common = [
        "mediate",
        "hmo",
        "--mediator",
        "llm-social",
        "--participants",
        "llm:Alex,Jamie",
        "--mode",
        "competing",
    ]
    common += ["--seed", "2", "--quiet"]
    with StubServer(stub_policy(hmo())) as stub:
        live = runner.invoke(
            app,
            [
                *common,
                "--llm",
                stub.spec("m"),
                "--record",
                str(tmp_path / "rec"),
                "--save",
                str(tmp_path / "live"),
            ],
        )
    assert live.exit_code == 0, live.output
    replayed = runner.invoke(
        app,
        [
            *common,
            "--llm",
            f"{OFFLINE}#m",
            "--replay",
            str(tmp_path / "rec"),
            "--save",
            str(tmp_path / "again"),
        ],
    )
    assert replayed.exit_code == 0, replayed.output
    assert (
        "LLM usage:" in replayed.output and "participant" in replayed.output and "mediator" in replayed.output
    )
    first = (tmp_path / "live" / "trajectory.jsonl").read_text("utf-8")
    assert (tmp_path / "again" / "trajectory.jsonl").read_text("utf-8") == first
    assert '"mediator":"llm-social"' in first and '"kind":"intervention"' in first


def test_cli_mediate_llm_roles_need_an_llm() -> None:
    result = CliRunner().invoke(app, ["mediate", "hmo", "--mediator", "llm-generic", "--quiet"])
    assert result.exit_code == 2 and "no LLM configured" in result.output
    result = CliRunner().invoke(app, ["mediate", "hmo", "--participants", "robots", "--quiet"])
    assert result.exit_code == 2 and "--participants expects" in result.output


def test_cli_mediate_replay_miss_is_an_error(tmp_path: Path) -> None:
    (tmp_path / "rec").mkdir()
    (tmp_path / "rec" / "exchanges.jsonl").write_text("", "utf-8")
    args = ["mediate", "hmo", "--mediator", "llm-social", "--quiet", "--llm", f"{OFFLINE}#m"]
    result = CliRunner().invoke(app, [*args, "--replay", str(tmp_path / "rec")])
    assert result.exit_code == 2 and "replay miss" in result.output


# -- properties ----------------------------------------------------------------------------------------


def json_of(key: str) -> Any:
    def dump(items: list[dict[str, Any]]) -> str:
        return json.dumps({key: items})

    return dump


WORD = st.sampled_from(["Contract Term", "contract", "Parking", "B", "option c", "Jamie", "Alex", "", "E"])
STRATEGY_NAME = st.sampled_from(["facilitative", "evaluative", "transformative", "problem_solving", "shout"])
SAYING = st.sampled_from(
    ["Let us hear Lee.", "Jamie's first choice is B.", "", "Privately, Alex told me A.", "Two years?"]
)
DRAFT = st.fixed_dictionaries(
    {"strategy": STRATEGY_NAME, "text": SAYING},
    optional={
        "topic": WORD,
        "option": WORD,
        "addressee": WORD,
        "package": st.dictionaries(WORD, WORD, max_size=2),
    },
)
MEDIATOR_REPLY = st.one_of(
    st.builds(json_of("candidates"), st.lists(DRAFT, min_size=2, max_size=4)),
    st.text(max_size=40),
)
THOUGHT = st.fixed_dictionaries(
    {
        "act": st.sampled_from([*("state", "propose", "object", "ask", "summarize", "intervene")]),
        "content": SAYING,
    },
    optional={"topic": WORD, "option": WORD, "addressee": WORD},
)
THOUGHTS_REPLY = st.one_of(
    st.builds(json_of("thoughts"), st.lists(THOUGHT, max_size=3)), st.text(max_size=40)
)


@settings(max_examples=60, deadline=None)
@given(replies=st.lists(MEDIATOR_REPLY, min_size=3, max_size=3))
def test_social_intervention_is_always_well_formed_and_discreet(
    replies: list[str], bridge: EventLoopThread
) -> None:
    view = hmo_view(hmo())
    ratings = json.dumps({"scores": [{"candidate": n, "rating": 3.0} for n in (1, 2, 3)]})
    llm = LLMSession(FakeLLM([*replies[:2], ratings, replies[2]]), bridge=bridge)
    utterance = LLMSocialMediator(llm).intervene(view, observed_assessment())
    assert (utterance.speaker, utterance.act, utterance.turn) == (MEDIATOR, ActKind.INTERVENE, 5)
    assert utterance.strategy is not None and utterance.text.strip() and not private_claims(utterance.text)
    assert utterance.topic is None or utterance.topic in view.topics
    for topic, option in {
        **(utterance.package or {}),
        **({utterance.topic: utterance.option} if utterance.option else {}),
    }.items():
        assert option in view.options[topic or ""]


@settings(max_examples=60, deadline=None)
@given(replies=st.lists(THOUGHTS_REPLY, min_size=2, max_size=2))
def test_participant_thought_is_always_a_legal_act(replies: list[str], bridge: EventLoopThread) -> None:
    scenario = hmo()
    view = hmo_view(scenario)
    scores = json.dumps({"scores": [{"thought": n, "motivation": 3.0} for n in (1, 2, 3)][:1]})
    llm = LLMSession(FakeLLM([*replies, scores, scores]), bridge=bridge)
    thought = LLMParticipant(twin_of(scenario, "Alex", view), llm, view.options).think(view)
    if thought is None:
        return
    assert (
        thought.speaker == "Alex"
        and thought.act is not ActKind.INTERVENE
        and 1.0 <= thought.motivation <= 5.0
    )
    assert thought.topic is None or thought.topic in view.topics
    assert thought.option is None or thought.option in view.options[thought.topic or ""]
    assert thought.addressee in (None, "Jamie", "Lee")


def test_cli_mediate_tracks_consensus_live_with_llm_roles(tmp_path: Path) -> None:
    runner = CliRunner()
    args = ["mediate", "hmo", "--mediator", "social", "--consensus", "llm", "--seed", "1", "--quiet"]
    with StubServer(stub_policy(hmo())) as stub:
        result = runner.invoke(app, [*args, "--llm", stub.spec("m"), "--save", str(tmp_path)])
    assert result.exit_code == 0, result.output
    assert "attitude" in result.output and "agreement" in result.output  # the usage table names the roles
    events = [json.loads(line) for line in (tmp_path / "trajectory.jsonl").read_text("utf-8").splitlines()]
    usage = [e for e in events if e["kind"] == "llm_usage"]
    assert usage, "an LLM-tracked run records its usage"
    rule = runner.invoke(app, [*args[:5], "rule", *args[6:]])
    assert rule.exit_code == 0, rule.output


def test_cli_mediate_llm_consensus_needs_an_llm() -> None:
    result = CliRunner().invoke(app, ["mediate", "hmo", "--consensus", "llm", "--quiet"])
    assert result.exit_code != 0
    assert "no LLM configured" in result.output and "--llm SPEC" in result.output
