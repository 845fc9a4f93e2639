"""Fixtures for the web console: a real SQLite store holding a paused staffing session."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from parley.protocol.clock import FakeClock
from parley.web import create_app

from .support import START, PausedSession, TestClient, paused_staffing_session


@pytest.fixture
def paused(tmp_path: Path) -> PausedSession:
    """A fresh database with one paused staffing session."""
    return paused_staffing_session(tmp_path / "delegate.db")


@pytest.fixture
def client(paused: PausedSession) -> Iterator[TestClient]:
    """The console over the paused session's database, on a fake clock one hour after the run."""
    with TestClient(create_app(paused.db, clock=FakeClock(START + 3600))) as test_client:
        yield test_client
