"""Measurement helpers shared by every `benchmarks/bench_*.py` module.

Timings: warm-up, several repetitions, median and spread (`measure`), or the best CPU and wall
seconds of a few runs (`best_seconds`). Memory and cold-start figures come from fresh subprocesses
(`run_task`) that report their own peak RSS. The crafted-text scans build their texts from the same
pieces (`repeated`, `printable_unicode`, `ORDINARY_LETTER`). Markdown helpers keep every section of
docs/benchmarks.md in the same shape.
"""

from __future__ import annotations

import json
import os
import random
import resource
import statistics
import subprocess
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

BENCH_DIR = Path(__file__).resolve().parent
ROOT = BENCH_DIR.parent
RESULT_MARKER = "BENCH-RESULT "
"""Prefix of the one stdout line through which a task subprocess reports its JSON result."""


@dataclass(frozen=True, slots=True)
class Timing:
    """Seconds per call over several repetitions.

    Attributes:
        samples: Seconds per call, one per repetition (after warm-up).
    """

    samples: tuple[float, ...]

    @property
    def median(self) -> float:
        """Median seconds per call."""
        return statistics.median(self.samples)

    @property
    def low(self) -> float:
        """Fastest repetition."""
        return min(self.samples)

    @property
    def high(self) -> float:
        """Slowest repetition."""
        return max(self.samples)

    def to_json(self) -> dict[str, Any]:
        """JSON form (used to pass timings out of task subprocesses)."""
        return {"samples": list(self.samples)}

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Timing:
        """Inverse of to_json."""
        return cls(tuple(float(x) for x in data["samples"]))

    def describe(self, unit: str = "ms") -> str:
        """'median (low–high)' in the given unit (s, ms or us)."""
        return f"{fmt(self.median, unit)} ({fmt(self.low, unit)}–{fmt(self.high, unit)})"


def fmt(seconds: float, unit: str = "ms") -> str:
    """Seconds rendered in unit with three significant figures."""
    scale = {"s": 1.0, "ms": 1e3, "us": 1e6}[unit]
    return f"{seconds * scale:.3g} {unit}"


def measure(function: Callable[[], object], *, repeat: int = 5, warmup: int = 1, number: int = 1) -> Timing:
    """Time function: warm-up calls, then repeat batches of number calls each.

    Returns:
        Seconds per call for each batch.
    """
    for _ in range(warmup):
        function()
    samples: list[float] = []
    for _ in range(repeat):
        start = time.perf_counter()
        for _ in range(number):
            function()
        samples.append((time.perf_counter() - start) / number)
    return Timing(tuple(samples))


def best_seconds(action: Callable[[], object], repeat: int) -> tuple[float, float]:
    """(CPU seconds, wall seconds) of action, each the best of repeat runs.

    CPU seconds (`time.process_time`) are what a target is checked on where the machine is shared:
    wall time there measures the queue as much as the work.

    Raises:
        ValueError: repeat below 1.
    """
    if repeat < 1:
        raise ValueError(f"repeat must be at least 1, got {repeat}")
    cpu, wall = float("inf"), float("inf")
    for _ in range(repeat):
        cpu_start, wall_start = time.process_time(), time.perf_counter()
        action()
        cpu = min(cpu, time.process_time() - cpu_start)
        wall = min(wall, time.perf_counter() - wall_start)
    return cpu, wall


ORDINARY_LETTER = (
    "Thanks for the call yesterday. We can do 8,000 units at $15.40 with delivery in two lots, payment "
    "net-30, and our lawyer will send the draft agreement next week. If your manager approves the "
    "budget, I'd hate for the slot to go to someone else, so please let me know by Friday. "
)
"""An ordinary business letter, the crafted-text scans' non-adversarial text (repeated to size)."""


