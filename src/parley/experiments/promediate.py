"""The ProMediate Table 1 experiment and the LLM-Deliberation mediation comparison.

`run_grid` plays 6 cases × 4 conflict modes × 3 mediators × N runs (process-parallel), `summarise`
turns the rows into Table 1 with 95% confidence intervals, and `write_report` writes the markdown
report with the consensus-trajectory and ME–MI figures, and the LLM-Deliberation comparison
(`parley.experiments.deliberation`) when its rows are given.
"""

from __future__ import annotations

import copy
import math
import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, replace
from functools import cache
from pathlib import Path
from typing import Any, Literal

import numpy as np

from parley.experiments.batch import TaskStore, map_specs
from parley.experiments.seeds import describe_split
from parley.mediation.conversation import Utterance
from parley.mediation.mediators import NoAgentMediator, create_mediator
from parley.metrics.consensus import (
    ConsensusSeries,
    ConversationMetrics,
    InterventionScore,
    conversation_metrics,
    intervention_effectiveness,
    mediator_intelligence,
    read_record,
)
from parley.metrics.impact import HORIZON, BranchState, ImpactScore, covered_topics, judge_fork, judge_record
from parley.metrics.stats import Estimate, mean_ci
from parley.protocol.events import Trajectory
from parley.scenarios.importers.promediate import PROMEDIATE_CASES, load_promediate_case
from parley.scenarios.model import Scenario
from parley.simulation.behaviour import DEFAULT_BEHAVIOUR
from parley.simulation.conversation import Conversation, ConversationResult
from parley.simulation.modes import MODE_PROFILES, ConflictMode
from parley.simulation.participants import Participant, SimulatedParticipant

MODES: tuple[ConflictMode, ...] = (
    ConflictMode.ACCOMMODATING,
    ConflictMode.AVOIDING,
    ConflictMode.GENERAL,
    ConflictMode.COMPETING,
)
"""Column order of the seed's Table 1."""
MEDIATOR_NAMES: tuple[str, ...] = ("none", "generic", "social")
"""NoAgent, Generic, Social."""
METRIC_KEYS: tuple[str, ...] = (
    "CC",
    "TLE",
    "RL_turns",
    "RL_seconds",
    "ME",
    "MI",
    "MI_positions",
    "MI_rubric",
    "interventions",
    "drops",
)
"""Per-conversation metrics kept in every row (MI: the independent impact judge; MI_rubric: the
social mediator's own view)."""

TUNING_SEEDS: tuple[int, ...] = tuple(range(5))
"""Seeds the testbed and mediators were developed on (the old default `--runs 5` played 0–4):
figures on them are tuning figures."""
EVALUATION_SEEDS: tuple[int, ...] = tuple(range(100, 110))
"""Seeds never used for development or tuning (disjoint from `TUNING_SEEDS`), for the evaluation figures."""
SEED_SPLITS: dict[str, tuple[int, ...]] = {"tuning": TUNING_SEEDS, "evaluation": EVALUATION_SEEDS}
"""The experiment's seed split, by name (`parley experiment promediate --split`)."""
REPLICATES = 1
"""Paired continuations per intervention for the impact judge (common random numbers in both branches)."""


def describe_seeds(seeds: Sequence[int]) -> str:
    """The seeds in words, with the split they belong to."""
    return describe_split(
        seeds,
        tuning=TUNING_SEEDS,
        evaluation=EVALUATION_SEEDS,
        tuning_role="the testbed and mediators were developed on these seeds",
        evaluation_role="never used for development or tuning",
    )


@dataclass(frozen=True, slots=True)
class Cell:
    """One experimental condition: a case in a conflict mode with a mediator."""

    case: str
    mode: str
    mediator: str


