"""The `parley` command: a thin typer adapter over the library."""

from __future__ import annotations

import typer

app = typer.Typer(
    no_args_is_help=True, add_completion=False, help="parley: negotiation between AI agents and people."
)


def main() -> None:
    """Console-script entry point."""
    app()
