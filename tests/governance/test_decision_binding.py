"""A decision answers one request, once; a killed process loses nothing and blocks nothing.

Each test reproduces a defect of issue 13 (§1, §2): decisions applied to whatever was pending,
races between principals, and kills between the writes of one step.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from parley.errors import ScenarioError, StaleDecision
from parley.governance.config import DomainConfig
from parley.governance.counterparties import ScriptedCounterparty
from parley.governance.escalation import StoredPrincipal
from parley.governance.machine import State
from parley.governance.session import SessionOutcome, decide, load_runner, resume_session, run_session
from parley.governance.store import SessionStore
from parley.protocol.clock import FakeClock

from .test_walkthrough import WALKTHROUGH

# The candidate asks $105K (boundary escalation e1); after the principal's answer the candidate
# agrees, so the next escalation (e2) is the final approval whose option A sends the binding close.
SCRIPT = [*WALKTHROUGH[:6], "OK, $100K works for me.", "Thanks, that summary looks right to me."]
SRC = str(Path(__file__).resolve().parents[2] / "src")


def _paused(database: Path) -> SessionOutcome:
    store = SessionStore(database)
    outcome = run_session(
        _staffing(),
        ScriptedCounterparty(SCRIPT),
        StoredPrincipal(),
        store,
        config_source="staffing",
        clock=FakeClock(tick=1.0),
    )
    store.close()
    assert outcome.pending is not None and outcome.pending.request_id.endswith("-e1")
    return outcome


def _staffing() -> DomainConfig:
    from parley.governance.config import load_config
    from parley.governance.strategy import with_strategy

    return with_strategy(load_config("staffing"), "legacy")  # the walkthrough's flow (issue 17)


def _decision_events(store: SessionStore, session_id: str) -> list[dict[str, object]]:
    return [dict(e.data) for e in store.load_events(session_id) if e.kind == "decision"]


def _binding_closes(store: SessionStore, session_id: str) -> int:
    return sum(1 for e in store.load_events(session_id) if e.kind == "agreement")


def test_a_second_decision_for_the_first_request_does_not_land_on_the_next(tmp_path: Path) -> None:
    paused = _paused(tmp_path / "d.db")
    store = SessionStore(tmp_path / "d.db")
    first = f"{paused.session_id}-e1"
    after = decide(store, paused.session_id, request_id=first, option="A", decided_by="maria")
    assert after.pending is not None and after.pending.trigger.value == "final_approval"
    # The same click sent again, but with another option: meant for e1, it must not approve e2.
    with pytest.raises(StaleDecision) as refused:
        decide(store, paused.session_id, request_id=first, option="B", decided_by="maria")
    assert refused.value.pending == after.pending.request_id
    assert f"pending now: {after.pending.request_id}" in str(refused.value)
    assert _binding_closes(store, paused.session_id) == 0
    assert store.open_request(paused.session_id) is not None
    assert len(_decision_events(store, paused.session_id)) == 1


def test_replaying_the_same_decision_is_idempotent(tmp_path: Path) -> None:
    paused = _paused(tmp_path / "d.db")
    store = SessionStore(tmp_path / "d.db")
    first = f"{paused.session_id}-e1"
    applied = decide(store, paused.session_id, request_id=first, option="A", decided_by="maria")
    again = decide(store, paused.session_id, request_id=first, option="a", decided_by="maria")
    assert again.replayed and not applied.replayed
    assert (again.state, again.version, again.pending) == (applied.state, applied.version, applied.pending)
    assert len(_decision_events(store, paused.session_id)) == 1
    assert store.verify(paused.session_id).ok


@pytest.mark.parametrize("request_id", ["nope", "staffing-scripted-s0-1-e9", "other-session-e1"])
def test_an_unknown_request_is_refused_and_nothing_changes(tmp_path: Path, request_id: str) -> None:
    paused = _paused(tmp_path / "d.db")
    store = SessionStore(tmp_path / "d.db")
    before = store.load_version(paused.session_id)
    with pytest.raises(StaleDecision, match=f"pending now: {paused.session_id}-e1"):
        decide(store, paused.session_id, request_id=request_id, option="A")
    assert store.load_version(paused.session_id) == before
    assert _decision_events(store, paused.session_id) == []


def test_a_decision_for_an_older_version_is_refused(tmp_path: Path) -> None:
    paused = _paused(tmp_path / "d.db")
    store = SessionStore(tmp_path / "d.db")
    with pytest.raises(StaleDecision, match="changed since version 1"):
        decide(store, paused.session_id, request_id=f"{paused.session_id}-e1", option="A", expected_version=1)
    outcome = decide(
        store,
        paused.session_id,
        request_id=f"{paused.session_id}-e1",
        option="A",
        expected_version=paused.version,
    )
    assert outcome.version > paused.version


def _child(code: str) -> list[str]:
    return [sys.executable, "-c", textwrap.dedent(code)]


def _env() -> dict[str, str]:
    return {**os.environ, "PYTHONPATH": SRC + os.pathsep + os.environ.get("PYTHONPATH", "")}


_RACER = """
import sys, time
from pathlib import Path
from parley.errors import StaleDecision
from parley.governance.session import decide
from parley.governance.store import SessionStore

db, session, request, who, go = sys.argv[1:6]
store = SessionStore(db)
while not Path(go).exists():
    time.sleep(0.005)
try:
    decide(store, session, request_id=request, option="A", decided_by=who)
except StaleDecision as error:
    print("refused:", error)
    sys.exit(2)
