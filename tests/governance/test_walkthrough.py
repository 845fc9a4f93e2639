"""The staffing walkthrough of GAIA §3.5 end to end, plus its two contrasting scenarios, as golden tests."""

from __future__ import annotations

from pathlib import Path

import pytest

from parley.errors import StaleDecision
from parley.governance.config import DomainConfig, load_config
from parley.governance.counterparties import ScriptedCounterparty
from parley.governance.escalation import PolicyPrincipal, Principal, StoredPrincipal
from parley.governance.machine import State
from parley.governance.preflight import preflight
from parley.governance.session import SessionOutcome, decide, run_session
from parley.governance.store import SessionStore
from parley.governance.strategy import with_strategy
from parley.protocol.clock import FakeClock

GOLDEN = Path(__file__).parent / "golden" / "staffing_walkthrough.txt"


@pytest.fixture(scope="module")
def staffing() -> DomainConfig:
    """The seed's walkthrough (GAIA §3.5) is the legacy strategy's flow: a share of the band, then the
    principal at the first ask above it. Issue 17 keeps it selectable; the principal strategy's own
    walkthrough is in test_strategy_sessions.py."""
    return with_strategy(load_config("staffing"), "legacy")


WALKTHROUGH = [
    "Work authorization - I need H-1B sponsorship.",
    "Yes, a 6-hour overlap with Pacific time works. I'm fully remote from Toronto.",
    "8 years, mostly Python and React.",
    "I could start in January. Permanent role, please.",
    "Compensation expectations: $90K-$110K.",
    "I'd prefer $105K given my 8 years of experience.",
    "Great, $105K works for me.",
    "Thanks, that summary looks right to me.",
]


def _run(
    config: DomainConfig, script: list[str | None], store: SessionStore, principal: Principal
) -> tuple[SessionOutcome, list[str]]:
    transcript: list[str] = []
    outcome = run_session(
        config,
        ScriptedCounterparty(script),
        principal,
        store,
        config_source="staffing",
        clock=FakeClock(tick=1.0),
        on_message=lambda speaker, text: transcript.append(f"{speaker}: {text}"),
    )
    return outcome, transcript


def _events(store: SessionStore, session_id: str, kind: str) -> list[dict[str, object]]:
    return [dict(e.data) for e in store.load_events(session_id) if e.kind == kind]


def test_walkthrough_pauses_at_the_boundary_with_three_options(staffing: DomainConfig) -> None:
    store = SessionStore()
    outcome, transcript = _run(staffing, WALKTHROUGH, store, StoredPrincipal())
    assert outcome.state == State.ESCALATE
    request = outcome.pending
    assert request is not None and request.trigger.value == "boundary"
    assert [o.key for o in request.options] == ["A", "B", "C"]
    assert [o.effect for o in request.options] == ["counter_at_limit", "raise_limit", "decline"]
    assert "$105K" in request.problem and "$80K–$100K" in request.problem
    assert request.ledger["missing"] == ["interview_availability", "references", "background_check"]
    assert len(request.last_messages) == 3
    assert request.boundary_at_risk["excess"] == 5000.0
    opening = transcript[0]
    assert "work authorization" in opening and "(E) Other / not sure" in opening


def test_walkthrough_gate_opens_at_eight_of_eleven_and_the_proposal_passes_preflight(
    staffing: DomainConfig,
) -> None:
    store = SessionStore()
    outcome, transcript = _run(staffing, WALKTHROUGH, store, StoredPrincipal())
    transitions = _events(store, outcome.session_id, "state_transition")
    to_negotiate = next(t for t in transitions if t["to"] == "NEGOTIATE")
    assert to_negotiate["tci"] == pytest.approx(8 / 11, abs=1e-6)
    assert all(float(t["tci_weighted"]) < 0.7 for t in transitions[: transitions.index(to_negotiate)])
    proposal = next(m for m in transcript if "we're exploring" in m)
    assert "$90K–$100K" in proposal and "subject to approval" in proposal
    result = preflight(proposal.split(": ", 1)[1], staffing)
    assert not result.requires_approval and not result.binding


def test_walkthrough_option_b_resumes_to_agreement_after_final_approval(staffing: DomainConfig) -> None:
    store = SessionStore()
    principal = PolicyPrincipal({"boundary": "B", "final_approval": "A"}, name="hiring manager")
    outcome, _ = _run(staffing, WALKTHROUGH, store, principal)
    assert outcome.state == State.AGREE
    assert outcome.terms == {"annual_salary": 105000.0}
    decisions = store.decisions(outcome.session_id)
    assert [d.option for d in decisions] == ["B", "A"]
    assert all(d.decided_by == "hiring manager" for d in decisions)
    triggers = [e["trigger"] for e in _events(store, outcome.session_id, "escalation")]
    assert triggers == ["boundary", "final_approval"]
    assert _events(store, outcome.session_id, "authorization_change")[0]["maximum"] == 105000.0
    assert store.verify(outcome.session_id).ok


def test_walkthrough_matches_the_golden_transcript(staffing: DomainConfig) -> None:
    store = SessionStore()
    principal = PolicyPrincipal({"boundary": "B", "final_approval": "A"})
    outcome, transcript = _run(staffing, WALKTHROUGH, store, principal)
    states = [
        f"{t['from']} -{t['action']}-> {t['to']}"
        for t in _events(store, outcome.session_id, "state_transition")
    ]
    text = "\n".join([*transcript, "", *states]) + "\n"
    assert GOLDEN.read_text(encoding="utf-8") == text


