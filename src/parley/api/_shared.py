"""What the result objects of `parley.api` share: reading a scenario argument, rendering as plain text."""

from __future__ import annotations

import io
import shutil
from pathlib import Path
from typing import TYPE_CHECKING

from rich.console import Console, RenderableType

from parley.errors import ScenarioError

if TYPE_CHECKING:
    from parley.scenarios.model import Scenario

TEXT_WIDTH = 100
"""Columns of `str(report)` when there is no terminal to measure (a pipe, a notebook's print)."""


def as_scenario(scenario: Scenario | str | Path) -> Scenario:
    """The scenario itself, or the one a name or path stands for.

    Raises:
        ScenarioError: no such scenario, an unreadable or invalid file (one line).
    """
    from parley.scenarios.model import Scenario

    if isinstance(scenario, Scenario):
        return scenario
    from parley.scenarios import load_scenario

    try:
        return load_scenario(scenario)
    except OSError as error:  # a name too long to be a path, a file that vanished while read
        shown = str(scenario) if len(str(scenario)) <= 80 else str(scenario)[:79] + "…"
        raise ScenarioError(f"cannot read scenario {shown}: {error.strerror or error}") from None


def plain_text(renderable: RenderableType) -> str:
    """renderable as plain text (no colours), as wide as the terminal ($COLUMNS; 100 without one)."""
    width = shutil.get_terminal_size((TEXT_WIDTH, 24)).columns
    console = Console(
        file=io.StringIO(), width=width, color_system=None, highlight=False, force_terminal=False
    )
    with console.capture() as captured:
        console.print(renderable)
    return captured.get()
