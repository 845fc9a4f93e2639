"""ASTRA's LLM stages on recorded replies (parsing, repair, re-ask, twin fallback), the ``astra-llm``
agent under the conformance checks and arbitrary replies, a golden CaSiNo negotiation replayed byte
for byte, and `parley run` with --record/--replay."""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from role_support import OFFLINE, GoldenRecording, fallbacks, fixture_cases, scripted
from typer.testing import CliRunner

from parley.agents import create
from parley.agents.astra.opponent import collect_evidence, linear_tables
from parley.agents.astra.selection import NegotiationPhase, Tactic, TacticContext
from parley.agents.astra.signals import Fairness, Stance
from parley.agents.astra.stages import (
    Candidate,
    IPPVirtualPartner,
    PartnerSituation,
    RuleInterpreter,
    RuleTacticAssessor,
    TitForTatParameters,
)
from parley.cli.app import app
from parley.cli.llm import llm_options_from_cli, wire_llm
from parley.domain.issues import Value
from parley.errors import ScenarioError
from parley.experiments.runner import run_negotiation
from parley.llm import EventLoopThread, LLMRequest, LLMRuntime, LLMSession
from parley.llm.astra import (
    AstraLLMNegotiator,
    LLMParameterChooser,
    LLMPreferenceInterpreter,
    LLMTacticAssessor,
    LLMVirtualPartner,
    StageContext,
    ranking_to_scores,
)
from parley.protocol import Negotiator
from parley.protocol.events import Event
from parley.protocol.rules import Rules
from parley.protocol.view import PartyView, Phase, Record, TableOffer
from parley.scenarios.catalog import load_scenario
from parley.scenarios.model import Scenario
from parley.testing import FakeLLM, StubReply, StubServer, check_negotiator
from parley.testing.conformance import CHECKS

FIXTURES = Path(__file__).parent / "fixtures" / "astra"
GOLDEN = Path(__file__).parent / "golden" / "astra"
FREE_TEXT = "I'd rather have all the firewood and two waters; you keep every food package."


def cases(name: str) -> list[dict[str, Any]]:
    return fixture_cases(FIXTURES, name)


def casino() -> Scenario:
    return load_scenario("casino")


def casino_view() -> PartyView:
    """A's view at round 3: it asked, B answered in free text, A proposed, B countered with words."""
    scenario = casino()
    ask = {
        "kind": "say",
        "message": "Which issues matter most to you?",
        "priorities": [],
        "asks_priorities": True,
    }
    answer = {"kind": "say", "message": "Firewood, clearly. Nights are cold.", "priorities": []}
    mine = {
        "kind": "propose",
        "package": {"food": 3, "water": 3, "firewood": 1},
        "message": "How about this?",
    }
    countered: dict[str, Value] = {"food": 1, "water": 1, "firewood": 0}
    theirs = {"kind": "propose", "package": countered, "message": FREE_TEXT}
    events = [
        Event(0, "action", 1, "A", ask),
        Event(1, "action", 1, "B", answer | {"asks_priorities": False}),
        Event(2, "action", 2, "A", mine),
        Event(3, "action", 2, "B", theirs),
    ]
    table = TableOffer(countered, "B", frozenset({"B"}), 2)
    return PartyView(
        "A",
        scenario.party_names,
        3,
        Phase.RESPOND,
        scenario.space,
        scenario.party("A").utility,
        Rules(max_rounds=20),
        table,
        Record(events),
        {},
    )


def started(view: PartyView) -> StageContext:
    context = StageContext(view.party)
    context.begin(view)
    return context


def interpret_twin(view: PartyView) -> Any:
    return RuleInterpreter().interpret(view.space, linear_tables(view.utility), collect_evidence(view), 5.0)


# -- the four stages on recorded replies ------------------------------------------------------------------


@pytest.mark.parametrize("case", cases("interpreter"), ids=lambda c: c["name"])
def test_interpreter(case: dict[str, Any], bridge: EventLoopThread) -> None:
    view = casino_view()
    fake = scripted(case["replies"])
    llm = LLMSession(fake, bridge=bridge)
    context = started(view)
    stage = LLMPreferenceInterpreter(context, llm)

    reading = stage.read(view.space, linear_tables(view.utility))
    model = stage.interpret(view.space, linear_tables(view.utility), collect_evidence(view), 5.0)

    expect = case["expect"]
    assert len(fake.requests) == expect["calls"]  # the second read of the same moves is memoised
    assert (fallbacks(llm) == 1) is expect["fallback"]
    assert FREE_TEXT in fake.requests[0].messages[1].content
    if expect["source"] == "twin":
        assert reading is None and model.to_json() == interpret_twin(view).to_json()
        return
    assert reading is not None and list(reading.priorities) == expect["priorities"]
    offer = None if reading.offer is None else dict(view.space.from_indices(reading.offer))
    assert offer == expect["offer"]
    if expect["priorities"]:
        assert (
            model.source == "stated"
            and list(model.order[: len(expect["priorities"])]) == expect["priorities"]
        )
    assert context.model is model


