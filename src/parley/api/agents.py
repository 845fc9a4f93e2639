"""Agents by name for the public API: register your own, list what `run_session` and tournaments accept."""

from __future__ import annotations

from parley.agents.registry import NegotiatorFactory, OutcomeLimit, names, register


def register_agent(
    name: str,
    factory: NegotiatorFactory,
    description: str = "",
    *,
    max_outcomes: OutcomeLimit = None,
) -> None:
    """Make a negotiator available by name in this process (`run_session`, `run_tournament`).

    For every process, the command line included, declare it in the `parley.agents` entry-point
    group of your package instead, or name it as "package.module:factory" (docs/api.md).

    Args:
        name: The name to play it by (non-empty, no colon); a registered name is replaced.
        factory: Builds one: called as ``factory(party=..., seed=...)`` (a negotiator class whose
            ``__init__`` takes ``party`` and ``seed`` will do).
        description: One line for listings.
        max_outcomes: The largest outcome space it can play, if it has a limit.

    Raises:
        ScenarioError: the name is empty or holds a colon, or factory is not callable.
    """
    register(name, factory, description, max_outcomes=max_outcomes)


def agent_names() -> list[str]:
    """Every agent name available, built-in and installed plugins (none of them is imported), sorted.

    A "package.module:factory" spec is accepted wherever a name is, without being listed here.
    """
    return names()
