"""`parley web` through typer's CliRunner (uvicorn replaced by a recorder: no socket is opened)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import uvicorn
from fastapi import FastAPI
from typer.testing import CliRunner

from parley.cli.app import app
from parley.cli.web import allowed_hosts

from .support import paused_staffing_session

pytestmark = pytest.mark.e2e
runner = CliRunner()


def test_web_serves_the_console_on_loopback(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    paused = paused_staffing_session(tmp_path / "d.db")
    calls: list[dict[str, Any]] = []

    def record(application: Any, **options: Any) -> None:
        calls.append({"app": application, **options})

    monkeypatch.setattr(uvicorn, "run", record)
    result = runner.invoke(app, ["web", "--db", str(paused.db), "--port", "9911"])
    assert result.exit_code == 0, result.output
    assert f"parley console on http://127.0.0.1:9911/ (database {paused.db})" in result.output
    assert len(calls) == 1
    assert (calls[0]["host"], calls[0]["port"]) == ("127.0.0.1", 9911)
    assert isinstance(calls[0]["app"], FastAPI)


def test_web_refuses_a_missing_database(tmp_path: Path) -> None:
    result = runner.invoke(app, ["web", "--db", str(tmp_path / "none.db")])
    assert result.exit_code == 2
    assert "no such database" in result.output
    assert not (tmp_path / "none.db").exists()


def test_web_refuses_a_bad_port(tmp_path: Path) -> None:
    paused = paused_staffing_session(tmp_path / "d.db")
    result = runner.invoke(app, ["web", "--db", str(paused.db), "--port", "70000"])
    assert result.exit_code == 2
    assert "--port: expected 1-65535, got 70000" in result.output


def test_web_is_listed_in_help() -> None:
    result = runner.invoke(app, ["web", "--help"])
    assert result.exit_code == 0
    assert "--host" in result.output and "--port" in result.output and "--db" in result.output


def test_loopback_binds_accept_only_loopback_host_headers() -> None:
    assert allowed_hosts("127.0.0.1") == ["127.0.0.1", "::1", "[::1]", "localhost"]
    assert allowed_hosts("localhost") == ["127.0.0.1", "localhost", "::1", "[::1]"]
    assert allowed_hosts("0.0.0.0") is None
    assert allowed_hosts("console.internal") is None
