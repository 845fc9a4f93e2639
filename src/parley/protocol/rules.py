"""Protocol settings: turn order, acceptance rule, bounds (V9) and stagnation handling."""

from __future__ import annotations

from collections.abc import Collection, Sequence
from dataclasses import dataclass
from typing import Literal

from parley.errors import ScenarioError
from parley.protocol.events import PartyId

StagnationPolicy = Literal["walk", "mediate", "continue"]

DEFAULT_COALITION_ROUNDS = 2
"""Rounds a coalition attempt stays open (k-of-n games) when the rules do not say."""


def default_stagnation_rounds(max_rounds: int) -> int:
    """Rounds without movement before the stagnation detector fires, when a scenario does not say:
    two thirds of the round bound (rounded up), at least 3.

    Time-based negotiators hold their opening offer for about half the game; a fixed default of 3
    stopped two Boulware negotiators in round 4 of an ordinary bilateral sale. Two thirds of the
    bound is what the shipped scenarios use (14 of 20 rounds).
    """
    return max(3, (2 * max_rounds + 2) // 3)


@dataclass(frozen=True, slots=True)
class AcceptanceRule:
    """When an offer passes: unanimity by default, or k of n with named veto parties.

    Under unanimity any walk ends the session. Under k of n a party that walks leaves the table
    (a public ``withdrawal`` event) and the others go on, as long as the walker holds no veto and
    at least k parties remain; otherwise the walk ends the session.

    Attributes:
        required: How many parties must accept (None: all of them). The proposer counts.
        vetoes: Parties whose acceptance is always required.
    """

    required: int | None = None
    vetoes: tuple[PartyId, ...] = ()

    def is_met(self, accepted_by: Collection[PartyId], parties: Sequence[PartyId]) -> bool:
        """Whether the parties in accepted_by suffice to pass an offer."""
        needed = len(parties) if self.required is None else self.required
        if len(accepted_by) < needed:  # the common case while bargaining: skip the veto scan
            return False
        return all(v in accepted_by for v in self.vetoes)

    def check(self, parties: Sequence[PartyId]) -> None:
        """Raise ScenarioError when the rule cannot be satisfied by these parties."""
        if self.required is not None and not 1 <= self.required <= len(parties):
            raise ScenarioError(
                f"acceptance needs {self.required} of {len(parties)} parties", field="protocol.required"
            )
        unknown = [v for v in self.vetoes if v not in parties]
        if unknown:
            raise ScenarioError(
                f"veto parties {unknown} are not parties {list(parties)}", field="protocol.vetoes"
            )


@dataclass(frozen=True, slots=True)
class Rules:
    """How a negotiation is played and bounded.

    Attributes:
        max_rounds: Hard cap on rounds (V9); reaching it ends with no deal, reason bound_hit.
        max_offers: Cap on offers put on the table (None: no cap).
        deadline_seconds: Wall-clock budget on the session's clock (None: none).
        acceptance: When an offer passes.
        stagnation_rounds: K — rounds without movement before the detector fires (None: the
            default for the round bound, `default_stagnation_rounds(max_rounds)`; see
            `stagnation_patience`).
        stagnation_epsilon: ε — largest per-issue move (fraction of the issue's option range)
            that still counts as no movement.
        on_stagnation: "walk" (O13 default: the party worst off against its BATNA walks),
            "mediate" (a mediator proposes, if there is one; else walk), or "continue" (log only).
        act_timeout: Seconds a party may take for one move (None: unbounded).
        proposer_order: Proposer rotation (None: the scenario's party order).
        coalition_rounds: Rounds a coalition attempt stays open, counting the one it was proposed
            in (k-of-n games; 0 turns the coalition sub-protocol off; see `parley.protocol.coalition`).
    """

    max_rounds: int = 20
    max_offers: int | None = None
    deadline_seconds: float | None = None
    acceptance: AcceptanceRule = AcceptanceRule()
    stagnation_rounds: int | None = None
    stagnation_epsilon: float = 0.0
    on_stagnation: StagnationPolicy = "walk"
    act_timeout: float | None = None
    proposer_order: tuple[PartyId, ...] | None = None
    coalition_rounds: int = DEFAULT_COALITION_ROUNDS

    def __post_init__(self) -> None:
        if self.max_rounds < 1:
            raise ScenarioError("max_rounds must be at least 1", field="protocol.max_rounds")
        if self.stagnation_rounds is not None and self.stagnation_rounds < 1:
            raise ScenarioError("stagnation_rounds must be at least 1", field="protocol.stagnation_rounds")
        if not 0.0 <= self.stagnation_epsilon < 1.0:
            raise ScenarioError("stagnation_epsilon must be in [0, 1)", field="protocol.stagnation_epsilon")
        if self.coalition_rounds < 0:
            raise ScenarioError("coalition_rounds must not be negative", field="protocol.coalition_rounds")

    @property
    def stagnation_patience(self) -> int:
        """K as played: `stagnation_rounds`, or the default for `max_rounds` when it is None."""
        if self.stagnation_rounds is None:
            return default_stagnation_rounds(self.max_rounds)
        return self.stagnation_rounds

    def allows_coalitions(self, parties: int) -> bool:
        """Whether the coalition sub-protocol is on among this many parties: k of n with k below n,
        and coalition_rounds above 0. (Under a rule needing every party a coalition adds nothing.)
        """
        required = self.acceptance.required
        return self.coalition_rounds > 0 and required is not None and required < parties

    def order(self, parties: Sequence[PartyId]) -> tuple[PartyId, ...]:
        """The proposer rotation for these parties."""
        order = self.proposer_order or tuple(parties)
        if sorted(order) != sorted(parties):
            raise ScenarioError(f"proposer_order {list(order)} must list every party {list(parties)} once")
        return tuple(order)
