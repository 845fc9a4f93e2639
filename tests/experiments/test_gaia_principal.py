"""The principal's-outcome experiment: the share of the zone, its intervals, bargaining counterparties
whose reservations the delegate never sees, and the figures both strategies send."""

from __future__ import annotations

import gc
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from typer.testing import CliRunner

from parley.cli.app import app
from parley.experiments.gaia.bargaining import BargainingCounterparty, HiddenPreferences, draw_preferences
from parley.experiments.gaia.figures import figure_problems
from parley.experiments.gaia.principal import (
    median_interval,
    principal_share,
    rate_interval,
    run_share_experiment,
    run_share_session,
    share_rows,
    zone,
)
from parley.experiments.gaia.runs import POLICY, with_strategy
from parley.governance.config import load_config
from parley.governance.counterparties import PERSONAS, ScriptedCounterparty
from parley.governance.session import run_session, start_session
from parley.governance.store import SessionStore
from parley.governance.strategy import term_scales
from remembered_verdicts import verdicts_remembered


@pytest.fixture(autouse=True, scope="module")
def _verdicts_remembered() -> Iterator[None]:
    """The counterparties' messages and the delegate's drafts recur from session to session: the moderator
    and the preflight read each distinct one once (tests/remembered_verdicts.py)."""
    with verdicts_remembered():
        yield


def _single(reservation: float, aspiration: float) -> HiddenPreferences:
    return HiddenPreferences("annual_salary", reservation, aspiration, {}, {"annual_salary": 1.0}, 0.0, 1.0)


def test_the_share_runs_from_the_principal_limit_to_the_counterparty_reservation() -> None:
    config = load_config("staffing")
    counterparty = BargainingCounterparty(config, "cooperative", 2)
    counterparty.hidden = _single(90000.0, 110000.0)
    counterparty.scales = term_scales(config, "annual_salary", {})
    assert principal_share(counterparty, {"annual_salary": 90000.0}) == (pytest.approx(1.0), True)
    assert principal_share(counterparty, {"annual_salary": 100000.0}) == (pytest.approx(0.0), True)
    assert principal_share(counterparty, {"annual_salary": 95000.0}) == (pytest.approx(0.5), True)
    counterparty.hidden = _single(105000.0, 120000.0)  # beyond the principal's limit: no zone
    assert zone(counterparty.hidden, counterparty.scales) is None
    assert principal_share(counterparty, {"annual_salary": 100000.0}) == (None, False)


def test_intervals() -> None:
    values = [float(v) for v in range(1, 21)]
    median = median_interval(values)
    assert (median.value, median.low, median.high) == (10.5, 6.0, 15.0)  # order statistics 6 and 15
    rate = rate_interval(10, 20)
    assert rate.value == 0.5 and rate.low == pytest.approx(0.299, abs=1e-3)
    assert str(median_interval([])) == "—"


def test_bargaining_counterparties_open_above_a_hidden_reservation_and_concede() -> None:
    config = load_config("procurement")
    hidden = draw_preferences(config, "unit_price", 11.0, "cooperative", np.random.default_rng(0))
    assert hidden.aspiration > hidden.reservation == 11.0
    assert sum(hidden.weights.values()) == pytest.approx(1.0)
    messages: list[str] = []
    counterparty = BargainingCounterparty(config, "cooperative", 4)
    run_session(
        with_strategy(config, "principal"),
        counterparty,
        POLICY,
        SessionStore(),
        config_source="procurement",
        seed=4,
        on_message=lambda speaker, text: messages.append(text) if speaker == "counterparty" else None,
    )
    asks = [text for text in messages if text.startswith("I'd need")]
    assert len(asks) >= 2 and asks[0] != asks[-1]  # it moves


def _reachable(root: object, limit: int = 200_000) -> set[int]:
    """Ids of every object reachable from root (through the garbage collector's referents)."""
    seen: set[int] = set()
    frontier: list[Any] = [root]
    while frontier and len(seen) < limit:
        item = frontier.pop()
        if id(item) in seen or isinstance(item, type):
            continue
        seen.add(id(item))
        frontier.extend(gc.get_referents(item))
    return seen


@pytest.mark.parametrize("domain", ["staffing", "procurement", "leasing"])
def test_the_delegate_never_holds_the_counterparty_or_its_hidden_values(domain: str) -> None:
    config = load_config(domain)
    counterparty = BargainingCounterparty(config, "cooperative", 1)
    runner, step = start_session(config, counterparty, SessionStore(), config_source=domain, seed=1)
    outcome = runner.run(POLICY, step)
    assert (
        counterparty.counters > 0 or outcome.state.value != "AGREE"
    )  # it did bargain (or the session ended)
    reachable = _reachable(runner.delegate)
    assert id(counterparty) not in reachable and id(counterparty.hidden) not in reachable


