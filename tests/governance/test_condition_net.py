"""The term reader's learned condition net (issue 17): its file, its gate, its hook, its training."""

from __future__ import annotations

import dataclasses
import json
import subprocess
import sys
from pathlib import Path

import pytest

from parley.errors import ScenarioError
from parley.governance import condition_net
from parley.governance.classifier import rules_only
from parley.governance.condition_net import (
    FORMAT,
    REASON,
    ConditionNet,
    active_net,
    load_condition_net,
    without_net,
)
from parley.governance.config import load_config
from parley.governance.delegate.position import conditions_note
from parley.governance.term_guard import UNEXPLAINED
from parley.governance.terms import TermReader, TermReading

from .blind_sets import NEXT_BLIND

ROOT = Path(__file__).resolve().parents[2]
SHIPPED = ROOT / "src" / "parley" / "governance" / "data" / "condition_net.json"
SCRIPT = ROOT / "benchmarks" / "train_condition_net.py"
UNKNOWN_FORM = "We'll take the 4.20 price on the strength of a binding Q2 forecast from your side."
"""A condition in a form no rule of the reader marks (measured: the rules read nothing in it)."""
PLAIN = "Our price is 4.20 per unit and delivery takes 6 weeks."


@pytest.fixture
def enabled(monkeypatch: pytest.MonkeyPatch) -> ConditionNet:
    """The shipped net with its gate turned on (the shipped file keeps it off)."""
    net = dataclasses.replace(load_condition_net(), enabled=True)
    monkeypatch.setattr(condition_net, "_shipped", lambda: net)
    return net


def _reader() -> TermReader:
    return TermReader(load_config("procurement"))


def _net_quotes(reading: TermReading) -> list[str]:
    return [c.text for c in reading.conditions if c.source == REASON]


def test_shipped_file_carries_the_threshold_the_script_chose() -> None:
    raw = json.loads(SHIPPED.read_text("utf-8"))
    net = load_condition_net()
    assert raw["format"] == FORMAT
    assert net.threshold == raw["threshold"] and 0.0 < net.threshold < 1.0
    assert net.enabled is raw["enabled"] is False  # the gate: off until the lead turns it on
    assert not any(name in path for path in raw["trained_on"] for name in NEXT_BLIND)


def test_gate_off_means_no_net() -> None:
    assert active_net() is None
    assert _net_quotes(_reader().read(UNKNOWN_FORM)) == []


def test_unknown_form_is_quoted_with_the_nets_reason(enabled: ConditionNet) -> None:
    reader = _reader()
    with without_net():  # the rules attribute nothing (the sentence is only quoted as not fully read)
        assert [c.source for c in reader.read(UNKNOWN_FORM).conditions] == [UNEXPLAINED]
    reading = reader.read(UNKNOWN_FORM)
    assert _net_quotes(reading) == [UNKNOWN_FORM]
    quote = next(c for c in reading.conditions if c.source == REASON)
    assert quote.term == "other" and quote.quoted
    assert quote.to_json()["source"] == REASON
    assert TermReading.from_json(reading.to_json()).conditions == reading.conditions
    assert "flagged by the condition net" in conditions_note(load_config("procurement"), [reading])


def test_plain_statement_is_not_quoted(enabled: ConditionNet) -> None:
    assert _net_quotes(_reader().read(PLAIN)) == []
    assert (
        _net_quotes(_reader().read("Thanks for the call today, we will send the documents tomorrow.")) == []
    )


def test_net_never_adds_a_term(enabled: ConditionNet) -> None:
    reader = _reader()
    for text in (UNKNOWN_FORM, PLAIN):
        with without_net():
            before = reader.read(text)
        after = reader.read(text)
        assert after.terms == before.terms
        # the net's quote takes the place of the same sentence quoted as not fully read
        rules = [c for c in after.conditions if c.source not in (REASON, UNEXPLAINED)]
        assert rules == [c for c in before.conditions if c.source != UNEXPLAINED]


def test_switches_turn_it_off(enabled: ConditionNet) -> None:
    with rules_only():
        assert active_net() is None
    with without_net():
        assert active_net() is None
    assert active_net() is enabled


def test_obfuscated_text_is_scored_after_normalisation(enabled: ConditionNet) -> None:
    obfuscated = UNKNOWN_FORM.replace("forecast", "f\u043ere\u200bcast").replace("strength", "str\u0435ngth")
    draft, _, _ = _reader().analyse(obfuscated)
    plain, _, _ = _reader().analyse(UNKNOWN_FORM)
    scored = [enabled.score(c.text) for c in draft.clauses()]
    assert scored == [enabled.score(c.text) for c in plain.clauses()]
    assert _net_quotes(_reader().read(obfuscated))


@pytest.mark.parametrize(
    ("content", "message"),
    [
        ("{not json", "cannot read the condition net"),
        ('{"format": "other"}', "not a condition net"),
        (json.dumps({"format": FORMAT, "weights": {"a": "x"}, "intercept": 0, "threshold": 0.5}), "weights"),
        (json.dumps({"format": FORMAT, "weights": {}, "intercept": 0, "threshold": 2}), "threshold"),
        (
            json.dumps({"format": FORMAT, "weights": {}, "intercept": 0, "threshold": 0.5, "enabled": 1}),
            "enabled",
        ),
    ],
)
def test_malformed_file_is_a_one_line_error(tmp_path: Path, content: str, message: str) -> None:
    path = tmp_path / "net.json"
    path.write_text(content, "utf-8")
    with pytest.raises(ScenarioError, match=message) as error:
        load_condition_net(path)
    assert "\n" not in str(error.value)


def test_missing_file_is_a_one_line_error(tmp_path: Path) -> None:
    with pytest.raises(ScenarioError, match="cannot read") as error:
        load_condition_net(tmp_path / "absent.json")
    assert "\n" not in str(error.value)


def test_training_sources_name_no_blind_set() -> None:
    text = SCRIPT.read_text("utf-8")
    assert "from tests.governance.blind_sets import NEXT_BLIND" in text
    assert not any(name in text.replace("NEXT_BLIND", "") for name in NEXT_BLIND)


@pytest.mark.slow
def test_check_is_clean() -> None:
    done = subprocess.run(
        [sys.executable, str(SCRIPT), "--check"], cwd=ROOT, capture_output=True, text=True, check=False
    )
    assert done.returncode == 0, done.stdout + done.stderr
