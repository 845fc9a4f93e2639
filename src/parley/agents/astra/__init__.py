"""ASTRA: the strategic negotiator of seed 003 (opponent modelling, tit-for-tat offer optimisation).

Importing this package registers "astra" and "astra-ablation" in the agent registry.
"""

from parley.agents.astra.agent import AstraNegotiator, create_astra, create_astra_ablation
from parley.agents.astra.coach import Advice, Coach, format_advice
from parley.agents.astra.config import AstraConfig
from parley.agents.astra.decision import Memory
from parley.agents.astra.opponent import Evidence, PartnerModel
from parley.agents.astra.own import outcome_limit
from parley.agents.astra.selection import Tactic, TacticContext
from parley.agents.astra.signals import Fairness, Stance, assess_fairness, assess_stance
from parley.agents.astra.stages import (
    AcceptanceEstimate,
    Candidate,
    ParameterChoice,
    ParameterChooser,
    PartnerSituation,
    PreferenceInterpreter,
    TacticAssessor,
    VirtualPartner,
)
from parley.agents.astra.trace import format_trace
from parley.agents.registry import register

register(
    "astra",
    create_astra,
    "ASTRA: opponent modelling, fairness/stance tit-for-tat, exact offer optimisation, PAP+tactic selection",
    max_outcomes=outcome_limit,
)
register(
    "astra-ablation",
    create_astra_ablation,
    "ASTRA without stages 2-3: same asking, acceptance and walk rules, plain time-based offers",
    max_outcomes=outcome_limit,
)

__all__ = [
    "AcceptanceEstimate",
    "Advice",
    "AstraConfig",
    "AstraNegotiator",
    "Candidate",
    "Coach",
    "Evidence",
    "Fairness",
    "Memory",
    "ParameterChoice",
    "ParameterChooser",
    "PartnerModel",
    "PartnerSituation",
    "PreferenceInterpreter",
    "Stance",
    "Tactic",
    "TacticAssessor",
    "TacticContext",
    "VirtualPartner",
    "assess_fairness",
    "assess_stance",
    "create_astra",
    "create_astra_ablation",
    "format_advice",
    "format_trace",
]
