"""Every command that loads a scenario takes a file or folder of any supported format (issue 18), and
`parley scenarios import` / `export` convert, writing all files or none."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from typer.testing import CliRunner

from parley.cli.app import app
from parley.scenarios import load_scenario
from parley.scenarios.importers.deliberation import base_game_folder

pytestmark = pytest.mark.e2e
runner = CliRunner()

GAMES = Path(__file__).resolve().parents[1] / "data" / "deliberation"
HARBOUR = str(GAMES / "harbour_bullets")
CLINIC = str(GAMES / "textarena_clinic")


def invoke(*args: str, columns: int = 100) -> tuple[int, str, str]:
    result = runner.invoke(app, list(args), env={"COLUMNS": str(columns)}, prog_name="parley")
    return result.exit_code, result.stdout, result.stderr


def one_error(code: int, stderr: str, *names: str) -> None:
    """A failure: exit code other than 0, one line on stderr starting "error:" and naming each of names."""
    lines = [line for line in stderr.splitlines() if line.strip()]
    assert code != 0 and len(lines) == 1 and lines[0].startswith("error: "), stderr
    for name in names:
        assert name in lines[0], (name, lines[0])


def test_run_plays_a_game_folder() -> None:
    code, out, err = invoke("run", HARBOUR, "-a", "boulware", "-a", "conceder", "-a", "boulware", "--json")
    assert code == 0, err
    result = json.loads(out)
    assert result["scenario"] == "deliberation-harbour_bullets"
    assert [p["party"] for p in result["parties"]] == ["Fishers Guild", "Port Authority", "River Council"]


def test_format_overrides_detection_for_run_show_and_validate() -> None:
    code, out, err = invoke("scenarios", "show", HARBOUR, "--format", "textarena")
    assert code == 0, err
    assert "TextArena ScorableGames game 'harbour_bullets'" in out
    code, out, err = invoke("scenarios", "validate", f"textarena:{HARBOUR}")
    assert code == 0 and out.startswith(f"OK textarena:{HARBOUR}: TextArena"), err
    code, out, err = invoke("run", CLINIC, "--format", "textarena", *["-a", "boulware"] * 4, "--json")
    assert code == 0, err


def test_analyze_keeps_the_outcome_count_on_its_first_line() -> None:
    for columns in (40, 200):
        code, out, err = invoke("analyze", str(GAMES / "valley_markdown"), columns=columns)
        assert code == 0, err
        first = out.splitlines()[0]
        assert first.startswith("LLM-Deliberation game 'valley_markdown': 9 outcomes, "), first
        assert first.endswith("on the Pareto frontier"), first


def test_analyze_folds_a_title_of_several_lines(tmp_path: Path) -> None:
    import dataclasses

    from parley.scenarios import scenario_to_yaml

    scenario = dataclasses.replace(load_scenario("casino"), title="Camp\nsite\x1b[31m split")
    (tmp_path / "odd.yaml").write_text(scenario_to_yaml(scenario), encoding="utf-8")
    code, out, err = invoke("analyze", str(tmp_path / "odd.yaml"), columns=30)
    assert code == 0, err
    assert out.splitlines()[0].startswith("Camp site"), out
    assert "64 outcomes" in out.splitlines()[0]


def test_tournament_and_mediate_take_paths(tmp_path: Path) -> None:
    out_folder = tmp_path / "results"
    code, _, err = invoke(
        "tournament",
        "--agents",
        "boulware,conceder",
        "--scenarios",
        f"{CLINIC},casino",
        "--repetitions",
        "1",
        "--jobs",
        "1",
        "--out",
        str(out_folder),
        "--format",
        "textarena",
    )
    assert code == 0, err
    rows = [json.loads(line) for line in (out_folder / "results.jsonl").read_text().splitlines()]
    assert {row["scenario"] for row in rows} == {f"textarena:{CLINIC}", "casino"}
    code, out, err = invoke("mediate", CLINIC, "--quiet", "--mediator", "none")
    assert code == 0, err
    assert "CC " in out


def test_import_writes_yaml_that_loads_to_the_same_game(tmp_path: Path) -> None:
    target = tmp_path / "deep" / "harbour.yaml"
    code, out, err = invoke("scenarios", "import", HARBOUR, "--out", str(target))
    assert code == 0, err
    assert out.startswith(f"Wrote {target}: LLM-Deliberation game 'harbour_bullets'")
    imported, original = load_scenario(target), load_scenario(HARBOUR)
    assert imported.space == original.space and imported.rules == original.rules
    assert imported.metadata["threshold_comparison"] == original.metadata["threshold_comparison"]
    code, out, err = invoke("scenarios", "validate", str(target))
    assert code == 0 and out.startswith("OK"), err


def test_import_prints_yaml_without_out() -> None:
    code, out, err = invoke("scenarios", "import", CLINIC)
    assert code == 0, err
    assert out.startswith("name: textarena-textarena_clinic\n")
    assert "threshold_comparison" in out


def test_export_yaml_and_genius(tmp_path: Path) -> None:
    code, out, err = invoke("scenarios", "export", "casino", "--out", str(tmp_path / "yaml"))
    assert code == 0, err
    assert out.startswith("Wrote 1 yaml file(s) to")
    assert load_scenario(tmp_path / "yaml" / "casino.yaml").space == load_scenario("casino").space
    code, out, err = invoke(
        "scenarios", "export", "casino", "--format", "genius", "--out", str(tmp_path / "g")
    )
    assert code == 0, err
    code, out, err = invoke("scenarios", "validate", str(tmp_path / "g"))
    assert code == 0 and out.startswith("OK"), err
    assert oct((tmp_path / "g").stat().st_mode & 0o777) == oct(0o777 & ~_umask())


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


def test_an_export_the_format_cannot_hold_writes_nothing(tmp_path: Path) -> None:
    # The base game's p1 carries the unanimity bonus (additive plus a bonus): GENIUS holds additive only.
    code, _, err = invoke(
        "scenarios", "export", str(base_game_folder()), "--format", "genius", "--out", str(tmp_path / "x")
    )
    assert code == 1
    assert err.strip().splitlines()[-1].startswith("error: "), err
    assert "'SportCo' earns a bonus of 10" in err
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize(
    ("args", "names"),
    [
        (("scenarios", "import", "{tmp}/empty"), ("empty", "not a scenario folder: it is empty", "tried")),
        (("scenarios", "import", "{tmp}/missing"), ("missing", "no such file or folder")),
        (("scenarios", "import", "{tmp}/notes.txt"), ("notes.txt", "not a scenario file")),
        (("scenarios", "import", "{tmp}/blob.bin"), ("blob.bin", "binary")),
        (("scenarios", "import", HARBOUR, "--out", "{tmp}/notes.txt/x.yaml"), ("notes.txt",)),
        (("scenarios", "import", HARBOUR, "--out", "{tmp}/empty"), ("empty", "folder")),
        (("scenarios", "import", HARBOUR, "--format", "xml"), ("--format", "xml")),
        (("scenarios", "export", "casino", "--out", "{tmp}/notes.txt"), ("notes.txt", "file")),
        (("scenarios", "export", "casino", "--format", "pdf", "--out", "{tmp}/o"), ("--format", "pdf")),
        (("scenarios", "export", "{tmp}/empty", "--out", "{tmp}/o"), ("empty", "not a scenario folder")),
        (("run", "{tmp}/empty", "-a", "boulware"), ("empty", "tried genius")),
        (("analyze", "{tmp}/empty"), ("empty",)),
        (("mediate", "{tmp}/empty", "--quiet"), ("empty",)),
        (("scenarios", "show", "{tmp}/notes.txt"), ("notes.txt",)),
        (("scenarios", "validate", "{tmp}/empty"), ("empty",)),
        (
            ("tournament", "--agents", "boulware", "--scenarios", "{tmp}/empty", "--out", "{tmp}/r"),
            ("empty",),
        ),
        (
            ("run", "casino", "-a", "boulware", "-a", "conceder", "--format", "genius"),
            ("casino", "no such file"),
        ),
    ],
)
def test_bad_sources_fail_in_one_line_and_write_nothing(
    tmp_path: Path, args: tuple[str, ...], names: tuple[str, ...]
) -> None:
    (tmp_path / "empty").mkdir()
    (tmp_path / "notes.txt").write_text("keep me\n", encoding="utf-8")
    (tmp_path / "blob.bin").write_bytes(b"\x00\xff" * 10)
    before = sorted(str(p) for p in tmp_path.rglob("*"))
    code, _, err = invoke(*(arg.replace("{tmp}", str(tmp_path)) for arg in args))
    one_error(code, err, *names)
    assert sorted(str(p) for p in tmp_path.rglob("*")) == before
    assert (tmp_path / "notes.txt").read_text(encoding="utf-8") == "keep me\n"


def test_a_usage_error_for_a_bad_format_exits_2() -> None:
    code, _, err = invoke("analyze", HARBOUR, "--format", "bogus")
    assert code == 2
    one_error(code, err, "--format", "expected one of yaml, genius, geniusweb, llm-deliberation, textarena")


DOMAINS = Path(__file__).resolve().parents[1] / "data" / "genius"


@pytest.mark.parametrize(
    ("source", "fmt"),
    [
        (DOMAINS / "laptop", "genius"),
        (DOMAINS / "laptop" / "laptop_domain.xml", "genius"),
        (DOMAINS / "geniusweb" / "fruit", "geniusweb"),
    ],
)
def test_genius_and_geniusweb_sources_play_and_import(tmp_path: Path, source: Path, fmt: str) -> None:
    code, out, err = invoke("run", str(source), "-a", "boulware", "-a", "conceder", "--json")
    assert code == 0, err
    assert json.loads(out)["parties"]
    code, out, err = invoke(
        "scenarios", "import", str(source), "--format", fmt, "--out", str(tmp_path / "x.yaml")
    )
    assert code == 0, err
    assert load_scenario(tmp_path / "x.yaml").space == load_scenario(source).space
    code, out, err = invoke("analyze", str(source))
    assert code == 0 and " outcomes, " in out.splitlines()[0], err


def test_a_folder_with_two_genius_domains_fails_in_one_line_naming_them(tmp_path: Path) -> None:
    import shutil

    folder = shutil.copytree(DOMAINS / "laptop", tmp_path / "two")
    shutil.copy(folder / "laptop_domain.xml", folder / "second_domain.xml")
    for command in (("scenarios", "import", str(folder)), ("run", str(folder), "-a", "boulware")):
        code, _, err = invoke(*command)
        one_error(code, err, "two", "laptop_domain.xml, second_domain.xml", "tried genius")
    assert sorted(p.name for p in folder.iterdir()) == [
        "buyer.xml",
        "laptop_domain.xml",
        "second_domain.xml",
        "seller.xml",
    ]
