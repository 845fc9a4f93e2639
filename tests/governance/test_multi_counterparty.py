"""Several counterparties for one principal (`parley.governance.portfolio`, issue 17, GAIA §3.3.6):
deterministic interleaving, sessions that share nothing (transcripts, figures, prompts, event logs,
audit chains), one recommendation that waits for the principal, and a killed or failing session that
resumes without touching the others."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

from parley.cli.app import app
from parley.errors import LLMError, ScenarioError, StaleDecision
from parley.governance import PolicyPrincipal, ScriptedCounterparty, SessionStore, StoredPrincipal
from parley.governance.config import DomainConfig, load_config
from parley.governance.counterparties import PERSONAS as PERSONA_NAMES
from parley.governance.counterparties import Counterparty, SimulatedCounterparty
from parley.governance.escalation import Principal
from parley.governance.machine import State
from parley.governance.portfolio import (
    MAX_COUNTERPARTIES,
    OfferHold,
    PortfolioOutcome,
    inbox_entries,
    member_seed,
    offer_utility,
    parse_counterparties,
    resume_portfolio,
    run_portfolio,
)
from parley.governance.session import decide, load_runner, reply, resume_session, run_session
from parley.governance.values import find_money
from parley.protocol.clock import FakeClock
from parley.protocol.events import Event
from parley.testing import FakeLLM, check_delegate_invariants

PERSONAS = ("cooperative", "adversarial", "slow")
POLICY = {"boundary": "A", "final_approval": "A"}


def _personas(config: DomainConfig, seed: int, names: Sequence[str] = PERSONAS) -> list[Counterparty]:
    return [SimulatedCounterparty(config, name, member_seed(seed, i)) for i, name in enumerate(names)]


def _run(
    config: DomainConfig,
    store: SessionStore,
    seed: int,
    *,
    parallel: bool = True,
    principal: Principal | None = None,
    parties: Sequence[Counterparty] | None = None,
) -> PortfolioOutcome:
    return run_portfolio(
        config,
        parties if parties is not None else _personas(config, seed),
        principal if principal is not None else PolicyPrincipal(POLICY),
        store,
        config_source=config.name,
        seed=seed,
        parallel=parallel,
        clock=FakeClock(),
    )


def _messages(events: Sequence[Event]) -> list[tuple[str, str]]:
    return [(e.kind, str(e.data["text"])) for e in events if e.kind.endswith("_message")]


def _transcripts(store: SessionStore, outcome: PortfolioOutcome) -> dict[str, list[tuple[str, str]]]:
    return {
        c.member.session_id: _messages(store.load_events(c.member.session_id)) for c in outcome.candidates
    }


def _candidate(name: str, ask: str) -> ScriptedCounterparty:
    """A staffing candidate who passes the screening and holds out for one distinctive salary."""
    return ScriptedCounterparty(
        [
            "I'm a U.S. citizen.",
            "I can do a 6-hour overlap with Pacific time. Mostly Python and React.",
            "I have 8 years of professional experience. I could start in January.",
            f"I'm after a permanent role. My salary expectation is {ask}.",
            "Hybrid suits me, 3 days a week in the office.",
            "I can provide references. A background check is fine.",
            f"I'd need {ask}.",
            f"{ask} works for me.",
            "Thanks, that summary looks right to me.",
        ],
        name=name,
    )


ASKS = {"ada": "$93,700", "grace": "$96,300", "linus": "$87,900"}
"""Figures no delegate would offer on its own (its offers move in $1K steps)."""


# -- the comma list ------------------------------------------------------------------------------------------


def test_a_comma_list_names_personas_that_may_repeat() -> None:
    assert parse_counterparties(" cooperative, adversarial ,slow") == PERSONAS
    assert parse_counterparties("cooperative,cooperative") == ("cooperative", "cooperative")
    with pytest.raises(ScenarioError, match="unknown persona 'nobody'; expected names from cooperative"):
        parse_counterparties("cooperative,nobody")
    with pytest.raises(ScenarioError, match="name 2 of 'cooperative,,slow' is empty"):
        parse_counterparties("cooperative,,slow")
    with pytest.raises(ScenarioError, match=f"at most {MAX_COUNTERPARTIES}"):
        parse_counterparties(",".join(["slow"] * (MAX_COUNTERPARTIES + 1)))


def test_repeated_personas_are_different_counterparties(staffing: DomainConfig) -> None:
    store = SessionStore()
    outcome = _run(staffing, store, 4, parties=_personas(staffing, 4, ("cooperative", "cooperative")))
    first, second = (c.member for c in outcome.candidates)
    assert (first.counterparty, second.counterparty) == ("cooperative", "cooperative")
    assert first.seed != second.seed and first.session_id != second.session_id
    assert _transcripts(store, outcome)[first.session_id] != _transcripts(store, outcome)[second.session_id]


# -- determinism and independence ----------------------------------------------------------------------------


@pytest.mark.parametrize("domain", ["staffing", "procurement", "leasing"])
def test_the_same_seed_gives_the_same_record(domain: str, request: pytest.FixtureRequest) -> None:
    config: DomainConfig = request.getfixturevalue(domain)
    records = []
    for _ in range(2):
        store = SessionStore()
        outcome = _run(config, store, 3)
        ids = [outcome.portfolio_id, *(c.member.session_id for c in outcome.candidates)]
        records.append({i: [e.to_json() for e in store.load_events(i)] for i in ids})
        assert outcome.to_json() == _run(config, SessionStore(), 3).to_json()
    assert records[0] == records[1]


@pytest.mark.parametrize(("domain", "seed"), [("staffing", 0), ("procurement", 2), ("leasing", 1)])
def test_each_counterparty_hears_what_a_lone_session_would_say(
    domain: str, seed: int, request: pytest.FixtureRequest
) -> None:
    """Interleaved, one after another, or alone: each counterparty gets the very same messages, so
    nothing from another session can have shaped them."""
    config: DomainConfig = request.getfixturevalue(domain)
    store, sequential = SessionStore(), SessionStore()
    interleaved = _transcripts(store, _run(config, store, seed, parallel=True))
    one_by_one = _transcripts(sequential, _run(config, sequential, seed, parallel=False))
    assert interleaved == one_by_one
    for index, (session_id, transcript) in enumerate(interleaved.items()):
        alone_store = SessionStore()
        party = SimulatedCounterparty(config, PERSONAS[index], member_seed(seed, index))
        alone = run_session(
            config, party, OfferHold(PolicyPrincipal(POLICY)), alone_store, config_source=domain,
            seed=member_seed(seed, index), clock=FakeClock(),
        )  # fmt: skip
        lone = _messages(alone_store.load_events(alone.session_id))
        assert transcript[: len(lone)] == lone, session_id  # then only the principal's closing word:
        assert [kind for kind, _ in transcript[len(lone) :]] in ([], ["delegate_message"]), session_id
        check_delegate_invariants(config, store.load_events(session_id))


@pytest.mark.slow
@settings(max_examples=8, deadline=None)
@given(
    domain=st.sampled_from(["staffing", "procurement", "leasing"]),
    seed=st.integers(0, 10_000),
    names=st.lists(st.sampled_from(PERSONA_NAMES), min_size=2, max_size=4),
    parallel=st.booleans(),
)
def test_information_hiding_holds_for_any_seed_and_mix(
    domain: str, seed: int, names: list[str], parallel: bool
) -> None:
    config = load_config(domain)
    store = SessionStore()
    parties = _personas(config, seed, names)
    outcome = _run(config, store, seed, parallel=parallel, parties=parties)
    for index, candidate in enumerate(outcome.candidates):
        alone_store = SessionStore()
        party = SimulatedCounterparty(config, names[index], member_seed(seed, index))
        alone = run_session(
            config, party, OfferHold(PolicyPrincipal(POLICY)), alone_store, config_source=domain,
            seed=member_seed(seed, index), clock=FakeClock(),
        )  # fmt: skip
        lone = _messages(alone_store.load_events(alone.session_id))
        assert _messages(store.load_events(candidate.member.session_id))[: len(lone)] == lone


def _figures(texts: Sequence[str]) -> set[float]:
    return {value for text in texts for m in find_money(text) for value in (m.low, m.high)}


def test_no_figure_of_one_session_reaches_another_counterparty(staffing: DomainConfig) -> None:
    store = SessionStore()
    parties = [_candidate(name, ask) for name, ask in ASKS.items()]
    outcome = _run(staffing, store, 0, parties=parties, principal=PolicyPrincipal({"boundary": "A"}))
    events = {c.member.session_id: store.load_events(c.member.session_id) for c in outcome.candidates}
    said = {
        sid: [t for kind, t in _messages(log) if kind == "counterparty_message"]
        for sid, log in events.items()
    }
    sent = {
        sid: [t for kind, t in _messages(log) if kind == "delegate_message"] for sid, log in events.items()
    }
    terms = {c.member.session_id: set(map(float, c.terms.values())) for c in outcome.candidates}
    assert all(terms.values())  # every session reached terms of its own
    for session_id in events:
        others = [other for other in events if other != session_id]
        foreign = set().union(*(_figures(said[o]) | terms[o] for o in others)) - _figures(said[session_id])
        assert foreign, "the test needs figures that differ between sessions"
        leaked = _figures(sent[session_id]) & foreign
        assert not leaked, f"{session_id} was told {leaked} from another session"
        assert _figures(sent[session_id]) & terms[session_id]  # it did hear its own figure back


def test_the_sessions_event_logs_and_audit_chains_are_disjoint(staffing: DomainConfig) -> None:
    store = SessionStore()
    parties = [_candidate(name, ask) for name, ask in ASKS.items()]
    outcome = _run(staffing, store, 0, parties=parties)
    members = [c.member.session_id for c in outcome.candidates]
    texts = {
        sid: {json.dumps(e.to_json(), sort_keys=True) for e in store.load_events(sid)} for sid in members
    }
    for session_id in members:
        assert store.verify(session_id).ok
        own = "\n".join(texts[session_id])
        for other in members:
            if other == session_id:
                continue
            assert other not in own  # no event of a session names another one
            assert ASKS[other.split("-")[1]] not in own  # nor carries another counterparty's words
    rows = store.execute("SELECT session_id, seq, digest FROM audit")
    assert len({r[2] for r in rows}) == len(rows)  # one chain per session: no entry is shared
    chains = [str(r[0]) for r in store.execute("SELECT session_id FROM audit_chains")]
    assert {*members, outcome.portfolio_id} <= set(chains) and len(chains) == len(set(chains))
    for row in store.execute("SELECT session_id, entry FROM audit"):  # each entry in its own chain only
        assert row[0] in chains


@pytest.fixture(scope="module")
def bridge() -> Iterator[Any]:
    from parley.llm import EventLoopThread

    thread = EventLoopThread("parley-portfolio-test")
    yield thread
    thread.close()


def test_each_drafter_prompt_holds_only_its_own_session(staffing: DomainConfig, bridge: Any) -> None:
    """With a model drafter per session, no prompt for one counterparty carries another's figures."""
    from parley.llm import LLMSession
    from parley.llm.gaia import llm_delegate_roles
    from parley.llm.types import LLMRequest

    def echo(request: LLMRequest) -> str:
        if request.schema_name != "DraftReply":
            return "no"
        user = request.messages[1].content
        return json.dumps(
            {"text": user.split("Content to convey:\n", 1)[1].rsplit("\n\nMessage (JSON", 1)[0]}
        )

    fakes = [FakeLLM(echo) for _ in ASKS]
    outcome = run_portfolio(
        staffing,
        [_candidate(name, ask) for name, ask in ASKS.items()],
        PolicyPrincipal({"boundary": "A"}),
        SessionStore(),
        config_source="staffing",
        clock=FakeClock(),
        roles=lambda i: llm_delegate_roles(staffing, LLMSession(fakes[i], bridge=bridge), "drafter"),
    )
    assert outcome.state == State.AGREE
    for index, ask in enumerate(ASKS.values()):
        prompts = "\n".join(m.content for request in fakes[index].requests for m in request.messages)
        assert fakes[index].requests and ask.replace("$", "") in prompts.replace("$", "")
        for other in (a for a in ASKS.values() if a != ask):
            for form in (other, other.replace(",", "")[:-2] + "K", f"{other[:-4]}.{other[-3]}K"):
                assert form not in prompts, f"drafter {index} saw {form}"


