"""The pure transition function of the O13 protocol: a state plus one move gives a new state.

Nothing here calls an agent, reads a clock or writes a log; `session.py` does the wiring. Keeping
the rules pure is what makes a saved trajectory replayable into the same final state.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from functools import lru_cache
from types import MappingProxyType
from typing import Any

from parley.domain.issues import Value
from parley.domain.space import OutcomeSpace
from parley.errors import ProtocolViolation
from parley.protocol.actions import Accept, Action, Propose, Reject, Say, Walk, action_to_json
from parley.protocol.events import PartyId
from parley.protocol.rules import Rules
from parley.protocol.view import Phase, TableOffer

EventSpec = tuple[str, dict[str, Any]]
"""(kind, data) of an event the runner should record."""


_FRESH: Mapping[Any, Any] = MappingProxyType({})
"""Marks an omitted mapping argument (replaced by a fresh empty dict, like a default factory)."""


@dataclass(frozen=True, init=False)
class SessionState:
    """Everything the rules need to know about a running session.

    Attributes:
        round: Current round, from 1.
        table: The package on the table.
        counters: Counter-offers made in the current round, by party.
        offers: Packages tabled so far (for the max_offers bound).
        last_offers: Each party's most recent package as option indices (for stagnation).
        moved: Whether any party moved more than ε this round.
        stagnant_rounds: Consecutive rounds without movement.
        walked: (party, reason) once someone walks.
    """

    round: int = 1
    table: TableOffer | None = None
    counters: Mapping[PartyId, Mapping[str, Value]] = field(default_factory=lambda: {})
    offers: int = 0
    last_offers: Mapping[PartyId, tuple[int, ...]] = field(default_factory=lambda: {})
    moved: bool = False
    stagnant_rounds: int = 0
    walked: tuple[PartyId, str] | None = None

    def __init__(
        self,
        round: int = 1,
        table: TableOffer | None = None,
        counters: Mapping[PartyId, Mapping[str, Value]] = _FRESH,
        offers: int = 0,
        last_offers: Mapping[PartyId, tuple[int, ...]] = _FRESH,
        moved: bool = False,
        stagnant_rounds: int = 0,
        walked: tuple[PartyId, str] | None = None,
    ) -> None:
        # Built twice a round: a __dict__ filled in one update instead of slots set one by one
        # through object.__setattr__ (see TableOffer in view.py); still frozen.
        self.__dict__.update(
            round=round,
            table=table,
            counters={} if counters is _FRESH else counters,
            offers=offers,
            last_offers={} if last_offers is _FRESH else last_offers,
            moved=moved,
            stagnant_rounds=stagnant_rounds,
            walked=walked,
        )


_ACTION_TYPES = (Propose, Accept, Reject, Walk, Say)
_ANSWER_TYPES = (Accept, Reject)


def check_move(
    space: OutcomeSpace, state: SessionState, party: PartyId, phase: Phase, action: object
) -> Action:
    """Validate a move against the rules and return it typed.

    Raises:
        ProtocolViolation: not an action, a malformed package, or an accept/reject with nothing to answer.
    """
    if not isinstance(action, _ACTION_TYPES):
        raise ProtocolViolation(
            f"returned {type(action).__name__}, expected an Action", party=party, action=action
        )
    if isinstance(action, Propose):
        try:
            space.validate(action.package)
        except (ValueError, TypeError, AttributeError) as error:
            raise ProtocolViolation(f"illegal package: {error}", party=party, action=action) from None
    if isinstance(action, _ANSWER_TYPES):
        table = state.table
        if table is None or (
            isinstance(action, Accept) and phase is Phase.PROPOSE and party in table.accepted_by
        ):
            raise ProtocolViolation(
                f"cannot {action.kind}: no offer from another party is on the table",
                party=party,
                action=action,
            )
    return action


@lru_cache(maxsize=256)
def _option_spans(shape: tuple[int, ...]) -> tuple[int, ...]:
    return tuple(max(n - 1, 1) for n in shape)


def _movement(space: OutcomeSpace, old: tuple[int, ...] | None, new: tuple[int, ...]) -> float:
    """Largest per-issue move between two offers, as a share of each issue's option range."""
    if old is None:
        return 1.0
    largest = 0.0
    for a, b, span in zip(old, new, _option_spans(space.shape), strict=True):
        step = abs(a - b) / span
        largest = step if step > largest else largest
    return largest


# The functions below build states with positional constructors rather than dataclasses.replace:
# they run several times per move and replace() costs several times more (it walks the fields).


