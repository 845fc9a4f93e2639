"""Running the GAIA experiment: the experimental arms (conditions), one session of the real delegate
against a simulated counterparty, its extraction accuracy against the hidden ground truth, and the grid."""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from parley.governance.config import DomainConfig, load_config
from parley.governance.counterparties import PERSONAS, SimulatedCounterparty
from parley.governance.delegate import DelegateOptions
from parley.governance.escalation import PolicyPrincipal
from parley.governance.extraction import FieldValue
from parley.governance.session import run_session
from parley.governance.store import SessionStore
from parley.governance.strategy import Strategy, with_strategy
from parley.metrics.gaia import session_metrics

DOMAINS = ("staffing", "procurement", "leasing")
SLIP_RATE = 0.15
"""Probability that the simulated drafter slips on a proposal (what the preflight must catch)."""


@dataclass(frozen=True, slots=True)
class Condition:
    """One experimental arm."""

    name: str
    use_stcc: bool = True
    gate: float = 0.7
    preflight: bool = True


CONDITIONS = (
    Condition("GAIA (τ_gate 0.7)"),
    Condition("no STCC", use_stcc=False),
    Condition("τ_gate 0.6", gate=0.6),
    Condition("τ_gate 0.8", gate=0.8),
    Condition("preflight off", preflight=False),
)
POLICY = PolicyPrincipal(default="A", name="experiment-policy")
TUNING_SEEDS: tuple[int, ...] = tuple(range(20))
"""Seeds the delegate's strategy was tuned on (issue 17): figures on them are tuning figures."""
EVALUATION_SEEDS: tuple[int, ...] = tuple(range(100, 140))
"""Seeds never used for tuning (disjoint from `TUNING_SEEDS`), run once for the evaluation figures."""
SEED_SPLITS: dict[str, tuple[int, ...]] = {"tuning": TUNING_SEEDS, "evaluation": EVALUATION_SEEDS}
"""The experiment's seed split, by name (`parley experiment gaia --split`)."""


def seed_list(seeds: int | Sequence[int]) -> tuple[int, ...]:
    """The seeds to run: 0..seeds-1 for a count, else the seeds given (in order, once each)."""
    return tuple(range(seeds)) if isinstance(seeds, int) else tuple(dict.fromkeys(int(s) for s in seeds))


def describe_seeds(seeds: Sequence[int]) -> str:
    """The seeds in words, with the split they belong to ("40 seeds (100–139; evaluation: never used for
    tuning)")."""
    ordered = sorted(seeds)
    if not ordered:
        return "no seeds"
    contiguous = ordered == list(range(ordered[0], ordered[-1] + 1))
    span = (
        str(ordered[0])
        if len(ordered) == 1
        else f"{ordered[0]}–{ordered[-1]}"
        if contiguous
        else ", ".join(map(str, ordered))
    )
    if set(ordered) <= set(EVALUATION_SEEDS):
        role = "evaluation: never used for tuning"
    elif set(ordered) <= set(TUNING_SEEDS):
        role = "tuning: the strategy was tuned on these seeds"
    else:
        role = "not a declared split"
    return f"{len(ordered)} seeds ({span}; {role})"


STRATEGIES: tuple[Strategy, ...] = ("legacy", "principal")
"""The delegate's negotiation strategies (`negotiation.strategy`): the old band share, and the new one."""


def _number(value: FieldValue) -> float | None:
    if isinstance(value, float | int):
        return float(value)
    head = value.split("-")[0].split("/")[0]
    try:
        return float(head)
    except ValueError:
        return None


def _matches(config: DomainConfig, name: str, value: FieldValue, truth: FieldValue) -> bool:
    spec = config.field(name)
    for band in spec.bands:
        if value == band.label:
            if band.option is not None:
                return band.option == truth
            low, high, number = band.low, band.high, _number(truth)
            return None not in (low, high, number) and low <= number < high  # type: ignore[operator]
    if isinstance(truth, str):
        return value == truth
    number = _number(value)
    return number is not None and math.isclose(number, float(truth), rel_tol=0.01)


def extraction_accuracy(
    config: DomainConfig, confirmed: Mapping[str, FieldValue], truth: Mapping[str, FieldValue]
) -> tuple[int, int]:
    """(correct, confirmed) over fields the delegate confirmed."""
    correct = sum(
        1 for name, value in confirmed.items() if name in truth and _matches(config, name, value, truth[name])
    )
    return correct, len(confirmed)


def run_one(
    config: DomainConfig, persona: str, seed: int, condition: Condition, strategy: Strategy = "principal"
) -> dict[str, Any]:
    """One session; returns its metrics, extraction accuracy and labels."""
    arm = with_strategy(config, strategy).with_thresholds(
        gate=condition.gate, complete=max(condition.gate, config.thresholds.complete)
    )
    store = SessionStore()
    counterparty = SimulatedCounterparty(arm, persona, seed)
    options = DelegateOptions(use_stcc=condition.use_stcc, preflight=condition.preflight, slip_rate=SLIP_RATE)
    outcome = run_session(
        arm, counterparty, POLICY, store, config_source=config.name, seed=seed, options=options
    )
    events = store.load_events(outcome.session_id)
    metrics = session_metrics(arm, events)
    snapshot = store.load_session(outcome.session_id)["snapshot"]["delegate"]
    correct, total = extraction_accuracy(arm, snapshot["tci"]["confirmed"], counterparty.truth)
    store.close()
    return {
        "domain": config.name,
        "persona": persona,
        "seed": seed,
        "condition": condition.name,
        "strategy": strategy,
        **metrics.to_json(),
        "extraction_correct": correct,
        "extraction_total": total,
    }


def run_experiment(
    seeds: int | Sequence[int],
    *,
    domains: Sequence[str] = DOMAINS,
    personas: Sequence[str] = PERSONAS,
    conditions: Sequence[Condition] = CONDITIONS,
    strategy: Strategy = "principal",
    progress: Callable[[int, int], None] | None = None,
) -> list[dict[str, Any]]:
    """Run every (condition, domain, persona, seed) cell once, the delegate negotiating with strategy
    (seeds: a count, for 0..seeds-1, or the seeds themselves, e.g. `EVALUATION_SEEDS`)."""
    configs = {name: load_config(name) for name in domains}
    chosen = seed_list(seeds)
    cells = [(c, d, p, s) for c in conditions for d in domains for p in personas for s in chosen]
    records: list[dict[str, Any]] = []
    for index, (condition, domain, persona, seed) in enumerate(cells, start=1):
        records.append(run_one(configs[domain], persona, seed, condition, strategy))
        if progress is not None:
            progress(index, len(cells))
    return records
