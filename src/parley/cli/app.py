"""The `parley` command: a thin typer adapter over the library.

Command modules register themselves on `app` (or `experiment_app`) when imported; every module
named in `_COMMAND_MODULES` is imported at the end of this one (after `app` exists).
"""

from __future__ import annotations

import importlib
import io
import os
import sys
from collections.abc import Sequence
from typing import Any

import typer
from typer.core import TyperGroup

from parley.cli.common import report_error

# typer runs on click, in recent releases on its own copy of it: take click's exception classes from
# wherever typer's `BadParameter` comes from, so the handler below matches what typer raises.
_CLICK_EXCEPTIONS = sys.modules[typer.BadParameter.__module__]
_CLICK_ERROR: type[Exception] = _CLICK_EXCEPTIONS.ClickException
_MISSING_PARAMETER: type[Exception] = _CLICK_EXCEPTIONS.MissingParameter
_SHOWN_VALUE = 60
"""Characters of an offending command-line value quoted in a usage error."""


class ParleyGroup(TyperGroup):
    """The root `parley` command: click's own usage errors ("--seed abc", a missing option, an unknown
    command) are one line on stderr naming the command, the problem and the value, with exit code 2,
    like every other parley error (typer would draw a box of several lines); `--help` is unchanged."""

    def main(  # (click's signature)
        self,
        args: Sequence[str] | None = None,
        prog_name: str | None = None,
        complete_var: str | None = None,
        standalone_mode: bool = True,
        windows_expand_args: bool = True,
        **extra: Any,
    ) -> Any:
        tolerate_unencodable_output()
        given = list(sys.argv[1:] if args is None else args)
        call = {
            "prog_name": prog_name,
            "complete_var": complete_var,
            "windows_expand_args": windows_expand_args,
        }
        if not standalone_mode:
            return super().main(given, standalone_mode=False, **call, **extra)
        try:  # not standalone: click raises its errors (and returns typer.Exit's code) instead of exiting
            code = super().main(given, standalone_mode=False, **call, **extra)
        except _CLICK_ERROR as error:
            code = self._report(error, given, prog_name)
        except typer.Abort:  # end of input at a prompt
            report_error("aborted: no more input")
            code = 1
        sys.exit(code if isinstance(code, int) else 0)

    def _report(self, error: Any, args: list[str], prog_name: str | None) -> int:
        """Print a click error as one line and return its exit code (2 for usage errors)."""
        if type(error).__name__ == "NoArgsIsHelpError":  # a bare group: its help is the answer
            help_text = str(error.format_message()).strip()  # (typer has printed it already)
            if help_text:
                typer.echo(help_text)
            return int(error.exit_code)
        ctx = getattr(error, "ctx", None)
        where = ctx.command_path if ctx is not None else self._command_path(args, prog_name)
        message = str(error.format_message()).strip().rstrip(".")
        value = self._given_value(error, args)
        got = "" if value is None else f" (got {_quoted(value)})"
        report_error(f"{where}: {message[:1].lower()}{message[1:]}{got}; see {where} --help")
        return int(error.exit_code)

    def _command_path(self, args: list[str], prog_name: str | None) -> str:
        """The command that args name (for an error raised before click made its context)."""
        path = [prog_name or self.name or "parley"]
        command: Any = self
        for arg in args:
            command = getattr(command, "commands", {}).get(arg)
            if command is None:
                break
            path.append(arg)
        return " ".join(path)

    @staticmethod
    def _given_value(error: Any, args: list[str]) -> str | None:
        """The value given on the command line to the option a BadParameter error is about, if any."""
        param = getattr(error, "param", None)
        if param is None or isinstance(error, _MISSING_PARAMETER) or param.param_type_name != "option":
            return None
        names = [*param.opts, *param.secondary_opts]
        value = None
        for index, arg in enumerate(args):
            if arg in names and index + 1 < len(args):
                value = args[index + 1]
            elif "=" in arg and arg.split("=", 1)[0] in names:
                value = arg.split("=", 1)[1]
        return value


def _quoted(value: str) -> str:
    """A command-line value as Python quotes it (control characters and undecodable bytes escaped)."""
    return repr(value if len(value) <= _SHOWN_VALUE else value[: _SHOWN_VALUE - 1] + "…")


app = typer.Typer(
    cls=ParleyGroup,
    name="parley",
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
    "report",
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


DEBUG_ENV = "PARLEY_DEBUG"
"""Set to 1 to see the traceback of an unexpected error instead of its one-line report."""


def main() -> None:
    """Console-script entry point: every failure ends in one line on stderr, never a traceback.

    An exception no command turned into an error message is a bug in parley: it is reported in one
    line naming it (exit code 1), with its traceback only when PARLEY_DEBUG=1.
    """
    tolerate_unencodable_output()
    try:
        app()
    except Exception as error:
        if os.environ.get(DEBUG_ENV, "").strip() not in ("", "0"):
            raise
        report_error(
            f"internal error: {type(error).__name__}: {error}; this is a bug in parley "
            f"(run again with {DEBUG_ENV}=1 for the traceback)"
        )
        sys.exit(1)
