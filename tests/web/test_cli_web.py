"""`parley web` through typer's CliRunner (uvicorn replaced by a recorder: no socket is opened)."""

from __future__ import annotations

import sqlite3
from pathlib import Path
from typing import Any

import pytest
import uvicorn
from fastapi import FastAPI
from typer.testing import CliRunner

from parley.cli.app import app
from parley.cli.web import allowed_hosts, is_loopback
from parley.web.auth import Credentials

from .support import ORIGIN, START, TestClient, add_principal, paused_staffing_session

pytestmark = pytest.mark.e2e
runner = CliRunner()


@pytest.fixture
def served(monkeypatch: pytest.MonkeyPatch) -> list[dict[str, Any]]:
    """uvicorn.run replaced by a recorder of its calls."""
    calls: list[dict[str, Any]] = []

    def record(application: Any, **options: Any) -> None:
        calls.append({"app": application, **options})

    monkeypatch.setattr(uvicorn, "run", record)
    return calls


def _one_error_line(output: str) -> str:
    lines = output.strip().splitlines()
    assert len(lines) == 1, output
    assert lines[0].startswith("error: ")
    return lines[0]


def test_web_serves_the_console_on_loopback(tmp_path: Path, served: list[dict[str, Any]]) -> None:
    paused = paused_staffing_session(tmp_path / "d.db")
    add_principal(paused.db)
    result = runner.invoke(app, ["web", "--db", str(paused.db), "--port", "9911"])
    assert result.exit_code == 0, result.output
    runs = f"{paused.db}-runs"
    assert f"parley console on http://127.0.0.1:9911/ (database {paused.db}, runs {runs})" in result.output
    assert "warning" not in result.output
    assert len(served) == 1
    assert (served[0]["host"], served[0]["port"]) == ("127.0.0.1", 9911)
    assert isinstance(served[0]["app"], FastAPI)


def test_runs_names_the_folder_of_runs(tmp_path: Path, served: list[dict[str, Any]]) -> None:
    paused = paused_staffing_session(tmp_path / "d.db")
    token = add_principal(paused.db)
    result = runner.invoke(app, ["web", "--db", str(paused.db), "--runs", str(tmp_path / "my runs")])
    assert result.exit_code == 0, result.output
    with TestClient(served[0]["app"], base_url="http://127.0.0.1") as client:  # (a loopback Host)
        response = client.post("/api/login", json={"token": token}, headers={"Origin": "http://127.0.0.1"})
        assert response.status_code == 200, response.text
        assert client.get("/api/runs").json()["root"] == str(tmp_path / "my runs")
    (tmp_path / "a file").write_text("x")
    refused = runner.invoke(app, ["web", "--db", str(paused.db), "--runs", str(tmp_path / "a file")])
    assert refused.exit_code == 2
    assert "--runs" in _one_error_line(refused.output) and "not a folder" in refused.output
    for scenarios in ("missing", "a file", "x" * 300):
        refused = runner.invoke(
            app, ["web", "--db", str(paused.db), "--scenarios", str(tmp_path / scenarios)]
        )
        assert refused.exit_code == 2
        assert "no such folder of scenario files" in _one_error_line(refused.output)


def test_web_without_a_principal_tells_to_run_init(tmp_path: Path, served: list[dict[str, Any]]) -> None:
    paused = paused_staffing_session(tmp_path / "d.db")
    result = runner.invoke(app, ["web", "--db", str(paused.db)])
    assert result.exit_code == 2
    line = _one_error_line(result.output)
    assert f"run parley web --init --db {paused.db}" in line
    assert served == []


def test_init_prints_a_token_once_and_stores_only_its_hash(
    tmp_path: Path, served: list[dict[str, Any]]
) -> None:
    paused = paused_staffing_session(tmp_path / "d.db")
    result = runner.invoke(app, ["web", "--db", str(paused.db), "--init", "--principal", "maria.lopez"])
    assert result.exit_code == 0, result.output
    assert served == []  # --init does not serve
    lines = result.output.splitlines()
    assert "principal 'maria.lopez' can now sign in to the console" in lines[0]
    token = lines[1].strip()
    assert len(token) >= 43 and token not in lines[0] + lines[2]
    with sqlite3.connect(paused.db) as db:
        assert token not in "\n".join(db.iterdump())
    credentials = Credentials(paused.db)
    assert credentials.principals() == ["maria.lopez"]
    signed_in = credentials.sign_in(token, now=START)
    assert signed_in is not None and signed_in[1].principal == "maria.lopez"
    assert credentials.sign_in(token[:-2], now=START) is None

    again = runner.invoke(app, ["web", "--db", str(paused.db), "--init", "--principal", "maria.lopez"])
    assert again.exit_code == 2
    assert "principal 'maria.lopez' exists already (add --reset to give it a new token)" in _one_error_line(
        again.output
    )
    reset = runner.invoke(
        app, ["web", "--db", str(paused.db), "--init", "--principal", "maria.lopez", "--reset"]
    )
    assert reset.exit_code == 0, reset.output
    new = reset.output.splitlines()[1].strip()
    assert new != token
    assert credentials.sign_in(token, now=START) is None
    assert credentials.session(signed_in[0], now=START) is None  # the old sign-in ended
    assert credentials.sign_in(new, now=START) is not None