# -- the comparison and the recommendation -------------------------------------------------------------------


def test_the_principal_prefers_lower_pay_and_ranks_by_it(
    staffing: DomainConfig, procurement: DomainConfig
) -> None:
    salaries = [offer_utility(staffing, {"annual_salary": v}) or 0.0 for v in (80_000.0, 90_000.0, 100_000.0)]
    assert salaries == [1.0, 0.5, 0.0]  # the principal pays: the lower the salary, the better
    assert offer_utility(procurement, {"unit_price": 9.5, "payment_terms": "net90"}) is not None
    assert offer_utility(staffing, {"remote_days": 2.0}) is None  # no negotiated term: not comparable


def test_the_recommendation_waits_for_the_principal(staffing: DomainConfig) -> None:
    store = SessionStore()
    parties = [_candidate(name, ask) for name, ask in ASKS.items()]
    outcome = _run(staffing, store, 0, parties=parties, principal=StoredPrincipal())
    assert outcome.state == State.ESCALATE and outcome.pending is not None
    assert outcome.pending.trigger.value == "final_approval"
    by_score = sorted(outcome.candidates, key=lambda c: -(c.score or 0.0))
    assert list(outcome.ranking) == [c.member.session_id for c in by_score]
    assert outcome.ranking[0] == "staffing-linus-s2-1"  # $87,900: the lowest salary asked
    assert [o.key for o in outcome.pending.options] == ["A", "B", "C", "D", "E"]
    assert outcome.pending.options[0].parameters["session_id"] == outcome.ranking[0]
    for candidate in outcome.candidates:  # nothing applied: every offer still waits in its session
        assert candidate.state == "ESCALATE" and candidate.waiting_on == "final_approval"
    entries = inbox_entries(store)
    assert [e.session_id for e in entries] == [
        outcome.portfolio_id,
        *(c.member.session_id for c in outcome.candidates),
    ]
    assert {e.group for e in entries} == {outcome.portfolio_id}
    assert [e.counterparty for e in entries] == ["portfolio of 3", *ASKS]


