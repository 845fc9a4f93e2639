"""What the smoke run with a real small model found (docs/llm.md, "A real local model"), each pinned.

1. Open schema fields let a small model loop to the token cap: every free string has a maxLength,
   every list a maxItems, bounded numbers are enums, names are enums per call, and the default
   reply caps are small but never cut off a reply the schema allows.
2. A re-ask at temperature 0 got the same invalid reply back: a re-ask samples warmer, with the
   next seed, and both are in the request (so a recording replays it).
3. The negotiator copied its private block ("Your walk-away value is: 5.") into messages.
4. The GAIA drafter wrote as the counterparty or left "[Your Name]"; the moderator called a plain
   answer prompt_injection.
5. llama-cpp-python's server refuses ``json_schema`` with HTTP 500 (or 422) naming response_format.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from typing import Any

import httpx
import pytest
from pydantic import BaseModel
from role_support import fallbacks, scripted
from test_astra_roles import CANDIDATES, casino_view, started, tactic_context
from test_gaia_roles import PROPOSAL, STAFFING, context
from test_leak_sets import private_numbers_for
from test_llm_prompts import bob_view
from test_promediate_roles import PRICING, hmo, hmo_view, twin_of

from parley.agents import create
from parley.agents.astra.selection import NegotiationPhase, Tactic
from parley.agents.astra.signals import Fairness, Stance
from parley.governance.extraction import ExtractionContext
from parley.llm import (
    Endpoint,
    EventLoopThread,
    LLMNegotiator,
    LLMRequest,
    LLMSession,
    OpenAIClient,
    RetryPolicy,
    check_message,
    judge,
    mediator,
    negotiator,
)
from parley.llm.prompts import PromptTemplate
from parley.llm.role import CHARS_PER_TOKEN, REASK_TEMPERATURE, Role, reply_cap
from parley.llm.roles import (
    astra_stages,
    gaia_critic,
    gaia_drafter,
    gaia_extractor,
    gaia_moderator,
    promediate_consensus,
    promediate_mediators,
    promediate_participant,
)
from parley.llm.roles.astra_stages import LLMParameterChooser, LLMTacticAssessor, LLMVirtualPartner
from parley.llm.roles.gaia_drafter import LLMDrafter, check_draft
from parley.llm.roles.gaia_extractor import LLMExtractor
from parley.llm.roles.gaia_moderator import LLMModerator
from parley.llm.roles.promediate_common import name_overrides
from parley.llm.roles.promediate_participant import LLMParticipant
from parley.llm.structured import (
    max_reply_chars,
    names_schema,
    number_grid,
    package_schema,
    strict_schema,
    unbounded,
)
from parley.llm.types import conversation
from parley.protocol import PartyView, Phase, Record, Rules
from parley.protocol.actions import Say
from parley.testing import FakeLLM, casino_like_scenario

# -- 1. bounded schemas ------------------------------------------------------------------------------------

MODULES = (
    *(astra_stages, gaia_critic, gaia_drafter, gaia_extractor, gaia_moderator, judge, mediator),
    *(negotiator, promediate_consensus, promediate_mediators, promediate_participant),
)
REPLY_MODEL_NAMES = frozenset(
    [
        "NegotiatorReply",
        "JudgeReply",
        "MediatorReply",
        "InterpretationReply",
        "ParametersReply",
        "PartnerEstimateReply",
        "TacticReply",
        "RankingReply",
        "DraftReply",
        "ExtractionReply",
        "ModeratorReply",
        "CriticReply",
        "ThoughtsReply",
        "MotivationReply",
        "ArticulationReply",
        "WhenReply",
        "SocialWhenReply",
        "InterventionDraft",
        "CandidatesReply",
        "ScoresReply",
        "AttitudeReply",
        "AgreementReply",
        "IntelligenceReply",
    ]
)
"""The output model of every built-in role."""
REPLY_MODELS = {
    name: model
    for module in MODULES
    for name, model in vars(module).items()
    if isinstance(model, type) and issubclass(model, BaseModel) and name in REPLY_MODEL_NAMES
}
CASINO_PACKAGE = package_schema({item: [0, 1, 2, 3] for item in ("food", "water", "firewood")}, nullable=True)
HMO_OPTIONS = hmo_view(hmo()).options


def per_call(name: str) -> Mapping[str, Mapping[str, Any]]:
    """The overrides the role sends with each call, on a representative case."""
    topics = name_overrides(HMO_OPTIONS, ["Jamie", "Lee"])
    calls: dict[str, Mapping[str, Mapping[str, Any]]] = {
        "NegotiatorReply": negotiator.reply_schema(bob_view()),
        "MediatorReply": {"package": CASINO_PACKAGE},
        "InterpretationReply": {"offer": CASINO_PACKAGE, "priorities": names_schema(["food", "water"])},
        "ArticulationReply": topics,
        "InterventionDraft": topics,
        "CandidatesReply": topics,
        "ThoughtsReply": topics,
        "DraftReply": gaia_drafter.draft_schema(STAFFING),
        "ExtractionReply": gaia_extractor.extraction_schema(STAFFING),
        "CriticReply": gaia_critic.critic_schema(STAFFING, gate_open=False),
        "MotivationReply": promediate_participant.motivation_schema(4),
        "AttitudeReply": promediate_consensus.attitude_schema(HMO_OPTIONS),
        "SocialWhenReply": promediate_mediators.breakdowns_schema(hmo_view(hmo())),
    }
    return calls.get(name, {})


def nodes(schema: Any) -> list[dict[str, Any]]:
    if isinstance(schema, dict):
        return [schema, *(n for value in schema.values() for n in nodes(value))]
    if isinstance(schema, list):
        return [n for item in schema for n in nodes(item)]
    return []


def test_every_reply_schema_bounds_every_string_and_list() -> None:
    assert set(REPLY_MODELS) == REPLY_MODEL_NAMES
    for name, model in REPLY_MODELS.items():
        sent = strict_schema(model, per_call(name))
        assert unbounded(sent) == [], (name, unbounded(sent))
        # llama.cpp's grammar ignores minimum/maximum: a bounded number is sent as an enum
        assert not [n for n in nodes(sent) if "minimum" in n or "maximum" in n], name


def test_free_text_has_a_sensible_length() -> None:
    lengths = {
        path: node["maxLength"]
        for name, model in REPLY_MODELS.items()
        for path, node in [(name, n) for n in nodes(strict_schema(model, per_call(name)))]
        if "maxLength" in node
    }
    assert max(lengths.values()) <= 900  # a GAIA draft; messages 400, notes 120
    message = strict_schema(negotiator.NegotiatorReply)["properties"]["message"]
    assert message == {"type": "string", "maxLength": 400}


def test_default_caps_cover_the_longest_allowed_reply_and_are_small() -> None:
    caps: dict[str, int] = {}
    for name, model in REPLY_MODELS.items():
        schema = strict_schema(model, per_call(name))
        longest, cap = max_reply_chars(schema), reply_cap(schema)
        assert longest is not None and cap is not None, name
        assert longest <= cap * CHARS_PER_TOKEN <= max(96, longest * 1.1 + 33), (name, longest, cap)
        caps[name] = cap
    assert max(caps.values()) <= 800 and caps["ModeratorReply"] <= 40  # before: 120–1,500
    assert sorted(caps.values())[len(caps) // 2] <= 250


def test_the_cap_is_sent_and_the_setting_still_wins(bridge: EventLoopThread) -> None:
    reply = json.dumps({"move": "reject", "package": None, "message": "", "priorities": []})
    for setting, expected in (
        (None, reply_cap(strict_schema(negotiator.NegotiatorReply, per_call("NegotiatorReply")))),
        (123, 123),
    ):
        fake = FakeLLM([reply])
        llm = LLMSession(fake, bridge=bridge, max_tokens=setting)
        LLMNegotiator("bob", llm, create("boulware", party="bob", seed=0)).act(bob_view())
        assert fake.requests[0].max_tokens == expected


def test_bounded_numbers_become_enums_of_a_grid() -> None:
    assert number_grid(0.0, 1.0) == [0, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1]
    assert number_grid(1.0, 5.0) == [1, 1.5, 2, 2.5, 3, 3.5, 4, 4.5, 5]
    assert number_grid(0.0, 10.0) == list(range(11))
    assert number_grid(1, 3, integer=True) == [1, 2, 3]
    parameters = strict_schema(astra_stages.ParametersReply)["properties"]
    assert parameters["lambda"]["enum"] == number_grid(0.0, 1.0)
    partner = strict_schema(astra_stages.PartnerEstimateReply)["properties"]
    assert partner["total_score"]["enum"] == list(range(11))


def requests_of(
    call: Callable[[LLMSession], object], bridge: EventLoopThread, reply: Any
) -> list[LLMRequest]:
    fake = FakeLLM([json.dumps(reply)] * 4)
    call(LLMSession(fake, bridge=bridge))
    return fake.requests


def test_ranking_names_each_candidate_exactly_once(bridge: EventLoopThread) -> None:
    def rank(llm: LLMSession) -> object:
        return LLMTacticAssessor(started(casino_view()), llm).strategy_scores(
            Tactic.LOGROLLING, CANDIDATES, tactic_context()
        )

    (request,) = requests_of(rank, bridge, {"ranking": [2, 1, 3], "reason": ""})
    assert request.schema is not None
    ranking = request.schema["properties"]["ranking"]
    assert ranking["items"]["enum"] == [1, 2, 3] and ranking["minItems"] == ranking["maxItems"] == 3


def test_tactic_is_an_enum_of_the_nine_codes(bridge: EventLoopThread) -> None:
    def choose(llm: LLMSession) -> object:
        return LLMTacticAssessor(started(casino_view()), llm).choose(tactic_context())

    (request,) = requests_of(choose, bridge, {"tactic": "LGR", "reason": ""})
    assert request.schema is not None
    assert request.schema["properties"]["tactic"]["enum"] == [t.value for t in Tactic]


def test_s_max_is_an_enum_from_the_batna_to_36(bridge: EventLoopThread) -> None:
    def choose(llm: LLMSession) -> object:
        stage = LLMParameterChooser(started(casino_view()), llm)
        return stage.choose(Fairness.FAIR, Stance.GENEROUS, None, NegotiationPhase.EARLY)

    (request,) = requests_of(choose, bridge, {"lambda": 0.5, "s_max": 30, "reason": ""})
    assert request.schema is not None
    s_max = request.schema["properties"]["s_max"]["enum"]
    assert s_max[-1] == 36 and s_max == list(range(s_max[0], 37))
    assert request.schema["properties"]["lambda"]["enum"][:3] == [0, 0.1, 0.2]


def test_virtual_partner_scores_are_whole_points(bridge: EventLoopThread) -> None:
    from parley.agents.astra.stages import PartnerSituation

    def assess(llm: LLMSession) -> object:
        stage = LLMVirtualPartner(started(casino_view()), llm)
        return stage.assess(CANDIDATES[0], PartnerSituation(None, None, (4, 4, 4)))

    (request,) = requests_of(assess, bridge, {"total_score": 5, "strategic_intermediary": 5, "reason": ""})
    assert request.schema is not None
    assert request.schema["properties"]["total_score"]["enum"] == list(range(11))


def offerless_view() -> PartyView:
    scenario = casino_like_scenario()
    bob = scenario.party("bob")
    return PartyView(
        "bob",
        scenario.party_names,
        1,
        Phase.PROPOSE,
        scenario.space,
        bob.utility,
        Rules(max_rounds=20),
        None,
        Record([]),
        bob.setup().persona,
    )


def test_accept_and_reject_are_not_offered_with_nothing_on_the_table(bridge: EventLoopThread) -> None:
    fake = FakeLLM([json.dumps({"move": "say", "package": None, "message": "Hi.", "priorities": []})])
    LLMNegotiator("bob", LLMSession(fake, bridge=bridge), create("boulware", party="bob", seed=0)).act(
        offerless_view()
    )
    assert fake.requests[0].schema is not None
    assert fake.requests[0].schema["properties"]["move"]["enum"] == ["propose", "say", "walk"]
    assert negotiator.legal_moves(bob_view()) == ["propose", "accept", "reject", "say", "walk"]


def test_motivation_scores_one_per_thought(bridge: EventLoopThread) -> None:
    scenario = hmo()
    view = hmo_view(scenario)
    thoughts = {
        "thoughts": [
            {"act": "ask", "topic": PRICING, "option": None, "addressee": "Jamie", "content": "Why not A?"},
            {"act": "state", "topic": PRICING, "option": "A", "addressee": None, "content": "A is best."},
        ]
    }
    scores = {
        "scores": [
            {"thought": 1, "motivation": 3, "reason": ""},
            {"thought": 2, "motivation": 4, "reason": ""},
        ]
    }
    fake = scripted([thoughts, scores])
    LLMParticipant(twin_of(scenario, "Alex", view), LLMSession(fake, bridge=bridge), view.options).think(view)
    schema = fake.requests[1].schema
    assert schema is not None
    listed = schema["properties"]["scores"]
    assert listed["minItems"] == listed["maxItems"] == 2
    assert listed["items"]["properties"]["thought"]["enum"] == [1, 2]
    assert listed["items"]["properties"]["motivation"]["enum"] == number_grid(1.0, 5.0)


def test_extractor_and_critic_name_the_domain_fields(bridge: EventLoopThread) -> None:
    fields = list(STAFFING.field_names)
    (extract,) = requests_of(
        lambda llm: LLMExtractor(llm, STAFFING).extract("I'm a U.S. citizen.", context_for_extraction()),
        bridge,
        {"findings": []},
    )
    assert extract.schema is not None
    findings = extract.schema["properties"]["findings"]
    assert findings["items"]["properties"]["field"]["enum"] == fields and findings["maxItems"] <= 5
    critic = strict_schema(gaia_critic.CriticReply, gaia_critic.critic_schema(STAFFING, gate_open=False))
    suggestions = critic["properties"]["suggestions"]
    assert suggestions["maxItems"] == 3
    assert suggestions["items"]["properties"]["topics"]["items"]["enum"] == fields
    assert suggestions["items"]["properties"]["text"]["maxLength"] <= 160


def context_for_extraction() -> ExtractionContext:
    return ExtractionContext(asked=("work_authorization",))


# -- 2. a re-ask samples warmer, with the next seed, as the request says ---------------------------------


class Answer(BaseModel):
    answer: int


def test_a_reask_samples_warmer_with_the_next_seed(bridge: EventLoopThread) -> None:
    fake = FakeLLM(['{"answer": "many"}', '{"answer": 3}'])
    llm = LLMSession(fake, bridge=bridge, temperature=0.0, seed=7)
    role = Role("answerer", Answer, _answer_template(), llm)
    assert role.call({}).value == Answer(answer=3)
    first, again = fake.requests
    assert (first.temperature, first.seed) == (0.0, 7)
    assert (again.temperature, again.seed) == (REASK_TEMPERATURE, 8) and again.key != first.key


def test_a_warm_session_keeps_its_temperature_and_no_seed_stays_none(bridge: EventLoopThread) -> None:
    fake = FakeLLM(['{"answer": "many"}', '{"answer": 3}'])
    Role("answerer", Answer, _answer_template(), LLMSession(fake, bridge=bridge, temperature=0.9)).call({})
    assert [(r.temperature, r.seed) for r in fake.requests] == [(0.9, None), (0.9, None)]


def _answer_template() -> PromptTemplate:
    return PromptTemplate("answer", "Answer with a number.", "How many?")


# -- 3. the speaker's own numbers leak whatever the pronoun -----------------------------------------------

CAMPER = private_numbers_for("casino", {"food": 5, "water": 4, "firewood": 3}, 5)


@pytest.mark.parametrize(
    "message",
    [
        "Your walk-away value is: 5.",
        "Your score is: 3.",
        "Your walk-away value is: five.",
        "Your score is: three.",
        "My walk-away value is 5.",
        "Our BATNA: five.",
        "The walk-away value is 5.",
        "Its walk-away value is: 5",
        "Walk-away value (BATNA): 5.",
        "Your reservation value is 5.",
        "Your points for food: 5.",
        "Food is worth 5 points to you.",
        "your score for round 3 is: 12",
        "Their score is 12.",
    ],
)
def test_own_numbers_leak_in_any_person(message: str) -> None:
    assert check_message(message, CAMPER).leaked


@pytest.mark.parametrize(
    "message",
    [
        "What is your walk-away value?",
        "Do you value water at 5 or at 4?",
        "You said your score is 5; I doubt it.",
        "Your offer gives me 1 food, not enough.",
        "You would get 2 food and 1 firewood.",
        "Your team has 4 people, right?",
        "Round 5 of 10: your turn.",
        "Your package is 3 food, 0 water, 1 firewood.",
        "Your walk-away value is yours to keep.",
        "Give me 2 water and you get 3 firewood.",
    ],
)
def test_harmless_second_person_numbers_pass(message: str) -> None:
    assert not check_message(message, CAMPER).leaked


def test_the_private_block_is_facts_about_the_party_not_a_message(bridge: EventLoopThread) -> None:
    copied = "Your walk-away value is: 5. Your score is: 3. I propose 2 water."  # bob's BATNA is 5
    fake = FakeLLM([json.dumps({"move": "say", "package": None, "message": copied, "priorities": []})])
    llm = LLMSession(fake, bridge=bridge)
    action = LLMNegotiator("bob", llm, create("boulware", party="bob", seed=0)).act(bob_view())

    system, user = (m.content for m in fake.requests[0].messages)
    private = system[: system.index("[END OF PRIVATE FACTS]")]
    assert private.startswith("[PRIVATE FACTS about you (bob)") and "never write them in a message" in private
    assert "bob walk-away value (BATNA) = 5" in private
    assert not any(line.lower().startswith(("your", "walk-away")) for line in private.splitlines())
    assert "your score" not in user.lower() and "private score" in user
    assert action == Say("I propose 2 water.")
    guard = next(e.data for e in llm.events if e.kind == "llm_guard")
    assert guard["findings"] == ["reservation_value", "score"]


# -- 4. the drafter speaks for the principal, with no placeholders; moderator labels ------------------------


@pytest.mark.parametrize(
    "text",
    [
        "Thanks, [Your Name]. We are exploring $90K–$100K, subject to approval.",
        "Our client at [Company] is exploring $90K–$100K, subject to approval.",
        "Dear <name>, we are exploring $90K–$100K, subject to approval.",
        "We could explore $90K–$100K at {company}, subject to approval.",
        "We are exploring [amount withheld], subject to approval.",
    ],
)
def test_a_draft_with_a_placeholder_is_invalid(text: str) -> None:
    with pytest.raises(ValueError, match="placeholder"):
        check_draft(gaia_drafter.DraftReply(text=text), "We are exploring $90K–$100K, subject to approval.")


def test_a_placeholder_draft_is_reasked_then_the_twin_writes(bridge: EventLoopThread) -> None:
    bad = {"text": "Best regards, [Your Name]", "intent": "explore", "terms": []}
    fake = FakeLLM([json.dumps(bad), json.dumps(bad)])
    llm = LLMSession(fake, bridge=bridge)
    drafter = LLMDrafter(llm, STAFFING)
    draft = drafter.draft_in_context(PROPOSAL, context())
    assert len(fake.requests) == 2 and fallbacks(llm) == 1
    assert draft.text == drafter.twin.draft(PROPOSAL).text
    assert "placeholder ([Your Name])" in fake.requests[1].messages[-1].content


def test_the_drafter_knows_whom_it_speaks_for(bridge: EventLoopThread) -> None:
    (request,) = requests_of(
        lambda llm: LLMDrafter(llm, STAFFING).draft_in_context(PROPOSAL, context()),
        bridge,
        {"text": "We are exploring $90K–$100K, subject to approval.", "intent": "explore", "terms": []},
    )
    system = request.messages[0].content
    assert f'for the {STAFFING.principal_role}\'s side ("we")' in system
    assert f"You are not the {STAFFING.counterparty_role}: never write as one" in system
    assert "[Your Name]" not in system  # a small model copies an example placeholder


def test_the_moderator_prompt_says_plain_answers_are_not_injections(bridge: EventLoopThread) -> None:
    (request,) = requests_of(
        lambda llm: LLMModerator(llm, STAFFING).classify("I have 8 years of experience."),
        bridge,
        {"label": "cooperative", "confidence": 0.9},
    )
    system = request.messages[0].content
    assert "Most messages are plain answers, questions or offers." in system
    assert "(a plain answer never is)" in system
    assert request.schema is not None and request.schema["properties"]["confidence"]["enum"] == number_grid(
        0, 1
    )


# -- 5. a server refusing the format with 500 or 422 --------------------------------------------------

LLAMA_CPP_500 = json.dumps(
    {
        "error": {
            "message": "[{'type': 'literal_error', 'loc': ('body', 'response_format', 'type'), "
            "'msg': \"Input should be 'text' or 'json_object'\", 'input': 'json_schema'}]",
            "type": "internal_server_error",
        }
    }
)
REQUEST = LLMRequest(
    "m",
    conversation("Be terse.", "Say hi."),
    schema={
        "type": "object",
        "properties": {"say": {"type": "string", "maxLength": 20}},
        "required": ["say"],
        "additionalProperties": False,
    },
    format_hint='Reply with one JSON object of this shape:\n{"say": "..."}',
)


def ok(text: str = '{"say": "hi"}') -> httpx.Response:
    body = {"model": "m", "choices": [{"message": {"content": text}, "finish_reason": "stop"}], "usage": {}}
    return httpx.Response(200, json=body)


def client_with(
    handler: Callable[[dict[str, Any]], httpx.Response], bridge: EventLoopThread, notices: list[str]
) -> tuple[OpenAIClient, list[dict[str, Any]]]:
    bodies: list[dict[str, Any]] = []

    def handle(request: httpx.Request) -> httpx.Response:
        bodies.append(json.loads(request.content))
        return handler(bodies[-1])

    async def no_sleep(_: float) -> None:
        return None

    client = OpenAIClient(
        Endpoint("http://llm.test/v1", "m"),
        bridge=bridge,
        transport=httpx.MockTransport(handle),
        retry=RetryPolicy(max_attempts=4),
        sleeper=no_sleep,
        notify=notices.append,
    )
    return client, bodies


@pytest.mark.parametrize(("status", "body"), [(500, LLAMA_CPP_500), (422, LLAMA_CPP_500)])
def test_a_500_or_422_naming_response_format_downgrades_once_without_retrying(
    status: int, body: str, bridge: EventLoopThread
) -> None:
    def reply(sent: dict[str, Any]) -> httpx.Response:
        if sent["response_format"]["type"] == "json_schema":
            return httpx.Response(status, text=body)
        return ok()

    notices: list[str] = []
    client, bodies = client_with(reply, bridge, notices)
    client.complete_sync(REQUEST)
    client.complete_sync(REQUEST)
    client.close()
    assert [b["response_format"]["type"] for b in bodies] == ["json_schema", "json_object", "json_object"]
    assert client.attempts == 3 and client.structured == "json_object"
    assert len(notices) == 1 and f"HTTP {status}" in notices[0] and "json_object" in notices[0]
    # JSON mode carries the schema, which llama-cpp-python compiles into a grammar; no example reply
    # in the prompt then (a small model copied its "..." into every message)
    assert bodies[1]["response_format"]["schema"] == dict(REQUEST.schema or {})
    assert bodies[1]["messages"] == bodies[0]["messages"]


def test_a_400_refusal_gets_json_mode_with_the_schema_and_an_example(bridge: EventLoopThread) -> None:
    def reply(sent: dict[str, Any]) -> httpx.Response:
        if sent["response_format"]["type"] == "json_schema":
            return httpx.Response(400, json={"error": {"message": "response_format json_schema unsupported"}})
        return ok()

    notices: list[str] = []
    client, bodies = client_with(reply, bridge, notices)
    client.complete_sync(REQUEST)
    client.close()
    assert bodies[1]["response_format"] == {"type": "json_object", "schema": dict(REQUEST.schema or {})}
    assert '{"say": "..."}' in bodies[1]["messages"][0]["content"]  # a JSON-mode API may ignore the schema
    assert "example reply" in notices[0]


def test_a_500_that_does_not_name_the_format_is_retried_as_before(bridge: EventLoopThread) -> None:
    answers = iter([httpx.Response(500, text="overloaded"), ok()])
    client, bodies = client_with(lambda _: next(answers), bridge, [])
    client.complete_sync(REQUEST)
    client.close()
    assert [b["response_format"]["type"] for b in bodies] == ["json_schema", "json_schema"]
    assert client.structured == "json_schema"


def test_a_strict_mode_refusing_string_lengths_gets_them_dropped_first(bridge: EventLoopThread) -> None:
    def reply(sent: dict[str, Any]) -> httpx.Response:
        if "maxLength" in json.dumps(sent.get("response_format", {})):
            message = "Invalid schema for response_format 'reply': 'maxLength' is not permitted."
            return httpx.Response(400, json={"error": {"message": message}})
        return ok()

    notices: list[str] = []
    client, bodies = client_with(reply, bridge, notices)
    client.complete_sync(REQUEST)
    client.complete_sync(REQUEST)
    client.close()
    assert [b["response_format"]["type"] for b in bodies] == ["json_schema"] * 3
    assert bodies[2]["response_format"]["json_schema"]["schema"]["properties"]["say"] == {"type": "string"}
    assert len(notices) == 1 and "maxLength" in notices[0]
