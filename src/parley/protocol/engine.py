"""The O13 rules as pure functions: which moves are legal, and how far an offer moved.

Nothing here calls an agent, reads a clock or writes a log; the session runner (`session.py`)
keeps the round state and applies these checks to every move.
"""

from __future__ import annotations

from collections.abc import Sequence

from parley.domain.space import OutcomeSpace
from parley.errors import ProtocolViolation
from parley.protocol.actions import Accept, Action, Propose, Reject, Say, Walk
from parley.protocol.events import PartyId
from parley.protocol.view import Phase, TableOffer

_ANSWER_TYPES = (Accept, Reject)
_TALK_TYPES = (Walk, Say)


def check_move(
    space: OutcomeSpace, table: TableOffer | None, party: PartyId, phase: Phase, action: object
) -> tuple[Action, tuple[int, ...] | None]:
    """Validate a move: the move typed, and a proposal's option indices (None for any other move).

    Raises:
        ProtocolViolation: not an action, a malformed package, or an accept/reject with nothing to answer.
    """
    if isinstance(action, Propose):
        try:
            return action, space.indices_of(action.package)
        except (ValueError, TypeError, AttributeError) as error:
            raise illegal_package(error, party, action) from None
    if isinstance(action, _ANSWER_TYPES):
        if table is None or (
            isinstance(action, Accept) and phase is Phase.PROPOSE and party in table.accepted_by
        ):
            raise ProtocolViolation(
                f"cannot {action.kind}: no offer from another party is on the table",
                party=party,
                action=action,
            )
    elif not isinstance(action, _TALK_TYPES):
        raise ProtocolViolation(
            f"returned {type(action).__name__}, expected an Action", party=party, action=action
        )
    return action, None


def illegal_package(error: Exception, party: PartyId, action: Propose) -> ProtocolViolation:
    """The violation of a proposal whose package `OutcomeSpace.indices_of` refused with error."""
    return ProtocolViolation(f"illegal package: {error}", party=party, action=action)


def option_spans(space: OutcomeSpace) -> tuple[int, ...]:
    """Per issue, the distance between its first and last option (at least 1)."""
    return tuple(max(n - 1, 1) for n in space.shape)


def movement(spans: Sequence[int], old: tuple[int, ...] | None, new: tuple[int, ...]) -> float:
    """Largest per-issue move between two offers, as a share of each issue's option range.

    A party's first offer counts as a full move.
    """
    if old is None:
        return 1.0
    largest = 0.0
    for a, b, span in zip(old, new, spans, strict=True):
        step = abs(a - b) / span
        largest = step if step > largest else largest
    return largest
