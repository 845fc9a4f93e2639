"""Task subprocess for bench_tournament: one whole `parley tournament` run, in this process.

Run as `python benchmarks/tournament_task.py --games N --jobs J`. The command runs in-process
(typer's `standalone_mode=False`), so the peak RSS that `harness.report` adds is the tournament's
main process alone: the pool workers are separate processes and are reported apart, as the
largest peak among them.
"""

from __future__ import annotations

import argparse
import resource
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from harness import report

AGENTS = "hardliner,conceder"
"""The cheapest pairing: both agents decide in microseconds; two seatings per repetition."""
SCENARIO = "casino"
"""The smallest shipped scenario (64 outcomes, 2 parties)."""


def run_tournament(games: int, jobs: int, out: Path) -> dict[str, Any]:
    """Play `games` games with `parley tournament` into out and describe what it stored."""
    from parley.cli.app import app

    repetitions = max(1, games // 2)  # two seatings of the one pairing
    args = ["tournament", "--agents", AGENTS, "--scenarios", SCENARIO, "--repetitions", str(repetitions)]
    args += ["--jobs", str(jobs), "--out", str(out)]
    started = time.perf_counter()
    app(args, standalone_mode=False)
    elapsed = time.perf_counter() - started
    with (out / "results.jsonl").open("rb") as handle:
        rows = sum(1 for _ in handle)
    return {
        "games": 2 * repetitions,
        "rows": rows,
        "seconds": elapsed,
        "worker_peak_rss_mb": resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024.0,
    }


def main() -> None:
    """Parse the size, run the tournament in a scratch folder, report."""
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--games", type=int, default=100_000)
    parser.add_argument("--jobs", type=int, default=2)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="parley-bench-tournament-") as directory:
        result = run_tournament(args.games, args.jobs, Path(directory))
    report(result)


if __name__ == "__main__":
    main()
