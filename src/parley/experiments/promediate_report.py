"""The ProMediate report: Table 1 with intervals, the seed's claims tested, its ME–MI correlation and
factor analysis, the participants' parameters, the sensitivity table, and the figures.

Everything written is a function of the rows (no wall times), so the same command writes the same
bytes.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import fields
from pathlib import Path
from typing import Any

from parley.experiments.deliberation import deliberation_section
from parley.experiments.gaia.principal import rate_interval
from parley.experiments.promediate import (
    MEDIATOR_NAMES,
    MODES,
    describe_seeds,
    never_answered,
    promediate_case,
    summarise,
)
from parley.experiments.promediate_analysis import (
    ALPHA,
    FACTOR_METRICS,
    SENSITIVITY_MODES,
    Claim,
    check_claim,
    factor_analysis,
    me_mi_correlation,
    plot_sensitivity,
    ranking_holds,
    seed_claims,
    seed_factor_structure,
    sensitivity_table,
)
from parley.mediation.mediators import create_mediator
from parley.metrics.impact import HORIZON
from parley.metrics.stats import Estimate
from parley.simulation.behaviour import behaviour_parameters
from parley.simulation.conversation import ConversationResult, run_conversation
from parley.simulation.modes import MODE_PROFILES, ConflictMode, ModeProfile

LABELS = {
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
    ("MI", f"MI: impact judge, consensus gain vs counterfactual at +{HORIZON} turns (points ×100) ↑", 100.0),
    ("MI_positions", "MI: impact judge, agreeing pairs gain (points ×100) ↑", 100.0),
    ("MI_rubric", "MI (mediator's own view: the Social mediator's detector and table, 1–5)", 1.0),
    ("interventions", "interventions", 1.0),
    ("drops", "topic drop events (τ = 0.1)", 1.0),
)


def table_one(summary: Mapping[tuple[str, str], Mapping[str, Estimate]], modes: Sequence[str]) -> list[str]:
    """Markdown for Table 1: one column per (mode, mediator), mean ± 95% CI half-width."""
    mediators = list(dict.fromkeys(mediator for _, mediator in summary))
    columns = [(m, a) for m in modes for a in mediators if (m, a) in summary]
    lines = [
        "| metric | " + " | ".join(f"{m} · {LABELS.get(a, a)}" for m, a in columns) + " |",
        "|---|" + "---|" * len(columns),
    ]
    for key, label, scale in _ROWS:
        cells = [_scaled(summary[column][key], scale) for column in columns]
        lines.append(f"| {label} | " + " | ".join(cells) + " |")
    return lines


def _scaled(estimate: Estimate, scale: float) -> str:
    return str(Estimate(estimate.mean * scale, estimate.half_width * scale, estimate.count))


def rates_table(rows: Sequence[Mapping[str, Any]]) -> list[str]:
    """Markdown: per (mode, mediator), the share of judged interventions that raised / lowered
    consensus, and of conversations whose drops went unanswered, each with a 95% Wilson interval."""
    unanswered = never_answered(rows)
    lines = [
        "| condition | interventions judged | raised consensus [95% Wilson] | lowered consensus [95% Wilson] "
        "| conversations with a drop never answered / with a drop [95% Wilson] |",
        "|---|---|---|---|---|",
    ]
    for mode in dict.fromkeys(r["mode"] for r in rows):
        for mediator in dict.fromkeys(r["mediator"] for r in rows):
            group = [r for r in rows if r["mode"] == mode and r["mediator"] == mediator]
            if not group or mediator == "none":
                continue
            judged = sum(int(r["MI_judged"]) for r in group)
            helpful = sum(int(r["MI_helpful"]) for r in group)
            harmful = sum(int(r["MI_harmful"]) for r in group)
            never, dropped = unanswered.get((mode, mediator), (0, 0))
            lines.append(
                f"| {mode} · {LABELS.get(mediator, mediator)} | {judged} "
                f"| {helpful} · {rate_interval(helpful, judged)} "
                f"| {harmful} · {rate_interval(harmful, judged)} "
                f"| {never}/{dropped} · {rate_interval(never, dropped)} |"
            )
    return lines


def claims_section(rows: Sequence[Mapping[str, Any]]) -> list[str]:
    """Markdown: every seed claim with its paired Wilcoxon test, n and verdict."""
    lines = [
        "| seed claim | n pairs | mean A | mean B | test | W | p | verdict |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for claim in seed_claims():
        tested = check_claim(rows, claim)
        scale = 100.0 if claim.metric in ("CC", "TLE", "MI") else 1.0
        w = "—" if math.isnan(tested.statistic) else f"{tested.statistic:.1f}"
        p = "—" if math.isnan(tested.p) else f"{tested.p:.3g}"
        lines.append(
            f"| {claim.text} | {tested.n} "
            f"| {_number(tested.mean_a * scale)} | {_number(tested.mean_b * scale)} "
            f"| Wilcoxon signed-rank, two-sided, paired by case and seed | {w} | {p} | **{tested.verdict}** |"
        )
    return lines


def _number(value: float) -> str:
    return "—" if math.isnan(value) else f"{value:.3g}"


def correlation_section(rows: Sequence[Mapping[str, Any]]) -> list[str]:
    """Markdown: the seed's ME–MI Spearman correlation at the intervention level, for both MI scores."""
    lines: list[str] = []
    for key, name in (("MI", "MI (impact judge)"), ("MI_rubric", "MI (mediator's own view, the rubric)")):
        corr = me_mi_correlation(rows, key)
        if corr.n < 3 or math.isnan(corr.rho):
            lines.append(f"- ME vs {name}: not computable (n = {corr.n}).")
            continue
        lines.append(
            f"- ME vs {name}: Spearman ρ = {corr.rho:.3f}, p = {corr.p:.3g}, n = {corr.n} interventions "
            "(`scipy.stats.spearmanr`). Seed: ρ = 0.01, p = 0.8897, no relation — "
            f"**{_correlation_verdict(corr.p, corr.rho)}**."
        )
    return lines


