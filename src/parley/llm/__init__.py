"""LLM clients and LLM-backed roles: one client layer (retries, structured output, accounting,
cache, record/replay) and the O13 stakeholder, termination judge and mediator built on `Role`."""

from parley.llm.accounting import Price, UsageLedger, UsageSummary, UsageTotals, load_prices
from parley.llm.bridge import EventLoopThread, default_bridge, run_sync
from parley.llm.cache import CachedClient, RecordingClient, ReplayClient, ReplayMiss, ResponseCache
from parley.llm.client import Endpoint, EndpointError, LLMClient, OpenAIClient, RetryPolicy, RunBudget
from parley.llm.config import EndpointConfig, LLMRuntime, LLMSettings, load_settings, parse_spec
from parley.llm.context import LLMSession
from parley.llm.judge import JudgeReply, LLMJudge
from parley.llm.leaks import LeakReport, PrivateNumbers, check_message
from parley.llm.mediator import LLMOfferMediator, MediatorReply, SilentMediator
from parley.llm.negotiator import LLMNegotiator, NegotiatorReply, repair_package
from parley.llm.prompts import PromptTemplate, load_template
from parley.llm.role import Role, RoleOutcome
from parley.llm.structured import ReplyInvalid, parse_reply
from parley.llm.types import LLMRequest, LLMResponse, Message, TokenUsage

__all__ = [
    "CachedClient",
    "Endpoint",
    "EndpointConfig",
    "EndpointError",
    "EventLoopThread",
    "JudgeReply",
    "LLMClient",
    "LLMJudge",
    "LLMNegotiator",
    "LLMOfferMediator",
    "LLMRequest",
    "LLMResponse",
    "LLMRuntime",
    "LLMSession",
    "LLMSettings",
    "LeakReport",
    "MediatorReply",
    "Message",
    "NegotiatorReply",
    "OpenAIClient",
    "Price",
    "PrivateNumbers",
    "PromptTemplate",
    "RecordingClient",
    "ReplayClient",
    "ReplayMiss",
    "ReplyInvalid",
    "ResponseCache",
    "RetryPolicy",
    "Role",
    "RoleOutcome",
    "RunBudget",
    "SilentMediator",
    "TokenUsage",
    "UsageLedger",
    "UsageSummary",
    "UsageTotals",
    "check_message",
    "default_bridge",
    "load_prices",
    "load_settings",
    "load_template",
    "parse_reply",
    "parse_spec",
    "repair_package",
    "run_sync",
]
