"""The delegate reads the counterparty through the term reader (issue 17): known facts follow what the
counterparty last stated, an answered question is not asked again, and every condition reaches the
principal's escalation."""

from __future__ import annotations

from parley.governance.config import DomainConfig
from parley.governance.delegate import Delegate, Step
from parley.governance.escalation import EscalationRequest
from parley.governance.term_guard import UNEXPLAINED

HOSTILE = "This is ridiculous and a waste of my time."
"""Escalates in any phase (negative sentiment), so a test can look at what the principal is shown."""


def _started(config: DomainConfig) -> Delegate:
    delegate = Delegate(config, "s")
    delegate.open()
    return delegate


def _escalation(delegate: Delegate) -> EscalationRequest:
    request = delegate.receive(HOSTILE).request
    assert request is not None
    return request


def _events(delegate: Delegate, kind: str) -> list[dict[str, object]]:
    return [dict(e.data) for e in delegate.trajectory if e.kind == kind]


def _asked(delegate: Delegate, question: str) -> int:
    return sum(question in text for speaker, text in delegate.transcript if speaker == "delegate")


def test_a_new_amount_replaces_the_known_one(staffing: DomainConfig) -> None:
    delegate = _started(staffing)
    delegate.receive("My salary expectation is $130K.")
    delegate.receive("Thinking it over, I'd take 120k.")
    assert delegate.tci.confirmed["compensation"] == "120000"
    (update,) = _events(delegate, "fact_updated")
    assert (update["old"], update["new"], update["reason"]) == ("130000", "120000", "new value")
    assert _escalation(delegate).ledger["revealed"]["compensation"] == "120000"


def test_a_corrected_fact_is_replaced_without_a_re_confirmation(staffing: DomainConfig) -> None:
    delegate = _started(staffing)
    delegate.receive("I could start in January.")
    step = delegate.receive("Sorry, I meant March, not January.")
    assert delegate.tci.confirmed["start_date"] == "march" and not delegate.tci.disputed
    assert step.outgoing is not None and "Earlier I noted" not in step.outgoing
    assert _events(delegate, "fact_updated")[0]["reason"] == "correction"


def test_a_contradiction_is_asked_about_once(staffing: DomainConfig) -> None:
    delegate = _started(staffing)
    delegate.receive("Hybrid suits me, 3 days a week in the office.")
    step = delegate.receive("Actually, I'd like to work remotely, fully remote ideally.")
    assert step.outgoing is not None and step.outgoing.startswith("Earlier I noted hybrid")
    step = delegate.receive("Mostly Python and React.")
    assert step.outgoing is not None and "Earlier I noted" not in step.outgoing
    assert delegate.tci.confirmed["location"] == "remote" and not delegate.tci.disputed
    assert _events(delegate, "fact_updated")[-1]["reason"] == "re-confirmation unanswered"


def test_a_competing_offer_is_not_a_known_fact(staffing: DomainConfig) -> None:
    delegate = _started(staffing)
    delegate.receive("A bank has offered me 140k base.")
    assert "compensation" not in delegate.tci.confirmed and "compensation" not in delegate.tci.soft
    (reading,) = _events(delegate, "terms_read")
    assert reading["competing"] and not reading["terms"]


def test_an_answer_the_reader_cannot_parse_is_not_asked_for_again(staffing: DomainConfig) -> None:
    delegate = _started(staffing)
    question = staffing.field("interview_availability").question
    for answer in [
        "I'm a U.S. citizen.",
        "6 hours of overlap with Pacific time. Mostly Python and React.",
        "8 years of experience; I can start next month.",
    ]:
        delegate.receive(answer)
    assert _asked(delegate, question) == 1
    step = delegate.receive("Interviews: Tuesdays and Thursdays after 3 pm suit me.")
    assert step.outgoing is not None and question not in step.outgoing and delegate.state.value == "SCREEN"
    (said,) = delegate.tci.soft["interview_availability"]
    assert str(said).startswith("said: Interviews: Tuesdays and Thursdays")


def test_a_question_is_not_asked_a_third_time(staffing: DomainConfig) -> None:
    delegate = _started(staffing)
    overlap = staffing.field("timezone_overlap").question
    steps: list[Step] = []
    for answer in [
        "I'm a U.S. citizen.",
        "Mostly Python and React.",
        "8 years of experience.",
        "I can start next month.",
        "Permanent role, please.",
    ]:
        steps.append(delegate.receive(answer))
    assert _asked(delegate, overlap) == 2
    assert all(step.request is None for step in steps)


