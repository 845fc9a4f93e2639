"""Shared CLI plumbing: loading scenarios with friendly errors, consoles, exit codes."""

from __future__ import annotations

from typing import NoReturn

import typer
from rich.console import Console
from rich.markup import escape

from parley.errors import ParleyError
from parley.scenarios.model import Scenario

console = Console(highlight=False)
error_console = Console(stderr=True, highlight=False)


def fail(message: str, code: int = 2) -> NoReturn:
    """Print a one-line error and exit (message is plain text: it often quotes a user's or an agent's)."""
    error_console.print(f"[bold red]error:[/] {escape(message)}", markup=True, soft_wrap=True)
    raise typer.Exit(code)


def load(name_or_path: str) -> Scenario:
    """Load a scenario by shipped name or path, turning every failure into a one-line error."""
    from parley.scenarios import load_scenario

    try:
        return load_scenario(name_or_path)
    except ParleyError as error:
        fail(str(error))
