"""Stage 1 against the seed's equations 1 and 2, on hand-computed cases."""

from __future__ import annotations

import pytest

from parley.agents.astra.signals import (
    Fairness,
    PointScale,
    Stance,
    assess_fairness,
    assess_stance,
)


@pytest.mark.parametrize(
    ("agent", "partner", "expected"),
    [
        (22, 18, Fairness.FAIR),  # seed table 5, last partner offer: gap 4
        (18, 22, Fairness.FAIR),  # |S_a - S_p| = 4 counts as fair (<= 4)
        (17, 22, Fairness.UNFAIR),  # gap 5 and S_p above PMS/2 = 18
        (10, 30, Fairness.UNFAIR),
        (5, 18, Fairness.FAIR),  # S_p <= PMS/2 even though the gap is 13
        (5, 18.5, Fairness.UNFAIR),
    ],
)
def test_fairness_follows_equation_1(agent: float, partner: float, expected: Fairness) -> None:
    assert assess_fairness(agent, partner) is expected


def test_fairness_scales_with_the_partner_maximum() -> None:
    assert assess_fairness(1, 9, gap=4, partner_max_points=20) is Fairness.FAIR
    assert assess_fairness(1, 11, gap=4, partner_max_points=20) is Fairness.UNFAIR


@pytest.mark.parametrize(
    ("previous", "current", "expected"),
    [
        (21, 20, Stance.GENEROUS),  # the partner asks for less
        (21, 21, Stance.NEUTRAL),
        (20, 22, Stance.GREEDY),
        (None, 22, Stance.UNKNOWN),
        (None, None, Stance.UNKNOWN),
    ],
)
def test_stance_follows_equation_2(previous: float | None, current: float | None, expected: Stance) -> None:
    assert assess_stance(previous, current) is expected


def test_point_scale_is_identity_on_casino_and_one_36th_of_the_range_elsewhere() -> None:
    casino = PointScale(0.0, 36.0)
    assert casino.points(23.0) == 23.0
    other = PointScale(-1.0, 1.0)
    assert other.points(-1.0) == 0.0
    assert other.points(1.0) == 36.0
    assert other.points(0.0) == pytest.approx(18.0)
    assert other.utility(other.points(0.25)) == pytest.approx(0.25)
