"""`parley web`: serve the principal's web console (inbox, decisions, transcripts, audit status)."""

from __future__ import annotations

import ipaddress
from pathlib import Path
from typing import Annotated

import typer

from parley.cli.app import app
from parley.cli.delegate import DEFAULT_DB, console, fail

_LOOPBACK_NAMES = ("127.0.0.1", "localhost", "::1", "[::1]")


def allowed_hosts(host: str) -> list[str] | None:
    """Host headers to accept: loopback names for a loopback bind (DNS-rebinding guard), else any."""
    if host == "localhost":
        return list(_LOOPBACK_NAMES)
    try:
        loopback = ipaddress.ip_address(host).is_loopback
    except ValueError:
        return None
    return sorted({host, *_LOOPBACK_NAMES}) if loopback else None


@app.command("web")
def web_command(
    db: Annotated[
        Path, typer.Option("--db", help="SQLite file holding sessions and the audit log.")
    ] = DEFAULT_DB,
    host: Annotated[str, typer.Option(help="Interface to listen on (no authentication: keep loopback).")] = (
        "127.0.0.1"
    ),
    port: Annotated[int, typer.Option(help="TCP port.")] = 8765,
) -> None:
    """Serve the web console for principals: pending escalations, decisions, transcripts, audit."""
    import uvicorn

    from parley.web.app import create_app

    if not db.is_file():
        fail(f"{db}: no such database (create sessions first, e.g. parley delegate run staffing --db {db})")
    if not 0 < port < 65536:
        fail(f"--port: expected 1-65535, got {port}")
    application = create_app(db, allowed_hosts=allowed_hosts(host))
    shown = f"[{host}]" if ":" in host else host
    console.print(f"parley console on http://{shown}:{port}/ (database {db}); Ctrl+C stops it")
    uvicorn.run(application, host=host, port=port, log_level="warning")
