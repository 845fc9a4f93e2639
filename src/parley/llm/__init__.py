"""LLM clients and LLM-backed roles: one client layer (retries, structured output, accounting,
cache, record/replay) and the O13 stakeholder, termination judge and mediator built on `Role`."""

from typing import TYPE_CHECKING

from parley._lazy import lazy_exports

if TYPE_CHECKING:
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

__getattr__, __dir__ = lazy_exports(
    __name__,
    {
        "parley.llm.accounting": ("Price", "UsageLedger", "UsageSummary", "UsageTotals", "load_prices"),
        "parley.llm.bridge": ("EventLoopThread", "default_bridge", "run_sync"),
        "parley.llm.cache": (
            "CachedClient",
            "RecordingClient",
            "ReplayClient",
            "ReplayMiss",
            "ResponseCache",
        ),
        "parley.llm.client": (
            "Endpoint",
            "EndpointError",
            "LLMClient",
            "OpenAIClient",
            "RetryPolicy",
            "RunBudget",
        ),
        "parley.llm.config": ("EndpointConfig", "LLMRuntime", "LLMSettings", "load_settings", "parse_spec"),
        "parley.llm.context": ("LLMSession",),
        "parley.llm.judge": ("JudgeReply", "LLMJudge"),
        "parley.llm.leaks": ("LeakReport", "PrivateNumbers", "check_message"),
        "parley.llm.mediator": ("LLMOfferMediator", "MediatorReply", "SilentMediator"),
        "parley.llm.negotiator": ("LLMNegotiator", "NegotiatorReply", "repair_package"),
        "parley.llm.prompts": ("PromptTemplate", "load_template"),
        "parley.llm.role": ("Role", "RoleOutcome"),
        "parley.llm.structured": ("ReplyInvalid", "parse_reply"),
        "parley.llm.types": ("LLMRequest", "LLMResponse", "Message", "TokenUsage"),
    },
)
