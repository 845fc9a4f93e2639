"""The O13 protocol: actions, views, rules, the move checks, the session runner, replay and its records."""

from typing import TYPE_CHECKING

from parley._lazy import lazy_exports

if TYPE_CHECKING:
    from parley.protocol.actions import (
        Accept,
        Action,
        Propose,
        Reject,
        Say,
        Walk,
        action_from_json,
        action_to_json,
    )
    from parley.protocol.artefact import Agreement, BatnaViolation, NoDeal
    from parley.protocol.clock import Clock, FakeClock, SystemClock
    from parley.protocol.events import PUBLIC, TRAJECTORY_VERSION, Event, PartyId, Trajectory, TrajectoryError
    from parley.protocol.judge import Judgement, JudgeView, RuleJudge, TerminationJudge, Verdict
    from parley.protocol.payloads import Payload, UntypedPayload, parse_payload
    from parley.protocol.replay import replay
    from parley.protocol.rules import AcceptanceRule, Rules
    from parley.protocol.session import (
        MediatorView,
        Negotiator,
        OfferMediator,
        PartySetup,
        Session,
        SessionResult,
    )
    from parley.protocol.view import PartyView, Phase, Record, TableOffer

__all__ = [
    "PUBLIC",
    "TRAJECTORY_VERSION",
    "Accept",
    "AcceptanceRule",
    "Action",
    "Agreement",
    "BatnaViolation",
    "Clock",
    "Event",
    "FakeClock",
    "JudgeView",
    "Judgement",
    "MediatorView",
    "Negotiator",
    "NoDeal",
    "OfferMediator",
    "PartyId",
    "PartySetup",
    "PartyView",
    "Payload",
    "Phase",
    "Propose",
    "Record",
    "Reject",
    "RuleJudge",
    "Rules",
    "Say",
    "Session",
    "SessionResult",
    "SystemClock",
    "TableOffer",
    "TerminationJudge",
    "Trajectory",
    "TrajectoryError",
    "UntypedPayload",
    "Verdict",
    "Walk",
    "action_from_json",
    "action_to_json",
    "parse_payload",
    "replay",
]

__getattr__, __dir__ = lazy_exports(
    __name__,
    {
        "parley.protocol.actions": (
            "Accept",
            "Action",
            "Propose",
            "Reject",
            "Say",
            "Walk",
            "action_from_json",
            "action_to_json",
        ),
        "parley.protocol.artefact": ("Agreement", "BatnaViolation", "NoDeal"),
        "parley.protocol.clock": ("Clock", "FakeClock", "SystemClock"),
        "parley.protocol.events": (
            "PUBLIC",
            "TRAJECTORY_VERSION",
            "Event",
            "PartyId",
            "Trajectory",
            "TrajectoryError",
        ),
        "parley.protocol.payloads": ("Payload", "UntypedPayload", "parse_payload"),
        "parley.protocol.judge": ("Judgement", "JudgeView", "RuleJudge", "TerminationJudge", "Verdict"),
        "parley.protocol.replay": ("replay",),
        "parley.protocol.rules": ("AcceptanceRule", "Rules"),
        "parley.protocol.session": (
            "MediatorView",
            "Negotiator",
            "OfferMediator",
            "PartySetup",
            "Session",
            "SessionResult",
        ),
        "parley.protocol.view": ("PartyView", "Phase", "Record", "TableOffer"),
    },
)
