"""Write a `Scenario` back to the YAML file format (quantity shorthands come back expanded)."""

from __future__ import annotations

import itertools
from collections import Counter
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
import yaml

from parley.domain.issues import Issue
from parley.domain.utility import (
    AdditiveBonusUtility,
    LinearAdditiveUtility,
    RankedPreferenceUtility,
    TableUtility,
    UtilityFunction,
)
from parley.errors import ScenarioError
from parley.scenarios.loader import ISSUE_DESCRIPTIONS_KEY, rules_to_data
from parley.scenarios.model import Party, Scenario


class _Dumper(yaml.SafeDumper):
    """Safe dumper writing multi-line text as literal blocks."""


def _represent_text(dumper: _Dumper, text: str) -> yaml.ScalarNode:
    style = "|" if "\n" in text else None
    return dumper.represent_scalar("tag:yaml.org,2002:str", text, style=style)


_Dumper.add_representer(str, _represent_text)


def scenario_to_yaml(scenario: Scenario) -> str:
    """The scenario as a YAML document that `load_scenario` reads back to an equal scenario.

    Raises:
        ScenarioError: a utility type or metadata value the file format cannot express.
    """
    data = scenario_to_data(scenario)
    try:
        return yaml.dump(data, Dumper=_Dumper, sort_keys=False, allow_unicode=True, width=100)
    except yaml.YAMLError as error:
        raise ScenarioError(f"cannot write as YAML: {error}", source=scenario.source) from None


def scenario_to_data(scenario: Scenario) -> dict[str, Any]:
    """The scenario as plain data in the file format."""
    metadata = _plain(dict(scenario.metadata))
    descriptions: dict[str, str] = metadata.pop(ISSUE_DESCRIPTIONS_KEY, {})
    allocation: dict[str, dict[str, Any]] = metadata.pop("allocation", {})
    issues = [_issue(issue, descriptions.get(issue.name, ""), allocation) for issue in scenario.space.issues]
    if any("allocated_to" not in entry for entry in (_find(issues, name) for name in allocation)):
        metadata["allocation"] = allocation
        for entry in issues:
            entry.pop("allocated_to", None)
    protocol = _drop_none(rules_to_data(scenario.rules))
    data: dict[str, Any] = {
        "name": scenario.name,
        "title": scenario.title,
        "description": scenario.description,
    }
    data["issues"] = issues
    data["parties"] = [_party(party, scenario.source) for party in scenario.parties]
    data["protocol"] = protocol
    if metadata:
        data["metadata"] = metadata
    return data


def _find(issues: Sequence[dict[str, Any]], name: str) -> dict[str, Any]:
    return next(entry for entry in issues if entry["name"] == name)


def _issue(issue: Issue, description: str, allocation: Mapping[str, Mapping[str, Any]]) -> dict[str, Any]:
    entry: dict[str, Any] = {"name": issue.name}
    step = _range_step(issue)
    if step is None:
        entry["options"] = list(issue.values)
    else:
        entry["range"] = {"min": issue.values[0], "max": issue.values[-1]} | (
            {"step": step} if step != 1 else {}
        )
    if issue.unit:
        entry["unit"] = issue.unit
    if description:
        entry["description"] = description
    owner = allocation.get(issue.name)
    if owner is not None and step == 1 and issue.values[0] == 0 and owner.get("total") == issue.values[-1]:
        entry["allocated_to"] = owner["owner"]
    return entry


def _range_step(issue: Issue) -> int | None:
    values = issue.values
    if len(values) < 2 or not all(isinstance(v, int) and not isinstance(v, bool) for v in values):
        return None
    step = int(values[1]) - int(values[0])
    if step <= 0 or any(int(b) - int(a) != step for a, b in itertools.pairwise(values)):
        return None
    return step


def _party(party: Party, source: str | None) -> dict[str, Any]:
    entry: dict[str, Any] = {"name": party.name, "role": party.role}
    entry["batna"] = float(party.utility.reservation_value)
    if party.utility.discount != 1.0:  # (left out when there is none, as files usually do)
        entry["discount"] = float(party.utility.discount)
    entry["utility"] = utility_to_data(party.utility, source)
    if party.persona:
        entry["persona"] = _plain(dict(party.persona))
    if party.brief:
        entry["brief"] = party.brief
    if party.signals:
        entry["signals"] = _plain(dict(party.signals))
    return entry


def utility_to_data(utility: UtilityFunction, source: str | None = None) -> dict[str, Any]:
    """A utility function as a `utility:` block.

    Raises:
        ScenarioError: the utility type has no file representation.
    """
    match utility:
        case RankedPreferenceUtility():
            return _ranked(utility)
        case LinearAdditiveUtility():
            return _linear(utility)
        case TableUtility():
            return _table(utility)
        case AdditiveBonusUtility():
            return _additive_bonus(utility)
        case _:
            raise ScenarioError(f"cannot write a {type(utility).__name__} as YAML", source=source)


def _linear(utility: LinearAdditiveUtility) -> dict[str, Any]:
    data: dict[str, Any] = {"type": "linear_additive"}
    data["weights"] = {name: float(weight) for name, weight in utility.weights.items()}
    data["values"] = {name: [float(v) for v in values] for name, values in utility.values.items()}
    if utility.offset:
        data["offset"] = float(utility.offset)
    return data


def _additive_bonus(utility: AdditiveBonusUtility) -> dict[str, Any]:
    """The linear-additive part's fields, then the bonus and the outcomes that earn it (index order)."""
    data: dict[str, Any] = {"type": "additive_bonus"}
    data |= {key: value for key, value in _linear(utility.additive).items() if key != "type"}
    data["bonus"] = float(utility.bonus)
    data["bonus_outcomes"] = [utility.space.outcome(int(row)) for row in np.flatnonzero(utility.region)]
    return data


def _ranked(utility: RankedPreferenceUtility) -> dict[str, Any]:
    names = list(dict.fromkeys([*utility.rankings, *utility.unacceptable]))
    preferences = {
        name: {
            "ranking": list(utility.rankings.get(name, ())),
            "unacceptable": list(utility.unacceptable.get(name, ())),
        }
        for name in names
    }
    return {
        "type": "ranked",
        "preferences": preferences,
        "weights": {name: float(weight) for name, weight in utility.weights.items()},
        "rank_scores": [float(score) for score in utility.rank_scores],
        "unacceptable_score": float(utility.unacceptable_score),
    }


def _table(utility: TableUtility) -> dict[str, Any]:
    values = utility.table.tolist()
    default = Counter(values).most_common(1)[0][0] if values else 0.0
    rows = np.flatnonzero(utility.table != default)
    entries = [
        {"outcome": utility.space.outcome(int(row)), "utility": float(utility.table[row])} for row in rows
    ]
    return {"type": "table", "default": float(default), "entries": entries}


def _plain(value: Any) -> Any:
    """Mappings and sequences as dicts and lists, so the safe dumper can write them."""
    if isinstance(value, Mapping):
        return {key: _plain(item) for key, item in value.items()}
    if isinstance(value, list | tuple):
        return [_plain(item) for item in value]
    if isinstance(value, np.generic):
        return value.item()
    return value


def _drop_none(data: dict[str, Any]) -> dict[str, Any]:
    return {key: value for key, value in data.items() if value is not None}
