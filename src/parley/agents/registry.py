"""Named negotiators: `create("boulware", party=..., seed=...)` builds one, ready to play."""

from __future__ import annotations

import importlib
import threading
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from parley.errors import ScenarioError
from parley.protocol.session import Negotiator

NegotiatorFactory = Callable[..., Negotiator]
"""Called as factory(party=PartyId, seed=int, **options) and returns a fresh negotiator."""

_BUILTIN_MODULES = (
    "parley.agents.baselines",
    "parley.agents.astra",
    "parley.llm.negotiator",
    "parley.llm.astra",
)


@dataclass(frozen=True, slots=True)
class AgentEntry:
    """A registered negotiator kind."""

    name: str
    factory: NegotiatorFactory
    description: str


_REGISTRY: dict[str, AgentEntry] = {}
_loaded = False  # the imports have started (a builtin module's own imports may call back in)
_ready = False  # the imports have finished: later calls need no lock (create() runs per game)
_load_lock = threading.RLock()  # threads that race to the first create() must wait for the imports


def register(name: str, factory: NegotiatorFactory, description: str) -> None:
    """Make a negotiator available by name (later registrations replace earlier ones)."""
    _REGISTRY[name] = AgentEntry(name, factory, description)


def _load_builtins() -> None:
    global _loaded, _ready
    if _ready:
        return
    with _load_lock:
        if _loaded:
            return
        _loaded = True
        for module in _BUILTIN_MODULES:
            try:
                importlib.import_module(module)
            except ModuleNotFoundError as error:
                if error.name != module:
                    raise
        _ready = True


def available() -> dict[str, AgentEntry]:
    """Every registered negotiator, by name."""
    _load_builtins()
    return dict(sorted(_REGISTRY.items()))


def create(name: str, *, party: str, seed: int, **options: Any) -> Negotiator:
    """Build the negotiator registered as name.

    Raises:
        ScenarioError: no negotiator has that name.
    """
    _load_builtins()
    entry = _REGISTRY.get(name)  # no sorted copy of the registry: tournaments create agents per game
    if entry is None:
        raise ScenarioError(f"unknown agent {name!r}; available: {', '.join(available())}")
    return entry.factory(party=party, seed=seed, **options)
