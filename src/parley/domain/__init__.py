"""Issues, outcome spaces, private utility functions and bargaining analysis."""

from typing import TYPE_CHECKING

from parley._lazy import lazy_exports

if TYPE_CHECKING:
    from parley.domain.analysis import OutcomeAnalysis, pareto_frontier
    from parley.domain.issues import Issue, Outcome, Value
    from parley.domain.ranking import RankedOutcomes
    from parley.domain.space import IndexArray, OutcomeSpace
    from parley.domain.utility import (
        AdditiveBonusUtility,
        LinearAdditiveUtility,
        RankedPreferenceUtility,
        TableUtility,
        UtilityFunction,
    )

__all__ = [
    "AdditiveBonusUtility",
    "IndexArray",
    "Issue",
    "LinearAdditiveUtility",
    "Outcome",
    "OutcomeAnalysis",
    "OutcomeSpace",
    "RankedOutcomes",
    "RankedPreferenceUtility",
    "TableUtility",
    "UtilityFunction",
    "Value",
    "pareto_frontier",
]

__getattr__, __dir__ = lazy_exports(
    __name__,
    {
        "parley.domain.analysis": ("OutcomeAnalysis", "pareto_frontier"),
        "parley.domain.issues": ("Issue", "Outcome", "Value"),
        "parley.domain.ranking": ("RankedOutcomes",),
        "parley.domain.space": ("IndexArray", "OutcomeSpace"),
        "parley.domain.utility": (
            "AdditiveBonusUtility",
            "LinearAdditiveUtility",
            "RankedPreferenceUtility",
            "TableUtility",
            "UtilityFunction",
        ),
    },
)