def test_approving_one_offer_declines_the_others_and_is_audited(staffing: DomainConfig) -> None:
    store = SessionStore()
    parties = [_candidate(name, ask) for name, ask in ASKS.items()]
    outcome = _run(staffing, store, 0, parties=parties, principal=StoredPrincipal())
    assert outcome.pending is not None
    request, second = outcome.pending.request_id, outcome.ranking[1]
    done = decide(store, outcome.portfolio_id, request_id=request, option="D", decided_by="dana")
    assert done.state == State.AGREE and done.terms == {"annual_salary": 93_700.0}
    states = {sid: str(store.load_session(sid)["state"]) for sid in outcome.ranking}
    assert states == {sid: "AGREE" if sid == second else "NO_DEAL" for sid in outcome.ranking}
    for sid in (outcome.portfolio_id, *outcome.ranking):
        assert store.verify(sid).ok, sid
    log = store.load_events(outcome.portfolio_id)
    linked = [e.data for e in log if e.kind == "member_decision"]
    assert {d["session_id"] for d in linked} == set(outcome.ranking)
    assert all(d.decided_by == "dana" for sid in outcome.ranking for d in store.decisions(sid))
    assert {d["request_id"] for d in linked} == {c.request_id for c in outcome.candidates if c.held}
    assert [e.kind for e in log][-2:] == ["state_transition", "session_ended"]
    again = decide(store, outcome.portfolio_id, request_id=request, option="D", decided_by="dana")
    assert again.replayed and again.state == State.AGREE
    with pytest.raises(StaleDecision, match="already answered by dana"):
        decide(store, outcome.portfolio_id, request_id=request, option="A", decided_by="dana")


