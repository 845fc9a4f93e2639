"""Fake negotiators for tests: play a fixed script of moves, then walk away."""

from __future__ import annotations

from collections.abc import Callable, Iterable

from parley.protocol.actions import Accept, Action, Walk
from parley.protocol.view import PartyView

ScriptStep = Action | Callable[[PartyView], Action]
"""One scripted move: a fixed action, or a function of the view (e.g. "accept if anything is offered")."""

SCRIPT_EXHAUSTED = "script exhausted"
"""The reason a scripted negotiator gives when it walks after its last move."""


class ScriptedNegotiator:
    """Plays the given moves in order, whatever it is shown; walks away once they run out.

    Args:
        actions: The moves; a callable step is called with the view and its result is played.

    Attributes:
        views: Every view it was shown, in order (for assertions about what a party could see).
    """

    def __init__(self, actions: Iterable[ScriptStep]) -> None:
        self._steps = list(actions)
        self._next = 0
        self.views: list[PartyView] = []

    @property
    def remaining(self) -> int:
        """Moves not yet played."""
        return len(self._steps) - self._next

    def act(self, view: PartyView) -> Action:
        """Play the next scripted move (or walk when the script is over)."""
        self.views.append(view)
        if self._next >= len(self._steps):
            return Walk(SCRIPT_EXHAUSTED)
        step = self._steps[self._next]
        self._next += 1
        return step(view) if callable(step) else step


def accept_or(fallback: Action) -> Callable[[PartyView], Action]:
    """A script step that accepts whatever another party has on the table, else plays fallback."""

    def step(view: PartyView) -> Action:
        return Accept() if view.offer is not None else fallback

    return step
