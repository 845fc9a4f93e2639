"""GAIA Table 1 metrics computed from delegate trajectories."""

from __future__ import annotations

import math

from parley.governance.config import load_config
from parley.governance.counterparties import ScriptedCounterparty
from parley.governance.escalation import PolicyPrincipal
from parley.governance.session import run_session
from parley.governance.store import SessionStore
from parley.governance.strategy import with_strategy
from parley.metrics.gaia import detection_rates, normalized_utility, session_metrics, tci_curve_mean

STAFFING = with_strategy(load_config("staffing"), "legacy")  # the seed walkthrough's flow (issue 17)
SCRIPT = [
    "Work authorization - I need H-1B sponsorship.",
    "Yes, a 6-hour overlap with Pacific time works. I'm fully remote from Toronto.",
    "8 years, mostly Python and React.",
    "I could start in January. Permanent role, please.",
    "Compensation expectations: $90K-$110K.",
    "I'd prefer $105K given my 8 years of experience.",
    "OK, $100K works for me.",
]


def test_walkthrough_metrics() -> None:
    store = SessionStore()
    outcome = run_session(
        STAFFING, ScriptedCounterparty(SCRIPT), PolicyPrincipal(), store, config_source="staffing"
    )
    metrics = session_metrics(STAFFING, store.load_events(outcome.session_id))
    assert metrics.agreed and metrics.final_state == "AGREE"
    assert metrics.rounds_to_gate == 5.0 and math.isnan(metrics.rounds_to_complete)
    assert metrics.escalations == {"boundary": 1, "final_approval": 1}
    assert metrics.utility == 0.0  # agreed at the top of the band
    assert metrics.information_gain_stcc > 0 and metrics.information_gain_screen > 0
    assert list(metrics.tci_curve) == sorted(metrics.tci_curve)
    assert abs(metrics.tci_curve[-1] - 8 / 11) < 1e-6
    assert metrics.violations == {} and metrics.rounds == 7


def test_normalized_utility_runs_from_the_top_to_the_bottom_of_the_band() -> None:
    assert normalized_utility(STAFFING, {"annual_salary": 80000}) == 1.0
    assert normalized_utility(STAFFING, {"annual_salary": 90000}) == 0.5
    assert normalized_utility(STAFFING, {"annual_salary": 105000}) == 0.0


def test_detection_rates_and_curves() -> None:
    rates = detection_rates([("a", True), ("b", True), ("c", False), ("d", False)], lambda text: text in "ac")
    assert (rates.false_positive_rate, rates.false_negative_rate, rates.detection_rate) == (0.5, 0.5, 0.5)
    assert tci_curve_mean([[0.1, 0.5], [0.3]], 3) == [0.2, 0.4, 0.4]
