"""The Task-Completeness Index (TCI, Algorithm 3): revealed / required, with a per-turn ledger.

Confirmed values are never removed, so TCI is monotone by construction; low-confidence or
disputed values are kept as "soft-revealed" and do not count until confirmed. Checks of claims by a
verifier (`parley.governance.verification`) are kept beside the values as evidence for the
principal; they never change the index.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from parley.governance.config import DomainConfig
from parley.governance.extraction import FieldReading, FieldValue
from parley.governance.verification import VerificationResult


@dataclass(frozen=True, slots=True)
class LedgerEntry:
    """TCI after one counterparty turn.

    Attributes:
        turn: Counterparty turn number (from 1).
        revealed: Fields newly confirmed this turn, with their values.
        soft: Fields newly soft-revealed (candidate values that do not count yet).
        conflicts: Confirmed fields the counterparty contradicted this turn (old, new).
        tci: Unweighted TCI after the turn.
        tci_weighted: Weighted TCI after the turn (used for gating).
        missing: Fields still not confirmed.
    """

    turn: int
    revealed: Mapping[str, FieldValue]
    soft: Mapping[str, FieldValue]
    conflicts: Mapping[str, tuple[FieldValue, FieldValue]]
    tci: float
    tci_weighted: float
    missing: tuple[str, ...]

    def to_json(self) -> dict[str, Any]:
        """A JSON-ready dict."""
        return {
            "turn": self.turn,
            "revealed": dict(self.revealed),
            "soft": dict(self.soft),
            "conflicts": {name: list(pair) for name, pair in self.conflicts.items()},
            "tci": round(self.tci, 6),
            "tci_weighted": round(self.tci_weighted, 6),
            "missing": list(self.missing),
        }


@dataclass(frozen=True, slots=True)
class ClaimCheck:
    """A verifier's check of one confirmed value.

    Attributes:
        value: The value that was checked (a later, different value needs a check of its own).
        result: What the verifier established.
        turn: Counterparty turn of the check.
    """

    value: FieldValue
    result: VerificationResult
    turn: int

    def to_json(self) -> dict[str, Any]:
        """A JSON-ready dict."""
        return {"value": self.value, **self.result.to_json(), "turn": self.turn}

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> ClaimCheck:
        """Inverse of to_json."""
        return cls(data["value"], VerificationResult.from_json(data), int(data["turn"]))


@dataclass
class TaskCompletenessIndex:
    """Mutable TCI state for one session (serialisable with `to_json`/`from_json`).

    Attributes:
        confirmed: Field → confirmed value.
        soft: Field → candidate values awaiting confirmation.
        disputed: Confirmed fields whose value the counterparty has contradicted (field → new value).
        ledger: One entry per counterparty turn.
        checks: Field → the latest verifier check of its value.
    """

    config: DomainConfig
    confirmed: dict[str, FieldValue] = field(default_factory=lambda: {})
    soft: dict[str, list[FieldValue]] = field(default_factory=lambda: {})
    disputed: dict[str, FieldValue] = field(default_factory=lambda: {})
    ledger: list[LedgerEntry] = field(default_factory=lambda: [])
    checks: dict[str, ClaimCheck] = field(default_factory=lambda: {})

    @property
    def value(self) -> float:
        """|revealed| / |required|."""
        return len(self.confirmed) / len(self.config.fields)

    @property
    def weighted(self) -> float:
        """Σ w_f over revealed / Σ w_f over required."""
        total = sum(spec.weight for spec in self.config.fields)
        return sum(spec.weight for spec in self.config.fields if spec.name in self.confirmed) / total

    @property
    def missing(self) -> tuple[str, ...]:
        """Required fields not yet confirmed, in declaration order."""
        return tuple(name for name in self.config.field_names if name not in self.confirmed)

    def update(self, turn: int, readings: Iterable[FieldReading]) -> LedgerEntry:
        """Fold one turn's readings into the index and append a ledger entry."""
        revealed: dict[str, FieldValue] = {}
        soft: dict[str, FieldValue] = {}
        conflicts: dict[str, tuple[FieldValue, FieldValue]] = {}
        for reading in sorted(readings, key=lambda r: -r.confidence):
            threshold = self.config.field(reading.field).confidence
            self._fold(reading, reading.confidence >= threshold, revealed, soft, conflicts)
        entry = LedgerEntry(turn, revealed, soft, conflicts, self.value, self.weighted, self.missing)
        self.ledger.append(entry)
        return entry

    def _fold(
        self,
        reading: FieldReading,
        confident: bool,
        revealed: dict[str, FieldValue],
        soft: dict[str, FieldValue],
        conflicts: dict[str, tuple[FieldValue, FieldValue]],
    ) -> None:
        name = reading.field
        if name in revealed:
            return
        if name in self.confirmed:
            if confident and reading.value != self.confirmed[name] and name not in conflicts:
                conflicts[name] = (self.confirmed[name], reading.value)
                self.disputed[name] = reading.value
            return
        if confident:
            self.confirmed[name] = reading.value
            self.soft.pop(name, None)
            revealed[name] = reading.value
        elif reading.value not in self.soft.get(name, []):
            self.soft.setdefault(name, []).append(reading.value)
            soft.setdefault(name, reading.value)

    def resolve(self, name: str, value: FieldValue) -> None:
        """Settle a disputed field with the value the counterparty confirmed (the field stays revealed)."""
        self.confirmed[name] = value
        self.disputed.pop(name, None)

    def record_verification(
        self, name: str, value: FieldValue, result: VerificationResult, turn: int
    ) -> None:
        """Keep a verifier's check of a field's value (the index itself does not change)."""
        self.checks[name] = ClaimCheck(value, result, turn)

    def verification(self, name: str) -> ClaimCheck | None:
        """The latest check of a field, if any."""
        return self.checks.get(name)

    def to_json(self) -> dict[str, Any]:
        """Serialisable state (the config is stored separately; "checks" only when there are any)."""
        checks = {"checks": {k: c.to_json() for k, c in self.checks.items()}} if self.checks else {}
        return {
            "confirmed": dict(self.confirmed),
            "soft": {name: list(values) for name, values in self.soft.items()},
            "disputed": dict(self.disputed),
            "ledger": [entry.to_json() for entry in self.ledger],
            **checks,
        }

    @classmethod
    def from_json(cls, config: DomainConfig, data: Mapping[str, Any]) -> TaskCompletenessIndex:
        """Inverse of to_json."""
        ledger = [
            LedgerEntry(
                int(e["turn"]),
                dict(e["revealed"]),
                dict(e["soft"]),
                {k: (v[0], v[1]) for k, v in e["conflicts"].items()},
                float(e["tci"]),
                float(e["tci_weighted"]),
                tuple(e["missing"]),
            )
            for e in data.get("ledger", [])
        ]
        return cls(
            config,
            dict(data.get("confirmed", {})),
            {k: list(v) for k, v in data.get("soft", {}).items()},
            dict(data.get("disputed", {})),
            ledger,
            {k: ClaimCheck.from_json(v) for k, v in data.get("checks", {}).items()},
        )
