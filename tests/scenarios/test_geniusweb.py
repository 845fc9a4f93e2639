"""GeniusWeb JSON profiles (issue 18): GeniusWeb's own scoring, round trips, and one-line refusals.

The profiles under tests/data/genius/geniusweb were written for these tests (see the README there).
"""

from __future__ import annotations

import json
import logging
import tempfile
from decimal import Decimal
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from parley.domain.issues import Issue
from parley.domain.space import OutcomeSpace
from parley.domain.utility import LinearAdditiveUtility
from parley.errors import ScenarioError
from parley.scenarios import scenario_from_yaml, scenario_to_yaml
from parley.scenarios.importers.genius import export_genius, load_genius
from parley.scenarios.importers.geniusweb import export_geniusweb, load_geniusweb, looks_like_geniusweb
from parley.scenarios.importers.geniusweb_format import number_utility
from parley.scenarios.model import Party, Scenario

DATA = Path(__file__).resolve().parents[1] / "data" / "genius" / "geniusweb"


def assert_identical(first: Scenario, second: Scenario) -> None:
    """Same space (option types too), and per party the same weights, values, reservation, utilities."""
    assert first.space == second.space
    for a, b in zip(first.space.issues, second.space.issues, strict=True):
        assert [type(v) for v in a.values] == [type(v) for v in b.values]
    assert set(first.party_names) == set(second.party_names)
    for party in first.parties:
        mine, theirs = party.utility, second.party(party.name).utility
        assert isinstance(mine, LinearAdditiveUtility) and isinstance(theirs, LinearAdditiveUtility)
        assert dict(mine.weights) == dict(theirs.weights)
        assert dict(mine.values) == dict(theirs.values)
        assert mine.reservation_value == theirs.reservation_value
        assert np.array_equal(mine.evaluate_space(), theirs.evaluate_space())


def profile(**changes: Any) -> dict[str, Any]:
    """A small valid profile body, with top-level keys of the body replaced."""
    body: dict[str, Any] = {
        "issueUtilities": {
            "colour": {"DiscreteValueSetUtilities": {"valueUtilities": {"red": 0.5, "blue": 1}}},
            "count": {
                "NumberValueSetUtilities": {"lowValue": 1, "lowUtility": 0, "highValue": 3, "highUtility": 1}
            },
        },
        "issueWeights": {"colour": 0.4, "count": 0.6},
        "domain": {
            "name": "tiny",
            "issuesValues": {
                "colour": {"values": ["red", "blue"]},
                "count": {"range": {"low": 1, "high": 3, "step": 1}},
            },
        },
        "name": "a",
    }
    body.update(changes)
    return {"LinearAdditiveUtilitySpace": body}


def write(folder: Path, first: Any, second: Any | None = None) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "a.json").write_text(
        json.dumps(first) if not isinstance(first, str) else first, encoding="utf-8"
    )
    other = second if second is not None else profile(name="b")
    (folder / "b.json").write_text(
        json.dumps(other) if not isinstance(other, str) else other, encoding="utf-8"
    )
    return folder


def refused(path: Path, *fragments: str) -> None:
    with pytest.raises(ScenarioError) as caught:
        load_geniusweb(path)
    message = str(caught.value)
    assert "\n" not in message
    for fragment in fragments:
        assert fragment in message, message


# --- GeniusWeb's scoring -----------------------------------------------------------------------------


def test_discrete_and_number_utilities_are_scored_as_geniusweb_does() -> None:
    fruit = load_geniusweb(DATA / "fruit")
    assert fruit.party_names == ("buyer", "seller")
    assert fruit.space.issue("ripeness").values == (0.5, 0.75, 1.0, 1.25, 1.5)
    buyer = fruit.party("buyer").utility
    package = {"fruit": "cherry", "kilos": 4, "ripeness": 0.75}
    expected = 0.5 * 0.8 + 0.3 * (0.2 + 0.8 * 3 / 4) + 0.2 * (1 - 0.7 * 0.25)
    assert buyer.evaluate(package) == pytest.approx(expected, abs=1e-12)


