"""Principal memory (GAIA §3.3.6): decisions remembered per principal and domain with a decay,
suggested in later escalations and never applied; written with the decision, audited, forgettable."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from typer.testing import CliRunner

from parley.errors import ScenarioError
from parley.governance.audit import AuditError
from parley.governance.audit_files import AuditKey
from parley.governance.config import DomainConfig, MemorySettings, load_config
from parley.governance.counterparties import ScriptedCounterparty
from parley.governance.escalation import (
    Decision,
    EscalationOption,
    EscalationRequest,
    PolicyPrincipal,
    StoredPrincipal,
    Trigger,
)
from parley.governance.machine import State
from parley.governance.memory import (
    MEMORY_LOG,
    MemoryEntry,
    PrincipalMemory,
    Remembered,
    entry_from_decision,
    suggest,
    weigh,
)
from parley.governance.session import SessionOutcome, decide, load_runner, resume_session, run_session
from parley.governance.store import SessionStore
from parley.governance.strategy import with_strategy
from parley.protocol.clock import FakeClock
from parley.protocol.events import Event

from .test_walkthrough import WALKTHROUGH

DAY = 86_400.0
# The candidate asks $105K against the $80K-$100K band: the first request is a boundary escalation.
SCRIPT = [*WALKTHROUGH[:6], "OK, $100K works for me.", "Thanks, that summary looks right to me."]
SRC = str(Path(__file__).resolve().parents[2] / "src")


@pytest.fixture(scope="module")
def staffing() -> DomainConfig:
    return with_strategy(load_config("staffing"), "legacy")  # the walkthrough's flow


def _boundary(store: SessionStore, config: DomainConfig, *, start: float = 0.0) -> SessionOutcome:
    outcome = run_session(
        config,
        ScriptedCounterparty(SCRIPT),
        StoredPrincipal(),
        store,
        config_source="staffing",
        clock=FakeClock(start, tick=1.0),
    )
    assert outcome.pending is not None and outcome.pending.trigger == Trigger.BOUNDARY
    return outcome


def _decide(store: SessionStore, outcome: SessionOutcome, option: str, by: str, at: float = 0.0) -> None:
    assert outcome.pending is not None
    decide(
        store,
        outcome.session_id,
        request_id=outcome.pending.request_id,
        option=option,
        decided_by=by,
        clock=FakeClock(at),
    )


def _request(
    trigger: Trigger = Trigger.BOUNDARY,
    *,
    ask: float = 105_000.0,
    maximum: float = 100_000.0,
    session: str = "s9",
    created: float = 0.0,
) -> EscalationRequest:
    options = (
        EscalationOption("A", "Counter at $100K", "", "counter_at_limit"),
        EscalationOption("B", "Raise the limit", "", "raise_limit"),
        EscalationOption("C", "Decline", "", "decline"),
    )
    if trigger == Trigger.FINAL_APPROVAL:
        options = (
            EscalationOption("A", "Approve these terms", "", "approve_terms"),
            EscalationOption("B", "Return to negotiation", "", "revise_terms"),
            EscalationOption("C", "Decline", "", "decline"),
        )
    boundary = (
        {"term": "annual_salary", "ask": ask, "maximum": maximum} if trigger == Trigger.BOUNDARY else {}
    )
    return EscalationRequest(
        f"{session}-e1",
        session,
        trigger,
        "NEGOTIATE",
        (),
        {},
        "Problem.",
        options,
        "Ask.",
        boundary,
        (),
        created,
    )


def _entry(
    principal: str = "maria",
    *,
    session: str = "s1",
    approved: float | None = 95_000.0,
    effect: str = "raise_limit",
    at: float = 0.0,
    trigger: str = "boundary",
    guidance: str = "",
) -> MemoryEntry:
    return MemoryEntry(
        principal,
        "staffing",
        session,
        f"{session}-e1",
        trigger,
        "B",
        effect,
        ("counter_at_limit", "decline"),
        {"annual_salary": approved} if approved is not None else {},
        guidance,
        at,
    )


def _fresh(*entries: MemoryEntry) -> list[Remembered]:
    return [Remembered(e, 1.0, False) for e in entries]


# -- what a decision teaches ---------------------------------------------------------------------


def test_a_raise_is_remembered_with_the_amount_and_the_options_turned_down() -> None:
    raised = Event(
        7, "authorization_change", data={"term": "annual_salary", "minimum": 80e3, "maximum": 105e3}
    )
    entry = entry_from_decision(Decision("s9-e1", "B", "", "maria", 5.0), _request(), [raised], "staffing")
    assert entry.approved == {"annual_salary": 105_000.0} and entry.effect == "raise_limit"
    assert entry.rejected == ("counter_at_limit", "decline") and entry.principal == "maria"
    assert MemoryEntry.from_json(json.loads(json.dumps(entry.to_json()))) == entry


def test_a_counter_at_the_limit_and_guidance_with_an_amount_are_approvals_too() -> None:
    counter = entry_from_decision(Decision("s9-e1", "A"), _request(), [], "staffing")
    guided = entry_from_decision(Decision("s9-e1", None, "Go to $98K at most"), _request(), [], "staffing")
    declined = entry_from_decision(Decision("s9-e1", "C"), _request(), [], "staffing")
    assert counter.approved == {"annual_salary": 100_000.0}
    assert guided.approved == {"annual_salary": 98_000.0} and guided.effect == "counter_at_guidance"
    assert guided.rejected == () and declined.approved == {} and declined.effect == "decline"


def test_approved_final_terms_are_remembered() -> None:
    agreed = Event(9, "agreement", data={"terms": {"annual_salary": 97_000.0, "start": "january", "x": True}})
    entry = entry_from_decision(
        Decision("s9-e1", "A"), _request(Trigger.FINAL_APPROVAL), [agreed], "staffing"
    )
    assert entry.approved == {"annual_salary": 97_000.0} and entry.effect == "approve_terms"


# -- decay ----------------------------------------------------------------------------------------


def test_weight_halves_with_each_half_life_in_days() -> None:
    settings = MemorySettings(half_life_days=90)
    weights = {
        r.entry.session_id: r.weight
        for r in weigh([_entry(at=0), _entry(session="s2", at=90 * DAY)], settings, 180 * DAY)
    }
    assert weights == pytest.approx({"s1": 0.25, "s2": 0.5})


def test_weight_can_decay_with_later_sessions_instead() -> None:
    settings = MemorySettings(half_life_days=None, half_life_sessions=2)
    entries = [_entry(session=f"s{n}", at=float(n)) for n in range(5)]
    weighed = weigh(entries, settings, 10.0)
    assert [r.entry.session_id for r in weighed] == ["s4", "s3", "s2", "s1", "s0"]  # newest first
    assert [round(r.weight, 4) for r in weighed] == [1.0, 0.7071, 0.5, 0.3536, 0.25]
    other = weigh([*entries, _entry("dana", session="s9", at=99.0)], settings, 100.0)
    assert [r.weight for r in other if r.entry.session_id == "s4"] == [
        1.0
    ]  # another principal's sessions do not count


def test_old_memory_is_stale_and_future_timestamps_do_not_inflate_weight() -> None:
    settings = MemorySettings(half_life_days=90, stale_below=0.25)
    old, future = weigh([_entry(at=0), _entry(session="s2", at=10 * DAY)], settings, 365 * DAY)[1], None
    assert old.stale and old.weight < 0.25
    (future,) = weigh([_entry(at=50 * DAY)], settings, 0.0)
    assert future.weight == 1.0 and not future.stale


# -- suggestions ----------------------------------------------------------------------------------


def test_an_ask_within_what_was_approved_before_suggests_the_raise(staffing: DomainConfig) -> None:
    entries = _fresh(
        _entry(session="s3", approved=95e3), _entry(session="s2", approved=92e3), _entry(approved=90e3)
    )
    suggestion = suggest(staffing, _request(ask=94_000.0), entries, "maria")
    assert suggestion is not None and suggestion.option == "B" and suggestion.guidance is None
    assert "approved up to $95K for the annual salary the last 3 times" in suggestion.text
    assert "chose 'raise limit' in 3 of the last 3 boundary escalations" in suggestion.text
    assert "turned down 'counter at limit' each time" in suggestion.text
    assert "Nothing is applied until you decide." in suggestion.text
    assert suggestion.based_on == ("s3-e1", "s2-e1", "s1-e1") and suggestion.weight == 1.0


def test_an_ask_beyond_it_suggests_a_counter(staffing: DomainConfig) -> None:
    above_band = suggest(staffing, _request(ask=115e3), _fresh(_entry(approved=108e3)), "maria")
    within_band = suggest(staffing, _request(ask=115e3), _fresh(_entry(approved=95e3)), "maria")
    assert above_band is not None and above_band.option is None
    assert above_band.guidance == "Go to $108K at most"
    assert within_band is not None and within_band.option == "A"


def test_only_the_window_of_recent_fresh_decisions_counts(staffing: DomainConfig) -> None:
    recent = [_entry(session=f"s{n}", approved=90e3, effect="counter_at_limit") for n in (5, 4, 3)]
    old = [Remembered(_entry(session="s0", approved=200e3), 0.1, True)]
    suggestion = suggest(staffing, _request(ask=150e3), [*_fresh(*recent), *old], "maria")
    assert suggestion is not None and "up to $90K" in suggestion.text and "s0-e1" not in suggestion.based_on
    assert suggest(staffing, _request(ask=150e3), old, "maria") is None  # stale memory says nothing


def test_memory_of_another_principal_or_trigger_is_not_used(staffing: DomainConfig) -> None:
    dana = _fresh(_entry("dana"))
    assert suggest(staffing, _request(), dana, "maria") is None
    sentiment = _request(Trigger.SENTIMENT)
    assert suggest(staffing, sentiment, _fresh(_entry()), "maria") is None  # no term, other trigger


def test_guidance_is_quoted_cleaned_and_cut(staffing: DomainConfig) -> None:
    noisy = "Never offer relocation\x1b[2J\u202e assistance. " + "Really. " * 5_000
    odd = "ma\x1b]0;x\x07ria"  # a name carrying a terminal title sequence
    suggestion = suggest(staffing, _request(), _fresh(_entry(odd, guidance=noisy)), odd)
    assert suggestion is not None and "From maria's decisions" in suggestion.text
    assert 'last guidance: "Never offer relocation assistance. Really.' in suggestion.text
    assert "\x1b" not in suggestion.text and "\u202e" not in suggestion.text and len(suggestion.text) < 700


# -- in the store: written with the decision, audited --------------------------------------------


def test_a_decision_is_remembered_in_its_own_transaction_and_audited(
    staffing: DomainConfig, tmp_path: Path
) -> None:
    store = SessionStore(tmp_path / "d.db")
    first = _boundary(store, staffing)
    _decide(store, first, "B", "maria", at=10.0)
    (entry,) = PrincipalMemory(store).entries()
    assert entry.principal == "maria" and entry.domain == "staffing" and entry.session_id == first.session_id
    assert entry.approved == {"annual_salary": 105_000.0} and entry.decided_at == 10.0
    log = store.load_events(MEMORY_LOG)
    assert [e.kind for e in log] == ["memory_recorded"] and log[0].data["request_id"] == entry.request_id
    assert store.verify(MEMORY_LOG).ok and store.verify(first.session_id).ok


def test_memory_is_suggested_in_a_later_session_and_never_applied(
    staffing: DomainConfig, tmp_path: Path
) -> None:
    store = SessionStore(tmp_path / "d.db")
    first = _boundary(store, staffing)
    _decide(store, first, "B", "maria")
    second = _boundary(store, staffing)  # the same ask, in a new session: the principal is asked again
    request = second.pending
    assert request is not None and second.state == State.ESCALATE and second.paused
    assert request.suggested["option"] == "B" and request.suggested["principal"] == "maria"
    assert request.suggested["based_on"] == [f"{first.session_id}-e1"]
    assert "From maria's decisions in earlier sessions: approved up to $105K" in request.problem
    assert store.decision(request.request_id) is None  # nothing decided on the principal's behalf
    runner = load_runner(store, second.session_id)
    assert runner.delegate.band("annual_salary") == (80_000.0, 100_000.0)  # the limit was not raised
    assert not [
        e for e in store.load_events(second.session_id) if e.kind in ("decision", "authorization_change")
    ]
    assert store.open_request(second.session_id) == request  # stored (and audited) with its suggestion


def test_a_policy_principal_decides_by_its_policy_not_by_memory(
    staffing: DomainConfig, tmp_path: Path
) -> None:
    store = SessionStore(tmp_path / "d.db")
    _decide(store, _boundary(store, staffing), "B", "maria")
    outcome = run_session(
        staffing,
        ScriptedCounterparty(SCRIPT),
        PolicyPrincipal({"boundary": "A"}, default="A", name="maria"),
        store,
        config_source="staffing",
        clock=FakeClock(tick=1.0),
    )
    (decision, *_) = store.decisions(outcome.session_id)
    assert decision.option == "A"  # the suggestion said B; the principal's own choice stands


def test_the_current_session_is_not_its_own_memory(staffing: DomainConfig, tmp_path: Path) -> None:
    store = SessionStore(tmp_path / "d.db")
    first = _boundary(store, staffing)
    _decide(store, first, "A", "maria")
    after = resume_session(store, first.session_id)
    assert after.pending is not None and after.pending.trigger == Trigger.FINAL_APPROVAL
    assert not after.pending.suggested and "From maria" not in after.pending.problem


def test_stale_memory_is_not_suggested(staffing: DomainConfig, tmp_path: Path) -> None:
    store = SessionStore(tmp_path / "d.db")
    _decide(store, _boundary(store, staffing), "B", "maria", at=0.0)
    later = _boundary(store, staffing, start=400 * DAY)  # 400 days on, with a 90-day half-life
    assert later.pending is not None and not later.pending.suggested
    assert "From maria" not in later.pending.problem


def test_recall_can_be_switched_off(staffing: DomainConfig, tmp_path: Path) -> None:
    store = SessionStore(tmp_path / "d.db")
    _decide(store, _boundary(store, staffing), "B", "maria")
    quiet = staffing.model_copy(update={"memory": MemorySettings(recall=False)})
    later = _boundary(store, quiet)
    assert later.pending is not None and not later.pending.suggested
    assert len(PrincipalMemory(store).entries()) == 1  # still remembered, only not suggested


def test_an_edited_memory_row_is_refused_and_not_suggested(staffing: DomainConfig, tmp_path: Path) -> None:
    store = SessionStore(tmp_path / "d.db")
    _decide(store, _boundary(store, staffing), "B", "maria")
    store.execute("UPDATE principal_memory SET entry = replace(entry, '105000.0', '500000.0')")
    with pytest.raises(AuditError, match="differs from its audit entry"):
        PrincipalMemory(store).entries()
    later = _boundary(store, staffing)
    assert later.pending is not None and not later.pending.suggested
    assert "Principal memory is not shown: its stored record fails verification." in later.pending.problem
    assert "$500K" not in later.pending.problem


def test_a_memory_row_deleted_outside_parley_is_detected(staffing: DomainConfig, tmp_path: Path) -> None:
    store = SessionStore(tmp_path / "d.db")
    _decide(store, _boundary(store, staffing), "B", "maria")
    store.execute("DELETE FROM principal_memory")
    with pytest.raises(AuditError, match="has no memory row"):
        PrincipalMemory(store).entries()


def test_an_edited_memory_log_fails_verification(staffing: DomainConfig, tmp_path: Path) -> None:
    store = SessionStore(tmp_path / "d.db")
    _decide(store, _boundary(store, staffing), "B", "maria")
    store.execute(
        "UPDATE audit SET entry = replace(entry, 'maria', 'mario') WHERE session_id=?", [MEMORY_LOG]
    )
    assert not store.verify(MEMORY_LOG).ok
    with pytest.raises(AuditError):
        PrincipalMemory(store).entries()


def test_forgetting_is_scoped_and_audited(staffing: DomainConfig, tmp_path: Path) -> None:
    store = SessionStore(tmp_path / "d.db")
    _decide(store, _boundary(store, staffing), "B", "maria")
    _decide(store, _boundary(store, staffing), "A", "dana")
    memory = PrincipalMemory(store)
    assert memory.forget(principal="nobody", by="admin", now=1.0) == 0
    assert memory.forget(principal="maria", domain="staffing", by="admin", now=1.0) == 1
    assert [e.principal for e in memory.entries()] == ["dana"]
    forgotten = [e for e in store.load_events(MEMORY_LOG) if e.kind == "memory_forgotten"]
    assert (
        len(forgotten) == 1
        and forgotten[0].data["by"] == "admin"
        and forgotten[0].data["principal"] == "maria"
    )
    assert store.verify(MEMORY_LOG).ok
    later = _boundary(store, staffing)
    assert later.pending is not None and later.pending.suggested.get("principal") == "dana"


def test_a_forgotten_entry_put_back_into_the_table_is_refused(staffing: DomainConfig, tmp_path: Path) -> None:
    store = SessionStore(tmp_path / "d.db")
    _decide(store, _boundary(store, staffing), "B", "maria")
    row = store.execute("SELECT * FROM principal_memory")[0]
    PrincipalMemory(store).forget(by="admin", now=1.0)
    store.execute("INSERT INTO principal_memory VALUES (?,?,?,?,?,?,?,?)", list(row))
    with pytest.raises(AuditError, match="differs from its audit entry"):
        PrincipalMemory(store).entries()


def test_a_keyed_store_audits_memory_on_a_chain_of_its_key(staffing: DomainConfig, tmp_path: Path) -> None:
    key = AuditKey(bytes(range(32)), "test")
    store = SessionStore(tmp_path / "d.db", key=key)
    _decide(store, _boundary(store, staffing), "B", "maria")
    assert store.memory_log == f"{MEMORY_LOG}@{key.key_id}"
    report = store.verify(store.memory_log)
    assert report.ok and report.keyed
    assert len(PrincipalMemory(store).entries()) == 1
    unkeyed = SessionStore(tmp_path / "d.db", key=None)
    unkeyed.key = None
    with pytest.raises(AuditError):  # memory written under a key cannot be checked without it
        PrincipalMemory(unkeyed).entries()


def test_the_memory_log_id_is_reserved(tmp_path: Path) -> None:
    store = SessionStore(tmp_path / "d.db")
    with pytest.raises(ScenarioError, match="reserved"):
        store.save_step(
            MEMORY_LOG, config="x", persona=None, seed=None, state="START", snapshot={}, events=[], now=0
        )


def test_an_old_database_gains_the_memory_table(tmp_path: Path) -> None:
    import sqlite3

    path = tmp_path / "old.db"
    with sqlite3.connect(path) as old:  # the tables of a database written before principal memory
        old.execute(
            "CREATE TABLE sessions (session_id TEXT PRIMARY KEY, config TEXT NOT NULL, persona TEXT, "
            "seed INTEGER, state TEXT NOT NULL, snapshot TEXT NOT NULL, created REAL NOT NULL, "
            "updated REAL NOT NULL)"
        )
    store = SessionStore(path)
    assert store.memory_rows() == [] and PrincipalMemory(store).entries() == []


# -- a killed process: memory stays consistent with the decisions ---------------------------------

_KILLED = """
import os, sys
from parley.governance import store as store_module
from parley.governance.session import decide