def test_a_policy_principal_decides_the_recommendation(staffing: DomainConfig) -> None:
    store = SessionStore()
    parties = [_candidate(name, ask) for name, ask in ASKS.items()]
    outcome = _run(staffing, store, 0, parties=parties)
    assert outcome.state == State.AGREE and outcome.chosen == "staffing-linus-s2-1"
    assert outcome.decision is not None and outcome.decision.option == "A"
    assert outcome.terms == {"annual_salary": 87_900.0}


def test_keeping_the_offers_open_and_resuming_compares_again(staffing: DomainConfig) -> None:
    store = SessionStore()
    parties = [_candidate(name, ask) for name, ask in ASKS.items()]
    outcome = _run(staffing, store, 0, parties=parties, principal=StoredPrincipal())
    assert outcome.pending is not None
    kept = decide(store, outcome.portfolio_id, request_id=outcome.pending.request_id, option="B")
    assert kept.state == State.NEGOTIATE and kept.pending is None
    assert all(str(store.load_session(s)["state"]) == "ESCALATE" for s in outcome.ranking)
    again = resume_session(store, outcome.portfolio_id)
    assert again.pending is not None and again.pending.request_id.endswith("-e2")
    assert again.pending.options[0].parameters["session_id"] == outcome.ranking[0]