def test_the_reservation_value_is_the_reservation_bid_worth() -> None:
    fruit = load_geniusweb(DATA / "fruit")
    buyer = fruit.party("buyer").utility
    assert buyer.reservation_value == buyer.evaluate({"fruit": "apple", "kilos": 2, "ripeness": 1.25})
    assert fruit.metadata["geniusweb"]["reservation_bids"]["seller"] == {
        "fruit": "banana",
        "kilos": 3,
        "ripeness": 1,
    }


def test_older_names_a_listed_range_and_unlisted_values_are_read() -> None:
    jobs = load_geniusweb(DATA / "legacy")
    assert jobs.name == "jobs"
    assert jobs.space.issue("salary").values == (2000, 2500, 3000, 3500, 4000)
    employee = jobs.party("employee").utility
    assert isinstance(employee, LinearAdditiveUtility)
    assert employee.values["place"] == (0.0, 1.0, 0.6)  # "office" unlisted: 0
    assert employee.reservation_value == 0.0  # no reservation bid


def test_number_utilities_are_rounded_half_up_to_eight_decimals() -> None:
    third = number_utility(Decimal(0), Decimal(0), Decimal(3), Decimal(1), Decimal(1))
    assert third == 0.33333333
    assert number_utility(Decimal(0), Decimal(0), Decimal(3), Decimal(1), Decimal(4)) == 0.0  # outside


def test_detection(tmp_path: Path) -> None:
    assert looks_like_geniusweb(DATA / "fruit")
    assert looks_like_geniusweb(DATA / "fruit" / "buyer.json")
    assert not looks_like_geniusweb(DATA / "fruit" / "fruit.json")  # the domain file
    assert not looks_like_geniusweb(DATA.parent / "laptop")
    assert not looks_like_geniusweb(tmp_path / "missing.json")
    (tmp_path / "x.json").write_text("{not json", encoding="utf-8")
    assert not looks_like_geniusweb(tmp_path / "x.json")


def test_a_profile_file_loads_first_with_the_profiles_beside_it() -> None:
    fruit = load_geniusweb(DATA / "fruit" / "seller.json", name="market")
    assert fruit.party_names == ("seller", "buyer") and fruit.name == "market"


# --- round trips -----------------------------------------------------------------------------------


@pytest.mark.parametrize("folder", ["fruit", "legacy"])
def test_import_export_import_gives_identical_scenarios(folder: str, tmp_path: Path) -> None:
    first = load_geniusweb(DATA / folder)
    files = export_geniusweb(first, tmp_path / "out")
    assert len(files) == 1 + len(first.parties)
    second = load_geniusweb(tmp_path / "out")
    assert_identical(first, second)
    assert second.name == first.name
    export_geniusweb(second, tmp_path / "again")
    assert [f.read_bytes() for f in sorted((tmp_path / "again").iterdir())] == [
        f.read_bytes() for f in sorted((tmp_path / "out").iterdir())
    ]


@pytest.mark.parametrize("folder", ["fruit", "legacy"])
def test_imported_profiles_round_trip_through_parley_yaml(folder: str) -> None:
    first = load_geniusweb(DATA / folder)
    assert_identical(first, scenario_from_yaml(scenario_to_yaml(first), "again.yaml"))


def test_geniusweb_and_genius_carry_the_same_scenario(tmp_path: Path) -> None:
    first = load_geniusweb(DATA / "legacy")
    export_genius(first, tmp_path)
    second = load_genius(tmp_path)
    for party in first.parties:
        assert np.array_equal(
            party.utility.evaluate_space(), second.party(party.name).utility.evaluate_space()
        )


