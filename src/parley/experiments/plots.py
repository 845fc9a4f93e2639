"""Plots over outcome spaces and trajectories (matplotlib, headless)."""

from __future__ import annotations

from dataclasses import dataclass
from itertools import combinations, cycle
from pathlib import Path

import matplotlib
import numpy as np

matplotlib.use("Agg")
import matplotlib.pyplot as plt
from matplotlib.axes import Axes
from matplotlib.figure import Figure

from parley.domain.utility import FloatArray
from parley.protocol.actions import Propose
from parley.protocol.artefact import Agreement
from parley.protocol.events import Trajectory, TrajectoryError
from parley.protocol.payloads import Payload, UntypedPayload
from parley.scenarios.model import Scenario

MAX_SCATTER_POINTS = 200_000


def save_figure(figure: Figure, path: Path, *, dpi: int = 110) -> Path:
    """Lay the figure out, write it as a PNG (creating its folder) and free it."""
    figure.tight_layout()
    path.parent.mkdir(parents=True, exist_ok=True)
    figure.savefig(path, dpi=dpi)
    plt.close(figure)
    return path


MAX_PAIRWISE_PARTIES = 4
"""Up to this many parties the plot has a panel per pair of parties; beyond, parallel coordinates."""

MAX_PARALLEL_LINES = 400
"""Most frontier outcomes drawn as lines in a parallel-coordinates plot (evenly thinned beyond)."""

_OFFER_COLOURS = ("#1d3557", "#e63946", "#f4a261", "#6a4c93", "#2a9d8f", "#8d99ae")


@dataclass(frozen=True)
class _Marks:
    """What is drawn over the outcome space: the solutions and a saved run's offers."""

    solutions: tuple[tuple[str, int], ...]  # (label, outcome index) of each solution that exists
    offers: dict[str, FloatArray]  # every party's utilities of each offer, by proposer
    agreements: tuple[FloatArray, ...]


def outcome_space_layout(parties: int) -> str:
    """How `outcome_space_figure` shows this many parties (a note to print next to the plot)."""
    if parties <= 2:
        return "the two parties' utilities"
    if parties <= MAX_PAIRWISE_PARTIES:
        return f"a panel for each pair of the {parties} parties"
    return f"parallel coordinates of the {parties} parties' normalised utilities"


def plot_outcome_space(scenario: Scenario, path: Path, trajectory: Trajectory | None = None) -> Path:
    """Write `outcome_space_figure` to path, in the format its suffix names (png, pdf, svg, ...).

    Raises:
        ValueError: the space is too large to enumerate, or matplotlib has no such format.
        OSError: the file cannot be written.
    """
    return save_figure(outcome_space_figure(scenario, trajectory), path, dpi=120)


