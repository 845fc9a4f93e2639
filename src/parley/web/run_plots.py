"""The run browser's plots, drawn on the server with matplotlib (headless Agg) and served as PNG.

PNG rather than SVG: an image holds no text a browser could run, whatever a party or topic is
called. pyplot keeps global state, so figures are drawn one at a time under a lock.
"""

from __future__ import annotations

import io
import threading
from collections.abc import Iterable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

from parley.protocol.actions import Propose
from parley.protocol.events import Event, Trajectory
from parley.protocol.payloads import StateTransition
from parley.scenarios.model import Scenario

if TYPE_CHECKING:
    from matplotlib.figure import Figure

__all__ = ["PLOT_NAMES", "consensus_png", "outcomes_png", "tci_png", "utility_png"]

PLOT_NAMES: Mapping[str, tuple[str, ...]] = {
    "play": ("outcomes", "utility"),
    "game": ("outcomes", "utility"),
    "mediation": ("consensus",),
    "delegate": ("tci",),
    "tournament": (),
}
"""The plots each kind of run has."""
_DPI = 100
_lock = threading.Lock()


def _png(figure: Figure) -> bytes:
    from parley.experiments.plots import plt

    buffer = io.BytesIO()
    try:
        figure.tight_layout()
        figure.savefig(buffer, format="png", dpi=_DPI)
    finally:
        plt.close(figure)
    return buffer.getvalue()


def outcomes_png(scenario: Scenario, trajectory: Trajectory) -> bytes:
    """Every outcome with the Pareto frontier, the Nash point and the run's offers (two parties: one scatter).

    Raises:
        ValueError: the space is too large to enumerate, or an offer is not in the space.
    """
    from parley.experiments.plots import outcome_space_figure

    with _lock:
        figure = outcome_space_figure(scenario, trajectory)
        figure.set_size_inches(7.0, 5.6)
        return _png(figure)


def utility_png(scenario: Scenario, trajectory: Trajectory) -> bytes:
    """Each party's utility of every offer, by round, with the parties' walk-away values dashed.

    Raises:
        ValueError: an offer is not in the scenario's space.
    """
    from parley.experiments.plots import plt

    offers = [
        (event.round, str(event.party), move.package)
        for event in trajectory
        if event.kind == "action" and isinstance(move := event.payload, Propose)
    ]
    with _lock:
        figure, axes = plt.subplots(figsize=(7.0, 4.0))
        for index, party in enumerate(scenario.parties):
            colour = f"C{index}"
            rounds = [r for r, _, _ in offers]
            values = [party.utility.evaluate(package) for _, _, package in offers]
            axes.plot(rounds, values, "-", color=colour, alpha=0.5)
            for proposer_index, proposer in enumerate(scenario.party_names):
                mine = [(r, v) for (r, who, _), v in zip(offers, values, strict=True) if who == proposer]
                if mine:
                    marker = "o" if proposer_index == 0 else "s"
                    axes.plot(
                        [r for r, _ in mine],
                        [v for _, v in mine],
                        marker,
                        color=colour,
                        label=f"{party.name}'s utility of {proposer}'s offers"[:60],
                    )
            axes.axhline(party.utility.reservation_value, ls=":", color=colour)
        axes.set_xlabel("round")
        axes.set_ylabel("utility (dotted: walk-away value)")
        axes.set_title(scenario.title[:80])
        axes.legend(fontsize=7, loc="best")
        return _png(figure)


def consensus_png(trajectory: Trajectory) -> bytes:
    """Group and per-topic consensus over the conversation, with a line at each intervention.

    Raises:
        ValueError: the trajectory is not a conversation.
    """
    from parley.experiments.plots import plt
    from parley.metrics.consensus import recorded_series

    series = recorded_series(trajectory)
    interventions = [event.round for event in trajectory if event.kind == "intervention"]
    with _lock:
        figure, axes = plt.subplots(figsize=(7.5, 4.0))
        for turn in interventions:
            axes.axvline(turn, color="0.75", linewidth=1)
        for topic, values in series.topics.items():
            axes.plot(range(len(values)), values, label=str(topic)[:32], alpha=0.8)
        axes.plot(range(len(series.group)), series.group, color="black", linewidth=2.2, label="group")
        if interventions:
            axes.plot([], [], color="0.75", label="intervention")
        axes.set_xlabel("turn")
        axes.set_ylabel("consensus")
        axes.legend(fontsize=7, loc="best")
        return _png(figure)


def tci_png(trajectory: Trajectory, thresholds: Sequence[tuple[str, float]] = ()) -> bytes:
    """Weighted TCI (Task Completeness Index) after each state change, escalations marked."""
    from parley.experiments.plots import plt

    points = tci_points(trajectory)
    escalations = [event.round for event in trajectory if event.kind == "escalation"]
    with _lock:
        figure, axes = plt.subplots(figsize=(7.0, 3.6))
        axes.plot([p["turn"] for p in points], [p["tci"] for p in points], "o-", color="C0", label="TCI")
        for turn in escalations:
            axes.axvline(turn, color="C3", linewidth=1, linestyle="--")
        if escalations:
            axes.plot([], [], color="C3", linestyle="--", label="escalation")
        for label, value in thresholds:
            axes.axhline(value, color="0.6", linestyle=":", label=label)
        axes.set_ylim(-0.02, 1.02)
        axes.set_xlabel("counterparty turn")
        axes.set_ylabel("weighted TCI")
        axes.legend(fontsize=8, loc="lower right")
        return _png(figure)


def tci_points(trajectory: Iterable[Event]) -> list[dict[str, Any]]:
    """(turn, weighted TCI, state) after every state transition of a delegate session."""
    return [
        {
            "turn": event.round,
            "tci": 0.0 if moved.tci_weighted is None else moved.tci_weighted,
            "state": moved.to,
        }
        for event in trajectory
        if event.kind == "state_transition" and isinstance(moved := event.payload, StateTransition)
    ]
