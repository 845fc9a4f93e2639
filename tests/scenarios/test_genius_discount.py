"""Time-discounted utility (GENIUS/ANAC, issue 18): u·d^t with t = round / max_rounds, stored with the
party's utility, written in scenario files, and applied where an agreement or a no-deal is scored."""

from __future__ import annotations

import copy
import json
import math
import pickle
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from jsonschema import Draft202012Validator

from parley.domain.issues import Issue
from parley.domain.space import OutcomeSpace
from parley.domain.utility import (
    LinearAdditiveUtility,
    RankedPreferenceUtility,
    TableUtility,
    checked_discount,
    normalised_time,
)
from parley.errors import ScenarioError
from parley.experiments.runner import run_negotiation
from parley.jsonio import dumps
from parley.metrics.bargaining import outcomes
from parley.scenarios import scenario_from_yaml, scenario_to_yaml

SCHEMAS = Path(__file__).resolve().parents[2] / "docs" / "schemas"

CAR = """
name: car
issues:
  - name: price
    options: [4000, 4500, 5000, 5500, 6000]
  - name: warranty
    options: [none, 6 months]
parties:
  - name: seller
    batna: 2
    discount: 0.5
    utility:
      type: linear_additive
      values: {price: [0, 1, 2, 3, 4], warranty: [1, 0]}
  - name: buyer
    batna: 2
    utility:
      type: linear_additive
      values: {price: [4, 3, 2, 1, 0], warranty: [0, 1]}
protocol:
  max_rounds: 10
"""


def small_space() -> OutcomeSpace:
    return OutcomeSpace.of([Issue.options("x", ["a", "b", "c"])])


def test_discounted_is_u_times_d_to_the_normalised_time() -> None:
    utility = LinearAdditiveUtility(small_space(), {"x": 1.0}, {"x": [0.0, 0.5, 1.0]}, 0.2, discount=0.81)
    assert utility.discounted(1.0, 0.5) == pytest.approx(0.9)
    assert utility.discounted(utility.reservation_value, 1.0) == pytest.approx(0.2 * 0.81)
    assert utility.discounted(0.7, 0.0) == 0.7
    assert utility.discounted(0.7, 3.0) == pytest.approx(0.7 * 0.81)  # time is clamped to [0, 1]
    assert utility.evaluate({"x": "c"}) == 1.0  # evaluate stays undiscounted
    assert normalised_time(3, 12) == 0.25 and normalised_time(15, 12) == 1.0


@pytest.mark.parametrize("bad", [0.0, -0.5, 1.5, float("nan"), "x"])
def test_a_discount_outside_zero_one_is_refused(bad: Any) -> None:
    with pytest.raises(ScenarioError, match=r"discount factor in \(0, 1\]"):
        checked_discount(bad)
    with pytest.raises(ScenarioError):
        LinearAdditiveUtility(small_space(), {"x": 1.0}, {"x": [0.0, 0.5, 1.0]}, discount=bad)


def test_every_utility_kind_carries_its_discount_through_copies() -> None:
    space = small_space()
    linear = LinearAdditiveUtility(space, {"x": 2.0}, {"x": [0.0, 0.5, 1.0]}, 0.3)
    table = TableUtility(space, np.array([0.0, 1.0, 2.0]))
    ranked = RankedPreferenceUtility(space, {"x": ["c", "b"]})
    for utility in (linear, table, ranked):
        assert utility.discount == 1.0
        discounted = utility.with_discount(0.9)
        assert discounted.discount == 0.9 and utility.discount == 1.0
        assert np.array_equal(discounted.evaluate_space(), utility.evaluate_space())
        for copied in (copy.deepcopy(discounted), pickle.loads(pickle.dumps(discounted))):
            assert copied.discount == 0.9
        assert discounted.with_reservation(0.1).discount == 0.9
        assert discounted.affine(2.0, 1.0).discount == 0.9
    kept = linear.with_discount(0.5)
    assert dict(kept.weights) == {"x": 2.0} and kept.values["x"] == (0.0, 0.5, 1.0)
    assert ranked.with_discount(0.5).linear.discount == 0.5


