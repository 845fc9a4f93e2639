"""Fixtures for the web console: a real SQLite store holding a paused staffing session, a principal."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from parley.protocol.clock import FakeClock
from parley.web import create_app

from .support import START, PausedSession, TestClient, add_principal, paused_staffing_session, sign_in


@pytest.fixture
def paused(tmp_path: Path) -> PausedSession:
    """A fresh database with one paused staffing session."""
    return paused_staffing_session(tmp_path / "delegate.db")


@pytest.fixture
def token(paused: PausedSession) -> str:
    """The token of the principal PRINCIPAL, created in the paused session's database."""
    return add_principal(paused.db)


@pytest.fixture
def clock() -> FakeClock:
    """The console's clock: one hour after the run (advance it to expire sign-ins)."""
    return FakeClock(START + 3600)


@pytest.fixture
def anonymous(paused: PausedSession, token: str, clock: FakeClock) -> Iterator[TestClient]:
    """The console over the paused session's database, not signed in."""
    with TestClient(create_app(paused.db, clock=clock)) as test_client:
        yield test_client


@pytest.fixture
def client(anonymous: TestClient, token: str) -> TestClient:
    """The console signed in as PRINCIPAL (sends the console's Origin and the CSRF token)."""
    sign_in(anonymous, token)
    return anonymous
