"""The rating API: the instruments, a rating of a saved run or of a delegate session, and the CSV export.

A rating is stored with its run (`<runs>/<run>/ratings.jsonl`), under the signed-in principal's
name and the console clock's time. A delegate session lives in the SQLite store; rating it first
exports its verified record (`session.json`, `trajectory.jsonl`, `metrics.json` with GAIA's
metrics) to `<runs>/delegate/<session id>/`, so the report can set ratings beside metrics.
"""

from __future__ import annotations

import re
import threading
from pathlib import Path
from typing import Annotated

from fastapi import FastAPI, Query
from fastapi.responses import Response
from pydantic import BaseModel, ConfigDict, Field, StringConstraints

from parley.errors import ParleyError, ScenarioError
from parley.governance.audit import AuditError
from parley.governance.session import load_runner
from parley.governance.store import SessionStore
from parley.jsonio import dumps
from parley.protocol.clock import Clock
from parley.protocol.events import Trajectory
from parley.web.ratings import (
    INSTRUMENTS,
    Rating,
    append_rating,
    instrument_for,
    latest_ratings,
    new_rating,
    ratings_csv,
    read_ratings,
    walk_ratings,
)
from parley.web.routing import WRITE_ERRORS, SignedInPrincipal, fail
from parley.web.run_details import InstrumentModel, RatingModel, instruments
from parley.web.runs import RunNotFound, resolve_run

_SAFE_NAME = re.compile(r"[^A-Za-z0-9._-]")


class RatingBody(BaseModel):
    """`POST /api/runs/{run}/ratings`: a score per item of the instrument, and an optional comment."""

    model_config = ConfigDict(extra="forbid")
    instrument: Annotated[str, StringConstraints(min_length=1, max_length=40)]
    scores: Annotated[dict[str, int], Field(max_length=20)]
    comment: Annotated[str, StringConstraints(max_length=2000)] = ""


def _export_session(store: SessionStore, session_id: str, folder: Path, clock: Clock) -> None:
    """Write a finished delegate session's verified record to folder.

    Raises:
        ScenarioError: no such session, or it has not ended.
        AuditError: its record does not verify.
    """
    from parley.metrics.gaia import session_metrics

    runner = load_runner(store, session_id, clock=clock)
    if not runner.delegate.machine.terminal:
        raise ScenarioError(f"session {session_id} has not ended yet: rate it once it has")
    events = store.load_events(session_id)
    row = store.load_session(session_id)
    metrics = session_metrics(runner.delegate.config, events).to_json()
    metrics.pop("tci_curve", None)
    files = {
        "session.json": dumps({"kind": "delegate", "session_id": session_id, "config": str(row["config"])}),
        "trajectory.jsonl": Trajectory(list(events)).to_jsonl(versioned=True),
        "metrics.json": dumps(
            metrics,
            no_value={"rounds_to_gate", "rounds_to_complete", "information_gain_per_question"},
            indent=2,
        ),
    }
    folder.mkdir(parents=True, exist_ok=True)
    for name, text in files.items():
        partial = folder / f".{name}.partial"
        partial.write_text(text + ("" if text.endswith("\n") else "\n"), encoding="utf-8")
        partial.replace(folder / name)


def _rate(
    folder: Path, run_id: str, kind: str, body: RatingBody, principal: str, clock: Clock
) -> RatingModel:
    """Store body as principal's rating of the run in folder (of kind), or answer 422/409."""
    instrument = INSTRUMENTS.get(body.instrument)
    expected = instrument_for(kind)
    if instrument is None or expected is None or instrument.key != expected.key:
        wanted = f"the {expected.key} instrument" if expected is not None else "no instrument"
        fail(422, f"a {kind} run is rated with {wanted}, not {body.instrument[:40]!r}")
    try:
        rating = new_rating(run_id, instrument, body.scores, body.comment, principal, clock.now())
        append_rating(folder, rating)
    except ScenarioError as error:
        fail(422, str(error))
    except OSError as error:
        fail(409, f"the rating could not be stored with the run: {error.strerror or error}")
    return RatingModel(
        instrument=rating.instrument,
        scores=dict(rating.scores),
        comment=rating.comment,
        rated_by=rating.rated_by,
        rated_at=rating.rated_at,
    )


def _all_ratings(runs_dir: Path, history: bool) -> list[Rating]:
    found: list[Rating] = []
    if runs_dir.is_dir():
        for run_id, folder in walk_ratings(runs_dir):
            ratings, _ = read_ratings(folder / "ratings.jsonl", run_id)
            found.extend(ratings)
    return found if history else latest_ratings(found)


def add_rating_routes(app: FastAPI, db_path: Path, runs_dir: Path, clock: Clock) -> None:
    """The rating API on app: ratings are stored with runs under runs_dir."""
    export_lock = threading.Lock()

    @app.get("/api/instruments")
    def list_instruments(signed_in: SignedInPrincipal) -> list[InstrumentModel]:
        """The rating instruments (GAIA, ASTRA, ProMediate) and the kinds of run each applies to."""
        return instruments()

    @app.post("/api/runs/{run_id:path}/ratings", status_code=201, responses=WRITE_ERRORS)
    def rate_run(run_id: str, body: RatingBody, signed_in: SignedInPrincipal) -> RatingModel:
        """Rate a saved run (a game, a mediated conversation, an exported delegate session)."""
        try:
            folder, kind = resolve_run(runs_dir, run_id)
        except RunNotFound as error:
            fail(404, str(error))
        return _rate(folder, run_id, kind, body, signed_in.principal, clock)

    @app.post("/api/sessions/{session_id}/ratings", status_code=201, responses=WRITE_ERRORS)
    def rate_session(session_id: str, body: RatingBody, signed_in: SignedInPrincipal) -> RatingModel:
        """Rate a finished delegate session (its record is exported to the runs folder first)."""
        run_id = f"delegate/{_SAFE_NAME.sub('_', session_id)[:120] or '_'}"
        folder = runs_dir / run_id
        store = SessionStore(db_path)
        try:
            with export_lock:
                _export_session(store, session_id, folder, clock)
        except AuditError as error:
            fail(409, str(error))
        except ScenarioError as error:
            fail(404 if "no session" in str(error) else 409, str(error))
        except ParleyError as error:
            fail(409, str(error))
        except OSError as error:
            fail(409, f"the session could not be saved with the runs: {error.strerror or error}")
        finally:
            store.close()
        return _rate(folder, run_id, "delegate", body, signed_in.principal, clock)

    @app.get(
        "/api/ratings.csv",
        response_class=Response,
        responses={200: {"content": {"text/csv": {}}}},
    )
    def export_ratings(
        signed_in: SignedInPrincipal,
        history: Annotated[bool, Query(description="Every rating, not only each person's latest.")] = False,
    ) -> Response:
        """Every rating under the runs folder as CSV (one row per item score)."""
        return Response(
            ratings_csv(_all_ratings(runs_dir, history)),
            media_type="text/csv; charset=utf-8",
            headers={"Content-Disposition": 'attachment; filename="ratings.csv"'},
        )
