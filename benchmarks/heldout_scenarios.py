"""The multi-party target on shipped-like scenarios nobody tuned on (issue 20), pre-registered.

The shipped multi-party scenarios cannot give a held-out figure any more: their tuning seeds replay
the evaluation games (benchmarks/generalisation_loso.py explains why). So two helpers who never saw
parley's agents, mediators or results wrote new multi-party scenarios in the shipped format
(committed untouched in 18f3606 as tests/data/scenarios/heldout1/, before anything was played on
them; shipped since as the `multiparty/` collection, byte-identical). This script plays
them once with the configuration fixed here before they were written:

- primary: every seat `conceder`, mediator `proactive` at its shipped settings: the mix and mediator
  the evaluation3 mediator study chose on tuning seeds (docs/results/generalisation.md);
- secondary, for context only: the same mix without a mediator, and `base` without a mediator.

A game counts when it ends in a deal with every party at or above its BATNA (the study's criterion,
`generalisation.above_all`). A scenario where no package leaves every party at or above its BATNA can
never count; the primary figure is over the scenarios where one exists (as the generated games
guarantee one), and the figure over all scenarios is printed beside it. Most built-in agents are
deterministic, so the seeds of one scenario may replay the same game: the report prints how many
distinct endings each scenario had, and an interval by resampling whole scenarios (bootstrap over
scenarios, 10,000 draws, fixed seed) beside the per-game Wilson interval.

Usage (from the repository root):

    .venv/bin/python benchmarks/heldout_scenarios.py --out runs/heldout-scenarios1 --jobs 2

The second set (tests/data/scenarios/heldout2/, written blind while the k-of-n changes were tuned on the
first, spent set) is played the same way, with the same configuration and seeds:

    .venv/bin/python benchmarks/heldout_scenarios.py --folder tests/data/scenarios/heldout2 \\
        --out runs/heldout-scenarios2 --jobs 2
"""

from __future__ import annotations

import argparse
import os
import sys
from collections import defaultdict
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))

import generalisation as bench

from parley.errors import ScenarioError
from parley.experiments.astra.inference import wilson
from parley.experiments.tournament import Game, ResultStore
from parley.scenarios import load_scenario
from parley.scenarios.catalog import multiparty_directory
from parley.scenarios.generate import acceptable_counts
from parley.scenarios.model import Scenario

ROOT = Path(__file__).resolve().parents[1]
FOLDER = multiparty_directory()
"""The first held-out set (every *.yaml below it), shipped since as the `multiparty/` collection."""
SEEDS = range(4000, 4004)
"""Evaluation seeds, fixed before the scenarios were written."""
PRIMARY = ("conceder", "proactive")
"""(mix in every seat, mediator): the evaluation3 study's choice on tuning seeds."""
SECONDARY = (("conceder", bench.NO_MEDIATOR), ("base", bench.NO_MEDIATOR))
TARGET = 0.60
BOOTSTRAP_DRAWS = 10_000


@dataclass(frozen=True, slots=True)
class ScenarioResult:
    """One scenario under one configuration."""

    name: str
    parties: int
    rule: str
    feasible: int
    """Packages that leave every party at or above its BATNA."""
    good: int
    games: int
    endings: int
    """Distinct endings (kind, round, every party's utility) over the seeds."""


def scenario_files(folder: Path) -> list[Path]:
    """The held-out scenario files, sorted; a missing or empty folder is a one-line error."""
    if not folder.is_dir():
        raise ScenarioError(f"no held-out scenario folder at {folder}")
    files = sorted(folder.rglob("*.yaml"))
    if not files:
        raise ScenarioError(f"{folder} holds no scenario file (*.yaml)")
    return files


def feasibility(scenario: Scenario) -> tuple[int, str]:
    """How many packages leave every party at or above its BATNA, and the acceptance rule in words."""
    rule = scenario.rules.acceptance
    words = "unanimous" if rule.required is None else f"{rule.required} of {len(scenario.party_names)}"
    if rule.vetoes:
        words += f", vetoes {', '.join(rule.vetoes)}"
    return acceptable_counts(scenario)[1], words


