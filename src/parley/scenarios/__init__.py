"""Scenarios: the model, YAML files shipped as package data, and importers for public datasets."""

from parley.scenarios.model import Party, Scenario

__all__ = ["Party", "Scenario"]
