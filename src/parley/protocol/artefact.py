"""The outcome of a session: a structured agreement checked against every BATNA, or a no-deal record."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Literal

from parley.domain.issues import Value
from parley.protocol.events import PartyId
from parley.protocol.fields import meta

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
        utilities: Each party's undiscounted utility of the terms (computed by the engine, for audit).
        reservation_values: Each party's BATNA value (undiscounted).
        violations: Parties whose utility is below their BATNA (recorded, never hidden).
        discounted_utilities: Each party's utility of the terms discounted to the time of the
            agreement, u·d^t (GENIUS/ANAC time discounting); empty when no party discounts.
        time: That normalised time t = round / max_rounds, or None when no party discounts.
    """

    # (the metadata feeds the published trajectory schema: parley.protocol.trajectory_schema)
    terms: Mapping[str, Value] = field(metadata=meta("Issue name to the agreed option."))
    round: int = field(metadata=meta(minimum=0))
    proposer: PartyId = field(metadata=meta('Who tabled it ("mediator" possible).'))
    accepted_by: tuple[PartyId, ...]
    utilities: Mapping[PartyId, float]
    reservation_values: Mapping[PartyId, float]
    violations: tuple[BatnaViolation, ...] = field(
        metadata=meta("Parties that accepted a package worth less than their BATNA.")
    )
    discounted_utilities: Mapping[PartyId, float] = field(
        default_factory=lambda: {},
        metadata=meta(
            "Present only when some party discounts: each party's utility of the terms times its "
            "discount factor to the power time (GENIUS/ANAC time discounting).",
            optional=True,
        ),
    )
    time: float | None = field(
        default=None,
        metadata=meta(
            "Present with discounted_utilities: the normalised time of the agreement, round / max_rounds.",
            minimum=0,
            maximum=1,
            optional=True,
        ),
    )

    @property
    def is_clean(self) -> bool:
        """True when no party ended below its BATNA."""
        return not self.violations

    def to_json(self) -> dict[str, Any]:
        """JSON-ready form (the discounted figures only when some party discounts)."""
        data: dict[str, Any] = {
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
        if self.discounted_utilities:
            data["discounted_utilities"] = dict(self.discounted_utilities)
            data["time"] = self.time
        return data


@dataclass(frozen=True, slots=True)
class NoDeal:
    """The no-deal record: why the session ended without agreement and who (if anyone) walked."""

    reason: NoDealReason
    round: int = field(metadata=meta(minimum=0))
    walker: PartyId | None = None
    detail: str = ""

    def to_json(self) -> dict[str, Any]:
        """JSON-ready form."""
        return {"reason": self.reason, "round": self.round, "walker": self.walker, "detail": self.detail}
