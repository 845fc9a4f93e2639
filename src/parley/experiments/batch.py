"""The batch layer under tournaments and experiments: a task function mapped over task specs in this
process, in local worker processes or on a Dask cluster, each result stored durably as it arrives, so
a stopped batch resumes where it left off with no task lost and none stored twice.

A task is a picklable spec with a stable, unique `key`; its function is module-level (workers import
it) and returns the task's rows, JSON-able dicts. Only the driver writes, a whole task at a time, so a
task is stored once however many workers ran it (a Dask worker that dies has its tasks run again).
The stores are in `parley.experiments.task_store`.
"""

from __future__ import annotations

import contextlib
import itertools
import multiprocessing
import os
import signal
import sys
import threading
from collections.abc import Callable, Generator, Iterator, Mapping, Sequence
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, wait
from contextlib import AbstractContextManager, contextmanager
from dataclasses import asdict, dataclass, fields, is_dataclass
from multiprocessing.process import BaseProcess
from types import FrameType
from typing import TYPE_CHECKING, Any, Generic, Protocol, TypeVar, cast

from parley.errors import ParleyError, ScenarioError
from parley.experiments.task_store import MemoryStore, Result, Row, TaskStore

if TYPE_CHECKING:
    from distributed import Client

CONNECT_SECONDS = 10.0
"""How long to wait for a Dask scheduler to answer before giving up."""


class Task(Protocol):
    """A picklable spec of one unit of work, with a key unique and stable across runs."""

    @property
    def key(self) -> str:
        """Unique id of the task inside its batch (stored with its rows; used to resume)."""
        ...


TaskT = TypeVar("TaskT", bound=Task)


def dataclass_key(spec: object) -> str:
    """A key for a dataclass spec: its field values joined by "|" (stable across processes and runs).

    Raises:
        TypeError: spec is not a dataclass instance.
    """
    if not is_dataclass(spec) or isinstance(spec, type):
        raise TypeError(f"expected a dataclass instance, got {type(spec).__name__}")
    return "|".join(str(getattr(spec, f.name)) for f in fields(spec))


SpecT = TypeVar("SpecT")
RecordT = TypeVar("RecordT")


@dataclass(frozen=True, slots=True)
class Keyed(Generic[SpecT]):
    """A spec with its key, so a spec type with no `key` of its own can be a task."""

    key: str
    spec: SpecT


@dataclass(frozen=True, slots=True)
class _OnSpec(Generic[SpecT]):
    """function applied to a `Keyed` task's spec (picklable when function is module-level)."""

    function: Callable[[SpecT], list[Row]]

    def __call__(self, task: Keyed[SpecT]) -> list[Row]:
        return self.function(task.spec)


def record_row(record: object) -> Row:
    """A dataclass record as a row (its fields, recursively; tuples become lists in JSON).

    Raises:
        TypeError: record is not a dataclass instance.
    """
    if not is_dataclass(record) or isinstance(record, type):
        raise TypeError(f"expected a dataclass instance, got {type(record).__name__}")
    return asdict(record)


def record_from_row(kind: type[RecordT], row: Mapping[str, Any]) -> RecordT:
    """The dataclass record a row was made from by `record_row` (lists in tuple fields are tuples again).

    Raises:
        TypeError: the row does not fit kind's fields.
    """
    values: dict[str, Any] = {}
    for item in fields(kind):  # pyright: ignore[reportArgumentType]
        if item.name not in row:
            continue
        value, annotation = row[item.name], str(item.type)
        if annotation.startswith("tuple") and isinstance(value, list):
            value = _tuples(value)
        values[item.name] = value
    return kind(**values)


def _tuples(value: object) -> object:
    return tuple(_tuples(item) for item in value) if isinstance(value, list) else value  # pyright: ignore[reportUnknownVariableType]


class WorkerLost(ParleyError):
    """The workers or the Dask scheduler went away and the batch cannot go on; the store holds whole
    tasks only, and the same command resumes."""


