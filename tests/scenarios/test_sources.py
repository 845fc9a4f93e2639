"""Scenario sources: a path of any supported format becomes a Scenario (format detected, or named), bad
paths fail in one line naming what was found and what was tried, exports are all or nothing, and every
game and domain file shipped with parley imports."""

from __future__ import annotations

import dataclasses
import os
import shutil
from pathlib import Path

import numpy as np
import pytest

from parley.errors import ScenarioError
from parley.scenarios import load_scenario, scenario_names, scenario_to_yaml
from parley.scenarios.catalog import data_directory
from parley.scenarios.importers.deliberation import base_game_folder, looks_like_game, recorded_run_folder
from parley.scenarios.model import Scenario
from parley.scenarios.sources import (
    FORMATS,
    MAX_SCENARIO_BYTES,
    detect_format,
    export_scenario,
    file_stem,
    is_path_like,
    load_path,
    split_reference,
)

TEST_GAMES = Path(__file__).resolve().parents[1] / "data" / "deliberation"
TEST_DOMAINS = Path(__file__).resolve().parents[1] / "data" / "genius"
HARBOUR = TEST_GAMES / "harbour_bullets"
CLINIC = TEST_GAMES / "textarena_clinic"


def same(a: Scenario, b: Scenario) -> bool:
    """Same space, rules and per-party utilities over the whole space (names aside)."""
    return (
        a.space == b.space
        and a.rules == b.rules
        and a.party_names == b.party_names
        and all(
            np.array_equal(x.utility.evaluate_space(), y.utility.evaluate_space())
            and x.utility.reservation_value == y.utility.reservation_value
            for x, y in zip(a.parties, b.parties, strict=True)
        )
    )


# -- detection ---------------------------------------------------------------------------------------


def test_a_yaml_file_and_game_folders_are_detected(tmp_path: Path) -> None:
    path = tmp_path / "casino.yaml"
    path.write_text(scenario_to_yaml(load_scenario("casino")), encoding="utf-8")
    assert detect_format(path) == "yaml"
    assert detect_format(base_game_folder()) == "llm-deliberation"
    assert detect_format(recorded_run_folder()) == "llm-deliberation"
    assert detect_format(CLINIC) == "textarena"


def test_a_yaml_scenario_under_another_name_is_still_read(tmp_path: Path) -> None:
    path = tmp_path / "scenario.txt"
    path.write_text(scenario_to_yaml(load_scenario("casino")), encoding="utf-8")
    assert detect_format(path) == "yaml"
    assert same(load_path(path), load_scenario("casino"))


def test_load_path_reads_each_format_and_takes_a_name() -> None:
    game = load_path(HARBOUR, name="harbour")
    assert game.name == "harbour"
    assert game.space.names == ("Dredging Depth", "Fishing Zones", "Night Traffic")
    assert load_path(CLINIC).metadata["family"] == "textarena"


def test_the_format_overrides_detection() -> None:
    assert load_path(HARBOUR).metadata["family"] == "llm-deliberation"
    assert load_path(HARBOUR, format="textarena").metadata["family"] == "textarena"
    assert load_scenario(f"textarena:{HARBOUR}").metadata["family"] == "textarena"
    assert load_scenario(HARBOUR, format="textarena").metadata["family"] == "textarena"


def test_references_split_only_on_known_formats() -> None:
    assert split_reference("genius:my/domain") == ("genius", "my/domain")
    assert split_reference("llm-deliberation:games/base") == ("llm-deliberation", "games/base")
    assert split_reference("C:/games/base") == (None, "C:/games/base")
    assert split_reference("lamen/hotel") == (None, "lamen/hotel")
    assert split_reference("unknown:x") == (None, "unknown:x")


def test_the_catalog_reads_folders_and_files_by_path(tmp_path: Path) -> None:
    assert same(load_scenario(str(base_game_folder())), load_scenario("deliberation/base"))
    assert load_scenario(str(HARBOUR)).metadata["family"] == "llm-deliberation"
    assert is_path_like(str(HARBOUR)) and is_path_like("missing.yaml") and not is_path_like("casino")
    with pytest.raises(ScenarioError, match=r"missing\.yaml: no such file or folder"):
        load_scenario("missing.yaml")
    with pytest.raises(ScenarioError, match=r"unknown scenario 'nope'; expected a file or folder path"):
        load_scenario("nope")


