"""Startup: cold `parley --help` and a small `parley run`, each in a fresh process (issue 15).

Every command pays for what `parley.cli.app` imports before it does anything, so the entry module
registers the commands without their implementations (scipy, matplotlib, the web console, dask
and the LLM client layer load inside the commands that use them). Target from issue 15:
`parley --help` ≤ 0.3 s cold.
"""

from __future__ import annotations

import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path

from harness import ROOT, TaskError, Timing, command_for, fmt, table, verdict

HELP_TARGET_S = 0.3
RUN_ARGS = ("run", "casino", "--agent", "astra", "--agent", "base", "--seed", "7")
COMMANDS = {"parley --help": ("--help",), f"parley {' '.join(RUN_ARGS)}": RUN_ARGS}
HEAVY = ("scipy", "numpy", "pydantic", "yaml", "matplotlib", "fastapi", "uvicorn", "dask", "httpx")
"""Libraries `import parley.cli.app` must not load (tests/cli/test_startup_imports.py checks it too)."""
SHOWN_IMPORTS = 8
ENTRY_MODULE = "import parley.cli.app"
OWN = "parley's own modules"
STDLIB = "standard library (imported by parley itself)"


def parley_script() -> Path:
    """The `parley` console script installed beside this interpreter (the bench venv's).

    Raises:
        TaskError: there is none (parley is not installed in this environment).
    """
    script = Path(sys.executable).parent / "parley"
    if not script.is_file():
        raise TaskError(f"no parley console script beside {sys.executable}: pip install -e . first")
    return script


def child_environment() -> dict[str, str]:
    """The environment of a user's shell: bytecode is cached as usual (a first run writes it)."""
    unusual = ("PYTHONDONTWRITEBYTECODE", "PYTHONPROFILEIMPORTTIME")
    return {name: value for name, value in os.environ.items() if name not in unusual}


def time_command(command: Sequence[str], folder: Path) -> tuple[float, float]:
    """Wall-clock and CPU (user + system) seconds of one run of command in a fresh process.

    Raises:
        TaskError: the command failed.
    """
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.perf_counter()
    completed = subprocess.run(
        command,
        cwd=folder,
        env=child_environment(),
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
        timeout=300,
        check=False,
    )
    wall = time.perf_counter() - started
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if completed.returncode != 0:
        raise TaskError(f"{' '.join(command)} exited {completed.returncode}: {completed.stderr[-500:]}")
    cpu = (after.ru_utime + after.ru_stime) - (before.ru_utime + before.ru_stime)
    return wall, cpu


def time_commands(repeat: int) -> dict[str, tuple[Timing, Timing]]:
    """Per command, wall-clock and CPU timings over repeat fresh processes.

    The commands take turns, so a drift in this host's speed touches both alike; one untimed run
    of each first writes the bytecode cache, as a user's first run does.
    """
    script = str(parley_script())
    samples: dict[str, list[tuple[float, float]]] = {name: [] for name in COMMANDS}
    with tempfile.TemporaryDirectory() as folder:
        for args in COMMANDS.values():
            time_command([script, *args], Path(folder))
        for _ in range(repeat):
            for name, args in COMMANDS.items():
                samples[name].append(time_command([script, *args], Path(folder)))
    return {
        name: (Timing(tuple(wall for wall, _ in runs)), Timing(tuple(cpu for _, cpu in runs)))
        for name, runs in samples.items()
    }


def import_profile(repeat: int) -> tuple[float, list[tuple[str, float]], list[str]]:
    """`python -X importtime -c "import parley.cli.app"`, repeat times.

    Returns:
        The median seconds of the whole import; per top-level package it loaded (parley's own
        modules: their own time only), the median seconds, largest first; which of `HEAVY` it loaded.
    """
    runs: list[dict[str, float]] = []
    for _ in range(repeat):
        completed = subprocess.run(
            [sys.executable, "-X", "importtime", "-c", "import parley.cli.app"],
            env=child_environment(),
            capture_output=True,
            text=True,
            timeout=120,
            check=True,
        )
        runs.append(seconds_by_package(completed.stderr, "parley.cli.app"))
    names = set().union(*runs)
    median = {name: statistics.median(run.get(name, 0.0) for run in runs) for name in names}
    entry = median.pop(ENTRY_MODULE)
    largest = sorted(median.items(), key=lambda item: -item[1])[:SHOWN_IMPORTS]
    loaded = [name for name in HEAVY if name in names]
    return entry, largest, loaded


