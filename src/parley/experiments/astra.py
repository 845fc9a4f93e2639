"""The ASTRA experiment: the seed's table 1 on randomised CaSiNo games, the λ heatmap, a tournament.

ASTRA and its ablation (no stages 2-3) each play the `base`, `greedy` and `fair` partners on
CaSiNo games whose priority orders are drawn per run; ASTRA also plays every registered baseline
on every shipped bilateral scenario. Runs are independent, so they run in parallel processes.
"""

from __future__ import annotations

import csv
import logging
import math
from collections import defaultdict
from collections.abc import Callable, Iterable, Mapping, Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import asdict, dataclass, field
from functools import cache
from pathlib import Path

import numpy as np

from parley.agents.registry import available
from parley.domain.issues import Issue
from parley.domain.space import OutcomeSpace
from parley.domain.utility import LinearAdditiveUtility
from parley.experiments.runner import run_negotiation
from parley.metrics.bargaining import outcomes
from parley.metrics.stats import mean_ci
from parley.protocol.rules import Rules
from parley.protocol.session import SessionResult
from parley.scenarios.model import Party, Scenario

logger = logging.getLogger(__name__)

CASINO_ITEMS: tuple[str, ...] = ("food", "water", "firewood")
CASINO_UNITS = 3
CASINO_POINTS = (5.0, 4.0, 3.0)
"""Points per unit of a High, Medium and Low priority item."""
CASINO_BATNA = 5.0
TABLE1_AGENTS = ("astra", "astra-ablation")
TABLE1_PARTNERS = ("base", "greedy", "fair")
TOURNAMENT_SEEDS = 10
"""Sessions per (scenario, baseline) pair in the tournament: half with ASTRA moving first."""

ProgressCallback = Callable[[int, int], None]
"""Called with (finished, total) after each run."""


@dataclass(frozen=True, slots=True)
class RunSpec:
    """One session of the experiment.

    Attributes:
        study: "table1" or "tournament".
        agent: The evaluated agent ("astra" or "astra-ablation").
        partner: The partner's agent name.
        scenario: Scenario name ("casino-random" for the randomised CaSiNo games).
        seed: The run's seed (also draws the CaSiNo priorities).
        agent_first: Whether the evaluated agent plays the first party (moves first).
    """

    study: str
    agent: str
    partner: str
    scenario: str
    seed: int
    agent_first: bool = True


@dataclass(frozen=True, slots=True)
class RunRecord:
    """What one session produced (one CSV row), scores in the scenario's own units.

    Attributes:
        lambdas: (stance, fairness, λ) of every ASTRA proposal (for the heatmap).
        tactics: (stance, fairness, tactic) of every ASTRA proposal.
    """

    study: str
    agent: str
    partner: str
    scenario: str
    seed: int
    agent_first: bool
    agent_utility: float
    partner_utility: float
    agent_normalized: float
    partner_normalized: float
    agreement: bool
    agent_walked: bool
    partner_walked: bool
    ending: str
    rounds: int
    pareto_distance: float
    pareto_distance_normalized: float
    agent_priorities: str
    partner_priorities: str
    lambdas: tuple[tuple[str, str, float], ...] = field(default=())
    tactics: tuple[tuple[str, str, str], ...] = field(default=())


def casino_game(seed: int) -> Scenario:
    """A CaSiNo campsite game with both campers' priority orders drawn from seed.

    3 items x 3 units; High/Medium/Low = 5/4/3 points per unit; BATNA 5 points each. The issues
    count the units camper A takes (B gets the rest), as in the shipped `casino` scenario, whose
    rules are reused when it is available.
    """
    rng = np.random.default_rng(seed)
    first, second = rng.permutation(len(CASINO_ITEMS)), rng.permutation(len(CASINO_ITEMS))
    space = OutcomeSpace.of(
        [Issue.integer_range(item, 0, CASINO_UNITS, unit="packages") for item in CASINO_ITEMS]
    )
    a_order = [CASINO_ITEMS[i] for i in first]
    b_order = [CASINO_ITEMS[i] for i in second]
    a_values = {
        item: [CASINO_POINTS[a_order.index(item)] * k for k in range(CASINO_UNITS + 1)]
        for item in CASINO_ITEMS
    }
    b_values = {
        item: [CASINO_POINTS[b_order.index(item)] * (CASINO_UNITS - k) for k in range(CASINO_UNITS + 1)]
        for item in CASINO_ITEMS
    }
    weights = dict.fromkeys(CASINO_ITEMS, 1.0)
    parties = (
        Party(
            "A",
            "camper",
            LinearAdditiveUtility(space, weights, a_values, CASINO_BATNA),
            signals={"priorities": a_order},
        ),
        Party(
            "B",
            "camper",
            LinearAdditiveUtility(space, weights, b_values, CASINO_BATNA),
            signals={"priorities": b_order},
        ),
    )
    return Scenario(
        "casino-random",
        "Campsite supplies (random priorities)",
        "Split 3 food, 3 water and 3 firewood packages between two campers.",
        space,
        parties,
        _casino_rules(),
        metadata={"seed": seed, "priorities": {"A": a_order, "B": b_order}},
    )


