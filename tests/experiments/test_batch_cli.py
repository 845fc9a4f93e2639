"""The experiments on the batch layer end to end (issue 20): a run killed with SIGKILL resumes from its
store to a byte-identical report, a run on a loopback Dask cluster survives a worker killed mid-way
with every run stored exactly once, and a bad scheduler is one line."""

from __future__ import annotations

import contextlib
import json
import signal
import subprocess
import sys
import time
from collections import Counter
from collections.abc import Generator
from pathlib import Path

import psutil
import pytest
from typer.testing import CliRunner

from parley.cli.app import app
from parley.experiments import batch, task_store

pytestmark = pytest.mark.e2e
PARLEY = [sys.executable, "-c", "from parley.cli.app import main; main()"]
RUNS = 6
SESSIONS = 3 * 3 * RUNS  # P1 systems x partners x seeds (no tournament)


@pytest.fixture(scope="module")
def tuned(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A tuned-values file from a one-seed grid search (the experiment refuses to run without one)."""
    path = tmp_path_factory.mktemp("tuned") / "tuned.json"
    command = [*PARLEY, "experiment", "astra", "--tune", "--runs", "1", "--jobs", "1", "--tuned", str(path)]
    done = subprocess.run(command, capture_output=True, text=True, timeout=600, check=False)
    assert done.returncode == 0, done.stderr
    return path


def _astra(tuned: Path, out: Path, *options: str) -> list[str]:
    return [
        *PARLEY, "experiment", "astra", "--runs", str(RUNS), "--tournament-seeds", "0",
        "--tuned", str(tuned), "--out", str(out), "--quiet", *options,
    ]  # fmt: skip


def _stored(store: Path) -> Counter[str]:
    """How often each task key is stored (whole lines only: the header is skipped)."""
    path = store / task_store.STORE_FILE
    if not path.exists():
        return Counter()
    lines = path.read_bytes().splitlines(keepends=True)[1:]
    return Counter(json.loads(line)["key"] for line in lines if line.endswith(b"\n"))


def _wait_until_stored(store: Path, process: subprocess.Popen[str], seconds: float = 120) -> int:
    deadline = time.monotonic() + seconds
    while not _stored(store) and process.poll() is None:
        assert time.monotonic() < deadline, f"nothing stored in {seconds:.0f} s"
        time.sleep(0.02)
    return sum(_stored(store).values())


@contextlib.contextmanager
def _processes() -> Generator[list[subprocess.Popen[str]]]:
    """Processes started by a test, killed (with their children) whatever happens."""
    started: list[subprocess.Popen[str]] = []
    try:
        yield started
    finally:
        for process in started:
            with contextlib.suppress(psutil.NoSuchProcess):
                for child in psutil.Process(process.pid).children(recursive=True):
                    child.kill()
            if process.poll() is None:
                process.kill()
            process.communicate(timeout=30)  # (closes its pipes)


def test_a_killed_run_resumes_to_the_same_report(tmp_path: Path, tuned: Path) -> None:
    reference, resumed = tmp_path / "reference" / "astra.md", tmp_path / "resumed" / "astra.md"
    store = tmp_path / "store"
    done = subprocess.run(
        _astra(tuned, reference, "--jobs", "1"), capture_output=True, text=True, check=False
    )
    assert done.returncode == 0, done.stderr
    assert not (reference.parent / "astra.store").exists()  # the default store goes once the report is out
    with _processes() as started:
        process = subprocess.Popen(
            _astra(tuned, resumed, "--jobs", "1", "--store", str(store)),
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
            text=True,
        )
        started.append(process)
        stored = _wait_until_stored(store, process)
        assert process.poll() is None, "the run ended before it could be killed"
        process.send_signal(signal.SIGKILL)
        process.wait(timeout=30)
    assert 0 < stored < SESSIONS and not resumed.exists()
    done = subprocess.run(
        _astra(tuned, resumed, "--jobs", "1", "--store", str(store)),
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    counts = _stored(store)
    assert len(counts) == SESSIONS and set(counts.values()) == {1}
    assert resumed.read_bytes() == reference.read_bytes()
    runs_csv = "astra_runs.csv"
    assert (resumed.parent / runs_csv).read_bytes() == (reference.parent / runs_csv).read_bytes()
    assert (store / task_store.STORE_FILE).exists()  # a --store folder is kept


def test_a_stop_signal_ends_the_workers_in_one_line(tmp_path: Path, tuned: Path) -> None:
    store = tmp_path / "store"
    with _processes() as started:
        process = subprocess.Popen(
            _astra(tuned, tmp_path / "astra.md", "--jobs", "2", "--store", str(store)),
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
            text=True,
            start_new_session=True,
        )
        started.append(process)
        _wait_until_stored(store, process)
        assert process.poll() is None, "the run ended before it could be stopped"
        workers = psutil.Process(process.pid).children(recursive=True)
        process.send_signal(signal.SIGTERM)
        _, stderr = process.communicate(timeout=60)
        assert process.returncode == 128 + signal.SIGTERM
        (line,) = stderr.strip().splitlines()
        assert "stopped by SIGTERM" in line and "resume" in line
        _, alive = psutil.wait_procs(workers, timeout=10)
        assert not alive
    assert set(_stored(store).values()) == {1}


def _quietly(command: list[str]) -> subprocess.Popen[str]:
    return subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, text=True)


def _dask_cluster(
    folder: Path, started: list[subprocess.Popen[str]]
) -> tuple[str, list[subprocess.Popen[str]]]:
    """A scheduler and two single-threaded worker processes on 127.0.0.1, random ports."""
    dask = Path(sys.executable).with_name("dask")
    if not dask.exists():
        pytest.skip("the dask command is not installed")
    scheduler_file = folder / "scheduler.json"
    scheduler = [str(dask), "scheduler", "--host", "127.0.0.1", "--port", "0", "--no-dashboard"]
    started.append(_quietly([*scheduler, "--scheduler-file", str(scheduler_file)]))
    worker = [str(dask), "worker", "--scheduler-file", str(scheduler_file), "--host", "127.0.0.1"]
    workers = [
        _quietly([*worker, "--no-nanny", "--nthreads", "1", "--no-dashboard", "--name", f"worker-{i}"])
        for i in range(2)
    ]
    started.extend(workers)
    deadline = time.monotonic() + 60
    while not scheduler_file.exists() or not scheduler_file.read_text(encoding="utf-8").strip():
        assert time.monotonic() < deadline, "the scheduler did not start"
        time.sleep(0.05)
    address = str(json.loads(scheduler_file.read_text(encoding="utf-8"))["address"])
    from distributed import Client

    with Client(address, timeout=30, set_as_default=False) as client:
        client.wait_for_workers(2, timeout=60)
    return address, workers


@pytest.mark.slow
def test_a_run_on_a_dask_cluster_survives_a_dead_worker(tmp_path: Path, tuned: Path) -> None:
    pytest.importorskip("distributed")
    store = tmp_path / "store"
    with _processes() as started:
        address, workers = _dask_cluster(tmp_path, started)
        process = subprocess.Popen(
            _astra(tuned, tmp_path / "astra.md", "--scheduler", address, "--store", str(store)),
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
            text=True,
        )
        started.append(process)
        stored = _wait_until_stored(store, process)
        assert process.poll() is None and workers[0].poll() is None, "ended before a worker could be killed"
        workers[0].send_signal(signal.SIGKILL)  # mid-way: its chunk in progress must run again elsewhere
        _, stderr = process.communicate(timeout=120)
    assert process.returncode == 0, stderr
    assert "Traceback" not in stderr
    counts = _stored(store)
    assert 0 < stored < SESSIONS
    assert len(counts) == SESSIONS and set(counts.values()) == {1}, "a run is missing or stored twice"
    assert (tmp_path / "astra.md").exists()


runner = CliRunner()


@pytest.mark.parametrize(
    ("address", "expected"),
    [
        ("nonsense://127.0.0.1:8786", "is no Dask scheduler address"),
        ("tcp://127.0.0.1", "is no Dask scheduler address"),
        ("", "is no Dask scheduler address"),
        ("tcp://127.0.0.1:1", "cannot reach the Dask scheduler"),
    ],
)
@pytest.mark.parametrize("experiment", ["gaia", "promediate"])
def test_a_bad_scheduler_is_one_line(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, experiment: str, address: str, expected: str
) -> None:
    pytest.importorskip("distributed")
    monkeypatch.setattr(batch, "CONNECT_SECONDS", 0.5)
    options = ["--seeds", "1"] if experiment == "gaia" else ["--runs", "1", "--deliberation-seeds", "0"]
    out = tmp_path / "report.md"
    result = runner.invoke(
        app,
        ["experiment", experiment, *options, "--out", str(out), "--scheduler", address, "--quiet"],
        env={"COLUMNS": "200"},
    )
    assert result.exit_code in (1, 2), result.output
    (line,) = result.stderr.strip().splitlines()
    assert line.startswith("error:") and expected in line
    assert "Traceback" not in result.output and not out.exists()


def test_the_experiments_offer_the_batch_options() -> None:
    for experiment in ("astra", "gaia", "promediate"):
        result = runner.invoke(app, ["experiment", experiment, "--help"], env={"COLUMNS": "200"})
        assert result.exit_code == 0
        assert all(option in result.stdout for option in ("--jobs", "--scheduler", "--store", "--quiet"))


def test_a_store_of_other_options_is_refused_in_one_line(tmp_path: Path) -> None:
    store = tmp_path / "store"
    store.mkdir()
    header = {"parley_batch": 1, "experiment": "gaia", "config": {"seeds": [0, 1], "strategy": "legacy"}}
    (store / task_store.STORE_FILE).write_text(json.dumps(header) + "\n", encoding="utf-8")
    out = tmp_path / "gaia.md"
    result = runner.invoke(
        app,
        ["experiment", "gaia", "--seeds", "1", "--out", str(out), "--store", str(store), "--quiet"],
        env={"COLUMNS": "200"},
    )
    assert result.exit_code == 1, result.output
    (line,) = result.stderr.strip().splitlines()
    assert "made with another configuration" in line and "seeds [0, 1] (now [0])" in line
    assert "another --store" in line and not out.exists()