def test_interpreter_makes_no_call_before_the_partner_moves(bridge: EventLoopThread) -> None:
    view = casino_view()
    first = PartyView(
        "A", view.parties, 1, Phase.PROPOSE, view.space, view.utility, view.rules, None, Record([]), {}
    )
    fake = FakeLLM([])
    stage = LLMPreferenceInterpreter(started(first), LLMSession(fake, bridge=bridge))
    model = stage.interpret(first.space, linear_tables(first.utility), collect_evidence(first), 5.0)
    assert fake.requests == [] and model.source == "assumed-opposite"


@pytest.mark.parametrize("case", cases("parameters"), ids=lambda c: c["name"])
def test_parameter_chooser(case: dict[str, Any], bridge: EventLoopThread) -> None:
    view = casino_view()
    fake = scripted(case["replies"])
    llm = LLMSession(fake, bridge=bridge)
    signals = (Fairness.UNFAIR, Stance.GENEROUS, 31.0, NegotiationPhase.EARLY)

    choice = LLMParameterChooser(started(view), llm).choose(*signals)

    expect = case["expect"]
    assert len(fake.requests) == expect["calls"] and (fallbacks(llm) == 1) is expect["fallback"]
    assert "between 5.0 (my walk-away alternative) and 36 points" in fake.requests[0].messages[1].content
    if expect["source"] == "twin":
        assert choice == TitForTatParameters().choose(*signals)
    else:
        assert (choice.lambda_, choice.s_max) == (expect["lambda"], expect["s_max"])
        assert choice.reason.startswith("model: ")


def candidate_and_situation(view: PartyView) -> tuple[Candidate, PartnerSituation]:
    return Candidate((3, 2, 0), 23.0, 19.0), PartnerSituation(13.0, (1, 1, 0), view.space.shape)


@pytest.mark.parametrize("case", cases("virtual_partner"), ids=lambda c: c["name"])
def test_virtual_partner(case: dict[str, Any], bridge: EventLoopThread) -> None:
    view = casino_view()
    fake = scripted(case["replies"])
    llm = LLMSession(fake, bridge=bridge)
    context = started(view)
    context.model = interpret_twin(view)
    candidate, situation = candidate_and_situation(view)

    estimate = LLMVirtualPartner(context, llm, samples=case["samples"]).assess(candidate, situation)

    expect = case["expect"]
    assert len(fake.requests) == expect["calls"] and fallbacks(llm) == expect["fallbacks"]
    prompt = fake.requests[0].messages[1].content
    assert '{"food": 3, "water": 2, "firewood": 0}' in prompt and "It gives you 19.0 points" in prompt
    assert ("Independent judgement 1 of 3." in prompt) is (case["samples"] == 3)
    if expect["source"] == "twin":
        assert estimate == IPPVirtualPartner().assess(candidate, situation)
    else:
        got = (estimate.total_score, estimate.strategic_intermediary)
        assert got == pytest.approx((expect["total_score"], expect["strategic_intermediary"]))


def tactic_context() -> TacticContext:
    return TacticContext(
        fairness=Fairness.UNFAIR,
        stance=Stance.GENEROUS,
        phase=NegotiationPhase.MIDDLE,
        partner_offers=2,
        own_offers=2,
        partner_concession=3.0,
        partner_concessions=(3.0,),
        own_last_concession=2.0,
        own_conceded=True,
        partner_offer_partner_points=27.0,
        partner_offer_agent_points=9.0,
        previous_agent_points=31.0,
    )


@pytest.mark.parametrize("case", cases("tactic"), ids=lambda c: c["name"])
def test_tactic_choice(case: dict[str, Any], bridge: EventLoopThread) -> None:
    fake = scripted(case["replies"])
    llm = LLMSession(fake, bridge=bridge)

    stage = LLMTacticAssessor(started(casino_view()), llm, samples=case["samples"])
    tactic, reason = stage.choose(tactic_context())

    expect = case["expect"]
    assert len(fake.requests) == expect["calls"] and (fallbacks(llm) == 1) is expect["fallback"]
    assert "- LGR (collaborative): logrolling." in fake.requests[0].messages[0].content
    if expect["source"] == "twin":
        assert (tactic, reason) == RuleTacticAssessor().choose(tactic_context())
    else:
        assert tactic is Tactic(expect["tactic"]) and reason.startswith("model: ")
        assert reason.endswith("(2 of 3 votes)") is (case["samples"] == 3)


