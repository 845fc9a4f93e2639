"""ProMediate metrics over a conversation trajectory: CC, TLE, RL, ME and MI (ProMediate §3.3).

Consensus Change (CC), Topic-Level Efficiency (TLE), Response Latency (RL), Mediator Effectiveness
(ME) and Mediator Intelligence (MI). All are pure functions of the trajectory: consensus is
recomputed from the recorded utterances with the consensus tracker (Algorithm 1).

The MI rubric here (`score_intervention`) is *the social mediator's own view*: it scores an
intervention with the breakdown detector and strategy table that mediator decides with, so it
favours that mediator by construction. The independent judge, which reads only what an
intervention changed, is `parley.metrics.impact`; `parley experiment promediate` reports that one
as MI and this rubric only as "MI (mediator's own view)".
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from parley.mediation.breakdowns import detect_breakdowns
from parley.mediation.conversation import BreakdownKind, ConversationView, Utterance
from parley.mediation.mediators import STRATEGY_FIT
from parley.protocol.events import Trajectory
from parley.protocol.payloads import AttitudeChange, Consensus, ConversationStarted, Preferences
from parley.simulation.consensus import AgreementScorer, Attitude, AttitudeExtractor, ConsensusTracker

TAU = 0.1
"""Drop size that starts a response-latency timer."""
WINDOW = 10
"""Turns within which a drop must happen; also CC's averaging window."""
SPAN = 5
"""Turns on each side of an intervention for ME's slopes."""


@dataclass(frozen=True, slots=True)
class ConversationRecord:
    """What the metrics need from a conversation trajectory.

    Attributes:
        parties: Participants.
        topics: Topics.
        options: Per topic, option → description.
        max_turns: Turn budget.
        initial: Per party and topic, the attitude at the start.
        turns: Per turn (1..N), the utterance spoken (None for a silent turn).
        times: Clock reading at the end of each turn (index 0 = start).
    """

    parties: tuple[str, ...]
    topics: tuple[str, ...]
    options: Mapping[str, Mapping[str, str]]
    max_turns: int
    initial: Mapping[str, Mapping[str, Attitude]]
    turns: tuple[Utterance | None, ...]
    times: tuple[float, ...]

    def view(self, turn: int) -> ConversationView:
        """The public record before turn (as a mediator saw it)."""
        said = tuple(u for u in self.turns[: turn - 1] if u is not None)
        silent = tuple(i + 1 for i, u in enumerate(self.turns[: turn - 1]) if u is None)
        return ConversationView(self.topics, self.options, self.parties, turn, self.max_turns, said, silent)


@dataclass(frozen=True, slots=True)
class ConsensusSeries:
    """Consensus after every turn.

    Attributes:
        group: Group consensus; index 0 is before the first turn, index t after turn t.
        topics: Per topic, the same.
        mentions: Per topic, the turns whose utterance mentioned it (participants only).
    """

    group: tuple[float, ...]
    topics: Mapping[str, tuple[float, ...]]
    mentions: Mapping[str, tuple[int, ...]]


@dataclass(frozen=True, slots=True)
class Latency:
    """One drop event and how long the mediator took to answer it.

    Attributes:
        start: Turn the drop is measured from.
        drop_turn: First turn at which consensus sat more than τ below its value at start.
        turns: Turns from drop_turn until the mediator next spoke (inf if never).
        seconds: The same on the conversation clock (inf if never).
    """

    start: int
    drop_turn: int
    turns: float
    seconds: float


@dataclass(frozen=True, slots=True)
class InterventionScore:
    """Mediator Intelligence for one intervention.

    Attributes:
        turn: Turn of the intervention.
        dimensions: Per breakdown kind, 1–5, or -1 where the kind was not present.
    """

    turn: int
    dimensions: Mapping[str, float]

    @property
    def mean(self) -> float:
        """Mean over applicable dimensions (nan if none applied)."""
        applicable = [v for v in self.dimensions.values() if v >= 0]
        return float(np.mean(applicable)) if applicable else math.nan


def read_record(trajectory: Trajectory) -> ConversationRecord:
    """Extract the conversation from a trajectory written by `parley.simulation`.

    Raises:
        ValueError: the trajectory is not a conversation (no "conversation_started" event), or
            (a TrajectoryError) an event's data does not fit its kind.
    """
    started = trajectory.of_kind("conversation_started")
    if not started:
        raise ValueError("trajectory has no 'conversation_started' event; is it a ProMediate conversation?")
    head = started[0].typed(ConversationStarted)
    initial = {
        e.party or "": _attitudes(e.typed(Preferences).attitudes) for e in trajectory.of_kind("preferences")
    }
    turns: list[Utterance | None] = []
    times: list[float] = [started[0].time]
    for event in trajectory.of_kind("utterance", "intervention", "silence"):
        turns.append(None if event.kind == "silence" else Utterance.from_json(event.data))
        times.append(event.time)
    return ConversationRecord(
        head.parties, head.topics, head.options, head.max_turns, initial, tuple(turns), tuple(times)
    )


