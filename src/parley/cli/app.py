"""The `parley` command: a thin typer adapter over the library.

Command modules register themselves on `app` (or `experiment_app`) when imported; every module
named in `_COMMAND_MODULES` is imported at the end of this one (after `app` exists).
"""

from __future__ import annotations

import importlib
import io
import sys

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


_TOLERANT_ERRORS = frozenset({"replace", "backslashreplace", "xmlcharrefreplace", "namereplace", "ignore"})
"""Encoding error handlers that never raise (stderr's default is backslashreplace)."""


def tolerate_unencodable_output() -> None:
    """Let stdout and stderr replace what their encoding cannot show ("—", "±", "…" become "?").

    A console whose encoding is not UTF-8 (PYTHONIOENCODING=ascii, a legacy code page) would
    otherwise end a command with UnicodeEncodeError half-way through its output.
    """
    for stream in (sys.stdout, sys.stderr):
        if isinstance(stream, io.TextIOWrapper) and stream.errors not in _TOLERANT_ERRORS:
            stream.reconfigure(errors="replace")


def main() -> None:
    """Console-script entry point."""
    tolerate_unencodable_output()
    app()
