"""Commitment preflight on 20 KB of crafted drafts (issue 14): each draft at the size limit in <= 1 s.

The preflight (`parley.governance.preflight.preflight`) refuses drafts over 20,000 characters; every
draft up to that size is normalised, parsed into sentences and clauses and read clause by clause
(binding language, non-binding forms, amounts, limits, topics, the non-binding rewrite). Drafts made to
be slow were: a few hundred binding sentences, "So, also, and then we'll ..." (a clause read again
after its discourse lead), one sentence of a thousand short clauses (each clause used to scan all its
sentence's clauses: quadratic), "We'll do the same for you." (each take-up looked its clause up in the
whole draft), figures, random unicode, nested quotation marks. Before the per-draft readings were
shared (a sentence's assent opener and report words read once, clauses found by bisection, a clause's
words tokenised once, only the fixed expressions and idioms whose words the clause holds run, a
repeated binding sentence rewritten once), these took 0.4-0.5 CPU s at 20 KB on this machine and
the sentence of short clauses 1.3 s (5.8 times its cost at 5 KB); see the table for now.

Each text is timed at 5, 10 and 20 KB: the cost must grow about linearly (the ratio 20 KB / 5 KB is
about 4 for a linear scan and 16 for a quadratic one; short texts carry a fixed cost, so it is often
below 4). The target is on CPU seconds (`time.process_time`, best of the repetitions): the machine is
shared by several processes, and wall time there measures the queue as much as the scan.

Run alone: `.venv/bin/python benchmarks/bench_preflight_scan.py` (or `benchmarks/run.py --only
preflight_scan`).
"""

from __future__ import annotations

import random
from collections.abc import Callable

from harness import ORDINARY_LETTER, best_seconds, command_for, printable_unicode, repeated, table, verdict

from parley.governance.config import load_config
from parley.governance.preflight import PreflightResult, preflight

SIZE = 20_000
SIZES = (5_000, 10_000, SIZE)
TARGET_SECONDS = 1.0
STRETCH_SECONDS = 0.3
DOMAIN = "procurement"

_VERBS = ("accept", "agree to", "confirm", "will pay", "sign off on", "approve", "commit to", "take")
_OBJECTS = ("your offer", "the order", "the unit price", "the delivery terms", "net-45", "the lease")
_LEADS = ("So, also, and then", "OK so", "And then", "Also, so", "Well, then", "Right, so also")


def _joined(pieces: Callable[[random.Random], str], size: int, seed: int) -> str:
    """Sentences drawn from pieces until size characters (each text is exactly size long)."""
    rng = random.Random(seed)
    parts: list[str] = []
    length = 0
    while length < size:
        parts.append(pieces(rng))
        length += len(parts[-1]) + 1
    return " ".join(parts)[:size]


def _distinct_binding(rng: random.Random) -> str:
    figure = f"${rng.randrange(10, 99)}.{rng.randrange(10, 99)}"
    return (
        f"We {rng.choice(_VERBS)} {rng.choice(_OBJECTS)} at {figure} per unit for lot {rng.randrange(1000)}."
    )


def _distinct_leads(rng: random.Random) -> str:
    lead, verb, thing = rng.choice(_LEADS), rng.choice(_VERBS), rng.choice(_OBJECTS)
    return f"{lead} we'll {verb} {thing} for week {rng.randrange(99)}."


# The crafted drafts of the disclosure check's linear-growth tests (tests/governance/test_disclosure.py,
# _v7.py, _v8.py check only that the work grows linearly; their old limits of 1-5 CPU s, some on 100 KB
# past the preflight's limit, are measured here at the limit, in the procurement domain).
DISCLOSURE_FORMS: tuple[str, ...] = (
    "100k. that's the line. ",
    "a range of 99k for the base. ",
    "the whole floor at 12k. ",
    "Internally, beyond that we can't. ",
    "as high as finance will let me go ",
    "12,000 pcm ",
    "We walk at anything above. ",
    "signed off on a rent budget of up to ",
    "nuestro m\u00e1ximo ",
)


