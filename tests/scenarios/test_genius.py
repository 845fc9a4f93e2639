"""GENIUS XML import and export (issue 18): GENIUS's own scoring, every construct round-tripping,
and one-line refusals of malformed, unsupported and hostile files.

The domains under tests/data/genius were written for these tests (see the README there).
"""

from __future__ import annotations

import logging
import math
import shutil
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from parley.domain.analysis import OutcomeAnalysis, pareto_frontier
from parley.domain.issues import Issue, Value
from parley.domain.space import OutcomeSpace
from parley.domain.utility import LinearAdditiveUtility, TableUtility
from parley.errors import ScenarioError
from parley.scenarios import load_scenario, scenario_from_yaml, scenario_to_yaml, shipped_scenario_names
from parley.scenarios.importers.genius import export_genius, load_genius, looks_like_genius
from parley.scenarios.model import Party, Scenario

DATA = Path(__file__).resolve().parents[1] / "data" / "genius"
FOLDERS = ("laptop", "party", "holiday")

DOMAIN = """<?xml version="1.0" encoding="UTF-8"?>
<negotiation_template><utility_space number_of_issues="2">
  <objective index="0" etype="objective" type="objective" name="Tiny">
    <issue index="1" etype="discrete" type="discrete" name="Colour">
      <item index="1" value="red"/><item index="2" value="blue"/>
    </issue>
    <issue index="2" etype="integer" type="integer" name="Count" lowerbound="1" upperbound="3"/>
  </objective>
</utility_space></negotiation_template>
"""

PROFILE = """<?xml version="1.0" encoding="UTF-8"?>
<utility_space><objective index="0" etype="objective" type="objective" name="Tiny">
  <issue index="1" etype="discrete" type="discrete" name="Colour">
    <item index="1" value="red" evaluation="2"/><item index="2" value="blue" evaluation="4"/>
  </issue>
  <weight index="1" value="0.6"/>
  <issue index="2" etype="integer" type="integer" name="Count" lowerbound="1" upperbound="3">
    <evaluator ftype="linear" slope="0.5" offset="0"/>
  </issue>
  <weight index="2" value="0.4"/>
</objective>
<reservation value="0.2"/>
<discount_factor value="0.5"/>
</utility_space>
"""


def write_tiny(folder: Path, *, domain: str = DOMAIN, profile: str = PROFILE, other: str = PROFILE) -> Path:
    """A two-party GENIUS folder from texts (the second profile defaults to the first)."""
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "tiny_domain.xml").write_text(domain, encoding="utf-8")
    (folder / "a.xml").write_text(profile, encoding="utf-8")
    (folder / "b.xml").write_text(other, encoding="utf-8")
    return folder


def refused(path: Path, *fragments: str) -> str:
    """The one-line message load_genius refuses path with (checked to name the file)."""
    with pytest.raises(ScenarioError) as caught:
        load_genius(path)
    message = str(caught.value)
    assert "\n" not in message
    for fragment in fragments:
        assert fragment in message, message
    return message


def assert_identical(first: Scenario, second: Scenario) -> None:
    """Same space, and per party the same weights, values, reservation value, discount, utilities."""
    assert first.space == second.space
    for a, b in zip(first.space.issues, second.space.issues, strict=True):
        assert [type(v) for v in a.values] == [type(v) for v in b.values]
    assert set(first.party_names) == set(second.party_names)
    for party in first.parties:
        mine, theirs = party.utility, second.party(party.name).utility
        assert isinstance(mine, LinearAdditiveUtility) and isinstance(theirs, LinearAdditiveUtility)
        assert dict(mine.weights) == dict(theirs.weights)
        assert dict(mine.values) == dict(theirs.values)
        assert mine.offset == theirs.offset
        assert mine.reservation_value == theirs.reservation_value
        assert mine.discount == theirs.discount
        assert np.array_equal(mine.evaluate_space(), theirs.evaluate_space())


# --- GENIUS's scoring --------------------------------------------------------------------------------


def test_discrete_evaluations_are_divided_by_the_issue_best_and_weighted() -> None:
    party = load_genius(DATA / "party")
    host = party.party("host").utility
    package = {"Food": "Finger-Food", "Drinks": "Beer Only", "Music": "DJ", "Guests": 2}
    expected = 0.4 * 7 / 10 + 0.2 * 8 / 8 + 0.15 * 3 / 6 + 0.25 * (1.0 - 0.125 * 2)
    assert host.evaluate(package) == pytest.approx(expected, abs=1e-12)
    assert host.bounds()[1] == pytest.approx(1.0)