def test_init_defaults_to_the_name_principal(tmp_path: Path) -> None:
    paused = paused_staffing_session(tmp_path / "d.db")
    result = runner.invoke(app, ["web", "--db", str(paused.db), "--init"])
    assert result.exit_code == 0, result.output
    assert Credentials(paused.db).principals() == ["principal"]


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--init", "--principal", " "], "principal name ' ': use printable characters"),
        (["--init", "--principal", "bad\x1b[2J"], "use printable characters, no surrounding blanks"),
        (["--init", "--principal", "ghost", "--reset"], "no principal 'ghost' to reset"),
        (["--principal", "maria"], "--principal and --reset go with --init"),
        (["--reset"], "--principal and --reset go with --init"),
    ],
)
def test_bad_principal_options_are_one_line_errors(tmp_path: Path, args: list[str], message: str) -> None:
    paused = paused_staffing_session(tmp_path / "d.db")
    result = runner.invoke(app, ["web", "--db", str(paused.db), *args])
    assert result.exit_code == 2
    assert message in _one_error_line(result.output)


@pytest.mark.parametrize("host", ["0.0.0.0", "192.168.1.20", "::", "console.internal"])
def test_a_non_loopback_host_needs_allow_remote(
    tmp_path: Path, served: list[dict[str, Any]], host: str
) -> None:
    paused = paused_staffing_session(tmp_path / "d.db")
    add_principal(paused.db)
    result = runner.invoke(app, ["web", "--db", str(paused.db), "--host", host])
    assert result.exit_code == 2
    line = _one_error_line(result.output)
    assert f"--host {host} is not a loopback address" in line and "--allow-remote" in line
    assert served == []


def test_allow_remote_warns_about_tls_and_makes_cookies_secure(
    tmp_path: Path, served: list[dict[str, Any]]
) -> None:
    paused = paused_staffing_session(tmp_path / "d.db")
    token = add_principal(paused.db)
    result = runner.invoke(app, ["web", "--db", str(paused.db), "--host", "0.0.0.0", "--allow-remote"])
    assert result.exit_code == 0, result.output
    assert "warning: --allow-remote: the console has no TLS of its own" in result.output
    assert "TLS-terminating reverse proxy" in result.output
    assert served[0]["host"] == "0.0.0.0"
    with TestClient(served[0]["app"]) as client:
        response = client.post("/api/login", json={"token": token}, headers={"Origin": ORIGIN})
        assert response.status_code == 200
        assert "secure" in response.headers["set-cookie"].lower()
        assert client.get("/api/health", headers={"Host": "console.example.com"}).status_code == 200


def test_origin_sets_the_public_origin(tmp_path: Path, served: list[dict[str, Any]]) -> None:
    paused = paused_staffing_session(tmp_path / "d.db")
    token = add_principal(paused.db)
    bad = runner.invoke(app, ["web", "--db", str(paused.db), "--origin", "console.example.com"])
    assert bad.exit_code == 2
    assert "'console.example.com' is not an origin like https://console.example.com" in _one_error_line(
        bad.output
    )
    good = runner.invoke(app, ["web", "--db", str(paused.db), "--origin", "https://console.example.com"])
    assert good.exit_code == 0, good.output
    with TestClient(served[0]["app"], base_url="http://console.example.com") as client:
        login = {"token": token}
        foreign = {"Origin": "http://console.example.com"}  # the request's own origin, not the public one
        assert client.post("/api/login", json=login, headers=foreign).status_code == 403
        headers = {"Origin": "https://console.example.com"}
        assert client.post("/api/login", json=login, headers=headers).status_code == 200


def test_web_refuses_a_missing_database(tmp_path: Path) -> None:
    result = runner.invoke(app, ["web", "--db", str(tmp_path / "none.db")])
    assert result.exit_code == 2
    assert "no such database" in result.output
    assert not (tmp_path / "none.db").exists()


def test_web_refuses_a_bad_port(tmp_path: Path) -> None:
    paused = paused_staffing_session(tmp_path / "d.db")
    add_principal(paused.db)
    result = runner.invoke(app, ["web", "--db", str(paused.db), "--port", "70000"])
    assert result.exit_code == 2
    assert "--port: expected 1-65535, got 70000" in result.output


def test_web_is_listed_in_help() -> None:
    result = runner.invoke(app, ["web", "--help"])
    assert result.exit_code == 0
    for option in ("--host", "--port", "--db", "--init", "--principal", "--allow-remote", "--origin"):
        assert option in result.output


def test_loopback_binds_accept_only_loopback_host_headers() -> None:
    assert allowed_hosts("127.0.0.1") == ["127.0.0.1", "::1", "[::1]", "localhost"]
    assert allowed_hosts("localhost") == ["127.0.0.1", "localhost", "::1", "[::1]"]
    assert allowed_hosts("0.0.0.0") is None
    assert allowed_hosts("console.internal") is None
    assert allowed_hosts("::1") == ["127.0.0.1", "::1", "[::1]", "localhost"]


def test_loopback_addresses() -> None:
    for host in ("127.0.0.1", "127.0.0.2", "localhost", "::1", "[::1]"):
        assert is_loopback(host), host
    for host in ("0.0.0.0", "::", "10.0.0.1", "console.internal", "localhost.example.com", ""):
        assert not is_loopback(host), host