def _attitudes(data: Mapping[str, Mapping[str, Any]]) -> dict[str, Attitude]:
    return {
        topic: Attitude(
            a.get("position"),
            frozenset(a.get("accepts", ())),
            frozenset(a.get("rejects", ())),
            float(a.get("tone", 0.0)),
            float(a.get("openness", 0.5)),
            bool(a.get("engaged", False)),
        )
        for topic, a in data.items()
    }


def consensus_series(
    record: ConversationRecord,
    extractor: AttitudeExtractor | None = None,
    scorer: AgreementScorer | None = None,
) -> ConsensusSeries:
    """Replay Algorithm 1 over the record's turns."""
    tracker = ConsensusTracker(record.parties, record.topics, record.initial, extractor, scorer)
    group = [tracker.consensus()]
    topics = {t: [tracker.topic_consensus(t)] for t in record.topics}
    mentions: dict[str, list[int]] = {t: [] for t in record.topics}
    for turn, utterance in enumerate(record.turns, start=1):
        for topic in tracker.update(utterance) if utterance is not None else []:
            mentions[topic].append(turn)
        group.append(tracker.consensus())
        for topic in record.topics:
            topics[topic].append(tracker.topic_consensus(topic))
    return ConsensusSeries(
        tuple(group), {t: tuple(v) for t, v in topics.items()}, {t: tuple(v) for t, v in mentions.items()}
    )


def consensus_change(group: Sequence[float], window: int = WINDOW) -> float:
    """CC: mean consensus over the last `window` turns minus the mean over the first `window` turns.

    Args:
        group: Consensus per turn, index 0 = before the first turn (excluded from both windows).
    """
    turns = list(group[1:])
    if not turns:
        return 0.0
    return float(np.mean(turns[-window:]) - np.mean(turns[:window]))


def topic_level_efficiency(series: ConsensusSeries) -> dict[str, float]:
    """TLE per topic: (final − initial agreement) / turns mentioning the topic (unmentioned ones left out)."""
    return {
        topic: (values[-1] - values[0]) / len(series.mentions[topic])
        for topic, values in series.topics.items()
        if series.mentions[topic]
    }


def drop_events(group: Sequence[float], tau: float = TAU, window: int = WINDOW) -> list[tuple[int, int]]:
    """(start, drop_turn) for every non-overlapping drop of more than tau within window turns."""
    events: list[tuple[int, int]] = []
    start = 0
    while start < len(group):
        drop = next(
            (
                t
                for t in range(start + 1, min(len(group), start + window + 1))
                if group[start] - group[t] > tau
            ),
            None,
        )
        if drop is None:
            start += 1
            continue
        events.append((start, drop))
        start = drop
    return events


def response_latency(
    group: Sequence[float],
    intervention_turns: Sequence[int],
    times: Sequence[float],
    tau: float = TAU,
    window: int = WINDOW,
) -> list[Latency]:
    """RL for every drop event: turns (and clock seconds) from the drop until the mediator next speaks."""
    latencies: list[Latency] = []
    for start, drop in drop_events(group, tau, window):
        answer = next((m for m in sorted(intervention_turns) if m > drop), None)
        if answer is None:
            latencies.append(Latency(start, drop, math.inf, math.inf))
        else:
            latencies.append(Latency(start, drop, float(answer - drop), float(times[answer] - times[drop])))
    return latencies


def slope(values: Sequence[float]) -> float:
    """Least-squares slope of values against 0, 1, 2, ... (0 for fewer than two points)."""
    if len(values) < 2:
        return 0.0
    return float(
        np.polyfit(np.arange(len(values), dtype=np.float64), np.asarray(values, dtype=np.float64), 1)[0]
    )


def mediator_effectiveness(
    series: ConsensusSeries, interventions: Sequence[Utterance], span: int = SPAN
) -> list[float]:
    """ME per intervention: slope of the targeted topic's agreement over the `span` turns after minus before.

    Interventions without a topic use group consensus; those without `span` ≥ 2 turns on either
    side are left out.
    """
    effects = [intervention_effectiveness(series, u, span) for u in interventions]
    return [e for e in effects if e is not None]


def intervention_effectiveness(
    series: ConsensusSeries, utterance: Utterance, span: int = SPAN
) -> float | None:
    """ME of one intervention (None without `span` ≥ 2 turns on either side; see `mediator_effectiveness`)."""
    values = series.topics.get(utterance.topic or "", series.group)
    turn = utterance.turn
    before = values[max(0, turn - span) : turn]
    after = values[turn + 1 : turn + 1 + span]
    if len(before) >= 2 and len(after) >= 2:
        return slope(after) - slope(before)
    return None