print("applied")
"""


@pytest.mark.slow
def test_eight_processes_deciding_one_request_exactly_one_wins(tmp_path: Path) -> None:
    database = tmp_path / "d.db"
    paused = _paused(database)
    go = tmp_path / "go"
    request = f"{paused.session_id}-e1"
    racers = [
        subprocess.Popen(
            [*_child(_RACER), str(database), paused.session_id, request, f"p{i}", str(go)],
            env=_env(),
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for i in range(8)
    ]
    go.touch()
    results = [(racer.wait(timeout=120), racer.communicate()) for racer in racers]
    codes = sorted(code for code, _ in results)
    assert codes == [0] + [2] * 7, [out for _, out in results]
    store = SessionStore(database)
    decisions = _decision_events(store, paused.session_id)
    assert len(decisions) == 1
    winner = decisions[0]["decided_by"]
    assert [d.decided_by for d in store.decisions(paused.session_id)] == [winner]
    assert store.verify(paused.session_id).ok


_STARTER = """
import sys, time
from pathlib import Path
from parley.governance.config import load_config
from parley.governance.counterparties import DetachedCounterparty
from parley.governance.session import start_session
from parley.governance.store import SessionStore

db, go = sys.argv[1:3]
store = SessionStore(db)
while not Path(go).exists():
    time.sleep(0.005)
runner, _ = start_session(load_config("staffing"), DetachedCounterparty(), store, config_source="staffing")
print(runner.delegate.session_id)
"""


@pytest.mark.slow
def test_concurrent_starts_get_distinct_session_ids(tmp_path: Path) -> None:
    database, go = tmp_path / "d.db", tmp_path / "go"
    SessionStore(database).close()
    starters = [
        subprocess.Popen(
            [*_child(_STARTER), str(database), str(go)],
            env=_env(),
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for _ in range(4)
    ]
    go.touch()
    outputs = [starter.communicate(timeout=120) for starter in starters]
    assert all(starter.returncode == 0 for starter in starters), outputs
    ids = sorted(out.strip() for out, _ in outputs)
    assert ids == [f"staffing-human-s0-{n}" for n in range(1, 5)]
    store = SessionStore(database)
    assert all(store.verify(session).ok for session in ids)


def test_an_existing_session_id_is_not_reused(tmp_path: Path) -> None:
    from parley.governance.counterparties import DetachedCounterparty
    from parley.governance.session import start_session

    store = SessionStore(tmp_path / "d.db")
    runner, _ = start_session(_staffing(), DetachedCounterparty(), store, config_source="staffing")
    with pytest.raises(ScenarioError, match="exists already"):
        start_session(
            _staffing(),
            DetachedCounterparty(),
            store,
            config_source="staffing",
            session_id=runner.delegate.session_id,
        )


# -- fault injection: kill the process at every write point ------------------------------------

_KILLED = """
import os, sys
from parley.governance import store as store_module
from parley.governance.session import decide

db, session, request, point, nth = sys.argv[1:6]
seen = {"n": 0}
original = store_module.SessionStore.__init__

def hooked(self, *args, **kwargs):
    original(self, *args, **kwargs)
    def fault(where):
        if where == point:
            seen["n"] += 1
            if seen["n"] == int(nth):
                os._exit(137)
    self.fault = fault

store_module.SessionStore.__init__ = hooked
decide(store_module.SessionStore(db), session, request_id=request, option="A", decided_by="dana")
print("finished without reaching the kill point")
"""


def _check_consistent(store: SessionStore, session_id: str) -> None:
    """The inbox shows exactly what the stored session waits for, and the audit chain verifies."""
    runner = load_runner(store, session_id)
    pending = runner.delegate.pending if runner.delegate.state == State.ESCALATE else None
    shown = store.open_request(session_id)
    assert (shown.request_id if shown else None) == (pending.request_id if pending else None)
    report = store.verify(session_id)
    assert report.ok, report.problems
    seqs = [e.seq for e in store.load_events(session_id)]
    assert seqs == list(range(len(seqs)))  # nothing lost, nothing duplicated
    decided = {d.request_id for d in store.decisions(session_id)}
    logged = [str(d["request_id"]) for d in _decision_events(store, session_id)]
    assert sorted(logged) == sorted(decided)  # every stored decision reached the audit log, once


@pytest.mark.slow
@pytest.mark.parametrize(
    ("point", "nth"),
    [("step:staged", 1), ("step:committed", 1), ("step:staged", 2), ("step:committed", 2)],
)
def test_a_kill_at_any_write_point_loses_nothing_and_blocks_nothing(
    tmp_path: Path, point: str, nth: int
) -> None:
    template = tmp_path / "template.db"
    paused = _paused(template)
    database = tmp_path / "d.db"
    shutil.copy(template, database)
    request = f"{paused.session_id}-e1"
    child = subprocess.run(
        [*_child(_KILLED), str(database), paused.session_id, request, point, str(nth)],
        env=_env(),
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert child.returncode == 137, child.stdout + child.stderr
    store = SessionStore(database)
    _check_consistent(store, paused.session_id)
    decided = store.decision(request) is not None
    assert decided == (point == "step:committed" or nth > 1)
    if not decided:  # the decision was lost with the process: it can simply be given again
        outcome = decide(store, paused.session_id, request_id=request, option="A", decided_by="dana")
    else:  # the decision is stored: the session goes on from its last stored step
        outcome = resume_session(store, paused.session_id)
    _check_consistent(store, paused.session_id)
    assert outcome.state == State.ESCALATE
    assert outcome.pending is not None and outcome.pending.trigger.value == "final_approval"
    assert store.open_request(paused.session_id) == outcome.pending
