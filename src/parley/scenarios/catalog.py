"""Find scenarios by name: the shipped YAML files, imported collections ("lamen/hotel"), or a path
(read by `parley.scenarios.sources` in its detected format)."""

from __future__ import annotations

import dataclasses
import difflib
import importlib
import os
from collections.abc import Callable
from dataclasses import dataclass
from importlib import resources
from pathlib import Path

from parley.errors import ScenarioError
from parley.scenarios.loader import validate_file
from parley.scenarios.model import Scenario

BUILTIN_COLLECTIONS: dict[str, tuple[str, str, str]] = {
    "lamen": ("parley.scenarios.importers.lamen", "lamen_game_names", "load_lamen_game"),
    "promediate": (
        "parley.scenarios.importers.promediate",
        "promediate_case_names",
        "load_promediate_case",
    ),
    "deliberation": (
        "parley.scenarios.importers.deliberation",
        "deliberation_game_names",
        "load_shipped_game",
    ),
    "multiparty": ("parley.scenarios.catalog", "multiparty_scenario_names", "load_multiparty_scenario"),
}
"""Dataset collections loaded as "<prefix>/<name>": prefix → (module, names function, load function).

The module is imported only when the collection is first used; the names function takes no
arguments and the load function takes the name without the prefix.
"""


@dataclass(frozen=True, slots=True)
class ScenarioCollection:
    """A named family of scenarios loaded as "<prefix>/<name>" (e.g. the LAMEN games).

    Attributes:
        prefix: The part before the slash.
        names: Lists the names in the collection (without the prefix).
        load: Loads one scenario by name (without the prefix).
    """

    prefix: str
    names: Callable[[], list[str]]
    load: Callable[[str], Scenario]


_registered: dict[str, ScenarioCollection] = {}


def register_collection(collection: ScenarioCollection) -> None:
    """Make a collection available to `load_scenario` and `list_scenarios` (replaces a same-prefix one)."""
    _registered[collection.prefix] = collection


def collections() -> list[ScenarioCollection]:
    """Every known collection: the built-in ones, then those registered at run time."""
    found = {prefix: _builtin(prefix) for prefix in BUILTIN_COLLECTIONS}
    found.update(_registered)
    return list(found.values())


def _builtin(prefix: str) -> ScenarioCollection:
    module_name, names_function, load_function = BUILTIN_COLLECTIONS[prefix]

    def names() -> list[str]:
        return list(getattr(importlib.import_module(module_name), names_function)())

    def load(name: str) -> Scenario:
        return getattr(importlib.import_module(module_name), load_function)(name)

    return ScenarioCollection(prefix, names, load)


@dataclass(frozen=True, slots=True)
class ScenarioInfo:
    """A summary of one available scenario.

    Attributes:
        name: The name `load_scenario` accepts.
        title: Human title.
        parties: Party names in order.
        issues: Issue names in order.
        outcomes: Number of outcomes in the space.
        path: The file it is read from.
    """

    name: str
    title: str
    parties: tuple[str, ...]
    issues: tuple[str, ...]
    outcomes: int
    path: str


def data_directory() -> Path:
    """The folder of shipped scenario files."""
    return Path(str(resources.files("parley.scenarios") / "data"))


def shipped_scenario_names() -> list[str]:
    """Names of the shipped YAML scenarios (file stems under the data folder), sorted."""
    return sorted(path.stem for path in data_directory().glob("*.yaml"))


MULTIPARTY_FOLDER = "multiparty"
"""The folder under `data/` holding the `multiparty/` collection (parley YAML files; README.md there
says who wrote them and what each one's acceptance rule lets through)."""


def multiparty_directory() -> Path:
    """The folder of the shipped multi-party scenarios (the `multiparty/` collection)."""
    return data_directory() / MULTIPARTY_FOLDER


def multiparty_scenario_names() -> list[str]:
    """Names in the `multiparty/` collection (file stems, without the prefix), sorted."""
    return sorted(path.stem for path in multiparty_directory().glob("*.yaml"))


