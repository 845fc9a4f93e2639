"""The principal strategy and a counterparty that goes quiet (issue 17, deal rate): after rounds without a
reply, one restatement of the same package counts as standing firm, so the delegate closes a deal
within its limits before the counterparty is gone; a counterparty that keeps answering still has to
restate its package `FIRM_AFTER` times."""

from __future__ import annotations

import pytest

from parley.governance import strategy as strategy_module
from parley.governance.config import DomainConfig, load_config
from parley.governance.counterparties import ScriptedCounterparty
from parley.governance.escalation import PolicyPrincipal
from parley.governance.session import run_session
from parley.governance.store import SessionStore
from parley.governance.strategy import FIRM_AFTER, QUIET_AFTER, Position, PrincipalStrategy


def _strategy(config: DomainConfig) -> PrincipalStrategy:
    bands = {t.name: (t.minimum, t.maximum) for t in config.boundary.terms}
    return PrincipalStrategy(config, config.negotiation.term, bands)


def _restated(times: int, silences: int) -> Position:
    position = Position().with_offer({"unit_price": 9.1}).with_silences(silences)
    for _ in range(times):
        position = position.with_move({"unit_price": 13.0})
    return position


def test_a_quiet_counterparty_is_firm_after_one_restatement() -> None:
    strategy = _strategy(load_config("procurement"))
    assert not strategy.firm(_restated(FIRM_AFTER - 1, silences=QUIET_AFTER - 1))
    assert strategy.firm(_restated(FIRM_AFTER - 1, silences=QUIET_AFTER))
    move = strategy.respond(_restated(FIRM_AFTER - 1, silences=QUIET_AFTER))
    assert move.kind == "accept" and move.package == {"unit_price": 13.0}


def test_a_counterparty_that_answers_is_not_rushed() -> None:
    strategy = _strategy(load_config("procurement"))
    move = strategy.respond(_restated(FIRM_AFTER - 1, silences=0))
    assert move.kind == "offer" and float(move.package["unit_price"]) < 13.0


def test_silences_are_derived_not_stored() -> None:
    position = _restated(2, silences=5)
    assert "silences" not in position.to_json()
    assert Position.from_json(position.to_json()).silences == 0


@pytest.mark.parametrize("quiet", [True, False])
def test_the_delegate_counts_the_rounds_a_counterparty_missed(
    quiet: bool, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A supplier that misses two rounds during screening, names $13 and restates it once after the
    opening offer gets it (within the band); without the rule, the delegate would counter again."""
    if not quiet:
        monkeypatch.setattr(strategy_module, "QUIET_AFTER", 99)
    config = load_config("procurement")
    answers = [
        "We hold ISO 9001 certification.",
        None,
        None,
        "We'd quote $13 per unit at that volume. Typical order volume is 4,000 units.",
        "We mostly run 6061-T6. Payment terms are net-30. Lead time is 6 weeks.",
        "I'd need $13 per unit.",
        "Thanks, that summary looks right to me.",
    ]
    store = SessionStore()
    outcome = run_session(
        config, ScriptedCounterparty(answers), PolicyPrincipal(default="A"), store, config_source=config.name
    )
    moves = [
        e.data["move"] for e in store.load_events(outcome.session_id) if e.kind == "negotiation_strategy"
    ]
    accepted = any(m["kind"] == "accept" and m["package"]["unit_price"] == 13.0 for m in moves)
    assert accepted is quiet, moves
