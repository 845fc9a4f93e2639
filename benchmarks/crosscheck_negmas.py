"""Cross-check parley's GENIUS import and outcome analysis against NegMAS (`negmas.inout`).

    .venv-bench/bin/python benchmarks/crosscheck_negmas.py [FOLDER ...]

Default folders: the GENIUS domains under tests/data/genius (written for parley's tests). For each
it loads the files in parley (`load_genius`) and in NegMAS (`load_genius_domain_from_folder`) and
prints, outcome by outcome and point by point:

1. utilities of every outcome: parley against NegMAS as NegMAS scores the files, and against
   NegMAS's own parse scored the GENIUS way (a discrete issue divided by its best evaluation, an
   integer evaluator applied to x − lowerbound and clamped to [0, 1]); the first may differ (a
   convention), the second must not;
2. reservation values and discount factors as each reads them;
3. the Pareto frontier of the rational outcomes (NegMAS computes no other) from NegMAS's
   `pareto_frontier` on the GENIUS-scored utilities, as outcomes and as distinct points;
4. the Nash point: parley's, NegMAS's `nash_points` on the same utilities, and parley's again
   under NegMAS's reservation convention (a reservation value below a party's worst outcome
   replaced by that outcome's utility) when the two differ.

Every difference printed is labelled with the convention that explains it (docs/interop.md lists
them); the exit status is 1 when one remains unexplained. NegMAS is AGPL-licensed: it is imported
here, in the bench venv only, never by parley itself.
"""

from __future__ import annotations

import argparse
import itertools
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from parley.domain.analysis import OutcomeAnalysis
from parley.scenarios.importers.genius import load_genius
from parley.scenarios.model import Scenario

ROOT = Path(__file__).resolve().parents[1]
DEFAULT_FOLDERS = ("laptop", "party", "holiday")
TOLERANCE = 1e-12
RESERVATION_CONVENTION = "NegMAS replaces a reservation value below a party's worst outcome with that outcome"
NORMALISATION_FLOOR = 1e-5  # (GENIUS: a discrete issue whose best evaluation is below it scores 0)


def negmas_side(folder: Path) -> tuple[Any, list[Any], list[float | None]]:
    """NegMAS's outcome space, undiscounted utilities and discount factors for a GENIUS folder."""
    from negmas.inout import load_genius_domain_from_folder
    from negmas.preferences import UtilityFunction

    scenario = load_genius_domain_from_folder(folder, ignore_discount=True)
    ufuns = list(scenario.ufuns)
    issues = scenario.outcome_space.issues
    discounts: list[float | None] = []
    for ufun in ufuns:
        _, discount = UtilityFunction.from_genius(file_name=ufun.path, issues=issues)
        discounts.append(discount)
    return scenario.outcome_space, ufuns, discounts


def negmas_outcomes(outcome_space: Any) -> list[tuple[Any, ...]]:
    """Every outcome in parley's order (the last issue varies fastest; values in file order)."""
    return list(itertools.product(*(list(issue.all) for issue in outcome_space.issues)))


def genius_scores(ufun: Any, issue: Any) -> dict[Any, float]:
    """One issue's scores the GENIUS way, from NegMAS's parse of the profile."""
    from negmas.preferences.value_fun import AffineFun, LinearFun, TableFun

    function = (
        ufun.values[issue.name] if isinstance(ufun.values, dict) else ufun.values[_position(ufun, issue)]
    )
    values = list(issue.all)
    if isinstance(function, TableFun):
        best = max(function.mapping.values())
        return {v: 0.0 if best < NORMALISATION_FLOOR else function.mapping[v] / best for v in values}
    if isinstance(function, AffineFun | LinearFun):
        offset = float(getattr(function, "bias", 0.0))
        low = min(values)
        return {v: min(1.0, max(0.0, offset + function.slope * (v - low))) for v in values}
    raise TypeError(f"unexpected NegMAS value function {type(function).__name__}")


def _position(ufun: Any, issue: Any) -> int:
    return [i.name for i in ufun.outcome_space.issues].index(issue.name)