def seconds_by_package(importtime: str, entry: str) -> dict[str, float]:
    """Seconds spent in each top-level package while importing entry, from `-X importtime` output.

    A package's figure is the cumulative time of the imports parley's modules make of it (what it
    imports in turn included); parley counts its modules' own time (`OWN`), and the standard library
    modules that parley imports count together (`STDLIB`), so the figures add up to the whole
    import, which `ENTRY_MODULE` maps to.
    """
    lines = [line.removeprefix("import time:") for line in importtime.splitlines()]
    entries = [line.split("|") for line in lines if line.count("|") == 2 and "cumulative" not in line]
    totals: dict[str, float] = {}
    stack: list[tuple[int, str]] = []
    for own, cumulative, shown in reversed(entries):  # (the output lists a module after its imports)
        depth, name = len(shown) - len(shown.lstrip()), shown.strip()
        while stack and stack[-1][0] >= depth:
            stack.pop()
        ancestors = [ancestor for _, ancestor in stack]
        stack.append((depth, name))
        if name == entry:
            totals[ENTRY_MODULE] = int(cumulative) / 1e6
        elif entry not in ancestors:
            continue
        root = name.partition(".")[0]
        if root == "parley":
            totals[OWN] = totals.get(OWN, 0.0) + int(own) / 1e6
        elif all(ancestor.startswith("parley") for ancestor in ancestors):  # imported by parley itself
            package = STDLIB if root in sys.stdlib_module_names else root
            totals[package] = totals.get(package, 0.0) + int(cumulative) / 1e6
    return totals


def _load() -> float | None:
    try:
        return os.getloadavg()[0]
    except OSError:
        return None


def _load_note(before: float | None, after: float | None) -> str:
    if before is None or after is None:
        return "Machine load while this section ran: unknown.\n"
    cores = os.cpu_count() or 1
    note = f"1-minute load average at the start / end: {before:.2f} / {after:.2f} on {cores} cores"
    if max(before, after) > 0.5 * cores:
        return f"**{note}: the machine was shared and busy**, so wall-clock times are noisy (CPU less so).\n"
    return f"{note}.\n"


def run(quick: bool) -> str:
    """Time cold `parley --help` and `parley run casino ...`, and profile the entry module's imports."""
    repeat = 5 if quick else 15
    load_before = _load()
    timings = time_commands(repeat)
    entry, largest, heavy = import_profile(3 if quick else 7)
    load_after = _load()
    help_wall = timings["parley --help"][0]
    rows = [
        [
            f"`{name}`",
            wall.describe("s"),
            cpu.describe("s"),
            f"≤ {HELP_TARGET_S:g} s" if name == "parley --help" else "—",
            verdict(wall.median <= HELP_TARGET_S) if name == "parley --help" else "—",
        ]
        for name, (wall, cpu) in timings.items()
    ]
    imports = table(
        ["package", "median"],
        [[name if name in (OWN, STDLIB) else f"`{name}`", fmt(seconds, "ms")] for name, seconds in largest],
    )
    script = parley_script()
    shown = script.relative_to(ROOT) if script.is_relative_to(ROOT) else script
    return (
        "## Startup\n\n"
        f"Command: `{command_for('startup', quick)}`. Each figure is a fresh process of the console "
        f"script `{shown}`, run {repeat} times (the two commands take turns, after one untimed run "
        "of each that writes the bytecode cache, as a user's first run does); the table shows the "
        "median wall-clock time with the fastest–slowest run in brackets, and the CPU time (user + "
        "system) of the same runs, which a busy machine disturbs less. Before the lazy imports "
        "(commit c1fb5c5), `import parley.cli.app` loaded scipy, numpy, pydantic and every "
        "command's implementation: measured as here (load 2–4), `parley --help` then took 1.31 s "
        "of CPU and the `parley run` below 1.49 s (medians of 7), the import alone 1.13 s, 0.65 s of "
        "it scipy; issue 15 had a cold `parley run` at 1.2–1.4 s.\n\n"
        + _load_note(load_before, load_after)
        + "\n"
        + table(["command", "wall clock", "CPU", "target", "verdict"], rows)
        + f"\n`parley --help` cold: **{fmt(help_wall.median, 's')}** (target ≤ {HELP_TARGET_S:g} s: "
        f"**{verdict(help_wall.median <= HELP_TARGET_S)}**).\n\n"
        f'`python -X importtime -c "import parley.cli.app"` (median of {3 if quick else 7} runs): '
        f"{fmt(entry, 'ms')} in all; heavy libraries loaded: {', '.join(heavy) or 'none'} "
        f"(checked: {', '.join(HEAVY)}). Where the time goes, by package (typer and rich, which "
        "every command uses, are the floor):\n\n"
        + imports
        + f"\nReproduce: `{command_for('startup', quick)}`\n"
    )


if __name__ == "__main__":
    print(run(quick="--quick" in sys.argv))
