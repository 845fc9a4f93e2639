"""The ProMediate Table 1 experiment and the LLM-Deliberation mediation comparison.

`run_grid` plays 6 cases × 4 conflict modes × 3 mediators × N runs (process-parallel), `summarise`
turns the rows into Table 1 with 95% confidence intervals, and `write_report` writes the markdown
report with the consensus-trajectory and ME–MI figures, and the LLM-Deliberation comparison
(`parley.experiments.deliberation`) when its rows are given.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from concurrent.futures import ProcessPoolExecutor, as_completed
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

from parley.experiments.deliberation import deliberation_section
from parley.mediation.mediators import create_mediator
from parley.metrics.consensus import ConversationMetrics, conversation_metrics
from parley.metrics.stats import Estimate, mean_ci
from parley.scenarios.importers.promediate import PROMEDIATE_CASES, load_promediate_case
from parley.scenarios.model import Scenario
from parley.simulation.conversation import ConversationResult, run_conversation
from parley.simulation.modes import ConflictMode

MODES: tuple[ConflictMode, ...] = (
    ConflictMode.ACCOMMODATING,
    ConflictMode.AVOIDING,
    ConflictMode.GENERAL,
    ConflictMode.COMPETING,
)
"""Column order of the seed's Table 1."""
MEDIATOR_NAMES: tuple[str, ...] = ("none", "generic", "social")
"""NoAgent, Generic, Social."""
METRIC_KEYS: tuple[str, ...] = ("CC", "TLE", "RL_turns", "RL_seconds", "ME", "MI", "interventions", "drops")
"""Per-conversation metrics kept in every row."""


@dataclass(frozen=True, slots=True)
class Cell:
    """One experimental condition: a case in a conflict mode with a mediator."""

    case: str
    mode: str
    mediator: str


@cache
def promediate_case(name: str) -> Scenario:
    """A ProMediate case, loaded once per process."""
    return load_promediate_case(name)


def run_cell(cell: Cell, runs: int) -> list[dict[str, Any]]:
    """Play every run of one condition; seed = run index, so conditions are paired by seed."""
    rows: list[dict[str, Any]] = []
    for run in range(runs):
        started = time.perf_counter()
        result = run_conversation(
            promediate_case(cell.case), create_mediator(cell.mediator), mode=ConflictMode(cell.mode), seed=run
        )
        metrics = conversation_metrics(result.trajectory)
        rows.append(conversation_row(cell, run, result, metrics, time.perf_counter() - started))
    return rows


def conversation_row(
    cell: Cell, run: int, result: ConversationResult, metrics: ConversationMetrics, seconds: float
) -> dict[str, Any]:
    """One conversation's row: its condition, run, metrics, consensus series and wall time (s)."""
    return {
        "case": cell.case,
        "mode": cell.mode,
        "mediator": cell.mediator,
        "run": run,
        **metrics.to_json(),
        "consensus": [round(v, 5) for v in result.consensus],
        "intervention_turns": list(result.interventions),
        "seconds": seconds,
    }


def grid(
    cases: Sequence[str] = PROMEDIATE_CASES,
    modes: Sequence[ConflictMode] = MODES,
    mediators: Sequence[str] = MEDIATOR_NAMES,
) -> list[Cell]:
    """Every condition of the Table 1 design (mediators may include "llm-generic", "llm-social")."""
    return [Cell(case, mode.value, mediator) for case in cases for mode in modes for mediator in mediators]


def run_grid(
    cells: Sequence[Cell],
    runs: int,
    *,
    jobs: int = 1,
    on_progress: Callable[[int, int], None] | None = None,
) -> list[dict[str, Any]]:
    """Run every cell (in `jobs` processes when jobs > 1); rows come back in cell order."""
    done: dict[int, list[dict[str, Any]]] = {}
    total = len(cells) * runs
    finished = 0
    if jobs <= 1:
        for index, cell in enumerate(cells):
            done[index] = run_cell(cell, runs)
            finished += runs
            if on_progress is not None:
                on_progress(finished, total)
    else:
        with ProcessPoolExecutor(max_workers=jobs) as pool:
            futures = {pool.submit(run_cell, cell, runs): index for index, cell in enumerate(cells)}
            for future in as_completed(futures):
                done[futures[future]] = future.result()
                finished += runs
                if on_progress is not None:
                    on_progress(finished, total)
    return [row for index in range(len(cells)) for row in done[index]]