def _correlation_verdict(p: float, rho: float) -> str:
    if p >= ALPHA:
        return f"reproduced (no correlation significant at α = {ALPHA}; absence of evidence only)"
    return "refuted" if abs(rho) >= 0.1 else "refuted (significant, though |ρ| < 0.1)"


def factor_section(rows: Sequence[Mapping[str, Any]]) -> list[str]:
    """Markdown: the two-factor varimax loadings next to the seed's Table 3."""
    factors = factor_analysis(rows)
    if not factors.loadings:
        return [f"Factor analysis not computed: {factors.note}."]
    seed = {
        "CC": (0.997, -0.113),
        "TLE": (0.802, -0.086),
        "ME": (-0.023, 0.465),
        "RL_turns": (-0.155, 0.420),
        "MI": (0.235, 0.249),
    }
    lines = [
        f"Two-factor maximum-likelihood factor analysis with varimax rotation "
        f"(`sklearn.decomposition.FactorAnalysis`) of the standardised per-conversation metrics of "
        f"{factors.n} mediated conversations with every metric finite (RL in turns; MI is the impact "
        "judge). Loadings with |λ| ≥ 0.40 in bold.",
        "",
        "| metric | factor 1 | factor 2 | seed factor 1 | seed factor 2 |",
        "|---|---|---|---|---|",
    ]
    for metric in FACTOR_METRICS:
        first, second = factors.loadings[metric]
        lines.append(
            f"| {metric} | {_loading(first)} | {_loading(second)} "
            f"| {_loading(seed[metric][0])} | {_loading(seed[metric][1])} |"
        )
    verdict = seed_factor_structure(factors)
    lines += [
        "",
        f"The seed's structure (CC and TLE on one factor, ME and RL on the other, MI on neither) is "
        f"**{verdict}** here (descriptive: loadings, no test).",
    ]
    return lines


def _loading(value: float) -> str:
    return f"**{value:.3f}**" if abs(value) >= 0.4 else f"{value:.3f}"


