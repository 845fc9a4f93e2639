"""Red-team fixes for the portfolio (several counterparties, issue 17): a member's held offer is decided
through its portfolio only, so one role is never committed twice in any order; decisions made through a
portfolio are remembered (and forgotten) under the principal's own name; and a verifier plugin that
hangs while loading is cut off like one that hangs while checking."""

from __future__ import annotations

import json
import shutil
import threading
from collections.abc import Iterator
from importlib.metadata import EntryPoint
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from parley.cli.app import app
from parley.errors import ParleyError
from parley.governance import verification
from parley.governance.config import DomainConfig
from parley.governance.delegate import Delegate
from parley.governance.memory import owned_by
from parley.governance.session import decide
from parley.governance.store import SessionStore

PORTFOLIO = "staffing-portfolio-s0-1"
RECOMMENDATION = f"{PORTFOLIO}-e1"


def _cli(*args: str) -> tuple[int, str]:
    result = CliRunner().invoke(app, list(args))
    return result.exit_code, result.output


def _run(db: Path, counterparties: str) -> dict[str, Any]:
    code, out = _cli(
        "delegate", "run", "staffing", "--counterparty", counterparties, "--parallel", "--db", str(db),
        "--principal", "stored", "--json",
    )  # fmt: skip
    assert code == 0, out
    return json.loads(out)


@pytest.fixture(scope="module")
def four(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict[str, Any]]:
    """The red-team's portfolio: four counterparties, two offers held, one recommended."""
    db = tmp_path_factory.mktemp("four") / "dc.db"
    shown = _run(db, "cooperative,adversarial,slow,cooperative")
    assert shown["pending"]["request_id"] == RECOMMENDATION and len(shown["ranking"]) >= 2
    return db, shown


@pytest.fixture
def portfolio(four: tuple[Path, dict[str, Any]], tmp_path: Path) -> tuple[Path, dict[str, Any]]:
    db = tmp_path / "dc.db"
    for part in four[0].parent.glob("dc.db*"):  # (with its write-ahead log)
        shutil.copy(part, tmp_path / part.name)
    return db, four[1]


def _held_other(shown: dict[str, Any]) -> tuple[str, str]:
    """A held offer the recommendation does not recommend (session, its request)."""
    rows = {c["session_id"]: c["request_id"] for c in shown["candidates"]}
    other = shown["ranking"][1]
    return other, rows[other]


def _agreed(db: Path, shown: dict[str, Any]) -> list[str]:
    store = SessionStore(db)
    return [
        c["session_id"]
        for c in shown["candidates"]
        if store.load_session(c["session_id"])["state"] == "AGREE"
    ]


def _decide(db: Path, session: str, request: str) -> tuple[int, str]:
    return _cli("delegate", "decide", session, "--request", request, "--option", "A", "--db", str(db))


def test_a_held_member_cannot_be_decided_on_its_own_member_first(
    portfolio: tuple[Path, dict[str, Any]],
) -> None:
    db, shown = portfolio
    session, request = _held_other(shown)
    code, out = _decide(db, session, request)
    assert code == 2 and f"held by portfolio {PORTFOLIO}" in out and RECOMMENDATION in out, out
    assert len(out.strip().splitlines()) == 1 and "Traceback" not in out
    code, out = _decide(db, PORTFOLIO, RECOMMENDATION)
    assert code == 0, out
    assert _agreed(db, shown) == [shown["ranking"][0]]


def test_after_the_portfolio_decided_a_member_cannot_be_approved_too(
    portfolio: tuple[Path, dict[str, Any]],
) -> None:
    db, shown = portfolio
    assert _decide(db, PORTFOLIO, RECOMMENDATION)[0] == 0
    session, request = _held_other(shown)
    code, out = _decide(db, session, request)
    assert code == 2 and len(out.strip().splitlines()) == 1, out
    assert _agreed(db, shown) == [shown["ranking"][0]]


def test_decided_at_the_same_time_one_role_gets_one_commitment(
    portfolio: tuple[Path, dict[str, Any]],
) -> None:
    db, shown = portfolio
    session, request = _held_other(shown)
    errors: list[str] = []

    def run(target: str, answered: str) -> None:
        try:
            decide(SessionStore(db), target, request_id=answered, option="A")
        except ParleyError as error:
            errors.append(str(error))

    threads = [
        threading.Thread(target=run, args=(session, request)),
        threading.Thread(target=run, args=(PORTFOLIO, RECOMMENDATION)),
    ]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(60)
    assert len(errors) == 1 and _agreed(db, shown) == [shown["ranking"][0]], errors


