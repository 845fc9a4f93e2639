"""Vocabulary: names, synonyms, units, allocation metadata and its errors."""

from __future__ import annotations

from typing import Any

import pytest

from parley.domain.issues import Issue
from parley.domain.space import OutcomeSpace
from parley.domain.utility import LinearAdditiveUtility
from parley.errors import ScenarioError
from parley.language import Vocabulary, parse
from parley.language.vocabulary import display_label
from parley.scenarios.model import Party, Scenario


def camp_space() -> OutcomeSpace:
    return OutcomeSpace.of([Issue.integer_range(n, 0, 3) for n in ("Food", "Water", "Firewood")])


def test_labels_read_naturally() -> None:
    assert display_label("lead_time") == "lead time"
    assert display_label("Firewood") == "firewood"
    assert display_label("unitPrice") == "unit price"
    assert display_label("CPU_hours") == "CPU hours"


def test_aliases_cover_case_plural_and_synonyms(camp: Vocabulary) -> None:
    for text in ("FIREWOOD", "fire wood", "wood", "woods", "Waters", "foods"):
        assert camp.issue_of_alias(text.lower()) is not None, text
    assert camp.issue_of_alias("wood") == "firewood"


def test_capitalised_issue_names_are_matched_in_lower_case() -> None:
    allocation = {n: {"owner": "a", "total": 3} for n in ("Food", "Water", "Firewood")}
    vocabulary = Vocabulary.build(camp_space(), {"allocation": allocation}, ("a", "b"))
    parsed = parse("I take 3 firewood and you take the rest", vocabulary, speaker="b")
    assert parsed.package == {"Food": 3, "Water": 3, "Firewood": 0}


def test_word_shared_by_two_issues_names_neither() -> None:
    space = OutcomeSpace.of([Issue.integer_range("start date", 1, 5), Issue.integer_range("end date", 1, 5)])
    vocabulary = Vocabulary.build(space)
    assert vocabulary.issue_of_alias("date") is None
    assert vocabulary.issue_of_alias("start") == "start date"


def test_scenario_synonyms_and_phrases_are_used() -> None:
    space = OutcomeSpace.of([Issue.options("lead_time", [10, 20, 30], unit="days")])
    metadata = {
        "language": {"synonyms": {"lead_time": ["shipping"]}, "phrases": {"lead_time": "delivery in {value}"}}
    }
    vocabulary = Vocabulary.build(space, metadata, ("buyer", "seller"))
    assert vocabulary.issue_of_alias("shipping") == "lead_time"
    assert vocabulary.terms("lead_time").phrase == "delivery in {value}"


def test_units_are_recognised(supply: Vocabulary) -> None:
    assert supply.terms("price").unit == "usd"
    assert supply.terms("lead_time").unit == "day"
    assert supply.terms("payment_terms").options["net60"] == "net-60"


def test_counts_convert_between_sides(camp: Vocabulary) -> None:
    food = camp.terms("food")
    assert camp.count_for(food, 1, "alice") == 1
    assert camp.count_for(food, 1, "bob") == 2
    assert camp.value_for(food, "bob", 3) == 0
    assert camp.listener_of("alice") == "bob"


@pytest.mark.parametrize(
    ("metadata", "message"),
    [
        ({"allocation": ["food"]}, "allocation: expected a mapping"),
        (
            {"allocation": {"fuel": {"owner": "a", "total": 3}}},
            "metadata.allocation.fuel: unknown issue 'fuel'",
        ),
        (
            {"allocation": {"Food": {"owner": "zed", "total": 3}}},
            "metadata.allocation.Food.owner: owner 'zed'",
        ),
        (
            {"allocation": {"Food": {"owner": "a", "total": -1}}},
            "metadata.allocation.Food.total: expected a non",
        ),
        (
            {"allocation": {"Food": {"owner": "a", "total": 2}}},
            "metadata.allocation.Food: options must be counts",
        ),
        ({"allocation": {"Food": {"owner": "a"}}}, "metadata.allocation.Food: expected {owner, total}"),
        ({"language": "x"}, "metadata.language: expected a mapping"),
        ({"language": {"synonyms": {"Fuel": ["gas"]}}}, "metadata.language.synonyms.Fuel: unknown issue"),
        (
            {"language": {"synonyms": {"Food": [3]}}},
            "metadata.language.synonyms.Food: expected non-empty strings",
        ),
        (
            {"language": {"phrases": {"Food": "no slot"}}},
            "metadata.language.phrases.Food: expected one pattern",
        ),
        (
            {"language": {"phrases": {"Food": "{value} {x}"}}},
            "metadata.language.phrases.Food: expected one pattern",
        ),
    ],
)
def test_bad_metadata_names_the_field(metadata: dict[str, Any], message: str) -> None:
    with pytest.raises(ScenarioError) as error:
        Vocabulary.build(camp_space(), metadata, ("a", "b"), source="camp.yaml")
    assert str(error.value).startswith("camp.yaml: ")
    assert message in str(error.value)
    assert "\n" not in str(error.value)


def test_unknown_issue_lookup_says_which_exist(camp: Vocabulary) -> None:
    with pytest.raises(KeyError, match="issues are"):
        camp.terms("fuel")


def test_from_scenario_reads_space_metadata_and_parties() -> None:
    space = camp_space()
    utility = LinearAdditiveUtility(space, {"Food": 1.0}, {"Food": [0, 1, 2, 3]})
    allocation = {n: {"owner": "camper", "total": 3} for n in space.names}
    scenario = Scenario(
        name="camp",
        title="Camp",
        description="",
        space=space,
        parties=(Party("camper", "camper", utility), Party("hiker", "hiker", utility)),
        metadata={"allocation": allocation},
    )
    vocabulary = Vocabulary.from_scenario(scenario)
    assert vocabulary.parties == ("camper", "hiker")
    assert vocabulary.listener_of("hiker") == "camper"
    assert parse("you can have everything", vocabulary, speaker="hiker").package == {
        "Food": 3,
        "Water": 3,
        "Firewood": 3,
    }