@cache
def _casino_rules() -> Rules:
    try:
        from parley.scenarios import load_scenario

        return load_scenario("casino").rules
    except Exception as error:  # the template is optional: fall back to the CaSiNo defaults
        logger.info("no casino template (%s); using 20 rounds", error)
        return Rules(max_rounds=20, stagnation_rounds=6)


@cache
def _shipped(name: str) -> Scenario:
    from parley.scenarios import load_scenario

    return load_scenario(name)


def bilateral_scenarios() -> list[str]:
    """Names of the shipped two-party scenarios."""
    from parley.scenarios import list_scenarios

    return [info.name for info in list_scenarios() if len(info.parties) == 2]


def baseline_names() -> list[str]:
    """Every registered rule-based baseline (from `parley.agents.baselines`)."""
    import importlib

    baselines = importlib.import_module("parley.agents.baselines")
    return [name for name, entry in available().items() if _defined_in(entry.factory, baselines.__name__)]


def _defined_in(factory: Callable[..., object], package: str) -> bool:
    """Whether factory (or the function a functools.partial wraps) comes from package."""
    target = getattr(factory, "func", factory)
    return str(getattr(target, "__module__", "")).startswith(package)


def plan_runs(
    runs: int, *, tournament_seeds: int = TOURNAMENT_SEEDS, tournament: bool = True
) -> list[RunSpec]:
    """Every session of the experiment: table 1 cells x runs, then the tournament."""
    specs = [
        RunSpec("table1", agent, partner, "casino-random", seed)
        for agent in TABLE1_AGENTS
        for partner in TABLE1_PARTNERS
        for seed in range(runs)
    ]
    if tournament:
        specs += [
            RunSpec("tournament", "astra", partner, scenario, seed, agent_first=seed % 2 == 0)
            for scenario in bilateral_scenarios()
            for partner in [*baseline_names(), "astra"]
            for seed in range(tournament_seeds)
        ]
    return specs


def run_one(spec: RunSpec) -> RunRecord:
    """Play one session and measure it."""
    scenario = casino_game(spec.seed) if spec.scenario == "casino-random" else _shipped(spec.scenario)
    names = scenario.party_names
    agent_party, partner_party = (names[0], names[1]) if spec.agent_first else (names[1], names[0])
    agents = {agent_party: spec.agent, partner_party: spec.partner}
    result = run_negotiation(scenario, [agents[name] for name in names], seed=spec.seed)
    by_party = {o.party: o for o in outcomes(scenario, result, agents)}
    mine, theirs = by_party[agent_party], by_party[partner_party]
    walker = result.no_deal.walker if result.no_deal is not None else None
    priorities = scenario.metadata.get("priorities", {})
    return RunRecord(
        spec.study,
        spec.agent,
        spec.partner,
        spec.scenario,
        spec.seed,
        spec.agent_first,
        mine.utility,
        theirs.utility,
        mine.normalized_utility,
        theirs.normalized_utility,
        result.agreement is not None,
        walker == agent_party,
        walker == partner_party,
        "agreement" if result.no_deal is None else result.no_deal.reason,
        result.rounds,
        _raw_distance(scenario, result, (agent_party, partner_party)),
        mine.pareto_distance,
        ">".join(priorities.get(agent_party, [])),
        ">".join(priorities.get(partner_party, [])),
        *_astra_choices(result, agent_party),
    )


def _raw_distance(scenario: Scenario, result: SessionResult, order: Sequence[str]) -> float:
    if result.agreement is None or not scenario.space.fits_in_memory(2_000_000):
        return math.nan
    point = [result.agreement.utilities[name] for name in scenario.party_names]
    return scenario.analysis.distance_to_frontier(point)


