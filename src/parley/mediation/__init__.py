"""Mediators: generic and socially intelligent mediators for conversations, the Pareto mediator for offers."""

from parley.mediation.breakdowns import BreakdownRubric, detect_breakdowns
from parley.mediation.conversation import (
    MEDIATOR,
    ActKind,
    Assessment,
    Breakdown,
    BreakdownKind,
    ConversationMediator,
    ConversationView,
    Strategy,
    Utterance,
)
from parley.mediation.mediators import (
    MEDIATORS,
    GenericMediator,
    NoAgentMediator,
    SocialMediator,
    create_mediator,
)
from parley.mediation.pareto import ParetoMediator

__all__ = [
    "MEDIATOR",
    "MEDIATORS",
    "ActKind",
    "Assessment",
    "Breakdown",
    "BreakdownKind",
    "BreakdownRubric",
    "ConversationMediator",
    "ConversationView",
    "GenericMediator",
    "NoAgentMediator",
    "ParetoMediator",
    "SocialMediator",
    "Strategy",
    "Utterance",
    "create_mediator",
    "detect_breakdowns",
]