PREVIOUS: Mapping[str, Mapping[str, tuple[float, float, float]]] = {
    "CC": {
        "accommodating": (24.4, 23.9, 26.9),
        "avoiding": (15.7, 7.05, 4.44),
        "general": (11.3, 4.5, 1.2),
        "competing": (-3.2, -3.85, -5.66),
    },
    "MI_rubric": {
        "accommodating": (4.86, 2.84, math.nan),
        "avoiding": (4.87, 3.13, math.nan),
        "general": (4.29, 2.82, math.nan),
        "competing": (3.08, 2.26, math.nan),
    },
    "interventions": {
        "accommodating": (4.67, 5.1, 0.0),
        "avoiding": (7.37, 8.97, 0.0),
        "general": (7.9, 9.7, 0.0),
        "competing": (10.8, 12.3, 0.0),
    },
}
"""The previous report's means (Social, Generic, NoAgent; seeds 0–4, rubric MI, participants that
reacted to the strategy label and conceded faster only when the Social mediator named them), quoted
to say which conclusions changed."""


def changes_section(rows: Sequence[Mapping[str, Any]]) -> list[str]:
    """Markdown: the previous report's conclusions next to this one's, per metric and mode."""
    summary = summarise(rows)
    lines = [
        "The previous version of this report played seeds 0–4 (now the tuning split), scored MI with "
        "the rubric only, and its participants took frustration relief from the intervention's "
        "strategy label and conceded twice as fast only when the Social mediator named them. Its "
        "means (Social / Generic / NoAgent) against this report's:",
        "",
        "| metric · mode | previous S / G / N | now S / G / N | previous order | now order | changed? |",
        "|---|---|---|---|---|---|",
    ]
    for metric, modes in PREVIOUS.items():
        scale = 100.0 if metric == "CC" else 1.0
        for mode, before in modes.items():
            if (mode, "social") not in summary:
                continue
            now = tuple(
                summary[(mode, m)][metric].mean * scale if (mode, m) in summary else math.nan
                for m in ("social", "generic", "none")
            )
            old_order, new_order = _order(before), _order(now)
            lines.append(
                f"| {metric} · {mode} | {_triple(before)} | {_triple(now)} | {old_order} | {new_order} "
                f"| {'**yes**' if old_order != new_order else 'no'} |"
            )
    return [*lines, "", *changed_conclusions(rows)]


def changed_conclusions(rows: Sequence[Mapping[str, Any]]) -> list[str]:
    """Plain statements: which orders moved, and what the independent MI judge says against the rubric."""
    summary = summarise(rows)
    moved: list[str] = []
    for metric, modes in PREVIOUS.items():
        scale = 100.0 if metric == "CC" else 1.0
        for mode, before in modes.items():
            if (mode, "social") not in summary:
                continue
            now = [
                summary[(mode, m)][metric].mean * scale if (mode, m) in summary else math.nan
                for m in ("social", "generic", "none")
            ]
            if _order(before) != _order(now):
                moved.append(f"{metric} in {mode} ({_order(before)} → {_order(now)})")
    lines = [
        "- Orders that moved: " + ("; ".join(moved) if moved else "none") + ". Seeds and participants "
        "changed together, so a moved order is not attributed to either alone.",
    ]
    verdicts: list[str] = []
    for mode in dict.fromkeys(r["mode"] for r in rows):
        claim = Claim(f"{mode}: Social MI vs Generic MI", "MI", (mode, "social"), (mode, "generic"), 1)
        tested = check_claim(rows, claim)
        if tested.n == 0:
            continue
        ahead = "Social" if tested.mean_a > tested.mean_b else "Generic"
        significance = f"p = {tested.p:.3g}" if not math.isnan(tested.p) else "no difference"
        verdicts.append(f"{mode}: {ahead} ahead ({significance}, n = {tested.n})")
    if verdicts:
        lines.append(
            "- MI: the rubric (the Social mediator's own view) puts Social far ahead in every mode, by "
            "construction, as before. The independent impact judge, paired Wilcoxon test: "
            + "; ".join(verdicts)
            + ". Where it agrees with the rubric on the order, the size of the lead is its own measurement."
        )
    return lines


def _triple(values: Sequence[float]) -> str:
    return " / ".join("—" if math.isnan(v) else f"{v:.3g}" for v in values)