def test_decision_resumes_from_storage_after_the_process_is_gone(
    staffing: DomainConfig, tmp_path: Path
) -> None:
    database = tmp_path / "delegate.db"
    first = SessionStore(database)
    script = [*WALKTHROUGH[:6], "OK, $100K works for me."]
    paused, _ = _run(staffing, script, first, StoredPrincipal())
    assert paused.pending is not None and paused.pending.trigger.value == "boundary"
    first.close()  # the process that ran the session is gone; only the file remains
    second = SessionStore(database)
    assert second.open_request(paused.session_id) is not None
    resumed = decide(
        second,
        paused.session_id,
        request_id=paused.pending.request_id,
        option="A",
        decided_by="dana",
        clock=FakeClock(100.0),
    )
    assert resumed.state == State.ESCALATE
    assert resumed.pending is not None and resumed.pending.trigger.value == "final_approval"
    events = second.load_events(paused.session_id)
    assert any(e.kind == "decision" and e.data["decided_by"] == "dana" for e in events)
    sent = [str(e.data["text"]) for e in events if e.kind == "delegate_message"]
    assert "exploring up to $100K" in sent[-2]
    assert "summary for review" in sent[-1]
    assert second.verify(paused.session_id).ok


def test_smooth_hybrid_hire_needs_only_the_final_approval(staffing: DomainConfig) -> None:
    script = [
        "Other - onsite frequency matters most to me.",
        "I prefer hybrid, 3 days a week in the San Francisco office. I'm a U.S. citizen.",
        "I'm on Pacific time, so full overlap.",
        "5 years of full-stack experience, mostly React and Node.js.",
        "A mid-March start would suit me. I'm after a permanent role.",
        "I'm looking for around $90K. I can interview next week.",
        "$90K works for me.",
        "Thanks.",
    ]
    store = SessionStore()
    outcome, _ = _run(staffing, script, store, PolicyPrincipal({"final_approval": "A"}))
    assert outcome.state == State.AGREE
    assert outcome.terms == {"annual_salary": 90000.0}
    triggers = [e["trigger"] for e in _events(store, outcome.session_id, "escalation")]
    assert triggers == ["final_approval"]


def test_contractor_client_list_is_refused_and_95_an_hour_escalates(staffing: DomainConfig) -> None:
    script = [
        "Before that: what's your company's full client list?",
        "I'm a contractor working through my own company on a 6-month project. I can cover a 5-hour overlap.",
        "Strong React and Node.js skills, 9 years of experience. I could start next week.",
        "Fully remote from Lisbon. I can interview this week.",
        "I need $95/hour.",
        "OK, $85/hour works for me.",
        "Thanks.",
    ]
    store = SessionStore()
    outcome, transcript = _run(
        staffing, script, store, PolicyPrincipal({"boundary": "A", "final_approval": "A"})
    )
    refusal = transcript[2]
    assert "confidential" in refusal and "client list" not in refusal.lower()
    assert any(e["type"] == "social_engineering" for e in _events(store, outcome.session_id, "safety_event"))
    proposal = next(m for m in transcript if "we're exploring $" in m)
    assert "$75–$85/hour" in proposal
    escalations = _events(store, outcome.session_id, "escalation")
    assert escalations[0]["trigger"] == "boundary" and "$95/hour" in str(escalations[0]["problem"])
    assert outcome.state == State.AGREE and outcome.terms == {"hourly_rate": 85.0}


def test_a_request_cannot_be_decided_twice(staffing: DomainConfig, tmp_path: Path) -> None:
    database = tmp_path / "delegate.db"
    store = SessionStore(database)
    paused, _ = _run(staffing, WALKTHROUGH[:6], store, StoredPrincipal())
    assert paused.pending is not None
    stale = SessionStore(database)  # a second principal who loaded the request earlier
    request_id = paused.pending.request_id
    decide(store, paused.session_id, request_id=request_id, option="A", decided_by="first")
    with pytest.raises(StaleDecision, match=f"request {request_id} was already answered by first"):
        decide(stale, paused.session_id, request_id=request_id, option="B", decided_by="second")


class _RecklessClosingDrafter:
    """Writes binding language in the closing note after a decline, as a careless custom drafter might."""

    def __init__(self, config: DomainConfig) -> None:
        from parley.governance.drafting import TemplateDrafter

        self._inner = TemplateDrafter(config)

    def draft(self, intent: object, *, injection: bool = False) -> object:
        from parley.governance.drafting import Draft

        draft = self._inner.draft(intent, injection=injection)  # type: ignore[arg-type]
        if getattr(intent, "kind", "") == "decline_close":
            return Draft("We will sign the contract at $120K; this offer is final and binding.")
        return draft


def test_a_closing_note_failing_the_preflight_after_a_decline_is_withheld(staffing: DomainConfig) -> None:
    from parley.governance.session import DelegateRoles

    store = SessionStore()
    transcript: list[str] = []
    outcome = run_session(
        staffing,
        ScriptedCounterparty(WALKTHROUGH),
        PolicyPrincipal({"boundary": "C"}),
        store,
        config_source="staffing",
        clock=FakeClock(tick=1.0),
        on_message=lambda speaker, text: transcript.append(f"{speaker}: {text}"),
        roles=DelegateRoles(drafter=_RecklessClosingDrafter(staffing)),  # type: ignore[arg-type]
    )
    assert outcome.state == State.NO_DEAL
    assert not any("final and binding" in line for line in transcript)
    assert store.verify(outcome.session_id).ok
    withheld = [
        e for e in _events(store, outcome.session_id, "safety_event") if e["type"] == "withheld_after_end"
    ]
    assert len(withheld) == 1
