"""The six ProMediate cases import as ranked-preference scenarios faithful to their briefs."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
import yaml

from parley.domain.utility import RankedPreferenceUtility
from parley.errors import ScenarioError
from parley.scenarios.importers.promediate import (
    MEDIATOR_NAME,
    PROMEDIATE_CASES,
    data_folder,
    load_all_cases,
    load_promediate_case,
    parse_preference,
)


def _case_file(case: str) -> dict[str, object]:
    return json.loads((data_folder() / f"{case}.json").read_text(encoding="utf-8"))


@pytest.mark.parametrize("case", PROMEDIATE_CASES)
def test_every_case_imports_with_its_parties_topics_and_settings(case: str) -> None:
    scenario = load_promediate_case(case)
    raw = _case_file(case)
    topics = json.loads((data_folder() / "topics.json").read_text(encoding="utf-8"))[case]
    briefs = raw["names"]
    assert isinstance(briefs, dict)
    assert list(scenario.party_names) == [n for n in briefs if n != MEDIATOR_NAME]
    assert len(scenario.space.issues) == len(topics)
    settings = raw["config"]
    assert isinstance(settings, dict)
    config = {k.lower(): v for k, v in settings.items()}
    for party in scenario.parties:
        assert isinstance(party.utility, RankedPreferenceUtility)
        assert party.brief == briefs[party.name]
        assert party.persona["speaking"] == {k: float(v) for k, v in config[party.name.lower()].items()}
        for issue in scenario.space.issues:
            ranking = party.utility.rankings[issue.name]
            assert set(ranking).isdisjoint(party.utility.unacceptable[issue.name])
    assert scenario.metadata["derivation"]
    assert scenario.metadata["mediator"]["speaking"]["im_threshold"] == 3.8
    assert scenario.source is not None and scenario.source.endswith(f"{case}.json")


def test_rankings_match_what_the_briefs_state() -> None:
    hmo = load_promediate_case("hmo")
    lee = hmo.party("Lee").utility
    assert isinstance(lee, RankedPreferenceUtility)
    assert lee.rank_of("Formulary Status", "A") == 0
    assert lee.is_unacceptable("Formulary Status", "C")
    alex = hmo.party("Alex").utility
    assert isinstance(alex, RankedPreferenceUtility)
    assert alex.is_unacceptable("Formulary Status", "A")
    assert alex.rank_of("Discount Pricing Schedule", "C") == 0
    river = load_promediate_case("river").party("Basin").utility
    assert isinstance(river, RankedPreferenceUtility)
    assert river.rank_of("Water Prediction and Audit of Water Withdrawal and Use", "D") == 0
    assert river.is_unacceptable("Water Prediction and Audit of Water Withdrawal and Use", "A")
    delling = load_promediate_case("flagship").party("Delling").utility
    assert isinstance(delling, RankedPreferenceUtility)
    assert delling.is_unacceptable("New purchase amount", "E")


def test_weights_follow_stated_issue_importance() -> None:
    bennett = load_promediate_case("francis").party("Bennett").utility
    assert isinstance(bennett, RankedPreferenceUtility)
    assert bennett.weights["What should be the package of budget priorities"] == 4.0
    assert bennett.weights["Who should decide on practice norms"] == 1.0


def test_a_package_of_first_choices_beats_one_with_an_unacceptable_option() -> None:
    scenario = load_promediate_case("williams")
    robert = scenario.party("Robert").utility
    assert isinstance(robert, RankedPreferenceUtility)
    best = {t: robert.rankings[t][0] for t in scenario.space.names}
    worst = {**best, "Consultation procedures": "A"}
    assert robert.evaluate(best) > robert.reservation_value > robert.evaluate(worst)


def test_all_cases_load_in_the_seed_order() -> None:
    assert [s.name for s in load_all_cases()] == list(PROMEDIATE_CASES)


def test_parse_preference_reads_ranking_and_exclusions() -> None:
    parsed = parse_preference("B > A ; not C, D", ["A", "B", "C", "D"], field="x")
    assert parsed.ranking == ("B", "A")
    assert parsed.unacceptable == ("C", "D")
    assert parse_preference("", ["A"], field="x").ranking == ()


@pytest.mark.parametrize(
    ("text", "message"),
    [("A > Z", "unknown option 'Z'"), ("A > A", "appears twice"), ("A ; C", "expected '; not X, Y'")],
)
def test_parse_preference_rejects_bad_notation(text: str, message: str) -> None:
    with pytest.raises(ScenarioError, match=message):
        parse_preference(text, ["A", "B", "C"], field="cases.hmo.parties.Lee[0]")


def test_unknown_case_is_a_one_line_error() -> None:
    with pytest.raises(ScenarioError, match="unknown ProMediate case 'nope'"):
        load_promediate_case("nope")


@pytest.fixture
def copied_data(tmp_path: Path) -> Path:
    target = tmp_path / "promediate"
    shutil.copytree(data_folder(), target)
    return target


def test_a_sidecar_with_an_unknown_option_names_the_field(copied_data: Path) -> None:
    sidecar = copied_data / "parley_preferences.yaml"
    data = yaml.safe_load(sidecar.read_text(encoding="utf-8"))
    data["cases"]["hmo"]["parties"]["Lee"][0] = "A > Q"
    sidecar.write_text(yaml.safe_dump(data), encoding="utf-8")
    with pytest.raises(ScenarioError, match=r"cases\.hmo\.parties\.Lee\[0\].*unknown option 'Q'"):
        load_promediate_case("hmo", copied_data)


def test_a_sidecar_missing_a_party_is_rejected(copied_data: Path) -> None:
    sidecar = copied_data / "parley_preferences.yaml"
    data = yaml.safe_load(sidecar.read_text(encoding="utf-8"))
    del data["cases"]["ias"]["parties"]["Rossi"]
    sidecar.write_text(yaml.safe_dump(data), encoding="utf-8")
    with pytest.raises(ScenarioError, match="differ from the case's parties"):
        load_promediate_case("ias", copied_data)


def test_a_missing_case_file_names_the_file(copied_data: Path) -> None:
    (copied_data / "river.json").unlink()
    with pytest.raises(ScenarioError, match=r"river\.json: file not found"):
        load_promediate_case("river", copied_data)


def test_the_licence_ships_beside_the_data() -> None:
    assert "MIT" in (data_folder() / "LICENSE.txt").read_text(encoding="utf-8")
