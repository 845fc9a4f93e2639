"""Mediators: generic and socially intelligent mediators for conversations, the Pareto and proactive
mediators for offers."""

from typing import TYPE_CHECKING

from parley._lazy import lazy_exports

if TYPE_CHECKING:
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
    from parley.mediation.proactive import ProactiveMediator

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
    "ProactiveMediator",
    "SocialMediator",
    "Strategy",
    "Utterance",
    "create_mediator",
    "detect_breakdowns",
]

__getattr__, __dir__ = lazy_exports(
    __name__,
    {
        "parley.mediation.breakdowns": ("BreakdownRubric", "detect_breakdowns"),
        "parley.mediation.conversation": (
            "MEDIATOR",
            "ActKind",
            "Assessment",
            "Breakdown",
            "BreakdownKind",
            "ConversationMediator",
            "ConversationView",
            "Strategy",
            "Utterance",
        ),
        "parley.mediation.mediators": (
            "MEDIATORS",
            "GenericMediator",
            "NoAgentMediator",
            "SocialMediator",
            "create_mediator",
        ),
        "parley.mediation.pareto": ("ParetoMediator",),
        "parley.mediation.proactive": ("ProactiveMediator",),
    },
)
