"""The ProMediate testbed: simulated participants, the mediated conversation loop, consensus tracking."""

from typing import TYPE_CHECKING

from parley._lazy import lazy_exports

if TYPE_CHECKING:
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

__getattr__, __dir__ = lazy_exports(
    __name__,
    {
        "parley.simulation.consensus": (
            "DIMENSIONS",
            "AgreementScorer",
            "Attitude",
            "AttitudeExtractor",
            "ConsensusTracker",
            "RuleAgreementScorer",
            "StructuredAttitudeExtractor",
        ),
        "parley.simulation.conversation": (
            "Conversation",
            "ConversationResult",
            "run_conversation",
            "turn_budget",
        ),
        "parley.simulation.modes": ("MODE_PROFILES", "ConflictMode", "ModeProfile"),
        "parley.simulation.participants": (
            "Participant",
            "SimulatedParticipant",
            "SpeakingSettings",
            "Thought",
        ),
    },
)
