"""The startup benchmark's reading of `python -X importtime` output."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

BENCH_DIR = Path(__file__).resolve().parents[2] / "benchmarks"
sys.path.insert(0, str(BENCH_DIR))

import bench_startup  # noqa: E402

# Children are listed before their parent, indented two spaces deeper per level.
IMPORTTIME = """\
import time: self [us] | cumulative | imported package
import time:       900 |        900 | site
import time:       100 |        100 |       click.core
import time:       300 |        400 |     typer
import time:        50 |         50 |       re
import time:       200 |        250 |     rich.console
import time:        70 |         70 |       typing
import time:        30 |        100 |     parley.errors
import time:        20 |        770 |   parley.cli.common
import time:        40 |         40 |   json
import time:        10 |        820 | parley.cli.app
"""


def test_time_is_split_between_parley_and_the_packages_it_imports() -> None:
    seconds = bench_startup.seconds_by_package(IMPORTTIME, "parley.cli.app")
    assert seconds == pytest.approx(
        {
            bench_startup.ENTRY_MODULE: 820e-6,
            bench_startup.OWN: (10 + 20 + 30) * 1e-6,
            "typer": 400e-6,  # click, imported by typer, counts as typer's
            "rich": 250e-6,
            bench_startup.STDLIB: (70 + 40) * 1e-6,
        }
    )
    parts = sum(value for name, value in seconds.items() if name != bench_startup.ENTRY_MODULE)
    assert parts == pytest.approx(seconds[bench_startup.ENTRY_MODULE])