def test_a_scenario_file_states_the_discount_and_writes_it_back() -> None:
    scenario = scenario_from_yaml(CAR, "car.yaml")
    assert [p.utility.discount for p in scenario.parties] == [0.5, 1.0]
    text = scenario_to_yaml(scenario)
    assert text.count("discount:") == 1  # only where it is not 1
    again = scenario_from_yaml(text, "again.yaml")
    assert [p.utility.discount for p in again.parties] == [0.5, 1.0]


@pytest.mark.parametrize(("value", "expected"), [("0", "> 0"), ("1.2", "<= 1"), ("fast", "a number")])
def test_a_bad_discount_in_a_file_is_one_line_naming_the_field(value: str, expected: str) -> None:
    with pytest.raises(ScenarioError) as caught:
        scenario_from_yaml(CAR.replace("discount: 0.5", f"discount: {value}"), "car.yaml")
    message = str(caught.value)
    assert "\n" not in message and "car.yaml: parties[0].discount" in message and expected in message


def test_an_agreement_records_discounted_utilities_at_its_time() -> None:
    scenario = scenario_from_yaml(CAR, "car.yaml")
    result = run_negotiation(scenario, ["conceder", "conceder"], seed=1)
    agreement = result.agreement
    assert agreement is not None
    time = agreement.round / 10
    assert agreement.time == pytest.approx(time)
    seller = agreement.utilities["seller"]
    assert agreement.discounted_utilities == {
        "seller": pytest.approx(seller * 0.5**time),
        "buyer": agreement.utilities["buyer"],
    }
    event = next(e for e in result.trajectory if e.kind == "agreement")
    data = json.loads(dumps(event.to_json()))
    assert data["data"]["discounted_utilities"]["seller"] == pytest.approx(seller * 0.5**time)
    schema = json.loads((SCHEMAS / "trajectory-event.schema.json").read_text(encoding="utf-8"))
    Draft202012Validator(schema).validate(data)
    rows = {row.party: row for row in outcomes(scenario, result, {"seller": "c", "buyer": "c"})}
    assert rows["seller"].utility == seller  # undiscounted, as before
    assert rows["seller"].discounted_utility == pytest.approx(seller * 0.5**time)
    assert rows["buyer"].discounted_utility == rows["buyer"].utility


def test_a_no_deal_leaves_the_discounted_batna_at_the_end() -> None:
    scenario = scenario_from_yaml(CAR, "car.yaml")
    result = run_negotiation(scenario, ["hardliner", "hardliner"], seed=1)
    assert result.agreement is None and result.no_deal is not None
    rows = {row.party: row for row in outcomes(scenario, result, {"seller": "h", "buyer": "h"})}
    time = result.no_deal.round / 10
    assert result.time == pytest.approx(time)
    assert rows["seller"].utility == 2.0
    assert rows["seller"].discounted_utility == pytest.approx(2.0 * 0.5**time)


def test_undiscounted_scenarios_keep_their_transcripts_unchanged() -> None:
    scenario = scenario_from_yaml(CAR.replace("    discount: 0.5\n", ""), "car.yaml")
    result = run_negotiation(scenario, ["conceder", "conceder"], seed=1)
    assert result.agreement is not None and result.agreement.discounted_utilities == {}
    assert "discounted_utilities" not in result.agreement.to_json()
    assert "time" not in result.agreement.to_json()


def test_a_failed_games_row_writes_no_discounted_utility_as_null() -> None:
    from parley.experiments.tournament import OUTCOME_FIELDS
    from parley.jsonio import loads, result_row_line
    from parley.metrics.bargaining import PartyOutcome

    failed = PartyOutcome("a", "x", math.nan, math.nan, False, False, 0, math.nan, math.nan, False)
    row = {name: getattr(failed, name) for name in OUTCOME_FIELDS}
    line = result_row_line({**row, "failed": True, "error": "ValueError: cannot build"})
    assert loads(line)["discounted_utility"] is None