@st.composite
def unit_scenarios(draw: st.DrawFn) -> Scenario:
    """Random small scenarios in GeniusWeb's form: weights adding up to 1, values in [0, 1]."""
    issues: list[Issue] = []
    ranges: dict[str, tuple[int, int]] = {}
    for i in range(draw(st.integers(1, 3))):
        size = draw(st.integers(1, 4))
        if draw(st.booleans()) and size >= 2:
            low = draw(st.integers(-3, 3))
            step = draw(st.integers(1, 3))
            issues.append(Issue.options(f"issue {i}", list(range(low, low + step * size, step))))
            ranges[f"issue {i}"] = (low, step)
        else:
            issues.append(Issue.options(f"issue {i}", [f"v{j}" for j in range(size)]))
    space = OutcomeSpace.of(issues)
    parties: list[Party] = []
    for name in ("a", "b"):
        values: dict[str, list[float]] = {}
        for issue in issues:
            if issue.name in ranges:  # linear, as GeniusWeb scores a number range
                low_u, high_u = (Decimal(draw(st.integers(0, 100))) / 100 for _ in range(2))
                xs = [Decimal(v) for v in issue.values]
                values[issue.name] = [number_utility(xs[0], low_u, xs[-1], high_u, x) for x in xs]
            else:
                values[issue.name] = [draw(st.integers(0, 8)) / 8 for _ in issue.values]
        shares = [draw(st.integers(1, 4)) for _ in issues]
        weights = {issue.name: share / 4 for issue, share in zip(issues, shares, strict=True)}
        if sum(weights.values()) != 1.0:
            weights = {issue.name: (1.0 if k == 0 else 0.0) for k, issue in enumerate(issues)}
        utility = LinearAdditiveUtility(space, weights, values)
        bid = space.outcome(draw(st.integers(0, space.size - 1)))
        reservation = draw(st.sampled_from([0.0, utility.evaluate(bid)]))
        parties.append(Party(name, "", utility.with_reservation(reservation)))
    return Scenario("random", "random", "", space, tuple(parties))


@settings(max_examples=40)
@given(scenario=unit_scenarios())
def test_random_linear_additive_scenarios_export_and_import_identically(scenario: Scenario) -> None:
    with tempfile.TemporaryDirectory() as folder:
        export_geniusweb(scenario, Path(folder))
        assert_identical(scenario, load_geniusweb(Path(folder)))


