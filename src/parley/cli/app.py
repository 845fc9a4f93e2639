"""The `parley` command: a thin typer adapter over the library.

Command modules register themselves on `app` (or `experiment_app`) when imported; every module
named in `_COMMAND_MODULES` is imported at the end of this one (after `app` exists).
"""

from __future__ import annotations

import importlib

import typer

app = typer.Typer(
    no_args_is_help=True,
    add_completion=False,
    help="parley: negotiation between AI agents and people.",
    pretty_exceptions_enable=False,
)
experiment_app = typer.Typer(no_args_is_help=True, help="Reproduce the published experiments.")
app.add_typer(experiment_app, name="experiment")

_COMMAND_MODULES: tuple[str, ...] = (
    "astra",
    "run",
    "tournament",
    "scenarios",
    "analyze",
    "mediate",
    "delegate",
    "audit",
    "web",
)


def _load_commands() -> None:
    for name in _COMMAND_MODULES:
        importlib.import_module(f"parley.cli.{name}")


_load_commands()


def main() -> None:
    """Console-script entry point."""
    app()
