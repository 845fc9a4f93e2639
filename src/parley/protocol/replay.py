"""Replaying a saved trajectory: its recorded moves go back through the engine, which must rebuild
the same events and the same final state (the O13 trajectory's reproducibility guarantee).
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from typing import Any

from parley.domain.issues import Value
from parley.domain.space import OutcomeSpace
from parley.protocol.actions import Action, action_from_json
from parley.protocol.events import PartyId, Trajectory
from parley.protocol.rules import Rules
from parley.protocol.session import MediatorView, PartySetup, Session, SessionResult
from parley.protocol.view import PartyView


class _ReplayNegotiator:
    """Plays back one party's recorded moves in order, with the private trace each move left."""

    def __init__(self, moves: Iterator[tuple[Action, Mapping[str, Any] | None]]) -> None:
        self._moves = moves
        self._trace: Mapping[str, Any] | None = None

    def act(self, view: PartyView) -> Action:
        action, self._trace = next(self._moves)
        return action

    def explain(self) -> Mapping[str, Any] | None:
        return self._trace


class _ReplayMediator:
    def __init__(self, packages: Iterator[Mapping[str, Value]]) -> None:
        self._packages = packages

    def propose(self, view: MediatorView) -> Mapping[str, Value] | None:
        return next(self._packages, None)


def replay(
    trajectory: Trajectory, space: OutcomeSpace, parties: Sequence[PartySetup], rules: Rules | None = None
) -> SessionResult:
    """Re-run a saved trajectory's moves through the engine; the result equals the original's.

    Raises:
        ProtocolViolation: the trajectory's moves are not legal under these rules.
    """
    moves: dict[PartyId, list[tuple[Action, Mapping[str, Any] | None]]] = {p.name: [] for p in parties}
    traces: dict[PartyId, Mapping[str, Any]] = {}
    for event in trajectory:
        if event.party not in moves:
            continue
        if event.kind == "trace":  # a move's trace is recorded before the move itself
            traces[event.party] = event.data
        elif event.kind == "action":
            moves[event.party].append((action_from_json(event.data), traces.pop(event.party, None)))
    started = trajectory.of_kind("session_started")
    metadata = (
        {k: v for k, v in started[0].data.items() if k not in ("parties", "issues", "rules")}
        if started
        else {}
    )
    mediator = _ReplayMediator(iter([e.data["package"] for e in trajectory.of_kind("mediator_proposal")]))
    negotiators = {name: _ReplayNegotiator(iter(actions)) for name, actions in moves.items()}
    return Session(space, parties, negotiators, rules, mediator=mediator, metadata=metadata).run()
