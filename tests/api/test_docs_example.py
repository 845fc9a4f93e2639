"""docs/api.md runs as written: every Python block, in order, in one fresh interpreter; and its custom
negotiator stays within 20 lines, played against a baseline in at most 5 more."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.e2e

PAGE = Path(__file__).resolve().parents[2] / "docs" / "api.md"
NEGOTIATOR_HEADING = "## Your own negotiator"
NEGOTIATOR_LINES = 20
PLAY_LINES = 5


def python_blocks(text: str) -> list[str]:
    """The ```python fenced blocks of a Markdown text, in order."""
    return re.findall(r"^```python\n(.*?)^```", text, flags=re.MULTILINE | re.DOTALL)


def section(text: str, heading: str) -> str:
    """The text under heading, up to the next heading of the same level."""
    start = text.index(heading + "\n")
    following = text.find("\n## ", start + len(heading))
    return text[start : following if following != -1 else len(text)]


def run_python(code: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        timeout=600,
        cwd=cwd,
        env={**os.environ, "COLUMNS": "120"},
        check=False,
    )


def test_the_custom_negotiator_is_short() -> None:
    blocks = python_blocks(section(PAGE.read_text(encoding="utf-8"), NEGOTIATOR_HEADING))
    negotiator, play = blocks[0], blocks[1]
    assert len(negotiator.splitlines()) <= NEGOTIATOR_LINES, negotiator
    assert len(play.splitlines()) <= PLAY_LINES, play
    assert "class " in negotiator and "def act(" in negotiator
    assert "run_session(" in play and "boulware" in play


def test_the_custom_negotiator_plays_a_baseline(tmp_path: Path) -> None:
    blocks = python_blocks(section(PAGE.read_text(encoding="utf-8"), NEGOTIATOR_HEADING))
    completed = run_python(blocks[0] + "\n" + blocks[1], tmp_path)
    assert completed.returncode == 0, completed.stderr
    assert "Parties" in completed.stdout and "Stubborn" in completed.stdout and "boulware" in completed.stdout


def test_every_block_of_the_page_runs(tmp_path: Path) -> None:
    code = "\n".join(python_blocks(PAGE.read_text(encoding="utf-8")))
    completed = run_python(code, tmp_path)
    assert completed.returncode == 0, completed.stderr
    assert completed.stderr == ""
    for shown in ("Tournament results", "Bargaining solutions", "every check passed", "Nash:"):
        assert shown in completed.stdout
    assert (tmp_path / "run.jsonl").is_file()
