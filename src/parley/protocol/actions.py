"""Moves a party can make: a tagged union of frozen dataclasses that round-trip to JSON.

A counter-offer is a `Propose` made while answering someone else's offer: it rejects that offer
and puts a new package on the table in one move.
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


Action = Propose | Accept | Reject | Walk | Say
ActionKind = Literal["propose", "accept", "reject", "walk", "say"]


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
    raise ValueError(f"unknown action kind {kind!r}; expected one of propose, accept, reject, walk, say")
