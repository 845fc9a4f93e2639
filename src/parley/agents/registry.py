"""Named negotiators: `create("boulware", party=..., seed=...)` builds one, ready to play.

Three sources, one factory signature (`NegotiatorFactory`): the built-in agents of this layer
(`parley.agents.baselines` and `parley.agents.astra` register themselves when imported); the
`parley.agents` entry-point group of installed distributions (parley's own LLM agents come this way,
declared in its pyproject.toml, so this module names no upper layer), loaded only when named or
listed; and "package.module:factory" specs, imported when first used.
"""

from __future__ import annotations

import importlib
import logging
import threading
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, replace
from typing import Any, Protocol, cast

from parley._plugins import Plugin, cause, discover, is_spec, load_spec, non_ascii_note, quoted
from parley.domain.space import OutcomeSpace
from parley.domain.utility import UtilityFunction
from parley.errors import ParleyError, ScenarioError
from parley.protocol.events import PartyId
from parley.protocol.session import Negotiator

logger = logging.getLogger(__name__)

AGENT_GROUP = "parley.agents"
"""The entry-point group other distributions declare their agents in (see docs/api.md)."""


class NegotiatorFactory(Protocol):
    """Builds a fresh negotiator for one party of one session: the one signature for agents everywhere.

    Called as ``factory(party=..., seed=...)``, by keyword, by the registry (`create`), the
    tournament runner, the public API and `parley.testing.check_negotiator`. A caller with options
    for it (``llm=...`` for LLM agents, `AstraConfig` fields for ASTRA) adds them as further keywords,
    so a factory that takes options accepts ``**options`` too. A negotiator class whose
    ``__init__(self, party, seed)`` takes those two names is itself a factory.
    """

    def __call__(self, *, party: PartyId, seed: int) -> Negotiator:
        """A fresh negotiator playing party, whose every random choice derives from seed."""
        ...


OutcomeLimit = int | Callable[[UtilityFunction], int | None] | None
"""The most outcomes a negotiator can play: a number, a function of the party's utility (None
from it: any size), or None when there is no known limit."""

_BUILTIN_PACKAGES = ("parley.agents.baselines", "parley.agents.astra")
"""Packages of this layer whose import registers agents."""


@dataclass(frozen=True, slots=True)
class AgentEntry:
    """A registered negotiator kind.

    An entry point of the `parley.agents` group may name one of these (to give a description and an
    outcome limit) or just a factory.

    Attributes:
        name: The name it is created by.
        factory: Builds one (see `NegotiatorFactory`).
        description: One line for listings.
        max_outcomes: The largest outcome space it can play (see `OutcomeLimit`); a game on a larger
            one fails at its first move, so `parley run` refuses it and validation warns.
        origin: Where it came from, for messages: "" for a built-in or an in-process registration,
            else the plugin ("agent plugin 'x' (distribution y 1.0)") or the spec it was imported by.
    """

    name: str
    factory: NegotiatorFactory
    description: str = ""
    max_outcomes: OutcomeLimit = None
    origin: str = ""

    def outcome_limit(self, utility: UtilityFunction) -> int | None:
        """The most outcomes this negotiator can play holding utility (None: no known limit)."""
        limit = self.max_outcomes
        return limit(utility) if callable(limit) else limit


_REGISTRY: dict[str, AgentEntry] = {}
_SPECS: dict[str, AgentEntry] = {}  # "module:factory" names already imported
_loaded = False  # the imports have started (a builtin module's own imports may call back in)
_ready = False  # the imports have finished: later calls need no lock (create() runs per game)
_load_lock = threading.RLock()  # threads that race to the first create() must wait for the imports
_plugins: dict[str, Plugin] | None = None  # entry points found, by name (None: not looked for yet)
_broken: dict[str, str] = {}  # plugin name -> why it cannot be loaded (one line)
_warned: set[str] = set()  # broken plugins a listing has warned about (once per process)