def test_what_geniusweb_cannot_hold_is_said(tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    space = OutcomeSpace.of([Issue.options("n", [1, 5, 9, 20]), Issue.options("t", ["x", "y"])])
    odd = LinearAdditiveUtility(
        space, {"n": 3.0, "t": 1.0}, {"n": [0, 4, 2, 9], "t": [1, 0]}, 5.123, discount=0.9
    )
    plain = LinearAdditiveUtility(space, {"n": 0.5, "t": 0.5}, {"n": [1, 0, 0, 0], "t": [0, 1]})
    scenario = Scenario("odd", "odd", "", space, (Party("odd", "", odd), Party("plain", "", plain)))
    with caplog.at_level(logging.WARNING):
        export_geniusweb(scenario, tmp_path)
    text = caplog.text
    assert "rescaled" in text and "no discount factor" in text and "as text" in text
    again = load_geniusweb(tmp_path)
    assert again.space.issue("n").values == ("1", "5", "9", "20")  # not a range: text values
    utility = again.party("odd").utility
    before, after = odd.evaluate_space(), utility.evaluate_space()
    assert np.allclose(after, (before - before.min()) / (before.max() - before.min()), atol=1e-12)
    assert utility.discount == 1.0


# --- refusals ---------------------------------------------------------------------------------------


def test_the_small_profile_loads(tmp_path: Path) -> None:
    scenario = load_geniusweb(write(tmp_path / "ok", profile()))
    assert scenario.party("a").utility.evaluate({"colour": "red", "count": 2}) == pytest.approx(
        0.4 * 0.5 + 0.6 * 0.5
    )


@pytest.mark.parametrize(
    ("body", "fragments"),
    [
        (profile(issueWeights={"colour": 0.4}), ["a.json", "no weight", "count"]),
        (
            profile(issueWeights={"colour": 0.4, "count": 0.6, "size": 0}),
            ["a.json", "issueWeights.size", "not an issue"],
        ),
        (profile(issueWeights={"colour": 1.5, "count": 0.6}), ["a.json", "issueWeights.colour", "[0, 1]"]),
        (profile(issueWeights={"colour": "heavy", "count": 0.6}), ["a.json", "expected a number"]),
        (
            profile(issueUtilities={"colour": {"DiscreteValueSetUtilities": {"valueUtilities": {"red": 2}}}}),
            ["a.json", "[0, 1]"],
        ),
        (
            profile(issueUtilities={"colour": {"DiscreteValueSetUtilities": {"valueUtilities": {"rеd": 1}}}}),
            ["not a value", "did you mean 'red'"],
        ),
        (
            profile(issueUtilities={"colour": {"SumOfGroups": {}}}),
            ["a.json", "'SumOfGroups' is not supported"],
        ),
        (
            profile(issueUtilities={"colour": {"NumberValueSetUtilities": {}}}),
            ["does not fit a discrete issue"],
        ),
        (
            profile(reservationBid={"issuevalues": {"colour": "green"}}),
            ["a.json", "reservationBid", "not a value"],
        ),
        (profile(reservationBid={"issuevalues": {"count": 7}}), ["not a value of the range"]),
        (
            profile(
                domain={
                    "name": "tiny",
                    "issuesValues": {"count": {"range": {"low": 1, "high": 10**9, "step": 1}}},
                }
            ),
            ["more than"],
        ),
        (
            profile(
                domain={
                    "name": "tiny",
                    "issuesValues": {"count": {"range": {"low": 3, "high": 1, "step": 1}}},
                }
            ),
            ["low <= high"],
        ),
        (
            profile(domain={"name": "tiny", "issuesValues": {"c": {"values": ["x", "x\u200b"]}}}),
            ["two values are both named 'x'"],
        ),
        ({"DefaultPartialOrdering": {"domain": {}}}, ["a.json", "'DefaultPartialOrdering' is not supported"]),
    ],
)
def test_a_bad_profile_is_refused_in_one_line(tmp_path: Path, body: Any, fragments: list[str]) -> None:
    refused(write(tmp_path / "bad", body), *fragments)


def test_a_file_named_must_be_a_profile(tmp_path: Path) -> None:
    folder = write(tmp_path / "named", [1, 2])
    refused(folder / "a.json", "a.json", "at the top level")
    refused(DATA / "fruit" / "fruit.json", "fruit.json", "a GeniusWeb domain file, not a profile")


@pytest.mark.parametrize(
    ("text", "fragment"),
    [
        ('{"LinearAdditiveUtilitySpace": {"name": "a", "name": "b"}}', "duplicate key 'name'"),
        ('{"LinearAdditiveUtilitySpace": NaN}', "NaN is not a JSON number"),
        ("[" * 100_000 + "]" * 100_000, "nesting too deep"),
        ("{", "invalid JSON"),
        ("", "invalid JSON"),
    ],
)
def test_broken_json_is_refused_in_one_line(tmp_path: Path, text: str, fragment: str) -> None:
    file = tmp_path / "a.json"
    file.write_text(text, encoding="utf-8")
    refused(file, "a.json", fragment)


def test_huge_missing_and_lonely_files_are_refused(tmp_path: Path) -> None:
    huge = tmp_path / "huge.json"
    with huge.open("wb") as handle:
        handle.truncate(50 * 1024 * 1024)
    refused(huge, "huge.json", "larger than")
    refused(tmp_path / "missing.json", "missing.json", "not found")
    (tmp_path / "bytes.json").write_bytes(b"\xff\xfe\x00garbage")
    refused(tmp_path / "bytes.json", "bytes.json", "not UTF-8")
    lonely = tmp_path / "lonely"
    lonely.mkdir()
    (lonely / "a.json").write_text(json.dumps(profile()), encoding="utf-8")
    refused(lonely, "at least two GeniusWeb profiles")


def test_profiles_of_different_domains_are_refused(tmp_path: Path) -> None:
    other = profile(
        name="b",
        domain={
            "name": "tiny",
            "issuesValues": {
                "colour": {"values": ["red", "blue", "green"]},
                "count": {"range": {"low": 1, "high": 3, "step": 1}},
            },
        },
    )
    refused(write(tmp_path / "mixed", profile(), other), "b.json", "domain differs")
