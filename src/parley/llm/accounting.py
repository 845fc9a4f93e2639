"""Usage accounting: calls, tokens, latency and estimated cost per session and per role.

A `UsageLedger` is shared by every role of a run (thread-safe); `summary()` gives the object the
CLI prints and `to_json()` the payload of the trajectory's ``llm_usage`` event.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Mapping
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path
from typing import Any

from parley.errors import ScenarioError
from parley.llm.types import LLMResponse


@dataclass(frozen=True, slots=True)
class Price:
    """USD per million tokens.

    Attributes:
        input: Price of a million prompt tokens.
        output: Price of a million completion tokens.
    """

    input: float
    output: float

    def cost(self, prompt_tokens: int, completion_tokens: int) -> float:
        """USD for one call."""
        return (prompt_tokens * self.input + completion_tokens * self.output) / 1_000_000


def load_prices(
    overrides: Mapping[str, Mapping[str, float]] | None = None, path: Path | None = None
) -> dict[str, Price]:
    """The shipped price table, updated from a JSON file and then from explicit overrides.

    Raises:
        ScenarioError: a price entry lacks "input" or "output".
    """
    raw: dict[str, Any] = json.loads(resources.files("parley.llm").joinpath("prices.json").read_text("utf-8"))
    if path is not None:
        raw.update(json.loads(Path(path).read_text("utf-8")))
    raw.update(overrides or {})
    prices: dict[str, Price] = {}
    for model, entry in raw.items():
        if model.startswith("_"):
            continue
        try:
            prices[model] = Price(float(entry["input"]), float(entry["output"]))
        except (KeyError, TypeError, ValueError):
            raise ScenarioError(
                f"price for {model!r} must be {{'input': USD/Mtok, 'output': USD/Mtok}}, got {entry!r}",
                source=str(path) if path else None,
                field=f"prices.{model}",
            ) from None
    return prices


@dataclass(slots=True)
class UsageTotals:
    """Running totals for one (session, role) pair, or any aggregate of them.

    ``decisions`` counts role answers (a move, a ruling, an extraction: one per `Role.call`, re-asks
    not counted again) and ``fallbacks`` those the deterministic twin gave instead, by cause.
    """

    calls: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    latency_s: float = 0.0
    cost_usd: float = 0.0
    unpriced_calls: int = 0
    decisions: int = 0
    fallbacks: int = 0
    fallback_causes: dict[str, int] = field(default_factory=dict[str, int])
    models: set[str] = field(default_factory=set[str])

    @property
    def fallback_share(self) -> float:
        """Fallbacks per decision (0.0 when the role decided nothing)."""
        return self.fallbacks / self.decisions if self.decisions else 0.0

    @property
    def main_cause(self) -> str:
        """The most frequent fallback cause ("" without fallbacks; ties: the alphabetically first)."""
        if not self.fallback_causes:
            return ""
        return min(self.fallback_causes.items(), key=lambda item: (-item[1], item[0]))[0]

    def add(self, other: UsageTotals) -> None:
        """Accumulate other into self."""
        self.calls += other.calls
        self.prompt_tokens += other.prompt_tokens
        self.completion_tokens += other.completion_tokens
        self.latency_s += other.latency_s
        self.cost_usd += other.cost_usd
        self.unpriced_calls += other.unpriced_calls
        self.decisions += other.decisions
        self.fallbacks += other.fallbacks
        for cause, count in other.fallback_causes.items():
            self.fallback_causes[cause] = self.fallback_causes.get(cause, 0) + count
        self.models |= other.models

    def to_json(self) -> dict[str, Any]:
        """JSON-ready, rounded so totals are byte-stable."""
        return {
            "calls": self.calls,
            "prompt_tokens": self.prompt_tokens,
            "completion_tokens": self.completion_tokens,
            "latency_s": round(self.latency_s, 6),
            "cost_usd": round(self.cost_usd, 8),
            "unpriced_calls": self.unpriced_calls,
            "decisions": self.decisions,
            "fallbacks": self.fallbacks,
            "fallback_share": round(self.fallback_share, 6),
            "fallback_causes": dict(sorted(self.fallback_causes.items())),
            "models": sorted(self.models),
        }


@dataclass(frozen=True, slots=True)
class UsageSummary:
    """Totals of a run: overall, per role and per session (what `parley run` prints and stores).

    Attributes:
        total: Everything together.
        by_role: Per role name ("negotiator", "judge", "mediator", ...).
        by_session: Per session id.
    """

    total: UsageTotals
    by_role: Mapping[str, UsageTotals]
    by_session: Mapping[str, UsageTotals]

    def to_json(self) -> dict[str, Any]:
        """The ``llm_usage`` event payload."""
        return {
            "total": self.total.to_json(),
            "by_role": {k: v.to_json() for k, v in sorted(self.by_role.items())},
            "by_session": {k: v.to_json() for k, v in sorted(self.by_session.items())},
        }

    def fallback_json(self) -> dict[str, dict[str, Any]]:
        """Per role: decisions, fallbacks, fallback share and causes (for result files and rows)."""
        return {
            role: {
                "decisions": t.decisions,
                "fallbacks": t.fallbacks,
                "fallback_share": round(t.fallback_share, 6),
                "fallback_causes": dict(sorted(t.fallback_causes.items())),
            }
            for role, t in sorted(self.by_role.items())
        }

    def fallback_lines(self) -> list[str]:
        """One line per role that fell back ("llm: negotiator: 11 of 11 decisions fell back ...")."""
        return [
            f"llm: {role}: {t.fallbacks} of {t.decisions} decisions fell back to the rule twin: "
            + t.main_cause
            for role, t in sorted(self.by_role.items())
            if t.fallbacks
        ]

    def all_fallback_roles(self) -> list[str]:
        """Roles that decided something and never once with the model."""
        return [
            role for role, t in sorted(self.by_role.items()) if t.decisions and t.fallbacks >= t.decisions
        ]

    def render(self) -> str:
        """A short plain-text table for terminals and logs."""
        rows = [*sorted(self.by_role.items()), ("total", self.total)]
        width = max(14, *(len(name) + 2 for name, _ in rows))
        lines = [
            f"{'role':<{width}}{'calls':>7}{'tok in':>10}{'tok out':>10}{'latency s':>11}{'USD':>11}"
            f"{'fallback':>10}"
        ]
        for name, t in rows:
            lines.append(
                f"{name:<{width}}{t.calls:>7}{t.prompt_tokens:>10}{t.completion_tokens:>10}"
                f"{t.latency_s:>11.2f}{t.cost_usd:>11.4f}{f'{t.fallbacks}/{t.decisions}':>10}"
            )
        if self.total.unpriced_calls:
            lines.append(f"({self.total.unpriced_calls} calls to models without a price are not in USD)")
        return "\n".join(lines)


class UsageLedger:
    """Thread-safe record of every LLM call of a run, keyed by session and role.

    Args:
        prices: Price table (default: the shipped one).
    """

    def __init__(self, prices: Mapping[str, Price] | None = None) -> None:
        self._prices = dict(prices) if prices is not None else load_prices()
        self._lock = threading.Lock()
        self._totals: dict[tuple[str, str], UsageTotals] = {}

    def record(self, session: str, role: str, response: LLMResponse) -> None:
        """Account one completed call."""
        usage = response.usage
        price = self._price(response.model)
        with self._lock:
            totals = self._totals.setdefault((session, role), UsageTotals())
            totals.calls += 1
            totals.prompt_tokens += usage.prompt_tokens
            totals.completion_tokens += usage.completion_tokens
            totals.latency_s += response.latency_s
            totals.models.add(response.model)
            if price is None:
                totals.unpriced_calls += 1
            else:
                totals.cost_usd += price.cost(usage.prompt_tokens, usage.completion_tokens)

    def record_decision(self, session: str, role: str, fallback_cause: str | None = None) -> None:
        """Account one role answer; fallback_cause says why the twin gave it (None: the model did)."""
        with self._lock:
            totals = self._totals.setdefault((session, role), UsageTotals())
            totals.decisions += 1
            if fallback_cause is not None:
                totals.fallbacks += 1
                totals.fallback_causes[fallback_cause] = totals.fallback_causes.get(fallback_cause, 0) + 1

    def record_fallback(self, session: str, role: str, cause: str = "unknown") -> None:
        """Account one decision the deterministic twin made instead of the model."""
        self.record_decision(session, role, cause)

    def _price(self, model: str) -> Price | None:
        if model in self._prices:
            return self._prices[model]
        # Endpoints often report dated snapshots ("gpt-4o-mini-2024-07-18"): match the longest prefix.
        prefixes = [name for name in self._prices if model.startswith(name)]
        return self._prices[max(prefixes, key=len)] if prefixes else None

    def summary(self, session: str | None = None) -> UsageSummary:
        """Totals over every session, or over one session only."""
        total = UsageTotals()
        by_role: dict[str, UsageTotals] = {}
        by_session: dict[str, UsageTotals] = {}
        with self._lock:
            items = [(k, v) for k, v in self._totals.items() if session is None or k[0] == session]
            for (sess, role), totals in items:
                total.add(totals)
                by_role.setdefault(role, UsageTotals()).add(totals)
                by_session.setdefault(sess, UsageTotals()).add(totals)
        return UsageSummary(total, by_role, by_session)