class Store(Protocol):
    """Where a batch's results go: recovered before the batch, written whole tasks at a time."""

    def recover(self) -> set[str]:
        """Make the store whole after a crash and return the keys of the tasks it holds."""
        ...

    def store(self, results: Sequence[Result]) -> None:
        """Append finished tasks durably, in one write."""
        ...

    def writing(self) -> AbstractContextManager[None]:
        """Hold the store for this process while the batch runs."""
        ...


# -- stopping -------------------------------------------------------------------------------------------


class Interrupted(KeyboardInterrupt):
    """SIGINT or SIGTERM stopped the batch: the workers are gone and every stored task is whole.

    Attributes:
        signum: The signal that arrived.
    """

    def __init__(self, signum: int) -> None:
        super().__init__(signal.Signals(signum).name)
        self.signum = signum


class StopSignals:
    """While entered (in the main thread): SIGINT and SIGTERM raise `Interrupted`.

    Inside `shield()` a signal is held until the shielded block ends, so a batch of results is
    stored whole. Signals the process was told to ignore stay ignored.
    """

    _SIGNALS = (signal.SIGINT, signal.SIGTERM)

    def __init__(self) -> None:
        self._previous: dict[int, Any] = {}
        self._pending: int | None = None
        self._shielded = 0

    def __enter__(self) -> StopSignals:
        if threading.current_thread() is threading.main_thread():
            for signum in self._SIGNALS:
                if signal.getsignal(signum) is not signal.SIG_IGN:
                    self._previous[signum] = signal.signal(signum, self._arrived)
        return self

    def __exit__(self, *exc_info: object) -> None:
        for signum, previous in self._previous.items():
            signal.signal(signum, previous if previous is not None else signal.SIG_DFL)
        self._previous.clear()

    def _arrived(self, signum: int, frame: FrameType | None) -> None:
        if self._shielded:
            self._pending = signum
            return
        raise Interrupted(signum)

    @contextmanager
    def shield(self) -> Generator[None]:
        """Hold stop signals until the block ends, then raise `Interrupted` if one came."""
        self._shielded += 1
        try:
            yield
        finally:
            self._shielded -= 1
        if not self._shielded and self._pending is not None:
            signum, self._pending = self._pending, None
            raise Interrupted(signum)


def start_worker() -> None:
    """Pool worker set-up: the parent alone decides when workers stop, and they never outlive it."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C reaches the whole group; the parent stops us
    signal.signal(signal.SIGTERM, signal.SIG_DFL)  # not the parent's handler, inherited by fork
    if sys.platform == "linux":  # even if the parent is SIGKILLed: the kernel sends SIGTERM
        import ctypes

        with contextlib.suppress(OSError, AttributeError):
            ctypes.CDLL(None, use_errno=True).prctl(1, signal.SIGTERM)  # PR_SET_PDEATHSIG
        if os.getppid() == 1:  # the parent died before the request took hold
            os._exit(1)


# -- running --------------------------------------------------------------------------------------------


def run_many(function: Callable[[TaskT], list[Row]], tasks: Sequence[TaskT]) -> list[Result]:
    """Run function on each task in turn (in a worker): each task's key with its rows."""
    return [(task.key, function(task)) for task in tasks]


def _chunks(tasks: Sequence[TaskT], size: int) -> Iterator[Sequence[TaskT]]:
    for start in range(0, len(tasks), size):
        yield tasks[start : start + size]