def play_config(files: Sequence[Path], mix: str, mediator: str, out: Path, jobs: int) -> list[ScenarioResult]:
    """Play every scenario on every seed with `mix` in every seat; one result per scenario."""
    scenarios = {path: load_scenario(str(path)) for path in files}
    games: list[Game] = []
    for path, scenario in scenarios.items():
        parties = len(scenario.parties)
        games += [Game(str(path), (mix,) * parties, r, s, mediator) for r, s in enumerate(SEEDS)]
    store = ResultStore(out / f"{mix}-{bench.folder_name(mediator)}")
    bench.play(games, store, jobs, f"held-out scenarios, all {mix}, {mediator}")
    keys = {g.key for g in games}
    rows: dict[str, list[Mapping[str, Any]]] = defaultdict(list)
    for row in store.iter_rows():
        if row["game"] in keys:
            rows[str(row["game"])].append(row)
    by_scenario: dict[str, list[Sequence[Mapping[str, Any]]]] = defaultdict(list)
    for game_rows in rows.values():
        by_scenario[str(game_rows[0]["scenario"])].append(game_rows)
    results: list[ScenarioResult] = []
    for path in files:
        played = by_scenario.get(str(path), [])
        feasible, rule = feasibility(scenarios[path])
        endings = {_ending(g) for g in played}
        results.append(
            ScenarioResult(
                name=_name(path, files),
                parties=len(scenarios[path].parties),
                rule=rule,
                feasible=feasible,
                good=sum(bench.above_all(g) for g in played),
                games=len(played),
                endings=len(endings),
            )
        )
    return results


def _name(path: Path, files: Sequence[Path]) -> str:
    """The scenario's path below the folder the files share ("a/port_terminal_automation")."""
    root = Path(os.path.commonpath([f.parent for f in files])) if len(files) > 1 else path.parent
    return path.relative_to(root).with_suffix("").as_posix()


def _ending(game_rows: Sequence[Mapping[str, Any]]) -> tuple[object, ...]:
    """How a game ended: the ending kind, the round and every party's utility (rows carry no package)."""
    utilities = sorted((str(r["party"]), round(float(r["utility"]), 9)) for r in game_rows)
    return (game_rows[0]["end"], game_rows[0]["rounds"], *utilities)


def bootstrap(results: Sequence[ScenarioResult], seed: int = 20) -> tuple[float, float]:
    """95% percentile interval of the share of good games, resampling whole scenarios."""
    good = np.array([r.good for r in results], dtype=np.float64)
    games = np.array([r.games for r in results], dtype=np.float64)
    if not len(results) or games.sum() == 0:
        return (0.0, 0.0)
    rng = np.random.default_rng(seed)
    picks = rng.integers(0, len(results), size=(BOOTSTRAP_DRAWS, len(results)))
    shares = good[picks].sum(axis=1) / np.maximum(games[picks].sum(axis=1), 1.0)
    low, high = np.percentile(shares, [2.5, 97.5])
    return float(low), float(high)


def summary_line(label: str, results: Sequence[ScenarioResult]) -> str:
    """One line: good of games, share, Wilson and scenario-bootstrap intervals, verdict."""
    good = sum(r.good for r in results)
    games = sum(r.games for r in results)
    if not games:
        return f"- {label}: no games"
    rate = wilson(good, games)
    low, high = bootstrap(results)
    verdict = "met" if good / games >= TARGET else "not met"
    return (
        f"- {label}: {good} of {games} = {good / games:.1%} (Wilson [{rate.low:.0%}, {rate.high:.0%}];"
        f" resampling scenarios [{low:.0%}, {high:.0%}]; {len(results)} scenarios): **{verdict}**"
    )


def report(configs: Sequence[tuple[str, str, list[ScenarioResult]]]) -> str:
    """The markdown report: a per-scenario table, then the primary and secondary lines."""
    lines = [
        "| scenario | parties | rule | packages every party accepts | "
        + " | ".join(f"all {mix}, `{mediator}`" for mix, mediator, _ in configs)
        + " |",
        "|---|---|---|---|" + "---|" * len(configs),
    ]
    first = configs[0][2]
    for i, row in enumerate(first):
        cells = [f"{c[2][i].good} of {c[2][i].games} ({c[2][i].endings} ending(s))" for c in configs]
        lines.append(
            f"| {row.name} | {row.parties} | {row.rule} | {row.feasible} | " + " | ".join(cells) + " |"
        )
    lines.append("")
    for index, (mix, mediator, results) in enumerate(configs):
        kind = "**Primary** (pre-registered)" if index == 0 else "Secondary"
        feasible = [r for r in results if r.feasible]
        lines.append(
            summary_line(
                f"{kind}, all {mix}, `{mediator}`, scenarios where a deal good for all exists", feasible
            )
        )
        lines.append(summary_line(f"{kind}, all {mix}, `{mediator}`, every scenario", results))
    return "\n".join(lines) + "\n"


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--folder", type=Path, default=FOLDER, help="the held-out scenarios")
    parser.add_argument("--out", type=Path, required=True, help="result store (resumable)")
    parser.add_argument("--jobs", type=int, default=1, choices=(1, 2))
    parser.add_argument("--report", type=Path, help="also write the markdown report here")
    args = parser.parse_args(argv)
    try:
        files = scenario_files(args.folder)
        configs = [
            (mix, mediator, play_config(files, mix, mediator, args.out, args.jobs))
            for mix, mediator in (PRIMARY, *SECONDARY)
        ]
    except ScenarioError as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    text = report(configs)
    print(text, end="")
    if args.report:
        args.report.write_text(text, encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
