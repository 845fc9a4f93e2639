"""Every shipped scenario loads, is well described and leaves room for a deal."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from parley.scenarios import list_scenarios, load_scenario, shipped_scenario_names, validate_file
from parley.scenarios.model import Scenario

# The shipped listing, made once (it loads every scenario; ScenarioInfo is frozen): each test reads it.
LISTED = tuple(list_scenarios())
ALL_NAMES = [info.name for info in LISTED]
YAML_NAMES = shipped_scenario_names()
MULTIPARTY_NAMES = [n for n in ALL_NAMES if n.startswith("multiparty/")]


def _utilities(scenario: Scenario) -> tuple[np.ndarray, np.ndarray]:
    values = np.array([party.utility.evaluate_space() for party in scenario.parties])
    batnas = np.array([[party.utility.reservation_value] for party in scenario.parties])
    return values, batnas


def test_catalogue_lists_yaml_files_and_lamen_games() -> None:
    expected = {
        "casino",
        "casino_distributive",
        "procurement",
        "staffing",
        "lease",
        "office_move",
        "wind_farm",
    }
    assert expected <= set(YAML_NAMES)
    assert "lamen/rio_copa" in ALL_NAMES
    assert ALL_NAMES[: len(YAML_NAMES)] == YAML_NAMES
    collections = [n for n in ALL_NAMES[len(YAML_NAMES) :]]
    assert {n.split("/")[0] for n in collections} == {"lamen", "promediate", "deliberation", "multiparty"}
    lamen = [n for n in collections if n.startswith("lamen/")]
    assert lamen == sorted(lamen)
    assert sorted(MULTIPARTY_NAMES) == MULTIPARTY_NAMES
    assert len(MULTIPARTY_NAMES) == 28
    assert "multiparty/port_terminal_automation" in MULTIPARTY_NAMES


# ProMediate cases are mediation testbeds: under the exclusions their briefs state, a case may have
# no package that every party accepts (Francis has none), which is what a mediator must work on.
# Five `multiparty/` scenarios are k-of-n games written so that no package leaves every party above
# its BATNA: four have none at or above it for everyone (their README table: 0 "good for every
# party"), and eastvale_waste_plant_siting's only such package leaves one party exactly at it. Their
# deals are the ones their acceptance rule passes (test_multiparty_rule_passes_some_package_but_not_all
# checks that for every multiparty scenario); every other multiparty scenario keeps this check.
K_OF_N_ONLY = {
    "multiparty/city_pension_reform",
    "multiparty/eastvale_waste_plant_siting",
    "multiparty/linden_court_retrofit",
    "multiparty/skerra_bank_fishery",
    "multiparty/university_merger_terms",
}
BARGAINING_NAMES = [n for n in ALL_NAMES if not n.startswith("promediate/") and n not in K_OF_N_ONLY]


@pytest.mark.parametrize("name", BARGAINING_NAMES)
def test_scenario_loads_with_a_zone_of_agreement(name: str) -> None:
    scenario = load_scenario(name)
    assert scenario.space.size <= 50_000
    values, batnas = _utilities(scenario)
    above_every_batna = (values > batnas).all(axis=0)
    assert above_every_batna.any(), f"{name}: no outcome beats every BATNA"
    assert not above_every_batna.all(), f"{name}: every outcome beats every BATNA; walking away never matters"


@pytest.mark.parametrize("name", sorted(K_OF_N_ONLY))
def test_k_of_n_only_scenarios_are_exempt_by_design(name: str) -> None:
    """The exemption above is exact: each is a k-of-n game and no outcome beats every BATNA."""
    scenario = load_scenario(name)
    required = scenario.rules.acceptance.required
    assert required is not None and required < len(scenario.parties)
    values, batnas = _utilities(scenario)
    assert not (values > batnas).all(axis=0).any()


@pytest.mark.parametrize("name", MULTIPARTY_NAMES)
def test_multiparty_rule_passes_some_package_but_not_all(name: str) -> None:
    """Some package passes the acceptance rule with every party it needs strictly above its BATNA
    (enough parties, every veto party among them), and walking away still matters."""
    scenario = load_scenario(name)
    assert scenario.space.size <= 50_000
    values, batnas = _utilities(scenario)
    above = values > batnas
    acceptance = scenario.rules.acceptance
    required = len(scenario.parties) if acceptance.required is None else acceptance.required
    passes = above.sum(axis=0) >= required
    for veto in acceptance.vetoes:
        passes &= above[scenario.party_names.index(veto)]
    assert passes.any(), f"{name}: no package passes {required} of {len(scenario.parties)}"
    assert not passes.all(), f"{name}: every package passes; walking away never matters"


@pytest.mark.parametrize("name", ALL_NAMES)
def test_scenario_is_described(name: str) -> None:
    scenario = load_scenario(name)
    assert len(scenario.description) > 40
    assert scenario.title
    for party in scenario.parties:
        assert len(party.brief) > 80, f"{name}: {party.name} has no real brief"


@pytest.mark.parametrize("name", YAML_NAMES + MULTIPARTY_NAMES)
def test_list_entry_matches_the_file(name: str) -> None:
    info = next(info for info in LISTED if info.name == name)
    stem = name.removeprefix("multiparty/")
    assert Path(info.path).name == f"{stem}.yaml"
    scenario = validate_file(Path(info.path))
    assert (info.title, info.parties, info.issues, info.outcomes) == (
        scenario.title,
        scenario.party_names,
        scenario.space.names,
        scenario.space.size,
    )
    assert scenario.name == stem  # the file's own name; the collection loads it as "multiparty/<stem>"
    assert load_scenario(name).name == name


@pytest.mark.parametrize("name", YAML_NAMES + MULTIPARTY_NAMES)
def test_interests_are_opposed_but_not_all_zero_sum(name: str) -> None:
    """Some party pair trades off (negatively correlated), and the game is not constant-sum."""
    values, _ = _utilities(load_scenario(name))
    correlations = np.corrcoef(values)
    assert (correlations[np.triu_indices(len(values), 1)] < 0).any()
    if name != "casino_distributive":
        assert np.ptp(values.sum(axis=0)) > 0


@pytest.mark.parametrize("name", ["casino", "casino_distributive"])
def test_casino_follows_the_campsite_rules(name: str) -> None:
    scenario = load_scenario(name)
    assert scenario.party_names == ("A", "B")
    assert dict(scenario.metadata["allocation"]) == {
        item: {"owner": "A", "total": 3} for item in ("food", "water", "firewood")
    }
    a, b = scenario.parties
    assert a.utility.reservation_value == b.utility.reservation_value == 5
    everything_to_a = {"food": 3, "water": 3, "firewood": 3}
    assert a.utility.evaluate(everything_to_a) == 36  # 3 × (5 + 4 + 3)
    assert b.utility.evaluate(everything_to_a) == 0
    order_a = a.signals["priorities"]
    order_b = b.signals["priorities"]
    assert sorted(a.utility.evaluate({**dict.fromkeys(order_a, 0), item: 1}) for item in order_a) == [3, 4, 5]
    if name == "casino":
        assert order_b == order_a[::-1]
    else:
        assert order_b == order_a
    assert scenario.rules.stagnation_rounds == 14


def test_casino_b_scores_the_units_a_leaves() -> None:
    scenario = load_scenario("casino")
    b = scenario.party("B")
    # B keeps 3 firewood (5 each), 2 water (4 each), 0 food: 15 + 8 = 23.
    assert b.utility.evaluate({"food": 3, "water": 1, "firewood": 0}) == 23


def test_multi_party_rules() -> None:
    office = load_scenario("office_move")
    assert len(office.parties) == 3
    assert office.rules.acceptance.required is None
    wind = load_scenario("wind_farm")
    assert len(wind.parties) == 4
    assert wind.rules.acceptance.required == 3
    assert wind.rules.acceptance.vetoes == ("municipality",)
    assert wind.rules.acceptance.is_met({"developer", "landowners", "municipality"}, wind.party_names)
    assert not wind.rules.acceptance.is_met({"developer", "landowners", "nature_trust"}, wind.party_names)


def test_office_move_uses_ranked_preferences() -> None:
    office = load_scenario("office_move")
    sales = office.party("sales")
    good = {"location": "city centre", "layout": "open plan", "move_quarter": "Q1", "parking": "none"}
    assert sales.utility.evaluate({**good, "meeting_rooms": 12}) > sales.utility.evaluate(
        {**good, "location": "business park", "meeting_rooms": 12}
    )
    assert sales.signals["must_haves"] == {"location": ["city centre", "riverside campus"]}


def test_registered_collection_is_loadable_and_listed(monkeypatch: pytest.MonkeyPatch) -> None:
    from parley.scenarios import catalog

    monkeypatch.setattr(catalog, "_registered", {})
    casino = load_scenario("casino")
    catalog.register_collection(catalog.ScenarioCollection("mine", lambda: ["one"], lambda name: casino))
    assert load_scenario("mine/one") is casino
    assert "mine/one" in catalog.scenario_names()
    assert [info.name for info in list_scenarios()][-1] == "mine/one"


@pytest.mark.parametrize("name", YAML_NAMES)
def test_stagnation_spares_slow_concession_but_stops_deadlock(name: str) -> None:
    """Two time-based Boulware negotiators (who hold their opening offer for about half the game)
    still reach a deal; two hardliners are stopped by the stagnation detector before the bound."""
    from parley.experiments.runner import run_negotiation

    scenario = load_scenario(name)
    parties = len(scenario.parties)
    patient = run_negotiation(scenario, ["boulware"] * parties, seed=0)
    assert patient.agreement is not None, patient.no_deal
    stubborn = run_negotiation(scenario, ["hardliner"] * parties, seed=0)
    assert stubborn.no_deal is not None and stubborn.no_deal.reason == "stagnation"
    assert stubborn.no_deal.round < scenario.rules.max_rounds


@pytest.mark.parametrize("name", YAML_NAMES + MULTIPARTY_NAMES)
def test_language_metadata_builds_a_vocabulary(name: str) -> None:
    from parley.language.vocabulary import Vocabulary

    scenario = load_scenario(name)
    vocabulary = Vocabulary.build(scenario.space, scenario.metadata, scenario.party_names, source=name)
    aliases = {terms.name: terms.aliases for terms in vocabulary.issues}
    for issue, words in scenario.metadata.get("language", {}).get("synonyms", {}).items():
        assert words[0].lower() in aliases[issue]  # aliases are matched (and kept) in lower case
