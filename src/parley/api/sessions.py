"""Play one session from Python: `run_session`, and the `SessionReport` that shows as `parley run`'s tables.

Seeds derive as on the command line, so `run_session("casino", ["boulware", "base"], seed=7)` plays
the very game `parley run casino --agent boulware --agent base --seed 7` plays (same trajectory).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING, cast

from rich.console import Group, RenderableType
from rich.jupyter import JupyterMixin

from parley.api._shared import as_scenario, plain_text
from parley.errors import ScenarioError

if TYPE_CHECKING:
    from parley.agents.registry import NegotiatorFactory
    from parley.metrics.bargaining import PartyOutcome
    from parley.protocol.artefact import Agreement, NoDeal
    from parley.protocol.events import Event, Trajectory
    from parley.protocol.session import Negotiator, SessionResult
    from parley.scenarios.model import Scenario


@dataclass(frozen=True, slots=True, repr=False)
class SessionReport(JupyterMixin):
    """A finished session with its scenario and who played: renders as `parley run`'s tables.

    Attributes:
        scenario: What was negotiated.
        agents: The agent that played each party, by party (names as given, or a class's name).
        result: The engine's result: the trajectory and the agreement or no-deal record.
    """

    scenario: Scenario
    agents: Mapping[str, str]
    result: SessionResult

    @property
    def agreement(self) -> Agreement | None:
        """The agreement artefact, if one passed."""
        return self.result.agreement

    @property
    def no_deal(self) -> NoDeal | None:
        """The no-deal record, if none did."""
        return self.result.no_deal

    @property
    def trajectory(self) -> Trajectory:
        """Every event, in order (`.save(path)` writes it as JSONL, as `parley run --save` does)."""
        return self.result.trajectory

    @property
    def rounds(self) -> int:
        """The round the session ended in."""
        return self.result.rounds

    def outcomes(self) -> list[PartyOutcome]:
        """How each party fared (utility, normalised utility, distances), in party order."""
        from parley.metrics.bargaining import outcomes

        return outcomes(self.scenario, self.result, dict(self.agents))

    def __rich__(self) -> Group:
        from parley.api.tables import distances_line, outcome_table, party_table

        parts: list[RenderableType] = [
            outcome_table(self.scenario, self.result),
            party_table(self.scenario, self.result, self.agents),
        ]
        if self.agreement is not None:
            first = self.outcomes()[0]
            parts.append(distances_line(first.pareto_distance, first.nash_distance))
        return Group(*parts)

    def __str__(self) -> str:
        return plain_text(self)

    def __repr__(self) -> str:
        lineup = ", ".join(f"{party}: {agent}" for party, agent in self.agents.items())
        ending = "agreement" if self.agreement is not None else f"no deal ({self._reason()})"
        return f"<SessionReport {self.scenario.name}: {lineup}; {ending} in round {self.rounds}>"

    def _reason(self) -> str:
        return self.no_deal.reason if self.no_deal is not None else "?"


def run_session(
    scenario: Scenario | str | Path,
    agents: Sequence[str | NegotiatorFactory | Negotiator],
    *,
    seed: int = 0,
    max_rounds: int | None = None,
    on_event: Callable[[Event], None] | None = None,
) -> SessionReport:
    """Play scenario once, one agent per party in party order.

    Args:
        scenario: A `Scenario`, a shipped scenario's name, or a scenario file's path.
        agents: Per party, an agent name (built-in, installed plugin or "package.module:factory"),
            a factory (a negotiator class, or any ``factory(party=..., seed=...)``), or a negotiator.
        seed: The run's seed; each party's negotiator gets one derived from it, as in `parley run`.
        max_rounds: Override the scenario's round cap.
        on_event: Called with every event as it happens.

    Returns:
        The finished session; print it (or leave it last in a notebook cell) to see its tables.

    Raises:
        ScenarioError: an unknown scenario or agent, an invalid file, a plugin that cannot be loaded,
            or a factory that does not return a negotiator.
        ValueError: not one agent per party, one negotiator object given for two parties, a negative
            seed or a round cap below 1.
    """
    from parley.experiments.runner import party_seed, run_negotiation

    played = as_scenario(scenario)
    if isinstance(agents, str):
        raise TypeError(f"agents must be a list with one agent per party, not the string {agents!r}")
    if len(agents) != len(played.parties):
        raise ValueError(
            f"{played.name} has {len(played.parties)} parties ({', '.join(played.party_names)}); "
            f"give one agent per party, got {len(agents)}"
        )
    if seed < 0:
        raise ValueError(f"seed must not be negative, got {seed}")
    if max_rounds is not None and max_rounds < 1:
        raise ValueError(f"max_rounds must be at least 1, got {max_rounds}")
    negotiators: dict[str, Negotiator] = {}
    names: dict[str, str] = {}
    for index, (party, agent) in enumerate(zip(played.party_names, agents, strict=True)):
        negotiator, names[party] = _negotiator(agent, party, party_seed(seed, index))
        if any(negotiator is other for other in negotiators.values()):
            raise ValueError(
                f"the same negotiator object was given for two parties ({party} and another); "
                "give its class (a factory) to build one per party"
            )
        negotiators[party] = negotiator
    rules = replace(played.rules, max_rounds=max_rounds) if max_rounds is not None else None
    result = run_negotiation(
        played, negotiators, seed=seed, rules=rules, on_event=on_event, agent_names=names
    )
    return SessionReport(played, names, result)


def _negotiator(agent: object, party: str, seed: int) -> tuple[Negotiator, str]:
    """The negotiator agent stands for, and the name to record for it."""
    from parley.agents.registry import create

    if isinstance(agent, str):
        return create(agent, party=party, seed=seed), agent
    if callable(getattr(agent, "act", None)) and not isinstance(agent, type):
        return _checked(agent, type(agent).__name__), type(agent).__name__
    if not callable(agent):
        raise TypeError(
            f"an agent is a name, a factory or a negotiator; got a {type(agent).__name__} for {party}"
        )
    name = str(getattr(agent, "__name__", None) or type(agent).__name__)
    return _checked(agent(party=party, seed=seed), name), name


def _checked(negotiator: object, name: str) -> Negotiator:
    if not callable(getattr(negotiator, "act", None)):
        raise ScenarioError(
            f"agent {name!r} built a {type(negotiator).__name__}, not a negotiator "
            "(an object with an act(view) method)"
        )
    return cast("Negotiator", negotiator)  # it has act(view)
