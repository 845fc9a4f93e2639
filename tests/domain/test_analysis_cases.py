"""Distances in utility space between an agreement and a named outcome (e.g. the Nash point)."""

from __future__ import annotations

import numpy as np

from parley.domain import Issue, LinearAdditiveUtility, OutcomeAnalysis, OutcomeSpace


def test_distance_to_outcome_matches_a_hand_computation() -> None:
    space = OutcomeSpace.of([Issue.integer_range("x", 0, 2)])
    first = LinearAdditiveUtility(space, {"x": 1.0}, {"x": [0.0, 1.0, 4.0]})
    second = LinearAdditiveUtility(space, {"x": 1.0}, {"x": [2.0, 1.0, 0.0]})
    analysis = OutcomeAnalysis.of([first, second])
    assert analysis.distance_to_outcome(analysis.points[1], 1) == 0.0
    # point (4, 0) to outcome 0 at (0, 2): raw gap (4, -2); ranges 4 and 2 → normalised gap (1, -1)
    assert analysis.distance_to_outcome([4.0, 0.0], 0) == np.sqrt(20.0)
    assert analysis.distance_to_outcome([4.0, 0.0], 0, normalized=True) == np.sqrt(2.0)
