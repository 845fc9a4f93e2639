"""The batch options of the `parley experiment` commands (--jobs, --scheduler, --store, --quiet): the
resumable store beside the report, the progress bar, and one-line errors when a batch stops."""

from __future__ import annotations

import contextlib
import os
import signal
import sys
from collections.abc import Callable, Generator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any, NoReturn, TypeVar

import typer

from parley.cli.common import console, fail, report_error
from parley.cli.extras import require_extra
from parley.errors import ParleyError

if TYPE_CHECKING:
    from parley.experiments.task_store import TaskStore

T = TypeVar("T")
Progress = Callable[[int, int], None]
"""Called with (finished, total) as tasks finish."""

SchedulerOption = Annotated[
    str | None,
    typer.Option(
        "--scheduler",
        help="Dask scheduler address (tcp://HOST:PORT): run on its cluster instead of local processes.",
    ),
]
StoreOption = Annotated[
    Path | None,
    typer.Option(
        "--store",
        help="Folder of the resumable run store; a stopped run resumes from it (default: the report's "
        "name + .store beside it, removed once the report is written).",
    ),
]
QuietOption = Annotated[bool, typer.Option("--quiet", help="No progress bar.")]


def default_store(out: Path) -> Path:
    """The store folder beside a report: docs/results/astra.md -> docs/results/astra.store."""
    return out.with_name(f"{out.stem or out.name}.store")


@dataclass(frozen=True, slots=True)
class Batch:
    """How an experiment command runs its batch: where, in how many processes, stored where.

    Attributes:
        experiment: The experiment's name (kept in the store's header).
        out: The report the command writes (the default store sits beside it).
        jobs: Worker processes on this machine.
        scheduler: A Dask scheduler's address to run on instead.
        store: The store folder given with --store (None: the default one, removed at the end).
        quiet: No progress bar (it is off anyway when the output is not a terminal).
    """

    experiment: str
    out: Path
    jobs: int = 1
    scheduler: str | None = None
    store: Path | None = None
    quiet: bool = False

    @property
    def folder(self) -> Path:
        """The store's folder."""
        return self.store if self.store is not None else default_store(self.out)

    def open_store(self, config: Mapping[str, Any]) -> TaskStore:
        """The run store, or a one-line error (a missing dask extra, a folder that cannot be made).

        Args:
            config: Every option that changes what a run stores (a store made with others is refused).
        """
        import parley
        from parley.experiments.batch import check_address
        from parley.experiments.task_store import TaskStore

        if self.scheduler is not None:
            require_extra("dask", "--scheduler")
            try:
                check_address(self.scheduler)
            except ParleyError as error:
                fail(str(error))

        settings = {**config, "parley": parley.__version__}
        try:
            return TaskStore(self.folder, experiment=self.experiment, config=settings)
        except OSError as error:
            fail(f"cannot make the run store {self.folder}: {error.strerror or error}")

    @property
    def hidden(self) -> bool:
        """Whether the progress bar is off: --quiet, or the output is not a terminal."""
        return self.quiet or not console.is_terminal

    def run(self, total: int, work: Callable[[Progress], T]) -> T:
        """work(on_progress) under a progress bar and `guard`."""
        from rich.progress import BarColumn, MofNCompleteColumn, TextColumn, TimeElapsedColumn
        from rich.progress import Progress as Bar

        label = TextColumn(f"{self.experiment} runs")
        columns = (label, BarColumn(), MofNCompleteColumn(), TimeElapsedColumn())
        finished = 0
        with Bar(*columns, console=console, disable=self.hidden) as bar, self.guard(lambda: finished, total):
            task = bar.add_task("runs", total=total)

            def advance(done: int, _total: int) -> None:
                nonlocal finished
                finished = done
                bar.update(task, completed=done)

            return work(advance)

    @contextmanager
    def guard(self, finished: Callable[[], int], total: int) -> Generator[None]:
        """A stop signal, dead workers, an unreachable scheduler or an unwritable store end the
        command with one line (the store holds whole runs only); finished() counts the runs done."""
        from concurrent.futures.process import BrokenProcessPool

        resume = f"{self.folder} holds whole runs only: run the same command again to resume"
        try:
            yield
        except KeyboardInterrupt as stop:
            signum = int(getattr(stop, "signum", signal.SIGINT))  # batch.Interrupted carries the signal
            name = signal.Signals(signum).name
            self._stopped(f"stopped by {name} after {finished():,} of {total:,} runs; {resume}", 128 + signum)
        except BrokenProcessPool:
            fail(
                f"a worker process died (out of memory?) after {finished():,} of {total:,} runs; {resume}", 1
            )
        except ParleyError as error:
            fail(str(error), code=1)
        except OSError as error:
            fail(f"cannot write the run store {self.folder}: {error.strerror or error}", code=1)

    def _stopped(self, message: str, code: int) -> NoReturn:
        """Report a stop in one line and exit; with a local pool at once (see `parley tournament`)."""
        if self.jobs > 1 and self.scheduler is None:
            report_error(message)
            sys.stdout.flush()
            sys.stderr.flush()
            os._exit(code)
        fail(message, code=code)

    def finish(self) -> None:
        """Remove the default store once the report is written (a --store folder is kept)."""
        if self.store is not None:
            return
        from parley.experiments.task_store import STORE_FILE

        with contextlib.suppress(OSError):
            (self.folder / STORE_FILE).unlink()
            self.folder.rmdir()
