"""`parley web`: serve the web console: the principal's inbox and decisions, play against an agent, live
views of running sessions, the run browser and human ratings."""

from __future__ import annotations

import ipaddress
import os
import time
from pathlib import Path
from typing import Annotated

import typer

from parley.cli.app import app
from parley.cli.delegate import DEFAULT_DB, console, error_console, fail
from parley.cli.extras import require_extra
from parley.errors import ParleyError

_LOOPBACK_NAMES = ("127.0.0.1", "localhost", "::1", "[::1]")
REMOTE_WARNING = (
    "warning: --allow-remote: the console has no TLS of its own; put it behind a TLS-terminating "
    "reverse proxy and open it only over https (its session cookie is Secure, so plain http sign-ins fail)"
)


def is_loopback(host: str) -> bool:
    """Whether host names a loopback interface ("localhost", 127.0.0.0/8, ::1)."""
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.removeprefix("[").removesuffix("]")).is_loopback
    except ValueError:
        return False


def allowed_hosts(host: str) -> list[str] | None:
    """Host headers to accept: loopback names for a loopback bind (DNS-rebinding guard), else any."""
    if host == "localhost":
        return list(_LOOPBACK_NAMES)
    return sorted({host, *_LOOPBACK_NAMES}) if is_loopback(host) else None


def _init_principal(db: Path, name: str, reset: bool) -> None:
    """Create (or with reset, re-key) a principal and print its token, the only time it is shown."""
    from parley.governance.store import SessionStore
    from parley.web.auth import Credentials

    try:
        SessionStore(db).close()  # a delegate database, with its tables, before the console's own
        token = Credentials(db).add_principal(name, now=time.time(), replace=reset)
    except ParleyError as error:
        fail(str(error))
    what = "has a new token (its console sign-ins ended)" if reset else "can now sign in to the console"
    console.print(f"principal {name!r} {what}. Its token, shown only this once:", markup=False)
    console.print(token, markup=False)
    console.print(
        f"Keep it in a password manager; start the console with: parley web --db {db}", markup=False
    )


@app.command("web")
def web_command(
    db: Annotated[
        Path, typer.Option("--db", help="SQLite file holding sessions and the audit log.")
    ] = DEFAULT_DB,
    host: Annotated[
        str, typer.Option(help="Interface to listen on; anything but loopback needs --allow-remote.")
    ] = "127.0.0.1",
    port: Annotated[int, typer.Option(help="TCP port.")] = 8765,
    allow_remote: Annotated[
        bool,
        typer.Option(
            "--allow-remote",
            help="Allow a non-loopback --host (serve behind a TLS-terminating proxy; cookies become Secure).",
        ),
    ] = False,
    origin: Annotated[
        str | None,
        typer.Option(
            help="The console's public origin behind a proxy (e.g. https://console.example.com); "
            "writes from any other origin are refused. Default: the origin each request was sent to."
        ),
    ] = None,
    init: Annotated[
        bool,
        typer.Option("--init", help="Create a principal, print its sign-in token once, and exit."),
    ] = False,
    principal: Annotated[
        str, typer.Option(help="With --init: the principal's name, recorded with their decisions.")
    ] = "principal",
    reset: Annotated[
        bool, typer.Option("--reset", help="With --init: give an existing principal a new token.")
    ] = False,
    scenarios: Annotated[
        Path | None,
        typer.Option(
            "--scenarios",
            help="Folder of parley YAML scenarios (e.g. from parley scenarios import --out) to offer for "
            "play besides the shipped ones.",
        ),
    ] = None,
    runs: Annotated[
        Path | None,
        typer.Option(
            "--runs",
            help="Folder of saved runs to browse and rate; games played in the console are saved here "
            "(default: DB-runs beside the database).",
        ),
    ] = None,
) -> None:
    """Serve the web console: inbox and decisions, play against an agent, live views, runs and ratings.

    Run `parley web --init` once to create a principal and get the token to sign in with.
    """
    require_extra("web", "parley web")
    import uvicorn

    from parley.cli.common import is_file
    from parley.web.app import create_app, origin_of
    from parley.web.auth import Credentials

    if not is_file(db):
        fail(f"{db}: no such database (create sessions first, e.g. parley delegate run staffing --db {db})")
    from parley.cli.delegate import open_store

    open_store(db).close()  # one line, and nothing written, for a file that is not a delegate database
    if init:
        _init_principal(db, principal, reset)
        return
    if reset or principal != "principal":
        fail("--principal and --reset go with --init")
    from parley.web.app import default_runs_dir

    runs_dir = runs if runs is not None else default_runs_dir(db)
    if os.path.exists(runs_dir) and not os.path.isdir(runs_dir):
        fail(f"--runs {runs_dir}: not a folder (the console saves games and ratings in it)")
    if scenarios is not None and not os.path.isdir(scenarios):
        fail(f"--scenarios {scenarios}: no such folder of scenario files")
    if not 0 < port < 65536:
        fail(f"--port: expected 1-65535, got {port}")
    if not is_loopback(host) and not allow_remote:
        fail(
            f"--host {host} is not a loopback address: the console would be reachable from the network; "
            "add --allow-remote (and serve it behind a TLS-terminating proxy)"
        )
    from parley.governance.store import SessionStore

    try:
        SessionStore(db).close()  # one-line error for a file that is not a delegate database
        signers = Credentials(db).principals()
        if not signers:
            fail(f"no principal can sign in to the console yet: run parley web --init --db {db} first")
        hosts = allowed_hosts(host)
        public = origin_of(origin) if origin is not None else None
        if hosts is not None and public is not None:  # a proxy in front passes the public Host on
            hosts.append(public[1])
        application = create_app(
            db,
            runs_dir=runs_dir,
            scenarios_dir=scenarios,
            allowed_hosts=hosts,
            origins=None if origin is None else [origin],
            secure_cookies=True if allow_remote else None,
        )
    except ParleyError as error:
        fail(str(error))
    if allow_remote:
        error_console.print(REMOTE_WARNING, markup=False)
    shown = f"[{host}]" if ":" in host else host
    console.print(
        f"parley console on http://{shown}:{port}/ (database {db}, runs {runs_dir}); Ctrl+C stops it",
        markup=False,
    )
    uvicorn.run(application, host=host, port=port, log_level="warning")
