"""Running the GAIA experiment: the experimental arms (conditions), one session of the real delegate
against a simulated counterparty, its extraction accuracy against the hidden ground truth, and the grid."""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from functools import cache
from typing import Any, Literal

from parley.experiments.batch import TaskStore, map_specs
from parley.experiments.gaia.drafter import PhraseBankDrafter, development_bank
from parley.experiments.seeds import describe_split
from parley.governance.config import DomainConfig, load_config
from parley.governance.counterparties import PERSONAS, SimulatedCounterparty
from parley.governance.delegate import DelegateOptions
from parley.governance.escalation import PolicyPrincipal
from parley.governance.extraction import FieldValue
from parley.governance.moderator import RuleModerator
from parley.governance.session import DelegateRoles, run_session
from parley.governance.store import SessionStore
from parley.governance.strategy import Strategy, with_strategy
from parley.metrics.gaia import session_metrics

DOMAINS = ("staffing", "procurement", "leasing")
SLIP_RATE = 0.15
"""Probability that the simulated drafter slips on a proposal (what the preflight must catch)."""
_BANK_STREAM = 0x5B1
"""Second seed word of the phrase-bank drafter's generator (its draws apart from the session's own)."""


SlipSource = Literal["templates", "phrase_bank"]
"""Where the drafter's slips come from: the template drafter's 14 fixed slips (package data slips.yaml,
the phrasings the preflight was built to catch: in-sample for the detector) or the development phrase
bank (`parley.experiments.gaia.drafter`, written by someone who had not seen the detector)."""


@dataclass(frozen=True, slots=True)
class Condition:
    """One experimental arm.

    Attributes:
        slips: The drafter's slip source.
        tweak: Changes to the counterparty's behaviour parameters for the sensitivity analysis
            (`parley.experiments.gaia.sensitivity.tweak_persona`): (parameter, factor) pairs; rates are
            multiplied (capped at 1), turns shifted by the factor; "slip_rate" scales `SLIP_RATE`.
    """

    name: str
    use_stcc: bool = True
    gate: float = 0.7
    preflight: bool = True
    slips: SlipSource = "templates"
    tweak: tuple[tuple[str, float], ...] = ()


CONDITIONS = (
    Condition("GAIA (τ_gate 0.7)"),
    Condition("no STCC", use_stcc=False),
    Condition("τ_gate 0.6", gate=0.6),
    Condition("τ_gate 0.8", gate=0.8),
    Condition("preflight off", preflight=False),
    Condition("GAIA, phrase-bank slips", slips="phrase_bank"),
    Condition("preflight off, phrase-bank slips", preflight=False, slips="phrase_bank"),
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
    """The seeds in words, with the split they belong to."""
    return describe_split(
        seeds,
        tuning=TUNING_SEEDS,
        evaluation=EVALUATION_SEEDS,
        tuning_role="the strategy was tuned on these seeds",
        evaluation_role="never used for tuning",
    )


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
    config: DomainConfig,
    persona: str,
    seed: int,
    condition: Condition,
    strategy: Strategy = "principal",
    *,
    roles: Callable[[DomainConfig, float], DelegateRoles] | None = None,
) -> dict[str, Any]:
    """One session; returns its metrics, extraction accuracy and labels (roles: given the arm's config
    and slip rate, roles that replace the experiment's, e.g. LLM-backed ones; see `gaia.llm`)."""
    arm = with_strategy(config, strategy).with_thresholds(
        gate=condition.gate, complete=max(condition.gate, config.thresholds.complete)
    )
    from parley.experiments.gaia.sensitivity import tweak_persona, tweaked_slip_rate  # (imports this module)

    store = SessionStore()
    counterparty = SimulatedCounterparty(arm, persona, seed)
    counterparty.persona = tweak_persona(counterparty.persona, condition.tweak)
    rate = tweaked_slip_rate(SLIP_RATE, condition.tweak)
    options = DelegateOptions(use_stcc=condition.use_stcc, preflight=condition.preflight, slip_rate=rate)
    drafter = (
        PhraseBankDrafter(arm, development_bank(), (seed, _BANK_STREAM), rate, slippable_only=True)
        if condition.slips == "phrase_bank"
        else None
    )
    outcome = run_session(
        arm,
        counterparty,
        POLICY,
        store,
        config_source=config.name,
        seed=seed,
        options=options,
        roles=_plugged(
            DelegateRoles(moderator=_moderator(config.name, arm.thresholds.classify), drafter=drafter),
            roles(arm, rate) if roles is not None else DelegateRoles(),
        ),
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
        "slips": condition.slips,
        **metrics.to_json(),
        "extraction_correct": correct,
        "extraction_total": total,
    }


