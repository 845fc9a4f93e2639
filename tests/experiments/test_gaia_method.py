"""The GAIA experiment's method (issue 20): a slip source that is not the detector's cue list, paired
tests with verdicts, intervals on every rate, the simulation's parameters and their sensitivity."""

from __future__ import annotations

import math
import re
from pathlib import Path
from typing import Any

import pytest
import yaml
from typer.testing import CliRunner

from parley.cli.app import app
from parley.errors import ScenarioError
from parley.experiments.gaia.drafter import PhraseBankDrafter, development_bank, parse_bank
from parley.experiments.gaia.runs import CONDITIONS, Condition, run_one
from parley.experiments.gaia.sensitivity import (
    ARMS,
    PARAMETERS,
    acts_on,
    parameter_rows,
    sensitivity_rows,
    sensitivity_specs,
    tweak_persona,
    tweaked_slip_rate,
    variant,
)
from parley.experiments.gaia.tables import (
    Claim,
    claim_rows,
    completion_rows,
    condition_rows,
    paired_values,
    severity_rows,
)
from parley.governance.config import load_config
from parley.governance.counterparties import PERSONA_SETTINGS, PERSONAS, Persona
from parley.governance.drafting import Intent

DATA = Path(__file__).resolve().parents[1] / "data" / "gaia"


# -- the slip source --------------------------------------------------------------------------------------
def test_the_package_bank_is_the_development_bank() -> None:
    tests_bank = yaml.safe_load((DATA / "phrase_bank.yaml").read_text(encoding="utf-8"))["binding"]
    assert list(development_bank()) == tests_bank and len(tests_bank) >= 150


def test_the_bank_is_not_the_detectors_slip_templates() -> None:
    from parley.governance.config import load_yaml_data

    templates = {t for texts in load_yaml_data("slips.yaml").values() for t in texts}
    assert not templates & set(development_bank())


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("binding: [", "not valid YAML"),
        ("other: ['x']", "under 'binding'"),
        ("binding: []", "under 'binding'"),
        ("binding: ['ok', 3]", "under 'binding'"),
        ("binding: ['   ']", "under 'binding'"),
        ("- a\n- b", "under 'binding'"),
        ("binding: ['we pay {price}']", "unknown placeholder"),
        ("binding: ['we pay {0}']", "unknown placeholder"),
        ("binding: ['" + "x" * 1_100_000 + "']", "larger than"),
    ],
)
def test_a_bad_bank_is_a_one_line_error(text: str, message: str) -> None:
    with pytest.raises(ScenarioError) as caught:
        parse_bank(text, "bank.yaml")
    assert message in str(caught.value) and "\n" not in str(caught.value)


def test_odd_text_in_a_bank_is_kept_as_written() -> None:
    phrases = parse_bank("binding: ['De\u200bal at {ask}.', 'Dеal, {amount}.']")  # zero-width, Cyrillic е
    assert phrases == ("De\u200bal at {ask}.", "Dеal, {amount}.")


def _proposal(slippable: bool = True, approved: bool = False) -> Intent:
    values = {"text": "We're exploring $100K."}
    return Intent(
        "text", values, "annual_salary", 100_000.0, 120_000.0, slippable=slippable, approved=approved
    )


def test_the_drafter_slips_only_proposals_in_the_experiment_and_labels_the_slip() -> None:
    config = load_config("staffing")
    drafter = PhraseBankDrafter(config, ("Done at {ask}.",), 1, 1.0, slippable_only=True)
    slipped = drafter.draft(_proposal())
    assert slipped.text == "Done at $120K." and slipped.slips == ("binding", "over_boundary")
    assert drafter.draft(_proposal(slippable=False)).slips == ()
    assert drafter.draft(_proposal(approved=True)).slips == ()
    within = PhraseBankDrafter(config, ("Done at {amount}.",), 1, 1.0, slippable_only=True).draft(_proposal())
    assert within.slips == ("binding",)
    never = PhraseBankDrafter(config, ("Done at {ask}.",), 1, 0.0, slippable_only=True)
    assert all(never.draft(_proposal()).slips == () for _ in range(50)) and never.slipped == 0


def test_the_drafter_refuses_bad_arguments() -> None:
    config = load_config("staffing")
    with pytest.raises(ScenarioError, match="empty"):
        PhraseBankDrafter(config, (), 1, 0.1)
    for rate in (-0.1, 1.5, math.nan):
        with pytest.raises(ScenarioError, match="slip rate"):
            PhraseBankDrafter(config, ("x",), 1, rate)


