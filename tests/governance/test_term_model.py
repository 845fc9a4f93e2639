"""The trained model behind the term reader's rules (`governance.term_model`, issue 17)."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from datetime import date
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from parley.errors import ScenarioError
from parley.governance import term_model
from parley.governance.classifier import rules_only
from parley.governance.config import DomainConfig
from parley.governance.term_model import (
    FORMAT,
    TermModel,
    load_term_model,
    model_status,
    parse_term_model,
    shipped_term_model,
)
from parley.governance.terms import TermReader, TermReading

from .blind_sets import NEXT_BLIND
from .linear_time import assert_reads_in_linear_time

SHIPPED = Path(term_model.__file__).parent / "data" / term_model.MODEL_FILE
TODAY = date(2026, 11, 28)
SPENT_SETS = (
    "dev_terms",
    "heldout_terms",
    "heldout_terms2",
    "heldout_terms3",
    "heldout_terms4",
    "heldout_terms5",
    "heldout_terms6",
    "heldout_terms7",
    "heldout_terms8",
    "heldout_terms9",
    "heldout_terms10",
    "heldout_terms11",
)
"""The spent term sets the model trains on (benchmarks/train_term_reader.py SETS); the next blind set,
tests.governance.blind_sets.NEXT_BLIND, is never among them."""
BLIND_TERM_SET = next(name for name in NEXT_BLIND if name.startswith("heldout_terms"))
DEMOTE_ALL = TermModel({"role=own": -30.0, "role=condition": -30.0}, 0.0, 0.5, 1.01)
"""Sets aside every value it may: what the combination still guarantees when the model is wrong."""
PROMOTE_ALL = TermModel({"role=aside": 30.0, "role=rejected": 30.0}, -5.0, 0.0, 0.5)
CONDITIONAL = (
    "We can go to 121k provided she starts before March 3.",
    "Fine at 4.20 a unit as long as the order is at least 12,000 pieces.",
    "The landlord accepts 7,900 a month only if your client signs for five years.",
    "She would take 108 if you add a 6k relocation budget; otherwise 115.",
    "Unless the board objects, 99k base with 23 days off works.",
)


@pytest.fixture(scope="module")
def shipped() -> TermModel:
    return load_term_model(SHIPPED)


def _read(config: DomainConfig, text: str, model: TermModel | None) -> TermReading:
    return TermReader(config, model=model).read(text, today=TODAY)


def test_the_shipped_model_loads_and_names_the_spent_sets_only(shipped: TermModel) -> None:
    assert shipped.trained_on == SPENT_SETS
    assert shipped.weights and all(isinstance(w, float) for w in shipped.weights.values())
    assert 0.0 <= shipped.drop_below <= 1.0 and 0.0 <= shipped.add_above <= 1.01
    assert 0.0 <= shipped.alt_above <= 1.01
    assert json.loads(SHIPPED.read_text(encoding="utf-8"))["format"] == FORMAT


def test_the_training_sets_are_the_spent_ones_and_never_the_blind_one() -> None:
    """The trainer names the spent sets one by one (never a glob), and the next blind term set is not
    one of them (nor is it named in the trainer at all but to say it is never read)."""
    trainer = Path(__file__).resolve().parents[2] / "benchmarks" / "train_term_reader.py"
    source = trainer.read_text(encoding="utf-8")
    listed = tuple(
        re.findall(r'^    "(\w+)",$', source.split("SETS = (", 1)[1].split(")", 1)[0], re.MULTILINE)
    )
    assert listed == SPENT_SETS
    assert BLIND_TERM_SET not in SPENT_SETS
    assert "glob(" not in source and "iterdir(" not in source


def test_scoring_is_deterministic(staffing: DomainConfig, shipped: TermModel) -> None:
    text = "Base is 112k, with a 9k signing bonus and 3 remote days; last year we paid 104k."
    first = TermReader(staffing, model=shipped)
    draft, hits, _ = first.analyse(text, today=TODAY)
    scores = shipped.probabilities(draft, hits)
    again = TermReader(staffing, model=shipped).analyse(text, today=TODAY)
    assert scores == shipped.probabilities(again[0], again[1])
    assert scores and all(0.0 <= p <= 1.0 for p in scores.values())
    assert first.read(text, today=TODAY) == TermReader(staffing, model=shipped).read(text, today=TODAY)


def test_a_value_the_model_sets_aside_is_quoted_not_lost(staffing: DomainConfig) -> None:
    text = "We can do 118k base for this role."
    rules = _read(staffing, text, None)
    revised = _read(staffing, text, DEMOTE_ALL)
    assert rules.get("annual_salary") is not None
    assert revised.get("annual_salary") is None
    assert "annual_salary" in revised.set_aside
    assert any("set aside by the term model" in u and "118k" in u for u in revised.unread)


def test_a_value_the_model_places_is_stated(staffing: DomainConfig) -> None:
    text = "Last year the role paid 97k."
    rules = _read(staffing, text, None)
    revised = _read(staffing, text, PROMOTE_ALL)
    assert rules.get("annual_salary") is None
    stated = revised.get("annual_salary")
    assert stated is not None and stated.value == pytest.approx(97000)


@pytest.mark.parametrize("text", CONDITIONAL)
def test_the_model_never_drops_a_condition_the_rules_surfaced(
    staffing: DomainConfig, procurement: DomainConfig, leasing: DomainConfig, text: str
) -> None:
    config = {"4.20": procurement, "7,900": leasing}
    chosen = next((c for key, c in config.items() if key in text), staffing)
    rules = _read(chosen, text, None)
    assert rules.conditions
    for model in (DEMOTE_ALL, PROMOTE_ALL):
        revised = _read(chosen, text, model)
        assert set(rules.conditions) <= set(revised.conditions)


@settings(max_examples=40, deadline=None)
@given(st.text(alphabet="0123456789kK$.,;:?! abcdefghijklmnopqrstuvwxyz\u200b\u0430\u0435", max_size=200))
def test_garbage_never_raises_and_keeps_conditions(text: str) -> None:
    from parley.governance.config import load_config

    config = load_config("staffing")
    rules = _read(config, text, None)
    model = load_term_model(SHIPPED)
    assert set(rules.conditions) <= set(_read(config, text, model).conditions)
    _read(config, text, DEMOTE_ALL)


@pytest.mark.parametrize(
    "text",
    [
        "We can do 118k\u200b base if she starts in M\u0430rch.",  # zero-width space, Cyrillic a
        "\u0412ase 1\u200b12k, \u0455igning bonus 8k.",  # homoglyphs inside words and figures
        "k$" * 30_000,
        "\x00\x01\ufffd 12 ?? 3.4.5.6 k k k $$$ if if if",
    ],
)
def test_adversarial_text_never_raises(staffing: DomainConfig, shipped: TermModel, text: str) -> None:
    reading = _read(staffing, text, shipped)
    assert isinstance(reading, TermReading)


def test_a_huge_message_is_unread_whole_with_the_model_on(staffing: DomainConfig, shipped: TermModel) -> None:
    reading = _read(staffing, "We can do 118k if she starts in March. " * 40_000, shipped)
    assert reading.unread and not reading.terms
    assert reading.conditions


@pytest.mark.parametrize("unit", ["Base 112k, bonus 9k. ", "if 3 days remote, then 104; ", "$7 k 9 ?"])
def test_reading_with_the_model_is_linear(staffing: DomainConfig, shipped: TermModel, unit: str) -> None:
    assert_reads_in_linear_time(TermReader(staffing, model=shipped), unit, TODAY)


@pytest.mark.parametrize(
    ("content", "field"),
    [
        ("{not json", None),
        ('{"format": "something else"}', "format"),
        (json.dumps({"format": FORMAT, "enabled": True, "intercept": 0, "drop_below": 0.1,
                     "add_above": 0.9, "weights": {}}), "weights"),
        (json.dumps({"format": FORMAT, "enabled": True, "intercept": 0, "drop_below": 0.1,
                     "add_above": 0.9, "weights": {"role=own": float("nan")}}), "weights"),
        (json.dumps({"format": FORMAT, "enabled": True, "intercept": 0, "drop_below": 3,
                     "add_above": 0.9, "weights": {"a": 1}}), "drop_below"),
        (json.dumps({"format": FORMAT, "enabled": "yes", "intercept": 0, "drop_below": 0.1,
                     "add_above": 0.9, "weights": {"a": 1}}), "enabled"),
        (json.dumps({"format": FORMAT, "enabled": True, "intercept": "x", "drop_below": 0.1,
                     "add_above": 0.9, "weights": {"a": 1}}), "intercept"),
    ],
)  # fmt: skip
def test_a_corrupt_model_file_is_a_one_line_error(tmp_path: Path, content: str, field: str | None) -> None:
    path = tmp_path / "model.json"
    path.write_text(content, encoding="utf-8")
    with pytest.raises(ScenarioError) as raised:
        load_term_model(path)
    assert "\n" not in str(raised.value) and str(path) in str(raised.value)
    assert raised.value.field == field


def test_a_missing_model_file_is_a_one_line_error(tmp_path: Path) -> None:
    with pytest.raises(ScenarioError, match="cannot read a term model") as raised:
        load_term_model(tmp_path / "absent.json")
    assert "\n" not in str(raised.value)


def test_a_parsed_model_round_trips(shipped: TermModel) -> None:
    assert parse_term_model(shipped.to_json(), "memory") == shipped


@pytest.fixture
def broken_shipped_file(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    term_model._shipped.cache_clear()  # pyright: ignore[reportPrivateUsage]
    monkeypatch.setattr(term_model, "MODEL_FILE", "no_such_term_model.json")
    yield
    monkeypatch.undo()
    term_model._shipped.cache_clear()  # pyright: ignore[reportPrivateUsage]


@pytest.mark.usefixtures("broken_shipped_file")
def test_without_the_shipped_file_the_rules_read_alone_and_say_so(staffing: DomainConfig) -> None:
    assert shipped_term_model() is None
    assert "rules alone" in model_status()
    reading = TermReader(staffing).read("We can do 118k base.", today=TODAY)
    assert reading.get("annual_salary") is not None


def test_the_shipped_switch_and_rules_only(staffing: DomainConfig, shipped: TermModel) -> None:
    reader = TermReader(staffing)
    assert model_status() == ("on" if shipped.enabled else "off")
    assert (reader.model is not None) == shipped.enabled
    with rules_only():
        assert reader.model is None and model_status() == "off"
    text = "Is the warranty 18 or 36 months on the stainless model? We can do 24 months at 3.10."
    expected = TermReader(staffing, model=shipped if shipped.enabled else None).read(text, today=TODAY)
    assert reader.read(text, today=TODAY) == expected


def test_the_shipped_model_sets_aside_a_value_asked_about(
    procurement: DomainConfig, shipped: TermModel
) -> None:
    text = "Would the warranty be 18 or 36 months on the stainless model?"
    assert _read(procurement, text, None).get("warranty") is not None  # the rules state one
    revised = _read(procurement, text, shipped)
    assert revised.get("warranty") is None
    assert any("set aside by the term model" in u for u in revised.unread)


@pytest.mark.parametrize(
    ("domain", "text", "term"),
    [
        ("staffing", "Is it 3 or 4 remote days that he wants?", "remote_days"),
        ("leasing", "Is the deposit 2 or 3 months on this building?", "deposit"),
        ("procurement", "Is the warranty 18 or 36 months on the stainless model?", "warranty"),
    ],
)
def test_the_shipped_model_doubts_values_offered_as_alternatives_in_a_question(
    domain: str, text: str, term: str, shipped: TermModel
) -> None:
    from parley.governance.config import load_config

    reader = TermReader(load_config(domain), model=None)
    draft, hits, _ = reader.analyse(text, today=TODAY)
    scores = [p for i, p in shipped.probabilities(draft, hits).items() if hits[i].term.name == term]
    assert scores and max(scores) < 0.3


def test_the_shipped_model_keeps_a_plain_offer(staffing: DomainConfig, shipped: TermModel) -> None:
    text = "We offered 96k last month. Today we can do 103k."
    revised = _read(staffing, text, shipped)
    stated = revised.get("annual_salary")
    assert stated is not None and stated.value == pytest.approx(103000)


def test_the_scorer_reads_with_a_model_file_or_the_rules_alone(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from .measure_terms import main

    bad = tmp_path / "bad.json"
    bad.write_text('{"format": "other"}', encoding="utf-8")
    assert main(["--model", str(bad)]) == 2
    assert capsys.readouterr().err.count("\n") == 1
    assert main(["--rules", "--json"]) == 0
    assert main(["--model", str(SHIPPED), "--json"]) == 0
    rules, model = (json.loads(line) for line in capsys.readouterr().out.splitlines())
    assert rules["set"] == model["set"] == "dev_terms"
