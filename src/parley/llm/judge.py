"""The O13 termination judge backed by an LLM; code checks every verdict against the facts.

The facts admit a set of verdicts (a walk admits only NO_DEAL/walk, a passed offer only
AGREEMENT, ...). A verdict outside that set is re-asked once, then `RuleJudge` decides. When the
facts admit a single verdict and ``ask_when_clear`` is off, no call is made at all.
"""

from __future__ import annotations

import json
from typing import Literal

from pydantic import BaseModel, ConfigDict

from parley.llm.context import LLMSession
from parley.llm.role import Role
from parley.llm.structured import Note
from parley.protocol.artefact import NoDealReason
from parley.protocol.judge import Judgement, JudgeView, RuleJudge, TerminationJudge, Verdict

ReasonText = Literal["protocol_violation", "walk", "stagnation", "bound_hit"]


class JudgeReply(BaseModel):
    """The judge's structured ruling.

    Attributes:
        verdict: agreement, no_deal or continue.
        reason: Why there is no deal (only with no_deal).
        rationale: One sentence for the log.
    """

    model_config = ConfigDict(extra="ignore")

    verdict: Literal["agreement", "no_deal", "continue"]
    reason: ReasonText | None = None
    rationale: Note = ""


Ruling = tuple[str, str | None]
"""(verdict value, no-deal reason or None)."""


def admissible(view: JudgeView) -> frozenset[Ruling]:
    """The rulings these facts support."""
    if view.violation is not None:
        return frozenset({("no_deal", "protocol_violation")})
    if view.walked is not None:
        return frozenset(
            {("no_deal", "walk"), ("no_deal", "stagnation")}
            if view.stagnation_unresolved
            else {("no_deal", "walk")}
        )
    if view.offer_passed:
        return frozenset({("agreement", None)})
    if view.bound_hit is not None:
        return frozenset({("no_deal", "bound_hit")})
    if view.stagnation_unresolved:
        return frozenset({("no_deal", "stagnation"), ("continue", None)})
    return frozenset({("continue", None)})


def facts_text(view: JudgeView) -> str:
    """The facts as stable JSON for the prompt."""
    return json.dumps(
        {
            "round": view.round,
            "max_rounds": view.max_rounds,
            "offer_on_table_passed": view.offer_passed,
            "walked": view.walked,
            "limit_reached": view.bound_hit,
            "stagnation_unresolved": view.stagnation_unresolved,
            "protocol_violation_by": view.violation,
        },
        indent=1,
    )


class LLMJudge:
    """A `TerminationJudge` that asks a model, within what the facts allow.

    Args:
        llm: The session's LLM side (client for role "judge").
        twin: Deterministic judge used on fallback (default `RuleJudge`).
        ask_when_clear: Also call the model when the facts admit only one ruling.
        template: Prompt template name.
    """

    def __init__(
        self,
        llm: LLMSession,
        twin: TerminationJudge | None = None,
        *,
        ask_when_clear: bool = False,
        template: str = "judge",
    ) -> None:
        self._role = Role("judge", JudgeReply, template, llm)
        self._twin = twin or RuleJudge()
        self._ask_when_clear = ask_when_clear

    def judge(self, view: JudgeView) -> Judgement:
        """Rule on the facts (see the module docstring)."""
        allowed = admissible(view)
        if len(allowed) == 1 and not self._ask_when_clear:
            return _judgement(next(iter(allowed)))
        variables = {"facts": facts_text(view), "rules_text": f"The round limit is {view.max_rounds}."}
        outcome = self._role.call(variables, validate=lambda reply: _check(reply, allowed), round=view.round)
        if outcome.value is None:
            return self._twin.judge(view)
        return _judgement((outcome.value.verdict, outcome.value.reason))


def _check(reply: JudgeReply, allowed: frozenset[Ruling]) -> JudgeReply:
    ruling: Ruling = (reply.verdict, reply.reason if reply.verdict == "no_deal" else None)
    if ruling not in allowed:
        options = ", ".join(f"{v}" + (f"/{r}" if r else "") for v, r in sorted(allowed, key=str))
        raise ValueError(
            f"the facts do not support {ruling[0]}"
            + (f"/{ruling[1]}" if ruling[1] else "")
            + f"; they support: {options}"
        )
    return reply.model_copy(update={"reason": ruling[1]})


_REASONS: dict[str, NoDealReason] = {
    "protocol_violation": "protocol_violation",
    "walk": "walk",
    "stagnation": "stagnation",
    "bound_hit": "bound_hit",
}


def _judgement(ruling: Ruling) -> Judgement:
    return Judgement(Verdict(ruling[0]), _REASONS.get(ruling[1]) if ruling[1] is not None else None)