def _order(values: Sequence[float]) -> str:
    named = [(v, n) for v, n in zip(values, ("S", "G", "N"), strict=True) if not math.isnan(v)]
    return " > ".join(n for _, n in sorted(named, key=lambda item: -item[0]))


def parameters_section() -> list[str]:
    """Markdown: every behavioural parameter of a simulated participant, with meaning, default and source."""
    lines = [
        "| parameter | meaning | default | where it comes from |",
        "|---|---|---|---|",
    ]
    for name, default, meaning, source in behaviour_parameters():
        lines.append(f"| `{name}` | {meaning} | {default:g} | {source} |")
    docs = {
        "concession_rate": "growth of willingness to accept lower-ranked options per exposure",
        "social_weight": "pull of other parties' positions when choosing its own",
        "base_tone": "tone with no frustration (-1 hostile … 1 warm)",
        "irritability": "frustration added when its position is attacked",
        "contention_aversion": "motivation lost per unit of disagreement on a topic",
        "assertiveness": "motivation added to stating and defending positions",
        "cooperativeness": "motivation added to supporting, conceding and proposing",
    }
    for field in fields(ModeProfile):
        values = ", ".join(f"{m.value} {getattr(MODE_PROFILES[m], field.name):g}" for m in MODES)
        lines.append(
            f"| `{field.name}` (conflict mode) | {docs.get(field.name, '')} | {values} "
            "| hand-set per mode to "
            "express the seed's one-line mode descriptions; not fitted |"
        )
    for name, meaning in (
        ("im_threshold", "motivation a participant needs to speak"),
        ("interrupt_threshold", "motivation needed to break a silence"),
        ("system1_prob", "chance that a quick reactive thought gets `system1_boost`"),
    ):
        lines.append(
            f"| `{name}` (speaking) | {meaning} | per party, from the case file | the ProMediate case files' "
            "`config` (3.0 / 2.5 / 0–0.4 for most parties) |"
        )
    return lines


def sensitivity_section(
    grouped: Mapping[str, Sequence[Mapping[str, Any]]], seeds: Sequence[int], figure: str
) -> list[str]:
    """Markdown: how the headline ranking moves when each parameter is set low or high."""
    holds = ranking_holds(grouped)
    cases = len({r["case"] for r in grouped["defaults"]})
    summary = "; ".join(f"{m} {kept}/{total}" for m, (kept, total) in holds.items())
    return [
        f"Each parameter set low and high, one at a time, on {cases} cases × "
        f"{', '.join(m.value for m in SENSITIVITY_MODES)} mode × 3 mediators × {describe_seeds(seeds)} "
        f"(n = {cases * len(seeds)} conversations per mediator and row: small, so read the rankings, not "
        "the decimals). Cells: Social / Generic / NoAgent means ×100 and the ranking (S, G, N); ✗ marks "
        "a ranking that differs from the defaults' row. Behaviour fields are set to × 0.5 and × 1.5 of "
        "their default (multipliers to 1, i.e. the effect off, and × 1.5); mode-profile fields scaled "
        "× 0.5 and × 1.5 in every mode; speaking thresholds ± 0.5 and system1_prob ± 0.3.",
        "",
        f"Rankings equal to the defaults': {summary} variations.",
        "",
        _inert_line(grouped),
        "",
        *sensitivity_table(grouped),
        "",
        "![Social minus Generic under each variation; black line: defaults; red: the sign flips]"
        f"(figures/{figure})",
        "",
    ]


def _inert_line(grouped: Mapping[str, Sequence[Mapping[str, Any]]]) -> str:
    """Which variations leave every conversation's consensus series exactly as with the defaults."""
    base = [r["consensus"] for r in grouped["defaults"]]
    inert = [
        label
        for label, rows in grouped.items()
        if label != "defaults" and [r["consensus"] for r in rows] == base
    ]
    if not inert:
        return "Every variation changed at least one conversation."
    return (
        f"{len(inert)} variations left every conversation of this grid exactly as with the defaults, so "
        "the parameter does not act here (for example a mode-profile field that is 0 in competing mode, "
        "or speaking thresholds that the most motivated thought always clears): "
        + ", ".join(f"`{label}`" for label in inert)
        + "."
    )


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
        axis.set_title(f"{LABELS[name]} — {case}, {mode.value}, seed {seed}")
        axis.set_xlabel("turn")
    axes[0].set_ylabel("consensus (mean pairwise agreement)")
    axes[-1].legend(fontsize=7, loc="lower right")
    return save_figure(figure, path)


