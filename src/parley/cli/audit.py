"""`parley audit ...`: verify and read the delegate's audit log, and create its key."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from parley.cli.app import app
from parley.cli.delegate import DEFAULT_DB, console, fail, open_store
from parley.cli.options import SessionArgument
from parley.errors import ParleyError

if TYPE_CHECKING:
    from parley.governance.audit import VerifyReport

audit_app = typer.Typer(no_args_is_help=True, help="Verify and read the delegate's audit log.")
app.add_typer(audit_app, name="audit")

DbOption = Annotated[Path, typer.Option("--db", help="SQLite file holding sessions and the audit log.")]


def _trust(report: VerifyReport) -> str:
    """What the verification could rule out: keyed or not, anchored or not."""
    if report.keyed:
        keyed = f"keyed (key id {report.key_id})"
    elif report.key_id is not None:
        keyed = f"keyed with key id {report.key_id} (not the configured key: hashes not checked)"
    else:
        keyed = "unkeyed"
    if report.anchor is None:
        anchored = "unanchored"
    elif report.anchored_seq is not None:
        anchored = f"anchored at entry {report.anchored_seq} in {report.anchor}"
    else:
        anchored = f"not found in anchor {report.anchor}"
    if report.key_id is None and report.anchor is None:
        return (
            f"{keyed}, {anchored}: a full rewrite with recomputed hashes cannot be detected "
            "(configure an audit key or an anchor)"
        )
    return f"{keyed}, {anchored}"


@audit_app.command("verify")
def verify_command(
    session: SessionArgument,
    db: DbOption = DEFAULT_DB,
    anchor: Annotated[
        Path | None,
        typer.Option(
            "--anchor", help="Anchor file to compare the chain with (default: $PARLEY_AUDIT_ANCHOR, if set)."
        ),
    ] = None,
) -> None:
    """Check the hash chain, its key, checkpoint and seal, the tables shown from it, and the anchor."""
    if anchor is not None and not os.path.isfile(anchor):  # a typo, not a broken chain ($PARLEY_AUDIT_ANCHOR
        fail(f"--anchor {anchor}: no such file")  # naming a lost file still reports BROKEN below)
    store = open_store(db)
    try:
        report = store.verify(session, anchor=anchor)
    except ParleyError as error:
        fail(str(error))
    if report.ok:
        console.print(
            f"[green]OK[/] {session}: {report.entries} entries, chain intact, {_trust(report)}; "
            f"head {report.head}"
        )
        return
    where = f", first at entry {report.first_bad}" if report.first_bad is not None else ""
    console.print(f"[red]BROKEN[/] {session}: {len(report.problems)} problem(s){where}; {_trust(report)}")
    for problem in report.problems:
        console.print(f"  {problem}", markup=False)
    first = next(iter(report.problems), "")
    more = f" (and {len(report.problems) - 1} more above)" if len(report.problems) > 1 else ""
    fail(f"{session}: the audit log failed verification: {first}{more}", code=1)


@audit_app.command("log")
def log_command(
    session: SessionArgument,
    db: DbOption = DEFAULT_DB,
    kind: Annotated[str | None, typer.Option(help="Only entries of this kind.")] = None,
) -> None:
    """Print a session's audit entries (timestamp, kind, rationale); refused if they fail verification."""
    from parley.governance.audit import AuditError

    store = open_store(db)
    try:
        events = store.load_events(session)
    except AuditError as error:
        fail(str(error), 1)
    except ParleyError as error:
        fail(str(error))
    if not events:
        fail(f"no audit log for session {session!r}")
    for event in events:
        if kind is None or event.kind == kind:
            rationale = str(event.data.get("rationale", ""))
            console.print(f"{event.seq:4d} {event.time:14.3f} {event.kind:20s} {rationale}")
            if kind is not None:
                console.print(f"     {json.dumps(dict(event.data), default=str)[:300]}")


@audit_app.command("init-key")
def init_key_command(
    key_file: Annotated[
        Path | None,
        typer.Option(
            "--key-file",
            help="Where to write the key (default: $PARLEY_AUDIT_KEY_FILE, else ~/.config/parley/audit.key).",
        ),
    ] = None,
    force: Annotated[bool, typer.Option("--force", help="Replace an existing key file.")] = False,
) -> None:
    """Create a random 32-byte audit key, readable only by you (mode 0600), outside the database."""
    from parley.governance.audit_files import KEY_ENV, default_key_file, init_key

    path = key_file if key_file is not None else default_key_file()
    try:
        key = init_key(path, force=force)
    except ParleyError as error:
        fail(str(error))
    except OSError as error:  # a file where a folder should be, a read-only folder
        fail(f"cannot write the key file {path}: {error.strerror or error}")
    console.print(f"wrote a new audit key to {path} (key id {key.key_id}, mode 0600)")
    if key_file is not None and key_file != default_key_file():
        console.print(f"set PARLEY_AUDIT_KEY_FILE={path} so parley uses it")
    if os.environ.get(KEY_ENV, "").strip():
        console.print(f"note: {KEY_ENV} is set and takes precedence over any key file")
    console.print(
        "sessions started from now on are keyed; keep the key away from anyone who can write the database"
    )
