"""CC, TLE, RL, ME and MI against small trajectories computed by hand."""

from __future__ import annotations

import math

import pytest
from hypothesis import given
from hypothesis import strategies as st

from parley.mediation.conversation import MEDIATOR, ActKind, Strategy, Utterance
from parley.mediation.mediators import create_mediator
from parley.metrics.consensus import (
    ConsensusSeries,
    ConversationRecord,
    consensus_change,
    consensus_series,
    conversation_metrics,
    drop_events,
    mediator_effectiveness,
    mediator_intelligence,
    read_record,
    response_latency,
    slope,
    topic_level_efficiency,
)
from parley.protocol.events import Trajectory
from parley.scenarios.importers.promediate import load_promediate_case
from parley.simulation.consensus import initial_attitude
from parley.simulation.conversation import run_conversation
from parley.simulation.modes import ConflictMode


def test_consensus_change_is_last_ten_minus_first_ten() -> None:
    group = [0.5] + [0.4] * 10 + [0.5] * 5 + [0.6] * 10
    assert consensus_change(group) == pytest.approx(0.2)


def test_consensus_change_with_a_short_conversation_uses_what_there_is() -> None:
    assert consensus_change([0.5, 0.2, 0.4]) == pytest.approx(0.0)
    assert consensus_change([0.5]) == 0.0


def test_topic_level_efficiency_divides_by_mentions() -> None:
    series = ConsensusSeries(
        group=(0.5, 0.6, 0.7, 0.8),
        topics={"price": (0.5, 0.6, 0.7, 0.8), "term": (0.4, 0.4, 0.4, 0.4)},
        mentions={"price": (1, 2, 3), "term": ()},
    )
    assert topic_level_efficiency(series) == {"price": pytest.approx(0.1)}


def test_drop_events_start_where_consensus_later_falls_by_more_than_tau() -> None:
    group = [0.8, 0.8, 0.75, 0.65, 0.7, 0.7, 0.72]
    assert drop_events(group, tau=0.1, window=10) == [(0, 3)]
    assert drop_events(group, tau=0.1, window=2) == [(1, 3)]
    assert drop_events([0.5, 0.45, 0.41], tau=0.1) == []


def test_response_latency_counts_turns_and_clock_seconds_until_the_mediator_speaks() -> None:
    group = [0.8, 0.8, 0.75, 0.65, 0.7, 0.7, 0.7]
    times = [0.0, 4.0, 8.0, 12.0, 16.0, 21.0, 25.0]
    [latency] = response_latency(group, [1, 5], times)
    assert (latency.start, latency.drop_turn, latency.turns, latency.seconds) == (0, 3, 2.0, 9.0)


def test_response_latency_is_infinite_when_the_mediator_never_answers() -> None:
    [latency] = response_latency([0.8, 0.6, 0.6], [1], [0.0, 1.0, 2.0])
    assert math.isinf(latency.turns) and math.isinf(latency.seconds)


def test_slope_is_least_squares() -> None:
    assert slope([1.0, 2.0, 3.0]) == pytest.approx(1.0)
    assert slope([0.0, 1.0, 0.0, 1.0]) == pytest.approx(0.2)
    assert slope([5.0]) == 0.0


def test_mediator_effectiveness_is_post_minus_pre_slope_on_the_targeted_topic() -> None:
    flat_then_rising = (0.5,) * 6 + (0.5, 0.51, 0.52, 0.53, 0.54, 0.55)
    series = ConsensusSeries(
        group=flat_then_rising, topics={"price": flat_then_rising}, mentions={"price": ()}
    )
    intervention = Utterance(
        6, MEDIATOR, ActKind.INTERVENE, "price", strategy=Strategy.FACILITATIVE, text="x"
    )
    [effect] = mediator_effectiveness(series, [intervention])
    assert effect == pytest.approx(0.01)


def test_mediator_effectiveness_skips_interventions_without_room_on_both_sides() -> None:
    series = ConsensusSeries(group=(0.5, 0.5, 0.6), topics={}, mentions={})
    early = Utterance(1, MEDIATOR, ActKind.INTERVENE, None, strategy=Strategy.FACILITATIVE, text="x")
    assert mediator_effectiveness(series, [early]) == []


