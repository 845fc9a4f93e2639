"""The O13 coalition sub-protocol of k-of-n games: the invitation a party answers and the checks.

On its turn to propose, a party may ask named parties to form a coalition around a package
(`ProposeCoalition`). The coalition (the proposer and the parties asked) must include every vetoer
and reach the k the acceptance rule needs. Each asked party answers `JoinCoalition` or
`DeclineCoalition` through its negotiator's optional ``answer_coalition(view, invitation)``
(returning None answers later); a negotiator without that method declines. When every asked party
still in the attempt has joined, the engine announces the coalition (``coalition_formed``) and the
package is agreed under the acceptance rule, by the members only. A vetoer's decline, a decline
that leaves the coalition short of k, a member leaving the table, or the attempt's rounds running
out ends it (``coalition_ended``). One attempt is open at a time. Nothing here calls an agent; the
session (`session.py`) keeps the attempt's state.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import cast

from parley.domain.issues import Value
from parley.domain.space import OutcomeSpace
from parley.errors import ProtocolViolation
from parley.protocol.actions import ProposeCoalition
from parley.protocol.events import Event, PartyId
from parley.protocol.rules import Rules
from parley.protocol.view import PartyView, Phase, TableOffer

NO_ANSWER_METHOD = "does not answer coalition invitations"
"""The reason recorded for a party whose negotiator has no ``answer_coalition``: it declines."""


@dataclass(frozen=True, slots=True)
class CoalitionInvitation:
    """An open coalition attempt as an asked party sees it.

    Attributes:
        package: The package the coalition would agree.
        proposer: Who proposed it (a member).
        members: The parties asked (the proposer not among them), in scenario order.
        joined: The asked parties that have joined so far.
        vetoes: The parties whose acceptance every agreement needs.
        required: k, the number of parties the acceptance rule needs.
        proposal: Sequence number of the proposal's event.
        last_round: The last round in which the attempt is open.
    """

    package: Mapping[str, Value]
    proposer: PartyId
    members: tuple[PartyId, ...]
    joined: tuple[PartyId, ...]
    vetoes: tuple[PartyId, ...]
    required: int
    proposal: int
    last_round: int


def check_coalition(
    space: OutcomeSpace,
    rules: Rules,
    present: Sequence[PartyId],
    proposer: PartyId,
    action: ProposeCoalition,
    *,
    attempt_open: bool,
) -> tuple[int, ...]:
    """Check a coalition proposal; its package's option indices.

    Args:
        space: The outcome space.
        rules: The rules (acceptance rule and coalition_rounds).
        present: The parties still at the table, in scenario order.
        proposer: Who proposes.
        action: The proposal.
        attempt_open: Whether another attempt is still open.

    Raises:
        ProtocolViolation: the sub-protocol is off, an attempt is open, the package is illegal, or the
            coalition names an unknown or absent party, repeats one, misses a vetoer or falls short of k.
    """
    if not rules.allows_coalitions(len(present)):
        raise _refused(proposer, action, _off_reason(rules, len(present)))
    if attempt_open:
        raise _refused(proposer, action, "another coalition attempt is still open")
    members = cast(object, action.members)  # (an agent's object: not type-checked at run time)
    if not isinstance(members, tuple | list) or not all(isinstance(m, str) for m in _items(members)):
        raise _refused(proposer, action, "members must be a list of party names")
    try:
        indices = space.indices_of(action.package)
    except (ValueError, TypeError, AttributeError) as error:
        raise _refused(proposer, action, f"illegal package: {error}") from None
    members = tuple(str(m) for m in _items(members))
    absent = [m for m in members if m not in present or m == proposer]
    if absent:
        raise _refused(proposer, action, f"cannot ask {_names(absent)}: not another party at the table")
    if len(set(members)) != len(members):
        raise _refused(proposer, action, "a party is asked more than once")
    coalition = {proposer, *members}
    missing = [v for v in rules.acceptance.vetoes if v not in coalition]
    if missing:
        raise _refused(proposer, action, f"a coalition must include every vetoer; missing {_names(missing)}")
    required = rules.acceptance.required or len(present)
    if len(coalition) < required:
        raise _refused(
            proposer, action, f"a coalition needs {required} parties with its proposer, got {len(coalition)}"
        )
    return indices


def _items(values: tuple[object, ...] | list[object]) -> tuple[object, ...]:
    return tuple(values)


def _off_reason(rules: Rules, parties: int) -> str:
    if rules.coalition_rounds == 0:
        return "coalitions are off in this game (coalition_rounds is 0)"
    return f"coalitions need a k-of-n acceptance rule with k below {parties}; this game needs every party"


def _refused(party: PartyId, action: ProposeCoalition, reason: str) -> ProtocolViolation:
    return ProtocolViolation(f"coalition refused: {reason}", party=party, action=action)


def _names(parties: Sequence[object]) -> str:
    """Party names for a one-line message (repr: a name with a newline stays on one line)."""
    shown = [repr(p)[:40] for p in parties[:5]]
    return ", ".join(shown) + (f" and {len(parties) - 5} more" if len(parties) > 5 else "")


def open_attempt(record: Sequence[Event]) -> bool:
    """Whether a coalition attempt is open according to a public record (for agents)."""
    open_now = False
    for event in record:
        if event.kind == "action" and event.data.get("kind") == "propose_coalition":
            open_now = True
        elif event.kind in ("coalition_formed", "coalition_ended"):
            open_now = False
    return open_now


def proposed_packages(record: Sequence[Event]) -> list[Mapping[str, Value]]:
    """Packages proposed as coalitions so far, in order (for agents not to repeat a failed one)."""
    return [
        e.data["package"]
        for e in record
        if e.kind == "action" and e.data.get("kind") == "propose_coalition" and "package" in e.data
    ]


MEDIATOR_PARTY: PartyId = "mediator"
"""Who a mediator's proposal is recorded as (the engine's `session.MEDIATOR`)."""


@dataclass(frozen=True, slots=True)
class AnsweredTable:
    """One round's table and the answers it got, rebuilt from a public record.

    Attributes:
        round: The round.
        package: The package on the table.
        proposer: Who tabled it ("mediator" for a mediator's package).
        accepted: Parties that accepted it in that round (its proposer not counted).
        dissented: Parties that answered otherwise (rejected it or countered).
    """

    round: int
    package: Mapping[str, Value]
    proposer: PartyId
    accepted: frozenset[PartyId]
    dissented: frozenset[PartyId]


@dataclass
class _Reading:
    """What `read_record` builds as it reads the events (the engine's round state, from the outside)."""

    order: list[PartyId]
    gone: set[PartyId]
    revealed: dict[PartyId, list[dict[str, Value]]]
    answered: list[AnsweredTable]
    table: tuple[dict[str, Value], PartyId] | None = None
    mediator_open: bool = False  # the table is a mediator's package every party answers this round
    mediator_accepted: bool = False  # somebody accepted it (the next round has a proposer again)
    current: int = 0  # the round whose events are being read
    closed: bool = True  # whether that round's close (the next proposer's counter tabled) was applied
    invitation: dict[str, Value] | None = None
    accepted: set[PartyId] = field(default_factory=set[PartyId])
    dissented: set[PartyId] = field(default_factory=set[PartyId])
    counters: dict[PartyId, dict[str, Value]] = field(default_factory=dict[PartyId, dict[str, Value]])
    acted: set[PartyId] = field(default_factory=set[PartyId])

    def live(self) -> list[PartyId]:
        return [p for p in self.order if p not in self.gone]

    def note(self, party: PartyId | None, package: dict[str, Value] | None) -> None:
        if party in self.revealed and package is not None and package not in self.revealed[party]:
            self.revealed[party].append(package)

    def flush(self) -> None:
        """Record the answers the current table got so far (when there were any)."""
        if self.table is not None and (self.accepted or self.dissented):
            package, proposer = self.table
            self.answered.append(
                AnsweredTable(
                    self.current, package, proposer, frozenset(self.accepted), frozenset(self.dissented)
                )
            )
        self.accepted, self.dissented = set(), set()

    def close(self) -> None:
        """The round's end: the next proposer's counter becomes the table."""
        live = self.live()
        if not self.closed and live:
            nxt = live[self.current % len(live)]
            if nxt in self.counters:
                self.flush()
                self.table, self.mediator_open = (self.counters[nxt], nxt), False
        self.closed = True

    def set_table(self, package: dict[str, Value], proposer: PartyId) -> None:
        self.flush()
        self.table = (package, proposer)


def read_record(
    record: Sequence[Event], parties: Sequence[PartyId], rules: Rules
) -> tuple[dict[PartyId, list[dict[str, Value]]], list[AnsweredTable]]:
    """What a public record reveals: per party, the packages it revealed it would accept (oldest
    first: the packages it put forward itself, the tables it accepted, the coalitions it joined), and
    every table with the answers it got. The table each answer refers to is rebuilt from the proposer
    rotation, so a mediator or an agent may call this with the public record alone.

    Args:
        record: Public events, in order.
        parties: Every party, in scenario order.
        rules: The rules (the proposer rotation).
    """
    state = _Reading(list(rules.order(tuple(parties))), set(), {p: [] for p in parties}, [])
    for event in record:
        if event.round != state.current:
            state.close()
            state.flush()
            state.current, state.closed = event.round, False
            state.counters, state.acted = {}, set()
            if state.mediator_open and state.mediator_accepted:
                state.mediator_open = False
        kind, data, party = event.kind, event.data, event.party
        package = data.get("package")
        if kind in ("mediator_proposal", "stagnation"):
            state.close()
            if kind == "mediator_proposal" and isinstance(package, dict):
                state.set_table(dict(cast(dict[str, Value], package)), MEDIATOR_PARTY)
                state.mediator_open, state.mediator_accepted = True, False
        elif kind == "withdrawal" and party is not None:
            state.gone.add(party)
        elif kind == "coalition_formed" and isinstance(package, dict):
            state.set_table(dict(cast(dict[str, Value], package)), party or "")
        elif kind == "action" and party is not None:
            _read_move(state, party, data.get("kind"), package)
    state.flush()
    return state.revealed, state.answered


def _read_move(state: _Reading, party: PartyId, move: object, package: object) -> None:
    live = state.live()
    proposer = live[(state.current - 1) % len(live)] if live else None
    turn = party == proposer and party not in state.acted and not state.mediator_open
    state.acted.add(party)
    if move == "propose" and isinstance(package, dict):
        offer = dict(cast(dict[str, Value], package))
        state.note(party, offer)
        if turn:
            state.set_table(offer, party)
        else:
            state.counters[party] = offer
            state.dissented.add(party)
    elif move == "propose_coalition" and isinstance(package, dict):
        state.invitation = dict(cast(dict[str, Value], package))
        state.note(party, state.invitation)
    elif move == "join_coalition":
        state.note(party, state.invitation)
    elif move == "accept" and state.table is not None:
        state.note(party, state.table[0])
        state.accepted.add(party)
        state.mediator_accepted = state.mediator_accepted or state.mediator_open
    elif move in ("reject", "walk") and not turn:
        state.dissented.add(party)


def revealed_acceptable(
    record: Sequence[Event], parties: Sequence[PartyId], rules: Rules
) -> dict[PartyId, list[dict[str, Value]]]:
    """Per party, the packages it has revealed it would accept, oldest first (see `read_record`)."""
    return read_record(record, parties, rules)[0]


def invitation_view(view: PartyView, invitation: CoalitionInvitation) -> PartyView:
    """The view with the invitation's package as the offer on the table, accepted by the proposer and
    the members that joined: for agents that answer an invitation as they would answer that offer."""
    accepted = frozenset((invitation.proposer, *invitation.joined))
    table = TableOffer(invitation.package, invitation.proposer, accepted, invitation.proposal)
    return PartyView(
        view.party,
        view.parties,
        view.round,
        Phase.RESPOND,
        view.space,
        view.utility,
        view.rules,
        table,
        view.record,
        view.persona,
    )