def test_an_integer_evaluator_is_applied_to_the_distance_from_the_lower_bound_and_clamped() -> None:
    holiday = load_genius(DATA / "holiday")
    days = holiday.space.issue("Days")
    assert days.values == tuple(range(3, 11))
    alex = holiday.party("alex").utility
    assert isinstance(alex, LinearAdditiveUtility)
    assert alex.values["Days"] == pytest.approx([0.1, 0.3, 0.5, 0.7, 0.9, 1.0, 1.0, 1.0])


def test_reservation_values_and_discount_factors_are_read_and_zero_means_no_discount() -> None:
    laptop = load_genius(DATA / "laptop")
    assert [p.utility.reservation_value for p in laptop.parties] == [0.3, 0.4]
    assert [p.utility.discount for p in laptop.parties] == [0.9, 1.0]  # absent: none
    holiday = load_genius(DATA / "holiday")
    assert holiday.party("alex").utility.discount == 1.0  # written as 0 (GENIUS: none)
    assert holiday.party("sam").utility.discount == 0.75


def test_names_types_and_descriptions_come_from_the_files() -> None:
    party = load_genius(DATA / "party")
    assert party.name == "party" and party.title == "Party"
    assert party.description == "Three housemates plan a party"
    assert party.party_names == ("host", "neighbour", "student")  # profile stems, sorted
    assert party.metadata["issue_descriptions"] == {"Food": "What is served"}
    assert party.metadata["source_format"] == "genius"
    holiday = load_genius(DATA / "holiday")
    assert holiday.name == "holiday"  # "holiday-domain.xml"
    assert holiday.space.issue("Budget").values == (500, 1000, 1500)  # vtype="integer"
    laptop = load_genius(DATA / "laptop")
    assert laptop.space.issue("Monitor").values == ("19'' LCD", "20'' LCD", "23'' LCD")


def test_a_domain_file_loads_with_the_profiles_beside_it_or_the_ones_named(tmp_path: Path) -> None:
    by_file = load_genius(DATA / "laptop" / "laptop_domain.xml")
    assert by_file.party_names == ("buyer", "seller")
    reordered = load_genius(
        DATA / "laptop" / "laptop_domain.xml",
        profiles=[DATA / "laptop" / "seller.xml", DATA / "laptop" / "buyer.xml"],
        name="notebook",
    )
    assert reordered.party_names == ("seller", "buyer") and reordered.name == "notebook"


def test_detection_accepts_domains_and_their_folders_only(tmp_path: Path) -> None:
    assert looks_like_genius(DATA / "party")
    assert looks_like_genius(DATA / "party" / "party_domain.xml")
    assert not looks_like_genius(DATA / "party" / "host.xml")  # a profile alone
    assert not looks_like_genius(DATA / "geniusweb" / "fruit")
    assert not looks_like_genius(tmp_path / "missing")
    assert not looks_like_genius(tmp_path)  # empty folder
    two = tmp_path / "two"
    write_tiny(two)
    shutil.copy(two / "tiny_domain.xml", two / "second_domain.xml")
    assert not looks_like_genius(two)
    (tmp_path / "junk.xml").write_bytes(b"\x00\xff not xml")
    assert not looks_like_genius(tmp_path / "junk.xml")


# --- round trips -----------------------------------------------------------------------------------


@pytest.mark.parametrize("folder", FOLDERS)
def test_import_export_import_gives_identical_scenarios(folder: str, tmp_path: Path) -> None:
    first = load_genius(DATA / folder)
    files = export_genius(first, tmp_path / "out")
    assert files[0].name.endswith("_domain.xml") and len(files) == 1 + len(first.parties)
    second = load_genius(tmp_path / "out")
    assert_identical(first, second)
    assert second.name == first.name and second.title == first.title
    assert second.description == first.description
    assert second.metadata.get("issue_descriptions") == first.metadata.get("issue_descriptions")
    third_dir = tmp_path / "again"
    export_genius(second, third_dir)
    assert [f.read_bytes() for f in sorted(third_dir.iterdir())] == [
        f.read_bytes() for f in sorted((tmp_path / "out").iterdir())
    ]