def test_an_offer_answered_in_its_session_makes_the_recommendation_stale(staffing: DomainConfig) -> None:
    store = SessionStore()
    parties = [_candidate(name, ask) for name, ask in ASKS.items()]
    outcome = _run(staffing, store, 0, parties=parties, principal=StoredPrincipal())
    assert outcome.pending is not None
    best = outcome.pending.options[0].parameters
    with pytest.raises(ScenarioError, match="held by portfolio"):  # (decided through the portfolio only)
        decide(store, best["session_id"], request_id=best["request_id"], option="C", decided_by="dana")
    decide(  # (as a store written before that refusal could hold it: answered in its session)
        store, best["session_id"], request_id=best["request_id"], option="C", decided_by="dana",
        through="an older parley",
    )  # fmt: skip
    with pytest.raises(StaleDecision, match="no longer waits for approval"):
        decide(store, outcome.portfolio_id, request_id=outcome.pending.request_id, option="A")
    assert store.open_request(outcome.portfolio_id) == outcome.pending  # nothing was applied


def test_a_portfolio_is_refused_where_one_session_is_expected(staffing: DomainConfig) -> None:
    store = SessionStore()
    outcome = _run(staffing, store, 1, principal=StoredPrincipal())
    with pytest.raises(ScenarioError, match="is a portfolio of sessions"):
        load_runner(store, outcome.portfolio_id)
    with pytest.raises(ScenarioError, match="is a portfolio of sessions"):
        reply(store, outcome.portfolio_id, "Hello")
    with pytest.raises(ScenarioError, match="option letter"):
        decide(
            store, outcome.portfolio_id, request_id=f"{outcome.portfolio_id}-e1", option=None, guidance="hi"
        )


# -- failures, kills and resumes -----------------------------------------------------------------------------


class _Broken(SimulatedCounterparty):
    """A simulated counterparty whose channel fails once, at one turn (stored as a plain one)."""

    def __init__(self, config: DomainConfig, persona: str, seed: int, at: int) -> None:
        super().__init__(config, persona, seed)
        self.at = at

    def respond(self, message: str | None) -> str | None:
        if self.turn + 1 == self.at:
            raise LLMError("the channel to this counterparty is down")
        return super().respond(message)