db, session, request, point = sys.argv[1:5]
original = store_module.SessionStore.__init__

def hooked(self, *args, **kwargs):
    original(self, *args, **kwargs)
    def fault(where):
        if where == point:
            os._exit(137)
    self.fault = fault

store_module.SessionStore.__init__ = hooked
decide(store_module.SessionStore(db), session, request_id=request, option="B", decided_by="maria")
"""


def _consistent(store: SessionStore) -> None:
    """Every stored decision has its memory entry and no entry lacks its decision."""
    decided = {str(r[0]) for r in store.execute("SELECT request_id FROM decisions")}
    remembered = {e.request_id for e in PrincipalMemory(store).entries()}
    assert decided == remembered
    assert (
        not store.execute("SELECT 1 FROM audit WHERE session_id=?", [MEMORY_LOG])
        or store.verify(MEMORY_LOG).ok
    )


@pytest.mark.slow
@pytest.mark.parametrize("point", ["step:staged", "step:committed"])
def test_a_killed_decision_leaves_memory_consistent(
    staffing: DomainConfig, tmp_path: Path, point: str
) -> None:
    database = tmp_path / "d.db"
    store = SessionStore(database)
    paused = _boundary(store, staffing)
    store.close()
    request = f"{paused.session_id}-e1"
    child = subprocess.run(
        [sys.executable, "-c", textwrap.dedent(_KILLED), str(database), paused.session_id, request, point],
        env={**os.environ, "PYTHONPATH": SRC + os.pathsep + os.environ.get("PYTHONPATH", "")},
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert child.returncode == 137, child.stdout + child.stderr
    store = SessionStore(database)
    _consistent(store)
    assert (store.decision(request) is not None) == (point == "step:committed")
    if store.decision(request) is None:
        decide(store, paused.session_id, request_id=request, option="B", decided_by="maria")
    _consistent(store)
    assert len(PrincipalMemory(store).entries()) == 1


# -- the command line -----------------------------------------------------------------------------


def _cli(*args: str, input: str | None = None) -> tuple[int, str]:
    from parley.cli.app import app

    result = CliRunner().invoke(app, list(args), input=input)
    return result.exit_code, result.output


def _stored(staffing: DomainConfig, tmp_path: Path) -> Path:
    database = tmp_path / "d.db"
    store = SessionStore(database)
    _decide(store, _boundary(store, staffing), "B", "maria")
    _decide(store, _boundary(store, staffing), "A", "dana")
    store.close()
    return database


def test_memory_show_lists_entries_and_filters(staffing: DomainConfig, tmp_path: Path) -> None:
    db = _stored(staffing, tmp_path)
    code, out = _cli("delegate", "memory", "show", "--db", str(db))
    assert code == 0 and "maria" in out and "dana" in out and "raise_limit" in out
    code, out = _cli("delegate", "memory", "show", "--principal", "dana", "--db", str(db))
    assert code == 0 and "dana" in out and "maria" not in out
    code, out = _cli("delegate", "memory", "show", "--domain", "leasing", "--db", str(db))
    assert code == 0 and "no memory entries" in out


def test_memory_show_json_is_strict_and_weighed(staffing: DomainConfig, tmp_path: Path) -> None:
    db = _stored(staffing, tmp_path)
    code, out = _cli("delegate", "memory", "show", "--json", "--principal", "maria", "--db", str(db))
    assert code == 0, out
    document = json.loads(out, parse_constant=lambda name: pytest.fail(f"non-strict JSON {name}"))
    (entry,) = document["entries"]
    assert entry["principal"] == "maria" and entry["approved"] == {"annual_salary": 105000.0}
    assert entry["stale"] is True  # decided at clock time 0: decades ago by the wall clock
    assert document["settings"]["half_life_days"] == 90.0


def test_memory_forget_needs_yes_without_a_terminal(staffing: DomainConfig, tmp_path: Path) -> None:
    db = _stored(staffing, tmp_path)
    code, out = _cli("delegate", "memory", "forget", "--principal", "maria", "--db", str(db))
    assert code == 2 and "without --yes" in out and len(out.strip().splitlines()) == 1
    assert len(PrincipalMemory(SessionStore(db)).entries()) == 2
    code, out = _cli(
        "delegate", "memory", "forget", "--principal", "maria", "--yes", "--by", "ops", "--db", str(db)
    )
    assert code == 0 and "forgot 1 memory entry" in out
    store = SessionStore(db)
    assert [e.principal for e in PrincipalMemory(store).entries()] == ["dana"]
    assert [e.data["by"] for e in store.load_events(MEMORY_LOG) if e.kind == "memory_forgotten"] == ["ops"]
    code, out = _cli("audit", "verify", MEMORY_LOG, "--db", str(db))
    assert code == 0 and "chain intact" in out


def test_memory_forget_asks_at_a_terminal(
    staffing: DomainConfig, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import parley.cli.delegate as delegate_cli

    db = _stored(staffing, tmp_path)
    monkeypatch.setattr(delegate_cli, "_at_terminal", lambda: True)
    code, out = _cli("delegate", "memory", "forget", "--db", str(db), input="n\n")
    assert code == 2 and "nothing forgotten" in out
    code, out = _cli("delegate", "memory", "forget", "--db", str(db), input="y\n")
    assert code == 0 and "forgot 2 memory entries (every principal, every domain)" in out
    code, out = _cli("delegate", "memory", "forget", "--db", str(db), "--yes")
    assert code == 0 and "nothing to forget" in out


def test_memory_commands_fail_in_one_line(staffing: DomainConfig, tmp_path: Path) -> None:
    code, out = _cli("delegate", "memory", "show", "--db", str(tmp_path / "none.db"))
    assert code == 2 and "no such database" in out and len(out.strip().splitlines()) == 1
    db = _stored(staffing, tmp_path)
    SessionStore(db).execute("UPDATE principal_memory SET entry = replace(entry, 'maria', 'mario')")
    code, out = _cli("delegate", "memory", "show", "--db", str(db))
    assert code == 1 and "differs from its audit entry" in out and len(out.strip().splitlines()) == 1
