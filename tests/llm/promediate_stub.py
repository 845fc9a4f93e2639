"""A scripted ProMediate model: a well-formed reply to every role's request, as a function of the
request only, served by the stub OpenAI-compatible server (`stub_policy`) or a `FakeLLM`."""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Mapping, Sequence
from typing import Any

from parley.scenarios.model import Scenario
from parley.simulation.conversation import public_options
from parley.testing import StubReply


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
        scores = [{"thought": n, "motivation": 2.0 + ((pick >> n) % 30) / 10} for n in (1, 2, 3)]
        if turn == 3 and first_ask:
            scores[0]["motivation"] = 6.0  # out of range: re-asked
        return json.dumps({"scores": scores})
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
    if schema == "AttitudeReply":
        said = user.rsplit("The utterance:", 1)[1]
        attitudes = [
            {"topic": topic, "position": letter.group(1), "tone": 0.2, "openness": 0.6}
            if (letter := re.search(r"option ([A-E])\b", said))
            else {"topic": topic, "tone": 0.0, "openness": 0.5}
            for topic in topics
            if topic in said
        ]
        return json.dumps({"attitudes": attitudes})
    if schema == "AgreementReply":
        first, second = (json.loads(line.split(": ", 1)[1]) for line in user.splitlines()[:2])
        same = first["position"] is not None and first["position"] == second["position"]
        scores = dict.fromkeys(("shared_goals", "common_understanding", "tone_and_willingness"), 0.6)
        terms = 0.9 if same else 0.1 if first["position"] in second["rejects"] else 0.4
        return json.dumps(scores | {"agreement_on_terms": terms, "shared_decision_making": 0.5})
    if schema == "IntelligenceReply":
        judged = {"score": 4, "rationale": f"turn {turn}: names the parties"}
        return json.dumps(
            {
                k: judged if k == "perceptual" else {"score": -1}
                for k in ("perceptual", "emotional", "cognitive", "communication")
            }
        )
    raise AssertionError(f"unexpected schema {schema}")


def stub_policy(scenario: Scenario) -> Any:
    def answer(body: Mapping[str, Any]) -> StubReply:
        schema = str(body.get("response_format", {}).get("json_schema", {}).get("name", ""))
        return StubReply.ok(scripted_reply(scenario, schema, body["messages"]))

    return answer
