"""Fakes and conformance checks for negotiators, mediators, delegates and LLM code (parley's and users')."""

from typing import TYPE_CHECKING

from parley._lazy import lazy_exports

if TYPE_CHECKING:
    from parley.protocol.clock import FakeClock
    from parley.testing.conformance import ConformanceReport, check_negotiator
    from parley.testing.governance import check_delegate_invariants
    from parley.testing.llm import FakeLLM, StubReply, StubServer
    from parley.testing.mediators import check_mediator
    from parley.testing.negotiators import ScriptedNegotiator, accept_or
    from parley.testing.scenarios import casino_like_scenario, three_party_scenario

__all__ = [
    "ConformanceReport",
    "FakeClock",
    "FakeLLM",
    "ScriptedNegotiator",
    "StubReply",
    "StubServer",
    "accept_or",
    "casino_like_scenario",
    "check_delegate_invariants",
    "check_mediator",
    "check_negotiator",
    "three_party_scenario",
]

__getattr__, __dir__ = lazy_exports(
    __name__,
    {
        "parley.protocol.clock": ("FakeClock",),
        "parley.testing.conformance": ("ConformanceReport", "check_negotiator"),
        "parley.testing.governance": ("check_delegate_invariants",),
        "parley.testing.llm": ("FakeLLM", "StubReply", "StubServer"),
        "parley.testing.mediators": ("check_mediator",),
        "parley.testing.negotiators": ("ScriptedNegotiator", "accept_or"),
        "parley.testing.scenarios": ("casino_like_scenario", "three_party_scenario"),
    },
)
