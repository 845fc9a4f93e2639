"""What one ASTRA move carries between its steps: the stage-1 signals, the decision with everything
its trace reports, and the memory the agent keeps from one move to the next."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from parley.agents.astra.opponent import PartnerModel
from parley.agents.astra.reasons import Reason
from parley.agents.astra.selection import ScoredCandidate
from parley.agents.astra.signals import Fairness, Stance
from parley.agents.astra.stages import Candidate
from parley.protocol.actions import Action
from parley.protocol.events import PartyId


@dataclass(slots=True)
class Memory:
    """What the agent remembers between moves beyond its record.

    Attributes:
        warned_at: Number of partner offers seen when the agent warned it would walk (None: no warning yet).
        reasked: The agent already re-asked for priorities after an inconsistency.
        previous_model: The IPP of the previous move (for the consistency checker).
        deadlock_warned_at: Number of partner offers seen when the agent warned about a deadlock
            with an above-BATNA offer on the table (rule (a) without walking; None: not yet).
        previous_models: In multi-party games, the previous move's IPP of each other party.
    """

    warned_at: int | None = None
    reasked: bool = False
    previous_model: PartnerModel | None = None
    deadlock_warned_at: int | None = None
    previous_models: dict[PartyId, PartnerModel] = field(default_factory=lambda: {})


@dataclass(frozen=True, slots=True)
class Signals:
    """Stage 1 results plus the scores they rest on (points)."""

    fairness: Fairness
    stance: Stance
    offer_agent_points: float | None
    offer_partner_points: float | None
    previous_offer_partner_points: float | None


@dataclass(slots=True)
class Decision:
    """One move with everything the trace reports."""

    action: Action
    mode: str
    reasons: list[Reason] = field(default_factory=lambda: [])
    stage2: dict[str, Any] | None = None
    tactic: dict[str, Any] | None = None
    candidates: list[ScoredCandidate] = field(default_factory=lambda: [])
    chosen: Candidate | None = None
