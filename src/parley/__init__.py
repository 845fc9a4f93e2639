"""parley: negotiation between AI agents and people."""

__version__ = "0.1.0"
