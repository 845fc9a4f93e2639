"""Conflict modes (competing, avoiding, accommodating, general) and the behaviour settings they imply."""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum

from parley.errors import ScenarioError


class ConflictMode(Enum):
    """Group-level persona shaping how simulated participants negotiate (ProMediate §2.2)."""

    COMPETING = "competing"
    AVOIDING = "avoiding"
    ACCOMMODATING = "accommodating"
    GENERAL = "general"

    @classmethod
    def parse(cls, text: str) -> ConflictMode:
        """Read a mode name (case-insensitive).

        Raises:
            ScenarioError: unknown mode.
        """
        try:
            return cls(text.strip().lower())
        except ValueError:
            names = [m.value for m in cls]
            raise ScenarioError(f"unknown conflict mode {text!r}; expected one of {names}") from None


@dataclass(frozen=True, slots=True)
class ModeProfile:
    """How a conflict mode moves a simulated participant.

    Attributes:
        concession_rate: Growth of willingness to accept lower-ranked options per exposure.
        social_weight: Pull of other parties' positions when choosing its own.
        base_tone: Tone with no frustration (-1 hostile … 1 warm).
        irritability: Frustration added when its position is attacked.
        contention_aversion: Motivation lost per unit of disagreement on a topic (avoiders
            sidestep contentious topics and take the easy ones first).
        assertiveness: Motivation added to stating and defending positions.
        cooperativeness: Motivation added to supporting, conceding and proposing compromises.
    """

    concession_rate: float
    social_weight: float
    base_tone: float
    irritability: float
    contention_aversion: float
    assertiveness: float
    cooperativeness: float


MODE_PROFILES: dict[ConflictMode, ModeProfile] = {
    ConflictMode.COMPETING: ModeProfile(0.03, 0.10, -0.15, 0.20, 0.0, 0.8, -0.3),
    ConflictMode.AVOIDING: ModeProfile(0.06, 0.30, 0.20, 0.08, 1.5, -0.2, 0.3),
    ConflictMode.ACCOMMODATING: ModeProfile(0.12, 0.50, 0.50, 0.05, 0.3, 0.0, 0.8),
    ConflictMode.GENERAL: ModeProfile(0.07, 0.25, 0.10, 0.10, 0.0, 0.3, 0.3),
}
"""Settings per mode. Chosen by hand to express the seed's one-line descriptions; not fitted to data."""
