"""Plugging GAIA LLM roles into a delegate: which roles are LLM-backed and their twins' settings."""

from __future__ import annotations

from collections.abc import Iterable

import numpy as np

from parley.governance.config import DomainConfig
from parley.governance.drafting import TemplateDrafter
from parley.governance.session import DelegateRoles
from parley.llm.context import LLMSession
from parley.llm.roles.gaia_common import (
    CRITIC_ROLE,
    DRAFTER_ROLE,
    EXTRACTOR_ROLE,
    GAIA_ROLES,
    MODERATOR_ROLE,
    parse_roles,
)
from parley.llm.roles.gaia_critic import LLMCritic
from parley.llm.roles.gaia_drafter import LLMDrafter
from parley.llm.roles.gaia_extractor import llm_extractor
from parley.llm.roles.gaia_moderator import LLMModerator


def llm_delegate_roles(
    config: DomainConfig,
    llm: LLMSession,
    roles: str | Iterable[str] = GAIA_ROLES,
    *,
    seed: int = 0,
    slip_rate: float = 0.0,
    reveal_limits: bool = False,
) -> DelegateRoles:
    """The delegate roles to pass to `run_session`/`start_session`, LLM-backed where asked.

    Args:
        config: Domain config.
        llm: The session's LLM side.
        roles: Which roles use the model ("drafter,extractor,moderator,critic" or an iterable);
            the others keep their rule-based defaults.
        seed: Seed of the drafter twin's slip model (as the default delegate uses).
        slip_rate: The drafter twin's slip rate.
        reveal_limits: Let the LLM drafter see the approved band of the term at stake.

    Raises:
        ScenarioError: an unknown role name.
    """
    chosen = parse_roles(roles)
    drafter = None
    if DRAFTER_ROLE in chosen:
        twin = TemplateDrafter(config, np.random.default_rng(seed), slip_rate)
        drafter = LLMDrafter(llm, config, twin, reveal_limits=reveal_limits)
    return DelegateRoles(
        extractor=llm_extractor(llm, config) if EXTRACTOR_ROLE in chosen else None,
        moderator=LLMModerator(llm, config) if MODERATOR_ROLE in chosen else None,
        drafter=drafter,
        critic=LLMCritic(llm, config) if CRITIC_ROLE in chosen else None,
    )
