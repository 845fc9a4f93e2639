"""Replaying a saved trajectory: its recorded moves go back through the engine, which must rebuild
the same events and the same final state (the O13 trajectory's reproducibility guarantee).
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from typing import Any

from parley.domain.issues import Value
from parley.domain.space import OutcomeSpace
from parley.protocol.actions import (
    Accept,
    Action,
    CoalitionAnswer,
    DeclineCoalition,
    JoinCoalition,
    Propose,
    ProposeCoalition,
    Reject,
    Say,
    Walk,
)
from parley.protocol.coalition import CoalitionInvitation
from parley.protocol.events import Event, PartyId, Trajectory, TrajectoryError
from parley.protocol.payloads import MediatorProposal, Trace
from parley.protocol.rules import Rules
from parley.protocol.session import MediatorView, PartySetup, Session, SessionResult
from parley.protocol.view import PartyView


class _ReplayNegotiator:
    """Plays back one party's recorded moves in order, with the private trace each move left, and
    its answers to coalition invitations in the rounds it gave them (None in the other rounds)."""

    def __init__(
        self,
        moves: Iterator[tuple[Action, Mapping[str, Any] | None]],
        answers: list[tuple[int, CoalitionAnswer]],
    ) -> None:
        self._moves = moves
        self._answers = answers
        self._trace: Mapping[str, Any] | None = None

    def act(self, view: PartyView) -> Action:
        action, self._trace = next(self._moves)
        return action

    def explain(self) -> Mapping[str, Any] | None:
        return self._trace

    def answer_coalition(self, view: PartyView, invitation: CoalitionInvitation) -> CoalitionAnswer | None:
        if self._answers and self._answers[0][0] == view.round:
            return self._answers.pop(0)[1]
        return None


class _ReplayMediator:
    """Tables each recorded mediator proposal in the round it was made (asked on stagnation and,
    being proactive, after every round: at most one proposal is recorded per round)."""

    proactive = True

    def __init__(self, packages: Sequence[tuple[int, Mapping[str, Value]]]) -> None:
        self._packages = list(packages)
        self._next = 0

    def propose(self, view: MediatorView) -> Mapping[str, Value] | None:
        if self._next < len(self._packages) and self._packages[self._next][0] == view.round:
            self._next += 1
            return self._packages[self._next - 1][1]
        return None


def replay(
    trajectory: Trajectory, space: OutcomeSpace, parties: Sequence[PartySetup], rules: Rules | None = None
) -> SessionResult:
    """Re-run a saved trajectory's moves through the engine; the result equals the original's.

    Raises:
        ProtocolViolation: the trajectory's moves are not legal under these rules.
        TrajectoryError: an action, trace or mediator proposal's data does not fit its kind.
    """
    moves: dict[PartyId, list[tuple[Action, Mapping[str, Any] | None]]] = {p.name: [] for p in parties}
    answers: dict[PartyId, list[tuple[int, CoalitionAnswer]]] = {p.name: [] for p in parties}
    traces: dict[PartyId, Mapping[str, Any]] = {}
    for event in trajectory:
        if event.party not in moves:
            continue
        if event.kind == "trace":  # a move's trace is recorded before the move itself
            traces[event.party] = event.typed(Trace).extra
        elif event.kind == "action":
            action = _action(event)
            if isinstance(action, JoinCoalition | DeclineCoalition):  # (answers carry no trace)
                answers[event.party].append((event.round, action))
            else:
                moves[event.party].append((action, traces.pop(event.party, None)))
    started = trajectory.of_kind("session_started")
    # (metadata is free-form, and its key order is part of the bytes the replay must rebuild)
    metadata = (
        {k: v for k, v in started[0].data.items() if k not in ("parties", "issues", "rules")}
        if started
        else {}
    )
    packages = [(e.round, e.typed(MediatorProposal).package) for e in trajectory.of_kind("mediator_proposal")]
    mediator = _ReplayMediator(packages)
    negotiators = {name: _ReplayNegotiator(iter(actions), answers[name]) for name, actions in moves.items()}
    return Session(space, parties, negotiators, rules, mediator=mediator, metadata=metadata).run()


def _action(event: Event) -> Action:
    """The recorded move of an "action" event.

    Raises:
        TrajectoryError: its data is not a move.
    """
    payload = event.payload
    if isinstance(
        payload, Propose | Accept | Reject | Walk | Say | ProposeCoalition | JoinCoalition | DeclineCoalition
    ):
        return payload
    raise TrajectoryError(f"action event {event.seq}: not a move: {getattr(payload, 'problem', '')}")
