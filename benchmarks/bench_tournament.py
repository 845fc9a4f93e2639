"""Tournament memory: `parley tournament` over 100,000 games keeps its main process under 200 MB.

The results file is streamed (the summary accumulates per-agent counts, means and squared
deviations; results.csv is written row by row) and only a few batches are in flight, so the main
process's memory must not grow with the number of games. Target from issue 15: 100,000 games with
a peak RSS of the main process ≤ 200 MB.
"""

from __future__ import annotations

import os

from harness import command_for, run_task, table, verdict

GAMES = 100_000
QUICK_GAMES = 10_000
PEAK_TARGET_MB = 200.0


def run(quick: bool) -> str:
    """Play the tournament in a fresh process and report its main process's peak RSS."""
    games = QUICK_GAMES if quick else GAMES
    jobs = min(2, os.cpu_count() or 1)
    result = run_task("tournament_task.py", "--games", str(games), "--jobs", str(jobs), timeout=3600.0)
    peak = float(result["peak_rss_mb"])
    whole = result["rows"] == 2 * result["games"]
    rows = table(
        ["measurement", "result", "target", "verdict"],
        [
            [
                f"main process peak RSS, {result['games']:,} games ({result['rows']:,} rows), {jobs} workers",
                f"{peak:.0f} MB",
                f"≤ {PEAK_TARGET_MB:.0f} MB at {GAMES:,} games",
                verdict(peak <= PEAK_TARGET_MB and whole) + ("" if games == GAMES else " (smaller run)"),
            ],
            ["largest worker's peak RSS", f"{float(result['worker_peak_rss_mb']):.0f} MB", "—", "—"],
            [
                "wall clock (play, store, summary, results.csv)",
                f"{float(result['seconds']):.0f} s",
                "—",
                "—",
            ],
        ],
    )
    smaller = (
        ""
        if games == GAMES
        else f"\nQuick mode plays {games:,} games; the target is for {GAMES:,} (run without --quick).\n"
    )
    return (
        "## Tournament memory\n\n"
        f"`parley tournament --agents hardliner,conceder --scenarios casino --repetitions {games // 2} "
        f"--jobs {jobs}` (the cheapest agents on the smallest scenario, so the run measures the "
        "tournament's bookkeeping, not the agents), run in-process by `benchmarks/tournament_task.py` "
        "in a fresh interpreter whose own `ru_maxrss` is the figure; the pool workers are separate "
        "processes. The main process holds the game plan and a few batches in flight; the summary "
        "and results.csv stream results.jsonl. Before the streaming summary the same command "
        "peaked at 999 MB on this machine (the file was read back whole three times).\n\n"
        + rows
        + smaller
        + f"\nReproduce: `{command_for('tournament', quick)}`\n"
    )
