"""The run browser's API: the runs under the console's runs folder, one run's record, its plots."""

from __future__ import annotations

import threading
from collections import OrderedDict
from pathlib import Path

from fastapi import FastAPI
from fastapi.responses import Response

from parley.errors import ParleyError
from parley.web.models import Served
from parley.web.routing import READ_ERRORS, SignedInPrincipal, fail
from parley.web.run_details import RunDetail, load_scenario_of, run_detail
from parley.web.run_plots import PLOT_NAMES, consensus_png, outcomes_png, tci_png, utility_png
from parley.web.runs import RunInfo, RunNotFound, list_runs, read_object, read_trajectory, resolve_run

_PLOT_CACHE = 48


class RunSummary(Served):
    """One run of `GET /api/runs`."""

    run_id: str
    kind: str
    title: str
    modified: float
    ratings: int
    rateable: bool

    @classmethod
    def of(cls, info: RunInfo) -> RunSummary:
        """From the browser's listing."""
        return cls(
            run_id=info.run_id,
            kind=info.kind,
            title=info.title,
            modified=info.modified,
            ratings=info.ratings,
            rateable=info.rateable,
        )


class RunList(Served):
    """`GET /api/runs`: every saved run under the runs folder, newest first."""

    root: str
    runs: list[RunSummary]


def _plot(folder: Path, kind: str, name: str) -> bytes:
    """The PNG of plot name of the run in folder.

    Raises:
        RunNotFound: the run has no such plot, or its record or scenario cannot be read.
        ValueError: the plot cannot be drawn (a space too large, an offer outside the space).
    """
    if name not in PLOT_NAMES.get(kind, ()):
        raise RunNotFound(f"a {kind} run has no plot {name[:40]!r}")
    trajectory = read_trajectory(folder)
    if name == "consensus":
        return consensus_png(trajectory)
    if name == "tci":
        return tci_png(trajectory)
    scenario = load_scenario_of(trajectory, read_object(folder / "result.json"))
    if scenario is None:
        raise RunNotFound("this run's scenario is not a shipped one: it cannot be drawn")
    return outcomes_png(scenario, trajectory) if name == "outcomes" else utility_png(scenario, trajectory)


class _Plots:
    """Plots drawn once per run, name and version of the run's files."""

    def __init__(self) -> None:
        self._cache: OrderedDict[tuple[str, str, float], bytes] = OrderedDict()
        self._lock = threading.Lock()

    def get(self, folder: Path, run_id: str, kind: str, name: str) -> bytes:
        stamp = max((p.stat().st_mtime for p in folder.iterdir() if p.is_file()), default=0.0)
        key = (run_id, name, stamp)
        with self._lock:
            if key in self._cache:
                return self._cache[key]
        image = _plot(folder, kind, name)
        with self._lock:
            self._cache[key] = image
            while len(self._cache) > _PLOT_CACHE:
                self._cache.popitem(last=False)
        return image


def add_run_routes(app: FastAPI, runs_dir: Path) -> None:
    """The run browser's API on app, over the runs folder runs_dir."""
    plots = _Plots()

    @app.get("/api/runs")
    def runs(signed_in: SignedInPrincipal) -> RunList:
        """Every saved run (games, mediated conversations, delegate sessions, tournaments), newest first."""
        return RunList(root=str(runs_dir), runs=[RunSummary.of(info) for info in list_runs(runs_dir)])

    @app.get(
        "/api/runs/{run_id:path}/plots/{name}.png",
        response_class=Response,
        responses={**READ_ERRORS, 200: {"content": {"image/png": {}}}},
    )
    def plot(run_id: str, name: str, signed_in: SignedInPrincipal) -> Response:
        """One plot of a run, drawn on the server (PNG)."""
        try:
            folder, kind = resolve_run(runs_dir, run_id)
            image = plots.get(folder, run_id, kind, name)
        except RunNotFound as error:
            fail(404, str(error))
        except ModuleNotFoundError:
            fail(404, "plots need matplotlib: pip install 'parley[plot]'")
        except (ValueError, KeyError, ParleyError) as error:
            fail(422, f"cannot draw {name}: {str(error)[:200]}")
        return Response(image, media_type="image/png", headers={"Cache-Control": "private, max-age=60"})

    @app.get("/api/runs/{run_id:path}", responses=READ_ERRORS)
    def run(run_id: str, signed_in: SignedInPrincipal) -> RunDetail:
        """One run: its summary, transcript, decision traces or tournament table, plots and ratings."""
        try:
            folder, kind = resolve_run(runs_dir, run_id)
            return run_detail(folder, run_id, kind)
        except RunNotFound as error:
            fail(404, str(error))
