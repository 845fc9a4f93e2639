"""How the GAIA headline comparisons move when each behavioural parameter of the simulated
counterparties (and the drafter's slip rate) is varied low and high (issue 20: results that depend on
modelling choices must show it).

Each parameter is varied alone, on the tuning seeds `SENSITIVITY_SEEDS`, over the personas it acts on
(a rate that is 0 for a persona, or a turn that is unset, changes nothing there); the four arms of the
comparisons (GAIA, preflight off, no STCC, τ_gate 0.8, all with phrase-bank slips) run on the same
sessions so every comparison is paired.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, fields, replace
from typing import Any

from parley.experiments.gaia.runs import DOMAINS, TUNING_SEEDS, Condition, SessionSpec
from parley.governance.counterparties import PERSONA_SETTINGS, PERSONAS, Persona
from parley.governance.strategy import Strategy

SENSITIVITY_SEEDS: tuple[int, ...] = TUNING_SEEDS[:2]
"""The seeds of the sensitivity runs: tuning seeds (the evaluation seeds are never used for it)."""
RATE_FACTORS = (0.5, 1.5)
"""Low and high: every rate multiplied by these (capped at 1)."""
TURN_SHIFTS = (-2.0, 2.0)
"""Low and high: every turn parameter shifted by these (at least turn 1)."""
_TURNS = frozenset({"ghost_after", "contradict_turn"})


@dataclass(frozen=True, slots=True)
class Parameter:
    """One varied parameter: its name, what it means and its low and high factors."""

    name: str
    meaning: str
    low: float
    high: float


PARAMETERS: tuple[Parameter, ...] = (
    Parameter("choice_answer_rate", "P(answer a multiple-choice question)", *RATE_FACTORS),
    Parameter("open_answer_rate", "P(answer an open question about a field)", *RATE_FACTORS),
    Parameter("volunteer_rate", "P(volunteer one extra field per reply)", *RATE_FACTORS),
    Parameter("silence_rate", "P(no reply in a round)", *RATE_FACTORS),
    Parameter("ghost_after", "turn after which replies stop (with P 0.6 a turn)", *TURN_SHIFTS),
    Parameter("attack_rate", "P(an attack or pressure line in a reply)", *RATE_FACTORS),
    Parameter("contradict_turn", "earliest turn an answer is changed (+ seed mod 5)", *TURN_SHIFTS),
    Parameter("slip_rate", "P(the drafter slips on a proposal)", *RATE_FACTORS),
)
"""Every varied parameter: the `Persona` fields and the drafter's slip rate."""


def tweak_persona(persona: Persona, tweak: Sequence[tuple[str, float]]) -> Persona:
    """persona with each named rate multiplied by its factor (capped at 1) and each turn shifted by it
    (at least 1; unset turns stay unset); names that are no `Persona` field (slip_rate) are skipped.

    Raises:
        ValueError: a factor is negative or not finite.
    """
    names = {f.name for f in fields(Persona)}
    changes: dict[str, Any] = {}
    for name, factor in tweak:
        if not math.isfinite(factor) or (name not in _TURNS and factor < 0):
            raise ValueError(f"bad factor {factor!r} for {name}")
        if name not in names:
            continue
        value = getattr(persona, name)
        if name in _TURNS:
            changes[name] = None if value is None else max(1, int(value + factor))
        else:
            changes[name] = min(1.0, float(value) * factor)
    return replace(persona, **changes)


def tweaked_slip_rate(rate: float, tweak: Sequence[tuple[str, float]]) -> float:
    """The drafter's slip rate under tweak (capped at 1)."""
    factor = dict(tweak).get("slip_rate", 1.0)
    return min(1.0, rate * factor)


def acts_on(parameter: str) -> tuple[str, ...]:
    """The personas a parameter changes (all for the slip rate)."""
    if parameter == "slip_rate":
        return PERSONAS
    return tuple(p for p in PERSONAS if getattr(PERSONA_SETTINGS[p], parameter) not in (None, 0, 0.0))


ARMS: tuple[Condition, ...] = (
    Condition("GAIA, phrase-bank slips", slips="phrase_bank"),
    Condition("preflight off, phrase-bank slips", preflight=False, slips="phrase_bank"),
    Condition("no STCC, phrase-bank slips", use_stcc=False, slips="phrase_bank"),
    Condition("τ_gate 0.8, phrase-bank slips", gate=0.8, slips="phrase_bank"),
)
"""The arms of the headline comparisons, run under every variant."""


def variant(arm: Condition, parameter: str | None, factor: float) -> Condition:
    """arm with one parameter varied (None: the nominal arm)."""
    if parameter is None:
        return arm
    return replace(arm, name=f"{arm.name} [{parameter} {factor:g}]", tweak=((parameter, factor),))


def sensitivity_specs(strategy: Strategy, seeds: Sequence[int] = SENSITIVITY_SEEDS) -> list[SessionSpec]:
    """Every session of the sensitivity analysis: the nominal arms over all personas, then each
    parameter's low and high variant over the personas it acts on."""
    specs = [
        SessionSpec("table1", d, p, s, strategy, arm)
        for arm in ARMS
        for d in DOMAINS
        for p in PERSONAS
        for s in seeds
    ]
    for parameter in PARAMETERS:
        for factor in (parameter.low, parameter.high):
            specs += [
                SessionSpec("table1", d, p, s, strategy, variant(arm, parameter.name, factor))
                for arm in ARMS
                for d in DOMAINS
                for p in acts_on(parameter.name)
                for s in seeds
            ]
    return specs