def register(
    name: str,
    factory: NegotiatorFactory,
    description: str = "",
    *,
    max_outcomes: OutcomeLimit = None,
) -> None:
    """Make a negotiator available by name in this process (later registrations replace earlier ones).

    To make an agent available to every parley process (worker processes of a tournament started
    with the "spawn" method, the command line), declare it as an entry point instead (docs/api.md).

    Args:
        name: The name to create it by (no colon: "a:b" names a module's factory).
        factory: Builds one (see `NegotiatorFactory`).
        description: One line for listings.
        max_outcomes: The largest outcome space it can play, when it has a limit (see `OutcomeLimit`).

    Raises:
        ScenarioError: the name is empty or holds a colon, or factory is not callable.
    """
    if not name.strip() or is_spec(name):
        raise ScenarioError(f"agent name {quoted(name)} must be non-empty and hold no colon")
    if not callable(factory):
        raise ScenarioError(f"agent {quoted(name)}: the factory is a {type(factory).__name__}, not callable")
    _REGISTRY[name] = AgentEntry(name, factory, description, max_outcomes)


def _load_builtins() -> None:
    global _loaded, _ready
    if _ready:
        return
    with _load_lock:
        if _loaded:
            return
        _loaded = True
        for module in _BUILTIN_PACKAGES:
            importlib.import_module(module)
        _ready = True


def _discovered() -> dict[str, Plugin]:
    """The `parley.agents` entry points, looked for once (reading installed metadata, no imports)."""
    global _plugins
    if _plugins is None:
        _load_builtins()
        with _load_lock:
            if _plugins is None:
                _plugins = discover(AGENT_GROUP, "agent", reserved=set(_REGISTRY))
    return _plugins


def _load_plugin(plugin: Plugin) -> AgentEntry:
    """Import a plugin's entry and register it under the entry point's name.

    Raises:
        ScenarioError: it cannot be imported, or names neither an `AgentEntry` nor a factory.
    """
    known = _broken.get(plugin.name)
    if known is not None:
        raise ScenarioError(known)
    try:
        entry = _as_entry(plugin.name, plugin.load(), plugin.label, plugin.value)
    except ScenarioError as error:
        _broken[plugin.name] = str(error)
        raise
    with _load_lock:
        return _REGISTRY.setdefault(plugin.name, entry)


def _as_entry(name: str, loaded: object, origin: str, where: str) -> AgentEntry:
    if isinstance(loaded, AgentEntry):
        return replace(loaded, name=name, origin=origin)
    if not callable(loaded):
        raise ScenarioError(
            f"{origin}: {quoted(where)} is a {type(loaded).__name__}, not a negotiator factory "
            "(a callable taking party= and seed=, or an AgentEntry)"
        )
    factory = cast(NegotiatorFactory, loaded)  # what it returns is checked at each call (see create)
    doc = (getattr(loaded, "__doc__", None) or "").strip()
    return AgentEntry(name, factory, doc.splitlines()[0] if doc else "", origin=origin)


def names() -> list[str]:
    """Every agent name `create` accepts besides "module:factory" specs, sorted; imports no plugin."""
    _load_builtins()
    return sorted({*_REGISTRY, *_discovered()})


def available() -> dict[str, AgentEntry]:
    """Every registered negotiator, by name, installed plugins loaded.

    A plugin that cannot be loaded is left out with a one-line warning in the log (once per process):
    the others still work.
    """
    _load_builtins()
    for name, plugin in _discovered().items():
        if name not in _REGISTRY:
            try:
                _load_plugin(plugin)
            except ScenarioError as error:
                if name not in _warned:
                    _warned.add(name)
                    logger.warning("%s", error)
    return dict(sorted(_REGISTRY.items()))


