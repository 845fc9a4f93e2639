"""`parley tournament` end to end: failed games, bad options, and stopping by signal (issue 15)."""

from __future__ import annotations

import contextlib
import json
import signal
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path

import psutil
import pytest
from typer.testing import CliRunner

from parley.cli.app import app

pytestmark = pytest.mark.e2e
runner = CliRunner()


def _tournament(*args: str) -> tuple[int, str, str]:
    result = runner.invoke(app, ["tournament", *args], env={"COLUMNS": "200"})
    return result.exit_code, result.stdout, result.stderr


def _parties(game: str) -> int:
    """Rows in a whole game: one per agent in its key, `scenario|agent,agent|repetition`."""
    return game.rsplit("|", 2)[1].count(",") + 1


def _assert_whole_games_only(path: Path) -> Counter[str]:
    """Every stored line parses and every stored game has each of its rows exactly once."""
    rows = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]
    per_game: Counter[str] = Counter(row["game"] for row in rows)
    pairs = Counter((row["game"], row["party"]) for row in rows)
    assert all(count == 1 for count in pairs.values()), "a row is stored twice"
    assert all(count == _parties(game) for game, count in per_game.items()), "a game is incomplete"
    return per_game


def test_a_tournament_in_which_every_game_failed_is_an_error(
    tmp_path: Path, unplayable_scenario: Path
) -> None:
    code, stdout, stderr = _tournament(
        "--agents", "boulware,conceder", "--scenarios", str(unplayable_scenario),
        "--repetitions", "2", "--jobs", "1", "--out", str(tmp_path),
    )  # fmt: skip
    assert code == 1
    lines = stderr.strip().splitlines()
    assert len(lines) == 1, stderr
    assert "every game failed (4 of 4)" in lines[0] and "enumerable" in lines[0]
    assert "Traceback" not in stdout + stderr
    assert (tmp_path / "results.csv").exists()  # the rows stay inspectable


def test_failed_games_have_their_own_column(tmp_path: Path, unplayable_scenario: Path) -> None:
    code, stdout, stderr = _tournament(
        "--agents", "boulware,conceder", "--scenarios", f"casino,{unplayable_scenario}",
        "--repetitions", "2", "--jobs", "1", "--out", str(tmp_path),
    )  # fmt: skip
    assert code == 0, stdout + stderr
    assert stderr == ""  # the agents' errors are in the rows, not logged once per game
    header = next(line for line in stdout.splitlines() if "agent" in line and "games" in line)
    assert "failed" in header
    boulware = next(line for line in stdout.splitlines() if "boulware" in line)
    cells = [cell.strip() for cell in boulware.split("│") if cell.strip()]
    assert cells[:3] == ["boulware", "8", "4"]  # 4 casino + 4 unplayable party-games; 4 failed
    assert "4 of 8 games failed and are left out of the means" in stdout
    header_csv = (tmp_path / "results.csv").read_text(encoding="utf-8").splitlines()[0]
    assert header_csv.endswith(",failed,error,llm_fallback_share")


@pytest.mark.parametrize("option", ["--jobs", "--repetitions"])
def test_zero_counts_are_usage_errors(tmp_path: Path, option: str) -> None:
    code, _, stderr = _tournament(
        "--agents", "boulware,conceder", "--scenarios", "casino", "--out", str(tmp_path), option, "0"
    )
    assert code == 2 and option in stderr


def test_an_out_path_that_is_a_file_is_one_line(tmp_path: Path) -> None:
    taken = tmp_path / "taken"
    taken.write_text("not a folder", encoding="utf-8")
    code, stdout, stderr = _tournament(
        "--agents", "boulware,conceder", "--scenarios", "casino", "--out", str(taken)
    )
    assert code == 2
    assert len(stderr.strip().splitlines()) == 1 and str(taken) in stderr
    assert "Traceback" not in stdout + stderr


@pytest.mark.slow
@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGINT], ids=["SIGTERM", "SIGINT"])
def test_a_stop_signal_ends_the_workers_and_keeps_whole_games(tmp_path: Path, signum: signal.Signals) -> None:
    # Ctrl-C as a terminal delivers it: a child started from a background job inherits SIGINT ignored
    # (and keeps ignoring it, as it should), so the test restores Python's default handler first.
    start = "import signal; signal.signal(signal.SIGINT, signal.default_int_handler); "
    command = [
        sys.executable, "-c", start + "from parley.cli.app import main; main()", "tournament",
        "--agents", "boulware,conceder,linear,random", "--scenarios", "casino",
        "--repetitions", "2000", "--jobs", "2", "--out", str(tmp_path),
    ]  # fmt: skip
    results = tmp_path / "results.jsonl"
    process = subprocess.Popen(
        command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True, start_new_session=True
    )
    children: list[psutil.Process] = []
    try:
        deadline = time.monotonic() + 120
        while not (results.exists() and results.stat().st_size) and process.poll() is None:
            assert time.monotonic() < deadline, "the tournament stored nothing in two minutes"
            time.sleep(0.05)
        assert process.poll() is None, "the tournament ended before it could be stopped"
        children = psutil.Process(process.pid).children(recursive=True)
        assert len(children) >= 2  # the pool's workers
        process.send_signal(signum)  # to the parent alone, as `kill PID` does
        _, stderr = process.communicate(timeout=60)
        assert process.returncode == 128 + signum
        lines = stderr.strip().splitlines()
        assert len(lines) == 1, stderr
        assert f"stopped by {signum.name}" in lines[0] and "resume" in lines[0]
        _, alive = psutil.wait_procs(children, timeout=10)
        assert not alive, f"workers outlived the tournament: {[p.pid for p in alive]}"
        stored = _assert_whole_games_only(results)
        assert 0 < len(stored) < 12 * 2000
    finally:  # whatever happened, leave no process behind
        if process.poll() is None:
            process.kill()
            process.wait(timeout=10)
        for child in children:
            with contextlib.suppress(psutil.NoSuchProcess):
                child.kill()
