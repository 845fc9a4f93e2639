"""What the run browser shows of one run: a summary, the transcript, ASTRA's decision trace, the
tournament table, the plots it has, and the rating form that applies.

Every string from a run (party names, messages, errors) goes into a `Served` model, so it reaches
the page printable and is inserted there as text.
"""

from __future__ import annotations

import contextlib
import math
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from parley.metrics.stats import Estimate
from parley.protocol.actions import Accept, Propose, Reject, Say, Walk
from parley.protocol.events import Event, Trajectory
from parley.protocol.governed import CounterpartyMessage, Decision, DelegateMessage, Escalation
from parley.protocol.payloads import Said, Trace
from parley.scenarios.model import Scenario
from parley.web.models import Served
from parley.web.ratings import (
    INSTRUMENTS,
    RATINGS_FILE,
    Instrument,
    instrument_for,
    latest_ratings,
    read_ratings,
)
from parley.web.run_plots import PLOT_NAMES, tci_points
from parley.web.runs import as_list, as_object, read_object, read_trajectory, scenario_name

MAX_LINES = 2000
"""Most transcript lines or tournament failures shown."""


class Fact(Served):
    """One labelled value of a run's summary."""

    label: str
    value: str


class Line(Served):
    """One line of a run's transcript."""

    round: int
    speaker: str
    kind: str
    text: str


class TraceBlock(Served):
    """ASTRA's decision trace of one move, as text."""

    round: int
    party: str
    text: str


class Interval(Served):
    """A mean with its 95% Student-t interval (None where there is no value)."""

    mean: float | None
    low: float | None
    high: float | None
    count: int

    @classmethod
    def of(cls, estimate: Estimate) -> Interval:
        """From an estimate (NaN becomes None: the JSON stays strict)."""

        def finite(value: float) -> float | None:
            return value if math.isfinite(value) else None

        return cls(
            mean=finite(estimate.mean),
            low=finite(estimate.low),
            high=finite(estimate.high),
            count=estimate.count,
        )


class TournamentRow(Served):
    """One agent's line of a tournament table."""

    agent: str
    games: int
    failed: int
    normalized_utility: Interval
    utility: Interval
    agreement_rate: Interval
    walk_rate: Interval
    rounds: Interval
    pareto_distance: Interval
    llm_fallback_share: float | None
    first_error: str


class FailedGame(Served):
    """A failed game of a tournament."""

    game: str
    agent: str
    error: str


class TournamentTable(Served):
    """A tournament's per-agent table and its failed games."""

    rows: list[TournamentRow]
    failed: list[FailedGame]
    total_rows: int


class ItemModel(Served):
    """One Likert item of an instrument."""

    key: str
    label: str
    question: str
    anchors: list[str]


class InstrumentModel(Served):
    """A rating instrument."""

    key: str
    title: str
    source: str
    kinds: list[str]
    items: list[ItemModel]

    @classmethod
    def of(cls, instrument: Instrument) -> InstrumentModel:
        """From an instrument."""
        return cls(
            key=instrument.key,
            title=instrument.title,
            source=instrument.source,
            kinds=list(instrument.kinds),
            items=[
                ItemModel(key=i.key, label=i.label, question=i.question, anchors=list(i.anchors))
                for i in instrument.items
            ],
        )


class RatingModel(Served):
    """A stored rating."""

    instrument: str
    scores: dict[str, int]
    comment: str
    rated_by: str
    rated_at: float


class Plot(Served):
    """One plot of a run."""

    name: str
    title: str
    url: str


class RunDetail(Served):
    """`GET /api/runs/{run}`: everything the browser shows of one run."""

    run_id: str
    kind: str
    facts: list[Fact]
    transcript: list[Line]
    traces: list[TraceBlock]
    tournament: TournamentTable | None
    plots: list[Plot]
    instrument: InstrumentModel | None
    ratings: list[RatingModel]
    rating_problems: int


_PLOT_TITLES = {
    "outcomes": "Offers over the outcome space, with the Pareto frontier and the Nash point",
    "utility": "Each party's utility of every offer, by round",
    "consensus": "Consensus per topic and for the group; grey lines are mediator interventions",
    "tci": "Task Completeness Index over the session; dashed lines are escalations",
}


def _number(value: Any) -> str:
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, float):
        return f"{value:.4g}"
    return str(value)


