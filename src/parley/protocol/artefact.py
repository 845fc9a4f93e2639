"""The outcome of a session: a structured agreement checked against every BATNA, or a no-deal record."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Literal

from parley.domain.issues import Value
from parley.protocol.events import PartyId

NoDealReason = Literal["walk", "bound_hit", "stagnation", "protocol_violation", "judge"]


@dataclass(frozen=True, slots=True)
class BatnaViolation:
    """A party accepted a package worth less to it than walking away (a sycophancy failure)."""

    party: PartyId
    utility: float
    reservation_value: float


@dataclass(frozen=True, slots=True)
class Agreement:
    """The agreement artefact: per-issue terms, who accepted, and the BATNA check.

    Attributes:
        terms: The agreed package, issue by issue.
        round: Round in which it passed.
        proposer: Who tabled it ("mediator" possible).
        accepted_by: Parties that accepted.
        utilities: Each party's utility of the terms (computed by the engine, for audit).
        reservation_values: Each party's BATNA value.
        violations: Parties whose utility is below their BATNA (recorded, never hidden).
    """

    terms: Mapping[str, Value]
    round: int
    proposer: PartyId
    accepted_by: tuple[PartyId, ...]
    utilities: Mapping[PartyId, float]
    reservation_values: Mapping[PartyId, float]
    violations: tuple[BatnaViolation, ...]

    @property
    def is_clean(self) -> bool:
        """True when no party ended below its BATNA."""
        return not self.violations

    def to_json(self) -> dict[str, Any]:
        """JSON-ready form."""
        return {
            "terms": dict(self.terms),
            "round": self.round,
            "proposer": self.proposer,
            "accepted_by": list(self.accepted_by),
            "utilities": dict(self.utilities),
            "reservation_values": dict(self.reservation_values),
            "violations": [
                {"party": v.party, "utility": v.utility, "reservation_value": v.reservation_value}
                for v in self.violations
            ],
        }


@dataclass(frozen=True, slots=True)
class NoDeal:
    """The no-deal record: why the session ended without agreement and who (if anyone) walked."""

    reason: NoDealReason
    round: int
    walker: PartyId | None = None
    detail: str = ""

    def to_json(self) -> dict[str, Any]:
        """JSON-ready form."""
        return {"reason": self.reason, "round": self.round, "walker": self.walker, "detail": self.detail}
