"""Fakes and conformance checks for negotiators, mediators, delegates and LLM code (parley's and users')."""

from parley.protocol.clock import FakeClock as FakeClock
from parley.testing.conformance import ConformanceReport as ConformanceReport
from parley.testing.conformance import check_negotiator as check_negotiator
from parley.testing.governance import check_delegate_invariants as check_delegate_invariants
from parley.testing.llm import FakeLLM as FakeLLM
from parley.testing.llm import StubReply as StubReply
from parley.testing.llm import StubServer as StubServer
from parley.testing.mediators import check_mediator as check_mediator
from parley.testing.negotiators import ScriptedNegotiator as ScriptedNegotiator
from parley.testing.negotiators import accept_or as accept_or
from parley.testing.scenarios import casino_like_scenario as casino_like_scenario
from parley.testing.scenarios import three_party_scenario as three_party_scenario
