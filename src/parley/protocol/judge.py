"""The termination judge: a participant outside the game that rules AGREEMENT / NO_DEAL / CONTINUE."""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum
from typing import Protocol

from parley.protocol.artefact import NoDealReason
from parley.protocol.events import PartyId


class Verdict(Enum):
    """What the judge rules after a step."""

    AGREEMENT = "agreement"
    NO_DEAL = "no_deal"
    CONTINUE = "continue"


@dataclass(frozen=True)  # (a __dict__, not slots: the engine fills it in one update, as for PartyView)
class JudgeView:
    """The facts a judge rules on; no party's utility is among them.

    Attributes:
        round: Current round.
        max_rounds: The round cap.
        offer_passed: The package on the table meets the acceptance rule.
        walked: The party that walked, if any.
        bound_hit: Which bound was reached ("rounds", "offers", "deadline"), if any.
        stagnation_unresolved: The stagnation detector fired and nothing resolved it.
        violation: The party that broke the protocol, if any.
    """

    round: int
    max_rounds: int
    offer_passed: bool
    walked: PartyId | None = None
    bound_hit: str | None = None
    stagnation_unresolved: bool = False
    violation: PartyId | None = None


@dataclass(frozen=True, slots=True)
class Judgement:
    """A verdict with the no-deal reason it rests on (empty unless NO_DEAL)."""

    verdict: Verdict
    reason: NoDealReason | None = None


class TerminationJudge(Protocol):
    """Decides whether the protocol has terminated."""

    def judge(self, view: JudgeView) -> Judgement:
        """Rule on the current facts."""
        ...


# A judgement is immutable: the rule judge hands out these few (one ruling ends every session).
_VIOLATION = Judgement(Verdict.NO_DEAL, "protocol_violation")
_WALK = Judgement(Verdict.NO_DEAL, "walk")
_STAGNATION = Judgement(Verdict.NO_DEAL, "stagnation")
_BOUND_HIT = Judgement(Verdict.NO_DEAL, "bound_hit")
_AGREEMENT = Judgement(Verdict.AGREEMENT)
_CONTINUE = Judgement(Verdict.CONTINUE)


class RuleJudge:
    """The deterministic judge: violations, walks, passed offers, unresolved stagnation, then bounds."""

    def judge(self, view: JudgeView) -> Judgement:
        if view.violation is not None:
            return _VIOLATION
        if view.walked is not None:
            return _STAGNATION if view.stagnation_unresolved else _WALK
        if view.offer_passed:
            return _AGREEMENT
        if view.stagnation_unresolved:
            return _STAGNATION
        if view.bound_hit is not None:
            return _BOUND_HIT
        return _CONTINUE
