"""Algorithm 1: attitudes carried over unless mentioned; five-dimension pairwise agreement."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from parley.mediation.conversation import ActKind, Utterance
from parley.simulation.consensus import (
    DIMENSIONS,
    Attitude,
    ConsensusTracker,
    RuleAgreementScorer,
    StructuredAttitudeExtractor,
    initial_attitude,
)

OPTIONS = ("A", "B", "C")
attitudes = st.builds(
    Attitude,
    position=st.one_of(st.none(), st.sampled_from(OPTIONS)),
    accepts=st.frozensets(st.sampled_from(OPTIONS)),
    rejects=st.frozensets(st.sampled_from(OPTIONS)),
    tone=st.floats(-1.0, 1.0),
    openness=st.floats(0.0, 1.0),
    engaged=st.booleans(),
)


@given(attitudes, attitudes)
def test_agreement_dimensions_are_in_unit_range_and_symmetric(first: Attitude, second: Attitude) -> None:
    scorer = RuleAgreementScorer()
    scores = scorer.score(first, second)
    assert len(scores) == len(DIMENSIONS)
    assert all(0.0 <= s <= 1.0 for s in scores)
    assert scores == pytest.approx(scorer.score(second, first))


def test_agreement_by_hand() -> None:
    scorer = RuleAgreementScorer()
    same = Attitude("A", frozenset({"A"}), frozenset(), 0.0, 0.5, True)
    assert scorer.score(same, same) == pytest.approx((1.0, 1.0, 1.0, 0.5, 0.75))
    rejecting = Attitude("B", frozenset({"B"}), frozenset({"A"}), -1.0, 0.0, False)
    # goals: A vs B accepted, A rejected by the second → 0.2; understanding: 1 conflict of {A, B} → 0.5;
    # terms: first's position rejected → 0; tone: warmth (0.5 + 0)/2 = 0.25, openness 0.25 → 0.25;
    # decision making: engaged (1 + 0)/2 = 0.5 → 0.25, min openness 0 → 0.25.
    assert scorer.score(same, rejecting) == pytest.approx((0.2, 0.5, 0.0, 0.25, 0.25))


def test_extraction_updates_only_mentioned_topics() -> None:
    extractor = StructuredAttitudeExtractor()
    before = {"price": initial_attitude("A"), "term": initial_attitude("A")}
    said = Utterance(1, "Ann", ActKind.CONCEDE, "price", "B", tone=0.4, text="I can move to B on price.")
    after = extractor.extract(said, before)
    assert set(after) == {"price"}
    assert after["price"].position == "B"
    assert after["price"].accepts == {"A", "B"}
    assert after["price"].openness == pytest.approx(0.7)
    objection = Utterance(2, "Ann", ActKind.OBJECT, "price", "A", tone=-0.5, text="No to A on price.")
    later = extractor.extract(objection, after)
    assert later["price"].rejects == {"A"} and "A" not in later["price"].accepts


def test_a_topic_named_in_the_text_counts_as_mentioned() -> None:
    before = {"price": initial_attitude("A"), "term": initial_attitude("A")}
    said = Utterance(1, "Ann", ActKind.STATE, "price", "A", tone=-0.2, text="Price first, the term can wait.")
    assert set(StructuredAttitudeExtractor().extract(said, before)) == {"price", "term"}


def test_tracker_recomputes_the_speakers_pairs_and_carries_the_rest() -> None:
    initial = {
        p: {"price": initial_attitude("A"), "term": initial_attitude("B")} for p in ("Ann", "Bob", "Cy")
    }
    tracker = ConsensusTracker(["Ann", "Bob", "Cy"], ["price", "term"], initial)
    start = tracker.consensus()
    term_before = tracker.topic_consensus("term")
    tracker.update(Utterance(1, "Ann", ActKind.STATE, "price", "C", tone=-0.9, text="C on price."))
    assert tracker.topic_consensus("term") == term_before
    assert tracker.topic_consensus("price") < start
    pair = tracker.agreement[("Bob", "Cy", "price")]
    assert pair == RuleAgreementScorer().score(initial["Bob"]["price"], initial["Cy"]["price"])
    assert tracker.update(Utterance(2, "Mediator", ActKind.INTERVENE, "price", text="Let's talk.")) == []


def test_group_consensus_is_the_mean_over_pairs_and_topics() -> None:
    initial = {p: {"price": initial_attitude("A"), "term": initial_attitude("B")} for p in ("Ann", "Bob")}
    tracker = ConsensusTracker(["Ann", "Bob"], ["price", "term"], initial)
    tracker.update(Utterance(1, "Ann", ActKind.STATE, "term", "A", text="A on term."))
    means = [sum(tracker.agreement[("Ann", "Bob", t)]) / 5 for t in ("price", "term")]
    assert tracker.consensus() == pytest.approx(sum(means) / 2)