Metric = Callable[[Mapping[str, Any]], float]


_COMPARISONS: tuple[tuple[str, int, str], ...] = (
    ("violated", 1, "sessions with a violation: preflight off − on"),
    ("rounds_to_gate", 2, "rounds to τ_gate: no STCC − GAIA"),
    ("rounds", 3, "total rounds: τ_gate 0.8 − 0.7"),
)
"""(metric, index of the arm compared with the GAIA arm, column heading) of the sensitivity table."""


def _effect(records: Sequence[Mapping[str, Any]], first: str, second: str, metric: str) -> str:
    from parley.experiments.astra.inference import mcnemar, paired_wilcoxon
    from parley.experiments.gaia.tables import BINARY, paired_values  # (tables imports the runs)

    a, b = paired_values(records, first, second, metric)
    if not a:
        return "—"
    result = mcnemar([x > 0 for x in a], [x > 0 for x in b]) if metric in BINARY else paired_wilcoxon(a, b)
    p = "< 0.001" if result.p < 0.001 else f"{result.p:.3f}"
    return f"{result.effect:+.2f} (p {p}, n {result.n})"


def _agreement(records: Sequence[Mapping[str, Any]], condition: str) -> str:
    from parley.experiments.gaia.principal import rate_interval

    rows = [r for r in records if r["condition"] == condition]
    return str(rate_interval(sum(1 for r in rows if r["agreed"]), len(rows)))


def _row(records: Sequence[Mapping[str, Any]], arms: Sequence[Condition], label: str, personas: str) -> str:
    cells = [_effect(records, arms[index].name, arms[0].name, metric) for metric, index, _ in _COMPARISONS]
    return f"| {label} | {personas} | " + " | ".join(cells) + f" | {_agreement(records, arms[0].name)} |"


def sensitivity_rows(records: Sequence[Mapping[str, Any]]) -> list[str]:
    """For each parameter: the headline comparisons (paired effect, test p, n pairs) at its low value,
    nominally and at its high value, over the personas it acts on; and GAIA's deal rate (Wilson)."""
    heading = " | ".join(title for _, _, title in _COMPARISONS)
    lines = [
        f"| parameter (setting) | personas | {heading} | GAIA agreement |",
        "|---|---|" + "---|" * len(_COMPARISONS) + "---|",
        _row(records, ARMS, "all nominal", "all"),
    ]
    for parameter in PARAMETERS:
        personas = acts_on(parameter.name)
        nominal = [r for r in records if r["persona"] in personas]
        shown = ", ".join(personas) if personas != PERSONAS else "all"
        kind = "shift" if parameter.name in _TURNS else "×"
        low = [variant(arm, parameter.name, parameter.low) for arm in ARMS]
        high = [variant(arm, parameter.name, parameter.high) for arm in ARMS]
        lines += [
            _row(records, low, f"{parameter.name} ({kind} {parameter.low:g})", shown),
            _row(nominal, ARMS, f"{parameter.name} (nominal)", shown),
            _row(records, high, f"{parameter.name} ({kind} {parameter.high:g})", shown),
        ]
    return lines


def _show(value: object) -> str:
    return "—" if value is None else f"{value:g}" if isinstance(value, float | int) else str(value)


def parameter_rows() -> list[str]:
    """Every behavioural parameter of the simulated counterparties, per persona (from the code)."""
    names = [f.name for f in fields(Persona)]
    meanings = {p.name: p.meaning for p in PARAMETERS}
    lines = ["| parameter | meaning | " + " | ".join(PERSONAS) + " |", "|---|---|" + "---|" * len(PERSONAS)]
    for name in names:
        values = " | ".join(_show(getattr(PERSONA_SETTINGS[p], name)) for p in PERSONAS)
        lines.append(f"| {name} | {meanings.get(name, '')} | {values} |")
    return lines


def domain_rows() -> list[str]:
    """The per-domain parameters of the simulated counterparties (package data simulation/<domain>.yaml)."""
    from parley.governance.config import load_config, load_yaml_data

    lines = [
        "| domain | hidden reservation (drawn uniformly on the grid) | take-it-or-leave-it flexibility "
        "(drawn per offer) | fields a contradictory persona may change |",
        "|---|---|---|---|",
    ]
    for domain in DOMAINS:
        data: dict[str, Any] = load_yaml_data(f"simulation/{domain}.yaml")
        config = load_config(domain)
        term = next(t for t in config.boundary.terms if t.name == config.negotiation.term)
        spec: dict[str, Any] = data["fields"][str(term.field)]
        span = f"{spec['range'][0]:,}–{spec['range'][1]:,} step {spec['step']:,} ({term.field})"
        flexibility = data.get("flexibility", [0.0, 0.0])
        lines.append(
            f"| {domain} | {span} | U({flexibility[0]:g}, {flexibility[1]:g}) "
            f"| {', '.join(data.get('contradict', []))} |"
        )
    return lines


def principal_rows() -> list[str]:
    """What the scripted principal (option A on every escalation) does per trigger, from package data
    escalation_options.yaml."""
    from parley.governance.config import load_yaml_data

    options: dict[str, list[dict[str, str]]] = load_yaml_data("escalation_options.yaml")
    lines = ["| trigger | option A (always chosen) | options never chosen |", "|---|---|---|"]
    for trigger, choices in options.items():
        first, rest = choices[0]["effect"], ", ".join(c["effect"] for c in choices[1:])
        lines.append(f"| {trigger} | {first} | {rest or '—'} |")
    return lines