def test_a_failing_session_stops_alone_and_resumes(staffing: DomainConfig) -> None:
    clean_store, store = SessionStore(), SessionStore()
    clean_outcome = _run(staffing, clean_store, 0, principal=StoredPrincipal())
    clean = _transcripts(clean_store, clean_outcome)
    parties = _personas(staffing, 0)
    parties[1] = _Broken(staffing, "adversarial", member_seed(0, 1), at=3)
    outcome = _run(staffing, store, 0, parties=parties, principal=StoredPrincipal())
    broken = outcome.candidates[1].member.session_id
    assert outcome.candidates[1].note == "stopped: the channel to this counterparty is down"
    assert outcome.pending is not None and f"Not finished yet: {broken}" in outcome.pending.problem
    stopped = [e.data for e in store.load_events(outcome.portfolio_id) if e.kind == "session_stopped"]
    assert [d["session_id"] for d in stopped] == [broken]
    after = _transcripts(store, outcome)
    for candidate in (outcome.candidates[0], outcome.candidates[2]):  # the others played on, unchanged
        assert after[candidate.member.session_id] == clean[candidate.member.session_id]
    resumed = resume_portfolio(store, outcome.portfolio_id, clock=FakeClock())
    assert _transcripts(store, resumed) == clean  # the stopped one finished as it would have
    assert resumed.pending == outcome.pending  # the open recommendation stays as the principal saw it
    assert (
        resumed.candidates[1].note == "" and resumed.candidates[1].state == clean_outcome.candidates[1].state
    )
    assert all(store.verify(c.member.session_id).ok for c in resumed.candidates)
    assert store.verify(outcome.portfolio_id).ok


class _Killed(BaseException):
    """The process dies (not an error anything should catch)."""


def _kill_at(store: SessionStore, nth: int) -> None:
    calls = iter(range(1, 10_000))

    def hook(point: str) -> None:
        if point == "step:staged" and next(calls) == nth:
            raise _Killed

    store.fault = hook


def _staged_writes(config: DomainConfig, db: Path) -> int:
    store = SessionStore(db)
    count = [0]
    store.fault = lambda point: count.__setitem__(0, count[0] + (point == "step:staged"))
    _run(config, store, 2)
    store.close()
    return count[0]


@pytest.mark.parametrize("back", [30, 15, 3, 2, 1, 0])
def test_a_killed_run_resumes_to_the_same_outcome(staffing: DomainConfig, tmp_path: Path, back: int) -> None:
    """Killed at a write point `back` writes before the end of the run: mid-play, after the
    recommendation, after the decision, or between the sessions' decisions."""
    clean_db = tmp_path / "clean.db"
    writes = _staged_writes(staffing, clean_db)
    clean_store = SessionStore(clean_db)
    portfolio = "staffing-portfolio-s2-1"
    members = [m["session_id"] for m in clean_store.load_session(portfolio)["snapshot"]["members"]]
    db = tmp_path / "killed.db"
    store = SessionStore(db)
    _kill_at(store, max(5, writes - back))  # (the first four writes start the sessions and the portfolio)
    with pytest.raises(_Killed):
        _run(staffing, store, 2)
    store.close()
    store = SessionStore(db)  # a new process
    outcome = resume_portfolio(store, portfolio, principal=PolicyPrincipal(POLICY), clock=FakeClock())
    for session_id in members:
        assert _messages(store.load_events(session_id)) == _messages(clean_store.load_events(session_id))
        assert store.verify(session_id).ok
    assert outcome.state.value == clean_store.load_session(portfolio)["state"] == "AGREE"
    assert store.verify(portfolio).ok
    notes = [e.data["note"] for e in store.load_events(portfolio) if e.kind == "member_decision"]
    assert len(notes) == 2 and (("answered before" in notes) == (back <= 1))


# -- the command line ----------------------------------------------------------------------------------------

runner = CliRunner()


def _invoke(*args: str) -> tuple[int, str]:
    result = runner.invoke(app, list(args))
    return result.exit_code, result.output


def _strict(text: str) -> Any:
    def refuse(constant: str) -> Any:
        raise AssertionError(f"not strict JSON: {constant}")

    return json.loads(text, parse_constant=refuse)