def _note_offer(
    space: OutcomeSpace, rules: Rules, state: SessionState, party: PartyId, package: Mapping[str, Value]
) -> SessionState:
    indices = space.to_indices(package)
    moved = state.moved or _movement(space, state.last_offers.get(party), indices) > rules.stagnation_epsilon
    return SessionState(
        state.round,
        state.table,
        state.counters,
        state.offers,
        {**state.last_offers, party: indices},
        moved,
        state.stagnant_rounds,
        state.walked,
    )


def _with_table(state: SessionState, table: TableOffer | None, offers: int) -> SessionState:
    return SessionState(
        state.round,
        table,
        state.counters,
        offers,
        state.last_offers,
        state.moved,
        state.stagnant_rounds,
        state.walked,
    )


def _with_walked(state: SessionState, walked: tuple[PartyId, str]) -> SessionState:
    return SessionState(
        state.round,
        state.table,
        state.counters,
        state.offers,
        state.last_offers,
        state.moved,
        state.stagnant_rounds,
        walked,
    )


def _accepted(table: TableOffer, parties: frozenset[PartyId] | set[PartyId]) -> TableOffer:
    return TableOffer(table.package, table.proposer, table.accepted_by | parties, table.offer_id)


def apply_proposer_move(
    space: OutcomeSpace, rules: Rules, state: SessionState, party: PartyId, action: Action, seq: int
) -> tuple[SessionState, list[EventSpec]]:
    """Apply the proposer's move; seq is the sequence number its event will get."""
    events: list[EventSpec] = [("action", action_to_json(action))]
    match action:
        case Propose(package=package):
            state = _note_offer(space, rules, state, party, package)
            state = _with_table(
                state, TableOffer(dict(package), party, frozenset({party}), seq), state.offers + 1
            )
        case Accept():
            assert state.table is not None
            state = _with_table(state, _accepted(state.table, {party}), state.offers)
        case Walk(reason=reason):
            state = _with_walked(state, (party, reason or "walked away"))
        case Reject() | Say():
            pass
    return state, events


def apply_responses(
    space: OutcomeSpace, rules: Rules, state: SessionState, responses: Sequence[tuple[PartyId, Action]]
) -> tuple[SessionState, list[EventSpec]]:
    """Apply every responder's answer to the same table, revealed together."""
    events: list[EventSpec] = []
    accepted: set[PartyId] = set()
    counters = dict(state.counters)
    last_offers, moved, walked = state.last_offers, state.moved, state.walked
    for party, action in responses:
        events.append(("action", action_to_json(action)))
        # isinstance chain, most frequent answer first: cheaper than a match on class patterns.
        if isinstance(action, Propose):  # as _note_offer, without building intermediate states
            package = action.package
            indices = space.to_indices(package)
            moved = moved or _movement(space, last_offers.get(party), indices) > rules.stagnation_epsilon
            last_offers = {**last_offers, party: indices}
            counters[party] = dict(package)
        elif isinstance(action, Accept):
            accepted.add(party)
        elif isinstance(action, Walk) and walked is None:
            walked = (party, action.reason or "walked away")
    table = state.table
    if accepted and table is not None:
        table = _accepted(table, accepted)
    return SessionState(
        state.round, table, counters, state.offers, last_offers, moved, state.stagnant_rounds, walked
    ), events


def close_round(
    state: SessionState, next_proposer: PartyId, counter_seq: Mapping[PartyId, int], rules: Rules
) -> SessionState:
    """End a round: table the next proposer's counter, update the stagnation count, advance.

    Args:
        state: State after the responses.
        next_proposer: Who proposes next round.
        counter_seq: Sequence number of each counter's event (its offer id).
        rules: The rules (for stagnation).
    """
    table = state.table
    offers = state.offers
    if next_proposer in state.counters:
        table = TableOffer(
            state.counters[next_proposer],
            next_proposer,
            frozenset({next_proposer}),
            counter_seq[next_proposer],
        )
        offers += 1
    stagnant = 0 if state.moved else state.stagnant_rounds + 1
    return SessionState(state.round + 1, table, {}, offers, state.last_offers, False, stagnant, state.walked)


def table_mediator_offer(state: SessionState, package: Mapping[str, Value], seq: int) -> SessionState:
    """Put a mediator's package on the table; nobody has accepted it yet."""
    return replace(
        state,
        table=TableOffer(dict(package), "mediator", frozenset(), seq),
        offers=state.offers + 1,
        stagnant_rounds=0,
    )