def summarise(rows: Iterable[dict[str, Any]]) -> dict[tuple[str, str], dict[str, Estimate]]:
    """Per (mode, mediator): mean and 95% CI of every metric over cases × runs (inf/nan skipped)."""
    groups: dict[tuple[str, str], list[dict[str, Any]]] = {}
    for row in rows:
        groups.setdefault((row["mode"], row["mediator"]), []).append(row)
    return {
        key: {m: mean_ci(float(r[m]) for r in group) for m in METRIC_KEYS} for key, group in groups.items()
    }


def never_answered(rows: Iterable[dict[str, Any]]) -> dict[tuple[str, str], tuple[int, int]]:
    """Per (mode, mediator): conversations with RL = +∞ (drops never answered), and those with any drop."""
    counts: dict[tuple[str, str], list[int]] = {}
    for row in rows:
        entry = counts.setdefault((row["mode"], row["mediator"]), [0, 0])
        if row["drops"] > 0:
            entry[1] += 1
            entry[0] += int(math.isinf(float(row["RL_turns"])))
    return {key: (value[0], value[1]) for key, value in counts.items()}


# -- report -------------------------------------------------------------------------------------------

_LABELS = {
    "none": "NoAgent",
    "generic": "Generic",
    "social": "Social",
    "llm-generic": "LLM Generic",
    "llm-social": "LLM Social",
}
_ROWS = (
    ("CC", "CC (%) ↑", 100.0),
    ("TLE", "TLE (%) ↑", 100.0),
    ("RL_turns", "RL (turns) ↓", 1.0),
    ("RL_seconds", "RL (s, simulated clock) ↓", 1.0),
    ("ME", "ME (%) ↑", 100.0),
    ("MI", "MI (1–5) ↑", 1.0),
    ("interventions", "interventions", 1.0),
    ("drops", "topic drop events (τ = 0.1)", 1.0),
)


def table_one(summary: Mapping[tuple[str, str], Mapping[str, Estimate]], modes: Sequence[str]) -> list[str]:
    """Markdown for Table 1: one column per (mode, mediator), mean ± 95% CI half-width."""
    columns = [(m, a) for m in modes for a in _mediators(summary) if (m, a) in summary]
    lines = [
        "| metric | " + " | ".join(f"{m} · {_LABELS[a]}" for m, a in columns) + " |",
        "|---|" + "---|" * len(columns),
    ]
    for key, label, scale in _ROWS:
        cells = [_scaled(summary[column][key], scale) for column in columns]
        lines.append(f"| {label} | " + " | ".join(cells) + " |")
    return lines


def _mediators(summary: Mapping[tuple[str, str], object]) -> list[str]:
    """The mediators of a summary, in the order the grid played them."""
    return list(dict.fromkeys(mediator for _, mediator in summary))


def _scaled(estimate: Estimate, scale: float) -> str:
    return str(Estimate(estimate.mean * scale, estimate.half_width * scale, estimate.count))


def pattern_findings(summary: Mapping[tuple[str, str], Mapping[str, Estimate]]) -> list[str]:
    """Plain statements on whether the seed's headline pattern appears in these numbers."""
    findings: list[str] = []
    competing = {a: summary.get(("competing", a), {}).get("CC") for a in MEDIATOR_NAMES}
    if all(competing.values()):
        social, generic, none = (competing[a] for a in ("social", "generic", "none"))
        assert social is not None and generic is not None and none is not None
        ahead = social.mean > generic.mean and social.mean > none.mean
        separated = social.low > max(generic.high, none.high)
        findings.append(
            f"Competing mode, CC: Social {social.mean * 100:.2f}%, Generic {generic.mean * 100:.2f}%, "
            f"NoAgent {none.mean * 100:.2f}% — Social is {'ahead' if ahead else 'not ahead'}"
            f"{_separation(ahead, separated)}."
        )
    baseline = {
        m: estimate
        for m in ("accommodating", "avoiding", "general", "competing")
        if (estimate := summary.get((m, "none"), {}).get("CC")) is not None
    }
    if baseline:
        easiest = max(baseline, key=lambda m: baseline[m].mean)
        findings.append(
            "NoAgent CC by mode: "
            + ", ".join(f"{m} {e.mean * 100:.2f}%" for m, e in baseline.items())
            + f" — the easiest mode here is {easiest}"
            + (
                " (as in the seed)."
                if easiest == "accommodating"
                else " (the seed found accommodating easiest)."
            )
        )
    findings.extend(_ranking_findings(summary))
    findings.extend(_tempo_findings(summary))
    return findings


