"""What one participant may see: the public record plus its own private utility and BATNA.

Views are built by the engine for every move. A `PartyView` holds no reference to any other
party's utility, brief or private trace, so information hiding is a property of the engine, not
a promise of the agents.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from enum import Enum
from typing import Any, overload

from parley.domain.issues import Value
from parley.domain.space import OutcomeSpace
from parley.domain.utility import UtilityFunction
from parley.protocol.actions import Accept, Propose, Reject, Say, Walk
from parley.protocol.events import Event, PartyId
from parley.protocol.payloads import MediatorProposal
from parley.protocol.rules import Rules


class Phase(Enum):
    """Why a party is asked to act."""

    PROPOSE = "propose"
    """It is this party's turn to put something on the table (or speak, accept, walk)."""
    RESPOND = "respond"
    """Another party made a move; answer it (accept, reject, counter, speak, walk)."""


class Record(Sequence[Event]):
    """A read-only window on the events one participant may see."""

    __slots__ = ("__events",)

    def __init__(self, events: list[Event]) -> None:
        self.__events = events

    @overload
    def __getitem__(self, index: int) -> Event: ...

    @overload
    def __getitem__(self, index: slice) -> list[Event]: ...

    def __getitem__(self, index: int | slice) -> Event | list[Event]:
        """One event, or a slice of them as a new list (`record[seen:]`: the events since `seen`)."""
        return self.__events[index]

    def __len__(self) -> int:
        return len(self.__events)

    def __iter__(self) -> Iterator[Event]:
        return iter(self.__events)

    def offers(self) -> list[tuple[PartyId, Mapping[str, Value]]]:
        """Every package put forward so far (proposals, counters, mediator proposals), in order."""
        found: list[tuple[PartyId, Mapping[str, Value]]] = []
        for event in self.__events:
            if event.kind in ("action", "mediator_proposal"):
                payload = event.payload
                if isinstance(payload, Propose):
                    found.append((event.party or "", payload.package))
                elif isinstance(payload, MediatorProposal):
                    found.append(("mediator", payload.package))
        return found

    def offers_by(self, party: PartyId) -> list[Mapping[str, Value]]:
        """Packages party has put forward, in order."""
        return [package for who, package in self.offers() if who == party]

    def messages(self) -> list[tuple[PartyId, str]]:
        """(speaker, text) for every move that carried text."""
        found: list[tuple[PartyId, str]] = []
        for event in self.__events:
            if event.kind == "action":
                payload = event.payload
                if isinstance(payload, _ACTIONS) and payload.message:
                    found.append((event.party or "", payload.message))
        return found


_ACTIONS = (Propose, Accept, Reject, Walk, Say)


# TableOffer, PartyView (and Event) are built several times per move. They stay frozen
# but keep a __dict__ instead of slots: a frozen slotted dataclass stores each field through
# object.__setattr__, which costs about twice one dict update (measured with callgrind).


@dataclass(frozen=True, init=False)
class TableOffer:
    """The package currently on the table.

    Attributes:
        package: The package.
        proposer: Who put it there ("mediator" for a mediator's proposal).
        accepted_by: Parties that have accepted it so far (the proposer counts).
        offer_id: Sequence number of the event that tabled it.
    """

    package: Mapping[str, Value]
    proposer: PartyId
    accepted_by: frozenset[PartyId]
    offer_id: int

    def __init__(
        self, package: Mapping[str, Value], proposer: PartyId, accepted_by: frozenset[PartyId], offer_id: int
    ) -> None:
        self.__dict__.update(package=package, proposer=proposer, accepted_by=accepted_by, offer_id=offer_id)


@dataclass(frozen=True, init=False)
class PartyView:
    """Everything a negotiator may use to decide its move.

    Attributes:
        party: Who is acting.
        parties: All parties, in scenario order.
        round: Current round (from 1).
        phase: Whether the party proposes or responds.
        space: The shared outcome space (public).
        utility: This party's own utility function (private to it). The built-in utilities are
            frozen (read-only mappings and arrays): a negotiator cannot change its utility or BATNA
            through its view, and the engine judges deals against the BATNA each party had when
            the session started.
        rules: The protocol's public rules.
        table: The package on the table, if any.
        record: Public events plus this party's own private ones.
        persona: This party's persona or role description from the scenario (private to it; its
            own copy each session).
    """

    party: PartyId
    parties: tuple[PartyId, ...]
    round: int
    phase: Phase
    space: OutcomeSpace
    utility: UtilityFunction
    rules: Rules
    table: TableOffer | None
    record: Record
    persona: Mapping[str, Any]

    def __init__(
        self,
        party: PartyId,
        parties: tuple[PartyId, ...],
        round: int,
        phase: Phase,
        space: OutcomeSpace,
        utility: UtilityFunction,
        rules: Rules,
        table: TableOffer | None,
        record: Record,
        persona: Mapping[str, Any],
    ) -> None:
        self.__dict__.update(
            party=party,
            parties=parties,
            round=round,
            phase=phase,
            space=space,
            utility=utility,
            rules=rules,
            table=table,
            record=record,
            persona=persona,
        )

    @property
    def reservation_value(self) -> float:
        """This party's BATNA value."""
        return self.utility.reservation_value

    @property
    def relative_time(self) -> float:
        """Progress through the round budget, from 0 (first round) to 1 (last round)."""
        if self.rules.max_rounds <= 1:
            return 1.0
        return min(1.0, (self.round - 1) / (self.rules.max_rounds - 1))

    @property
    def opponents(self) -> tuple[PartyId, ...]:
        """Every other party."""
        return tuple(p for p in self.parties if p != self.party)

    @property
    def offer(self) -> Mapping[str, Value] | None:
        """The package on the table made by someone else (what this party can accept), if any."""
        if self.table is None or self.party in self.table.accepted_by:
            return None
        return self.table.package
