"""GENIUS import cost: import and analyse a generated 400,000-outcome GENIUS domain (issue 18).

Two generated domains of 400,000 outcomes each, written as GENIUS XML (a domain file and two
profiles) by parley's exporter: "deep" (four discrete issues of 10 options and an integer issue
0..39 with linear evaluators) and "wide" (two discrete issues of 400 and 1,000 options, so the
files hold 1,400 items each). Timed: `load_genius(folder)` (defused XML parsing, checks, the
utilities) and then the analysis every command runs (`scenario.analysis`: all 400,000 utilities
per party, the Pareto frontier and the Nash point). Target from issue 18: ≤ 1 s for both together.
"""

from __future__ import annotations

import tempfile
import time
from pathlib import Path

import numpy as np
from harness import command_for, fmt, measure, table, verdict

from parley.domain.issues import Issue
from parley.domain.space import OutcomeSpace
from parley.domain.utility import LinearAdditiveUtility
from parley.scenarios.importers.genius import export_genius, load_genius
from parley.scenarios.model import Party, Scenario

TARGET_S = 1.0
OUTCOMES = 400_000


def generated(shape: str) -> Scenario:
    """A two-party scenario of 400,000 outcomes with seeded random GENIUS-style profiles."""
    rng = np.random.default_rng(18)
    if shape == "deep":
        issues = [Issue.options(f"issue {i}", [f"option {j}" for j in range(10)]) for i in range(4)]
        issues.append(Issue.integer_range("quantity", 0, 39))
    else:
        issues = [Issue.options("colour", [f"colour {j}" for j in range(400)])]
        issues.append(Issue.options("model", [f"model {j}" for j in range(1000)]))
    space = OutcomeSpace.of(issues)
    assert space.size == OUTCOMES
    parties = []
    for name, rising in (("buyer", True), ("seller", False)):
        weights = dict(zip(space.names, rng.dirichlet(np.ones(len(issues))).tolist(), strict=True))
        values: dict[str, list[float]] = {}
        for issue in issues:
            if isinstance(issue.values[0], int):
                top = issue.cardinality - 1
                values[issue.name] = [k / top if rising else 1 - k / top for k in range(issue.cardinality)]
            else:
                values[issue.name] = (rng.integers(1, 11, size=issue.cardinality) / 10).tolist()
        parties.append(Party(name, "", LinearAdditiveUtility(space, weights, values, 0.3)))
    return Scenario(f"generated-{shape}", f"Generated {shape}", "", space, tuple(parties))


def import_and_analyse(folder: Path) -> tuple[int, int | None]:
    """What is timed: import the folder, then the frontier and the Nash point."""
    scenario = load_genius(folder)
    analysis = scenario.analysis
    return int(analysis.frontier.size), analysis.nash


def run(quick: bool) -> str:
    """Time the import and the analysis of both generated domains."""
    rows: list[list[object]] = []
    with tempfile.TemporaryDirectory(prefix="parley-genius-bench-") as tmp:
        for shape in ("deep", "wide"):
            folder = Path(tmp) / shape
            files = export_genius(generated(shape), folder)
            size = sum(file.stat().st_size for file in files)
            start = time.perf_counter()
            frontier, nash = import_and_analyse(folder)
            first = time.perf_counter() - start
            importing = measure(lambda folder=folder: load_genius(folder), repeat=3 if quick else 7)
            total = measure(lambda folder=folder: import_and_analyse(folder), repeat=3 if quick else 7)
            rows.append(
                [
                    f"{shape}: {' × '.join(str(n) for n in load_genius(folder).space.shape)}, "
                    f"{len(files)} files, {size / 1024:.0f} KB",
                    importing.describe("ms"),
                    total.describe("ms"),
                    fmt(first, "ms"),
                    f"{frontier} outcomes; Nash {'found' if nash is not None else 'none'}",
                    f"≤ {TARGET_S:g} s",
                    verdict(total.median <= TARGET_S and first <= TARGET_S),
                ]
            )
    return (
        "## GENIUS import\n\n"
        f"Importing and analysing a generated {OUTCOMES:,}-outcome GENIUS domain: `load_genius` on a "
        "folder of a domain file and two profiles (written by `export_genius`), then the analysis "
        'every command runs (all utilities, Pareto frontier, Nash point). "first call" is the '
        "first import and analysis in this process (parley's modules already loaded); the others "
        "are the median (fastest–slowest) of repeated runs, each on a freshly imported scenario. "
        "Target from issue 18: ≤ 1 s for import and analysis together.\n\n"
        + table(
            ["domain", "import", "import + analysis", "first call", "frontier", "target", "verdict"], rows
        )
        + f"\nReproduce: `{command_for('genius', quick)}`.\n"
    )