def _chunk_size(tasks: int, workers: int) -> int:
    """Tasks sent to a worker at a time: about eight chunks per worker, at most 64 tasks each."""
    return max(1, min(64, tasks // max(1, workers * 8)))


def run_tasks(
    tasks: Sequence[TaskT],
    function: Callable[[TaskT], list[Row]],
    store: Store,
    *,
    jobs: int = 1,
    scheduler: str | None = None,
    on_progress: Callable[[int], None] | None = None,
) -> None:
    """Run function on the tasks not yet in the store, storing each chunk of results as it finishes.

    Args:
        tasks: What to run (a key given twice runs once).
        function: Module-level function from a task to its rows.
        store: Where results go; it is recovered first.
        jobs: Worker processes on this machine (1 runs in this process).
        scheduler: Address of a Dask distributed scheduler to run on instead (tcp://host:port).
        on_progress: Called with the number of tasks just finished (first with those already stored).

    Raises:
        Interrupted: SIGINT or SIGTERM arrived (called from the main thread); the workers were
            stopped and the store holds whole tasks only.
        ScenarioError: another process is writing to the same store, the store is another
            experiment's, or the scheduler cannot be reached.
        WorkerLost: Dask workers kept dying on the same tasks, or the scheduler went away.
    """
    with store.writing(), StopSignals() as stop:
        done = store.recover()
        todo = list({task.key: task for task in tasks if task.key not in done}.values())
        already = len({task.key for task in tasks}) - len(todo)
        del done
        if on_progress is not None and already:
            on_progress(already)
        stored: set[str] = set()

        def record(results: list[Result]) -> None:
            fresh = [(key, rows) for key, rows in results if key not in stored]  # once per key, whatever ran
            with stop.shield():
                store.store(fresh)
                stored.update(key for key, _ in fresh)
                if on_progress is not None and fresh:
                    on_progress(len(fresh))

        if scheduler is not None:
            _run_dask(todo, function, scheduler, record)
        elif jobs <= 1:
            for chunk in _chunks(todo, _chunk_size(len(todo), jobs)):
                record(run_many(function, chunk))
        else:
            _run_pool(todo, function, jobs, record)


def map_tasks(
    tasks: Sequence[TaskT],
    function: Callable[[TaskT], list[Row]],
    store: TaskStore | MemoryStore | None = None,
    *,
    jobs: int = 1,
    scheduler: str | None = None,
    on_progress: Callable[[int], None] | None = None,
) -> list[list[Row]]:
    """Run every task (resuming from store) and return each task's stored rows, in task order.

    The rows are always read back from the store, so a batch that was stopped and resumed gives
    exactly what an uninterrupted one gives. Without a store they are kept in memory.

    Raises:
        As `run_tasks`.
    """
    target = store if store is not None else MemoryStore()
    run_tasks(tasks, function, target, jobs=jobs, scheduler=scheduler, on_progress=on_progress)
    found = target.results({task.key for task in tasks})
    return [found[task.key] for task in tasks]


def map_specs(
    specs: Sequence[SpecT],
    function: Callable[[SpecT], list[Row]],
    store: TaskStore | MemoryStore | None = None,
    *,
    key: Callable[[SpecT], str] = dataclass_key,
    jobs: int = 1,
    scheduler: str | None = None,
    on_progress: Callable[[int], None] | None = None,
) -> list[list[Row]]:
    """`map_tasks` for specs without a `key` of their own (key gives it; by default their fields).

    Raises:
        As `run_tasks`.
    """
    tasks = [Keyed(key(spec), spec) for spec in specs]
    return map_tasks(tasks, _OnSpec(function), store, jobs=jobs, scheduler=scheduler, on_progress=on_progress)


def _run_pool(
    todo: Sequence[TaskT],
    function: Callable[[TaskT], list[Row]],
    jobs: int,
    record: Callable[[list[Result]], None],
) -> None:
    """Run in local worker processes, a few chunks in flight at a time (results are not held)."""
    before = set(multiprocessing.active_children())
    pool = ProcessPoolExecutor(max_workers=jobs, initializer=start_worker)
    chunks = _chunks(todo, _chunk_size(len(todo), jobs))
    window = 2 * jobs
    try:
        pending: set[Future[list[Result]]] = {
            pool.submit(run_many, function, chunk) for chunk in itertools.islice(chunks, window)
        }
        while pending:
            finished, pending = wait(pending, return_when=FIRST_COMPLETED)
            for future in finished:
                record(future.result())
            pending |= {
                pool.submit(run_many, function, chunk)
                for chunk in itertools.islice(chunks, window - len(pending))
            }
    except BaseException:
        _stop_workers(pool, [p for p in multiprocessing.active_children() if p not in before])
        raise
    pool.shutdown()


def _stop_workers(pool: ProcessPoolExecutor, workers: Sequence[BaseProcess]) -> None:
    """Drop the queued chunks and end the workers now (their running tasks are lost, not stored)."""
    pool.shutdown(wait=False, cancel_futures=True)
    for worker in workers:
        worker.terminate()
    for worker in workers:
        worker.join(timeout=5)
        if worker.is_alive():
            worker.kill()
            worker.join()


_SCHEMES = ("tcp", "tls", "inproc")
"""The Dask transports parley runs on (inproc: a cluster inside this process, for tests)."""


def check_address(scheduler: str) -> None:
    """Refuse what is no scheduler address (an empty one would make Dask start a cluster here).

    Raises:
        ScenarioError: not SCHEME://HOST:PORT with a known scheme and a port from 1 to 65535.
    """
    from distributed.comm.addressing import parse_address, parse_host_port

    expected = "expected an address like tcp://HOST:PORT"
    if not scheduler.strip() or not scheduler.isprintable():
        raise ScenarioError(f"--scheduler {scheduler!r} is no Dask scheduler address; {expected}")
    try:
        scheme, location = parse_address(scheduler)
        if scheme not in _SCHEMES:
            raise ValueError(f"unknown scheme {scheme!r}, not one of {', '.join(_SCHEMES)}")
        port = parse_host_port(location)[1] if scheme != "inproc" else 1
    except (ValueError, TypeError) as error:
        reason = " ".join(str(error).split())
        raise ScenarioError(
            f"--scheduler {scheduler!r} is no Dask scheduler address ({reason}); {expected}"
        ) from None
    if not 0 < int(port) < 65536:
        raise ScenarioError(f"--scheduler {scheduler!r}: port {port} is out of range; {expected}")


def connect(scheduler: str, *, timeout: float | None = None) -> Client:
    """A Dask client of the scheduler at this address.

    Raises:
        ScenarioError: the address is malformed, or no scheduler answers there within timeout seconds
            (default: `CONNECT_SECONDS`).
    """
    from distributed import Client

    check_address(scheduler)
    try:
        return Client(scheduler, timeout=timeout or CONNECT_SECONDS, set_as_default=False)
    except (OSError, ValueError, TypeError) as error:  # TimeoutError is an OSError
        reason = " ".join(str(error).split()) or type(error).__name__
        raise ScenarioError(f"cannot reach the Dask scheduler {scheduler!r}: {reason}") from None


def _run_dask(
    todo: Sequence[TaskT],
    function: Callable[[TaskT], list[Row]],
    scheduler: str,
    record: Callable[[list[Result]], None],
) -> None:
    """Run on a Dask cluster; a dying worker's chunks are run again elsewhere by the scheduler."""
    from distributed import KilledWorker
    from distributed import as_completed as dask_completed

    with connect(scheduler) as client:
        threads = sum(cast("dict[str, int]", client.nthreads()).values()) or 1
        chunks = _chunks(todo, _chunk_size(len(todo), threads))
        try:
            submitted = [client.submit(run_many, function, list(c), pure=False) for c in chunks]
            futures = dask_completed(submitted, loop=client.loop)
            for future in futures:
                record(future.result())
                future.release()  # the cluster may forget this chunk's rows now
        except KilledWorker as error:
            raise WorkerLost(
                f"Dask workers died running the same tasks again and again ({error}); "
                "the store holds whole tasks only: run the same command again to resume"
            ) from None
        except OSError as error:  # CommClosedError and the like: the scheduler went away
            raise WorkerLost(
                f"lost the Dask scheduler {scheduler} ({' '.join(str(error).split())}); "
                "the store holds whole tasks only: run the same command again to resume"
            ) from None
