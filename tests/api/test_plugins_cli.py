"""Plugins from the command line: a package built and installed with pip (offline, into a folder on
PYTHONPATH) plays in `parley run` and `parley tournament` by its entry-point name; a module on
PYTHONPATH plays as `--agent module:factory`; a broken plugin costs one line and nothing else."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from plugin_kit import build_and_install, write_module

pytestmark = pytest.mark.e2e

RUN = ("-c", "import sys; from parley.cli.app import main; sys.argv[0] = 'parley'; main()")


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Two distributions installed with pip into one folder: a good plugin and a broken one."""
    root = tmp_path_factory.mktemp("plugins")
    target = root / "site"
    good = root / "good"
    write_module(good / "parley_tiny_plugin", "__init__")
    build_and_install(
        good,
        "parley-tiny-plugin",
        {
            "parley.agents": {
                "tiny": "parley_tiny_plugin:make",
                "tiny-raises": "parley_tiny_plugin:explodes",
            },
            "parley.mediators": {"tiny-mediator": "parley_tiny_plugin:make_mediator"},
        },
        target,
    )
    broken = root / "broken"
    write_module(broken / "parley_broken_plugin", "__init__", "raise ImportError('broken on purpose')\n")
    build_and_install(
        broken, "parley-broken-plugin", {"parley.agents": {"broken": "parley_broken_plugin:make"}}, target
    )
    write_module(root / "modules", "tests_plugin_mod")
    return root


def parley(site: Path, *args: str, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    """Run the parley CLI in a fresh process with the plugins' folder and the module folder on PYTHONPATH."""
    paths = [str(site / "site"), str(site / "modules")]
    if os.environ.get("PYTHONPATH"):
        paths.append(os.environ["PYTHONPATH"])
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(paths), "COLUMNS": "200"}
    return subprocess.run(
        [sys.executable, *RUN, *args],
        capture_output=True,
        text=True,
        timeout=600,
        env=env,
        cwd=cwd,
        check=False,
    )


def one_error_line(completed: subprocess.CompletedProcess[str]) -> str:
    assert completed.returncode == 2, completed.stdout + completed.stderr
    assert "Traceback" not in completed.stderr + completed.stdout
    lines = completed.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: "), completed.stderr
    return lines[0]


def test_pip_installed_the_plugins(site: Path) -> None:
    assert (site / "site" / "parley_tiny_plugin" / "__init__.py").is_file()
    entry_points = next((site / "site").glob("parley_tiny_plugin-0.1.dist-info")) / "entry_points.txt"
    assert "tiny = parley_tiny_plugin:make" in entry_points.read_text()


def test_an_installed_plugin_plays_a_game(site: Path) -> None:
    completed = parley(site, "run", "casino", "--agent", "tiny", "--agent", "boulware", "--json")
    assert completed.returncode == 0, completed.stderr
    assert completed.stderr == ""  # the broken plugin beside it is never mentioned
    result = json.loads(completed.stdout)
    assert [p["agent"] for p in result["parties"]] == ["tiny", "boulware"]
    assert "agreement" in result or "no_deal" in result


def test_an_installed_plugin_plays_a_tournament(site: Path, tmp_path: Path) -> None:
    out = tmp_path / "results"
    completed = parley(
        site,
        "tournament",
        "--agents",
        "tiny,boulware",
        "--agents",
        "tests_plugin_mod:make",
        "--scenarios",
        "casino",
        "--out",
        str(out),
        "--repetitions",
        "1",
        "--jobs",
        "2",
    )
    assert completed.returncode == 0, completed.stderr
    assert "Traceback" not in completed.stderr
    rows = [json.loads(line) for line in (out / "results.jsonl").read_text().splitlines()]
    assert {row["agent"] for row in rows} == {"tiny", "boulware", "tests_plugin_mod:make"}
    assert len(rows) == 3 * 2 * 2 and not any(row["failed"] for row in rows)  # 6 games, 2 rows each
    assert "tiny" in completed.stdout and "tests_plugin_mod:make" in completed.stdout


def test_a_module_factory_plays_by_its_spec(site: Path) -> None:
    completed = parley(
        site, "run", "casino", "--agent", "tests_plugin_mod:make", "--agent", "linear", "--json"
    )
    assert completed.returncode == 0, completed.stderr
    assert [p["agent"] for p in json.loads(completed.stdout)["parties"]] == [
        "tests_plugin_mod:make",
        "linear",
    ]
    completed = parley(
        site, "run", "casino", "--agent", "tests_plugin_mod:Tiny", "--agent", "linear", "--json"
    )
    assert completed.returncode == 0, completed.stderr


@pytest.mark.parametrize(
    ("agent", "expected"),
    [
        ("broken", "agent plugin 'broken' (distribution parley-broken-plugin 0.1) could not be loaded from "),
        ("tiny-raises", "agent plugin 'tiny-raises' (distribution parley-tiny-plugin 0.1) failed to build"),
        ("no_such_module_xyz:make", "agent 'no_such_module_xyz:make': no module named 'no_such_module_xyz'"),
        ("tests_plugin_mod:missing", "module 'tests_plugin_mod' has no attribute 'missing'"),
        ("tests_plugin_mod:not_a_negotiator", "its factory returned a int, not a negotiator"),
        ("tests_plugin_mod:NOT_CALLABLE", "is a int, not a negotiator factory"),
        ("tests_plugin_mod:ma\u200bke", "U+200B ZERO WIDTH SPACE"),
        ("b\u043eulware", "U+043E CYRILLIC SMALL LETTER O"),
        ("x" * 50_000 + ":y", "no module named 'xxxx"),
        ("x" * 50_000 + ":-", "is not a valid package.module:attribute spec"),
    ],
)
def test_a_bad_agent_is_one_line_and_no_traceback(site: Path, agent: str, expected: str) -> None:
    line = one_error_line(parley(site, "run", "casino", "--agent", agent, "--agent", "boulware"))
    assert expected in line and len(line) < 600, line


def test_a_broken_plugin_stops_a_tournament_before_its_first_game(site: Path, tmp_path: Path) -> None:
    line = one_error_line(
        parley(
            site, "tournament", "--agents", "boulware,broken", "--scenarios", "casino", "--out", str(tmp_path)
        )
    )
    assert "agent plugin 'broken' (distribution parley-broken-plugin 0.1)" in line
    assert not (tmp_path / "results.jsonl").exists()


def test_a_plugin_mediator_mediates(site: Path) -> None:
    completed = parley(site, "mediate", "hmo", "--mediator", "tiny-mediator", "--quiet")
    assert completed.returncode == 0, completed.stderr
    line = one_error_line(parley(site, "mediate", "hmo", "--mediator", "tests_plugin_mod:not_a_mediator"))
    assert "not a conversation mediator" in line
