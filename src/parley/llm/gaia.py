"""GAIA delegate roles backed by an LLM, each with a deterministic twin (see docs/llm.md).

- `LLMDrafter` (twin `TemplateDrafter`): the delegate's messages; every draft still passes the preflight.
- `LLMExtractor` (twin `LexiconExtractor`), combined with the pattern extractor by the dual rule
  (`llm_extractor`).
- `LLMModerator` (twin `RuleModerator`): one of eight labels and a confidence; CLARIFY below τ_classify.
- `LLMCritic` (twin `RuleCritic`): clarity or persuasion tactics for `merge_channels`.
- `llm_delegate_roles` picks which of them a session uses (`run_session(..., roles=...)`).
"""

from parley.llm.roles.gaia_common import (
    CRITIC_ROLE,
    DRAFTER_ROLE,
    EXTRACTOR_ROLE,
    GAIA_ROLES,
    MODERATOR_ROLE,
    parse_roles,
    quoted,
    redact_amounts,
)
from parley.llm.roles.gaia_critic import CriticReply, LLMCritic, Suggestion, check_suggestions
from parley.llm.roles.gaia_drafter import DraftReply, LLMDrafter, check_draft
from parley.llm.roles.gaia_extractor import (
    ExtractionReply,
    FieldFinding,
    LLMExtractor,
    ValueNormaliser,
    llm_extractor,
)
from parley.llm.roles.gaia_moderator import LLMModerator, ModeratorReply
from parley.llm.roles.gaia_wiring import llm_delegate_roles

__all__ = [
    "CRITIC_ROLE",
    "DRAFTER_ROLE",
    "EXTRACTOR_ROLE",
    "GAIA_ROLES",
    "MODERATOR_ROLE",
    "CriticReply",
    "DraftReply",
    "ExtractionReply",
    "FieldFinding",
    "LLMCritic",
    "LLMDrafter",
    "LLMExtractor",
    "LLMModerator",
    "ModeratorReply",
    "Suggestion",
    "ValueNormaliser",
    "check_draft",
    "check_suggestions",
    "llm_delegate_roles",
    "llm_extractor",
    "parse_roles",
    "quoted",
    "redact_amounts",
]