def _astra_choices(
    result: SessionResult, party: str
) -> tuple[tuple[tuple[str, str, float], ...], tuple[tuple[str, str, str], ...]]:
    lambdas: list[tuple[str, str, float]] = []
    tactics: list[tuple[str, str, str]] = []
    for event in result.trajectory.of_kind("trace"):
        data = event.data
        if event.party != party or data.get("mode") != "propose" or not data.get("stage2"):
            continue
        key = (str(data["stance"]), str(data["fairness"]))
        lambdas.append((*key, float(data["stage2"]["lambda"])))
        if data.get("tactic"):
            tactics.append((*key, str(data["tactic"]["name"])))
    return tuple(lambdas), tuple(tactics)


def run_experiment(
    specs: Sequence[RunSpec], *, jobs: int = 1, on_progress: ProgressCallback | None = None
) -> list[RunRecord]:
    """Play every spec (in jobs processes) and return the records in spec order."""
    records: list[RunRecord] = []
    total = len(specs)
    if jobs <= 1:
        for spec in specs:
            records.append(run_one(spec))
            if on_progress is not None:
                on_progress(len(records), total)
        return records
    with ProcessPoolExecutor(max_workers=jobs) as pool:
        for record in pool.map(run_one, specs, chunksize=8):
            records.append(record)
            if on_progress is not None:
                on_progress(len(records), total)
    return records


# -- reporting -------------------------------------------------------------------------------------


def write_csv(records: Iterable[RunRecord], path: Path) -> Path:
    """One row per session (λ and tactic lists left out)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    rows = [{k: v for k, v in asdict(r).items() if k not in ("lambdas", "tactics")} for r in records]
    with path.open("w", newline="", encoding="utf-8") as handle:
        writer = csv.DictWriter(handle, fieldnames=list(rows[0]) if rows else ["study"])
        writer.writeheader()
        writer.writerows(rows)
    return path


def _fmt(values: Iterable[float], digits: int = 2) -> str:
    estimate = mean_ci(values)
    if estimate.count == 0:
        return "—"
    if math.isnan(estimate.half_width):
        return f"{estimate.mean:.{digits}f}"
    return f"{estimate.mean:.{digits}f} ± {estimate.half_width:.{digits}f}"


def table1_markdown(records: Sequence[RunRecord]) -> str:
    """The seed's table 1 layout: scores (all / agreements), walk-away %, agreement %, Pareto distance."""
    lines = [
        "| P1 (evaluated) | P2 (partner) | runs | avg score, all (P1 vs P2) "
        "| avg score, agreements (P1 vs P2) | walk-away % (P1 / P2 walked) | agreement % "
        "| Pareto distance (points) |",
        "|---|---|---|---|---|---|---|---|",
    ]
    cells: dict[tuple[str, str], list[RunRecord]] = defaultdict(list)
    for record in records:
        if record.study == "table1":
            cells[(record.agent, record.partner)].append(record)
    for (agent, partner), group in cells.items():
        deals = [r for r in group if r.agreement]
        walks = [r for r in group if r.agent_walked or r.partner_walked]
        lines.append(
            f"| {agent} | {partner} | {len(group)} "
            f"| {_fmt(r.agent_utility for r in group)} vs {_fmt(r.partner_utility for r in group)} "
            f"| {_fmt(r.agent_utility for r in deals)} vs {_fmt(r.partner_utility for r in deals)} "
            f"| {100 * len(walks) / len(group):.0f} ({sum(r.agent_walked for r in group)} / "
            f"{sum(r.partner_walked for r in group)}) "
            f"| {100 * len(deals) / len(group):.0f} "
            f"| {_fmt(r.pareto_distance for r in deals)} |"
        )
    return "\n".join(lines)


def tournament_markdown(records: Sequence[RunRecord], by: str = "partner") -> str:
    """ASTRA against each baseline (by="partner") or on each scenario (by="scenario"), with 95% CIs."""
    groups: dict[str, list[RunRecord]] = defaultdict(list)
    for record in records:
        if record.study == "tournament":
            groups[getattr(record, by)].append(record)
    lines = [
        f"| {by} | sessions | ASTRA utility (0-1) | opponent utility (0-1) | agreement % "
        "| Pareto distance (normalised) | ASTRA walked % |",
        "|---|---|---|---|---|---|---|",
    ]
    for name, group in sorted(groups.items()):
        deals = [r for r in group if r.agreement]
        rate = mean_ci(100.0 * r.agreement for r in group)
        lines.append(
            f"| {name} | {len(group)} | {_fmt(r.agent_normalized for r in group)} "
            f"| {_fmt(r.partner_normalized for r in group)} | {rate.mean:.0f} ± {rate.half_width:.0f} "
            f"| {_fmt((r.pareto_distance_normalized for r in deals), 3)} "
            f"| {100 * sum(r.agent_walked for r in group) / len(group):.0f} |"
        )
    return "\n".join(lines)