CANDIDATES = (
    Candidate((3, 3, 0), 27.0, 15.0),
    Candidate((3, 2, 0), 23.0, 19.0),
    Candidate((2, 2, 1), 21.0, 18.0),
)


@pytest.mark.parametrize("case", cases("ranking"), ids=lambda c: c["name"])
def test_strategy_ranking(case: dict[str, Any], bridge: EventLoopThread) -> None:
    fake = scripted(case["replies"])
    llm = LLMSession(fake, bridge=bridge)
    tactic = Tactic.RECIPROCAL_CONCESSIONS

    stage = LLMTacticAssessor(started(casino_view()), llm, samples=case["samples"])
    scores = stage.strategy_scores(tactic, CANDIDATES, tactic_context())

    expect = case["expect"]
    assert len(fake.requests) == expect["calls"] and (fallbacks(llm) == 1) is expect["fallback"]
    assert (
        '3. {"food": 2, "water": 2, "firewood": 1} — 21.0 points for me'
        in fake.requests[0].messages[1].content
    )
    twin = RuleTacticAssessor().strategy_scores(tactic, CANDIDATES, tactic_context())
    assert scores == (twin if expect["source"] == "twin" else expect["scores"])


def test_one_candidate_needs_no_ranking_call(bridge: EventLoopThread) -> None:
    fake = FakeLLM([])
    stage = LLMTacticAssessor(started(casino_view()), LLMSession(fake, bridge=bridge))
    assert stage.strategy_scores(Tactic.LOGROLLING, CANDIDATES[:1], tactic_context()) == [1.0]
    assert fake.requests == [] and ranking_to_scores([2, 1]) == [0.0, 1.0]


# -- the agent ---------------------------------------------------------------------------------------------


def scripted_model(request: LLMRequest) -> str:
    """A well-formed answer to every ASTRA stage, as a function of the request only."""
    return json.dumps(scripted_answer(request.schema_name or "", request.messages[1].content))


def scripted_answer(schema: str, user: str) -> dict[str, Any]:
    issues = re.findall(r"^- (\w+)[ :]", user, re.MULTILINE)
    if schema == "InterpretationReply":
        return {"priorities": issues[::-1][:2], "offer": None, "reason": "read from the messages"}
    if schema == "ParametersReply":
        floor = float(re.search(r"between ([\d.]+)", user).group(1))  # type: ignore[union-attr]
        previous = re.search(r"My previous offer: ([\d.]+) points", user)
        top = float(previous.group(1)) - 1 if previous else 36.0
        return {"lambda": 0.7, "s_max": max(floor, top), "reason": "reciprocate a little"}
    if schema == "PartnerEstimateReply":
        points = float(re.search(r"It gives you ([\d.]+) points", user).group(1))  # type: ignore[union-attr]
        return {"total_score": round(points / 3.6, 1), "strategic_intermediary": 5}
    if schema == "TacticReply":
        return {"tactic": "LGR" if "stance: generous" in user else "RNC", "reason": "signals"}
    if schema == "RankingReply":
        count = int(re.search(r"Rank all (\d+)", user).group(1))  # type: ignore[union-attr]
        return {"ranking": list(range(count, 0, -1))}
    raise AssertionError(f"unexpected schema {schema}")


@pytest.fixture
def own_bridge() -> Any:
    thread = EventLoopThread("parley-astra-llm-conformance")
    yield thread
    thread.close()


def test_astra_llm_conforms(own_bridge: EventLoopThread) -> None:
    def factory(party: str, seed: int) -> Negotiator:
        return create(
            "astra-llm", party=party, seed=seed, llm=LLMSession(FakeLLM(scripted_model), bridge=own_bridge)
        )

    report = check_negotiator(factory)
    assert report.checks == CHECKS and report.moves > 0


