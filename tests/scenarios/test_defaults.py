"""Defaults of the scenario format: documented, shown, and not ending ordinary games early (issue 15).

A scenario without `protocol.stagnation` used to stop after 3 rounds without a new package, which
cut two Boulware negotiators off in round 4 of a plain used-car sale.
"""

from __future__ import annotations

import dataclasses
import re
from pathlib import Path

import pytest
from pydantic import BaseModel
from typer.testing import CliRunner

from parley.cli.app import app
from parley.experiments.runner import run_negotiation
from parley.protocol.rules import Rules, default_stagnation_rounds
from parley.scenarios import scenario_from_yaml, scenario_to_yaml, schema

FORMAT = Path(schema.__file__).with_name("FORMAT.md")

USED_CAR = """
name: used-car
title: A used car
description: A private sale of a used car.
issues:
  - name: price
    options: [4000, 4250, 4500, 4750, 5000, 5250, 5500, 5750, 6000]
  - name: warranty
    options: [none, 3 months, 6 months]
  - name: delivery
    options: [pick up, delivered]
parties:
  - name: seller
    role: seller
    batna: 4
    utility:
      type: linear_additive
      weights: {price: 1.0, warranty: 0.5, delivery: 0.3}
      values: {price: [0, 1, 2, 3, 4, 5, 6, 7, 8], warranty: [4, 2, 0], delivery: [3, 0]}
  - name: buyer
    role: buyer
    batna: 4
    utility:
      type: linear_additive
      weights: {price: 1.0, warranty: 0.6, delivery: 0.4}
      values: {price: [8, 7, 6, 5, 4, 3, 2, 1, 0], warranty: [0, 3, 5], delivery: [0, 4]}
"""


@pytest.mark.parametrize(
    ("max_rounds", "expected"), [(1, 3), (2, 3), (4, 3), (5, 4), (20, 14), (30, 20), (40, 27)]
)
def test_the_default_stagnation_patience_is_two_thirds_of_the_round_bound(
    max_rounds: int, expected: int
) -> None:
    assert default_stagnation_rounds(max_rounds) == expected
    rules = Rules(max_rounds=max_rounds)
    assert rules.stagnation_rounds is None
    assert rules.stagnation_patience == expected


def test_an_explicit_stagnation_setting_wins_and_a_default_follows_the_round_bound() -> None:
    assert Rules(max_rounds=20, stagnation_rounds=5).stagnation_patience == 5
    longer = dataclasses.replace(Rules(max_rounds=20), max_rounds=40)
    assert longer.stagnation_patience == 27
    with pytest.raises(Exception, match="stagnation_rounds must be at least 1"):
        Rules(stagnation_rounds=0)


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_two_boulware_negotiators_are_not_cut_off_without_stagnation_settings(seed: int) -> None:
    scenario = scenario_from_yaml(USED_CAR, "used-car.yaml")
    assert scenario.rules.stagnation_rounds is None
    result = run_negotiation(scenario, ["boulware", "boulware"], seed=seed)
    assert result.no_deal is None or result.no_deal.reason != "stagnation", result.no_deal
    started = result.trajectory.of_kind("session_started")[0]
    assert started.data["rules"]["stagnation_rounds"] == 14  # the transcript records what was used
    # A hardliner pair is still stopped before the bound.
    stubborn = run_negotiation(scenario, ["hardliner", "hardliner"], seed=seed)
    assert stubborn.no_deal is not None and stubborn.no_deal.reason == "stagnation"
    assert stubborn.no_deal.round < scenario.rules.max_rounds


def test_an_unset_stagnation_setting_round_trips_as_unset() -> None:
    scenario = scenario_from_yaml(USED_CAR, "used-car.yaml")
    again = scenario_from_yaml(scenario_to_yaml(scenario), "again.yaml")
    assert again.rules == scenario.rules
    assert again.rules.stagnation_rounds is None


# Every model of the format, and where its fields sit in a file (as FORMAT.md names them).
MODELS: dict[type[BaseModel], str] = {
    schema.ScenarioFile: "",
    schema.IssueSpec: "issues[].",
    schema.RangeSpec: "issues[].range.",
    schema.PartySpec: "parties[].",
    schema.SignalsSpec: "parties[].signals.",
    schema.LinearAdditiveSpec: "linear_additive.",
    schema.TableSpec: "table.",
    schema.TableEntrySpec: "table.entries[].",
    schema.RankedSpec: "ranked.",
    schema.RankingSpec: "ranked.preferences[].",
    schema.AdditiveBonusSpec: "additive_bonus.",
    schema.ProtocolSpec: "protocol.",
    schema.AcceptanceSpec: "protocol.acceptance.",
    schema.StagnationSpec: "protocol.stagnation.",
}


def _defaults_section() -> str:
    text = FORMAT.read_text(encoding="utf-8")
    match = re.search(r"^## Defaults\n(.*?)(?=^## |\Z)", text, flags=re.MULTILINE | re.DOTALL)
    assert match, "FORMAT.md needs a '## Defaults' section"
    return match.group(1)


def test_every_optional_setting_of_the_format_is_in_the_defaults_table() -> None:
    models = {
        value
        for value in vars(schema).values()
        if isinstance(value, type) and issubclass(value, BaseModel) and value.__module__ == schema.__name__
    }
    models.discard(schema._Strict)  # (the shared base)
    assert models == set(MODELS), (
        "a new model of the format: add it to MODELS (and its defaults to FORMAT.md)"
    )
    section = _defaults_section()
    missing = [
        f"{prefix}{name}"
        for model, prefix in MODELS.items()
        for name, info in model.model_fields.items()
        if not info.is_required() and f"`{prefix}{name}`" not in section
    ]
    assert not missing, f"FORMAT.md's Defaults section does not document {missing}"


def test_scenarios_show_lists_every_protocol_setting_and_marks_defaults(tmp_path: Path) -> None:
    path = tmp_path / "car.yaml"
    path.write_text(USED_CAR, encoding="utf-8")
    result = CliRunner().invoke(app, ["scenarios", "show", str(path)], env={"COLUMNS": "160"})
    assert result.exit_code == 0, result.output
    lines = {line.split("│")[1].strip(): line for line in result.output.splitlines() if line.count("│") >= 3}
    for setting in (
        "max_rounds",
        "max_offers",
        "deadline_seconds",
        "acceptance.required",
        "acceptance.vetoes",
        "stagnation.rounds",
        "stagnation.epsilon",
        "stagnation.on_stagnation",
        "act_timeout",
        "proposer_order",
    ):
        assert setting in lines, f"{setting} missing from:\n{result.output}"
        assert "default" in lines[setting], lines[setting]
    assert "14" in lines["stagnation.rounds"] and "2/3" in lines["stagnation.rounds"]
    shipped = CliRunner().invoke(app, ["scenarios", "show", "casino"], env={"COLUMNS": "160"})
    stagnation = next(line for line in shipped.output.splitlines() if "stagnation.rounds" in line)
    assert "14" in stagnation and "default" not in stagnation  # set in the file