def repeated(piece: str, size: int) -> str:
    """piece repeated and cut to exactly size characters.

    Raises:
        ValueError: an empty piece (nothing to repeat) or a negative size.
    """
    if not piece or size < 0:
        raise ValueError(f"expected a piece and a size of at least 0, got {piece!r} and {size}")
    return (piece * (size // len(piece) + 1))[:size]


def printable_unicode(size: int, rng: random.Random) -> str:
    """Printable characters drawn at random from U+0020 to U+2FFFE: 2 x size draws from rng, the
    printable ones kept, cut to size (so about size characters; fewer only if most draws are not)."""
    drawn = (chr(rng.randrange(0x20, 0x2FFFF)) for _ in range(size * 2))
    return "".join(ch for ch in drawn if ch.isprintable())[:size]


def peak_rss_mb() -> float:
    """Peak resident memory of this process so far, in MB (Linux reports KB)."""
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0


def report(result: dict[str, Any]) -> None:
    """Print a task's result for the parent process (used inside task subprocesses)."""
    result = {**result, "peak_rss_mb": peak_rss_mb()}
    sys.stdout.write(RESULT_MARKER + json.dumps(result) + "\n")
    sys.stdout.flush()


class TaskError(RuntimeError):
    """A task subprocess failed or printed no result."""


def _task_command(script: str | Path, args: Sequence[str]) -> tuple[list[str], dict[str, str]]:
    command = [sys.executable, str(BENCH_DIR / script), *args]
    search_path = os.pathsep.join(filter(None, [str(BENCH_DIR), os.environ.get("PYTHONPATH")]))
    environment = {**os.environ, "PYTHONHASHSEED": "0", "PYTHONWARNINGS": "ignore", "PYTHONPATH": search_path}
    return command, environment


READY_MARKER = "BENCH-READY"
"""What a serving task prints once warmed up (see `lockstep`)."""
BATCH_MARKER = "BENCH-BATCH "
"""Prefix of a serving task's reply: seconds per call of the batch just timed."""


def serve(one: Callable[[], object], *, warmup: int = 20) -> int:
    """Inside a task subprocess: after warm-up, time a batch of `one()` calls per line of stdin.

    Each stdin line holds a batch size; the reply is one marked line, seconds per call (anything
    else the calls print is skipped by `lockstep`). Stops at EOF.

    Returns:
        How many batches were timed.
    """
    for _ in range(warmup):
        one()
    print(READY_MARKER, flush=True)
    batches = 0
    for line in sys.stdin:
        number = int(line)
        start = time.perf_counter()
        for _ in range(number):
            one()
        print(f"{BATCH_MARKER}{(time.perf_counter() - start) / number!r}", flush=True)
        batches += 1
    return batches


def _next_marked(process: subprocess.Popen[str], marker: str) -> str | None:
    """The rest of the process's next stdout line that starts with marker (None at EOF)."""
    assert process.stdout is not None
    for line in process.stdout:
        if line.startswith(marker):
            return line[len(marker) :].strip()
    return None


def lockstep(
    script: str | Path, sides: Sequence[tuple[Sequence[str], int]], rounds: int
) -> tuple[Timing, ...]:
    """Time several serving tasks (see `serve`) in turn, batch by batch, in their own processes.

    This host's speed drifts over seconds: sides timed one after the other can land in different
    phases, while sides that take turns every fraction of a second share them. Each side keeps
    its own process (its own imports, garbage and caches), as a user would run it.

    Args:
        script: The task script.
        sides: Per side, the task's arguments and how many calls one batch holds.
        rounds: How many batches each side runs.

    Returns:
        Per side, seconds per call of each batch (batch i of every side ran back to back).

    Raises:
        TaskError: a side failed to start or stopped answering.
    """
    processes: list[subprocess.Popen[str]] = []
    try:
        for args, _ in sides:
            command, environment = _task_command(script, args)
            process = subprocess.Popen(
                command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, cwd=ROOT, env=environment
            )
            processes.append(process)
            if _next_marked(process, READY_MARKER) is None:
                raise TaskError(f"{' '.join(command[1:])} did not start serving")
        samples: list[list[float]] = [[] for _ in sides]
        for _ in range(rounds):
            for process, (args, number), side_samples in zip(processes, sides, samples, strict=True):
                assert process.stdin is not None
                process.stdin.write(f"{number}\n")
                process.stdin.flush()
                reply = _next_marked(process, BATCH_MARKER)
                if reply is None:
                    raise TaskError(f"{script} {' '.join(args)} stopped answering")
                side_samples.append(float(reply))
        return tuple(Timing(tuple(side_samples)) for side_samples in samples)
    finally:
        for process in processes:  # EOF on stdin ends a side; what it still prints is read and dropped
            try:
                process.communicate(timeout=60)
            except subprocess.TimeoutExpired:
                process.kill()
                process.communicate()


def run_task(script: str | Path, *args: str, timeout: float = 900.0) -> dict[str, Any]:
    """Run `python benchmarks/<script> args...` in a fresh process and return its reported JSON.

    The child uses this interpreter (the bench venv, where both parley and NegMAS are installed)
    and reports its own peak RSS, so memory figures are per fresh process.

    Raises:
        TaskError: the child exited non-zero or reported nothing (its stderr tail is included).
    """
    command, environment = _task_command(script, args)
    completed = subprocess.run(
        command, capture_output=True, text=True, timeout=timeout, cwd=ROOT, env=environment, check=False
    )
    for line in completed.stdout.splitlines():
        if line.startswith(RESULT_MARKER):
            return json.loads(line[len(RESULT_MARKER) :])
    tail = "\n".join(completed.stderr.strip().splitlines()[-8:])
    raise TaskError(f"{' '.join(command[1:])} exited {completed.returncode} without a result:\n{tail}")


def negmas_version() -> str | None:
    """Version of the installed negmas, or None when it is not installed here."""
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("negmas")
    except PackageNotFoundError:
        return None


def verdict(passed: bool) -> str:
    """PASS or MISS, for target columns."""
    return "PASS" if passed else "MISS"


def table(headers: Sequence[str], rows: Sequence[Sequence[object]]) -> str:
    """A markdown table."""
    lines = ["| " + " | ".join(headers) + " |", "|" + "|".join("---" for _ in headers) + "|"]
    lines += ["| " + " | ".join(str(cell) for cell in row) + " |" for row in rows]
    return "\n".join(lines) + "\n"


def command_for(name: str, quick: bool) -> str:
    """The exact command that reproduces one section."""
    return f".venv-bench/bin/python benchmarks/run.py --only {name}" + (" --quick" if quick else "")