def test_a_web_console_decision_obeys_the_portfolio(portfolio: tuple[Path, dict[str, Any]]) -> None:
    # The web console decides through `parley.governance.session.decide` (as the CLI does).
    db, shown = portfolio
    session, request = _held_other(shown)
    with pytest.raises(ParleyError, match=f"held by portfolio {PORTFOLIO}"):
        decide(SessionStore(db), session, request_id=request, option="C", decided_by="web:dana")


def test_forget_removes_decisions_made_through_a_portfolio(tmp_path: Path) -> None:
    db = tmp_path / "fg.db"
    _run(db, "cooperative,cooperative")
    assert _decide(db, PORTFOLIO, RECOMMENDATION)[0] == 0
    code, out = _cli("delegate", "memory", "show", "--json", "--db", str(db))
    assert code == 0 and " via " not in out and "approve_terms" in out, out
    code, out = _cli("delegate", "memory", "forget", "--principal", "principal", "--yes", "--db", str(db))
    assert code == 0 and "forgot 2" in out, out
    code, out = _cli("delegate", "memory", "show", "--db", str(db))
    assert "no memory entries" in out, out


def test_forget_removes_entries_stored_under_the_old_via_name(tmp_path: Path) -> None:
    # Stores written before the fix hold "principal via REQUEST": matched by prefix, not migrated.
    db = tmp_path / "old.db"
    shown = _run(db, "cooperative,cooperative")
    held = next(c for c in shown["candidates"] if c["session_id"] == shown["ranking"][0])
    decide(
        SessionStore(db), held["session_id"], request_id=held["request_id"], option="A",
        decided_by=f"principal via {RECOMMENDATION}", through=RECOMMENDATION,
    )  # fmt: skip
    code, out = _cli("delegate", "memory", "show", "--principal", "principal", "--db", str(db))
    assert f"principal via {RECOMMENDATION}" in out, out
    code, out = _cli("delegate", "memory", "forget", "--principal", "principal", "--yes", "--db", str(db))
    assert code == 0 and "forgot 1" in out, out
    assert owned_by(f"principal via {RECOMMENDATION}", "principal") and not owned_by(
        "principal2", "principal"
    )


# -- a verifier plugin that hangs while loading ----------------------------------------------------------

_RELEASE = threading.Event()


def hanging_verifier(argument: str) -> object:
    """An entry point's factory that hangs (until the test releases it)."""
    _RELEASE.wait(60)
    raise RuntimeError("released")


@pytest.fixture
def hanging(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    monkeypatch.syspath_prepend(str(Path(__file__).parents[2]))
    point = EntryPoint(
        "hang", "tests.governance.test_redteam_portfolio:hanging_verifier", verification.VERIFIER_GROUP
    )
    monkeypatch.setattr(verification, "_entry_points", lambda: (point,))
    _RELEASE.clear()
    yield
    _RELEASE.set()


@pytest.mark.usefixtures("hanging")
def test_a_plugin_that_hangs_while_loading_is_a_one_line_error_at_start(tmp_path: Path) -> None:
    db = tmp_path / "v.db"
    code, out = _cli("delegate", "start", "staffing", "--verifier", "hang", "--db", str(db))
    assert code == 2 and "did not load" in out and len(out.strip().splitlines()) == 1, out
    assert not db.exists()


@pytest.mark.usefixtures("hanging")
def test_a_plugin_that_hangs_while_loading_leaves_the_claim_unverified(procurement: DomainConfig) -> None:
    settings = procurement.verification.model_copy(
        update={"verifier": "hang", "claims": ("certification",), "timeout": 0.2}
    )
    delegate = Delegate(procurement.model_copy(update={"verification": settings}), "s")
    delegate.tci.confirmed["certification"] = "iso9001"
    delegate.verify_claims()
    (event,) = delegate.trajectory.of_kind("claim_verification")
    assert event.data["status"] == "unverified" and "did not load" in str(event.data["detail"])
    check = delegate.tci.verification("certification")
    assert check is not None and check.result.status.value == "unverified"