STANCES = ("greedy", "neutral", "generous", "unknown")
FAIRNESS = ("unfair", "fair", "unknown")


def lambda_table(records: Iterable[RunRecord]) -> dict[tuple[str, str], tuple[float, int]]:
    """Mean λ and count per (stance, fairness) over ASTRA's table-1 proposals."""
    values: dict[tuple[str, str], list[float]] = defaultdict(list)
    for record in records:
        if record.study == "table1" and record.agent == "astra":
            for stance, fairness, lambda_ in record.lambdas:
                values[(stance, fairness)].append(lambda_)
    return {key: (float(np.mean(v)), len(v)) for key, v in values.items()}


def tactic_table(records: Iterable[RunRecord]) -> dict[tuple[str, str], dict[str, int]]:
    """How often ASTRA chose each tactic per (stance, fairness) in table 1."""
    counts: dict[tuple[str, str], dict[str, int]] = defaultdict(lambda: defaultdict(int))
    for record in records:
        if record.study == "table1" and record.agent == "astra":
            for stance, fairness, tactic in record.tactics:
                counts[(stance, fairness)][tactic] += 1
    return {key: dict(value) for key, value in counts.items()}


def plot_lambda_heatmap(table: Mapping[tuple[str, str], tuple[float, int]], path: Path) -> Path:
    """The seed's figure 3: mean λ by the partner's stance (rows) and fairness (columns), as a PNG."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    stances = [s for s in STANCES if any(k[0] == s for k in table)]
    fairness = [f for f in FAIRNESS if any(k[1] == f for k in table)]
    grid = np.full((len(stances), len(fairness)), np.nan)
    for i, stance in enumerate(stances):
        for j, fair in enumerate(fairness):
            if (stance, fair) in table:
                grid[i, j] = table[(stance, fair)][0]
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
    figure.tight_layout()
    path.parent.mkdir(parents=True, exist_ok=True)
    figure.savefig(path, dpi=120)
    plt.close(figure)
    return path


PAPER_TABLE1: dict[tuple[str, str], tuple[str, str, int]] = {
    ("astra", "base"): ("21.22 vs 12.98", "24.31 vs 14.50", 16),
    ("astra-ablation", "base"): ("20.12 vs 16.36", "20.75 vs 16.83", 4),
    ("astra", "greedy"): ("7.9 vs 6.68", "24.33 vs 16.20", 85),
    ("astra", "fair"): ("18.16 vs 10.8", "25.24 vs 13.92", 35),
}
"""The seed's table 1 (GPT-4o partners): score all, score in agreements, walk-away %."""


def paper_markdown() -> str:
    """The seed's table 1 numbers, for side-by-side reading."""
    lines = [
        "| P1 | P2 | avg score, all | avg score, agreements | walk-away % |",
        "|---|---|---|---|---|",
    ]
    for (agent, partner), (every, deals, walks) in PAPER_TABLE1.items():
        lines.append(f"| {agent} | {partner} | {every} | {deals} | {walks} |")
    return "\n".join(lines)


def lambda_markdown(table: Mapping[tuple[str, str], tuple[float, int]]) -> str:
    """Mean λ per (stance, fairness) as a table."""
    lines = ["| stance \\ fairness | " + " | ".join(FAIRNESS) + " |", "|---" * (len(FAIRNESS) + 1) + "|"]
    for stance in STANCES:
        cells = [
            f"{table[(stance, f)][0]:.2f} (n={table[(stance, f)][1]})" if (stance, f) in table else "—"
            for f in FAIRNESS
        ]
        lines.append(f"| {stance} | " + " | ".join(cells) + " |")
    return "\n".join(lines)


def tactic_markdown(table: Mapping[tuple[str, str], Mapping[str, int]]) -> str:
    """Tactic counts per (stance, fairness) as a table (the seed's figure 4 as numbers)."""
    lines = ["| stance | fairness | tactics chosen (count) |", "|---|---|---|"]
    for stance in STANCES:
        for fairness in FAIRNESS:
            counts = table.get((stance, fairness))
            if counts:
                text = ", ".join(
                    f"{name} {count}" for name, count in sorted(counts.items(), key=lambda x: -x[1])
                )
                lines.append(f"| {stance} | {fairness} | {text} |")
    return "\n".join(lines)