def entry(name: str) -> AgentEntry:
    """The entry that name stands for: a registered name, an installed plugin, or "module:factory".

    Raises:
        ScenarioError: unknown name, a plugin or module that cannot be imported, or a spec naming
            something that is not a factory (one line).
    """
    _load_builtins()
    found = _REGISTRY.get(name)  # no sorted copy of the registry: tournaments create agents per game
    if found is not None:
        return found
    if is_spec(name):
        return _spec_entry(name)
    plugin = _discovered().get(name)
    if plugin is None:
        raise ScenarioError(
            f"unknown agent {quoted(name)}{non_ascii_note(name)}; available: {', '.join(names())} "
            "(or package.module:factory)"
        )
    return _load_plugin(plugin)


def _spec_entry(spec: str) -> AgentEntry:
    found = _SPECS.get(spec)
    if found is None:
        loaded = load_spec("agent", spec)
        found = _as_entry(spec, loaded, f"agent {quoted(spec)}", spec)
        with _load_lock:
            found = _SPECS.setdefault(spec, found)
    return found


def check_names(agents: Iterable[str]) -> None:
    """Check that every name in agents can be created, before any game is played.

    Raises:
        ScenarioError: "unknown agents [...]" for names nothing provides; otherwise the first
            plugin or spec that cannot be imported (one line).
    """
    _load_builtins()
    unknown: list[str] = []
    for name in dict.fromkeys(agents):
        if is_spec(name) or name in _REGISTRY or name in _discovered():
            entry(name)  # a plugin or spec that cannot be imported: its own message
        else:
            unknown.append(name)
    if unknown:
        raise ScenarioError(
            f"unknown agents {', '.join(map(quoted, unknown))}; available: {', '.join(names())} "
            "(or package.module:factory)"
        )


def create(name: str, *, party: str, seed: int, **options: Any) -> Negotiator:
    """Build the negotiator that name stands for (see `entry`).

    Args:
        name: A registered agent, an installed plugin, or "package.module:factory".
        party: The party it plays.
        seed: Its seed.
        **options: Passed on to the factory (see `NegotiatorFactory`).

    Raises:
        ScenarioError: the name cannot be resolved (see `entry`), a plugin's factory raised, or a
            factory returned something that is not a negotiator.
    """
    found = entry(name)
    if not found.origin:  # built-ins and in-process registrations: their errors are their own
        negotiator: object = found.factory(party=party, seed=seed, **options)
    else:
        negotiator = _build_plugin(found, party, seed, options)
    if not callable(getattr(negotiator, "act", None)):
        raise ScenarioError(
            f"agent {quoted(name)}: its factory returned a {type(negotiator).__name__}, not a "
            "negotiator (an object with an act(view) method)"
        )
    return cast(Negotiator, negotiator)  # checked just above: it has act(view)


def _build_plugin(found: AgentEntry, party: str, seed: int, options: dict[str, Any]) -> object:
    try:
        return found.factory(party=party, seed=seed, **options)
    except ParleyError:
        raise
    except Exception as error:  # the plugin's bug, reported as one line naming it
        raise ScenarioError(
            f"{found.origin} failed to build a negotiator for {party}: {cause(error)}"
        ) from None


def space_problem(agent: str, party: str, space: OutcomeSpace, utility: UtilityFunction) -> str | None:
    """Why agent cannot play party on space (one line), or None when it can, its limit is unknown,
    or the agent cannot be resolved (`create` reports that)."""
    try:
        found = entry(agent)  # only this agent: other plugins (and the LLM layer) stay unimported
    except ScenarioError:
        return None
    limit = found.outcome_limit(utility)
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
    for name, found in available().items():
        limits = [limit for utility in utilities if (limit := found.outcome_limit(utility)) is not None]
        if limits and space.size > min(limits):
            short.setdefault(min(limits), []).append(name)
    return [
        f"{space.size:,} outcomes is more than agents {', '.join(agents)} can play (at most {limit:,})"
        for limit, agents in sorted(short.items())
    ]
