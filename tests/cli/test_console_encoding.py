"""A console that cannot show "—", "±" or "…" (PYTHONIOENCODING=ascii) degrades, never crashes."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.e2e

ENTRY = "import sys; from parley.cli.app import main; sys.argv[0] = 'parley'; main()"


def parley(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONIOENCODING": "ascii"}
    for name in ("PYTHONUTF8", "COLUMNS", "LINES"):  # a plain 80-column console, as rich assumes
        env.pop(name, None)
    return subprocess.run(
        [sys.executable, "-c", ENTRY, *args],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        encoding="ascii",
        errors="strict",  # the child must only ever write ASCII to an ASCII console
        timeout=300,
        check=False,
    )


@pytest.mark.parametrize(
    "args",
    [
        ("run", "casino", "--agent", "boulware", "--agent", "conceder"),
        ("analyze", "casino"),
        ("scenarios", "list"),
        ("scenarios", "show", "casino"),
        ("--help",),
        (
            "tournament",
            "--agents",
            "boulware,conceder",
            "--scenarios",
            "casino",
            "--repetitions",
            "1",
            "--jobs",
            "1",
            "--out",
            "results",
        ),
    ],
    ids=lambda args: " ".join(args[:2]),
)
def test_commands_print_to_an_ascii_console_without_a_traceback(
    args: tuple[str, ...], tmp_path: Path
) -> None:
    done = parley(*args, cwd=tmp_path)
    assert "Traceback" not in done.stderr, done.stderr
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip()


def test_an_error_on_an_ascii_console_is_still_one_line(tmp_path: Path) -> None:
    done = parley("analyze", "casino", "--plot", "out.txt", cwd=tmp_path)
    assert done.returncode == 2
    assert "Traceback" not in done.stderr
    assert len(done.stderr.strip().splitlines()) == 1, done.stderr
