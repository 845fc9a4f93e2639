"""The GAIA evaluation (seed §4, Table 1): domains × counterparty personas × seeds, plus ablations.

Every session runs the real delegate against a simulated counterparty with hidden ground truth,
a scripted principal and an imperfect (slipping) drafter; metrics come from the trajectories.
`runs` plays the sessions, `detection` measures the detectors on labelled data, `tables` aggregates
the records, `principal` measures the principal's share of the zone of possible agreement against
`bargaining` counterparties, `report` draws the TCI(t) figures and writes the report.
"""

from typing import TYPE_CHECKING

from parley._lazy import lazy_exports

if TYPE_CHECKING:
    from parley.experiments.gaia.bargaining import BargainingCounterparty
    from parley.experiments.gaia.detection import (
        DETECTORS_BEFORE,
        DRAFT_SETS,
        SET_SHORT_NAMES,
        commitment_detection,
        measurement_half,
        moderator_detection,
    )
    from parley.experiments.gaia.principal import principal_share, run_share_experiment, run_share_session
    from parley.experiments.gaia.report import render_report, write_results
    from parley.experiments.gaia.runs import (
        CONDITIONS,
        DOMAINS,
        POLICY,
        SLIP_RATE,
        STRATEGIES,
        Condition,
        extraction_accuracy,
        run_experiment,
        run_one,
        with_strategy,
    )

__all__ = [
    "CONDITIONS",
    "DETECTORS_BEFORE",
    "DOMAINS",
    "DRAFT_SETS",
    "POLICY",
    "SET_SHORT_NAMES",
    "SLIP_RATE",
    "STRATEGIES",
    "BargainingCounterparty",
    "Condition",
    "commitment_detection",
    "extraction_accuracy",
    "measurement_half",
    "moderator_detection",
    "principal_share",
    "render_report",
    "run_experiment",
    "run_one",
    "run_share_experiment",
    "run_share_session",
    "with_strategy",
    "write_results",
]

__getattr__, __dir__ = lazy_exports(
    __name__,
    {
        "parley.experiments.gaia.detection": (
            "DETECTORS_BEFORE",
            "DRAFT_SETS",
            "SET_SHORT_NAMES",
            "commitment_detection",
            "measurement_half",
            "moderator_detection",
        ),
        "parley.experiments.gaia.bargaining": ("BargainingCounterparty",),
        "parley.experiments.gaia.principal": ("principal_share", "run_share_experiment", "run_share_session"),
        "parley.experiments.gaia.report": ("render_report", "write_results"),
        "parley.experiments.gaia.runs": (
            "CONDITIONS",
            "DOMAINS",
            "POLICY",
            "SLIP_RATE",
            "STRATEGIES",
            "Condition",
            "extraction_accuracy",
            "run_experiment",
            "run_one",
            "with_strategy",
        ),
    },
)
