"""Scenarios: the model, YAML files shipped as package data, and importers for public datasets."""

from typing import TYPE_CHECKING

from parley._lazy import lazy_exports

if TYPE_CHECKING:
    from parley.scenarios.catalog import (
        ScenarioCollection,
        ScenarioInfo,
        list_scenarios,
        load_scenario,
        register_collection,
        scenario_names,
        shipped_scenario_names,
    )
    from parley.scenarios.loader import scenario_from_data, scenario_from_yaml, validate_file
    from parley.scenarios.model import Party, Scenario
    from parley.scenarios.writer import scenario_to_data, scenario_to_yaml

__all__ = [
    "Party",
    "Scenario",
    "ScenarioCollection",
    "ScenarioInfo",
    "list_scenarios",
    "load_scenario",
    "register_collection",
    "scenario_from_data",
    "scenario_from_yaml",
    "scenario_names",
    "scenario_to_data",
    "scenario_to_yaml",
    "shipped_scenario_names",
    "validate_file",
]

__getattr__, __dir__ = lazy_exports(
    __name__,
    {
        "parley.scenarios.catalog": (
            "ScenarioCollection",
            "ScenarioInfo",
            "list_scenarios",
            "load_scenario",
            "register_collection",
            "scenario_names",
            "shipped_scenario_names",
        ),
        "parley.scenarios.loader": ("scenario_from_data", "scenario_from_yaml", "validate_file"),
        "parley.scenarios.model": ("Party", "Scenario"),
        "parley.scenarios.writer": ("scenario_to_data", "scenario_to_yaml"),
    },
)
