"""Leave-one-scenario-out check of the multi-party target on the shipped scenarios (issue 20).

The shipped multi-party scenarios are nine fixed games. Most built-in agents are deterministic, so a
game replays almost move for move whatever its seed: of the 288 shipped games of the evaluation3
mediator study (four mixes, 72 games each, with the `proactive` mediator), 234 ended exactly as the
same scenario and mix did on the tuning seeds. Choosing the mediator's settings or the mix on the
shipped scenarios' tuning seeds is therefore choosing them on (nearly) the evaluation games, and the
study's shipped figure is in effect in-sample.

This script gives the honest figure instead: for each shipped scenario, the mediator setting and the
mix are chosen without it (from a `--mediator-sweep` run on tuning seeds: the best lower of the two
tuning rates, generated games and the other eight shipped scenarios, then the generated rate), and
that choice plays the left-out scenario on the split's shipped seeds. The sum over the nine folds
estimates what the rule that chose the configuration does on a shipped-like scenario it never saw.

Usage (from the repository root; SWEEP is the `--out` folder of a tuning sweep, e.g. the one whose
command is in docs/results/generalisation.md):

    .venv/bin/python benchmarks/generalisation_loso.py --sweep runs/mediator-tuning-trial \\
        --split evaluation3 --out runs/generalisation-loso --jobs 2
"""

from __future__ import annotations

import argparse
import sys
from collections import defaultdict
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

import generalisation as bench

from parley.errors import ScenarioError
from parley.experiments.astra.inference import wilson
from parley.experiments.tournament import Game, ResultStore

MIXES = ("linear", "base", "conceder", "astra")
"""The homogeneous mixes a fold may choose (those the sweep plays with `--sweep-agents`)."""


@dataclass(frozen=True, slots=True)
class Played:
    """One game of the sweep: its scenario, its mix and whether every party got a deal ≥ its BATNA."""

    scenario: str
    mix: str
    good: bool


def read_sweep(folder: Path) -> dict[str, tuple[list[Played], list[Played]]]:
    """Per mediator setting in a sweep's store (`mediator-sweep/<setting>[-shipped]`): its generated
    and its shipped tuning games, homogeneous mixes only.

    Raises:
        ScenarioError: no sweep store under the folder, or a row without the fields a game needs.
    """
    root = folder / "mediator-sweep"
    if not root.is_dir():
        raise ScenarioError(f"no mediator sweep under {folder} (expected {root})")
    settings: dict[str, tuple[list[Played], list[Played]]] = {}
    for store in sorted(p for p in root.iterdir() if p.is_dir() and not p.name.endswith("-shipped")):
        shipped = root / f"{store.name}-shipped"
        if not shipped.is_dir():
            continue
        generated_games, setting = _games(store)
        shipped_games, _ = _games(shipped)
        if setting != bench.NO_MEDIATOR:
            settings[setting] = (generated_games, shipped_games)
    if not settings:
        raise ScenarioError(f"{root} holds no mediated setting played on both sets")
    return settings


def _games(store: Path) -> tuple[list[Played], str]:
    rows: dict[str, list[Mapping[str, Any]]] = defaultdict(list)
    settings: set[str] = set()
    for row in ResultStore(store).iter_rows():
        try:
            rows[str(row["game"])].append(row)
            settings.add(str(row["mediator"]))
        except KeyError as missing:
            raise ScenarioError(f"{store}: a result row has no {missing.args[0]!r}") from None
    if len(settings) != 1:
        raise ScenarioError(f"{store}: expected one mediator setting, found {len(settings)}")
    games = [
        Played(str(r[0]["scenario"]), str(r[0]["agent"]), bench.above_all(r))
        for r in rows.values()
        if len({x["agent"] for x in r}) == 1
    ]
    return games, settings.pop()


def _rate(games: Sequence[Played], mix: str, without: str | None = None) -> float:
    chosen = [g.good for g in games if g.mix == mix and g.scenario != without]
    return sum(chosen) / len(chosen) if chosen else 0.0


def choose(
    settings: Mapping[str, tuple[list[Played], list[Played]]], left_out: str
) -> tuple[str, str, float]:
    """The (setting, mix) a fold chooses without `left_out`, with its worst tuning rate."""
    scored = [
        (min(_rate(gen, mix), _rate(shipped, mix, left_out)), _rate(gen, mix), setting, mix)
        for setting, (gen, shipped) in sorted(settings.items())
        for mix in MIXES
        if any(g.mix == mix for g in gen)
    ]
    if not scored:
        raise ScenarioError(f"the sweep played none of the mixes {', '.join(MIXES)}")
    worst, _, setting, mix = max(scored, key=lambda s: (s[0], s[1], s[2], s[3]))
    return setting, mix, worst


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--sweep", type=Path, required=True, help="the --out folder of a tuning sweep")
    parser.add_argument(
        "--split", choices=sorted(set(bench.SHIPPED_MULTIPARTY_SEEDS) - {"tuning"}), required=True
    )
    parser.add_argument("--out", type=Path, required=True)
    parser.add_argument("--jobs", type=int, default=1, choices=(1, 2))
    args = parser.parse_args(argv)
    try:
        settings = read_sweep(args.sweep)
        total = good = 0
        print("| left-out scenario | chosen without it | worst tuning rate | deals, every party ≥ BATNA |")
        print("|---|---|---|---|")
        for name in bench.SHIPPED_MULTIPARTY:
            setting, mix, worst = choose(settings, name)
            parties = len(bench.load_scenario(name).parties)
            seeds = bench.SHIPPED_MULTIPARTY_SEEDS[args.split]
            games = [Game(name, (mix,) * parties, r, s, setting) for r, s in enumerate(seeds)]
            store = ResultStore(args.out / bench.folder_name(setting))
            bench.play(games, store, args.jobs, f"leave out {name}")
            keys = {g.key for g in games}
            rows: dict[str, list[Mapping[str, Any]]] = defaultdict(list)
            for row in store.iter_rows():
                if row["game"] in keys:
                    rows[str(row["game"])].append(row)
            hits = sum(bench.above_all(r) for r in rows.values())
            total, good = total + len(rows), good + hits
            print(f"| {name} | all {mix}, `{setting}` | {worst:.0%} | {hits} of {len(rows)} |")
        rate = wilson(good, total)
        verdict = "met" if total and good / total >= 0.60 else "not met"
        share = f"{good / max(total, 1):.1%} [{rate.low:.0%}, {rate.high:.0%}]"
        print(f"\nLeave-one-scenario-out, {args.split} seeds: {good} of {total} = {share}: **{verdict}**")
    except ScenarioError as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
