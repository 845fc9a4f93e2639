"""The principal strategy in whole sessions: the issue's two complaints, a golden transcript, the
counterparty's reservation hidden from the delegate, and the figures of every outgoing message."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from parley.experiments.gaia.figures import figure_problems
from parley.governance.config import DomainConfig, load_config
from parley.governance.counterparties import (
    PERSONAS,
    Counterparty,
    ScriptedCounterparty,
    SimulatedCounterparty,
)
from parley.governance.delegate import DelegateOptions
from parley.governance.draft import attribute_amounts, parse
from parley.governance.escalation import PolicyPrincipal
from parley.governance.machine import State
from parley.governance.session import SessionOutcome, run_session
from parley.governance.store import SessionStore
from parley.protocol.clock import FakeClock
from remembered_verdicts import verdicts_remembered


@pytest.fixture(autouse=True, scope="module")
def _verdicts_remembered() -> Iterator[None]:
    """The counterparties' messages and the delegate's drafts recur from session to session: the moderator
    and the preflight read each distinct one once (tests/remembered_verdicts.py)."""
    with verdicts_remembered():
        yield


GOLDEN = Path(__file__).parent / "golden" / "staffing_principal.txt"
POLICY = PolicyPrincipal(default="A", name="policy")
LOOKING_FOR_80K = [
    "I'm a U.S. citizen.",
    "I can do a 6-hour overlap with Pacific time. Mostly Python and React.",
    "I have 8 years of professional experience. I could start in January.",
    "I'm after a permanent role. I'm looking for around $80K.",
    "Hybrid suits me, 3 days a week in the office.",
    "That works for me.",
    "Thanks, that summary looks right to me.",
]


def _run(
    config: DomainConfig, counterparty: Counterparty, seed: int = 0, slip_rate: float = 0.0
) -> tuple[SessionOutcome, list[tuple[str, str]], SessionStore]:
    messages: list[tuple[str, str]] = []
    store = SessionStore()
    outcome = run_session(
        config,
        counterparty,
        POLICY,
        store,
        config_source=config.name,
        seed=seed,
        options=DelegateOptions(slip_rate=slip_rate),
        clock=FakeClock(tick=1.0),
        on_message=lambda speaker, text: messages.append((speaker, text)),
    )
    return outcome, messages, store


def _figures(config: DomainConfig, text: str, term: str) -> list[float]:
    """The figures a message states for a term, read as the preflight reads them."""
    found = attribute_amounts(parse(text, config.non_binding_phrases, max_chars=None), config)
    return [value for amount in found if amount.term == term for value in (amount.low, amount.high)]


def test_a_candidate_looking_for_80k_gets_80k_not_90k_to_100k(staffing: DomainConfig) -> None:
    outcome, messages, _ = _run(staffing, ScriptedCounterparty(LOOKING_FOR_80K))
    sent = [text for speaker, text in messages if speaker == "delegate"]
    salaries = [v for text in sent for v in _figures(staffing, text, "annual_salary")]
    assert salaries and max(salaries) <= 80000.0
    assert not any("–" in text for text in sent)  # no range: the opening is anchored on the ask
    assert outcome.state == State.AGREE and outcome.terms == {"annual_salary": 80000.0}


def test_a_supplier_quoting_11_50_is_never_answered_with_10_50_to_13_50(procurement: DomainConfig) -> None:
    for seed in range(4):
        supplier = SimulatedCounterparty(procurement, "cooperative", seed)
        supplier.truth["price"], supplier.reservation = 11.5, 11.5
        outcome, messages, _ = _run(procurement, supplier, seed)
        sent = [text for speaker, text in messages if speaker == "delegate"]
        prices = [v for text in sent for v in _figures(procurement, text, "unit_price")]
        assert prices and max(prices) <= 11.5, sent
        assert not any("–" in text for text in sent)
        assert outcome.state != State.AGREE or float(outcome.terms["unit_price"]) <= 11.5


def test_the_principal_strategy_matches_the_golden_transcript(staffing: DomainConfig) -> None:
    _, messages, _ = _run(staffing, ScriptedCounterparty(LOOKING_FOR_80K))
    text = "\n".join(f"{speaker}: {said}" for speaker, said in messages) + "\n"
    assert text == GOLDEN.read_text(encoding="utf-8")


class _Recorder:
    """Wraps a counterparty and records every reply it gives (None for a silent round)."""

    def __init__(self, inner: SimulatedCounterparty) -> None:
        self.inner = inner
        self.name = inner.name
        self.replies: list[str | None] = []

    def respond(self, message: str | None) -> str | None:
        reply = self.inner.respond(message)
        self.replies.append(reply)
        return reply

    def to_json(self) -> dict[str, Any]:
        return self.inner.to_json()


class _Replay(ScriptedCounterparty):
    """The same replies, from a counterparty holding other (random) hidden values: if the delegate
    could see them, its messages would change."""

    def __init__(self, replies: list[str | None], rng: np.random.Generator) -> None:
        super().__init__(replies)
        self.reservation = float(rng.uniform(1.0, 1e6))
        self.truth = {"price": self.reservation, "compensation": self.reservation, "rent": self.reservation}


@pytest.mark.parametrize("domain", ["staffing", "procurement", "leasing"])
def test_the_counterparty_reservation_stays_hidden_from_the_delegate(domain: str) -> None:
    """Same counterparty messages, different (random) reservations: identical delegate messages."""
    config = load_config(domain)
    rng = np.random.default_rng(17)
    for persona in PERSONAS:
        recorder = _Recorder(SimulatedCounterparty(config, persona, 3))
        first, messages, _ = _run(config, recorder, 3)
        for _ in range(2):
            second, replayed, _ = _run(config, _Replay(recorder.replies, rng), 3)
            ours = [text for speaker, text in messages if speaker == "delegate"]
            assert [text for speaker, text in replayed if speaker == "delegate"] == ours
            assert (second.state, second.terms) == (first.state, first.terms)


@pytest.mark.slow
@pytest.mark.parametrize("domain", ["staffing", "procurement", "leasing"])
def test_no_message_carries_a_figure_beyond_the_strategy_or_an_unapproved_limit(domain: str) -> None:
    """Every outgoing figure within authority, none at a private limit unless the principal approved
    it or the counterparty named it, no offer beyond what the counterparty asked; the drafter slips
    on 15% of proposals (the preflight must hold those)."""
    config = load_config(domain)
    for persona in PERSONAS:
        for seed in range(5):
            counterparty = SimulatedCounterparty(config, persona, seed)
            outcome, _, store = _run(config, counterparty, seed, slip_rate=0.15 if seed % 2 else 0.0)
            problems = figure_problems(config, store.load_events(outcome.session_id))
            assert problems == [], (persona, seed, problems[:3])