def test_phrase_bank_slips_reach_the_counterparty_only_with_the_preflight_off() -> None:
    config = load_config("procurement")
    on, off = (c for c in CONDITIONS if c.slips == "phrase_bank")
    assert off.preflight is False and on.preflight is True
    records = [
        run_one(config, p, s, c) for c in (on, off) for p in ("cooperative", "adversarial") for s in range(4)
    ]
    assert all(r["slips"] == "phrase_bank" for r in records)
    assert not any(r["violations"] for r in records if r["condition"] == on.name)
    assert any(r["violations"] for r in records if r["condition"] == off.name)


# -- the simulation's parameters -----------------------------------------------------------------------------
def test_tweaks_scale_rates_shift_turns_and_keep_unset_ones() -> None:
    slow = PERSONA_SETTINGS["slow"]
    assert tweak_persona(slow, (("silence_rate", 0.5),)).silence_rate == pytest.approx(0.175)
    assert tweak_persona(slow, (("choice_answer_rate", 1.5),)).choice_answer_rate == 1.0  # capped
    assert tweak_persona(slow, (("ghost_after", -2.0),)).ghost_after == 5
    assert tweak_persona(slow, (("ghost_after", -20.0),)).ghost_after == 1
    assert tweak_persona(slow, (("contradict_turn", 2.0),)).contradict_turn is None
    assert tweak_persona(slow, (("slip_rate", 1.5),)) == slow and tweak_persona(slow, ()) == slow
    assert tweaked_slip_rate(0.15, (("slip_rate", 1.5),)) == pytest.approx(0.225)
    assert tweaked_slip_rate(0.9, (("slip_rate", 1.5),)) == 1.0
    for bad in ((("silence_rate", -1.0),), (("ghost_after", math.inf),), (("attack_rate", math.nan),)):
        with pytest.raises(ValueError, match="bad factor"):
            tweak_persona(slow, bad)


def test_every_persona_parameter_is_documented_and_varied() -> None:
    from dataclasses import fields

    names = {f.name for f in fields(Persona)}
    assert names | {"slip_rate"} == {p.name for p in PARAMETERS}
    table = "\n".join(parameter_rows())
    assert all(f"| {name} |" in table for name in names)
    assert acts_on("attack_rate") == ("adversarial",) and acts_on("slip_rate") == PERSONAS
    assert acts_on("ghost_after") == ("slow",) and acts_on("contradict_turn") == ("contradictory",)


def test_a_tweaked_arm_changes_the_session() -> None:
    config = load_config("staffing")
    base = run_one(config, "slow", 3, ARMS[0])
    chatty = run_one(config, "slow", 3, variant(ARMS[0], "silence_rate", 0.0))
    assert chatty["condition"] == "GAIA, phrase-bank slips [silence_rate 0]"
    assert (base["rounds"], base["messages"]) != (chatty["rounds"], chatty["messages"])


def test_sensitivity_specs_run_on_tuning_seeds_only() -> None:
    specs = sensitivity_specs("principal", (0, 1))
    assert {s.seed for s in specs} == {0, 1} and len({s.condition for s in specs}) == len(ARMS) * 17
    assert sensitivity_specs("principal", ()) == []


# -- statistics ----------------------------------------------------------------------------------------------
def _record(condition: str, seed: int, **values: Any) -> dict[str, Any]:
    record: dict[str, Any] = {
        "domain": "staffing",
        "persona": "cooperative",
        "seed": seed,
        "condition": condition,
        "slips": "templates",
        "rounds_to_gate": 4.0,
        "rounds_to_complete": math.nan,
        "information_gain": 2.0,
        "information_gain_stcc": 1.0,
        "questions": 2,
        "utility": 0.5,
        "agreed": True,
        "rounds": 8.0,
        "escalations": {},
        "reversals": 0.0,
        "violations": {},
        "messages": 5,
        "extraction_correct": 3,
        "extraction_total": 3,
        "final_state": "AGREE",
    }
    return {**record, **values}


def test_rates_never_show_a_zero_width_interval() -> None:
    records = [_record(c.name, s) for c in CONDITIONS for s in range(30)]
    table = "\n".join(condition_rows(records) + severity_rows(records))
    assert "0 ± 0" not in table and "0.00 [0.00, 0.11] (0/30)" in table


def test_paired_metrics_use_only_pairs_where_both_exist() -> None:
    records = [
        _record("a", 1, rounds_to_complete=5.0),
        _record("b", 1, rounds_to_complete=7.0),
        _record("a", 2, rounds_to_complete=math.nan),
        _record("b", 2, rounds_to_complete=3.0),
        _record("a", 3, rounds_to_complete=None),  # (a store's null)
        _record("b", 3, rounds_to_complete=4.0),
        _record("a", 4, rounds_to_complete=6.0),
    ]
    assert paired_values(records, "a", "b", "rounds_to_complete") == ([5.0], [7.0])


