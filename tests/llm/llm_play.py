"""Helpers shared by the session-level LLM tests: one market negotiation and a scripted stub policy."""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from dataclasses import replace
from typing import Any

from llm_market import market_parties, market_space

from parley.agents import create
from parley.llm import LLMJudge, LLMNegotiator, LLMSession
from parley.protocol import Rules, Session, SessionResult
from parley.testing import StubReply


def play(llm: LLMSession, code: int, *, max_rounds: int = 10, llm_judge: bool = False) -> SessionResult:
    """Buyer (LLM, boulware twin) vs seller (boulware); llm events and usage appended at the end."""
    buyer, seller = market_parties()
    brief = f"Session code S{code}. {buyer.persona['brief']}"
    buyer = replace(buyer, persona={**buyer.persona, "brief": brief})
    negotiators = {
        "buyer": LLMNegotiator("buyer", llm, create("boulware", party="buyer", seed=code)),
        "seller": create("boulware", party="seller", seed=code),
    }
    judge = LLMJudge(llm, ask_when_clear=True) if llm_judge else None
    result = Session(
        market_space(), [buyer, seller], negotiators, Rules(max_rounds=max_rounds), judge=judge
    ).run()
    llm.finish(result.trajectory)
    return result


def session_code(body: Mapping[str, Any]) -> int:
    match = re.search(r"Session code S(\d+)", body["messages"][0]["content"])
    return int(match.group(1)) if match else -1


def schema_name(body: Mapping[str, Any]) -> str:
    return str(body.get("response_format", {}).get("json_schema", {}).get("name", ""))


def simple_policy(body: Mapping[str, Any]) -> StubReply:
    """Always propose a package that encodes the session code (for transcript checks)."""
    code = session_code(body)
    package = {"price": 100 * (1 + code % 5), "delivery": "fast", "warranty": 2}
    return StubReply.ok(
        {"move": "propose", "package": package, "message": f"S{code} proposes."}, delay_s=0.005
    )


def judge_reply(user: str) -> dict[str, Any]:
    facts = json.loads(user[user.index("{") : user.rindex("}") + 1])
    if facts["protocol_violation_by"]:
        return {"verdict": "no_deal", "reason": "protocol_violation"}
    if facts["walked"]:
        return {"verdict": "no_deal", "reason": "walk"}
    if facts["offer_on_table_passed"]:
        return {"verdict": "agreement", "rationale": "every party accepted"}
    if facts["limit_reached"]:
        return {"verdict": "no_deal", "reason": "bound_hit"}
    if facts["stagnation_unresolved"]:
        return {"verdict": "no_deal", "reason": "stagnation"}
    return {"verdict": "continue"}


def golden_policy(body: Mapping[str, Any]) -> StubReply:
    """A conceding buyer that misbehaves on purpose: a leak, broken JSON, a bad schema, unsafe moves."""
    messages = body["messages"]
    user = messages[1]["content"]
    first_ask = len(messages) == 2
    if schema_name(body) == "JudgeReply":
        if '"round": 5' in user and first_ask:
            return StubReply.ok({"verdict": "agreement"})  # unsupported by the facts: code refuses it
        return StubReply.ok(judge_reply(user))
    round_number = int(re.search(r"Round (\d+) of", user).group(1))  # type: ignore[union-attr]
    price = min(500, 100 * round_number)
    move = {"move": "propose", "package": {"price": price, "delivery": "fast", "warranty": 1}}
    if round_number == 1:
        return StubReply.ok(
            move | {"message": "Good to meet you. Our walk-away value is 0.35. Fast delivery is key."}
        )
    if round_number == 2:
        return StubReply.ok("Here is my move:\n```json\n" + json.dumps(move)[:-1] + ",}\n```")
    if round_number == 4 and first_ask:
        return StubReply.ok({"move": "counter", "package": move["package"]})
    if round_number == 6:
        return StubReply.ok({"move": "accept", "message": "Fine, you win."})  # below the BATNA
    if round_number == 8:
        return StubReply.ok(
            {"move": "propose", "package": {"price": 500, "delivery": "standard", "warranty": 0}}
        )
    return StubReply.ok(move | {"message": f"We can do {price}."})