def _plugged(base: DelegateRoles, chosen: DelegateRoles) -> DelegateRoles:
    """base with every role chosen names replaced by chosen's."""
    return DelegateRoles(
        extractor=chosen.extractor or base.extractor,
        moderator=chosen.moderator or base.moderator,
        drafter=chosen.drafter or base.drafter,
        critic=chosen.critic or base.critic,
    )


def run_experiment(
    seeds: int | Sequence[int],
    *,
    domains: Sequence[str] = DOMAINS,
    personas: Sequence[str] = PERSONAS,
    conditions: Sequence[Condition] = CONDITIONS,
    strategy: Strategy = "principal",
    progress: Callable[[int, int], None] | None = None,
    jobs: int = 1,
    store: TaskStore | None = None,
    scheduler: str | None = None,
) -> list[dict[str, Any]]:
    """Run every (condition, domain, persona, seed) cell once, the delegate negotiating with strategy
    (seeds: a count, for 0..seeds-1, or the seeds themselves, e.g. `EVALUATION_SEEDS`), through the
    batch layer (jobs processes or a Dask scheduler; resumable from store)."""
    specs = [
        SessionSpec("table1", d, p, s, strategy, c)
        for c in conditions
        for d in domains
        for p in personas
        for s in seed_list(seeds)
    ]
    return run_sessions(specs, jobs=jobs, store=store, scheduler=scheduler, progress=progress)


# -- the batch layer's task ---------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class SessionSpec:
    """One session of the experiment, the batch layer's task (`parley.experiments.batch`).

    Attributes:
        kind: "table1" (`run_one`, an arm of Table 1) or "share" (the principal's-share session).
    """

    kind: Literal["table1", "share"]
    domain: str
    persona: str
    seed: int
    strategy: Strategy
    condition: Condition = CONDITIONS[0]


def share_specs(
    seeds: int | Sequence[int],
    *,
    domains: Sequence[str] = DOMAINS,
    personas: Sequence[str] = PERSONAS,
    strategies: Sequence[Strategy] = STRATEGIES,
) -> list[SessionSpec]:
    """Every (strategy, domain, persona, seed) session of the principal's-share comparison."""
    return [
        SessionSpec("share", d, p, s, st)
        for st in strategies
        for d in domains
        for p in personas
        for s in seed_list(seeds)
    ]


@cache
def _config(name: str) -> DomainConfig:
    return load_config(name)


@cache
def _moderator(domain: str, threshold: float) -> RuleModerator:
    """The domain's rule moderator, built once per process: it keeps no state between messages, and
    building it (hundreds of regular expressions, more than `re`'s cache holds) costs more than a session."""
    return RuleModerator(_config(domain), threshold)


def run_session_task(spec: SessionSpec) -> list[dict[str, Any]]:
    """Play one session: its record as the one row."""
    if spec.kind == "share":
        from parley.experiments.gaia.principal import run_share_session  # (principal imports this module)

        return [run_share_session(_config(spec.domain), spec.persona, spec.seed, spec.strategy)]
    return [run_one(_config(spec.domain), spec.persona, spec.seed, spec.condition, spec.strategy)]


def run_sessions(
    specs: Sequence[SessionSpec],
    *,
    jobs: int = 1,
    store: TaskStore | None = None,
    scheduler: str | None = None,
    progress: Callable[[int, int], None] | None = None,
) -> list[dict[str, Any]]:
    """Every spec's record, in spec order, read back from the store (sessions already there are not
    played again)."""
    finished = 0

    def advance(count: int) -> None:
        nonlocal finished
        finished += count
        if progress is not None:
            progress(finished, len(specs))

    rows = map_specs(specs, run_session_task, store, jobs=jobs, scheduler=scheduler, on_progress=advance)
    return [row for task in rows for row in task]
