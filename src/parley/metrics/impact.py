"""Mediator Intelligence (MI) judged by impact: what an intervention changed, against a counterfactual.

The judge looks only at what happened after an intervention: consensus on the topics it covered,
and how many pairs of participants hold the same position there, `HORIZON` turns later. It compares
them with a matched counterfactual: the same conversation state played on without the intervention
(`judge_fork`, built by the experiment from the live simulator with common random numbers), or,
where no simulator can be forked (LLM participants), the pre-intervention trend extrapolated
(`judge_trend`). It shares nothing with the mediators' decisions: no breakdown detector, strategy
table or threshold of theirs is imported (a test checks the imports).
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from parley.mediation.conversation import Utterance

HORIZON = 5
"""Turns after the intervention at which its impact is read (the seed's ME window; fixed a priori)."""
EPSILON = 1e-9
"""Gains within this of zero count as no change."""


@dataclass(frozen=True, slots=True)
class BranchState:
    """What the judge reads at the end of one branch of the conversation.

    Attributes:
        topic_consensus: Per topic, the consensus (mean pairwise agreement, 0–1).
        positions: Per participant and topic, the option it is perceived to hold (None: unknown).
    """

    topic_consensus: Mapping[str, float]
    positions: Mapping[str, Mapping[str, str | None]]


@dataclass(frozen=True, slots=True)
class ImpactScore:
    """The judged impact of one intervention.

    Attributes:
        turn: Turn of the intervention.
        topics: The topics it covered (every topic when it named none).
        consensus_gain: Consensus on those topics, factual minus counterfactual, at the horizon
            (consensus points, 0–1 scale).
        position_gain: Share of participant pairs holding the same position on those topics,
            factual minus counterfactual (nan for the trend counterfactual, which has no positions).
        counterfactual: "fork" (same state without the intervention) or "trend" (pre-intervention trend).
    """

    turn: int
    topics: tuple[str, ...]
    consensus_gain: float
    position_gain: float
    counterfactual: str

    @property
    def helpful(self) -> bool:
        """Whether consensus ended higher than without the intervention."""
        return self.consensus_gain > EPSILON

    @property
    def harmful(self) -> bool:
        """Whether consensus ended lower than without the intervention."""
        return self.consensus_gain < -EPSILON

    def to_json(self) -> dict[str, object]:
        """A JSON-ready dict (nan as None)."""
        return {
            "turn": self.turn,
            "topics": list(self.topics),
            "consensus_gain": _finite(self.consensus_gain),
            "position_gain": _finite(self.position_gain),
            "counterfactual": self.counterfactual,
        }


def _finite(value: float) -> float | None:
    return round(value, 6) if math.isfinite(value) else None


def covered_topics(utterance: Utterance, topics: Sequence[str]) -> tuple[str, ...]:
    """The topics an intervention covers, read from its content: its package's, else its topic, else all."""
    named = [t for t in (utterance.package or {}) if t in topics]
    if named:
        return tuple(named)
    if utterance.topic in topics:
        return (str(utterance.topic),)
    return tuple(topics)


def position_agreement(positions: Mapping[str, Mapping[str, str | None]], topics: Sequence[str]) -> float:
    """Share of (pair of participants, topic) where both hold the same known position (0 without pairs)."""
    pairs = list(itertools.combinations(sorted(positions), 2))
    cells = [(a, b, t) for a, b in pairs for t in topics]
    if not cells:
        return 0.0
    same = sum(
        1 for a, b, t in cells if (held := positions[a].get(t)) is not None and held == positions[b].get(t)
    )
    return same / len(cells)


def judge_fork(
    turn: int,
    topics: Sequence[str],
    factual: Sequence[BranchState],
    counterfactual: Sequence[BranchState],
) -> ImpactScore:
    """Impact against the same state played on without the intervention, averaged over paired replicates.

    Raises:
        ValueError: no replicate, unequal replicate counts, or a topic missing from a branch.
    """
    if not factual or len(factual) != len(counterfactual):
        raise ValueError(f"need paired replicates, got {len(factual)} factual and {len(counterfactual)}")
    for state in (*factual, *counterfactual):
        missing = [t for t in topics if t not in state.topic_consensus]
        if missing:
            raise ValueError(f"branch has no consensus for topics {missing}")
    consensus = [
        float(np.mean([f.topic_consensus[t] - c.topic_consensus[t] for t in topics]))
        for f, c in zip(factual, counterfactual, strict=True)
    ]
    positions = [
        position_agreement(f.positions, topics) - position_agreement(c.positions, topics)
        for f, c in zip(factual, counterfactual, strict=True)
    ]
    return ImpactScore(turn, tuple(topics), float(np.mean(consensus)), float(np.mean(positions)), "fork")


def judge_trend(
    turn: int, topics: Sequence[str], series: Mapping[str, Sequence[float]], horizon: int = HORIZON
) -> ImpactScore | None:
    """Impact against the pre-intervention trend: consensus at turn + horizon minus the value the
    `horizon` + 1 turns before the intervention extrapolate to (a least-squares line).

    Args:
        series: Per topic, consensus after each turn (index 0 = before the first turn).

    Returns:
        None when the conversation ends before turn + horizon or the intervention is on turn 1.
    """
    if turn < 2 or horizon < 1 or any(turn + horizon >= len(series[t]) for t in topics):
        return None
    gains: list[float] = []
    for topic in topics:
        values = np.asarray(series[topic], dtype=np.float64)
        before = values[max(0, turn - 1 - horizon) : turn]
        steps = np.arange(before.size, dtype=np.float64)
        trend = float(np.polyfit(steps, before, 1)[0]) if before.size >= 2 else 0.0
        expected = float(before[-1]) + trend * (horizon + 1)
        gains.append(float(values[turn + horizon]) - expected)
    return ImpactScore(turn, tuple(topics), float(np.mean(gains)), math.nan, "trend")


def judge_record(
    interventions: Sequence[Utterance], series: Mapping[str, Sequence[float]], horizon: int = HORIZON
) -> list[ImpactScore]:
    """`judge_trend` for every intervention of a recorded conversation (those too late are left out)."""
    topics = list(series)
    scores = [judge_trend(u.turn, covered_topics(u, topics), series, horizon) for u in interventions]
    return [s for s in scores if s is not None]
