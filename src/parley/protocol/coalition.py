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
from dataclasses import dataclass
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
