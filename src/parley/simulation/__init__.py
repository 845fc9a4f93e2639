"""The ProMediate testbed: simulated participants, the mediated conversation loop, consensus tracking."""

from parley.simulation.consensus import (
    DIMENSIONS,
    AgreementScorer,
    Attitude,
    AttitudeExtractor,
    ConsensusTracker,
    RuleAgreementScorer,
    StructuredAttitudeExtractor,
)
from parley.simulation.conversation import Conversation, ConversationResult, run_conversation, turn_budget
from parley.simulation.modes import MODE_PROFILES, ConflictMode, ModeProfile
from parley.simulation.participants import Participant, SimulatedParticipant, SpeakingSettings, Thought

__all__ = [
    "DIMENSIONS",
    "MODE_PROFILES",
    "AgreementScorer",
    "Attitude",
    "AttitudeExtractor",
    "ConflictMode",
    "ConsensusTracker",
    "Conversation",
    "ConversationResult",
    "ModeProfile",
    "Participant",
    "RuleAgreementScorer",
    "SimulatedParticipant",
    "SpeakingSettings",
    "StructuredAttitudeExtractor",
    "Thought",
    "run_conversation",
    "turn_budget",
]