# -- bad paths: one line, naming what was found and what was tried ----------------------------------


def test_an_empty_folder(tmp_path: Path) -> None:
    with pytest.raises(ScenarioError) as raised:
        load_path(tmp_path)
    message = str(raised.value)
    assert "not a scenario folder: it is empty; tried genius" in message
    assert all(fmt in message for fmt in ("genius", "geniusweb", "llm-deliberation", "textarena"))
    assert "\n" not in message


def test_a_folder_of_other_things_lists_a_few(tmp_path: Path) -> None:
    for name in ("a.txt", "b.csv", "c.md", "d.py", "e.json"):
        (tmp_path / name).write_text("x", encoding="utf-8")
    (tmp_path / "config.txt").write_text("A,a,p1,c,m\nB,b,p2,c,m\n", encoding="utf-8")
    with pytest.raises(
        ScenarioError,
        match=r"it holds 6 entries \(a\.txt, b\.csv, c\.md, config\.txt, …\) "
        r"\(config\.txt without scores_files/\)",
    ):
        load_path(tmp_path)


def test_a_missing_path_and_a_bad_format(tmp_path: Path) -> None:
    with pytest.raises(ScenarioError, match=r"nowhere: no such file or folder"):
        load_path(tmp_path / "nowhere")
    with pytest.raises(ScenarioError, match=r"nowhere: no such file or folder"):
        load_path(tmp_path / "nowhere", format="genius")
    with pytest.raises(ScenarioError, match=r"unknown format 'xml'; expected one of: yaml, genius"):
        load_path(HARBOUR, format="xml")
    with pytest.raises(ScenarioError, match=r"expected a YAML scenario file, got a folder"):
        load_path(HARBOUR, format="yaml")
    with pytest.raises(ScenarioError, match=r"expected a game folder"):
        load_path(HARBOUR / "config.txt", format="llm-deliberation")


def test_a_name_too_long_for_the_file_system(tmp_path: Path) -> None:
    name = "y" * 300
    assert not is_path_like(name)
    with pytest.raises(ScenarioError, match=r"no such file or folder"):
        load_path(tmp_path / name)


@pytest.mark.parametrize(
    ("name", "content", "message"),
    [
        ("notes.txt", b"just some notes\n", r"not a scenario file: a \.txt file; tried yaml"),
        ("blob.bin", b"\x00\x01\x02binary", r"not a scenario file: it is binary"),
        ("data.xml", b"<html><body>hello</body></html>", r"not a scenario file: a \.xml file"),
        ("data.json", b'{"cases": []}', r"not a scenario file: a \.json file"),
        ("bad.yaml", b"issues: [\xff\xfe]\n", r"bad\.yaml: cannot read the file"),
        ("bad.yaml", b"{unclosed: [1, 2\n", r"bad\.yaml: invalid YAML"),
        ("empty.yaml", b"", r"empty\.yaml"),
    ],
)
def test_a_file_that_is_no_scenario(tmp_path: Path, name: str, content: bytes, message: str) -> None:
    path = tmp_path / name
    path.write_bytes(content)
    with pytest.raises(ScenarioError, match=message) as raised:
        load_path(path)
    assert "\n" not in str(raised.value)


def test_a_huge_file_is_refused_before_it_is_read(tmp_path: Path) -> None:
    path = tmp_path / "huge.yaml"
    with path.open("wb") as file:
        file.truncate(MAX_SCENARIO_BYTES + 1)
    with pytest.raises(
        ScenarioError, match=r"huge\.yaml: expected a scenario file of at most 16,777,216 bytes"
    ):
        load_path(path)
    with pytest.raises(ScenarioError, match=r"at most 16,777,216 bytes"):
        load_path(path, format="yaml")


