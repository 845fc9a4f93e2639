"""Named negotiators: `create("boulware", party=..., seed=...)` builds one, ready to play."""

from __future__ import annotations

import importlib
import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from parley.domain.space import OutcomeSpace
from parley.domain.utility import UtilityFunction
from parley.errors import ScenarioError
from parley.protocol.session import Negotiator

NegotiatorFactory = Callable[..., Negotiator]
"""Called as factory(party=PartyId, seed=int, **options) and returns a fresh negotiator."""

OutcomeLimit = int | Callable[[UtilityFunction], int | None] | None
"""The most outcomes a negotiator can play: a number, a function of the party's utility (None
from it: any size), or None when there is no known limit."""

_BUILTIN_MODULES = (
    "parley.agents.baselines",
    "parley.agents.astra",
    "parley.llm.negotiator",
    "parley.llm.astra",
)


@dataclass(frozen=True, slots=True)
class AgentEntry:
    """A registered negotiator kind.

    Attributes:
        name: The name it is created by.
        factory: Builds one (see `NegotiatorFactory`).
        description: One line for listings.
        max_outcomes: The largest outcome space it can play (see `OutcomeLimit`); a game on a larger
            one fails at its first move, so `parley run` refuses it and validation warns.
    """

    name: str
    factory: NegotiatorFactory
    description: str
    max_outcomes: OutcomeLimit = None

    def outcome_limit(self, utility: UtilityFunction) -> int | None:
        """The most outcomes this negotiator can play holding utility (None: no known limit)."""
        limit = self.max_outcomes
        return limit(utility) if callable(limit) else limit


_REGISTRY: dict[str, AgentEntry] = {}
_loaded = False  # the imports have started (a builtin module's own imports may call back in)
_ready = False  # the imports have finished: later calls need no lock (create() runs per game)
_load_lock = threading.RLock()  # threads that race to the first create() must wait for the imports


def register(
    name: str, factory: NegotiatorFactory, description: str, *, max_outcomes: OutcomeLimit = None
) -> None:
    """Make a negotiator available by name (later registrations replace earlier ones).

    Args:
        name: The name to create it by.
        factory: Builds one.
        description: One line for listings.
        max_outcomes: The largest outcome space it can play, when it has a limit (see `OutcomeLimit`).
    """
    _REGISTRY[name] = AgentEntry(name, factory, description, max_outcomes)


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


def space_problem(agent: str, party: str, space: OutcomeSpace, utility: UtilityFunction) -> str | None:
    """Why agent cannot play party on space (one line), or None when it can or its limit is unknown."""
    entry = available().get(agent)
    limit = entry.outcome_limit(utility) if entry is not None else None
    if limit is None or space.size <= limit:
        return None
    return (
        f"agent {agent!r} (party {party}) can play at most {limit:,} outcomes; "
        f"this scenario has {space.size:,}"
    )


def space_warnings(space: OutcomeSpace, utilities: Sequence[UtilityFunction]) -> list[str]:
    """One line per limit that registered agents hold and space exceeds, naming those agents.

    An agent is named when it could not play at least one of the utilities (parties).
    """
    short: dict[int, list[str]] = {}
    for name, entry in available().items():
        limits = [limit for utility in utilities if (limit := entry.outcome_limit(utility)) is not None]
        if limits and space.size > min(limits):
            short.setdefault(min(limits), []).append(name)
    return [
        f"{space.size:,} outcomes is more than agents {', '.join(names)} can play (at most {limit:,})"
        for limit, names in sorted(short.items())
    ]
