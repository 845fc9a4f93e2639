"""Every solution concept works on the same ground: the individually rational outcomes, with each
party's utility normalised to [0, 1] between its reservation value and its best outcome."""

from __future__ import annotations

import numpy as np
import pytest

from parley.domain import Issue, OutcomeAnalysis, OutcomeSpace, TableUtility


def analysis_of(points: list[tuple[float, ...]], reservation: tuple[float, ...]) -> OutcomeAnalysis:
    """An analysis whose outcome i has exactly the utilities points[i] (one issue, one option each)."""
    space = OutcomeSpace.of([Issue.options("deal", [f"o{i}" for i in range(len(points))])])
    columns = np.array(points, dtype=np.float64).T
    return OutcomeAnalysis.of(
        [TableUtility(space, column, r) for column, r in zip(columns, reservation, strict=True)]
    )


def test_no_solution_at_all_when_no_outcome_is_acceptable_to_every_party() -> None:
    # Each outcome suits one side only: the raw welfare maximum (o0, 1.1) is below B's BATNA.
    analysis = analysis_of([(1.0, 0.1), (0.1, 1.0), (0.4, 0.4)], (0.5, 0.5))
    assert not analysis.individually_rational.any()
    assert analysis.nash is None
    assert analysis.kalai is None
    assert analysis.max_welfare is None


def test_max_welfare_never_falls_below_a_batna() -> None:
    # raw sums: o0 1.1 (B below its 0.3 BATNA), o1 1.0, o2 0.8
    analysis = analysis_of([(1.0, 0.1), (0.5, 0.5), (0.2, 0.6)], (0.0, 0.3))
    welfare = analysis.max_welfare
    assert welfare is not None
    assert analysis.individually_rational[welfare]
    # normalised (0 at the BATNA, 1 at the best outcome): o1 .5 + .667, o2 .2 + 1.0 → o2
    assert welfare == 2


def test_max_welfare_on_a_three_party_file_with_different_scales() -> None:
    # C scores out of 100, A and B out of 1: summing raw utilities lets C alone decide and picks
    # o1 (sum 100), which leaves A below its BATNA.
    points = [(1.0, 1.0, 50.0), (0.0, 0.0, 100.0), (0.5, 0.5, 60.0), (0.05, 0.9, 99.0)]
    analysis = analysis_of(points, (0.1, 0.0, 0.0))
    # normalised sums over the rational outcomes o0 (1 + 1 + .5), o2 (.44 + .5 + .6) → o0
    assert analysis.max_welfare == 0


def test_every_solution_is_invariant_to_rescaling_a_party() -> None:
    rng = np.random.default_rng(3)
    base = rng.random((200, 3))
    reservation = (0.2, 0.3, 0.25)
    first = analysis_of([tuple(row) for row in base], reservation)
    assert first.max_welfare is not None and first.nash is not None and first.kalai is not None
    for scale, shift in ((1000.0, 0.0), (0.001, 7.0), (37.0, -50.0)):
        scaled = base.copy()
        scaled[:, 1] = scaled[:, 1] * scale + shift
        moved = (reservation[0], reservation[1] * scale + shift, reservation[2])
        other = analysis_of([tuple(row) for row in scaled], moved)
        assert (other.nash, other.kalai, other.max_welfare) == (first.nash, first.kalai, first.max_welfare)


def test_normalised_utilities_run_from_the_batna_to_the_best_outcome() -> None:
    analysis = analysis_of([(2.0, 10.0), (6.0, 30.0), (4.0, 50.0)], (4.0, 10.0))
    assert analysis.best.tolist() == [6.0, 50.0]
    normalised = analysis.normalized(analysis.points)
    assert normalised.tolist() == [[-1.0, 0.0], [1.0, 0.5], [0.0, 1.0]]
    # a single point (one utility per party) is normalised alike
    assert analysis.normalized(np.array([5.0, 30.0])).tolist() == [0.5, 0.5]


def test_a_party_whose_batna_is_its_best_outcome_has_a_unit_span() -> None:
    analysis = analysis_of([(1.0, 0.2), (1.0, 0.8)], (1.0, 0.0))
    assert analysis.normalized(analysis.points).tolist() == [[0.0, 0.25], [0.0, 1.0]]
    assert analysis.max_welfare == 1
    assert analysis.nash == 1  # every product is 0; normalised welfare breaks the tie


def test_acceptable_set_under_a_k_of_n_rule_with_vetoes() -> None:
    points = [
        (1.0, 1.0, 1.0),  # 0: all three accept
        (1.0, 1.0, 0.0),  # 1: A, B
        (0.0, 1.0, 1.0),  # 2: B, C
        (1.0, 0.0, 0.0),  # 3: A only
        (0.0, 0.0, 0.0),  # 4: nobody
    ]
    analysis = analysis_of(points, (0.5, 0.5, 0.5))
    assert analysis.acceptable().tolist() == [True, False, False, False, False]
    assert analysis.acceptable().tolist() == analysis.individually_rational.tolist()
    assert analysis.acceptable(required=2).tolist() == [True, True, True, False, False]
    assert analysis.acceptable(required=2, vetoes=[0]).tolist() == [True, True, False, False, False]
    assert analysis.acceptable(required=1, vetoes=[2]).tolist() == [True, False, True, False, False]
    assert analysis.acceptable(required=3).tolist() == [True, False, False, False, False]


@pytest.mark.parametrize(("required", "vetoes"), [(0, ()), (4, ()), (2, (3,)), (2, (-1,))])
def test_acceptance_rule_outside_the_parties_is_refused(required: int, vetoes: tuple[int, ...]) -> None:
    analysis = analysis_of([(1.0, 1.0, 1.0)], (0.0, 0.0, 0.0))
    with pytest.raises(ValueError, match="part"):
        analysis.acceptable(required=required, vetoes=vetoes)


def test_batna_that_is_not_finite_normalises_from_the_worst_outcome() -> None:
    analysis = analysis_of([(0.0, 2.0), (1.0, 4.0), (0.5, 3.0)], (0.0, -np.inf))
    assert analysis.normalized(analysis.points)[:, 1].tolist() == [0.0, 1.0, 0.5]
    assert analysis.individually_rational.all()
    assert analysis.max_welfare == 1
    assert analysis.nash == 1
    assert analysis.kalai == 1