def cell_means(records: Sequence[RunRecord]) -> dict[tuple[str, str], dict[str, float]]:
    """Per table-1 cell: mean score all/agreement for P1, walk %, agreement %."""
    cells: dict[tuple[str, str], list[RunRecord]] = defaultdict(list)
    for record in records:
        if record.study == "table1":
            cells[(record.agent, record.partner)].append(record)
    summary: dict[tuple[str, str], dict[str, float]] = {}
    for key, group in cells.items():
        deals = [r.agent_utility for r in group if r.agreement]
        summary[key] = {
            "all": float(np.mean([r.agent_utility for r in group])),
            "deal": float(np.mean(deals)) if deals else math.nan,
            "deal_hw": mean_ci(deals).half_width if len(deals) > 1 else math.nan,
            "walk": 100.0 * sum(r.agent_walked or r.partner_walked for r in group) / len(group),
            "agree": 100.0 * sum(r.agreement for r in group) / len(group),
        }
    return summary


def write_report(records: Sequence[RunRecord], out: Path, *, command: str) -> Path:
    """Write the markdown report (tables, heatmap PNG, comparison with the seed) and return its path."""
    figure = plot_lambda_heatmap(lambda_table(records), out.parent / "figures" / "astra_lambda_heatmap.png")
    means = cell_means(records)
    runs = sum(1 for r in records if r.study == "table1" and r.agent == "astra" and r.partner == "base")
    sections = [
        "# ASTRA in parley: the seed's table 1 with rule-based partners",
        "",
        f"Generated by `{command}` ({len(records)} sessions; {runs} runs per table-1 cell). "
        "Everything below is recomputed from `astra_runs.csv`; rerunning the command reproduces it "
        "exactly (every agent is deterministic by seed).",
        "",
        "## Setup",
        "",
        "- Game: CaSiNo campsite split, 3 items x 3 units, High/Medium/Low = 5/4/3 points per unit, "
        "BATNA 5 points each, both campers' priority orders drawn per run from the run's seed "
        "(`parley.experiments.astra.casino_game`), rules of the shipped `casino` scenario (20 rounds).",
        "- P1 is the evaluated agent and moves first; P2 is a rule-based partner from "
        "`parley.agents.baselines` (`base`: linear concession from 85%; `greedy`: anchors at its best and "
        "rarely concedes; `fair`: proposes near-fair packages). The seed's partners were GPT-4o prompts.",
        "- `astra-ablation` keeps ASTRA's asking, acceptance and walk-away rules (including the "
        "interpretations below) but replaces stages 2-3 with a linear time-based target (36 points "
        "down to 18) and the best package for the partner (under the IPP) at that target.",
        "- Scores are CaSiNo points; a no-deal gives both sides their BATNA (5), as in the seed's "
        "'all cases' averages. Intervals are Student-t 95% CIs; the Pareto distance is the Euclidean "
        "distance of the agreement's (P1, P2) points to the Pareto frontier.",
        "",
        *IMPLEMENTATION,
        "",
        "## Table 1 (parley)",
        "",
        table1_markdown(records),
        "",
        "The seed's table 1 for reference:",
        "",
        paper_markdown(),
        "",
        "## Comparison with the seed",
        "",
        *comparison_lines(means),
        "",
        *DISCUSSION,
        "",
        "## What changed and why (against the previous version of this report)",
        "",
        *CHANGES,
        "",
        previous_markdown(means),
        "",
        "Tournament, by opponent (ASTRA's normalised utility and agreement %, before → now):",
        "",
        previous_tournament_markdown(records),
        "",
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
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text("\n".join(sections), encoding="utf-8")
    return out


IMPLEMENTATION = (
    "## How parley's ASTRA generalises the seed",
    "",
    "- **Points.** Stage 1-3 work on a 0-36 points scale per party (CaSiNo's own scale): one point "
    "is 1/36 of a party's utility range, so the seed's 4-point fairness gap, PMS/2, the 1-point "
    "S_max steps and the 10-point S_max depth carry over to any scenario.",
    "- **IPP.** A linear-additive estimate of the partner's utility: issue order from its stated "
    "priorities (`Say.priorities`), else from what it keeps in its offers, else opposite to "
    "ASTRA's own; issue weights 5 to 3 by rank (CaSiNo's High/Low); option values opposite to "
    "ASTRA's on numeric issues and learned from offer frequencies on categorical ones. The "
    "consistency checks of the seed's table 6 trigger one re-ask.",
    "- **Stage 1.** Fairness is the seed's eq. 1 (S_p from the IPP). Stance is eq. 2 read on "
    "ASTRA's own side: the partner is generous when its offer gives ASTRA more than its previous "
    "offer did, greedy when less (eq. 2 uses the partner's own score, which only the IPP "
    "estimates; what the partner gave up is exact on ASTRA's side).",
    "- **Stage 2** is solved exactly: a vectorised sweep of the whole λ x S_max grid over the "
    "enumerated space (up to 2 million outcomes), else a HiGHS mixed-integer program built once per "
    "move and re-solved per cell with only costs and bounds changed. Floors: ASTRA's BATNA and the "
    "partner's estimated BATNA (ASTRA's own BATNA share). λ comes from the seed's tit-for-tat "
    "table and S_max is ASTRA's previous offer; ASTRA's floor is also raised so that one proposal "
    "concedes at most half of what the partner's latest offer conceded (in ASTRA's points), so "
    "S_max decreases no faster than the partner concedes.",
    "- **Stage 3** scores the top 5 distinct candidates by 0.35·PAP + 0.65·SA; PAP = 0.75·TS + "
    "0.25·SI, where SI averages the progress from ASTRA's previous offer toward the partner's "
    "ideal and the per-issue closeness to the partner's latest offer; SA is the min-max "
    "normalised rank under one of the nine tactics, chosen from stance, fairness and phase.",
    "- **Response modes** follow section 2.2: ask first; accept an offer worth at least ASTRA's "
    "latest offer (or what it would propose now, or anything above the BATNA on its last move "
    "before the round bound); the walk-away rules are interpreted as below. With more than two "
    "parties the others are pooled into one partner.",
    "- **Walk-away rule (a)**, no concession in K = 3 consecutive partner offers: ASTRA walks only "
    "when none of the partner's offers reaches its BATNA. With an offer at or above the BATNA on "
    "the table, walking is strictly worse for the principal, so ASTRA says it will not be the only "
    "one conceding (a warning, as the seed's agent does), keeps conceding within its floor, and "
    "takes the standing offer if the partner ignores the warning for K more offers or at its last "
    "move.",
    "- **Walk-away rule (b)**, two sub-BATNA offers despite a warning: ASTRA warns when a partner "
    "offer below its BATNA is no better than the partner's previous one (an opening anchor that "
    "then improves draws no threat) and walks when the partner's two latest offers since the "
    "warning both stay below the BATNA without improving: a partner still conceding toward the "
    "zone of agreement is not ignoring the warning.",
    "- **Departures from the seed** (each a deterministic stand-in for what its LLM did implicitly): "
    "concession tactics only pick candidates that really concede; candidates another grid optimum "
    "dominates under the IPP are dropped; when both sides stand still (ASTRA held for two offers, "
    "or held once while the partner held twice, and the partner's latest offer conceded nothing) "
    "ASTRA makes a small concession (CSC) without the cap, so a partner using the same "
    "three-offer walk rule, or one that mirrors concessions, is not mistaken for a stubborn one; "
    "it accepts an offer at least as good as its next proposal.",
    "- **Messages.** Proposals, acceptances and walks carry no text of their own: transcripts "
    "render them with `parley.language` over the scenario's vocabulary (division-aware phrasing). "
    "Only ASTRA's own `Say` moves (asking priorities, warnings) have fixed text.",
)
"""How the LLM stages became code (fixed text, true for this implementation)."""


DISCUSSION = (
    "Why the pattern differs from the seed's:",
    "",
    "- **Partners.** The seed's partners were GPT-4o prompts; parley's are deterministic rule-based "
    "twins. `greedy` opens at its best package and concedes one small step every three rounds down "
    "to 70% of its range, choosing among equal packages with its own opponent model; some of those "
    "steps give ASTRA less than before, so rule (b) still fires in part of the runs, and the deals "
    "it reaches are mostly ASTRA taking greedy's standing offer late, which is why ASTRA's "
    "agreement score against it stays far below the seed's 24.33.",
    "- **Fair partner.** `fair` re-proposes near-fair packages and never concedes further; ASTRA "
    "now warns instead of walking from its above-BATNA offers and closes on them, so every run "
    "ends in a deal, at a split `fair` judges fair from its own estimate of ASTRA's priorities.",
    "- **Not reproduced.** The seed's RL baseline (Flan-T5 + PPO) has no counterpart: parley ships no "
    "trained models, so that row of the seed's table 1 is left out.",
    "- **Ablation.** The seed's ablation is an LLM proposing offers on its own; ours is a linear "
    "time-based schedule that offers the partner's best package (under the IPP) at each target, and "
    "it shares ASTRA's response modes, so the greedy and fair rows of the two agents coincide (no "
    "proposal of either changes what those partners do). Against `base`, itself a linear "
    "time-based conceder, the concession cap keeps ASTRA's tit-for-tat from giving back each of "
    "`base`'s concessions in full, which is what let the ablation outscore it before.",
    "- **λ heatmap.** The seed's λ comes from an LLM; ours from the deterministic tit-for-tat table "
    "(greedy 0.9/0.8, neutral 0.6/0.5, generous 0.3 for unfair/fair) set to the averages the seed "
    "reports, so the heatmap checks the implementation rather than being an independent finding.",
    "- **Efficiency.** Stage 2 only returns packages on the Pareto frontier of the IPP, and with "
    "stated priorities the CaSiNo IPP is exact, so agreements sit on or next to the true frontier "
    "(the seed's figure 7 shows the same for ASTRA's offers).",
    "- **Still walked away from.** `hardliner` and `boulware` open at their best and do not move for "
    "most of the session; where that leaves ASTRA below its BATNA, rule (a) or (b) ends the "
    "session early, as the seed's rules prescribe (`boulware` would concede in the last rounds). "
    "Where their best offer beats ASTRA's BATNA, ASTRA now takes it instead of walking.",
    "- **Self-play trade-off.** Conceding at most half of the partner's latest step is what beats "
    "the ablation against `base`, but between two ASTRAs on the tight shipped scenarios (`lease`, "
    "`procurement`, `staffing`, `casino_distributive`) the half-steps can fall below the "
    "scenario's smallest real concession, one side stands still while the other still concedes a "
    "little, and the other's rule (b) ends the session. Returning the partner's concessions in "
    "full after two own holds removed most of those walk-aways (92% agreements in self-play) but "
    "gave back the gain against `base` (25.46 vs 25.21 for the ablation); the half-step rule "
    "was kept.",
)
"""The fixed part of the discussion (true for every run of this code: all agents are deterministic)."""


CHANGES = (
    "The previous version (same command, same seeds) read the seed's walk-away rules literally and "
    "let tit-for-tat give back every partner concession in full. Changes, each an interpretation "
    "of the seed documented above:",
    "",
    "1. Rule (a) never walks from a standing offer at or above the BATNA: it warns, concedes within "
    "the floor, and accepts the offer when the warning is ignored or at ASTRA's last move. Before, "
    "ASTRA walked from `fair`'s offers worth ~13 points for a BATNA of 5 in 87% of the runs.",
    "2. Rule (b) fires only when the warning is ignored: the partner's offers after it stay below the "
    "BATNA and do not improve; the warning itself waits for a sub-BATNA offer that does not improve "
    "on the previous one. Before, time-based partners that open at their best were left within a "
    "few rounds while still conceding (no deals against `boulware`, `hardliner`, `tit-for-tat`).",
    "3. Concessions follow the partner's: one proposal concedes at most half of the partner's "
    "latest concession (ASTRA's points), and stance is measured on ASTRA's side. The cause of the "
    "ablation beating ASTRA against `base` was tactic RC at λ = 0.3 answering each of `base`'s "
    "3-5 point steps with a 4-point step of its own, and the keep-alive CSC conceding after two "
    "holds even while `base` was still conceding, so the two met early and low (e.g. 23 points "
    "at round 12, where the ablation held 27 and `base` accepted it a round later). Capping each "
    "concession at the partner's full latest step (instead of half) measured 24.09 on the same "
    "100 runs; half lets ASTRA hold while a time-based partner keeps coming.",
    "4. The keep-alive concession (CSC) is made only when both sides stand still, never right after "
    "a partner concession, and also when the partner has held twice while ASTRA held (so a "
    "mirroring partner gets something to mirror before rule (a) fires).",
    "5. ASTRA accepts an above-BATNA offer on its last move before the round bound (the second-to-"
    "last round when the parties alternate), not only in the final round, which it may never get.",
    "6. Proposal, accept and walk messages are left to `parley.language` (the scenario vocabulary).",
)
"""What changed against the previous report, and why."""


PREVIOUS_TABLE1: dict[tuple[str, str], tuple[float, float, float]] = {
    ("astra", "base"): (23.38, 23.38, 0.0),
    ("astra", "greedy"): (5.00, math.nan, 100.0),
    ("astra", "fair"): (6.03, 12.92, 87.0),
    ("astra-ablation", "base"): (25.21, 25.21, 0.0),
    ("astra-ablation", "greedy"): (5.00, math.nan, 100.0),
    ("astra-ablation", "fair"): (10.31, 15.84, 51.0),
}
"""The previous version's table 1 (P1's score all, score in agreements, walk-away %), 100 runs."""


PREVIOUS_TOURNAMENT: dict[str, tuple[float, float]] = {
    "astra": (0.56, 67),
    "base": (0.70, 78),
    "boulware": (0.14, 0),
    "conceder": (0.72, 80),
    "fair": (0.42, 39),
    "greedy": (0.36, 33),
    "hardliner": (0.14, 0),
    "linear": (0.64, 71),
    "random": (0.82, 89),
    "tit-for-tat": (0.14, 0),
    "lease": (0.48, 6),
    "procurement": (0.48, 9),
    "staffing": (0.51, 13),
}
"""The previous version's tournament (ASTRA's mean normalised utility, agreement %) per opponent,
and for the three shipped scenarios it rarely settled on."""


def previous_tournament_markdown(records: Sequence[RunRecord]) -> str:
    """Previous vs current tournament means per opponent and for the scenarios named above."""
    groups: dict[str, list[RunRecord]] = defaultdict(list)
    for record in records:
        if record.study == "tournament":
            groups[record.partner].append(record)
            if record.scenario in PREVIOUS_TOURNAMENT:
                groups[record.scenario].append(record)
    lines = ["| opponent / scenario | ASTRA utility | agreement % |", "|---|---|---|"]
    for name, (utility, agree) in PREVIOUS_TOURNAMENT.items():
        group = groups.get(name)
        if not group:
            continue
        now_utility = float(np.mean([r.agent_normalized for r in group]))
        now_agree = 100.0 * sum(r.agreement for r in group) / len(group)
        lines.append(f"| {name} | {utility:.2f} → {now_utility:.2f} | {agree:.0f} → {now_agree:.0f} |")
    return "\n".join(lines)


def previous_markdown(means: Mapping[tuple[str, str], Mapping[str, float]]) -> str:
    """Previous vs current table-1 means for P1."""

    def number(value: float) -> str:
        return "—" if math.isnan(value) else f"{value:.2f}"

    lines = [
        "| P1 | P2 | score, all (before → now) | score, agreements (before → now) "
        "| walk-away % (before → now) |",
        "|---|---|---|---|---|",
    ]
    for (agent, partner), (every, deal, walk) in PREVIOUS_TABLE1.items():
        cell = means.get((agent, partner))
        if cell is None:
            continue
        lines.append(
            f"| {agent} | {partner} | {number(every)} → {number(cell['all'])} "
            f"| {number(deal)} → {number(cell['deal'])} | {walk:.0f} → {cell['walk']:.0f} |"
        )
    return "\n".join(lines)


def comparison_lines(means: Mapping[tuple[str, str], Mapping[str, float]]) -> list[str]:
    """Plain statements comparing the measured pattern with the seed's, each with both numbers."""
    lines: list[str] = []
    astra, ablation = means.get(("astra", "base")), means.get(("astra-ablation", "base"))
    if astra and ablation:
        gap = astra["deal"] - ablation["deal"]
        overlap = abs(gap) <= astra.get("deal_hw", math.nan) + ablation.get("deal_hw", math.nan)
        if gap > 0 and not overlap:
            verdict = "reproduced here, though smaller"
        elif gap > 0:
            verdict = "only hinted at here: ASTRA is ahead but the 95% intervals overlap"
        else:
            verdict = "not reproduced here"
        lines.append(
            f"- Against `base`, ASTRA's agreement score is {astra['deal']:.2f} vs {ablation['deal']:.2f} "
            f"for the ablation (seed: 24.31 vs 20.75): the seed's gain from stages 2-3 is {verdict}."
        )
    for partner, seed_walk in (("base", 16), ("greedy", 85), ("fair", 35)):
        cell = means.get(("astra", partner))
        if cell:
            deal = "no agreements" if math.isnan(cell["deal"]) else f"agreement score {cell['deal']:.2f}"
            lines.append(
                f"- ASTRA vs `{partner}`: walk-away {cell['walk']:.0f}% (seed {seed_walk}%), "
                f"{deal}, all-cases score {cell['all']:.2f}."
            )
    return lines