def crafted(size: int = SIZE, seed: int = 0) -> dict[str, str]:
    """Crafted drafts, each exactly size characters long."""
    return {
        "binding sentence repeated": repeated("We accept your offer of $95,000 per year. ", size),
        "distinct binding sentences": _joined(_distinct_binding, size, seed),
        '"So, also, and then we\'ll ..." repeated': repeated(
            "So, also, and then we'll sign the lease. ", size
        ),
        "distinct sentences after discourse leads": _joined(_distinct_leads, size, seed),
        "one sentence of short clauses": repeated("so we see, ", size),
        "long sentence without punctuation": repeated(
            "we will pay you the amount you asked and we agree to sign the lease today ", size
        ),
        "many clauses": repeated(
            "we accept, we agree, we sign; we pay, if you want, but we will, and we do: ", size
        ),
        "take-ups repeated": repeated("We'll do the same for you. ", size),
        "limits repeated": repeated(
            "We can go up to $14 per unit, that is the most we can do for this order. ", size
        ),
        '"$1," repeated': repeated("$1,", size),
        '"we " repeated': repeated("we ", size),
        '"-" repeated': repeated("-", size),  # red team 15: 19,990 dashes took 19.6 s (a bound pattern)
        '"1-" repeated': repeated("1-", size),
        "random printable unicode": printable_unicode(size, random.Random(seed)),
        "nested quotation marks": repeated(
            "You wrote \"she said 'we accept \u201cthe terms\u201d' and 'we agree'\" and we will pay. ", size
        ),
        "a long ordinary letter": repeated(ORDINARY_LETTER, size),
        **{f"{unit!r} repeated": repeated(unit, size) for unit in DISCLOSURE_FORMS},
    }


def _outcome(result: PreflightResult) -> str:
    if result.refused:
        return "refused"
    return ("binding" if result.binding else "not binding") + (
        ", needs approval" if result.requires_approval else ", sendable"
    )


def measure_scan(quick: bool = False) -> list[tuple[str, str, dict[int, float], float]]:
    """(text, outcome at 20 KB, {size: CPU s}, wall s at 20 KB) per crafted draft."""
    config = load_config(DOMAIN)
    preflight("We accept.", config)  # load the lexicons and the classifier outside the timings
    repeat = 1 if quick else 3
    by_size = {size: crafted(size) for size in SIZES}
    rows: list[tuple[str, str, dict[int, float], float]] = []
    for name in by_size[SIZE]:
        cpu: dict[int, float] = {}
        wall = 0.0
        for size in SIZES:
            text = by_size[size][name]
            cpu[size], wall = best_seconds(lambda text=text: preflight(text, config), repeat)
        rows.append((name, _outcome(preflight(by_size[SIZE][name], config)), cpu, wall))
    return rows


def run(quick: bool = False) -> str:
    """The section for benchmarks/run.py."""
    rows = measure_scan(quick)
    worst = max(cpu[SIZE] for _, _, cpu, _ in rows)
    body = table(
        ["draft (20,000 characters)", "outcome", "CPU s 5 KB", "CPU s 10 KB", "CPU s 20 KB", "20 KB / 5 KB",
         "wall s 20 KB", f"<= {TARGET_SECONDS} s", f"<= {STRETCH_SECONDS} s"],
        [
            (
                name,
                outcome,
                *(f"{cpu[size]:.3f}" for size in SIZES),
                f"{cpu[SIZE] / max(cpu[SIZES[0]], 1e-6):.1f}",
                f"{wall:.3f}",
                verdict(cpu[SIZE] <= TARGET_SECONDS),
                verdict(cpu[SIZE] <= STRETCH_SECONDS),
            )
            for name, outcome, cpu, wall in rows
        ],
    )  # fmt: skip
    return (
        "## preflight_scan\n\n"
        f"The commitment preflight (`preflight`, {DOMAIN} domain, classifier on) on crafted drafts at the "
        f"size limit (issue 14), best of the repetitions; the slowest 20 KB draft took {worst:.3f} CPU s: "
        f"{verdict(worst <= TARGET_SECONDS)} against the target of {TARGET_SECONDS} s "
        f"({verdict(worst <= STRETCH_SECONDS)} against {STRETCH_SECONDS} s). A linear scan takes about 4 "
        "times as long at 20 KB as at 5 KB (less where a fixed cost dominates), a quadratic one 16 times.\n\n"
        f"{body}\nReproduce: `{command_for('preflight_scan', quick)}`\n"
    )


if __name__ == "__main__":
    print(run())