@dataclass(frozen=True, slots=True)
class Variation:
    """One behavioural parameter of the simulated participants set to another value (sensitivity).

    Attributes:
        kind: "behaviour" (a `ParticipantBehaviour` field), "profile" (a `ModeProfile` field, scaled
            in every mode) or "speaking" (a `SpeakingSettings` field of every party).
        name: The field.
        level: "low" or "high".
        value: The value (behaviour), the factor (profile), or the offset (speaking).
    """

    kind: Literal["behaviour", "profile", "speaking"]
    name: str
    level: Literal["low", "high"]
    value: float

    @property
    def label(self) -> str:
        """How the report names it ("naming_concession = 1", "concession_rate × 0.5")."""
        if self.kind == "profile":
            return f"{self.name} × {self.value:g}"
        if self.kind == "speaking":
            sign = "+" if self.value >= 0 else "−"
            return f"{self.name} {sign} {abs(self.value):g}"
        return f"{self.name} = {self.value:g}"


@cache
def promediate_case(name: str) -> Scenario:
    """A ProMediate case, loaded once per process."""
    return load_promediate_case(name)


def varied_participants(
    scenario: Scenario, mode: ConflictMode, seed: int, variation: Variation | None
) -> dict[str, Participant] | None:
    """The simulated participants with one parameter varied (None: the defaults, built by the loop)."""
    if variation is None:
        return None
    from parley.simulation.conversation import simulated_participants

    participants = simulated_participants(scenario, mode, seed)
    varied: dict[str, Participant] = {}
    for name, participant in participants.items():
        assert isinstance(participant, SimulatedParticipant)
        varied[name] = _vary(participant, mode, variation)
    return varied


def _vary(
    participant: SimulatedParticipant, mode: ConflictMode, variation: Variation
) -> SimulatedParticipant:
    if variation.kind == "behaviour":
        behaviour = replace(DEFAULT_BEHAVIOUR, **{variation.name: variation.value})
        return replace(participant, behaviour=behaviour)
    if variation.kind == "profile":
        base = MODE_PROFILES[mode]
        profile = replace(base, **{variation.name: getattr(base, variation.name) * variation.value})
        return replace(participant, mode_profile=profile)
    settings = participant.speaking
    shifted = getattr(settings, variation.name) + variation.value
    value = min(1.0, max(0.0, shifted)) if variation.name == "system1_prob" else shifted
    return replace(participant, speaking=replace(settings, **{variation.name: value}))


class ForkingConversation(Conversation):
    """A conversation that keeps a snapshot of its state just before each intervention is delivered,
    so the impact judge can play the same state on with and without it."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.snapshots: list[tuple[Conversation, Utterance]] = []
        self.forking = True

    def _deliver(self, utterance: Utterance, kind: str) -> Utterance:
        if kind == "intervention" and self.forking:
            self.snapshots.append((self.snapshot(), utterance))
        return super()._deliver(utterance, kind)

    def snapshot(self) -> Conversation:
        """A deep copy of the state (without the event log, hooks or earlier snapshots)."""
        kept = (self.trajectory, self.on_event, self.snapshots)
        self.trajectory, self.on_event, self.snapshots = Trajectory(), None, []
        try:
            return copy.deepcopy(self, _shared(self))
        finally:
            self.trajectory, self.on_event, self.snapshots = kept


def _shared(conversation: Conversation) -> dict[int, Any]:
    """deepcopy's memo of what branches may share: the scenario, the parties' utilities and
    the immutable records (utterances, perceived attitudes) are never changed in place."""
    scenario = conversation.scenario
    memo: dict[int, Any] = {id(scenario): scenario, id(conversation.options): conversation.options}
    for party in scenario.parties:
        memo[id(party.utility)] = party.utility
    for utterance in conversation.utterances:
        memo[id(utterance)] = utterance
    for held in conversation.tracker.attitudes.values():
        for attitude in held.values():
            memo[id(attitude)] = attitude
    return memo


def fork_impact(
    snapshot: Conversation, intervention: Utterance, seed: int, replicates: int = REPLICATES
) -> ImpactScore | None:
    """Judge one intervention: play the snapshot on `HORIZON` turns with it and without it (the
    mediator silent afterwards in both), reseeding the participants identically in both branches.

    Returns:
        None when fewer than two turns remain after the intervention.
    """
    turn = intervention.turn
    end = min(snapshot.max_turns, turn + HORIZON)
    if end - turn < 2:
        return None
    factual: list[BranchState] = []
    counterfactual: list[BranchState] = []
    for replicate in range(replicates):
        key = (seed, turn, replicate)
        factual.append(_branch(snapshot, key, turn, end, intervention))
        counterfactual.append(_branch(snapshot, key, turn, end, None))
    topics = covered_topics(intervention, snapshot.topics)
    return judge_fork(turn, topics, factual, counterfactual)


def _branch(
    snapshot: Conversation, key: tuple[int, int, int], turn: int, end: int, intervention: Utterance | None
) -> BranchState:
    branch = copy.deepcopy(snapshot, _shared(snapshot))
    branch.mediator = NoAgentMediator()
    if isinstance(branch, ForkingConversation):
        branch.forking = False
    streams = np.random.SeedSequence(list(key)).spawn(len(branch.participants))
    for participant, stream in zip(branch.participants.values(), streams, strict=True):
        if isinstance(participant, SimulatedParticipant):
            participant.rng = np.random.default_rng(stream)
    first = turn
    if intervention is not None:
        branch.intervene(intervention)
        first = turn + 1
    for step in range(first, end + 1):
        branch.step(step)
    return BranchState(
        {t: branch.topic_series[t][-1] for t in branch.topics},
        {p: {t: a.position for t, a in branch.tracker.attitudes[p].items()} for p in branch.parties},
    )


def play_run(cell: Cell, seed: int, variation: Variation | None = None) -> dict[str, Any]:
    """Play one conversation of a condition with one seed and score it: the experiment's per-run unit."""
    started = time.perf_counter()
    scenario, mode = promediate_case(cell.case), ConflictMode(cell.mode)
    conversation = ForkingConversation(
        scenario,
        create_mediator(cell.mediator),
        mode=mode,
        seed=seed,
        participants=varied_participants(scenario, mode, seed, variation),
    )
    result = conversation.run()
    metrics = conversation_metrics(result.trajectory)
    impacts = [fork_impact(snap, said, seed) for snap, said in conversation.snapshots]
    judged = [i for i in impacts if i is not None]
    return conversation_row(cell, seed, result, metrics, time.perf_counter() - started, judged)


