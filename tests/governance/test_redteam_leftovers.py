"""Red-team leftovers (issues 14, 17): the amount tokeniser on trailing whitespace and the negation
check on many option hits stay linear; a portfolio member's offer that reaches its final approval after
the portfolio ended can be decided without committing the role twice; a verifier plugin that failed to
load is not loaded again for each claim."""

from __future__ import annotations

import contextlib
import json
import sqlite3
import threading
from collections.abc import Iterator
from importlib.metadata import EntryPoint
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from linear_growth import assert_grows_linearly
from parley.cli.app import app
from parley.errors import ParleyError
from parley.governance import session as session_module
from parley.governance import verification
from parley.governance.amounts import find_amounts
from parley.governance.config import DomainConfig, load_config
from parley.governance.delegate import Delegate
from parley.governance.extraction import ExtractionContext, LexiconExtractor
from parley.governance.session import decide
from parley.governance.store import SessionStore

# -- 1. trailing whitespace -------------------------------------------------------------------------------


@pytest.mark.parametrize("space", [" ", "\t", "\u00a0", "\u3000", "\n"])
def test_amounts_read_a_trailing_run_of_whitespace_in_linear_time(space: str) -> None:
    assert_grows_linearly(lambda run: find_amounts("We pay $100,000." + run + "\u200b"), space, 2_500, 8)


def test_amounts_read_a_repeated_figure_and_space_in_linear_time() -> None:
    assert_grows_linearly(find_amounts, "1 ", 2_500, 8)


def test_trailing_whitespace_keeps_every_amount() -> None:
    (amount,) = find_amounts("We pay $100,000." + " " * 50)
    assert amount.high == 100_000


# -- 2. negation over many option hits -------------------------------------------------------------------


@pytest.mark.parametrize("unit", ["python ", "python/", "not python-"])
def test_option_hits_are_checked_for_negation_in_linear_time(unit: str) -> None:
    extractor = LexiconExtractor(load_config("staffing"))
    context = ExtractionContext()
    assert_grows_linearly(lambda text: extractor.extract(text, context), unit, 1_000, 8)


def test_negation_still_reads_its_clause() -> None:
    extractor = LexiconExtractor(load_config("staffing"))
    fields = {
        r.field: r.value for r in extractor.extract("I do not know python, but react.", ExtractionContext())
    }
    assert "python" not in str(fields.get("skills", "")), fields


# -- 3. a member's final approval after its portfolio ended ------------------------------------------------

PORTFOLIO = "staffing-portfolio-s0-1"


def _cli(*args: str) -> tuple[int, str]:
    result = CliRunner().invoke(app, list(args))
    return result.exit_code, result.output


@pytest.fixture(scope="module")
def held(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict[str, Any]]:
    db = tmp_path_factory.mktemp("held") / "p.db"
    code, out = _cli(
        "delegate", "run", "staffing", "--counterparty", "cooperative,adversarial,slow,cooperative",
        "--parallel", "--db", str(db), "--principal", "stored", "--json",
    )  # fmt: skip
    assert code == 0, out
    return db, json.loads(out)


def _ended(
    held: tuple[Path, dict[str, Any]], tmp_path: Path, state: str
) -> tuple[Path, list[tuple[str, str]]]:
    """A copy of the portfolio as if it had ended in state while its members' final approvals waited
    (as when a member reaches its final approval after the portfolio was decided)."""
    db = tmp_path / "p.db"
    for part in held[0].parent.glob("p.db*"):  # (with its write-ahead log)
        (tmp_path / part.name).write_bytes(part.read_bytes())
    with sqlite3.connect(db) as connection:
        connection.execute("UPDATE sessions SET state = ? WHERE session_id = ?", (state, PORTFOLIO))
    rows = {c["session_id"]: c["request_id"] for c in held[1]["candidates"]}
    return db, [(s, rows[s]) for s in held[1]["ranking"]]


