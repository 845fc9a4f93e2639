"""Shared CLI plumbing: one-line errors and exit codes, loading scenarios, checking and writing outputs."""

from __future__ import annotations

import contextlib
import os
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, NoReturn

import typer
from rich.console import Console
from rich.markup import escape

from parley.errors import ParleyError

if TYPE_CHECKING:  # scenarios (numpy, pydantic, yaml) load with the first command that needs one
    from parley.scenarios.model import Scenario

console = Console(highlight=False)
error_console = Console(stderr=True, highlight=False)


def one_line(message: str) -> str:
    """message as one printable line: control characters removed, line breaks and runs of blanks folded
    (a YAML parser's or SQLite's message often spans lines)."""
    from parley.governance.safe_text import printable

    return " ".join(printable(message).split())


def report_error(message: str) -> None:
    """Print "error: message" as one line on stderr (message is plain text, never rich markup)."""
    error_console.print(f"[bold red]error:[/] {escape(one_line(message))}", markup=True, soft_wrap=True)


def fail(message: str, code: int = 2) -> NoReturn:
    """Print a one-line error and exit (message is plain text: it often quotes a user's or an agent's)."""
    report_error(message)
    raise typer.Exit(code)


def load(name_or_path: str, format: str | None = None) -> Scenario:
    """Load a scenario by shipped name or path (in format, or its detected one), turning every failure
    into a one-line error."""
    from parley.scenarios import load_scenario

    try:
        return load_scenario(name_or_path, format=format)
    except ParleyError as error:
        fail(str(error))
    except OSError as error:  # a name too long to be a path, a file that vanished while read
        fail(f"cannot read scenario {name_or_path}: {error.strerror or error}")


def is_file(path: Path) -> bool:
    """Whether path is a file; False, not OSError, for a path the system cannot even look up (a name
    longer than the file system allows)."""
    return os.path.isfile(path)


def check_writable(path: Path, action: str, *, folder: bool = False) -> None:
    """Fail in one line, before any work and without creating anything, if path cannot be written.

    Args:
        path: The file (or with folder, the folder) a command will write; it may not exist yet.
        action: What the command would do, for the message ("save to", "write the report").
        folder: Whether path is a folder to write files in rather than a file.
    """
    try:
        _check_writable(path, action, folder=folder)
    except OSError as error:  # e.g. a name longer than the file system allows
        fail(f"cannot {action} {path}: {error.strerror or error}")


def _check_writable(path: Path, action: str, *, folder: bool) -> None:
    if path.exists():
        if folder and not path.is_dir():
            fail(f"cannot {action} {path}: it is a file, not a folder")
        if not folder and path.is_dir():
            fail(f"cannot {action} {path}: it is a folder, not a file")
        if not os.access(path, os.W_OK):
            fail(f"cannot {action} {path}: it is not writable")
        return
    ancestor = path.parent
    while not ancestor.exists() and ancestor != ancestor.parent:
        ancestor = ancestor.parent
    if not ancestor.is_dir():
        fail(f"cannot {action} {path}: {ancestor} is a file, not a folder")
    import tempfile

    try:  # a real probe: permissions (and root) aside, some file systems (/proc, read-only) refuse files
        with tempfile.TemporaryFile(dir=ancestor):
            pass
    except OSError as error:
        fail(f"cannot {action} {path}: {ancestor} is not writable ({error.strerror or error})")


def write_files(folder: Path, files: Mapping[str, str], action: str = "save to") -> None:
    """Write each named text file into folder (created if needed) as a whole, or fail in one line.

    Every file is written to a temporary name first and renamed only once all are written, so a
    failure leaves neither half a file nor a new file beside an old one (and removes the folders it
    created).
    """
    created = [parent for parent in (folder, *folder.parents) if not parent.exists()]
    partial: list[Path] = []
    try:
        folder.mkdir(parents=True, exist_ok=True)
        for name, text in files.items():
            temporary = folder / f".{name}.partial"
            partial.append(temporary)
            temporary.write_text(text, encoding="utf-8")
        for name, temporary in zip(files, partial, strict=True):
            os.replace(temporary, folder / name)
    except OSError as error:
        with contextlib.suppress(OSError):
            for temporary in partial:
                temporary.unlink(missing_ok=True)
            for parent in created:  # the deepest first
                parent.rmdir()
        fail(f"cannot {action} {folder}: {error.strerror or error}", code=1)
