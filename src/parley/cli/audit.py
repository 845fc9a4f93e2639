"""`parley audit ...`: verify and read the delegate's hash-chained audit log."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated

import typer

from parley.cli.app import app
from parley.cli.delegate import DEFAULT_DB, console, fail
from parley.errors import ParleyError
from parley.governance.store import SessionStore

audit_app = typer.Typer(no_args_is_help=True, help="Verify and read the delegate's audit log.")
app.add_typer(audit_app, name="audit")

DbOption = Annotated[Path, typer.Option("--db", help="SQLite file holding sessions and the audit log.")]
SessionArgument = Annotated[str, typer.Argument(help="Session id.")]


def _store(db: Path) -> SessionStore:
    if not db.is_file():
        fail(f"{db}: no such database")
    return SessionStore(db)


@audit_app.command("verify")
def verify_command(session: SessionArgument, db: DbOption = DEFAULT_DB) -> None:
    """Recompute the hash chain and compare it with the head checkpoint and the end-of-session seal."""
    try:
        report = _store(db).verify(session)
    except ParleyError as error:
        fail(str(error))
    if report.ok:
        console.print(f"[green]OK[/] {session}: {report.entries} entries, chain intact; head {report.head}")
        return
    console.print(
        f"[red]BROKEN[/] {session}: {len(report.problems)} problem(s), first at entry {report.first_bad}"
    )
    for problem in report.problems:
        console.print(f"  {problem}")
    raise typer.Exit(1)


@audit_app.command("log")
def log_command(
    session: SessionArgument,
    db: DbOption = DEFAULT_DB,
    kind: Annotated[str | None, typer.Option(help="Only entries of this kind.")] = None,
) -> None:
    """Print a session's audit entries (timestamp, kind, rationale)."""
    store = _store(db)
    events = store.load_events(session)
    if not events:
        fail(f"no audit log for session {session!r}")
    for event in events:
        if kind is None or event.kind == kind:
            rationale = str(event.data.get("rationale", ""))
            console.print(f"{event.seq:4d} {event.time:14.3f} {event.kind:20s} {rationale}")
            if kind is not None:
                console.print(f"     {json.dumps(dict(event.data), default=str)[:300]}")