def _ranking_findings(summary: Mapping[tuple[str, str], Mapping[str, Estimate]]) -> list[str]:
    """Per mode, mediators ordered by CC, saying where 95% intervals separate the best from the rest."""
    findings: list[str] = []
    for mode in ("accommodating", "avoiding", "general", "competing"):
        estimates = {a: summary[(mode, a)]["CC"] for a in _mediators(summary) if (mode, a) in summary}
        if len(estimates) < 2:
            continue
        order = sorted(estimates, key=lambda a: -estimates[a].mean)
        best, rest = estimates[order[0]], [estimates[a] for a in order[1:]]
        clear = all(best.low > other.high for other in rest)
        findings.append(
            f"{mode.capitalize()} mode, CC order: "
            + " > ".join(f"{_LABELS[a]} {estimates[a].mean * 100:.1f}%" for a in order)
            + (" (the leader's 95% interval clears the others)." if clear else " (intervals overlap).")
        )
    return findings


def _tempo_findings(summary: Mapping[tuple[str, str], Mapping[str, Estimate]]) -> list[str]:
    """The seed's second claim: Social intervenes more and answers drops faster than Generic."""
    findings: list[str] = []
    for mode in ("competing", "general", "avoiding", "accommodating"):
        social, generic = summary.get((mode, "social")), summary.get((mode, "generic"))
        if social is None or generic is None:
            continue
        faster = social["RL_turns"].mean < generic["RL_turns"].mean
        more = social["interventions"].mean > generic["interventions"].mean
        findings.append(
            f"{mode.capitalize()} mode, tempo: Social {social['interventions'].mean:.1f} interventions, "
            f"RL {social['RL_turns'].mean:.2f} turns; "
            f"Generic {generic['interventions'].mean:.1f} interventions, "
            f"RL {generic['RL_turns'].mean:.2f} turns — Social is {'more' if more else 'less'} proactive and "
            f"{'faster' if faster else 'slower'} (the seed found it more proactive and about 3× faster)."
        )
    return findings


def _separation(ahead: bool, separated: bool) -> str:
    if separated:
        return " and its 95% interval clears both"
    return " but the 95% intervals overlap" if ahead else ""


def plot_trajectories(case: str, mode: ConflictMode, seed: int, path: Path) -> Path:
    """Figure-2-style plot: consensus per topic over turns for each mediator, interventions as grey lines."""
    from parley.experiments.plots import plt, save_figure  # (matplotlib only when plotting)

    scenario = promediate_case(case)
    figure, axes = plt.subplots(1, len(MEDIATOR_NAMES), figsize=(15, 4), sharey=True)
    for axis, name in zip(axes, MEDIATOR_NAMES, strict=True):
        result: ConversationResult = run_conversation(scenario, create_mediator(name), mode=mode, seed=seed)
        for turn in result.interventions:
            axis.axvline(turn, color="0.8", linewidth=1)
        for topic, values in result.topic_consensus.items():
            axis.plot(range(len(values)), values, label=topic[:32])
        axis.plot(range(len(result.consensus)), result.consensus, color="black", linewidth=2, label="group")
        axis.set_title(f"{_LABELS[name]} — {case}, {mode.value}, seed {seed}")
        axis.set_xlabel("turn")
    axes[0].set_ylabel("consensus (mean pairwise agreement)")
    axes[-1].legend(fontsize=7, loc="lower right")
    return save_figure(figure, path)


def plot_me_mi(rows: Sequence[dict[str, Any]], path: Path) -> Path:
    """Figure-4-style scatter of ME against MI per mediated conversation."""
    from parley.experiments.plots import plt, save_figure  # (matplotlib only when plotting)

    figure, axis = plt.subplots(figsize=(6, 4.5))
    for name, marker in (("generic", "o"), ("social", "^"), ("llm-generic", "s"), ("llm-social", "v")):
        points = [
            (r["MI"], r["ME"] * 100)
            for r in rows
            if r["mediator"] == name and math.isfinite(r["MI"]) and math.isfinite(r["ME"])
        ]
        if points:
            axis.scatter(*zip(*points, strict=True), marker=marker, alpha=0.6, label=_LABELS[name])
    axis.set_xlabel("MI (rubric score, 1–5)")
    axis.set_ylabel("ME (%: post − pre slope)")
    axis.axhline(0, color="0.7", linewidth=1)
    axis.legend()
    return save_figure(figure, path)


