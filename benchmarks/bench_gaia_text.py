"""Outgoing-draft analysis on adversarial text (issue 14): normalise, parse and preflight in linear time.

Crafted texts of 1 MB ("$1," repeated, "we " repeated, random Unicode, "-" and "1-" repeated) go through
`normalize`, `draft.parse_normalized` and the whole `preflight` (which normalises and parses again,
then runs every check) with the size limit raised to let them in; the same texts with the default
limit are refused before any scan. Target: each full preflight of 1 MB in at most 1 s.

Run alone: `.venv/bin/python benchmarks/run.py --only gaia_text --out /tmp/bench.md` (or
`.venv/bin/python benchmarks/bench_gaia_text.py`).
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable

from harness import table

from parley.governance.config import load_config
from parley.governance.draft import parse_normalized
from parley.governance.normalize import normalize
from parley.governance.preflight import preflight

SIZE = 1_000_000


def crafted(size: int, seed: int = 0) -> dict[str, str]:
    """The adversarial texts of issue 14, each exactly size characters long."""
    rng = random.Random(seed)
    return {
        '"$1," repeated': ("$1," * size)[:size],
        '"we " repeated': ("we " * size)[:size],
        "random unicode": "".join(chr(rng.randrange(0x20, 0x2FFFF)) for _ in range(size)),
        '"we accept $1, " repeated': ("we accept $1, " * size)[:size],
        '"-" repeated': "-" * size,  # red team 15: one disclosure pattern backtracked over the dashes
        '"1-" repeated': ("1-" * size)[:size],
    }


def _seconds(action: Callable[[], object], repeat: int) -> float:
    best = float("inf")
    for _ in range(repeat):
        started = time.perf_counter()
        action()
        best = min(best, time.perf_counter() - started)
    return best


def measure(quick: bool = False) -> list[tuple[str, str, float, float, float, float]]:
    """(text, verdict, normalise s, parse s, full preflight s, refused s) per crafted text (best of runs)."""
    config = load_config("staffing")
    preflight("Warm-up: we accept $95K.", config)
    repeat = 1 if quick else 3
    rows: list[tuple[str, str, float, float, float, float]] = []
    for name, text in crafted(SIZE).items():
        normalized = normalize(text, max_chars=None)
        result = preflight(text, config, max_chars=None)
        verdict = (result.problems or result.reasons or ("ok",))[0]
        rows.append(
            (
                name,
                verdict[:70],
                _seconds(lambda text=text: normalize(text, max_chars=None), repeat),
                _seconds(lambda n=normalized: parse_normalized(n, config.non_binding_phrases), repeat),
                _seconds(lambda text=text: preflight(text, config, max_chars=None), repeat),
                _seconds(lambda text=text: preflight(text, config), repeat),
            )
        )
    return rows


def run(quick: bool = False) -> str:
    """The section for benchmarks/run.py."""
    rows = measure(quick)
    body = table(
        ["text (1 MB)", "verdict", "normalise s", "parse s", "preflight s (limit raised)", "refused s"],
        [
            (name, verdict, f"{norm:.3f}", f"{parse:.3f}", f"{full:.3f}", f"{refused:.4f}")
            for name, verdict, norm, parse, full, refused in rows
        ],
    )
    return (
        "## gaia_text\n\nOutgoing drafts of 1 MB of adversarial text (issue 14) through the preflight "
        "with the "
        "size limit raised (the full preflight normalises and parses again, then runs every check), and "
        f"refused at the default 20,000-character limit. Target: at most 1 s each.\n\n{body}\n"
    )


if __name__ == "__main__":
    print(run())
