"""The labelled transition system: declared once, validated, illegal moves raise."""

from __future__ import annotations

import pytest

from parley.governance.machine import (
    TERMINAL,
    TRANSITIONS,
    Action,
    IllegalTransition,
    State,
    StateMachine,
    Transition,
    validate,
)


def test_every_state_is_reachable_and_terminals_absorb() -> None:
    validate(TRANSITIONS)
    assert not [t for t in TRANSITIONS if t.source in TERMINAL]
    assert {t.action for t in TRANSITIONS} == set(Action)


def test_illegal_transition_raises() -> None:
    machine = StateMachine()
    with pytest.raises(IllegalTransition, match="START --propose--> NEGOTIATE"):
        machine.fire(Action.PROPOSE, State.NEGOTIATE)
    assert machine.state == State.START


def test_gate_guards_screen_to_negotiate() -> None:
    machine = StateMachine(State.SCREEN)
    with pytest.raises(IllegalTransition, match="invariant I1"):
        machine.fire(Action.PROPOSE, State.NEGOTIATE, gate_open=False)
    machine.fire(Action.PROPOSE, State.NEGOTIATE, gate_open=True)
    assert machine.state == State.NEGOTIATE


def test_building_a_bad_system_fails() -> None:
    with pytest.raises(IllegalTransition, match="terminal state AGREE"):
        StateMachine(transitions=(*TRANSITIONS, Transition(State.AGREE, Action.ASK, State.SCREEN)))
    with pytest.raises(IllegalTransition, match="unreachable"):
        validate([Transition(State.START, Action.ASK, State.STCC)])
