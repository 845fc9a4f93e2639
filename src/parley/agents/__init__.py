"""Negotiators: the protocol every agent implements, baselines, ASTRA, and the registry."""

from typing import TYPE_CHECKING

from parley._lazy import lazy_exports

if TYPE_CHECKING:
    from parley.agents.registry import available, create, register
    from parley.protocol.session import Negotiator

__all__ = [
    "Negotiator",
    "available",
    "create",
    "register",
]

__getattr__, __dir__ = lazy_exports(
    __name__,
    {
        "parley.agents.registry": ("available", "create", "register"),
        "parley.protocol.session": ("Negotiator",),
    },
)