def test_an_unreadable_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "locked.xml"
    path.write_text("<x/>", encoding="utf-8")

    def refuse(self: Path, *args: object, **kwargs: object) -> object:
        raise PermissionError(13, "Permission denied", str(self))

    monkeypatch.setattr(Path, "open", refuse)
    with pytest.raises(ScenarioError, match=r"locked\.xml: cannot read the file: Permission denied"):
        load_path(path)


def test_homoglyph_and_zero_width_paths_are_not_confused(tmp_path: Path) -> None:
    shutil.copytree(HARBOUR, tmp_path / "harbour")
    assert load_path(tmp_path / "harbour").party_names[1] == "Port Authority"
    for lookalike in ("hаrbour", "har\u200bbour"):  # a Cyrillic а; a zero-width space
        with pytest.raises(ScenarioError, match=r"no such file or folder"):
            load_path(tmp_path / lookalike)


# -- GENIUS and GeniusWeb, through the same door -----------------------------------------------------


@pytest.mark.parametrize("fmt", ["genius", "geniusweb"])
def test_an_export_is_detected_and_reads_back(tmp_path: Path, fmt: str) -> None:
    casino = load_scenario("casino")
    written = export_scenario(casino, fmt, tmp_path / fmt)
    assert detect_format(tmp_path / fmt) == fmt
    again = load_path(tmp_path / fmt)
    assert again.space.names == casino.space.names and again.party_names == casino.party_names
    for mine, theirs in zip(casino.parties, again.parties, strict=True):  # same preferences, rescaled
        order = np.argsort(mine.utility.evaluate_space(), kind="stable")
        ranks = theirs.utility.evaluate_space()[order]
        assert np.all(np.diff(ranks) >= -1e-9)
    assert all(path.parent == tmp_path / fmt for path in written)


def test_a_genius_domain_file_is_a_scenario_and_its_profiles_are_not(tmp_path: Path) -> None:
    folder = TEST_DOMAINS / "laptop"
    assert detect_format(folder / "laptop_domain.xml") == "genius"
    assert load_path(folder / "laptop_domain.xml").party_names == load_path(folder).party_names
    with pytest.raises(ScenarioError, match=r"buyer\.xml: not a scenario file: a \.xml file"):
        load_path(folder / "buyer.xml")


def test_a_folder_with_two_domain_files_says_so(tmp_path: Path) -> None:
    folder = shutil.copytree(TEST_DOMAINS / "laptop", tmp_path / "two")
    shutil.copy(folder / "laptop_domain.xml", folder / "second_domain.xml")
    with pytest.raises(ScenarioError) as raised:
        load_path(folder)
    message = str(raised.value)
    assert "not a scenario folder" in message and "as genius: expected exactly one GENIUS domain" in message
    assert "laptop_domain.xml, second_domain.xml" in message and "\n" not in message


def test_a_folder_of_both_formats_is_ambiguous_until_a_format_is_given(tmp_path: Path) -> None:
    folder = tmp_path / "both"
    export_scenario(load_scenario("casino"), "genius", folder)
    export_scenario(load_scenario("casino"), "geniusweb", folder)
    with pytest.raises(
        ScenarioError,
        match=r"ambiguous folder: it reads as genius and as geniusweb; "
        r"choose one with --format genius\|geniusweb",
    ):
        load_path(folder)
    assert load_path(folder, format="genius").metadata["source_format"] == "genius"
    assert load_scenario(f"geniusweb:{folder}").party_names == ("A", "B")


# -- export: all files or none ----------------------------------------------------------------------


def test_yaml_export_round_trips(tmp_path: Path) -> None:
    game = load_path(HARBOUR)
    written = export_scenario(game, "yaml", tmp_path / "out" / "deep")
    assert [p.name for p in written] == ["deliberation-harbour_bullets.yaml"]
    assert same(load_path(written[0]), game)
    assert not [p for p in tmp_path.iterdir() if p.name.startswith(".parley-export")]