class _Recorder:
    """Wraps a counterparty and records every reply it gives (None for a silent round)."""

    def __init__(self, inner: BargainingCounterparty) -> None:
        self.inner, self.name = inner, inner.name
        self.replies: list[str | None] = []

    def respond(self, message: str | None) -> str | None:
        self.replies.append(self.inner.respond(message))
        return self.replies[-1]

    def to_json(self) -> dict[str, Any]:
        return self.inner.to_json()


def _delegate_messages(config: Any, counterparty: Any, seed: int) -> list[str]:
    messages: list[tuple[str, str]] = []
    run_session(
        config,
        counterparty,
        POLICY,
        SessionStore(),
        config_source=config.name,
        seed=seed,
        on_message=lambda speaker, text: messages.append((speaker, text)),
    )
    return [text for speaker, text in messages if speaker == "delegate"]


@pytest.mark.parametrize("domain", ["staffing", "procurement", "leasing"])
def test_identical_messages_from_counterparties_with_other_reservations_get_identical_answers(
    domain: str,
) -> None:
    """Replay a bargaining counterparty's replies from counterparties whose hidden reservations and
    preferences are drawn anew: the delegate's messages are the same, message for message."""
    config = load_config(domain)
    for persona in PERSONAS:
        original = _Recorder(BargainingCounterparty(config, persona, 5))
        first = _delegate_messages(config, original, 5)
        for draw in range(2):
            replay = ScriptedCounterparty(original.replies)
            replay.hidden = draw_preferences(  # type: ignore[attr-defined]
                config,
                original.inner.money_term,
                original.inner.reservation * (1.1 + draw),
                persona,
                np.random.default_rng(draw),
            )
            assert _delegate_messages(config, replay, 5) == first


@pytest.mark.slow
@pytest.mark.parametrize("domain", ["staffing", "procurement", "leasing"])
def test_the_principal_strategy_sends_no_figure_beyond_its_rules_and_the_legacy_one_does(domain: str) -> None:
    config = load_config(domain)
    legacy_problems = 0
    for persona in PERSONAS:
        for seed in range(4):
            for strategy in ("principal", "legacy"):
                arm = with_strategy(config, strategy)
                store = SessionStore()
                outcome = run_session(
                    arm,
                    BargainingCounterparty(arm, persona, seed),
                    POLICY,
                    store,
                    config_source=domain,
                    seed=seed,
                )
                problems = figure_problems(arm, store.load_events(outcome.session_id))
                if strategy == "principal":
                    assert problems == [], (persona, seed, problems[:3])
                legacy_problems += len(problems)
    if domain != "procurement":
        assert legacy_problems > 0  # the old delegate's opening range reached past the asks or to the limit


def test_both_strategies_play_the_same_counterparty() -> None:
    config = load_config("leasing")
    legacy = run_share_session(config, "cooperative", 3, "legacy")
    principal = run_share_session(config, "cooperative", 3, "principal")
    assert legacy["contested"] == principal["contested"] and legacy["zone"] == principal["zone"]
    rows = share_rows([legacy, principal])
    assert any("| leasing | cooperative | principal |" in row for row in rows)


@pytest.mark.e2e
def test_cli_writes_the_principal_share_section(tmp_path: Path) -> None:
    out = tmp_path / "gaia.md"
    result = CliRunner().invoke(
        app,
        [
            *("experiment", "gaia", "--seeds", "1", "--strategy", "legacy"),
            *("--sensitivity-seeds", "0", "--out", str(out)),
        ],
    )
    assert result.exit_code == 0, result.output
    text = out.read_text(encoding="utf-8")
    assert "`parley experiment gaia --seeds 1 --strategy legacy --sensitivity-seeds 0`" in text
    assert "## Principal's share" in text and "| all | all | principal |" in text
    bad = CliRunner().invoke(app, ["experiment", "gaia", "--strategy", "greedy", "--out", str(out)])
    assert bad.exit_code == 2 and "unknown strategy 'greedy'" in bad.output


def test_the_share_experiment_grid() -> None:
    records = run_share_experiment(1, domains=("staffing",), personas=("cooperative",))
    assert [r["strategy"] for r in records] == ["legacy", "principal"]