def test_astra_llm_plays_casino_and_explains_its_stages(bridge: EventLoopThread) -> None:
    llm = LLMSession(FakeLLM(scripted_model), bridge=bridge)
    # (no floor from ASTRA's deadline curve: on 64 outcomes it leaves stage 3 one candidate to rank)
    astra = create("astra-llm", party="A", seed=0, llm=llm, aspiration_slack=None)
    agents = {"A": astra, "B": create("base", party="B", seed=1)}
    result = run_negotiation(casino(), agents, seed=0)
    llm.finish(result.trajectory)
    traces = [e.data for e in result.trajectory if e.kind == "trace" and e.party == "A"]
    proposing = [t for t in traces if t["llm"].get("parameters")]
    assert proposing and all(t["llm"]["parameters"] == "llm" for t in proposing)
    assert {"interpreter", "virtual_partner", "tactic", "ranking"} <= {k for t in proposing for k in t["llm"]}
    usage = result.trajectory.of_kind("llm_usage")[-1].data
    assert set(usage["by_role"]) == {"astra_interpreter", "astra_parameters", "astra_partner", "astra_tactic"}
    assert usage["total"]["fallbacks"] == 0


def test_astra_llm_options_and_errors(bridge: EventLoopThread) -> None:
    with pytest.raises(ScenarioError, match="needs an LLM"):
        create("astra-llm", party="A", seed=0)
    llm = LLMSession(FakeLLM([]), bridge=bridge)
    with pytest.raises(ScenarioError, match="unknown ASTRA stage"):
        create("astra-llm", party="A", seed=0, llm=llm, stages="interpreter,judge")
    with pytest.raises(ScenarioError, match="samples"):
        create("astra-llm", party="A", seed=0, llm=llm, samples=0)
    with pytest.raises(ScenarioError, match="tactic_samples"):
        create("astra-llm", party="A", seed=0, llm=llm, tactic_samples=0)
    agent = create("astra-llm", party="A", seed=0, llm=llm, stages="parameters", top_n=3)
    assert isinstance(agent, AstraLLMNegotiator) and agent.astra.config.top_n == 3
    assert isinstance(agent.astra.parameters, LLMParameterChooser)
    assert isinstance(agent.astra.tactics, RuleTacticAssessor)


def test_llm_virtual_partner_alone_still_sees_the_ipp(bridge: EventLoopThread) -> None:
    fake = FakeLLM(scripted_model)
    llm = LLMSession(fake, bridge=bridge)
    agents = {
        "A": create("astra-llm", party="A", seed=0, llm=llm, stages=["virtual_partner"]),
        "B": create("base", party="B", seed=1),
    }
    run_negotiation(casino(), agents, seed=0)
    prompts = [r.messages[1].content for r in fake.requests]
    assert prompts and {r.schema_name for r in fake.requests} == {"PartnerEstimateReply"}
    assert all("Issues, most important first: firewood" in p for p in prompts)


def test_wire_llm_passes_the_session_to_astra_llm_parties(bridge: EventLoopThread) -> None:
    settings = llm_options_from_cli(f"{OFFLINE}#m", [], None)
    with LLMRuntime(settings, bridge=bridge) as runtime:
        wiring = wire_llm(runtime, "s", {"A": "astra-llm", "B": "base", "C": "llm"})
    assert set(wiring.agent_options) == {"A", "C"}
    assert wiring.agent_options["A"]["llm"] is wiring.session


REPLY = st.one_of(
    st.text(max_size=30),
    st.builds(
        json.dumps,
        st.fixed_dictionaries(
            {},
            optional={
                "priorities": st.lists(
                    st.sampled_from(["food", "Water", "firewood", "gold", ""]), max_size=4
                ),
                "offer": st.dictionaries(
                    st.sampled_from(["food", "water", "firewood", "x"]), st.integers(-2, 5)
                ),
                "lambda": st.floats(-1, 2, allow_nan=False),
                "s_max": st.floats(-50, 80, allow_nan=False),
                "total_score": st.floats(-5, 15, allow_nan=False),
                "strategic_intermediary": st.floats(-5, 15, allow_nan=False),
                "tactic": st.sampled_from(["LGR", "AEO", "bluff", "mutual gain focus", ""]),
                "ranking": st.lists(st.integers(-1, 6), max_size=6),
            },
        ),
    ),
)


@settings(max_examples=25, deadline=None)
@given(replies=st.lists(REPLY, min_size=1, max_size=12), seed=st.integers(0, 3), samples=st.integers(1, 2))
def test_arbitrary_replies_still_give_legal_above_batna_moves(
    replies: list[str], seed: int, samples: int, bridge: EventLoopThread
) -> None:
    answers = iter(replies * 1000)
    llm = LLMSession(FakeLLM(lambda _: next(answers)), bridge=bridge)
    scenario = casino()
    astra = create("astra-llm", party="A", seed=seed, llm=llm, samples=samples, tactic_samples=samples)
    agents = {
        "A": astra,
        "B": create("base", party="B", seed=seed),
    }
    result = run_negotiation(scenario, agents, seed=seed)
    utility = scenario.party("A").utility
    table: Mapping[str, Any] | None = None
    for event in result.trajectory:
        assert event.kind != "violation"
        if event.kind != "action" or event.party != "A":
            if event.kind == "action" and event.data.get("kind") == "propose":
                table = event.data["package"]
            continue
        if event.data["kind"] == "propose":
            assert utility.evaluate(event.data["package"]) >= utility.reservation_value
        if event.data["kind"] == "accept":
            assert table is not None and utility.evaluate(table) >= utility.reservation_value