def _claim_table(first: list[float], second: list[float], direction: int = 1) -> str:
    records = [_record("x", s, rounds=v) for s, v in enumerate(first)]
    records += [_record("y", s, rounds=v) for s, v in enumerate(second)]
    return "\n".join(claim_rows(records, (Claim("x longer", "x", "y", "rounds", direction),)))


def test_claims_are_reproduced_refuted_or_inconclusive_with_test_and_n() -> None:
    longer = [10.0 + s % 3 for s in range(30)]
    shorter = [6.0 + s % 2 for s in range(30)]
    assert "| reproduced |" in _claim_table(longer, shorter) and "Wilcoxon signed-rank" in _claim_table(
        longer, shorter
    )
    assert "| refuted |" in _claim_table(shorter, longer)
    assert "| inconclusive |" in _claim_table(longer, longer)
    assert "| 30 |" in _claim_table(longer, shorter)


def test_yes_no_claims_use_mcnemar() -> None:
    records = [_record("x", s, violations={"high": 1} if s < 20 else {}) for s in range(30)]
    records += [_record("y", s) for s in range(30)]
    table = "\n".join(claim_rows(records, (Claim("x violates", "x", "y", "violated", 1),)))
    assert "exact McNemar" in table and "| reproduced |" in table and "+0.667" in table


def test_completion_by_round_counts_every_session() -> None:
    name = CONDITIONS[0].name
    records = [_record(name, s, rounds_to_complete=float(s) if s < 8 else math.nan) for s in range(20)]
    row = next(line for line in completion_rows(records) if line.startswith(f"| {name} |"))
    assert "0.20 [" in row.split("|")[2] and "0.40 [" in row.split("|")[9]  # r ≤ 3: 4/20; r ≤ 12: 8/20


def test_the_sensitivity_table_has_a_row_per_setting() -> None:
    records = [
        _record(variant(arm, p, f).name if p else arm.name, s, persona=persona)
        for arm in ARMS
        for p, f in ((None, 1.0), ("silence_rate", 0.5), ("silence_rate", 1.5))
        for persona in (PERSONAS if p is None else acts_on(p))
        for s in range(3)
    ]
    rows = sensitivity_rows(records)
    assert len(rows) == 3 + 3 * len(PARAMETERS)
    assert any(r.startswith("| silence_rate (× 0.5) | slow |") and "n 3" in r for r in rows)
    assert any(r.startswith("| attack_rate (× 1.5) | adversarial | — |") for r in rows)


# -- the report ----------------------------------------------------------------------------------------------
def test_the_report_is_byte_identical_on_rerun(tmp_path: Path) -> None:
    from parley.experiments.gaia import write_results
    from parley.experiments.gaia.runs import run_experiment

    seeds = [60]  # outside both splits
    records = run_experiment(seeds, domains=("leasing",), personas=("cooperative",))
    sensitivity = [run_one(load_config("leasing"), "cooperative", 0, arm) for arm in ARMS]
    texts = []
    for name in ("one", "two"):
        out = write_results(
            records,
            seeds,
            tmp_path / name / "gaia.md",
            tmp_path / name / "figures",
            "cmd",
            (),
            (),
            sensitivity,
        )
        texts.append(out.read_bytes())
    assert texts[0] == texts[1]
    text = texts[0].decode("utf-8")
    for heading in (
        "## The seed's claims, tested",
        "## Reaching τ_complete by round r",
        "## Sensitivity",
        "## The simulation's parameters",
        "## Parameters chosen by looking at results",
    ):
        assert heading in text
    assert "in-sample for the detector" in text and "development phrase bank" in text
    assert not re.search(r"\bnan\b", text, re.IGNORECASE)


def test_a_bad_sensitivity_seed_count_is_a_one_line_error(tmp_path: Path) -> None:
    result = CliRunner().invoke(
        app, ["experiment", "gaia", "--sensitivity-seeds", "-1", "--out", str(tmp_path / "g.md")]
    )
    assert result.exit_code == 2 and "--sensitivity-seeds" in result.output
    assert "Traceback" not in result.output


def test_conditions_are_distinct_in_the_batch_key() -> None:
    from parley.experiments.batch import dataclass_key
    from parley.experiments.gaia.runs import SessionSpec

    keys = {dataclass_key(SessionSpec("table1", "staffing", "slow", 1, "principal", c)) for c in CONDITIONS}
    assert len(keys) == len(CONDITIONS)
    assert Condition("x") != Condition("x", slips="phrase_bank")
