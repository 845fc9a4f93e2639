"""ASTRA's LLM stages (see docs/llm.md, "ASTRA roles") and agent ``astra-llm`` (an entry point).

- `LLMPreferenceInterpreter` (twin `RuleInterpreter`): the partner's messages and offers → priorities, offer.
- `LLMParameterChooser` (twin `TitForTatParameters`): λ and S_max.
- `LLMVirtualPartner` (twin `IPPVirtualPartner`): TS and SI per candidate, averaged over N samples.
- `LLMTacticAssessor` (twin `RuleTacticAssessor`): one of the nine tactics, a ranking of the candidates.
- `AstraLLMNegotiator` / agent ``astra-llm``: ASTRA with those stages; the MILP computes the candidates.
"""

from parley.agents.registry import AgentEntry
from parley.llm.roles.astra_agent import AGENT_NAME, AstraLLMNegotiator, create_astra_llm
from parley.llm.roles.astra_common import (
    INTERPRETER_ROLE,
    PARAMETERS_ROLE,
    PARTNER_ROLE,
    STAGES,
    TACTIC_ROLE,
    StageContext,
    match_package,
    match_tactic,
)
from parley.llm.roles.astra_stages import (
    InterpretationReply,
    LLMParameterChooser,
    LLMPreferenceInterpreter,
    LLMTacticAssessor,
    LLMVirtualPartner,
    ParametersReply,
    PartnerEstimateReply,
    RankingReply,
    Reading,
    TacticReply,
    check_interpretation,
    check_parameters,
    check_ranking,
    ranking_to_scores,
)

ASTRA_LLM_AGENT = AgentEntry(
    AGENT_NAME,
    create_astra_llm,
    "ASTRA with LLM-played stages (needs --llm): interpretation, λ/S_max, virtual partner, tactics",
)
"""Agent ``astra-llm``: the registry finds it through the ``parley.agents`` entry point in pyproject.toml."""

__all__ = [
    "AGENT_NAME",
    "ASTRA_LLM_AGENT",
    "INTERPRETER_ROLE",
    "PARAMETERS_ROLE",
    "PARTNER_ROLE",
    "STAGES",
    "TACTIC_ROLE",
    "AstraLLMNegotiator",
    "InterpretationReply",
    "LLMParameterChooser",
    "LLMPreferenceInterpreter",
    "LLMTacticAssessor",
    "LLMVirtualPartner",
    "ParametersReply",
    "PartnerEstimateReply",
    "RankingReply",
    "Reading",
    "StageContext",
    "TacticReply",
    "check_interpretation",
    "check_parameters",
    "check_ranking",
    "create_astra_llm",
    "match_package",
    "match_tactic",
    "ranking_to_scores",
]
