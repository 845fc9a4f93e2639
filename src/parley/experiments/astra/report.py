"""The ASTRA report: the per-session CSV, the λ heatmap (the seed's figure 3) and the markdown
report that puts the tables, the figure and the fixed text together."""

from __future__ import annotations

import csv
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import asdict
from pathlib import Path

import numpy as np

from parley.domain.utility import FloatArray
from parley.experiments.astra.claims import (
    POOLED,
    Claim,
    Comparison,
    baseline_comparisons,
    claims_markdown,
    comparisons_markdown,
    seed_claims,
)
from parley.experiments.astra.config import (
    EVALUATION_SEEDS,
    OBJECTIVE,
    TUNABLES,
    TUNING_SEEDS,
    TunedConfig,
)
from parley.experiments.astra.inference import ALPHA
from parley.experiments.astra.prose import CHANGES, DISCUSSION, IMPLEMENTATION, PREVIOUS_TABLE1
from parley.experiments.astra.runs import RunRecord
from parley.experiments.astra.tables import (
    FAIRNESS,
    STANCES,
    cell_means,
    lambda_markdown,
    lambda_table,
    paper_markdown,
    previous_markdown,
    previous_tournament_markdown,
    table1_markdown,
    tactic_markdown,
    tactic_table,
    tournament_markdown,
    tuning_markdown,
)