def write_report(
    rows: Sequence[dict[str, Any]],
    out: Path,
    *,
    runs: int,
    jobs: int,
    elapsed: float,
    deliberation: Sequence[dict[str, Any]] = (),
    command: str = "parley experiment promediate",
    llm_section: Sequence[str] = (),
) -> Path:
    """Write the markdown report (Table 1, findings, figures, deliberation comparison) and its figures.

    Args:
        llm_section: Markdown on the LLM roles and their usage, placed before Table 1 (none: the
            deterministic testbed only).
    """
    figures = out.parent / "figures"
    summary = summarise(rows)
    modes = [m.value for m in MODES]
    trajectory_figure = plot_trajectories(
        "flagship", ConflictMode.COMPETING, 0, figures / "promediate_consensus.png"
    )
    scatter_figure = plot_me_mi(rows, figures / "promediate_me_mi.png")
    per_conversation = [r["seconds"] for r in rows]
    mean_ms = 1000 * sum(per_conversation) / max(1, len(per_conversation))
    unanswered = never_answered(rows)
    lines = [
        "# ProMediate with parley's " + ("testbed and LLM roles" if llm_section else "deterministic testbed"),
        "",
        f"Measured with `{command}` ({len(rows)} conversations: {len({r['case'] for r in rows})} cases × "
        f"{len({r['mode'] for r in rows})} conflict modes × {len({r['mediator'] for r in rows})} mediators × "
        f"{runs} runs; "
        f"{jobs} process(es); wall time {elapsed:.1f} s; mean {mean_ms:.0f} ms "
        "per conversation including metrics).",
        "",
        ("Unless the LLM section below says otherwise, p" if llm_section else "P")
        + "articipants, mediators, attitude extraction and agreement scoring are the deterministic twins "
        "described in [the mediation guide](../mediation.md); the seed used LLMs for all four. Numbers "
        "below measure *this simulator*, not human or LLM behaviour, and are not comparable in "
        "magnitude with the seed's Table 1.",
        "",
        "How this differs from the seed's setup:",
        "",
        "- Participants: rule-driven inner-thought agents with hand-set conflict-mode settings "
        "(not Claude-Sonnet-4); utterances are structured acts rendered from templates.",
        "- Mediators: the generic and social mediators follow the seed's rules and framework "
        "deterministically (not GPT-4.1 prompts).",
        "- Consensus: attitudes are read from the structured acts and agreement is scored by rules "
        "(not GPT-4.1 as judge); group consensus is therefore smooth, so RL drop events (τ = 0.1 "
        "within 10 turns) are detected on each topic's consensus.",
        "- MI: a rubric over the same breakdown detector the social mediator uses, so it favours "
        "that mediator by construction.",
        "- Preferences: ranked choices read from the briefs into a sidecar file "
        "(see `parley_preferences.yaml`).",
        "",
        *llm_section,
        "## Table 1 (mean ± 95% CI half-width over cases × runs)",
        "",
        *table_one(summary, modes),
        "",
        "RL is averaged over answered drop events; a conversation whose drops the mediator never "
        "answered has RL = +∞ and is left out of the mean. Conversations with drops never answered / "
        "with any drop: "
        + ", ".join(
            f"{m}·{_LABELS[a]} {u}/{d}" for (m, a), (u, d) in sorted(unanswered.items()) if a != "none"
        )
        + ". RL seconds are on the simulated conversation clock (150 words a minute), not compute time.",
        "",
        "## Does the seed's pattern appear?",
        "",
        *[f"- {finding}" for finding in pattern_findings(summary)],
        "",
        "## Figures",
        "",
        "![Consensus per topic, flagship case, competing mode, seed 0; grey lines mark interventions]"
        f"(figures/{trajectory_figure.name})",
        "",
        f"![ME against MI per mediated conversation](figures/{scatter_figure.name})",
        "",
    ]
    if deliberation:
        lines += deliberation_section(deliberation)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text("\n".join(lines), encoding="utf-8")
    return out
