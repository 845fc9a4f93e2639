"""The GAIA evaluation (seed §4, Table 1): domains × counterparty personas × seeds, plus ablations.

Every session runs the real delegate against a simulated counterparty with hidden ground truth,
a scripted principal and an imperfect (slipping) drafter; metrics come from the trajectories.
`runs` plays the sessions, `detection` measures the detectors on labelled data, `tables` aggregates
the records, `report` draws the TCI(t) figures and writes the report.
"""

from parley.experiments.gaia.detection import (
    DETECTORS_BEFORE,
    DRAFT_SETS,
    SET_SHORT_NAMES,
    commitment_detection,
    measurement_half,
    moderator_detection,
)
from parley.experiments.gaia.report import render_report, write_results
from parley.experiments.gaia.runs import (
    CONDITIONS,
    DOMAINS,
    POLICY,
    SLIP_RATE,
    Condition,
    extraction_accuracy,
    run_experiment,
    run_one,
)

__all__ = [
    "CONDITIONS",
    "DETECTORS_BEFORE",
    "DOMAINS",
    "DRAFT_SETS",
    "POLICY",
    "SET_SHORT_NAMES",
    "SLIP_RATE",
    "Condition",
    "commitment_detection",
    "extraction_accuracy",
    "measurement_half",
    "moderator_detection",
    "render_report",
    "run_experiment",
    "run_one",
    "write_results",
]