def load_multiparty_scenario(name: str) -> Scenario:
    """One scenario of the `multiparty/` collection, named "multiparty/<name>" once loaded.

    Args:
        name: A file stem from `multiparty_scenario_names` (no prefix, no path).

    Raises:
        ScenarioError: not one of the shipped names (with the closest one when there is one).
    """
    known = multiparty_scenario_names()
    if name not in known:  # a name, never a path: "../casino" and the like end here
        hint = _did_you_mean(name, known)
        raise ScenarioError(f"unknown multiparty scenario {_shown(name)}{hint}; shipped: {', '.join(known)}")
    scenario = validate_file(multiparty_directory() / f"{name}.yaml")
    return dataclasses.replace(scenario, name=f"{MULTIPARTY_FOLDER}/{name}")


_SHOWN_CHARACTERS = 80


def _shown(name: str) -> str:
    """The name as an error quotes it: repr (so invisible characters show) and at most 80 characters."""
    if len(name) <= _SHOWN_CHARACTERS:
        return repr(name)
    return f"{name[:_SHOWN_CHARACTERS]!r}… ({len(name):,} characters)"


def _did_you_mean(name: str, known: list[str]) -> str:
    close = difflib.get_close_matches(name[: _SHOWN_CHARACTERS * 2], known, n=1, cutoff=0.6)
    return f" (did you mean {close[0]!r}?)" if close else ""


def load_scenario(name_or_path: str | Path, *, format: str | None = None) -> Scenario:
    """A shipped scenario by name ("casino", "lamen/hotel"), or the scenario a file or folder holds.

    A path is read in its detected format (`parley.scenarios.sources.detect_format`): a parley YAML
    file, a GENIUS domain file or folder, a GeniusWeb profile or folder, an LLM-Deliberation or
    TextArena game folder. "FORMAT:PATH" (e.g. "genius:my/domain") or `format` names the format.

    Args:
        name_or_path: A shipped name, a path, or "FORMAT:PATH".
        format: The format of a path (one of `sources.FORMATS`; None: detect it).

    Raises:
        ScenarioError: no such scenario, file or folder, or the source is invalid.
    """
    from parley.scenarios.sources import is_path_like, load_path, split_reference

    text = str(name_or_path)
    prefixed, rest = split_reference(text)
    if format is not None or prefixed is not None or isinstance(name_or_path, Path) or is_path_like(text):
        return load_path(rest, format=format or prefixed)
    prefix, _, tail = text.partition("/")
    for collection in collections():
        if tail and prefix == collection.prefix:
            return collection.load(tail)
    if text in shipped_scenario_names():
        return validate_file(data_directory() / f"{text}.yaml")
    if "/" in text or os.sep in text:  # a path rather than a name: say so, not the list of names
        raise ScenarioError("no such file or folder, nor a shipped scenario", source=text)
    raise ScenarioError(
        f"unknown scenario {text!r}; expected a file or folder path or one of: {', '.join(scenario_names())}"
    )


def scenario_names() -> list[str]:
    """Every name `load_scenario` accepts besides paths: shipped files, then "<prefix>/<name>"."""
    names = shipped_scenario_names()
    for collection in collections():
        names += [f"{collection.prefix}/{name}" for name in collection.names()]
    return names


def list_scenarios() -> list[ScenarioInfo]:
    """Every shipped scenario (YAML files, then each collection's), loaded and summarised."""
    return [describe(load_scenario(name), name) for name in scenario_names()]


def describe(scenario: Scenario, name: str | None = None) -> ScenarioInfo:
    """The summary of a loaded scenario."""
    return ScenarioInfo(
        name=name or scenario.name,
        title=scenario.title,
        parties=scenario.party_names,
        issues=scenario.space.names,
        outcomes=scenario.space.size,
        path=scenario.source or "",
    )