def _facts(data: Mapping[str, Any], skip: Sequence[str] = ()) -> list[Fact]:
    facts: list[Fact] = []
    for key, value in data.items():
        if key in skip or isinstance(value, dict | list) or value is None:
            continue
        facts.append(Fact(label=str(key), value=_number(value)))
    return facts


def _game_facts(result: Mapping[str, Any]) -> list[Fact]:
    facts = [Fact(label="scenario", value=str(result.get("scenario", "?")))]
    if "agreement" in result:
        terms = as_object(as_object(result["agreement"]).get("terms"))
        text = ", ".join(f"{k} = {v}" for k, v in terms.items())
        facts.append(Fact(label="agreement", value=text or "yes"))
    if isinstance(result.get("no_deal"), dict):
        no_deal = as_object(result["no_deal"])
        facts.append(Fact(label="no deal", value=f"{no_deal.get('reason')}: {no_deal.get('detail', '')}"))
    facts.append(Fact(label="rounds", value=_number(result.get("rounds"))))
    for party in map(as_object, as_list(result.get("parties"))):
        if party:
            utilities = (_number(party.get("utility")), _number(party.get("normalized_utility")))
            value = "utility {}, normalised {}".format(*utilities)
            facts.append(Fact(label=f"{party.get('party')} ({party.get('agent')})", value=value))
    for key in ("pareto_distance", "nash_distance"):
        if result.get(key) is not None:
            facts.append(Fact(label=key.replace("_", " "), value=_number(result.get(key))))
    return facts


def _bargaining_lines(trajectory: Trajectory, scenario: Scenario | None) -> list[Line]:
    vocabulary = None
    if scenario is not None:
        from parley.language import Vocabulary

        vocabulary = Vocabulary.from_scenario(scenario)
    lines: list[Line] = []
    for event in trajectory:
        if not event.is_public or event.kind != "action" or event.party is None:
            continue
        action = event.payload
        if not isinstance(action, Propose | Accept | Reject | Walk | Say):  # (a move nothing fits: skipped)
            continue
        text = action.message
        if vocabulary is not None and scenario is not None:
            from parley.language import render

            with contextlib.suppress(ValueError, KeyError, TypeError):
                text = render(action, vocabulary, speaker=event.party)
        if not text and isinstance(action, Propose):
            text = ", ".join(f"{k} = {v}" for k, v in action.package.items())
        lines.append(Line(round=event.round, speaker=event.party, kind=action.kind, text=text))
    return lines[:MAX_LINES]


_CONVERSATION_KINDS = {
    "utterance": "says",
    "intervention": "mediator",
    "delegate_message": "message",
    "counterparty_message": "message",
    "escalation": "escalation",
    "decision": "decision",
}


def _conversation_lines(trajectory: Trajectory) -> list[Line]:
    lines: list[Line] = []
    for event in trajectory:
        if event.kind not in _CONVERSATION_KINDS or not event.is_public:
            continue
        text = _conversation_text(event)
        if text is None:  # (data no payload type fits is skipped)
            continue
        payload = event.payload
        decider = payload.decided_by if isinstance(payload, Decision) else ""
        lines.append(
            Line(
                round=event.round,
                speaker=event.party or decider,
                kind=_CONVERSATION_KINDS[event.kind],
                text=text,
            )
        )
    return lines[:MAX_LINES]


def _conversation_text(event: Event) -> str | None:
    payload = event.payload
    if isinstance(payload, Escalation):
        return f"escalated ({payload.trigger}): {payload.problem}"
    if isinstance(payload, Decision):
        chosen = f"chose option {payload.option}" if payload.option else "gave guidance"
        return chosen + (f": {payload.guidance}" if payload.guidance else "")
    if isinstance(payload, Said | DelegateMessage | CounterpartyMessage):
        return payload.text
    return None


def _traces(trajectory: Trajectory) -> list[TraceBlock]:
    from parley.agents.astra.trace import format_trace

    blocks: list[TraceBlock] = []
    for event in trajectory.of_kind("trace"):
        trace = event.payload  # (free-form: every key is in `extra`)
        if isinstance(trace, Trace) and str(trace.extra.get("agent", "")).startswith("astra"):
            try:
                text = format_trace(trace.extra)
            except (KeyError, TypeError, ValueError):
                continue
            blocks.append(TraceBlock(round=event.round, party=str(event.party or ""), text=text))
    return blocks[:MAX_LINES]