def plot_me_mi(rows: Sequence[Mapping[str, Any]], path: Path) -> Path:
    """Figure-4-style scatter of ME against the impact judge's MI per intervention."""
    from parley.experiments.plots import plt, save_figure  # (matplotlib only when plotting)

    figure, axis = plt.subplots(figsize=(6, 4.5))
    drawn = False
    for name, marker in (("generic", "o"), ("social", "^"), ("llm-generic", "s"), ("llm-social", "v")):
        points = [
            (float(i["MI"]) * 100, float(i["ME"]) * 100)
            for r in rows
            if r["mediator"] == name
            for i in r.get("per_intervention", ())
            if i.get("MI") is not None and i.get("ME") is not None
        ]
        if points:
            axis.scatter(*zip(*points, strict=True), marker=marker, alpha=0.4, s=10, label=LABELS[name])
            drawn = True
    axis.set_xlabel(f"MI (impact: consensus gain vs counterfactual at +{HORIZON} turns, ×100)")
    axis.set_ylabel("ME (%: post − pre slope)")
    axis.axhline(0, color="0.7", linewidth=1)
    axis.axvline(0, color="0.7", linewidth=1)
    if drawn:
        axis.legend()
    return save_figure(figure, path)


def write_report(
    rows: Sequence[dict[str, Any]],
    out: Path,
    *,
    seeds: Sequence[int],
    deliberation: Sequence[dict[str, Any]] = (),
    command: str = "parley experiment promediate",
    llm_section: Sequence[str] = (),
    sensitivity: Mapping[str, Sequence[dict[str, Any]]] | None = None,
    sensitivity_seeds: Sequence[int] = (),
) -> Path:
    """Write the markdown report and its figures; the same rows give the same bytes.

    Args:
        seeds: The seeds the rows were played with (the report says which split they are).
        llm_section: Markdown on the LLM roles and their usage (none: the deterministic testbed only).
        sensitivity: Rows of the sensitivity grid by variation label ("defaults" included), if run.
        sensitivity_seeds: The seeds of the sensitivity grid.
    """
    figures = out.parent / "figures"
    summary = summarise(rows)
    modes = [m.value for m in MODES]
    trajectory_figure = plot_trajectories(
        "flagship", ConflictMode.COMPETING, 100, figures / "promediate_consensus.png"
    )
    scatter_figure = plot_me_mi(rows, figures / "promediate_me_mi.png")
    lines = [
        "# ProMediate with parley's " + ("testbed and LLM roles" if llm_section else "deterministic testbed"),
        "",
        f"Measured with `{command}`: {len(rows)} conversations ({len({r['case'] for r in rows})} cases × "
        f"{len({r['mode'] for r in rows})} conflict modes × {len({r['mediator'] for r in rows})} mediators × "
        f"{describe_seeds(seeds)}).",
        "",
        *_setup_lines(bool(llm_section)),
        *llm_section,
        "## Table 1 (mean ± 95% Student-t half-width over cases × seeds)",
        "",
        *table_one(summary, modes),
        "",
        "RL is averaged over answered drop events; a conversation whose drops the mediator never "
        "answered has RL = +∞ and is left out of the mean (counted in the rates below). RL seconds are "
        "on the simulated conversation clock (150 words a minute), not compute time.",
        "",
        "## Rates (95% Wilson intervals)",
        "",
        *rates_table(rows),
        "",
        "## The seed's claims, tested",
        "",
        "Each comparison pairs the two conditions on the same case and seed. Verdict: **reproduced** "
        f"when p < {ALPHA} in the seed's direction, **refuted** when p < {ALPHA} against it, "
        "**inconclusive** otherwise. The seed's RL is in seconds of LLM time and its MI an LLM rubric; "
        "here RL is in turns and MI the impact judge, so those rows test the direction only.",
        "",
        *claims_section(rows),
        "",
        "## ME–MI correlation (seed §4.3.3)",
        "",
        *correlation_section(rows),
        "",
        "## Factor analysis of the metrics (seed Table 3)",
        "",
        *factor_section(rows),
        "",
        "## What changed from the previous report",
        "",
        *changes_section(rows),
        "",
        "## The simulated participants' behavioural parameters",
        "",
        "Every number that shapes a simulated participant, its meaning, default and origin. None was "
        "fitted to data; all are modelling choices, which is why the sensitivity table below varies "
        "each one. Participants react to an intervention's content only (named or not, a concrete "
        "option or package, an acknowledgement of concerns, a question), whichever mediator said it: "
        "the naming effect (`naming_concession`, `naming_relief`) applies to any mediator that names them.",
        "",
        *parameters_section(),
        "",
    ]
    if sensitivity:
        figure = plot_sensitivity(sensitivity, figures / "promediate_sensitivity.png")
        lines += [
            "## Sensitivity of the headline comparison",
            "",
            *sensitivity_section(sensitivity, sensitivity_seeds, figure.name),
        ]
    lines += [
        "## Figures",
        "",
        "![Consensus per topic, flagship case, competing mode, seed 100; grey lines mark interventions]"
        f"(figures/{trajectory_figure.name})",
        "",
        f"![ME against the impact judge's MI per intervention](figures/{scatter_figure.name})",
        "",
    ]
    if deliberation:
        lines += deliberation_section(deliberation)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text("\n".join(lines), encoding="utf-8")
    return out


