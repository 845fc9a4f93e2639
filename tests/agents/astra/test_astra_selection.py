"""Stage 3: tactic choice, the min-max normalised ranking score, SI and the final score."""

from __future__ import annotations

from dataclasses import replace

import pytest

from parley.agents.astra.selection import (
    NegotiationPhase,
    Tactic,
    TacticContext,
    best_candidate,
    choose_tactic,
    keeps_talks_alive,
    partner_hold_streak,
    ranking_scores,
    score_candidates,
    strategic_intermediary,
)
from parley.agents.astra.signals import Fairness, Stance

BASE = TacticContext(
    fairness=Fairness.UNFAIR,
    stance=Stance.NEUTRAL,
    phase=NegotiationPhase.MIDDLE,
    partner_offers=3,
    own_offers=3,
    partner_concession=0.0,
    partner_concessions=(0.0, 0.0),
    own_last_concession=0.0,
    own_conceded=False,
    partner_offer_partner_points=24.0,
    partner_offer_agent_points=12.0,
    previous_agent_points=30.0,
)


@pytest.mark.parametrize(
    ("changes", "expected"),
    [
        ({"partner_offers": 0}, Tactic.AGGRESSIVE_EARLY_OFFER),
        ({"partner_offer_partner_points": 30.0, "stance": Stance.UNKNOWN}, Tactic.RESPONSE_TO_EXTREME_OFFER),
        ({"stance": Stance.GREEDY}, Tactic.REJECT_NEGATIVE_CONCESSION),
        ({}, Tactic.NO_CONCESSION_RESPONSE),
        ({"fairness": Fairness.FAIR}, Tactic.CONTINUED_SMALLER_CONCESSIONS),
        ({"stance": Stance.GENEROUS}, Tactic.LARGE_INITIAL_CONCESSION),
        (
            {"stance": Stance.GENEROUS, "own_conceded": True, "partner_concession": 4.0},
            Tactic.RECIPROCAL_CONCESSIONS,
        ),
        ({"stance": Stance.GENEROUS, "own_conceded": True, "partner_concession": 1.0}, Tactic.LOGROLLING),
        (
            {
                "stance": Stance.GENEROUS,
                "own_conceded": True,
                "partner_concession": 1.0,
                "phase": NegotiationPhase.LATE,
            },
            Tactic.MUTUAL_GAIN_FOCUS,
        ),
        (
            {"own_hold_streak": 2},
            Tactic.CONTINUED_SMALLER_CONCESSIONS,
        ),  # before the partner's walk rule fires
    ],
)
def test_tactic_follows_tit_for_tat(changes: dict[str, object], expected: Tactic) -> None:
    tactic, reason = choose_tactic(replace(BASE, **changes))  # type: ignore[arg-type]
    assert tactic is expected
    assert reason


@pytest.mark.parametrize(
    ("changes", "due"),
    [
        ({}, False),  # neither side has held long enough
        ({"own_hold_streak": 2}, True),  # a partner with the seed's walk rule would leave next
        ({"own_hold_streak": 1}, True),  # the partner held twice: one more and rule (a) walks
        ({"own_hold_streak": 1, "partner_concessions": (2.0, 0.0)}, False),  # it held only once
        ({"own_hold_streak": 2, "partner_concession": 3.0, "partner_concessions": (0.0, 3.0)}, False),
        ({"own_hold_streak": 2, "own_offers": 0}, False),
    ],
)
def test_a_small_concession_breaks_a_mutual_standstill_only(changes: dict[str, object], due: bool) -> None:
    context = replace(BASE, **changes)  # type: ignore[arg-type]
    assert keeps_talks_alive(context) is due


def test_partner_hold_streak_counts_trailing_offers_without_a_concession() -> None:
    assert partner_hold_streak(replace(BASE, partner_concessions=())) == 0
    assert partner_hold_streak(replace(BASE, partner_concessions=(3.0, 0.0, -1.0))) == 2
    assert partner_hold_streak(replace(BASE, partner_concessions=(0.0, 2.0))) == 0


def test_tactics_split_four_competitive_five_collaborative() -> None:
    strategies = [t.strategy.value for t in Tactic]
    assert strategies.count("competitive") == 4 and strategies.count("collaborative") == 5


def test_ranking_score_is_min_max_normalised_rank() -> None:
    assert ranking_scores([3.0, 1.0, 2.0, 5.0, 4.0]) == pytest.approx([0.5, 0.0, 0.25, 1.0, 0.75])
    assert ranking_scores([2.0, 2.0, 1.0]) == pytest.approx([1.0, 1.0, 0.0])
    assert ranking_scores([7.0]) == [1.0]


def test_strategic_intermediary_measures_progress_and_closeness() -> None:
    # halfway from the previous offer (18 partner points) to the partner's ideal (36), identical to its offer
    assert strategic_intermediary((1, 1), 27.0, 18.0, (1, 1), (3, 3)) == pytest.approx(0.75)
    assert strategic_intermediary((0, 0), 18.0, 18.0, (2, 2), (3, 3)) == pytest.approx(0.0)
    assert strategic_intermediary((0, 0), 9.0, None, None, (3, 3)) == pytest.approx(0.25)


def test_final_score_combines_pap_and_sa_and_picks_the_best() -> None:
    scored = score_candidates(
        [((0,), 30.0, 10.0), ((1,), 26.0, 14.0)], [(0.2, 0.4), (0.5, 0.6)], [0.0, 1.0], alpha=0.35, beta=0.65
    )
    assert scored[0].acceptance == pytest.approx(0.75 * 0.2 + 0.25 * 0.4)
    assert scored[1].final == pytest.approx(0.35 * (0.75 * 0.5 + 0.25 * 0.6) + 0.65)
    assert best_candidate(scored).row == (1,)
