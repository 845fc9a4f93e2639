"""Moves a party can make: a tagged union of frozen dataclasses that round-trip to JSON.

A counter-offer is a `Propose` made while answering someone else's offer: it rejects that offer
and puts a new package on the table in one move. The coalition moves (`ProposeCoalition`,
`JoinCoalition`, `DeclineCoalition`) belong to the k-of-n coalition sub-protocol
(`parley.protocol.coalition`).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Literal

from parley.domain.issues import Value

JSONValue = Any
"""Anything json.dumps accepts."""


@dataclass(frozen=True, init=False)
class Propose:
    """Put a full package on the table (or counter the one on it).

    Attributes:
        package: Every issue name mapped to one of its options.
        message: Optional natural-language text sent with the move.
    """

    package: Mapping[str, Value]
    message: str = ""
    kind: Literal["propose"] = field(default="propose", init=False)

    def __init__(self, package: Mapping[str, Value], message: str = "") -> None:
        # The most frequent move: one __dict__ update instead of a frozen slotted dataclass's
        # object.__setattr__ per field (about a third of the instructions; see Event).
        self.__dict__.update(package=package, message=message, kind="propose")


@dataclass(frozen=True, slots=True)
class Accept:
    """Accept the package currently on the table."""

    message: str = ""
    kind: Literal["accept"] = field(default="accept", init=False)


@dataclass(frozen=True, slots=True)
class Reject:
    """Reject the package on the table without proposing another."""

    message: str = ""
    kind: Literal["reject"] = field(default="reject", init=False)


@dataclass(frozen=True, slots=True)
class Walk:
    """Leave the negotiation for the BATNA; ends the session with no deal."""

    reason: str = ""
    message: str = ""
    kind: Literal["walk"] = field(default="walk", init=False)


@dataclass(frozen=True, slots=True)
class Say:
    """Free text with no offer: a question, a stated priority, a warning.

    Attributes:
        message: The text.
        priorities: Issue names the speaker states as most to least important (a voluntary,
            possibly untruthful disclosure), or empty.
        asks_priorities: True when the text asks the others for their priorities.
    """

    message: str
    priorities: tuple[str, ...] = ()
    asks_priorities: bool = False
    kind: Literal["say"] = field(default="say", init=False)


@dataclass(frozen=True, slots=True)
class ProposeCoalition:
    """Ask named parties to form a coalition around a package (k-of-n games, on one's own turn).

    The proposer is a member; with the parties it asks, the coalition must include every vetoer
    and reach the k the acceptance rule needs. When every asked party joins, the package is agreed.

    Attributes:
        package: Every issue name mapped to one of its options.
        members: The parties asked to join (not the proposer), in any order.
        message: Optional natural-language text sent with the move.
    """

    package: Mapping[str, Value]
    members: tuple[str, ...]
    message: str = ""
    kind: Literal["propose_coalition"] = field(default="propose_coalition", init=False)


@dataclass(frozen=True, slots=True)
class JoinCoalition:
    """Join the open coalition attempt this party was asked into (its answer to the invitation)."""

    message: str = ""
    kind: Literal["join_coalition"] = field(default="join_coalition", init=False)


@dataclass(frozen=True, slots=True)
class DeclineCoalition:
    """Decline the open coalition attempt this party was asked into."""

    reason: str = ""
    message: str = ""
    kind: Literal["decline_coalition"] = field(default="decline_coalition", init=False)


Action = Propose | Accept | Reject | Walk | Say | ProposeCoalition | JoinCoalition | DeclineCoalition
ActionKind = Literal[
    "propose",
    "accept",
    "reject",
    "walk",
    "say",
    "propose_coalition",
    "join_coalition",
    "decline_coalition",
]
CoalitionAnswer = JoinCoalition | DeclineCoalition
"""What a party asked into a coalition answers."""


def action_to_json(action: Action) -> dict[str, JSONValue]:
    """A JSON-ready dict with a "kind" tag."""
    if type(action) is Propose:  # the engine records a proposal on almost every move: no match needed
        return {"kind": "propose", "package": dict(action.package), "message": action.message}
    match action:
        case Propose(package=package, message=message):
            return {"kind": "propose", "package": dict(package), "message": message}
        case Accept(message=message):
            return {"kind": "accept", "message": message}
        case Reject(message=message):
            return {"kind": "reject", "message": message}
        case Walk(reason=reason, message=message):
            return {"kind": "walk", "reason": reason, "message": message}
        case Say(message=message, priorities=priorities, asks_priorities=asks):
            return {
                "kind": "say",
                "message": message,
                "priorities": list(priorities),
                "asks_priorities": asks,
            }
        case ProposeCoalition(package=package, members=members, message=message):
            return {
                "kind": "propose_coalition",
                "package": dict(package),
                "members": list(members),
                "message": message,
            }
        case JoinCoalition(message=message):
            return {"kind": "join_coalition", "message": message}
        case DeclineCoalition(reason=reason, message=message):
            return {"kind": "decline_coalition", "reason": reason, "message": message}


def action_from_json(data: Mapping[str, JSONValue]) -> Action:
    """Inverse of action_to_json.

    Raises:
        ValueError: unknown kind or missing field.
    """
    kind = data.get("kind")
    message = str(data.get("message", ""))
    if kind == "propose":
        return Propose(dict(data["package"]), message)
    if kind == "accept":
        return Accept(message)
    if kind == "reject":
        return Reject(message)
    if kind == "walk":
        return Walk(str(data.get("reason", "")), message)
    if kind == "say":
        return Say(message, tuple(data.get("priorities", ())), bool(data.get("asks_priorities", False)))
    if kind == "propose_coalition":
        return ProposeCoalition(dict(data["package"]), tuple(str(m) for m in data["members"]), message)
    if kind == "join_coalition":
        return JoinCoalition(message)
    if kind == "decline_coalition":
        return DeclineCoalition(str(data.get("reason", "")), message)
    raise ValueError(
        f"unknown action kind {kind!r}; expected one of propose, accept, reject, walk, say, "
        "propose_coalition, join_coalition, decline_coalition"
    )
