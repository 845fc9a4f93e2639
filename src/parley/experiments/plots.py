"""Plots over outcome spaces and trajectories (matplotlib, headless)."""

from __future__ import annotations

from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt
from matplotlib.axes import Axes
from matplotlib.figure import Figure

from parley.protocol.events import Trajectory
from parley.scenarios.model import Scenario

MAX_SCATTER_POINTS = 200_000


def save_figure(figure: Figure, path: Path, *, dpi: int = 110) -> Path:
    """Lay the figure out, write it as a PNG (creating its folder) and free it."""
    figure.tight_layout()
    path.parent.mkdir(parents=True, exist_ok=True)
    figure.savefig(path, dpi=dpi)
    plt.close(figure)
    return path


def plot_outcome_space(scenario: Scenario, path: Path, trajectory: Trajectory | None = None) -> Path:
    """Scatter every outcome in the first two parties' utilities, the Pareto frontier, Nash and
    Kalai points and, if given, the offers of a saved run (as in the ASTRA paper's figure 7).

    Raises:
        ValueError: the space is too large to enumerate.
    """
    analysis = scenario.analysis
    names = scenario.party_names
    points = analysis.points
    step = max(1, points.shape[0] // MAX_SCATTER_POINTS)
    figure, axes = plt.subplots(figsize=(7, 6))
    axes.scatter(points[::step, 0], points[::step, 1], s=6, c="#cccccc", label="outcomes")
    frontier = analysis.frontier_points[analysis.frontier_points[:, 0].argsort()]
    axes.plot(frontier[:, 0], frontier[:, 1], "o-", color="#2a9d8f", ms=4, label="Pareto frontier")
    if analysis.kalai is not None:  # hollow, so a coinciding Nash point stays visible inside it
        axes.scatter(
            *points[analysis.kalai, :2],
            marker="D",
            s=260,
            facecolors="none",
            edgecolors="#e76f51",
            linewidths=2,
            zorder=5,
            label="Kalai–Smorodinsky",
        )
    if analysis.nash is not None:
        axes.scatter(*points[analysis.nash, :2], marker="*", s=160, c="#264653", zorder=6, label="Nash")
    axes.axvline(analysis.reservation[0], ls=":", c="grey")
    axes.axhline(analysis.reservation[1], ls=":", c="grey")
    if trajectory is not None:
        _plot_offers(axes, scenario, trajectory)
    axes.set_xlabel(f"utility of {names[0]}")
    axes.set_ylabel(f"utility of {names[1]}")
    axes.set_title(scenario.title)
    axes.legend(loc="lower left", fontsize=8)
    return save_figure(figure, path, dpi=120)


def _plot_offers(axes: Axes, scenario: Scenario, trajectory: Trajectory) -> None:
    colours = ("#1d3557", "#e63946", "#f4a261", "#6a4c93")
    utilities = scenario.utilities()
    by_party: dict[str, list[tuple[float, float]]] = {}
    for event in trajectory:
        if event.kind == "action" and event.data.get("kind") == "propose" and event.party:
            package = event.data["package"]
            by_party.setdefault(event.party, []).append(
                (utilities[0].evaluate(package), utilities[1].evaluate(package))
            )
    for index, (party, offers) in enumerate(sorted(by_party.items())):
        xs, ys = zip(*offers, strict=True)
        axes.plot(
            xs, ys, "o--", color=colours[index % len(colours)], ms=5, alpha=0.8, label=f"offers by {party}"
        )
    for event in trajectory.of_kind("agreement"):
        terms = event.data["terms"]
        axes.scatter(
            utilities[0].evaluate(terms),
            utilities[1].evaluate(terms),
            marker="X",
            s=200,
            c="black",
            zorder=6,
            label="agreement",
        )