def genius_ufuns(outcome_space: Any, ufuns: Sequence[Any]) -> list[Any]:
    """NegMAS utilities scoring NegMAS's parse the GENIUS way (same weights, reservations)."""
    from negmas.preferences import LinearAdditiveUtilityFunction
    from negmas.preferences.value_fun import TableFun

    scored = []
    for ufun in ufuns:
        weights = (
            ufun.weights
            if isinstance(ufun.weights, dict)
            else dict(zip([i.name for i in outcome_space.issues], ufun.weights, strict=True))
        )
        values = {issue.name: TableFun(genius_scores(ufun, issue)) for issue in outcome_space.issues}
        scored.append(
            LinearAdditiveUtilityFunction(
                values=values,
                weights=weights,
                outcome_space=outcome_space,
                reserved_value=ufun.reserved_value,
            )
        )
    return scored


def utilities(ufuns: Sequence[Any], outcomes: Sequence[tuple[Any, ...]]) -> np.ndarray:
    """Utility of every outcome for every ufun, shape (outcomes, parties)."""
    return np.array([[float(u(o)) for u in ufuns] for o in outcomes], dtype=np.float64)


class Report:
    """Collects printed lines and whether a difference stayed unexplained."""

    def __init__(self) -> None:
        self.unexplained = 0

    def line(self, label: str, text: str, *, ok: bool, explained: str = "") -> None:
        """One finding: OK, a difference explained by a named convention, or a failure."""
        if ok:
            status = "equal"
        elif explained:
            status = f"differs — {explained}"
        else:
            status = "DIFFERS (unexplained)"
            self.unexplained += 1
        print(f"  {label:<34} {status}: {text}")


def compare_utilities(report: Report, parley: np.ndarray, raw: np.ndarray, scored: np.ndarray) -> None:
    gap = np.abs(parley - raw)
    explained = (
        "NegMAS keeps GENIUS's raw evaluations (no division by the best) and applies integer "
        "evaluators to x, not x − lowerbound, unclamped"
    )
    report.line(
        "utilities vs NegMAS as it scores",
        f"max |Δ| {gap.max():.3g} on {int((gap > TOLERANCE).any(axis=1).sum())} of {len(parley)} outcomes",
        ok=bool(gap.max() <= TOLERANCE),
        explained=explained,
    )
    gap = np.abs(parley - scored)
    report.line(
        "utilities vs NegMAS, GENIUS-scored",
        f"max |Δ| {gap.max():.3g} over {parley.size} utilities",
        ok=bool(gap.max() <= TOLERANCE),
    )


def compare_reading(
    report: Report, scenario: Scenario, ufuns: Sequence[Any], discounts: Sequence[float | None]
) -> None:
    ours = [p.utility.reservation_value for p in scenario.parties]
    theirs = [float(u.reserved_value) for u in ufuns]
    report.line("reservation values", f"parley {ours}, NegMAS {theirs}", ok=ours == theirs)
    ours_d = [p.utility.discount for p in scenario.parties]
    theirs_d = [1.0 if d in (None, 0.0) else float(d) for d in discounts]
    report.line(
        "discount factors (0/absent = none)",
        f"parley {ours_d}, NegMAS {list(discounts)}; parley u·d^t with t = round/max_rounds, NegMAS "
        "u·d^step per round (make_discounted_ufun discount_per_round)",
        ok=ours_d == theirs_d,
    )


def compare_frontier(
    report: Report, analysis: OutcomeAnalysis, scored_ufuns: Sequence[Any], outcomes: Sequence[Any]
) -> None:
    from negmas.preferences.ops import pareto_frontier

    rational = analysis.frontier[analysis.individually_rational[analysis.frontier]]
    _points, indices = pareto_frontier(scored_ufuns, outcomes=outcomes, sort_by_welfare=True)
    theirs = set(int(i) for i in indices)
    ours = set(int(i) for i in rational)
    distinct = {tuple(np.round(analysis.points[i], 12)) for i in ours}
    their_points = {tuple(np.round(analysis.points[i], 12)) for i in theirs}
    extra = ours - theirs
    duplicates = all(tuple(np.round(analysis.points[i], 12)) in their_points for i in extra)
    report.line(
        "Pareto frontier (rational), points",
        f"parley {len(distinct)} distinct points, NegMAS {len(their_points)}",
        ok=distinct == their_points,
    )
    report.line(
        "Pareto frontier (rational), outcomes",
        f"parley {len(ours)} outcomes, NegMAS {len(theirs)}; NegMAS's all on parley's: {theirs <= ours}",
        ok=ours == theirs,
        explained="NegMAS keeps one outcome per frontier point; parley keeps every outcome with that point"
        if theirs <= ours and duplicates
        else "",
    )


