"""Golden transcript of the `make run` demo (ASTRA vs the base partner on CaSiNo, with its trace).

Regenerate on purpose with `PARLEY_UPDATE_GOLDEN=1 .venv/bin/pytest tests/cli/test_demo_golden.py`.
"""

from __future__ import annotations

import os
import re
import shlex
from pathlib import Path

import pytest
from typer.testing import CliRunner

from parley.cli.app import app

pytestmark = pytest.mark.e2e
GOLDEN = Path(__file__).parent / "golden" / "make_run_demo.txt"
MAKEFILE = Path(__file__).parents[2] / "Makefile"


def demo_arguments() -> list[str]:
    """The arguments `make run` passes to `parley` (read from the Makefile, so the two cannot drift)."""
    match = re.search(r"^run:.*\n\t\$\(BIN\)/parley (.+)$", MAKEFILE.read_text(), flags=re.MULTILINE)
    assert match, "the Makefile's run target must call $(BIN)/parley"
    return shlex.split(match.group(1))


def test_make_run_demo_matches_golden_transcript() -> None:
    result = CliRunner().invoke(app, demo_arguments(), env={"COLUMNS": "120"})
    assert result.exit_code == 0, result.output
    if os.environ.get("PARLEY_UPDATE_GOLDEN"):
        GOLDEN.parent.mkdir(parents=True, exist_ok=True)
        GOLDEN.write_text(result.output, encoding="utf-8")
    assert result.output == GOLDEN.read_text(encoding="utf-8"), (
        "the demo transcript changed; if on purpose, regenerate with PARLEY_UPDATE_GOLDEN=1"
    )
    assert "Agreement" in result.output or "No deal" in result.output
