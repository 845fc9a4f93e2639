"""The scenarios the console offers for play: every two-party shipped scenario and imported collection
("lamen/hotel"), and the parley YAML files in a folder given to `parley web --scenarios DIR` (what
`parley scenarios import --out` writes), offered as "file/<name>".

A folder's files are read when they change (by modification time and size); a file that is not a
valid two-party scenario is left out with a warning in the log, never offered half-read.
"""

from __future__ import annotations

import logging
import threading
from dataclasses import dataclass
from functools import cache
from pathlib import Path

from parley.errors import ParleyError
from parley.language import Vocabulary
from parley.scenarios.catalog import list_scenarios, load_scenario
from parley.scenarios.loader import validate_file
from parley.scenarios.model import Scenario

__all__ = ["FILE_PREFIX", "ScenarioChoice", "Shelf", "UnknownScenario"]

logger = logging.getLogger(__name__)

FILE_PREFIX = "file/"
MAX_FILES = 200
MAX_FILE_BYTES = 2 * 1024 * 1024


class UnknownScenario(ParleyError):
    """A name the console does not offer for play."""


@dataclass(frozen=True, slots=True)
class ScenarioChoice:
    """A scenario the console offers: bilateral, with the names of its parties."""

    name: str
    title: str
    parties: tuple[str, str]
    issues: tuple[str, ...]
    outcomes: int

    @classmethod
    def of(cls, name: str, scenario: Scenario) -> ScenarioChoice:
        """The choice of a loaded two-party scenario."""
        first, second = scenario.party_names
        return cls(name, scenario.title, (first, second), scenario.space.names, scenario.space.size)


@cache
def _shipped() -> tuple[ScenarioChoice, ...]:
    """The two-party shipped scenarios and imported collections (loaded once per process)."""
    return tuple(
        ScenarioChoice(info.name, info.title, (info.parties[0], info.parties[1]), info.issues, info.outcomes)
        for info in list_scenarios()
        if len(info.parties) == 2
    )


@cache
def _shipped_scenario(name: str) -> Scenario:
    return load_scenario(name)


@dataclass(frozen=True, slots=True)
class _Loaded:
    stamp: tuple[int, int]
    scenario: Scenario | None


class Shelf:
    """What can be played, and the scenario and words of each name.

    Args:
        folder: A folder of parley YAML scenario files to offer besides the shipped ones (or None).
    """

    def __init__(self, folder: Path | None = None) -> None:
        self.folder = folder
        self._files: dict[Path, _Loaded] = {}
        self._words: dict[str, tuple[Scenario, Vocabulary]] = {}
        self._lock = threading.Lock()

    def _file(self, path: Path) -> Scenario | None:
        try:
            status = path.stat()
        except OSError:
            return None
        stamp = (status.st_mtime_ns, status.st_size)
        with self._lock:
            known = self._files.get(path)
        if known is not None and known.stamp == stamp:
            return known.scenario
        scenario: Scenario | None = None
        if status.st_size <= MAX_FILE_BYTES:
            try:
                scenario = validate_file(path)
            except (ParleyError, OSError, ValueError) as error:
                logger.warning("not offered for play: %s: %s", path, error)
        if scenario is not None and len(scenario.parties) != 2:
            scenario = None
        with self._lock:
            self._files[path] = _Loaded(stamp, scenario)
        return scenario

    def _paths(self) -> list[Path]:
        if self.folder is None or not self.folder.is_dir():
            return []
        found = sorted(p for p in self.folder.iterdir() if p.suffix in (".yaml", ".yml") and p.is_file())
        return found[:MAX_FILES]

    def choices(self) -> tuple[ScenarioChoice, ...]:
        """Every scenario that can be played: shipped and collections first, then the folder's files."""
        files = [
            ScenarioChoice.of(FILE_PREFIX + path.stem, scenario)
            for path in self._paths()
            if (scenario := self._file(path)) is not None
        ]
        return (*_shipped(), *files)

    def scenario(self, name: str) -> Scenario:
        """The scenario offered as name.

        Raises:
            UnknownScenario: nothing is offered by that name.
        """
        if name.startswith(FILE_PREFIX) and self.folder is not None:
            stem = name.removeprefix(FILE_PREFIX)
            for path in self._paths():
                if path.stem == stem and (scenario := self._file(path)) is not None:
                    return scenario
        elif name in {choice.name for choice in _shipped()}:
            return _shipped_scenario(name)
        raise UnknownScenario(f"unknown scenario {name[:60]!r}: choose one of the two-party scenarios listed")

    def vocabulary(self, name: str) -> Vocabulary:
        """The words of the scenario offered as name (built once per loaded scenario)."""
        scenario = self.scenario(name)
        with self._lock:
            found = self._words.get(name)
        if found is not None and found[0] is scenario:
            return found[1]
        words = Vocabulary.from_scenario(scenario)
        with self._lock:
            self._words[name] = (scenario, words)
        return words