def test_export_into_an_existing_folder_keeps_what_is_there(tmp_path: Path) -> None:
    (tmp_path / "keep.txt").write_text("mine", encoding="utf-8")
    written = export_scenario(load_scenario("casino"), "yaml", tmp_path)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["casino.yaml", "keep.txt"]
    assert written == [tmp_path / "casino.yaml"]


def test_a_failed_export_leaves_nothing_behind(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import parley.scenarios.writer as writer

    def fail(scenario: Scenario) -> str:
        raise ScenarioError("cannot write a FancyUtility as YAML")

    monkeypatch.setattr(writer, "scenario_to_yaml", fail)
    with pytest.raises(ScenarioError, match="FancyUtility"):
        export_scenario(load_scenario("casino"), "yaml", tmp_path / "out")
    assert list(tmp_path.iterdir()) == []


def test_export_refuses_a_file_and_unknown_formats(tmp_path: Path) -> None:
    (tmp_path / "file").write_text("x", encoding="utf-8")
    with pytest.raises(ScenarioError, match=r"file: expected a folder to write in, got a file"):
        export_scenario(load_scenario("casino"), "yaml", tmp_path / "file")
    with pytest.raises(ScenarioError, match=r"unknown export format 'pdf'"):
        export_scenario(load_scenario("casino"), "pdf", tmp_path / "out")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["file"]


@pytest.mark.skipif(os.geteuid() != 0 and not Path("/proc/self").exists(), reason="needs /proc")
def test_export_where_nothing_can_be_written(tmp_path: Path) -> None:
    with pytest.raises(ScenarioError, match=r"cannot write in /proc/self"):
        export_scenario(load_scenario("casino"), "yaml", Path("/proc/self/parley-export/out"))


def test_file_stems_are_safe() -> None:
    assert file_stem("lamen/hotel") == "lamen_hotel"
    assert file_stem("../../etc") == "_.._etc"
    assert file_stem("...") == "scenario"
    assert file_stem("Verhandlung über Öl") == "Verhandlung__ber__l"


# -- every game and domain file shipped with parley --------------------------------------------------


def _shipped_sources() -> list[Path]:
    """Every game folder and GENIUS / GeniusWeb file or folder in the package data and the test games."""
    found: list[Path] = []
    for root in (data_directory(), TEST_GAMES, TEST_DOMAINS):
        for path in sorted([root, *root.rglob("*")]):
            if path.is_dir() and looks_like_game(path):
                found.append(path)
            elif path.suffix.lower() in (".xml", ".json") or path.is_dir():
                try:
                    if detect_format(path) in ("genius", "geniusweb"):
                        found.append(path)
                except ScenarioError:
                    continue
    return found


SHIPPED = _shipped_sources()


def test_the_shipped_sources_are_found() -> None:
    assert base_game_folder() in SHIPPED and recorded_run_folder() in SHIPPED
    assert len([p for p in SHIPPED if p.is_relative_to(TEST_GAMES)]) == 5
    domains = {p.relative_to(TEST_DOMAINS).as_posix() for p in SHIPPED if p.is_relative_to(TEST_DOMAINS)}
    assert {"laptop", "laptop/laptop_domain.xml", "holiday", "party", "geniusweb/fruit"} <= domains


@pytest.mark.parametrize("path", SHIPPED, ids=lambda p: str(p.relative_to(p.parents[1])))
def test_every_shipped_game_and_domain_imports_and_writes_back(path: Path) -> None:
    scenario = load_path(path)
    assert scenario.space.size > 0 and len(scenario.parties) >= 2
    from parley.scenarios.loader import scenario_from_yaml

    again = scenario_from_yaml(scenario_to_yaml(scenario))
    assert same(dataclasses.replace(again, name=scenario.name), scenario)


@pytest.mark.parametrize("name", scenario_names())
def test_every_shipped_name_still_loads(name: str) -> None:
    assert load_scenario(name).parties


def test_every_format_has_a_loader() -> None:
    from parley.scenarios.sources import _LOADERS  # pyright: ignore[reportPrivateUsage]

    assert set(_LOADERS) == set(FORMATS)