def _state(db: Path, session: str) -> str:
    return str(SessionStore(db).load_session(session)["state"])


def test_an_offer_held_past_a_portfolio_that_approved_none_is_decided_directly(
    held: tuple[Path, dict[str, Any]], tmp_path: Path
) -> None:
    db, offers = _ended(held, tmp_path, "NO_DEAL")
    (first, first_request), (second, second_request) = offers[:2]
    decide(SessionStore(db), first, request_id=first_request, option="A")
    assert _state(db, first) == "AGREE"
    # the role is committed now: the other held offer can only be declined
    with pytest.raises(ParleyError, match="can only be declined"):
        decide(SessionStore(db), second, request_id=second_request, option="A")
    decide(SessionStore(db), second, request_id=second_request, option="C")
    assert _state(db, second) == "NO_DEAL"


def test_an_offer_held_past_a_portfolio_that_approved_one_can_only_be_declined(
    held: tuple[Path, dict[str, Any]], tmp_path: Path
) -> None:
    db, offers = _ended(held, tmp_path, "AGREE")
    session, request = offers[0]
    code, out = _cli("delegate", "decide", session, "--request", request, "--option", "A", "--db", str(db))
    assert code == 2 and "can only be declined" in out and len(out.strip().splitlines()) == 1, out
    assert _state(db, session) == "ESCALATE"
    code, out = _cli("delegate", "decide", session, "--request", request, "--option", "C", "--db", str(db))
    assert code == 0 and _state(db, session) == "NO_DEAL", out


# -- 4. a plugin that failed to load is remembered for the run ---------------------------------------------

_RELEASE = threading.Event()
LOADS: list[str] = []


def slow_broken_verifier(argument: str) -> object:
    """An entry point's factory that hangs past the timeout (until the test releases it)."""
    _RELEASE.wait(30)
    raise RuntimeError("released")