@pytest.mark.parametrize("folder", FOLDERS)
def test_imported_scenarios_round_trip_through_parley_yaml(folder: str, tmp_path: Path) -> None:
    first = load_genius(DATA / folder)
    second = scenario_from_yaml(scenario_to_yaml(first), "again.yaml")
    assert_identical(first, second)
    direct, through_yaml = export_genius(first, tmp_path / "a"), export_genius(second, tmp_path / "b")
    assert [f.read_bytes() for f in direct] == [f.read_bytes() for f in through_yaml]


def test_a_clamped_integer_evaluator_is_written_back_as_an_integer_issue(tmp_path: Path) -> None:
    files = export_genius(load_genius(DATA / "holiday"), tmp_path)
    domain = files[0].read_text(encoding="utf-8")
    assert 'name="Days" etype="integer"' in domain
    assert 'slope="0.2" offset="0.1"' in (tmp_path / "alex.xml").read_text(encoding="utf-8")


@pytest.mark.parametrize("name", shipped_scenario_names())
def test_every_shipped_scenario_exports_with_the_same_preferences(name: str, tmp_path: Path) -> None:
    scenario = load_scenario(name)
    export_genius(scenario, tmp_path)
    again = load_genius(tmp_path)  # (parties in file-name order)
    assert [(i.name, i.values) for i in again.space.issues] == [
        (i.name, i.values) for i in scenario.space.issues
    ]
    expected: list[np.ndarray] = []
    for party in scenario.parties:  # an increasing affine image of each party's utility
        old = party.utility.evaluate_space()
        mine = again.party(party.name).utility
        new = mine.evaluate_space()
        low, high = old.min(), old.max()
        expected.append((old - low) / (high - low))
        assert np.allclose(new, expected[-1], atol=1e-12)
        assert mine.reservation_value == pytest.approx((party.utility.reservation_value - low) / (high - low))
    # The same frontier, once the rounding errors of the rescaling (which can break exact ties
    # either way) are rounded off; the same Nash point.
    after = OutcomeAnalysis.of([again.party(name).utility for name in scenario.party_names])
    rounded = np.round(np.column_stack(expected), 9)
    assert np.array_equal(pareto_frontier(rounded), pareto_frontier(np.round(after.points, 9)))
    before = scenario.analysis
    assert before.nash is not None and after.nash is not None
    assert np.allclose(after.points[before.nash], after.points[after.nash], atol=1e-9)


def _canonical_scenarios() -> st.SearchStrategy[Scenario]:
    """Random small scenarios already in GENIUS's form (weights >= 0, values in [0, 1], best 1)."""

    @st.composite
    def build(draw: st.DrawFn) -> Scenario:
        issues: list[Issue] = []
        for i in range(draw(st.integers(1, 3))):
            kind = draw(st.sampled_from(["text", "range", "numbers"]))
            size = draw(st.integers(1, 4))
            if kind == "range":
                low = draw(st.integers(-5, 5))
                issues.append(Issue.integer_range(f"issue {i}", low, low + size - 1))
            elif kind == "numbers":
                values = draw(st.lists(st.integers(-50, 50), min_size=size, max_size=size, unique=True))
                issues.append(Issue.options(f"issue {i}", values))
            else:
                labels = draw(
                    st.lists(
                        st.text("abcxyz é-", min_size=1, max_size=6),
                        min_size=size,
                        max_size=size,
                        unique=True,
                    )
                )
                labels = [label.strip() for label in labels]
                if any(not label or "  " in label for label in labels) or len(set(labels)) != size:
                    labels = [f"option {j}" for j in range(size)]
                issues.append(Issue.options(f"issue {i}", labels))
        space = OutcomeSpace.of(issues)
        parties: list[Party] = []
        unit = st.floats(0.0, 1.0, allow_nan=False)
        for name in draw(st.sampled_from([("a", "b"), ("a", "b", "c")])):
            values: dict[str, list[float]] = {}
            for issue in issues:
                table = draw(st.lists(unit, min_size=issue.cardinality, max_size=issue.cardinality))
                table[draw(st.integers(0, issue.cardinality - 1))] = 1.0  # (GENIUS: best 1)
                values[issue.name] = table
            weights = {issue.name: draw(unit) for issue in issues}
            utility = LinearAdditiveUtility(space, weights, values)
            reservation = draw(st.floats(-1.0, utility.bounds()[1], allow_nan=False))
            discount = draw(st.sampled_from([1.0, 0.5, 0.9, 0.123]))
            parties.append(
                Party(name, "", LinearAdditiveUtility(space, weights, values, reservation, discount=discount))
            )
        return Scenario("random", "Random", "", space, tuple(parties))

    return build()


