"""The delegate's labelled transition system M = (S, s0, T, A) of GAIA §3.3.1.

Transitions are declared once, validated when the machine is built, and firing an undeclared
transition (or SCREEN → NEGOTIATE with the gate closed) raises `IllegalTransition`.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from enum import StrEnum

from parley.errors import InternalError


class State(StrEnum):
    """Delegate states."""

    START = "START"
    STCC = "STCC"
    SCREEN = "SCREEN"
    NEGOTIATE = "NEGOTIATE"
    SUMMARIZE = "SUMMARIZE"
    AGREE = "AGREE"
    NO_DEAL = "NO_DEAL"
    ESCALATE = "ESCALATE"
    STALL = "STALL"


class Action(StrEnum):
    """Observable actions that label transitions."""

    ASK = "ask"
    SUMMARIZE = "summarize"
    PROPOSE = "propose"
    CHECK_SAFETY = "check_safety"
    ESCALATE = "escalate"
    APPROVE = "approve"
    DECLINE = "decline"


TERMINAL = frozenset({State.AGREE, State.NO_DEAL, State.STALL})
"""Sessions end here. ESCALATE is a pause: the flow waits for the principal and resumes."""
ACTIVE = frozenset({State.STCC, State.SCREEN, State.NEGOTIATE, State.SUMMARIZE})


class IllegalTransition(InternalError):
    """The delegate tried a transition the machine does not declare (a bug, never a silent no-op)."""


@dataclass(frozen=True, slots=True)
class Transition:
    """One element of T ⊆ S × A × S."""

    source: State
    action: Action
    target: State


def _declared() -> tuple[Transition, ...]:
    s, a = State, Action
    rows: list[tuple[State, Action, State]] = [
        (s.START, a.ASK, s.STCC),
        (s.START, a.ASK, s.SCREEN),
        (s.STCC, a.ASK, s.SCREEN),
        (s.SCREEN, a.ASK, s.SCREEN),
        (s.SCREEN, a.PROPOSE, s.NEGOTIATE),
        (s.NEGOTIATE, a.PROPOSE, s.NEGOTIATE),
        (s.NEGOTIATE, a.ASK, s.SCREEN),
        (s.NEGOTIATE, a.SUMMARIZE, s.SUMMARIZE),
        (s.SUMMARIZE, a.APPROVE, s.AGREE),
        (s.SUMMARIZE, a.DECLINE, s.NO_DEAL),
        (s.ESCALATE, a.APPROVE, s.SCREEN),
        (s.ESCALATE, a.APPROVE, s.NEGOTIATE),
        (s.ESCALATE, a.APPROVE, s.SUMMARIZE),
        (s.ESCALATE, a.APPROVE, s.AGREE),
        (s.ESCALATE, a.DECLINE, s.NO_DEAL),
        (s.ESCALATE, a.DECLINE, s.STALL),
    ]
    for state in ACTIVE:
        rows += [
            (state, a.CHECK_SAFETY, state),
            (state, a.ESCALATE, s.ESCALATE),
            (state, a.SUMMARIZE, state),
            (state, a.DECLINE, s.STALL),
            (state, a.DECLINE, s.NO_DEAL),
        ]
    rows += [(s.STCC, a.ASK, s.STCC), (s.NEGOTIATE, a.ASK, s.NEGOTIATE)]
    return tuple(Transition(*row) for row in dict.fromkeys(rows))


TRANSITIONS: tuple[Transition, ...] = _declared()


def validate(transitions: Iterable[Transition]) -> None:
    """Check the declared system: terminal states are absorbing, every state is reachable from START.

    Raises:
        IllegalTransition: naming the offending transition or state.
    """
    table = tuple(transitions)
    for transition in table:
        if transition.source in TERMINAL:
            raise IllegalTransition(
                f"terminal state {transition.source} has an outgoing transition {transition}"
            )
    reachable = {State.START}
    frontier = [State.START]
    while frontier:
        state = frontier.pop()
        for transition in table:
            if transition.source == state and transition.target not in reachable:
                reachable.add(transition.target)
                frontier.append(transition.target)
    missing = set(State) - reachable
    if missing:
        raise IllegalTransition(f"states unreachable from START: {sorted(missing)}")


class StateMachine:
    """Current state plus the checked `fire` operation.

    Args:
        state: Initial state (START for new sessions, the stored state when resuming).
        transitions: The declared transition relation (validated here).
    """

    def __init__(self, state: State = State.START, transitions: Iterable[Transition] = TRANSITIONS) -> None:
        self._table = frozenset(transitions)
        validate(self._table)
        self.state = state

    def allowed(self, action: Action, target: State) -> bool:
        """Whether (state, action, target) is declared."""
        return Transition(self.state, action, target) in self._table

    def fire(self, action: Action, target: State, *, gate_open: bool = True) -> Transition:
        """Move to target by action.

        Args:
            action: The observable action.
            target: The next state.
            gate_open: g(h) = 1{TCI_w ≥ τ_gate}; required for SCREEN → NEGOTIATE (invariant I1).

        Raises:
            IllegalTransition: if the transition is not declared or the gate is closed.
        """
        transition = Transition(self.state, action, target)
        if transition not in self._table:
            raise IllegalTransition(f"illegal transition {self.state} --{action}--> {target}")
        if target == State.NEGOTIATE and self.state == State.SCREEN and not gate_open:
            raise IllegalTransition("SCREEN → NEGOTIATE with TCI below τ_gate (invariant I1)")
        self.state = target
        return transition

    @property
    def terminal(self) -> bool:
        """Whether the session has ended."""
        return self.state in TERMINAL