def test_every_condition_reaches_the_principal(staffing: DomainConfig) -> None:
    delegate = _started(staffing)
    delegate.receive("100 is fine provided the relocation package of 20k is included.")
    delegate.receive("I'm a U.S. citizen, assuming the background check clears.")
    delegate.receive("I'd also want a $10,000 signing bonus.")
    request = _escalation(delegate)
    assert 'relocation package $20K ("provided the relocation package of 20k is included")' in request.problem
    assert '"the background check clears"' in request.problem
    assert "Other terms the candidate named: signing bonus $10K." in request.problem
    read = [c["term"] for c in request.ledger["conditions"] if c.get("source") != UNEXPLAINED]
    assert read == ["relocation", "other"]  # what the reader read; sentences it could not explain apart
    assert request.ledger["stated"]["annual_salary"] == 100000.0


def test_a_sentence_not_fully_read_reaches_the_principal_under_its_own_label(staffing: DomainConfig) -> None:
    delegate = _started(staffing)
    delegate.receive("100 is fine provided the relocation package of 20k is included.")
    delegate.receive("Our CFO insists the relocation gets repaid pro rata within 18 months.")
    request = _escalation(delegate)
    label = "Not fully read by the delegate, as written (check them yourself): "
    assert label + '"Our CFO insists the relocation gets repaid pro rata within 18 months"' in request.problem
    conditions, _, _ = request.problem.partition(label)
    assert "repaid pro rata" not in conditions and 'relocation package $20K ("provided' in conditions
    sources = {c["text"]: c.get("source") for c in request.ledger["conditions"]}
    assert sources["Our CFO insists the relocation gets repaid pro rata within 18 months"] == UNEXPLAINED


def test_conditions_survive_a_restart(staffing: DomainConfig) -> None:
    delegate = _started(staffing)
    delegate.receive("100 is fine provided the relocation package of 20k is included.")
    restored = Delegate.from_json(staffing, delegate.to_json(), list(delegate.trajectory))
    assert "relocation package $20K" in _escalation(restored).problem


WALKTHROUGH = [
    "Work authorization - I need H-1B sponsorship.",
    "Yes, a 6-hour overlap with Pacific time works. I'm fully remote from Toronto.",
    "8 years, mostly Python and React.",
    "I could start in January. Permanent role, please.",
    "Compensation expectations: $90K-$110K.",
]


def test_a_conditional_acceptance_in_negotiation_reaches_the_principal(staffing: DomainConfig) -> None:
    delegate = _started(staffing)
    for message in WALKTHROUGH:
        delegate.receive(message)
    assert delegate.state.value == "NEGOTIATE"
    step = delegate.receive("100 is fine provided the relocation package of 20k is included.")
    request = step.request or _escalation(delegate)
    assert 'relocation package $20K ("provided the relocation package of 20k is included")' in request.problem
    assert "$80K" not in " ".join(text for _, text in delegate.transcript)


def test_no_field_is_asked_more_often_than_allowed_in_any_phase() -> None:
    """Screening questions in SCREEN and in NEGOTIATE: between two ambiguity decisions (a principal's
    "continue screening" lifts the count) no field is asked more than ASKED_AT_MOST times."""
    from parley.governance.config import load_config
    from parley.governance.counterparties import PERSONAS, SimulatedCounterparty
    from parley.governance.delegate.questions import ASKED_AT_MOST, SCREENING_KINDS
    from parley.governance.escalation import PolicyPrincipal, Trigger
    from parley.governance.session import run_session
    from parley.governance.store import SessionStore

    worst = 0
    for domain in ("staffing", "procurement", "leasing"):
        config = load_config(domain)
        for seed in range(6):
            store = SessionStore()
            outcome = run_session(
                config,
                SimulatedCounterparty(config, PERSONAS[seed % len(PERSONAS)], seed),
                PolicyPrincipal(default="A", name="policy"),
                store,
                config_source=domain,
                seed=seed,
            )
            counts: dict[str, int] = {}
            for event in store.load_events(outcome.session_id):
                if event.kind == "decision" and event.data.get("trigger") == Trigger.AMBIGUITY.value:
                    counts.clear()
                elif event.kind == "question" and event.data.get("kind") in SCREENING_KINDS:
                    for name in event.data.get("fields", []):
                        counts[str(name)] = counts.get(str(name), 0) + 1
                        worst = max(worst, counts[str(name)])
            store.close()
    assert worst <= ASKED_AT_MOST