# -- golden transcript and CLI -------------------------------------------------------------------------


def stub_policy(body: Mapping[str, Any]) -> StubReply:
    """The scripted model over HTTP; it misbehaves on purpose at fixed points of the golden run:
    broken JSON (repaired), an out-of-range S_max (re-asked) and an unknown tactic twice (twin)."""
    messages = body["messages"]
    schema = str(body.get("response_format", {}).get("json_schema", {}).get("name", ""))
    user = messages[1]["content"]
    answer = scripted_answer(schema, user)
    first_ask = len(messages) == 2
    if schema == "ParametersReply" and "My previous offer: none yet" in user and first_ask:
        return StubReply.ok(json.dumps(answer | {"s_max": 2.0}))
    if schema == "TacticReply" and "offers so far: partner 2, me 1" in user:
        return StubReply.ok(json.dumps({"tactic": "bluff"}))
    if schema == "InterpretationReply":
        return StubReply.ok("```json\n" + json.dumps(answer)[:-1] + ",}\n```")
    return StubReply.ok(json.dumps(answer))


def golden_run(llm: LLMSession) -> str:
    astra = create("astra-llm", party="A", seed=0, llm=llm, aspiration_slack=None)  # (see above)
    agents = {"A": astra, "B": create("base", party="B", seed=1)}
    result = run_negotiation(casino(), agents, seed=0)
    llm.finish(result.trajectory)
    return result.trajectory.to_jsonl()


GOLDEN_RUN = GoldenRecording(golden_run, lambda: stub_policy, {"default": "astra-model"})


def test_golden_astra_negotiation_replays_byte_identical(bridge: EventLoopThread) -> None:
    expected = GOLDEN_RUN.check(GOLDEN, bridge, __file__)

    events = [json.loads(line) for line in expected.splitlines()]
    assert [e["kind"] for e in events if e["kind"] in ("agreement", "no_deal")] == ["agreement"]
    traces = [e["data"]["llm"] for e in events if e["kind"] == "trace" and e["data"].get("llm")]
    assert any(t.get("tactic") == "twin" for t in traces) and all(t["parameters"] == "llm" for t in traces)
    fallback = [e["data"] for e in events if e["kind"] == "llm_fallback"]
    assert [(f["role"], f["reason"]) for f in fallback] == [("astra_tactic", "schema_invalid")]
    usage = events[-1]["data"]
    assert usage["total"]["fallbacks"] == 1 and len(usage["by_role"]) == 4
    exchanges = [
        json.loads(line)
        for line in (GOLDEN / "recording" / "exchanges.jsonl").read_text("utf-8").splitlines()
    ]
    reasked = {e["request"]["schema_name"] for e in exchanges if len(e["request"]["messages"]) > 2}
    assert reasked == {"ParametersReply", "TacticReply"}


def test_record_then_replay_is_byte_identical(tmp_path: Path, bridge: EventLoopThread) -> None:
    live = GOLDEN_RUN.record(tmp_path, bridge)
    assert GOLDEN_RUN.replay(tmp_path / "recording", bridge) == live


def test_cli_run_astra_llm_records_then_replays(tmp_path: Path) -> None:
    runner = CliRunner()
    common = ["run", "casino", "--agent", "astra-llm", "--agent", "base", "--seed", "2", "--json"]
    with StubServer(stub_policy) as stub:
        live = runner.invoke(app, [*common, "--llm", stub.spec("m"), "--record", str(tmp_path / "rec")])
    assert live.exit_code == 0, live.output
    replayed = runner.invoke(app, [*common, "--llm", f"{OFFLINE}#m", "--replay", str(tmp_path / "rec")])
    assert replayed.exit_code == 0, replayed.output
    assert replayed.output == live.output
    assert (tmp_path / "rec" / "exchanges.jsonl").read_text("utf-8").count("ParametersReply") > 0


def test_cli_run_astra_llm_needs_an_llm() -> None:
    result = CliRunner().invoke(app, ["run", "casino", "--agent", "astra-llm", "--agent", "base", "--json"])
    assert result.exit_code == 2 and "no LLM configured" in result.output and "--llm SPEC" in result.output
