"""The ASTRA experiment: the seed's table 1 on randomised CaSiNo games, the λ heatmap, a tournament.

ASTRA and its ablation (no stages 2-3) each play the `base`, `greedy` and `fair` partners on
CaSiNo games whose priority orders are drawn per run; ASTRA also plays every registered baseline
on every shipped bilateral scenario. Runs are independent, so they run in parallel processes.
`runs` plays the sessions, `tables` aggregates them, `report` writes the CSV, figure and report.
"""

from typing import TYPE_CHECKING

from parley._lazy import lazy_exports

if TYPE_CHECKING:
    from parley.experiments.astra.prose import (
        CHANGES,
        DISCUSSION,
        IMPLEMENTATION,
        PAPER_TABLE1,
        PREVIOUS_TABLE1,
        PREVIOUS_TOURNAMENT,
    )
    from parley.experiments.astra.report import plot_lambda_heatmap, write_csv, write_report
    from parley.experiments.astra.runs import (
        CASINO_BATNA,
        CASINO_ITEMS,
        CASINO_POINTS,
        CASINO_UNITS,
        TABLE1_AGENTS,
        TABLE1_PARTNERS,
        TOURNAMENT_SEEDS,
        ProgressCallback,
        RunRecord,
        RunSpec,
        baseline_names,
        bilateral_scenarios,
        casino_game,
        plan_runs,
        run_experiment,
        run_one,
    )
    from parley.experiments.astra.tables import (
        FAIRNESS,
        STANCES,
        cell_means,
        comparison_lines,
        lambda_markdown,
        lambda_table,
        paper_markdown,
        previous_markdown,
        previous_tournament_markdown,
        table1_markdown,
        tactic_markdown,
        tactic_table,
        tournament_markdown,
    )

__all__ = [
    "CASINO_BATNA",
    "CASINO_ITEMS",
    "CASINO_POINTS",
    "CASINO_UNITS",
    "CHANGES",
    "DISCUSSION",
    "FAIRNESS",
    "IMPLEMENTATION",
    "PAPER_TABLE1",
    "PREVIOUS_TABLE1",
    "PREVIOUS_TOURNAMENT",
    "STANCES",
    "TABLE1_AGENTS",
    "TABLE1_PARTNERS",
    "TOURNAMENT_SEEDS",
    "ProgressCallback",
    "RunRecord",
    "RunSpec",
    "baseline_names",
    "bilateral_scenarios",
    "casino_game",
    "cell_means",
    "comparison_lines",
    "lambda_markdown",
    "lambda_table",
    "paper_markdown",
    "plan_runs",
    "plot_lambda_heatmap",
    "previous_markdown",
    "previous_tournament_markdown",
    "run_experiment",
    "run_one",
    "table1_markdown",
    "tactic_markdown",
    "tactic_table",
    "tournament_markdown",
    "write_csv",
    "write_report",
]

__getattr__, __dir__ = lazy_exports(
    __name__,
    {
        "parley.experiments.astra.prose": (
            "CHANGES",
            "DISCUSSION",
            "IMPLEMENTATION",
            "PAPER_TABLE1",
            "PREVIOUS_TABLE1",
            "PREVIOUS_TOURNAMENT",
        ),
        "parley.experiments.astra.report": ("plot_lambda_heatmap", "write_csv", "write_report"),
        "parley.experiments.astra.runs": (
            "CASINO_BATNA",
            "CASINO_ITEMS",
            "CASINO_POINTS",
            "CASINO_UNITS",
            "TABLE1_AGENTS",
            "TABLE1_PARTNERS",
            "TOURNAMENT_SEEDS",
            "ProgressCallback",
            "RunRecord",
            "RunSpec",
            "baseline_names",
            "bilateral_scenarios",
            "casino_game",
            "plan_runs",
            "run_experiment",
            "run_one",
        ),
        "parley.experiments.astra.tables": (
            "FAIRNESS",
            "STANCES",
            "cell_means",
            "comparison_lines",
            "lambda_markdown",
            "lambda_table",
            "paper_markdown",
            "previous_markdown",
            "previous_tournament_markdown",
            "table1_markdown",
            "tactic_markdown",
            "tactic_table",
            "tournament_markdown",
        ),
    },
)
