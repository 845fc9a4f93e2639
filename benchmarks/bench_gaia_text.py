"""Outgoing-draft analysis on adversarial text (issue 14): normalise, parse and preflight in linear time.

Crafted texts of 1 MB ("$1," repeated, "we " repeated, random Unicode, "-" and "1-" repeated) go through
`normalize`, `draft.parse_normalized` and the whole `preflight` (which normalises and parses again,
then runs every check) with the size limit raised to let them in; the same texts with the default
limit are refused before any scan. Target: each full preflight of 1 MB in at most 1 s.

A second table reads 1 MB of the crafted amount forms of the unit tests (tests/governance/
test_amounts.py and test_amounts_v7.py check only that the work grows linearly) with the amount reader
alone (`term_amounts`, no size limit): the reader's own cost, behind the preflight's refusal.

Run alone: `.venv/bin/python benchmarks/run.py --only gaia_text --out /tmp/bench.md` (or
`.venv/bin/python benchmarks/bench_gaia_text.py`).
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable

from harness import table, verdict

from parley.governance.amounts import term_amounts
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


# (domain, repeated unit) read by the amount reader: the forms of the unit tests' linear-growth checks
AMOUNT_FORMS: tuple[tuple[str, str], ...] = (
    ("procurement", "1,000 pcs for $4,200 or "),
    ("procurement", "3 boxes of 2 units each, 5 units per box "),
    ("leasing", "dropped from 9,000 to 8,000 and "),
    ("leasing", "Rent $5,500; deposit $11,000. "),
    ("procurement", "A dozen costs $30 "),
    ("staffing", "$3,200 per 40-hour week "),
    ("leasing", "1,\u0417"),
    ("procurement", "9"),
    ("procurement", "$1,"),
    ("leasing", "1,OOO,OOO "),
    ("staffing", "one "),
    ("staffing", "\u200b1"),
    ("staffing", "year 1: $1 per year 1 \u20ac "),
    # test_amounts.py's attribution checks (read there in every domain) and test_amounts_v10.py's
    ("staffing", "every 2 weeks $1 "),
    ("staffing", "1 vs 2 vs "),
    ("staffing", "$1 per box of 2 "),
    ("leasing", "Deposit $1 on $1 rent, "),
    ("leasing", "no deposit "),
    ("procurement", "Total $1 for 2 pcs; "),
    ("leasing", "annual fee 1 and 1 "),
    ("leasing", "a 1 b c ds "),
    ("leasing", "1?? "),
    ("staffing", "one-twenty-"),
    ("staffing", "one hundred and "),
    ("procurement", "no less than 1 and no more than 2 "),
    ("staffing", "8o"),
    ("procurement", "a box of 2 is $3 "),
    ("procurement", "$1 at 2 "),
    ("staffing", "a decade "),
    ("leasing", "$3 per foot per year on 40 feet "),
    ("leasing", "total 3 years $9,000. "),
    ("procurement", "one or two or three or "),
    ("procurement", "price per 1,000 is $1, "),
)


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


def measure_amounts(quick: bool = False) -> list[tuple[str, str, int, float]]:
    """(domain, unit, figures attributed, seconds) for 1 MB of each amount form (best of runs)."""
    repeat = 1 if quick else 3
    rows: list[tuple[str, str, int, float]] = []
    for domain, unit in AMOUNT_FORMS:
        config = load_config(domain)
        term_amounts(config, "$1")  # the folding tables are built once per process
        text = (unit * (SIZE // len(unit) + 1))[:SIZE]
        found = len(term_amounts(config, text))
        rows.append((domain, unit, found, _seconds(lambda c=config, t=text: term_amounts(c, t), repeat)))
    return rows


def run(quick: bool = False) -> str:
    """The section for benchmarks/run.py."""
    rows = measure(quick)
    amounts = measure_amounts(quick)
    amount_body = table(
        ["domain", "unit repeated to 1 MB", "figures attributed", "seconds", "<= 1 s"],
        [
            (domain, repr(unit), f"{found:,}", f"{seconds:.3f}", verdict(seconds <= 1.0))
            for domain, unit, found, seconds in amounts
        ],
    )
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
        "The amount reader alone (`term_amounts`, no size limit) on 1 MB of each crafted amount form "
        "(best of runs; the drafts and messages that reach it are at most 20,000 characters):\n\n"
        f"{amount_body}\n"
    )


if __name__ == "__main__":
    print(run())
