"""ProMediate roles backed by an LLM, each with a deterministic twin (see docs/llm.md).

- `LLMParticipant` (twin `SimulatedParticipant`): thought generation, motivation, articulation.
- `LLMGenericMediator` / `LLMSocialMediator` (twins `GenericMediator` / `SocialMediator`).
- `LLMAttitudeExtractor` / `LLMAgreementScorer` (twins `StructuredAttitudeExtractor` /
  `RuleAgreementScorer`), for `ConsensusTracker` or `parley.metrics.consensus.consensus_series`.
- `LLMIntelligenceJudge` (twin: the MI rubric `parley.metrics.consensus.score_intervention`).
"""

from parley.llm.roles.promediate_common import (
    AGREEMENT_ROLE,
    ATTITUDE_ROLE,
    INTELLIGENCE_ROLE,
    MEDIATOR_ROLE,
    PARTICIPANT_ROLE,
    private_claims,
)
from parley.llm.roles.promediate_consensus import (
    AgreementReply,
    AttitudeReply,
    IntelligenceReply,
    JudgedIntervention,
    LLMAgreementScorer,
    LLMAttitudeExtractor,
    LLMIntelligenceJudge,
)
from parley.llm.roles.promediate_mediators import (
    LLM_MEDIATORS,
    CandidatesReply,
    InterventionDraft,
    LLMGenericMediator,
    LLMSocialMediator,
    ScoresReply,
    SocialWhenReply,
    WhenReply,
    create_llm_mediator,
    rubric_rating,
)
from parley.llm.roles.promediate_participant import (
    ArticulationReply,
    LLMParticipant,
    MotivationReply,
    ThoughtsReply,
    llm_participants,
)

__all__ = [
    "AGREEMENT_ROLE",
    "ATTITUDE_ROLE",
    "INTELLIGENCE_ROLE",
    "LLM_MEDIATORS",
    "MEDIATOR_ROLE",
    "PARTICIPANT_ROLE",
    "AgreementReply",
    "ArticulationReply",
    "AttitudeReply",
    "CandidatesReply",
    "IntelligenceReply",
    "InterventionDraft",
    "JudgedIntervention",
    "LLMAgreementScorer",
    "LLMAttitudeExtractor",
    "LLMGenericMediator",
    "LLMIntelligenceJudge",
    "LLMParticipant",
    "LLMSocialMediator",
    "MotivationReply",
    "ScoresReply",
    "SocialWhenReply",
    "ThoughtsReply",
    "WhenReply",
    "create_llm_mediator",
    "llm_participants",
    "private_claims",
    "rubric_rating",
]