@settings(max_examples=40)
@given(scenario=_canonical_scenarios())
def test_random_linear_additive_scenarios_export_and_import_identically(scenario: Scenario) -> None:
    import tempfile

    with tempfile.TemporaryDirectory() as folder:
        export_genius(scenario, Path(folder))
        assert_identical(scenario, load_genius(Path(folder)))


def test_a_utility_not_in_genius_form_is_rescaled_keeping_its_preferences(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    space = OutcomeSpace.of([Issue.options("x", ["p", "q", "r"]), Issue.integer_range("n", 0, 2)])
    mine = LinearAdditiveUtility(space, {"x": 2.0, "n": -1.0}, {"x": [10, 0, 5], "n": [3, 1, 2]}, 4.0, 7.0)
    other = LinearAdditiveUtility(space, {"x": 1.0, "n": 1.0}, {"x": [0, 1, 1], "n": [1, 0, 0.5]}, 0.5)
    scenario = Scenario("odd", "Odd", "", space, (Party("mine", "", mine), Party("other", "", other)))
    with caplog.at_level(logging.WARNING):
        export_genius(scenario, tmp_path)
    assert "rescaled" in caplog.text
    again = load_genius(tmp_path).party("mine").utility
    old, new = mine.evaluate_space(), again.evaluate_space()
    low, high = old.min(), old.max()
    assert np.allclose(new, (old - low) / (high - low), atol=1e-12)
    assert again.reservation_value == pytest.approx((mine.reservation_value - low) / (high - low))


def test_export_refuses_what_genius_cannot_hold(tmp_path: Path) -> None:
    space = OutcomeSpace.of([Issue.options("x", ["p", "q"])])
    table = TableUtility(space, np.array([0.0, 1.0]))
    linear = LinearAdditiveUtility(space, {"x": 1.0}, {"x": [0.0, 1.0]})
    with pytest.raises(ScenarioError, match="TableUtility"):
        export_genius(
            Scenario("t", "t", "", space, (Party("a", "", table), Party("b", "", linear))), tmp_path
        )
    flat = LinearAdditiveUtility(space, {"x": 1.0}, {"x": [2.0, 2.0]})  # (not in [0, 1]: to rescale)
    with pytest.raises(ScenarioError, match="constant"):
        export_genius(Scenario("t", "t", "", space, (Party("a", "", flat), Party("b", "", linear))), tmp_path)
    odd = OutcomeSpace.of([Issue.options("x", ["p\x01", "q"])])
    weird = LinearAdditiveUtility(odd, {"x": 1.0}, {"x": [0.0, 1.0]})
    with pytest.raises(ScenarioError, match="control character"):
        export_genius(Scenario("t", "t", "", odd, (Party("a", "", weird), Party("b", "", weird))), tmp_path)


def test_odd_party_names_get_safe_distinct_file_names(tmp_path: Path) -> None:
    space = OutcomeSpace.of([Issue.options("x", ["p", "q"])])
    utility = LinearAdditiveUtility(space, {"x": 1.0}, {"x": [0.0, 1.0]})
    parties = (Party("../evil", "", utility), Party("..\\evil", "", utility), Party("Ünï code", "", utility))
    files = export_genius(Scenario("s/../x", "X", "", space, parties), tmp_path / "out")
    assert all(file.parent == tmp_path / "out" for file in files)
    assert len({file.name.lower() for file in files}) == len(files)


# --- refusals: one line naming the file and the element --------------------------------------------


def test_the_tiny_sample_loads(tmp_path: Path) -> None:
    scenario = load_genius(write_tiny(tmp_path / "ok"))
    utility = scenario.party("a").utility
    assert utility.evaluate({"Colour": "red", "Count": 3}) == pytest.approx(0.6 * 0.5 + 0.4 * 1.0)
    assert utility.discount == 0.5 and utility.reservation_value == 0.2


@pytest.mark.parametrize(
    ("old", "new", "fragments"),
    [
        (
            'type="integer" name="Count"',
            'type="real" name="Count"',
            ["a.xml", "issue 'Count'", "real-valued"],
        ),
        ('<weight index="2" value="0.4"/>', "", ["a.xml", "no <weight>", "Count"]),
        (
            '<weight index="2" value="0.4"/>',
            '<weight index="2" value="0.4"/><weight index="9" value="1"/>',
            ["weight index=9"],
        ),
        ('evaluation="4"', 'evaluation="-4"', ["a.xml", "item 'blue'", ">= 0"]),
        ('evaluation="4"', 'evaluation="NaN"', ["a.xml", "evaluation", "finite number"]),
        ('evaluation="4"', 'evaluation="1e999"', ["finite number"]),
        ('<item index="2" value="blue" evaluation="4"/>', "", ["a.xml", "no evaluation", "blue"]),
        (
            'value="blue" evaluation',
            'value="bluе" evaluation',
            ["a.xml", "not an option", "did you mean 'blue'"],
        ),
        ('ftype="linear"', 'ftype="quadratic"', ["a.xml", "evaluator", "quadratic", "not supported"]),
        ('<evaluator ftype="linear" slope="0.5" offset="0"/>', "", ["a.xml", "needs an <evaluator"]),
        (
            '<discount_factor value="0.5"/>',
            '<discount_factor value="1.5"/>',
            ["a.xml", "discount_factor", "1.5"],
        ),
        ('<reservation value="0.2"/>', '<reservation value="2"/>', ["a.xml", "reservation", "at most 1"]),
        (
            '<reservation value="0.2"/>',
            '<reservation value="0.2"/><reservation value="0.3"/>',
            ["given 2 times"],
        ),
        ('lowerbound="1" upperbound="3">', 'lowerbound="0" upperbound="3">', ["a.xml", "range differs"]),
        ("<utility_space>", '<utility_space type="constraint">', ["a.xml", "'constraint' is not supported"]),
        (
            'etype="discrete" type="discrete" name="Colour">',
            'etype="integer" type="integer" name="Colour" lowerbound="0" upperbound="1">',
            ["a.xml", "says integer"],
        ),
        ("</utility_space>", "", ["a.xml", "invalid XML"]),
    ],
)
def test_a_bad_profile_is_refused_in_one_line(
    tmp_path: Path, old: str, new: str, fragments: list[str]
) -> None:
    assert old in PROFILE
    folder = write_tiny(tmp_path / "bad", profile=PROFILE.replace(old, new, 1))
    refused(folder, *fragments)


@pytest.mark.parametrize(
    ("old", "new", "fragments"),
    [
        (
            'type="integer" name="Count" lowerbound="1" upperbound="3"',
            'type="integer" name="Count" lowerbound="1" upperbound="999999999"',
            ["tiny_domain.xml", "issue 'Count'", "more than"],
        ),
        (
            'type="integer" name="Count" lowerbound="1"',
            'type="integer" name="Count" lowerbound="x"',
            ["tiny_domain.xml", "lowerbound", "integer"],
        ),
        (
            'type="integer" name="Count" lowerbound="1" upperbound="3"',
            'type="integer" name="Count" lowerbound="3" upperbound="1"',
            ["below lowerbound"],
        ),
        (
            'etype="discrete" type="discrete" name="Colour"',
            'type="set" name="Colour"',
            ["unsupported issue type 'set'"],
        ),
        (
            '<item index="2" value="blue"/>',
            '<item index="2" value="red\u200b"/>',
            ["tiny_domain.xml", "repeats item 1"],
        ),
        ('<item index="1" value="red"/><item index="2" value="blue"/>', "", ["needs at least one <item>"]),
        ('<issue index="2"', '<objective index="5" name="sub"/><issue index="2"', ["nested <objective>"]),
        ('name="Colour"', 'name=" \u200b "', ["non-empty name"]),
    ],
)
def test_a_bad_domain_is_refused_in_one_line(
    tmp_path: Path, old: str, new: str, fragments: list[str]
) -> None:
    assert old in DOMAIN
    refused(write_tiny(tmp_path / "bad", domain=DOMAIN.replace(old, new, 1)), *fragments)


def test_invisible_characters_in_names_are_dropped_so_files_still_match(tmp_path: Path) -> None:
    profile = PROFILE.replace('value="red"', 'value="r\u200bed\u202e"').replace(
        'name="Colour"', 'name="Col\u00adour"'
    )
    scenario = load_genius(write_tiny(tmp_path / "ok", profile=profile))
    assert scenario.space.issue("Colour").values == ("red", "blue")


@pytest.mark.parametrize(
    ("content", "fragment"),
    [
        (
            '<?xml version="1.0"?><!DOCTYPE lolz [<!ENTITY lol "lol"><!ENTITY lol2 "&lol;&lol;&lol;&lol;">'
            '<!ENTITY lol3 "&lol2;&lol2;&lol2;&lol2;">]><negotiation_template>&lol3;</negotiation_template>',
            "DTDForbidden",
        ),
        (
            '<?xml version="1.0"?><!DOCTYPE x [<!ENTITY e SYSTEM "file:///etc/passwd">]>'
            "<negotiation_template>&e;</negotiation_template>",
            "refused XML construct",
        ),
        ("<negotiation_template><utility_space>", "invalid XML"),
        ("", "invalid XML"),
        ("\x00\x01binary", "invalid XML"),
        ("<a>" * 100_000 + "</a>" * 100_000, "deeper than 32"),
    ],
)
def test_hostile_or_broken_xml_is_refused_in_one_line(tmp_path: Path, content: str, fragment: str) -> None:
    folder = tmp_path / "hostile"
    folder.mkdir()
    file = folder / "evil_domain.xml"
    file.write_text(content, encoding="utf-8")
    refused(file, "evil_domain.xml", fragment)


def test_a_huge_file_is_refused_before_it_is_read(tmp_path: Path) -> None:
    file = tmp_path / "huge_domain.xml"
    with file.open("wb") as handle:  # 50 MB, sparse: nothing is written but the size
        handle.truncate(50 * 1024 * 1024)
    refused(file, "huge_domain.xml", "larger than")


def test_missing_files_and_folders_without_a_scenario_are_refused(tmp_path: Path) -> None:
    refused(tmp_path / "nowhere.xml", "nowhere.xml", "not found")
    refused(tmp_path, "exactly one GENIUS domain")
    one = write_tiny(tmp_path / "one")
    (one / "b.xml").unlink()
    refused(one, "at least two profiles")
    wrong = write_tiny(tmp_path / "wrong")
    (wrong / "c.xml").write_text(DOMAIN.replace('name="Colour"', 'name="Shade"'), encoding="utf-8")
    refused(wrong, "exactly one GENIUS domain")
    with pytest.raises(ScenarioError, match="expected a GENIUS profile"):
        load_genius(wrong / "tiny_domain.xml", profiles=[wrong / "c.xml", wrong / "a.xml"])


def test_a_profile_of_another_domain_is_refused_naming_it(tmp_path: Path) -> None:
    other = PROFILE.replace('name="Colour"', 'name="Shade"')
    refused(write_tiny(tmp_path / "mixed", other=other), "b.xml", "'Shade' is not an issue")


def test_a_weight_sum_or_an_item_order_is_taken_as_written(tmp_path: Path) -> None:
    shuffled = PROFILE.replace(
        '<item index="1" value="red" evaluation="2"/><item index="2" value="blue" evaluation="4"/>',
        '<item index="2" value="blue" evaluation="4"/><item index="1" value="red" evaluation="2"/>',
    ).replace('<weight index="1" value="0.6"/>', '<weight index="1" value="1.6"/>')
    utility = load_genius(write_tiny(tmp_path / "w", profile=shuffled)).party("a").utility
    assert isinstance(utility, LinearAdditiveUtility)
    assert utility.values["Colour"] == (0.5, 1.0) and utility.weights["Colour"] == 1.6
    assert math.isclose(utility.bounds()[1], 2.0)


def test_option_values_keep_their_types_across_an_export(tmp_path: Path) -> None:
    space = OutcomeSpace.of(
        [
            Issue.options("f", [0.5, 1.25, 2.0]),
            Issue.options("i", [3, 1, 2]),
            Issue.options("t", ["007", "x"]),
        ]
    )
    values: dict[str, list[float]] = {"f": [0.0, 1.0, 0.5], "i": [1.0, 0.0, 0.5], "t": [1.0, 0.0]}
    utility = LinearAdditiveUtility(space, {"f": 0.2, "i": 0.3, "t": 0.5}, values)
    export_genius(
        Scenario("types", "Types", "", space, (Party("a", "", utility), Party("b", "", utility))), tmp_path
    )
    again = load_genius(tmp_path).space
    got: list[tuple[Value, ...]] = [issue.values for issue in again.issues]
    assert got == [(0.5, 1.25, 2.0), (3, 1, 2), ("007", "x")]
    assert [type(v) for v in got[0]] == [float, float, float] and [type(v) for v in got[1]] == [int] * 3