def write_csv(
    records: Iterable[RunRecord], path: Path, *, extra: Sequence[Mapping[str, object]] | None = None
) -> Path:
    """One row per session (λ and tactic lists left out); extra, one mapping per record, adds columns
    (the LLM runs' fallback share: `parley.experiments.astra.llm.csv_columns`)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    rows = [{k: v for k, v in asdict(r).items() if k not in ("lambdas", "tactics")} for r in records]
    if extra is not None:
        rows = [{**row, **more} for row, more in zip(rows, extra, strict=True)]
    with path.open("w", newline="", encoding="utf-8") as handle:
        writer = csv.DictWriter(handle, fieldnames=list(rows[0]) if rows else ["study"])
        writer.writeheader()
        writer.writerows(rows)
    return path


def plot_lambda_heatmap(table: Mapping[tuple[str, str], tuple[float, int]], path: Path) -> Path:
    """The seed's figure 3: mean λ by the partner's stance (rows) and fairness (columns), as a PNG."""
    from parley.experiments.plots import plt, save_figure  # (matplotlib only when plotting)

    stances, fairness, grid = _lambda_grid(table)
    figure, axes = plt.subplots(figsize=(4.5, 3.6))
    image = axes.imshow(grid, cmap="viridis", vmin=0.0, vmax=1.0)
    axes.set_xticks(range(len(fairness)), fairness)
    axes.set_yticks(range(len(stances)), stances)
    axes.set_xlabel("partner fairness")
    axes.set_ylabel("partner stance")
    for i in range(len(stances)):
        for j in range(len(fairness)):
            if not np.isnan(grid[i, j]):
                count = table[(stances[i], fairness[j])][1]
                shade = "black" if grid[i, j] > 0.6 else "white"  # readable on yellow and on blue
                axes.text(j, i, f"{grid[i, j]:.2f}\n(n={count})", ha="center", va="center", color=shade)
    figure.colorbar(image, ax=axes, label="mean λ")
    axes.set_title("ASTRA's λ by partner signal")
    return save_figure(figure, path, dpi=120)


def _lambda_grid(
    table: Mapping[tuple[str, str], tuple[float, int]],
) -> tuple[list[str], list[str], FloatArray]:
    """The stances and fairness values that occur (in display order) and the mean λ grid (NaN: none)."""
    stances = [s for s in STANCES if any(k[0] == s for k in table)]
    fairness = [f for f in FAIRNESS if any(k[1] == f for k in table)]
    grid = np.full((len(stances), len(fairness)), np.nan)
    for i, stance in enumerate(stances):
        for j, fair in enumerate(fairness):
            if (stance, fair) in table:
                grid[i, j] = table[(stance, fair)][0]
    return stances, fairness, grid


def write_report(
    records: Sequence[RunRecord],
    out: Path,
    *,
    command: str,
    tuned: TunedConfig,
    split: str,
    llm_section: Sequence[str] = (),
    runs_csv: str | None = None,
) -> Path:
    """Write the markdown report (tables, heatmap PNG, tested comparisons with the seed) and return
    its path; split names the seeds the records were played on ("tuning" or "evaluation"),
    llm_section (markdown lines, only when an LLM played ASTRA's stages) follows the setup, and
    runs_csv names the runs CSV the header cites (default: the report's stem + ``_runs.csv``, where
    `parley experiment astra` writes it)."""
    figure = plot_lambda_heatmap(lambda_table(records), out.parent / "figures" / "astra_lambda_heatmap.png")
    means = cell_means(records)
    claims, comparisons = seed_claims(records), baseline_comparisons(records)
    sections = [
        *_setup_section(
            records, command, split, llm=bool(llm_section), runs_csv=runs_csv or f"{out.stem}_runs.csv"
        ),
        *llm_section,
        *_tuning_section(tuned),
        *IMPLEMENTATION,
        "",
        *_table1_section(records, claims, comparisons),
        *_changes_section(records, means, claims, comparisons, tuned),
        *_signal_sections(records, figure),
        *_tournament_section(records),
    ]
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text("\n".join(sections), encoding="utf-8")
    return out


def _seeds(seeds: Sequence[int]) -> str:
    """ "100 seeds (5000-5099)" for a run of consecutive seeds, else the list."""
    ordered = sorted(seeds)
    if ordered and ordered == list(range(ordered[0], ordered[-1] + 1)):
        return (
            f"{len(ordered)} seeds ({ordered[0]}-{ordered[-1]})" if len(ordered) > 1 else f"seed {ordered[0]}"
        )
    return f"{len(ordered)} seeds ({', '.join(map(str, ordered))})"


def _setup_section(
    records: Sequence[RunRecord],
    command: str,
    split: str,
    *,
    llm: bool = False,
    runs_csv: str = "astra_runs.csv",
) -> list[str]:
    """The title, how the report was generated (runs_csv: the runs CSV's file name), which seeds, and
    the experiment's setup (llm: a model played ASTRA's stages, so only a replay of its recorded
    replies reproduces the report)."""
    runs = sum(1 for r in records if r.study == "table1" and r.agent == "astra" and r.partner == "base")
    played = sorted({r.seed for r in records if r.study == "table1"})
    role = (
        "**evaluation seeds**: no parameter was chosen on them"
        if split == "evaluation"
        else "**tuning seeds**: the parameters were chosen on these runs, so these are in-sample "
        "tuning figures, not a result"
    )
    return [
        "# ASTRA in parley: the seed's table 1 with rule-based partners",
        "",
        f"Generated by `{command}` ({len(records)} sessions; {runs} runs per table-1 cell). "
        f"Everything below is recomputed from `{runs_csv.replace('`', chr(39))}`; "
        + (
            "the rule-based agents are deterministic by seed, the model's replies are not: rerunning "
            "the command with --replay of its --record folder reproduces it exactly."
            if llm
            else "rerunning the command reproduces it exactly (every agent is deterministic by seed)."
        ),
        "",
        f"Seeds: these figures come from {_seeds(played)}, {role}. The split is fixed in "
        f"`parley.experiments.astra.config`: tuning, {_seeds(TUNING_SEEDS)}; evaluation, "
        f"{_seeds(EVALUATION_SEEDS)}; the two are disjoint (a test fails if they overlap) and "
        "`--tune` refuses any seed outside the tuning split.",
        "",
        "## Setup",
        "",
        "- Game: CaSiNo campsite split, 3 items x 3 units, High/Medium/Low = 5/4/3 points per unit, "
        "BATNA 5 points each, both campers' priority orders drawn per run from the run's seed "
        "(`parley.experiments.astra.casino_game`), rules of the shipped `casino` scenario (20 rounds).",
        "- P1 is the evaluated system and moves first; P2 is a rule-based partner from "
        "`parley.agents.baselines` (`base`: linear concession from 85%; `greedy`: anchors at its best and "
        "rarely concedes; `fair`: proposes near-fair packages). The seed's partners were GPT-4o prompts. "
        "The partners are the test bed and are not tuned.",
        "- P1 systems: `astra`; `astra-ablation`, which keeps ASTRA's asking, acceptance and walk-away "
        "rules (including the interpretations below) but replaces stages 2-3 with a linear "
        "time-based target (36 points down to a tuned end point) and the best package for the "
        "partner (under the IPP) at that target; `time-based`, parley's `linear` concession agent "
        "with a tuned exponent. Each runs with the value tuned for it (column 'P1 setting').",
        "- Scores are CaSiNo points; a no-deal gives both sides their BATNA (5), as in the seed's "
        "'all cases' averages. Means carry Student-t 95% intervals ('no spread' when every run scored "
        "the same), rates Wilson 95% intervals; the Pareto distance is the Euclidean distance of the "
        "agreement's (P1, P2) points to the Pareto frontier. 'Agreements' columns average over the "
        "runs that agreed (n given) and are not compared with each other: every comparison below is "
        "paired on the same seeds.",
        "",
    ]


def _tuning_section(tuned: TunedConfig) -> list[str]:
    """Which parameters were chosen, on which seeds, by which search, with the grid's results."""
    chosen = "; ".join(
        f"{p.system}: {p.parameter} = {p.chosen:g} (grid {', '.join(f'{g.value:g}' for g in p.grid)}; "
        f"registered default {entry.default:g})"
        for p, entry in zip(tuned.parameters, TUNABLES, strict=True)
    )
    return [
        "## Tuning (tuning seeds only)",
        "",
        f"Every parameter chosen by looking at results is chosen here, by a grid search on the tuning "
        f"seeds only ({_seeds(tuned.seeds)}; `{tuned.command}` wrote the tuned-values file this run "
        "read, by default the committed `src/parley/experiments/astra/tuned.json`). For each parameter "
        "its P1 system plays `base`, `greedy` and `fair` once per grid value, its other parameters at "
        f"their registered defaults; the objective is the {OBJECTIVE}. A system's tuned values are "
        "then used together. "
        f"Chosen: {chosen}. The partners, the tournament opponents (the field's reference points, "
        "each defined by its own parameters) and ASTRA's other settings are not tuned here "
        "(`aspiration_slack` and `partner_floor_share`, like the registered `concession_exponent` "
        "searched again here, were chosen on generated games' tuning seeds, see "
        "`docs/results/generalisation.md`).",
        "",
        tuning_markdown(tuned),
        "",
    ]


def _table1_section(
    records: Sequence[RunRecord], claims: Sequence[Claim], comparisons: Sequence[Comparison]
) -> list[str]:
    """Table 1 as measured, the seed's table 1, the labelled claims, the paired comparisons."""
    return [
        "## Table 1 (parley)",
        "",
        table1_markdown(records),
        "",
        "The seed's table 1 for reference:",
        "",
        paper_markdown(),
        "",
        "## The seed's claims, tested",
        "",
        f"Each claim is tested on the paired sessions it is about (n pairs or sessions given) at "
        f"α = {ALPHA}, p-values Holm-adjusted across the {len(claims)} claims. A claimed direction is "
        "**reproduced** when significant that way, **refuted** when significant the other way, "
        "**inconclusive** otherwise; a claimed rate is **refuted** when the Wilson score test rejects "
        "it (Holm-adjusted), **reproduced** only when the seed's rate lies inside our unadjusted 95% "
        "interval and that interval is at most 20 points wide, **inconclusive** otherwise. Effects: "
        "mean paired difference in points, difference of rates, or our rate, with 95% intervals. The "
        "seed's "
        "partners were GPT-4o prompts and ours are rule-based twins, so a refuted claim says the "
        "pattern does not carry over to these partners, not that the seed mis-measured its own.",
        "",
        claims_markdown(claims),
        "",
        "## ASTRA against the other tuned systems (paired, all cases)",
        "",
        "ASTRA's score minus the other system's against the same partner on the same seed; each "
        "system runs with its own tuned value; the pooled rows pair every (partner, seed), the view "
        "the tuning objective takes. Wilcoxon signed-rank (zero differences dropped), Holm-adjusted "
        "across the rows.",
        "",
        comparisons_markdown(comparisons),
        "",
        *DISCUSSION,
        "",
    ]


def _changes_section(
    records: Sequence[RunRecord],
    means: Mapping[tuple[str, str], Mapping[str, float]],
    claims: Sequence[Claim],
    comparisons: Sequence[Comparison],
    tuned: TunedConfig,
) -> list[str]:
    """What changed against the previous report: method, conclusions, and the numbers before and now."""
    return [
        "## What changed and why (against the previous version of this report)",
        "",
        *CHANGES,
        "",
        "What that does to the conclusions:",
        "",
        *conclusion_lines(claims, comparisons, tuned),
        "",
        "Table 1 means for P1, previous (seeds 0-99, untuned) → now (this report's seeds, tuned); "
        "different seeds and settings, so a record of what moved, not a test:",
        "",
        previous_markdown(means),
        "",
        "Tournament, by opponent (ASTRA's normalised utility and agreement %, previous → now):",
        "",
        previous_tournament_markdown(records),
        "",
    ]


def conclusion_lines(
    claims: Sequence[Claim], comparisons: Sequence[Comparison], tuned: TunedConfig
) -> list[str]:
    """The previous report's conclusions against what the tested comparisons say now."""
    gain = claims[0]
    versus = {(c.other, c.partner): c for c in comparisons}
    lines = [
        f"- ASTRA's concession cap is {tuned.chosen('astra', 'reciprocal_share'):g} and its deadline "
        f"exponent {tuned.chosen('astra', 'concession_exponent'):g} (chosen on the tuning seeds; the "
        "previous report's cap of 0.5 was chosen on the runs it reported). The ablation ends at "
        f"{tuned.chosen('astra-ablation', 'ablation_target_points'):g} points and the time-based "
        f"baseline uses e = {tuned.chosen('time-based', 'exponent'):g}, each tuned the same way.",
        "- Previous report: the seed's gain from stages 2-3 against `base` was \"reproduced here, though "
        f'smaller" ({PREVIOUS_TABLE1[("astra", "base")][0]:.2f} vs '
        f"{PREVIOUS_TABLE1[('astra-ablation', 'base')][0]:.2f}, an untested difference on the runs the "
        f"cap was chosen on, against an untuned ablation). Now: **{gain.label}** "
        f"({gain.result.test}, n = {gain.result.n}, Holm p {_p(gain.result.decisive_p)}, mean "
        f"difference {gain.result.effect:+.2f} points).",
    ]
    for other in ("astra-ablation", "time-based"):
        for partner, where in (("base", "against `base`"), (POOLED, "pooled over the three partners")):
            row = versus.get((other, partner))
            if row is not None:
                lines.append(
                    f"- ASTRA vs the tuned `{other}`, {where}: {row.verdict} (mean paired difference "
                    f"{row.result.effect:+.2f} points, n = {row.result.n}, Holm p "
                    f"{_p(row.result.decisive_p)})."
                )
    for parameter in tuned.parameters:
        if len({point.mean for point in parameter.grid}) == 1:
            lines.append(
                f"- {parameter.system}'s `{parameter.parameter}` changed no tuning session's score: every "
                f"grid value scored {parameter.grid[0].mean:.2f}, so the registered default was kept and "
                "the previous report's choice of it could not have mattered on these games."
            )
    labels = [c.label for c in claims]
    lines.append(
        f"- Of the seed's {len(claims)} tested claims: {labels.count('reproduced')} reproduced, "
        f"{labels.count('refuted')} refuted, {labels.count('inconclusive')} inconclusive (the previous "
        "report labelled none)."
    )
    return lines


def _p(value: float) -> str:
    return "< 0.001" if value < 0.001 else f"{value:.3f}"


def _signal_sections(records: Sequence[RunRecord], figure: Path) -> list[str]:
    """λ (the heatmap and its table) and the tactics chosen, by the partner's stance and fairness."""
    return [
        "## λ by the partner's stance and fairness (the seed's figure 3)",
        "",
        f"![mean λ by stance and fairness](figures/{figure.name})",
        "",
        lambda_markdown(lambda_table(records)),
        "",
        "## Tactics by stance and fairness (the seed's figure 4, as counts)",
        "",
        tactic_markdown(tactic_table(records)),
        "",
    ]


def _tournament_section(records: Sequence[RunRecord]) -> list[str]:
    """ASTRA against every baseline on every shipped bilateral scenario, by opponent and by scenario."""
    return [
        "## Tournament: ASTRA against every baseline on every shipped bilateral scenario",
        "",
        "Every registered baseline plus ASTRA itself (self-play). "
        "Utilities are normalised to each party's [worst, best] outcome (a no-deal counts its BATNA); "
        "ASTRA plays the first party in half of the sessions and the second in the other half. "
        "Pareto distance is normalised (agreements only).",
        "",
        "By opponent:",
        "",
        tournament_markdown(records, "partner"),
        "",
        "By scenario:",
        "",
        tournament_markdown(records, "scenario"),
        "",
    ]