def compare_nash(report: Report, analysis: OutcomeAnalysis, scored_ufuns: Sequence[Any]) -> None:
    from negmas.preferences.ops import nash_points, pareto_frontier

    frontier, _ = pareto_frontier(scored_ufuns, sort_by_welfare=True)
    ranges = [u.minmax() for u in scored_ufuns]
    found = nash_points(scored_ufuns, frontier, ranges=ranges)
    theirs = [np.array(point, dtype=np.float64) for point, _ in found]
    if analysis.nash is None:
        report.line("Nash point", f"parley none, NegMAS {len(theirs)}", ok=not theirs)
        return
    ours = analysis.points[analysis.nash]
    same = any(np.abs(ours - point).max() <= 1e-9 for point in theirs)
    shown = f"parley {np.round(ours, 6).tolist()}, NegMAS {[np.round(p, 6).tolist() for p in theirs]}"
    if same:
        report.line("Nash point", shown, ok=True)
        return
    clipped = np.maximum(analysis.reservation, analysis.worst)
    their_way = OutcomeAnalysis(analysis.space, analysis.points, clipped)
    agrees = their_way.nash is not None and any(
        np.abs(analysis.points[their_way.nash] - point).max() <= 1e-9 for point in theirs
    )
    report.line(
        "Nash point",
        shown
        + (
            f"; parley with NegMAS's convention {np.round(analysis.points[their_way.nash], 6).tolist()}"
            if their_way.nash is not None
            else ""
        ),
        ok=False,
        explained=RESERVATION_CONVENTION
        if agrees and bool((analysis.reservation < analysis.worst).any())
        else "",
    )


def check(folder: Path) -> int:
    """Compare one folder; returns the number of unexplained differences."""
    print(f"{folder.relative_to(ROOT) if folder.is_relative_to(ROOT) else folder}:")
    scenario = load_genius(folder)
    analysis = OutcomeAnalysis.of(scenario.utilities())
    outcome_space, ufuns, discounts = negmas_side(folder)
    outcomes = negmas_outcomes(outcome_space)
    if len(outcomes) != scenario.space.size:
        print(f"  outcome counts differ: parley {scenario.space.size}, NegMAS {len(outcomes)}")
        return 1
    names = [u.name for u in ufuns]
    print(f"  {scenario.space.size} outcomes, parties {list(scenario.party_names)} (NegMAS: {names})")
    report = Report()
    scored_ufuns = genius_ufuns(outcome_space, ufuns)
    compare_utilities(report, analysis.points, utilities(ufuns, outcomes), utilities(scored_ufuns, outcomes))
    compare_reading(report, scenario, ufuns, discounts)
    compare_frontier(report, analysis, scored_ufuns, outcomes)
    compare_nash(report, analysis, scored_ufuns)
    return report.unexplained


def main(argv: Sequence[str] | None = None) -> int:
    """Command-line entry point."""
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("folders", nargs="*", type=Path, help="GENIUS folders (default: the test domains)")
    args = parser.parse_args(argv)
    folders = args.folders or [ROOT / "tests" / "data" / "genius" / name for name in DEFAULT_FOLDERS]
    import warnings

    warnings.simplefilter("ignore")  # (NegMAS warns about slow paths on every call)
    unexplained = sum(check(Path(folder).resolve()) for folder in folders)
    print(f"\n{unexplained} unexplained difference(s)" if unexplained else "\nno unexplained difference")
    return 1 if unexplained else 0


if __name__ == "__main__":
    sys.exit(main())
