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
    """Running totals for one (session, role) pair, or any aggregate of them."""

    calls: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    latency_s: float = 0.0
    cost_usd: float = 0.0
    unpriced_calls: int = 0
    fallbacks: int = 0
    models: set[str] = field(default_factory=set[str])

    def add(self, other: UsageTotals) -> None:
        """Accumulate other into self."""
        self.calls += other.calls
        self.prompt_tokens += other.prompt_tokens
        self.completion_tokens += other.completion_tokens
        self.latency_s += other.latency_s
        self.cost_usd += other.cost_usd
        self.unpriced_calls += other.unpriced_calls
        self.fallbacks += other.fallbacks
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
            "fallbacks": self.fallbacks,
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

    def render(self) -> str:
        """A short plain-text table for terminals and logs."""
        rows = [*sorted(self.by_role.items()), ("total", self.total)]
        width = max(14, *(len(name) + 2 for name, _ in rows))
        lines = [f"{'role':<{width}}{'calls':>7}{'tok in':>10}{'tok out':>10}{'latency s':>11}{'USD':>11}"]
        for name, t in rows:
            lines.append(
                f"{name:<{width}}{t.calls:>7}{t.prompt_tokens:>10}{t.completion_tokens:>10}"
                f"{t.latency_s:>11.2f}{t.cost_usd:>11.4f}"
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

    def record_fallback(self, session: str, role: str) -> None:
        """Account one fallback to a role's deterministic twin."""
        with self._lock:
            self._totals.setdefault((session, role), UsageTotals()).fallbacks += 1

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