@pytest.mark.e2e
def test_cli_runs_several_counterparties_and_prints_the_comparison(tmp_path: Path) -> None:
    policy = tmp_path / "policy.yaml"
    policy.write_text("name: hiring-manager\ndefault: A\n", encoding="utf-8")
    db = str(tmp_path / "d.db")
    args = ("delegate", "run", "staffing", "--counterparty", "cooperative,adversarial,slow", "--seed", "5")
    code, out = _invoke(*args, "--parallel", "--principal", str(policy), "--db", db)
    assert code == 0, out
    assert "portfolio staffing-portfolio-s5-1: 3 sessions, interleaved turn by turn" in out
    assert re.search(r"staffing-adversarial-s6-1\s+delegate:", out)  # every message names its session
    assert "TCI" in out and "flags" in out and "score" in out
    assert "recommendation staffing-portfolio-s5-1-e1: hiring-manager chose option A" in out
    code, out = _invoke("audit", "verify", "staffing-portfolio-s5-1", "--db", db)
    assert code == 0 and "chain intact" in out


@pytest.mark.e2e
def test_cli_json_is_strict_and_the_recommendation_is_decided_later(tmp_path: Path) -> None:
    db = str(tmp_path / "d.db")
    args = ("delegate", "run", "staffing", "--counterparty", "cooperative,adversarial,slow", "--seed", "2")
    code, out = _invoke(*args, "--json", "--db", db)
    assert code == 0, out
    data = _strict(out)
    assert data["portfolio"] == "staffing-portfolio-s2-1" and data["parallel"] is False
    assert data["state"] == "ESCALATE" and data["recommended"] == data["ranking"][0]
    assert [c["counterparty"] for c in data["candidates"]] == list(PERSONAS)
    assert {"tci", "terms", "state", "turns", "flags", "score"} <= set(data["candidates"][0])
    code, out = _invoke("delegate", "inbox", "--db", db)
    assert code == 0 and out.index("staffing-portfolio-s2-1") < out.index("staffing-cooperative-s2-1")
    request = data["pending"]["request_id"]
    code, out = _invoke(
        "delegate", "decide", data["portfolio"], "--request", request, "--option", "A", "--db", db
    )
    assert code == 0, out
    assert f"session {data['portfolio']}: AGREE" in out


@pytest.mark.e2e
def test_cli_keeps_the_offers_open_and_resume_compares_again(tmp_path: Path) -> None:
    db = str(tmp_path / "d.db")
    args = ("delegate", "run", "staffing", "--counterparty", "cooperative,adversarial,slow", "--seed", "2")
    code, out = _invoke(*args, "--db", db)
    assert code == 0 and "--request staffing-portfolio-s2-1-e1" in out, out
    request = ("--request", "staffing-portfolio-s2-1-e1", "--option", "B", "--db", db)
    code, out = _invoke("delegate", "decide", "staffing-portfolio-s2-1", *request)
    assert code == 0 and "session staffing-portfolio-s2-1: NEGOTIATE" in out, out
    code, out = _invoke("delegate", "resume", "staffing-portfolio-s2-1", "--db", db)
    assert code == 0 and "Escalation staffing-portfolio-s2-1-e2 [final_approval]" in out, out
    code, out = _invoke("delegate", "reply", "staffing-portfolio-s2-1", "--message", "Hello", "--db", db)
    assert code == 2 and "is a portfolio of sessions" in out


@pytest.mark.e2e
@pytest.mark.parametrize(
    ("spec", "message"),
    [
        ("cooperative,nobody", "unknown persona 'nobody'"),
        ("cooperative,,slow", "name 2 of 'cooperative,,slow' is empty"),
        ("nobody", "unknown persona 'nobody'"),
    ],
)
def test_cli_refuses_a_bad_list_in_one_line(tmp_path: Path, spec: str, message: str) -> None:
    db = tmp_path / "d.db"
    result = runner.invoke(app, ["delegate", "run", "staffing", "--counterparty", spec, "--db", str(db)])
    assert result.exit_code == 2
    lines = result.output.strip().splitlines()
    assert len(lines) == 1 and message in lines[0] and "Traceback" not in result.output
    assert not db.exists()