def score_intervention(record: ConversationRecord, utterance: Utterance) -> InterventionScore:
    """MI rubric for one intervention, the social mediator's own view (its detector and strategy
    table): per breakdown kind present before it, 1 (ignored), 3 (addressed in general) or 5
    (addressed with the parties or topic involved named); -1 where the kind was absent.
    """
    present = detect_breakdowns(record.view(utterance.turn))
    fit = STRATEGY_FIT.get(utterance.strategy, {}) if utterance.strategy else {}
    dimensions: dict[str, float] = {}
    for kind in BreakdownKind:
        found = [b for b in present if b.kind is kind]
        if not found:
            dimensions[kind.value] = -1.0
        elif fit.get(kind, 0.0) < 0.5:
            dimensions[kind.value] = 1.0
        else:
            specific = any(
                any(p in utterance.text for p in b.parties) or b.topic == utterance.topic for b in found
            )
            dimensions[kind.value] = 5.0 if specific else 3.0
    return InterventionScore(utterance.turn, dimensions)


def mediator_intelligence(record: ConversationRecord) -> list[InterventionScore]:
    """The MI rubric (the social mediator's own view) for every intervention in the record."""
    return [score_intervention(record, u) for u in record.turns if u is not None and u.is_intervention]


@dataclass(frozen=True, slots=True)
class ConversationMetrics:
    """All five ProMediate metrics for one conversation.

    Attributes:
        consensus_change: CC (fraction; × 100 for %).
        topic_efficiency: TLE, mean over mentioned topics (fraction per turn).
        latency_turns: RL in turns, mean over answered drop events (nan if no drops, inf if none
            answered). Drops are detected on each topic's consensus: group consensus averages
            pairs × topics and, with the deterministic scorer, almost never falls by τ = 0.1.
        latency_seconds: RL on the conversation clock, same convention.
        drops: Number of drop events (over all topics).
        effectiveness: ME, mean over interventions (nan if none).
        intelligence: MI, mean over interventions (nan if none).
        interventions: Number of interventions.
    """

    consensus_change: float
    topic_efficiency: float
    latency_turns: float
    latency_seconds: float
    drops: int
    effectiveness: float
    intelligence: float
    interventions: int

    def to_json(self) -> dict[str, float | int]:
        """JSON-ready dict."""
        return {
            "CC": self.consensus_change,
            "TLE": self.topic_efficiency,
            "RL_turns": self.latency_turns,
            "RL_seconds": self.latency_seconds,
            "drops": self.drops,
            "ME": self.effectiveness,
            "MI": self.intelligence,
            "interventions": self.interventions,
        }


def recorded_series(trajectory: Trajectory) -> ConsensusSeries:
    """The consensus the conversation tracked live, read from its ``consensus`` and ``attitude`` events.

    Use it when an LLM tracked consensus during the run (replaying Algorithm 1 with the rule
    tracker would score another judge's consensus); values are rounded to 6 decimals as recorded.
    """
    record = read_record(trajectory)
    group: list[float] = []
    topics: dict[str, list[float]] = {t: [] for t in record.topics}
    for event in trajectory.of_kind("consensus"):
        consensus = event.typed(Consensus)
        group.append(consensus.group)
        for topic in record.topics:
            topics[topic].append(consensus.topics[topic])
    mentions: dict[str, list[int]] = {t: [] for t in record.topics}
    for event in trajectory.of_kind("attitude"):
        for topic in event.typed(AttitudeChange).attitudes:
            mentions[topic].append(event.round)
    return ConsensusSeries(
        tuple(group), {t: tuple(v) for t, v in topics.items()}, {t: tuple(v) for t, v in mentions.items()}
    )


def conversation_metrics(
    trajectory: Trajectory,
    *,
    series: ConsensusSeries | None = None,
    intelligence: Sequence[InterventionScore] | None = None,
) -> ConversationMetrics:
    """CC, TLE, RL, ME and MI for a conversation trajectory.

    Args:
        trajectory: A conversation written by `parley.simulation`.
        series: Consensus per turn (default: Algorithm 1 replayed with the rule tracker).
        intelligence: MI per intervention (default: the rubric, `mediator_intelligence`).
    """
    record = read_record(trajectory)
    series = series if series is not None else consensus_series(record)
    interventions = [u for u in record.turns if u is not None and u.is_intervention]
    tle = topic_level_efficiency(series)
    turns = [u.turn for u in interventions]
    latencies = [
        lat for values in series.topics.values() for lat in response_latency(values, turns, record.times)
    ]
    effects = mediator_effectiveness(series, interventions)
    scores = intelligence if intelligence is not None else mediator_intelligence(record)
    intelligence_means = [s.mean for s in scores if not math.isnan(s.mean)]
    return ConversationMetrics(
        consensus_change(series.group),
        float(np.mean(list(tle.values()))) if tle else math.nan,
        _mean_latency([lat.turns for lat in latencies]),
        _mean_latency([lat.seconds for lat in latencies]),
        len(latencies),
        float(np.mean(effects)) if effects else math.nan,
        float(np.mean(intelligence_means)) if intelligence_means else math.nan,
        len(interventions),
    )


def _mean_latency(values: Sequence[float]) -> float:
    if not values:
        return math.nan
    finite = [v for v in values if math.isfinite(v)]
    return float(np.mean(finite)) if finite else math.inf