def _setup_lines(llm: bool) -> list[str]:
    return [
        ("Unless the LLM section below says otherwise, p" if llm else "P")
        + "articipants, mediators, attitude extraction and agreement scoring are the deterministic twins "
        "described in [the mediation guide](../mediation.md); the seed used LLMs for all four. Numbers "
        "below measure *this simulator*, not human or LLM behaviour, and are not comparable in "
        "magnitude with the seed's Table 1.",
        "",
        "Tuning and evaluation: the testbed, its participants and the mediators were developed while "
        "looking at seeds 0–4 (the tuning split, `--split tuning`). This report's figures are on the "
        "seeds stated above; seeds 100–109 (`--split evaluation`) were never used for development or "
        "tuning. No parameter was chosen on them: the impact judge's horizon "
        f"({HORIZON} turns, the seed's ME window) and its single paired continuation were fixed before "
        "any evaluation run.",
        "",
        "How this differs from the seed's setup:",
        "",
        "- Participants: rule-driven inner-thought agents with hand-set conflict-mode settings "
        "(not Claude-Sonnet-4); utterances are structured acts rendered from templates. They react to "
        "what an intervention says, never to which mediator said it.",
        "- Mediators: the generic and social mediators follow the seed's rules and framework "
        "deterministically (not GPT-4.1 prompts).",
        "- Consensus: attitudes are read from the structured acts and agreement is scored by rules "
        "(not GPT-4.1 as judge); group consensus is therefore smooth, so RL drop events (τ = 0.1 "
        "within 10 turns) are detected on each topic's consensus.",
        f"- MI: an impact judge (`parley.metrics.impact`), not the seed's LLM rubric. For each "
        f"intervention the conversation state just before it is copied and played on {HORIZON} turns "
        "twice, with and without the intervention (the mediator silent afterwards in both, the "
        "participants reseeded identically in both); MI is the consensus on the topics it covered, "
        "factual minus counterfactual, and MI positions the same for the share of participant pairs "
        "holding the same position. It uses nothing the mediators decide with. The old rubric, which "
        "scores with the Social mediator's own breakdown detector and strategy table and so favours it "
        'by construction, is kept only as the row "MI (mediator\'s own view)". LLM-backed '
        "conversations, which cannot be copied, are judged against the pre-intervention trend instead.",
        "- Preferences: ranked choices read from the briefs into a sidecar file "
        "(see `parley_preferences.yaml`).",
        "",
    ]
