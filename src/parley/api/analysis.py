"""Analyse a scenario's outcome space from Python: `analyze`, and the `AnalysisReport` that shows as
`parley analyze`'s tables (Pareto frontier, Nash, Kalai–Smorodinsky and max-welfare packages)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from rich.console import Group
from rich.jupyter import JupyterMixin

from parley.api._shared import as_scenario, plain_text
from parley.errors import ScenarioError

if TYPE_CHECKING:
    from parley.domain.analysis import OutcomeAnalysis
    from parley.domain.issues import Value
    from parley.scenarios.model import Scenario


@dataclass(frozen=True, slots=True, repr=False)
class AnalysisReport(JupyterMixin):
    """A scenario's outcome space analysed. Solutions are over the outcomes every party accepts (each at
    or above its BATNA), on utilities normalised to [0, 1] per party (0 at the BATNA, 1 at the best).

    Attributes:
        scenario: The scenario analysed; `scenario.analysis` holds the arrays behind every figure.
    """

    scenario: Scenario

    @property
    def analysis(self) -> OutcomeAnalysis:
        """The numpy-backed analysis (utility points, frontier indices, solution indices)."""
        return self.scenario.analysis

    @property
    def size(self) -> int:
        """Outcomes in the space."""
        return self.scenario.space.size

    @property
    def frontier(self) -> list[dict[str, Value]]:
        """The Pareto-optimal outcomes, as packages (issue → value)."""
        space = self.scenario.space
        return [space.outcome(int(index)) for index in self.analysis.frontier]

    @property
    def nash(self) -> dict[str, Value] | None:
        """The Nash bargaining package (None: no outcome is acceptable to every party)."""
        return self._package(self.analysis.nash)

    @property
    def kalai(self) -> dict[str, Value] | None:
        """The Kalai–Smorodinsky package (None: no outcome is acceptable to every party)."""
        return self._package(self.analysis.kalai)

    @property
    def max_welfare(self) -> dict[str, Value] | None:
        """The package of highest summed normalised utility (None: none acceptable to every party)."""
        return self._package(self.analysis.max_welfare)

    def utilities(self, outcome: Mapping[str, Value]) -> dict[str, float]:
        """Each party's utility of outcome, by party.

        Raises:
            ValueError: outcome is not a package of this space.
        """
        self.scenario.space.validate(outcome)
        values = self.analysis.utilities_of(outcome)
        return {name: float(value) for name, value in zip(self.scenario.party_names, values, strict=True)}

    def _package(self, index: int | None) -> dict[str, Value] | None:
        return None if index is None else self.scenario.space.outcome(index)

    def __rich__(self) -> Group:
        from parley.api.tables import analysis_renderables

        return Group(*analysis_renderables(self.scenario))

    def __str__(self) -> str:
        return plain_text(self)

    def __repr__(self) -> str:
        return (
            f"<AnalysisReport {self.scenario.name}: {self.size:,} outcomes, "
            f"{self.analysis.frontier.size:,} on the Pareto frontier>"
        )


def analyze(scenario: Scenario | str | Path) -> AnalysisReport:
    """Analyse scenario's outcome space: Pareto frontier and bargaining solutions.

    Args:
        scenario: A `Scenario`, a shipped scenario's name, or a scenario file's path.

    Raises:
        ScenarioError: an unknown scenario, an invalid file, or a space too large to enumerate.
    """
    analysed = as_scenario(scenario)
    if not analysed.space.fits_in_memory():
        raise ScenarioError(
            f"{analysed.name} has {analysed.space.size:,} outcomes, too many to enumerate for analysis"
        )
    _ = analysed.analysis.frontier  # computed now, so the report is ready to show
    return AnalysisReport(analysed)
