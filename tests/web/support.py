"""Shared helpers for the web console tests: the test client and a paused staffing session."""

from __future__ import annotations

import warnings
from dataclasses import dataclass
from pathlib import Path

from starlette.exceptions import StarletteDeprecationWarning

from parley.governance import SessionStore, SimulatedCounterparty, StoredPrincipal, load_config, run_session
from parley.protocol.clock import FakeClock

with warnings.catch_warnings():
    # Starlette 1.x prefers the httpx2 fork for its TestClient; the project depends on httpx.
    warnings.filterwarnings("ignore", "Using `httpx` with", StarletteDeprecationWarning)
    from fastapi.testclient import TestClient

__all__ = ["START", "PausedSession", "TestClient", "paused_staffing_session"]

START = 1_700_000_000.0


@dataclass(frozen=True)
class PausedSession:
    """A database with one staffing session paused on its boundary escalation."""

    db: Path
    session_id: str


def paused_staffing_session(db: Path) -> PausedSession:
    """Run the staffing walkthrough (cooperative candidate asking $115K) with a stored principal."""
    config = load_config("staffing")
    store = SessionStore(db)
    try:
        outcome = run_session(
            config,
            SimulatedCounterparty(config, "cooperative", seed=5),
            StoredPrincipal(),
            store,
            config_source="staffing",
            seed=5,
            clock=FakeClock(START),
        )
    finally:
        store.close()
    assert outcome.paused
    return PausedSession(db, outcome.session_id)
