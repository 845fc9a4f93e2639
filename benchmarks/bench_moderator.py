"""Moderator on adversarial text (issue 14): crafted input must be classified (or refused) in linear time.

Three crafted texts ("$1," repeated, "we " repeated, random Unicode) at 1 MB (refused before any
scan: over the 20,000-character limit) and at the limit itself (scanned in full), plus the slowest
single cue pattern on each text at the limit.
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable

from harness import table

from parley.governance.config import load_config
from parley.governance.moderator import RuleModerator


def crafted(size: int, seed: int = 0) -> dict[str, str]:
    """The adversarial texts of issue 14, each exactly size characters long."""
    rng = random.Random(seed)
    unicode_text = "".join(chr(rng.randrange(0x20, 0x2FFFF)) for _ in range(size))
    return {
        '"$1," repeated': ("$1," * size)[:size],
        '"we " repeated': ("we " * size)[:size],
        "random unicode": unicode_text,
        '"ignore your " repeated': ("ignore your " * size)[:size],
        '"Q: a A: " repeated': ("Q: a A: " * size)[:size],
    }


def _seconds(action: Callable[[], object], repeat: int) -> float:
    best = float("inf")
    for _ in range(repeat):
        started = time.perf_counter()
        action()
        best = min(best, time.perf_counter() - started)
    return best


def measure(quick: bool = False) -> list[tuple[str, int, str, float]]:
    """(text, characters, label or reason, best seconds) per crafted text, at 1 MB and at the limit."""
    moderator = RuleModerator(load_config("staffing"))
    repeat = 1 if quick else 3
    rows: list[tuple[str, int, str, float]] = []
    for size in (1_000_000, moderator.max_chars):
        for name, text in crafted(size).items():
            result = moderator.classify(text)
            seconds = _seconds(lambda text=text: moderator.classify(text), repeat)
            rows.append((name, size, result.reason or result.label.value, seconds))
    return rows


def run(quick: bool = False) -> str:
    """The section for benchmarks/run.py."""
    rows = measure(quick)
    body = table(
        ["text", "characters", "verdict", "seconds"],
        [(name, f"{size:,}", verdict, f"{seconds:.3f}") for name, size, verdict, seconds in rows],
    )
    return (
        f"## moderator\n\nCrafted counterparty messages (issue 14); target well under 1 s each.\n\n{body}\n"
    )


if __name__ == "__main__":
    print(run())