def outcome_space_figure(scenario: Scenario, trajectory: Trajectory | None = None) -> Figure:
    """Every outcome, the Pareto frontier, the Nash, Kalai–Smorodinsky and max-welfare points and,
    if given, the offers of a saved run (as in the ASTRA paper's figure 7) for every party.

    Two parties share one scatter of their utilities; three or four get a panel per pair of
    parties; more get parallel coordinates of their normalised utilities (0 at the BATNA, 1 at
    the party's best outcome, as in `OutcomeAnalysis.normalized`).

    Raises:
        ValueError: the space is too large to enumerate, or a package of the trajectory is not
            in the scenario's space.
    """
    analysis = scenario.analysis
    solutions = (
        ("Nash", analysis.nash),
        ("Kalai–Smorodinsky", analysis.kalai),
        ("max welfare", analysis.max_welfare),
    )
    marks = _Marks(
        tuple((label, index) for label, index in solutions if index is not None),
        *_offers(scenario, trajectory),
    )
    parties = len(scenario.parties)
    if parties > MAX_PAIRWISE_PARTIES:
        return _parallel_figure(scenario, marks)
    pairs = list(combinations(range(parties), 2))
    columns = min(3, len(pairs))
    rows = -(-len(pairs) // columns)
    size = (7.0, 6.0) if len(pairs) == 1 else (5.0 * columns, 4.6 * rows)
    figure, grid = plt.subplots(rows, columns, figsize=size, squeeze=False)
    panels = list(grid.flat)
    for axes, (first, second) in zip(panels, pairs, strict=False):
        _pair_panel(axes, scenario, marks, first, second)
    for axes in panels[len(pairs) :]:
        axes.remove()
    panels[0].legend(loc="lower left", fontsize=8)
    if len(pairs) == 1:
        panels[0].set_title(scenario.title)
    else:
        figure.suptitle(f"{scenario.title}: every pair of the {parties} parties")
    return figure


_SOLUTION_COLOUR = {"Nash": "#264653", "Kalai–Smorodinsky": "#e76f51", "max welfare": "#8338ec"}


def _mark_solution(axes: Axes, label: str, x: float, y: float) -> None:
    colour = _SOLUTION_COLOUR[label]
    if label == "Nash":  # filled and on top; the others hollow, so a coinciding Nash point shows
        axes.scatter(x, y, marker="*", s=160, c=colour, zorder=6, label=label)
    else:
        marker, size = ("D", 260) if label == "Kalai–Smorodinsky" else ("s", 200)
        axes.scatter(
            x,
            y,
            marker=marker,
            s=size,
            facecolors="none",
            edgecolors=colour,
            linewidths=2,
            zorder=5,
            label=label,
        )


def _pair_panel(axes: Axes, scenario: Scenario, marks: _Marks, first: int, second: int) -> None:
    analysis = scenario.analysis
    names = scenario.party_names
    points = analysis.points
    step = max(1, points.shape[0] // MAX_SCATTER_POINTS)
    axes.scatter(points[::step, first], points[::step, second], s=6, c="#cccccc", label="outcomes")
    frontier = analysis.frontier_points
    if len(names) == 2:
        line = frontier[frontier[:, first].argsort()]
        axes.plot(line[:, first], line[:, second], "o-", color="#2a9d8f", ms=4, label="Pareto frontier")
    else:  # the frontier of every party, seen from two of them: a cloud, not a curve
        axes.scatter(frontier[:, first], frontier[:, second], s=10, c="#2a9d8f", label="Pareto frontier")
    for label, index in marks.solutions:
        _mark_solution(axes, label, float(points[index, first]), float(points[index, second]))
    axes.axvline(analysis.reservation[first], ls=":", c="grey")
    axes.axhline(analysis.reservation[second], ls=":", c="grey")
    for colour, (party, offers) in zip(cycle(_OFFER_COLOURS), sorted(marks.offers.items()), strict=False):
        axes.plot(
            offers[:, first],
            offers[:, second],
            "o--",
            color=colour,
            ms=5,
            alpha=0.8,
            label=f"offers by {party}",
        )
    for number, agreement in enumerate(marks.agreements):
        axes.scatter(
            agreement[first],
            agreement[second],
            marker="X",
            s=200,
            c="black",
            zorder=6,
            label="agreement" if number == 0 else None,
        )
    axes.set_xlabel(f"utility of {names[first]}")
    axes.set_ylabel(f"utility of {names[second]}")


def _parallel_figure(scenario: Scenario, marks: _Marks) -> Figure:
    analysis = scenario.analysis
    names = scenario.party_names
    positions = np.arange(len(names))
    figure, axes = plt.subplots(figsize=(max(8.0, 1.5 * len(names) + 2.5), 5.5))
    frontier = analysis.normalized(analysis.frontier_points)
    step = max(1, frontier.shape[0] // MAX_PARALLEL_LINES)
    for number, row in enumerate(frontier[::step]):
        label = "Pareto frontier" if number == 0 else None
        axes.plot(positions, row, color="#bbbbbb", alpha=0.5, lw=0.8, label=label)
    for colour, (party, offers) in zip(cycle(_OFFER_COLOURS), sorted(marks.offers.items()), strict=False):
        for number, row in enumerate(analysis.normalized(offers)):
            label = f"offers by {party}" if number == 0 else None
            axes.plot(positions, row, "--", color=colour, alpha=0.4, lw=1, label=label)
    # Widest first, so solutions that coincide stay visible as nested lines.
    widths = {"max welfare": 7.0, "Kalai–Smorodinsky": 4.5, "Nash": 2.0}
    for label, index in sorted(marks.solutions, key=lambda mark: -widths[mark[0]]):
        row = analysis.normalized(analysis.points[index])
        axes.plot(
            positions, row, "o-", color=_SOLUTION_COLOUR[label], lw=widths[label], ms=6, label=label, zorder=5
        )
    for number, agreement in enumerate(marks.agreements):
        label = "agreement" if number == 0 else None
        axes.plot(
            positions, analysis.normalized(agreement), "X-", c="black", lw=2, ms=10, label=label, zorder=6
        )
    axes.axhline(0.0, ls=":", c="grey", label="BATNA")
    axes.set_xticks(positions, list(names))
    axes.set_ylabel("normalised utility (0 = BATNA, 1 = best outcome)")
    axes.set_title(f"{scenario.title}: {len(names)} parties")
    axes.legend(loc="upper left", bbox_to_anchor=(1.01, 1.0), fontsize=8)
    return figure


def _offers(
    scenario: Scenario, trajectory: Trajectory | None
) -> tuple[dict[str, FloatArray], tuple[FloatArray, ...]]:
    """Every party's utilities of each offer (by proposer) and of each agreement in a saved run.

    Raises:
        ValueError: a package is not in the scenario's space.
    """
    if trajectory is None:
        return {}, ()
    analysis = scenario.analysis
    by_party: dict[str, list[FloatArray]] = {}
    agreements: list[FloatArray] = []
    try:
        for event in trajectory:
            if event.kind == "action" and event.party and _is_proposal(event.payload):
                package = event.typed(Propose).package
                by_party.setdefault(event.party, []).append(analysis.utilities_of(package))
            elif event.kind == "agreement":
                agreements.append(analysis.utilities_of(event.typed(Agreement).terms))
    except (KeyError, TypeError, TrajectoryError) as error:
        raise ValueError(f"a package of the trajectory is not in {scenario.name}'s space: {error}") from None
    offers = {party: np.array(rows, dtype=np.float64) for party, rows in by_party.items()}
    return offers, tuple(agreements)


def _is_proposal(move: Payload) -> bool:
    """A proposal, or a move tagged "propose" that fits no type (refused by `_offers`, not skipped)."""
    return isinstance(move, Propose) or (
        isinstance(move, UntypedPayload) and move.data.get("kind") == "propose"
    )
