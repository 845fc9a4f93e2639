"""The Scenario: issues, parties with private utilities and BATNAs, and protocol rules."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any

from parley.domain.analysis import OutcomeAnalysis
from parley.domain.space import OutcomeSpace
from parley.domain.utility import UtilityFunction
from parley.errors import ScenarioError
from parley.protocol.rules import Rules
from parley.protocol.session import PartySetup


@dataclass(frozen=True)
class Party:
    """One side of a scenario.

    Attributes:
        name: Unique party id.
        role: Short role label ("buyer", "seller", "mayor").
        utility: Private utility function, carrying the reservation value (BATNA).
        persona: Private persona settings handed only to this party's negotiator
            (e.g. {"persona": "greedy"}, speaking-motivation settings).
        brief: Private natural-language brief (for LLM-backed or human players).
        signals: Coarse public signals a mediator may see (stated priorities, must-haves).
    """

    name: str
    role: str
    utility: UtilityFunction
    persona: Mapping[str, Any] = field(default_factory=lambda: {})
    brief: str = ""
    signals: Mapping[str, Any] = field(default_factory=lambda: {})

    def setup(self) -> PartySetup:
        """The engine's view of this party."""
        persona = {**self.persona, "role": self.role, "brief": self.brief}
        return PartySetup(self.name, self.utility, persona, self.signals)


@dataclass(frozen=True)
class Scenario:
    """A negotiation setting, ready to play.

    Attributes:
        name: Short id ("casino", "procurement").
        title: Human title.
        description: Public background every party knows.
        space: The outcome space.
        parties: The parties, in proposer order.
        rules: Protocol rules.
        source: File or dataset this scenario came from.
        metadata: Anything else (e.g. a recorded deal, variant name, licence).
    """

    name: str
    title: str
    description: str
    space: OutcomeSpace
    parties: tuple[Party, ...]
    rules: Rules = field(default_factory=Rules)
    source: str | None = None
    metadata: Mapping[str, Any] = field(default_factory=lambda: {})

    def __post_init__(self) -> None:
        names = [p.name for p in self.parties]
        if len(names) < 2:
            raise ScenarioError("a scenario needs at least two parties", source=self.source, field="parties")
        if len(set(names)) != len(names):
            raise ScenarioError(f"party names must be unique: {names}", source=self.source, field="parties")
        for party in self.parties:
            if party.utility.space != self.space:
                raise ScenarioError(
                    f"party {party.name!r} has a utility over another outcome space",
                    source=self.source,
                    field=f"parties.{party.name}.utility",
                )

    @cached_property
    def party_names(self) -> tuple[str, ...]:
        """Party ids in order."""
        return tuple(p.name for p in self.parties)

    @property
    def is_bilateral(self) -> bool:
        """Exactly two parties."""
        return len(self.parties) == 2

    def party(self, name: str) -> Party:
        """The party called name.

        Raises:
            KeyError: no such party.
        """
        for party in self.parties:
            if party.name == name:
                return party
        raise KeyError(f"no party {name!r}; parties are {list(self.party_names)}")

    def utilities(self) -> list[UtilityFunction]:
        """Each party's utility, in party order."""
        return [p.utility for p in self.parties]

    def setups(self) -> list[PartySetup]:
        """The engine's view of every party."""
        return list(self._setups)

    @cached_property
    def _setups(self) -> tuple[PartySetup, ...]:
        # Built once: a tournament starts thousands of sessions from one scenario. Sessions hand
        # each party a copy of its persona, so no negotiator can change what the next one sees.
        return tuple(p.setup() for p in self.parties)

    @cached_property
    def analysis(self) -> OutcomeAnalysis:
        """Pareto frontier, Nash, Kalai and welfare points (enumerates the space once)."""
        return OutcomeAnalysis.of(self.utilities())