def _record(turns: list[Utterance | None]) -> ConversationRecord:
    parties = ("Ann", "Bob", "Cy")
    initial = {p: {"price": initial_attitude("A"), "term": initial_attitude("A")} for p in parties}
    options = {"price": {"A": "low", "B": "high"}, "term": {"A": "short", "B": "long"}}
    times = tuple(float(i) for i in range(len(turns) + 1))
    return ConversationRecord(parties, ("price", "term"), options, 20, initial, tuple(turns), times)


def _hostile(turn: int, speaker: str) -> Utterance:
    return Utterance(turn, speaker, ActKind.OBJECT, "price", "B", addressee="Bob", tone=-0.8, text="No way.")


def test_mediator_intelligence_rubric_scores_each_applicable_dimension() -> None:
    calming = Utterance(
        3,
        MEDIATOR,
        ActKind.INTERVENE,
        "price",
        tone=0.6,
        strategy=Strategy.TRANSFORMATIVE,
        text="Ann, I hear you.",
    )
    record = _record([_hostile(1, "Ann"), _hostile(2, "Ann"), calming])
    [score] = mediator_intelligence(record)
    # Two objections and no proposal: emotional (hostile) and cognitive (no new option) apply.
    assert score.dimensions["emotional"] == 5.0
    assert score.dimensions["cognitive"] == 1.0
    assert score.dimensions["perceptual"] == -1.0
    assert score.dimensions["communication"] == -1.0
    assert score.mean == pytest.approx(3.0)


def test_mediator_intelligence_gives_three_for_a_general_answer() -> None:
    generic = Utterance(
        3, MEDIATOR, ActKind.INTERVENE, "term", tone=0.3, strategy=Strategy.TRANSFORMATIVE, text="Calm."
    )
    record = _record([_hostile(1, "Ann"), None, generic])
    [score] = mediator_intelligence(record)
    assert score.dimensions["emotional"] == 3.0


def test_consensus_is_carried_over_when_a_topic_is_not_mentioned() -> None:
    said = Utterance(1, "Ann", ActKind.STATE, "price", "B", tone=0.0, text="On price, B.")
    series = consensus_series(_record([said, None]))
    assert series.topics["term"][0] == series.topics["term"][1] == series.topics["term"][2]
    assert series.topics["price"][1] < series.topics["price"][0]
    assert series.topics["price"][2] == series.topics["price"][1]
    assert series.mentions == {"price": (1,), "term": ()}


@given(st.lists(st.floats(0.0, 1.0), min_size=1, max_size=60))
def test_consensus_change_is_bounded(group: list[float]) -> None:
    assert -1.0 <= consensus_change(group) <= 1.0


def test_metrics_of_a_real_conversation_match_the_live_tracker() -> None:
    scenario = load_promediate_case("hmo")
    result = run_conversation(scenario, create_mediator("social"), mode=ConflictMode.GENERAL, seed=2)
    record = read_record(result.trajectory)
    assert consensus_series(record).group == result.consensus
    metrics = conversation_metrics(result.trajectory)
    assert metrics.interventions == len(result.interventions) > 0
    assert math.isfinite(metrics.consensus_change)
    assert 1.0 <= metrics.intelligence <= 5.0


def test_read_record_rejects_other_trajectories() -> None:
    with pytest.raises(ValueError, match="no 'conversation_started' event"):
        read_record(Trajectory())


def test_recorded_series_is_the_live_consensus_the_rule_replay_recomputes() -> None:
    from parley.metrics.consensus import consensus_series, conversation_metrics, read_record, recorded_series
    from parley.simulation import ConflictMode, run_conversation

    result = run_conversation(
        load_promediate_case("hmo"), create_mediator("social"), mode=ConflictMode.COMPETING, seed=2
    )
    live, replayed = recorded_series(result.trajectory), consensus_series(read_record(result.trajectory))
    assert live.mentions == replayed.mentions
    assert live.group == pytest.approx(replayed.group, abs=1e-6)
    from_live = conversation_metrics(result.trajectory, series=live).to_json()
    expected = conversation_metrics(result.trajectory).to_json()
    assert from_live == pytest.approx(expected, abs=1e-5, nan_ok=True)
