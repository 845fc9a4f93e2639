"""Negotiators: the protocol every agent implements, baselines, ASTRA, and the registry."""

from parley.agents.registry import available, create, register
from parley.protocol.session import Negotiator

__all__ = ["Negotiator", "available", "create", "register"]
