"""Play one scenario with named or given negotiators: the entry point CLI, tournaments and tests share."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

from parley.agents.registry import create
from parley.protocol.clock import Clock
from parley.protocol.events import Event
from parley.protocol.judge import TerminationJudge
from parley.protocol.rules import Rules
from parley.protocol.session import Negotiator, OfferMediator, Session, SessionResult
from parley.scenarios.model import Scenario


def party_seed(seed: int, index: int) -> int:
    """Seed for the index-th party's negotiator, derived from the run's seed."""
    return seed * 1_000_003 + index


def _check_seed(seed: int) -> None:
    # Checked here, where the run's own seed is known: a party's derived seed would be reported
    # instead (-1 becomes -1,000,003).
    if seed < 0:
        raise ValueError(f"seed must not be negative, got {seed}")


def build_negotiators(
    scenario: Scenario,
    agents: Sequence[str],
    seed: int,
    options: Mapping[str, Mapping[str, Any]] | None = None,
) -> dict[str, Negotiator]:
    """One negotiator per party, by agent name in party order.

    Raises:
        ValueError: as many agents as parties are not given, or the seed is negative.
        ScenarioError: an agent name is not registered.
    """
    _check_seed(seed)
    if len(agents) != len(scenario.parties):
        raise ValueError(
            f"scenario {scenario.name!r} has {len(scenario.parties)} parties "
            f"({', '.join(scenario.party_names)}) but {len(agents)} agents were given"
        )
    return {
        party.name: create(
            agent, party=party.name, seed=party_seed(seed, i), **dict((options or {}).get(party.name, {}))
        )
        for i, (party, agent) in enumerate(zip(scenario.parties, agents, strict=True))
    }


def run_negotiation(
    scenario: Scenario,
    agents: Sequence[str] | Mapping[str, Negotiator],
    *,
    seed: int = 0,
    rules: Rules | None = None,
    mediator: OfferMediator | None = None,
    judge: TerminationJudge | None = None,
    clock: Clock | None = None,
    on_event: Callable[[Event], None] | None = None,
    agent_names: Mapping[str, str] | None = None,
) -> SessionResult:
    """Play scenario once.

    Args:
        scenario: What to negotiate.
        agents: Agent names in party order, or ready negotiators by party.
        seed: The run's seed (each negotiator gets one derived from it).
        rules: Override the scenario's rules.
        mediator: Optional offer mediator.
        judge: Optional termination judge.
        clock: Optional clock (default: frozen fake clock).
        on_event: Live event callback.
        agent_names: Names to record per party in the trajectory's opening event (default: the
            agent names given, or a ready negotiator's class name); parties left out keep the default.

    Raises:
        ValueError: the seed is negative, agents do not match the parties, or agent_names names a
            party the scenario does not have.
        ScenarioError: an agent name is not registered.
    """
    _check_seed(seed)
    if agent_names:
        unknown = sorted(set(agent_names) - set(scenario.party_names))
        if unknown:
            raise ValueError(f"agent_names names parties that are not in {scenario.name!r}: {unknown}")
    if isinstance(agents, Mapping):
        negotiators = dict(agents)
        names = {
            party: type(negotiators[party]).__name__ for party in scenario.party_names if party in negotiators
        }
    else:
        negotiators = build_negotiators(scenario, agents, seed)
        names = dict(zip(scenario.party_names, agents, strict=True))
    if agent_names:
        names |= agent_names
    metadata = {"scenario": scenario.name, "seed": seed, "agents": names}
    session = Session(
        scenario.space,
        scenario.setups(),
        negotiators,
        rules or scenario.rules,
        mediator=mediator,
        judge=judge,
        clock=clock,
        on_event=on_event,
        metadata=metadata,
    )
    return session.run()