def tournament_table(folder: Path) -> TournamentTable:
    """The per-agent table of a tournament folder, with its failed games and each agent's fallback share."""
    from parley.experiments.tournament import ResultStore, is_failed, summarize

    rows = list(ResultStore(folder).iter_rows())
    shares: dict[str, list[float]] = {}
    failed: list[FailedGame] = []
    for row in rows:
        share = row.get("llm_fallback_share")
        if isinstance(share, int | float) and not isinstance(share, bool):
            shares.setdefault(str(row["agent"]), []).append(float(share))
        if is_failed(row) and len(failed) < MAX_LINES:
            failed.append(
                FailedGame(
                    game=str(row.get("game")), agent=str(row.get("agent")), error=str(row.get("error") or "")
                )
            )
    table = [
        TournamentRow(
            agent=s.agent,
            games=s.games,
            failed=s.failed,
            normalized_utility=Interval.of(s.normalized_utility),
            utility=Interval.of(s.utility),
            agreement_rate=Interval.of(s.agreement_rate),
            walk_rate=Interval.of(s.walk_rate),
            rounds=Interval.of(s.rounds),
            pareto_distance=Interval.of(s.pareto_distance),
            llm_fallback_share=(sum(shares[s.agent]) / len(shares[s.agent])) if s.agent in shares else None,
            first_error=s.first_error,
        )
        for s in summarize(rows)
    ]
    return TournamentTable(rows=table, failed=failed, total_rows=len(rows))


def run_ratings(folder: Path, run_id: str) -> tuple[list[RatingModel], int]:
    """The run's ratings (each person's latest per instrument) and how many lines could not be read."""
    path = folder / RATINGS_FILE
    if not path.is_file():
        return [], 0
    ratings, problems = read_ratings(path, run_id)
    models = [
        RatingModel(
            instrument=r.instrument,
            scores=dict(r.scores),
            comment=r.comment,
            rated_by=r.rated_by,
            rated_at=r.rated_at,
        )
        for r in latest_ratings(ratings)
    ]
    return models, len(problems)


def load_scenario_of(trajectory: Trajectory, result: Mapping[str, Any] | None) -> Scenario | None:
    """The shipped scenario a run was played on, or None (unknown names and file paths are not loaded)."""
    from parley.errors import ParleyError
    from parley.scenarios.catalog import load_scenario, scenario_names

    name = scenario_name(trajectory, result)
    if name is None or name not in scenario_names():
        return None
    try:
        return load_scenario(name)
    except ParleyError:
        return None


def run_detail(folder: Path, run_id: str, kind: str) -> RunDetail:
    """Everything the browser shows of the run in folder.

    Raises:
        RunNotFound: its trajectory cannot be read.
    """
    facts: list[Fact] = []
    transcript: list[Line] = []
    traces: list[TraceBlock] = []
    table: TournamentTable | None = None
    if kind == "tournament":
        table = tournament_table(folder)
        facts = [Fact(label="result rows", value=str(table.total_rows))]
    else:
        trajectory = read_trajectory(folder)
        if kind in ("play", "game"):
            result = read_object(folder / "result.json")
            facts = _game_facts(result)
            transcript = _bargaining_lines(trajectory, load_scenario_of(trajectory, result))
            traces = _traces(trajectory)
        else:
            facts = _facts(read_object(folder / "metrics.json"))
            transcript = _conversation_lines(trajectory)
            if kind == "delegate":
                facts.extend(
                    Fact(label=f"turn {p['turn']}", value=f"{p['state']} · TCI {p['tci']:.2f}")
                    for p in tci_points(trajectory)[-1:]
                )
    instrument = instrument_for(kind)
    ratings, problems = run_ratings(folder, run_id)
    return RunDetail(
        run_id=run_id,
        kind=kind,
        facts=facts,
        transcript=transcript,
        traces=traces,
        tournament=table,
        plots=[
            Plot(name=name, title=_PLOT_TITLES[name], url=f"/api/runs/{run_id}/plots/{name}.png")
            for name in PLOT_NAMES.get(kind, ())
        ],
        instrument=InstrumentModel.of(instrument) if instrument is not None else None,
        ratings=ratings,
        rating_problems=problems,
    )


def instruments() -> list[InstrumentModel]:
    """Every instrument."""
    return [InstrumentModel.of(instrument) for instrument in INSTRUMENTS.values()]