def run_cell(cell: Cell, seeds: Sequence[int], variation: Variation | None = None) -> list[dict[str, Any]]:
    """Play every seed of one condition; conditions are paired by seed."""
    rows: list[dict[str, Any]] = []
    for seed in seeds:
        rows.append(play_run(cell, seed, variation))
    return rows


def conversation_row(
    cell: Cell,
    run: int,
    result: ConversationResult,
    metrics: ConversationMetrics,
    seconds: float,
    impacts: Sequence[ImpactScore] | None = None,
) -> dict[str, Any]:
    """One conversation's row: its condition, seed (`run`), metrics, per-intervention scores,
    consensus series and wall time (s).

    Args:
        impacts: The impact judge's scores (default: against the pre-intervention trend, for
            conversations whose simulator cannot be forked).
    """
    interventions = [u for u in result.utterances if u.is_intervention]
    series = ConsensusSeries(result.consensus, result.topic_consensus, {})
    judged = list(impacts) if impacts is not None else judge_record(interventions, result.topic_consensus)
    rubric = {s.turn: s for s in mediator_intelligence(read_record(result.trajectory))}
    by_turn = {i.turn: i for i in judged}
    per_intervention = [
        _intervention_row(u, series, by_turn.get(u.turn), rubric.get(u.turn)) for u in interventions
    ]
    gains = [i.consensus_gain for i in judged]
    positions = [i.position_gain for i in judged if math.isfinite(i.position_gain)]
    return {
        "case": cell.case,
        "mode": cell.mode,
        "mediator": cell.mediator,
        "run": run,
        **metrics.to_json(),
        "MI_rubric": metrics.intelligence,
        "MI": float(np.mean(gains)) if gains else math.nan,
        "MI_positions": float(np.mean(positions)) if positions else math.nan,
        "MI_judged": len(judged),
        "MI_helpful": sum(1 for i in judged if i.helpful),
        "MI_harmful": sum(1 for i in judged if i.harmful),
        "MI_counterfactual": judged[0].counterfactual if judged else None,
        "per_intervention": per_intervention,
        "consensus": [round(v, 5) for v in result.consensus],
        "intervention_turns": list(result.interventions),
        "seconds": seconds,
    }


