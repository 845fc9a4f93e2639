"""The fuzz test's kinds of bad input through the real `parley` executable (issue 15): the exit codes and
stderr a shell sees, bytes that are not UTF-8 in argv, and `--help` left as it was.

`test_fuzz_cli.py` runs thousands of cases in-process; these few check that the console script behaves
the same way from outside (its own stream set-up, `sys.exit` codes, surrogate-escaped argv).
"""

from __future__ import annotations

import hashlib
import os
import subprocess
import sys
from pathlib import Path

import pytest

PARLEY = Path(sys.executable).with_name("parley")
pytestmark = [
    pytest.mark.e2e,
    pytest.mark.slow,
    pytest.mark.skipif(not PARLEY.exists(), reason="the parley console script is not installed"),
]


def parley(*args: str | bytes, cwd: Path) -> subprocess.CompletedProcess[bytes]:
    env = {**os.environ, "COLUMNS": "60"}
    env.pop("PARLEY_DEBUG", None)
    return subprocess.run(
        [PARLEY, *args],
        cwd=cwd,
        env=env,
        capture_output=True,
        timeout=120,
        check=False,
        stdin=subprocess.DEVNULL,
    )


def snapshot(root: Path) -> dict[str, str]:
    return {
        str(path.relative_to(root)): "<folder>"
        if path.is_dir()
        else hashlib.sha256(path.read_bytes()).hexdigest()
        for path in root.rglob("*")
    }


@pytest.fixture
def folder(tmp_path: Path) -> Path:
    (tmp_path / "broken.yaml").write_bytes(b"name: broken\nissues: [\n")
    (tmp_path / "notes.txt").write_text("keep me\n", encoding="utf-8")
    return tmp_path


@pytest.mark.parametrize(
    ("args", "names"),
    [
        (("run", "casino", "-a", "boulware", "-a", "conceder", "--seed", "abc"), "--seed"),
        (
            (
                "tournament",
                "--agents",
                "boulware,conceder",
                "--scenarios",
                "casino",
                "--out",
                "r",
                "--jobs",
                "x",
            ),
            "--jobs",
        ),
        (("experiment", "gaia", "--seeds", "99999999999999999999"), "--seeds"),
        (("scenarios", "show", b"caf\xff\xfe"), "caf"),
        (("run", "broken.yaml", "-a", "boulware", "-a", "conceder"), "broken.yaml"),
        (("analyze", "casino", "--trajectory", "notes.txt"), "notes.txt"),
        (("delegate", "inbox", "--db", "notes.txt"), "notes.txt"),
        (("audit", "log", b"s\xff", "--db", "notes.txt"), "session"),
        (("run", "casino", "-a", "boulware", "-a", "conceder", "--save", "notes.txt/out"), "notes.txt"),
    ],
    ids=lambda value: " ".join(map(str, value[:2])) if isinstance(value, tuple) else None,
)
def test_a_bad_invocation_exits_2_with_one_line_and_leaves_the_folder_alone(
    args: tuple[str | bytes, ...], names: str, folder: Path
) -> None:
    before = snapshot(folder)
    done = parley(*args, cwd=folder)
    err = done.stderr.decode("utf-8")  # (undecodable bytes come back escaped, never raw)
    assert done.returncode == 2, err
    assert "Traceback" not in err + done.stdout.decode("utf-8", "replace")
    lines = err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: "), err
    assert "internal error" not in err, err  # (the last-resort handler: a bug, not a handled failure)
    assert names in lines[0], err
    assert snapshot(folder) == before


def test_help_is_a_normal_help_page(folder: Path) -> None:
    done = parley("run", "--help", cwd=folder)
    assert done.returncode == 0 and done.stderr == b""
    assert b"Usage: parley run" in done.stdout and b"--seed" in done.stdout


def test_a_bare_command_shows_its_help(folder: Path) -> None:
    done = parley(cwd=folder)
    assert done.returncode == 2 and done.stderr == b""
    assert b"Usage: parley" in done.stdout and b"tournament" in done.stdout