@pytest.fixture
def slow_broken(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    monkeypatch.syspath_prepend(str(Path(__file__).parents[2]))
    point = EntryPoint(
        "slowbroken",
        "tests.governance.test_redteam_leftovers:slow_broken_verifier",
        verification.VERIFIER_GROUP,
    )
    monkeypatch.setattr(verification, "_entry_points", lambda: (point,))
    monkeypatch.setattr(verification, "_FAILED_PLUGINS", {})
    load = verification._load_entry_point  # pyright: ignore[reportPrivateUsage] (counted: the plugin imports its own copy of this module)

    def counted(*args: Any, **kwargs: Any) -> object:
        LOADS.append("load")
        return load(*args, **kwargs)

    monkeypatch.setattr(verification, "_load_entry_point", counted)
    LOADS.clear()
    _RELEASE.clear()
    yield
    _RELEASE.set()


@pytest.mark.usefixtures("slow_broken")
def test_a_plugin_that_failed_to_load_is_not_loaded_again_for_each_claim() -> None:
    procurement = load_config("procurement")
    settings = procurement.verification.model_copy(
        update={"verifier": "slowbroken", "claims": ("certification",), "timeout": 0.5}
    )
    config: DomainConfig = procurement.model_copy(update={"verification": settings})
    delegates = [Delegate(config, f"s{i}") for i in range(4)]
    for i, delegate in enumerate(delegates):
        delegate.tci.confirmed["certification"] = f"iso900{i}"
        delegate.verify_claims()
    assert len(LOADS) == 1, LOADS  # one attempt (one wait), not one per claim
    for delegate in delegates:
        (event,) = delegate.trajectory.of_kind("claim_verification")
        assert event.data["status"] == "unverified" and "did not load" in str(event.data["detail"])


def _approve(db: Path, session: str, request: str, outcomes: dict[str, str]) -> None:
    """One decider with its own connection: approve session's held offer (option A)."""
    store = SessionStore(db)
    try:
        decide(store, session, request_id=request, option="A")
        outcomes[session] = "approved"
    except ParleyError as error:
        outcomes[session] = str(error)
    except Exception as error:  # (kept so that the assertion names it: a thread's traceback is only warned)
        outcomes[session] = f"unexpected {type(error).__name__}: {error}"
    finally:
        store.close()


def test_two_direct_approvals_at_once_of_an_ended_portfolio_commit_the_role_once(
    held: tuple[Path, dict[str, Any]], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Two deciders (processes, web requests) approve two members of a portfolio that ended with no deal
    at the same moment: both pass the up-front check (forced here: each waits for the other after it), and
    still exactly one commits the role; the other gets a one-line refusal naming the portfolio."""
    check = session_module._check_not_held  # pyright: ignore[reportPrivateUsage] (the interleaving is forced after it)
    barrier = threading.Barrier(2, timeout=10)

    def checked_together(*args: Any, **kwargs: Any) -> None:
        check(*args, **kwargs)
        with contextlib.suppress(threading.BrokenBarrierError):  # (the other failed before: go on alone)
            barrier.wait()

    monkeypatch.setattr(session_module, "_check_not_held", checked_together)
    for attempt in range(3):
        barrier.reset()
        (tmp_path / str(attempt)).mkdir()
        db, offers = _ended(held, tmp_path / str(attempt), "NO_DEAL")
        outcomes: dict[str, str] = {}
        deciders = [threading.Thread(target=_approve, args=(db, *offer, outcomes)) for offer in offers[:2]]
        for decider in deciders:
            decider.start()
        for decider in deciders:
            decider.join(60)
        assert not any(d.is_alive() for d in deciders), (attempt, "a decider still runs after 60 s", outcomes)
        states = {session: _state(db, session) for session, _ in offers[:2]}
        assert sorted(states.values()) == ["AGREE", "ESCALATE"], (attempt, states, outcomes)
        (refused,) = [s for s, state in states.items() if state == "ESCALATE"]
        message = outcomes[refused]
        assert PORTFOLIO in message and len(message.strip().splitlines()) == 1, message
        assert [s for s, o in outcomes.items() if o == "approved"] == [s for s in states if s != refused], (
            attempt,
            outcomes,
        )


def test_finding_a_members_portfolio_loads_only_portfolios_that_name_it(
    held: tuple[Path, dict[str, Any]], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Every reply, decision and resume asks which portfolio holds the session: with many stored
    portfolios only those whose snapshot names it are loaded (a copy of the portfolio that names other
    members is never parsed), and the member is still found."""
    db, offers = _ended(held, tmp_path, "ESCALATE")
    with sqlite3.connect(db) as connection:
        (snapshot,) = connection.execute(
            "SELECT snapshot FROM sessions WHERE session_id = ?", (PORTFOLIO,)
        ).fetchone()
        other = json.loads(snapshot)
        other["members"] = [{"session_id": "somebody-else-s9-9"}]
        for n in range(20):
            connection.execute(
                "INSERT INTO sessions SELECT ?, config, persona, seed, state, ?, created, updated, version "
                "FROM sessions WHERE session_id = ?",
                (f"other-portfolio-{n}", json.dumps(other), PORTFOLIO),
            )
    store = SessionStore(db)
    loaded: list[str] = []
    load = store.load_session

    def counted(session_id: str) -> dict[str, Any]:
        loaded.append(session_id)
        return load(session_id)

    monkeypatch.setattr(store, "load_session", counted)
    try:
        member = offers[0][0]
        assert session_module.portfolio_of(store, member) == PORTFOLIO
        assert loaded == [PORTFOLIO]
        loaded.clear()
        assert session_module.portfolio_of(store, "somebody-else-s9-9") == "other-portfolio-0"
        assert loaded == ["other-portfolio-0"]
        loaded.clear()
        assert session_module.portfolio_of(store, "nobody-s0-0") is None
        assert loaded == []
    finally:
        store.close()
