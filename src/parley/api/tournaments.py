"""Run a tournament from Python: `run_tournament`, and the `TournamentReport` that shows as
`parley tournament`'s table and gives its rows (and, where pandas is installed, a DataFrame)."""

from __future__ import annotations

import importlib
import tempfile
from collections.abc import Generator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from rich.console import Group, RenderableType
from rich.jupyter import JupyterMixin
from rich.text import Text

from parley.api._shared import plain_text

if TYPE_CHECKING:
    from parley.experiments.tournament import AgentSummary


@dataclass(frozen=True, slots=True, repr=False)
class TournamentReport(JupyterMixin):
    """A finished tournament: one row per party per game, and a summary per agent.

    Attributes:
        rows: The result rows, one per party per game, with the fields of `results.csv`
            (`parley.experiments.tournament.ROW_FIELDS`); a distance with no value is None.
        summaries: Mean ± 95% CI per agent over its played games, best normalised utility first.
        games: Games planned (and played).
    """

    rows: tuple[Mapping[str, Any], ...]
    summaries: tuple[AgentSummary, ...]
    games: int

    @property
    def failed_games(self) -> int:
        """Games that failed (set-up errors, protocol violations): left out of the summaries' means."""
        from parley.experiments.tournament import is_failed

        return len({row["game"] for row in self.rows if is_failed(dict(row))})

    def to_dataframe(self) -> Any:
        """The rows as a pandas DataFrame, with the columns of `results.csv` in its order.

        Raises:
            ImportError: pandas is not installed (parley does not depend on it).
        """
        try:  # (imported by name: pandas is optional, and no type checker needs to know it)
            pandas = importlib.import_module("pandas")
        except ImportError:
            raise ImportError(
                "to_dataframe needs pandas, which parley does not install: pip install pandas "
                "(the rows are in .rows without it)"
            ) from None
        from parley.experiments.tournament import ROW_FIELDS

        return pandas.DataFrame([dict(row) for row in self.rows], columns=list(ROW_FIELDS))

    def __rich__(self) -> Group:
        from parley.api.tables import summary_table

        parts: list[RenderableType] = [summary_table(self.summaries)]
        failed = self.failed_games
        if failed:
            first = next(str(s.first_error) for s in self.summaries if s.first_error)
            parts.append(
                Text(f"{failed:,} of {self.games:,} games failed and are left out of the means, e.g. {first}")
            )
        return Group(*parts)

    def __str__(self) -> str:
        return plain_text(self)

    def __repr__(self) -> str:
        agents = ", ".join(s.agent for s in self.summaries)
        return f"<TournamentReport {self.games:,} games, {self.failed_games:,} failed; agents {agents}>"


def run_tournament(
    agents: Sequence[str],
    scenarios: Sequence[str | Path],
    *,
    repetitions: int = 1,
    seed: int = 0,
    self_play: bool = False,
    jobs: int = 1,
    out: Path | None = None,
) -> TournamentReport:
    """Play every pairing of agents on every scenario, repetitions times, as `parley tournament` does.

    Args:
        agents: Agent names: built-in, registered in this process (`register_agent`; with jobs > 1
            only where worker processes are forked, as on Linux), installed plugins, or
            "package.module:factory" specs.
        scenarios: Shipped scenario names or scenario file paths.
        repetitions: Games per pairing and scenario.
        seed: Base seed.
        self_play: Also pair each agent with itself.
        jobs: Worker processes (1: play in this process).
        out: Folder to keep results.jsonl and results.csv in (the same call resumes an interrupted
            tournament); by default a temporary folder, removed afterwards.

    Raises:
        ScenarioError: an unknown agent or scenario, a plugin that cannot be loaded, nothing to play,
            or another process writing to out.
        ValueError: jobs below 1.
        TypeError: agents or scenarios given as one string instead of a list.
        OSError: out cannot be written.
    """
    from parley.experiments.tournament import ResultStore, TournamentSpec, plan, run_games, summarize

    for label, given in (("agents", agents), ("scenarios", scenarios)):
        if isinstance(given, str | Path):
            raise TypeError(f"{label} must be a list, not the single {type(given).__name__} {str(given)!r}")
    if jobs < 1:
        raise ValueError(f"jobs must be at least 1, got {jobs}")
    spec = TournamentSpec(tuple(agents), tuple(str(s) for s in scenarios), repetitions, seed, self_play)
    games = plan(spec)
    keys = {game.key for game in games}
    with _folder(out) as folder:
        store = ResultStore(folder)
        run_games(games, store, jobs=jobs)
        rows = tuple(row for row in store.iter_rows() if row["game"] in keys)
        if out is not None:
            store.write_csv()
    return TournamentReport(rows, tuple(summarize(rows)), len(games))


@contextmanager
def _folder(out: Path | None) -> Generator[Path]:
    if out is not None:
        yield out
        return
    with tempfile.TemporaryDirectory(prefix="parley-tournament-") as folder:
        yield Path(folder)