def _intervention_row(
    utterance: Utterance,
    series: ConsensusSeries,
    impact: ImpactScore | None,
    rubric: InterventionScore | None,
) -> dict[str, Any]:
    effect = intervention_effectiveness(series, utterance)
    return {
        "turn": utterance.turn,
        "ME": effect,
        "MI": impact.consensus_gain if impact is not None else None,
        "MI_positions": impact.position_gain
        if impact is not None and math.isfinite(impact.position_gain)
        else None,
        "MI_rubric": rubric.mean if rubric is not None and math.isfinite(rubric.mean) else None,
    }


def grid(
    cases: Sequence[str] = PROMEDIATE_CASES,
    modes: Sequence[ConflictMode] = MODES,
    mediators: Sequence[str] = MEDIATOR_NAMES,
) -> list[Cell]:
    """Every condition of the Table 1 design (mediators may include "llm-generic", "llm-social")."""
    return [Cell(case, mode.value, mediator) for case in cases for mode in modes for mediator in mediators]


def seed_list(runs: int | Sequence[int]) -> tuple[int, ...]:
    """The seeds to play: 0..runs-1 for a count, else the seeds given (in order, once each)."""
    return tuple(range(runs)) if isinstance(runs, int) else tuple(dict.fromkeys(int(s) for s in runs))


def run_grid(
    cells: Sequence[Cell],
    runs: int | Sequence[int],
    *,
    jobs: int = 1,
    on_progress: Callable[[int, int], None] | None = None,
    variation: Variation | None = None,
    store: TaskStore | None = None,
    scheduler: str | None = None,
) -> list[dict[str, Any]]:
    """Run every cell for every seed (`runs`: a count 0..N-1 or the seeds) through the batch layer, in
    `jobs` processes or on a Dask scheduler, resuming from store; rows come back in cell order."""
    specs = [ConversationSpec(cell, seed, variation) for cell in cells for seed in seed_list(runs)]
    finished = 0

    def advance(count: int) -> None:
        nonlocal finished
        finished += count
        if on_progress is not None:
            on_progress(finished, len(specs))

    rows = map_specs(specs, play_task, store, jobs=jobs, scheduler=scheduler, on_progress=advance)
    return [row for task in rows for row in task]


@dataclass(frozen=True, slots=True)
class ConversationSpec:
    """One conversation of the grid: the batch layer's task (`parley.experiments.batch`)."""

    cell: Cell
    seed: int
    variation: Variation | None = None


def play_task(spec: ConversationSpec) -> list[dict[str, Any]]:
    """Play one conversation: its row, as the batch layer stores it."""
    return [play_run(spec.cell, spec.seed, spec.variation)]


def summarise(rows: Iterable[Mapping[str, Any]]) -> dict[tuple[str, str], dict[str, Estimate]]:
    """Per (mode, mediator): mean and 95% CI of every metric over cases × runs (inf/nan skipped)."""
    groups: dict[tuple[str, str], list[Mapping[str, Any]]] = {}
    for row in rows:
        groups.setdefault((row["mode"], row["mediator"]), []).append(row)
    return {
        key: {m: mean_ci(float(r[m]) for r in group) for m in METRIC_KEYS} for key, group in groups.items()
    }


def never_answered(rows: Iterable[Mapping[str, Any]]) -> dict[tuple[str, str], tuple[int, int]]:
    """Per (mode, mediator): conversations with RL = +∞ (drops never answered), and those with any drop."""
    counts: dict[tuple[str, str], list[int]] = {}
    for row in rows:
        entry = counts.setdefault((row["mode"], row["mediator"]), [0, 0])
        if row["drops"] > 0:
            entry[1] += 1
            entry[0] += int(math.isinf(float(row["RL_turns"])))
    return {key: (value[0], value[1]) for key, value in counts.items()}


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
    """Write the markdown report and its figures (see `parley.experiments.promediate_report`)."""
    from parley.experiments.promediate_report import write_report as write

    return write(
        rows,
        out,
        seeds=seeds,
        deliberation=deliberation,
        command=command,
        llm_section=llm_section,
        sensitivity=sensitivity,
        sensitivity_seeds=sensitivity_seeds,
    )
