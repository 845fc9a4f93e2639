"""Shared helpers for the web console tests: the test client, a paused staffing session, signing in."""

from __future__ import annotations

import os
import tempfile
import warnings
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

from parley.governance import (
    ScriptedCounterparty,
    SessionOutcome,
    SessionStore,
    SimulatedCounterparty,
    StoredPrincipal,
    load_config,
    run_session,
)
from parley.governance.strategy import with_strategy
from parley.protocol.clock import FakeClock
from parley.web.auth import Credentials

with warnings.catch_warnings():
    # Starlette 1.x prefers the httpx2 fork for its TestClient (a StarletteDeprecationWarning, which
    # older Starlette releases do not define); the project depends on httpx.
    warnings.filterwarnings("ignore", "Using `httpx` with", UserWarning)
    from fastapi.testclient import TestClient

__all__ = [
    "ORIGIN",
    "PRINCIPAL",
    "START",
    "PausedSession",
    "TestClient",
    "add_principal",
    "paused_large_raise_session",
    "paused_staffing_session",
    "sign_in",
]

START = 1_700_000_000.0
ORIGIN = "http://testserver"
"""The origin of TestClient's default base URL: the console's own origin in these tests."""
PRINCIPAL = "maria.lopez (hiring manager)"


def add_principal(db: Path, name: str = PRINCIPAL) -> str:
    """Create a principal in db (as `parley web --init` does) and return its token."""
    return Credentials(db).add_principal(name, now=START)


def sign_in(client: TestClient, token: str) -> dict[str, Any]:
    """Sign client in with token; later requests send the console's Origin and the CSRF token."""
    response = client.post("/api/login", json={"token": token}, headers={"Origin": ORIGIN})
    assert response.status_code == 200, response.text
    info: dict[str, Any] = response.json()
    client.headers["Origin"] = ORIGIN
    client.headers["X-CSRF-Token"] = info["csrf_token"]
    return info


@dataclass(frozen=True)
class PausedSession:
    """A database with one staffing session paused on its boundary escalation."""

    db: Path
    session_id: str


def paused_staffing_session(db: Path) -> PausedSession:
    """Run the staffing walkthrough (cooperative candidate asking $115K) with a stored principal.

    The walkthrough is played once per process (and audit setting) into a database of its own, whose
    file is then copied to db: the run is deterministic (fixed seed, fake clock), so the copy holds
    what playing it into db would. A db that already exists gets the session played into it.
    """
    if db.exists():
        return _play_paused_staffing(db)
    image, session_id = _paused_staffing_image(_audit_setting())
    db.parent.mkdir(parents=True, exist_ok=True)
    db.write_bytes(image)
    return PausedSession(db, session_id)


def _audit_setting() -> tuple[str | None, ...]:
    """What decides how a new audit chain is keyed and anchored (see `SessionStore`)."""
    return tuple(
        os.environ.get(name) for name in ("PARLEY_AUDIT_KEY", "PARLEY_AUDIT_KEY_FILE", "PARLEY_AUDIT_ANCHOR")
    )


@cache
def _paused_staffing_image(audit: tuple[str | None, ...]) -> tuple[bytes, str]:
    """The database file of the walkthrough played under the audit setting audit, and its session id."""
    assert audit == _audit_setting()
    with tempfile.TemporaryDirectory(prefix="parley-paused-") as folder:
        db = Path(folder) / "delegate.db"
        paused = _play_paused_staffing(db)
        assert not db.with_name(f"{db.name}-wal").exists()  # closed: everything is in the one file
        return db.read_bytes(), paused.session_id


def _play_paused_staffing(db: Path) -> PausedSession:
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


LARGE_ASK = [
    "Work authorization - I need H-1B sponsorship.",
    "Yes, a 6-hour overlap with Pacific time works. I'm fully remote from Toronto.",
    "8 years, mostly Python and React.",
    "I could start in January. Permanent role, please.",
    "Compensation expectations: $150K-$170K.",
    "I'd prefer $165K given my 8 years of experience.",
]


def paused_legacy_session(db: Path, messages: Sequence[str]) -> SessionOutcome:
    """A staffing session on the legacy strategy (a large ask escalates at once) with a scripted
    candidate, paused for the principal (stored in db)."""
    store = SessionStore(db)
    try:
        outcome = run_session(
            with_strategy(load_config("staffing"), "legacy"),
            ScriptedCounterparty(list(messages)),
            StoredPrincipal(),
            store,
            config_source="staffing",
            clock=FakeClock(START),
        )
    finally:
        store.close()
    assert outcome.pending is not None
    return outcome


def paused_large_raise_session(db: Path) -> PausedSession:
    """A staffing session paused on a $165K ask against a $100K limit (raising it needs confirming)."""
    outcome = paused_legacy_session(db, LARGE_ASK)
    assert outcome.pending is not None and outcome.pending.boundary_at_risk["ask"] == 165000.0
    return PausedSession(db, outcome.session_id)


def declined_session(db: Path) -> PausedSession:
    """A staffing session that has ended: every escalation answered with its "decline" option."""
    from parley.governance import decide

    paused = paused_staffing_session(db)
    store = SessionStore(db)
    try:
        for _ in range(10):
            request = store.open_request(paused.session_id)
            if request is None:
                break
            option = next((o.key for o in request.options if o.effect == "decline"), request.options[-1].key)
            decide(
                store, paused.session_id, request_id=request.request_id, option=option, clock=FakeClock(START)
            )
        assert store.open_request(paused.session_id) is None
    finally:
        store.close()
    return paused


def saved_game(
    folder: Path, scenario: str = "casino", agents: tuple[str, str] = ("astra", "base"), seed: int = 7
) -> Path:
    """A bargaining run saved as `parley run --save` saves it (trajectory.jsonl, result.json)."""
    from parley.experiments.runner import run_negotiation
    from parley.jsonio import NO_VALUE_FIELDS, dumps
    from parley.scenarios import load_scenario
    from parley.web.play import result_summary

    loaded = load_scenario(scenario)
    result = run_negotiation(loaded, list(agents), seed=seed)
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "trajectory.jsonl").write_text(result.trajectory.to_jsonl(), encoding="utf-8")
    summary = result_summary(loaded, result, dict(zip(loaded.party_names, agents, strict=True)))
    (folder / "result.json").write_text(dumps(summary, no_value=NO_VALUE_FIELDS, indent=2), encoding="utf-8")
    return folder


def saved_mediation(folder: Path, case: str = "hmo", seed: int = 0) -> Path:
    """A rule-based mediated conversation saved as `parley mediate --save` saves it."""
    from parley.experiments.promediate_llm import ConversationRoles, play_conversation
    from parley.jsonio import CONVERSATION_NO_VALUE_FIELDS, dumps
    from parley.scenarios.importers.promediate import load_promediate_case
    from parley.simulation.modes import ConflictMode

    played = play_conversation(
        load_promediate_case(case), "social", ConflictMode.parse("general"), seed, ConversationRoles(), None
    )
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "trajectory.jsonl").write_text(played.result.trajectory.to_jsonl(), encoding="utf-8")
    metrics = dumps(played.metrics.to_json(), no_value=CONVERSATION_NO_VALUE_FIELDS, indent=2)
    (folder / "metrics.json").write_text(metrics, encoding="utf-8")
    return folder
