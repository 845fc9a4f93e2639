"""Issues, outcome spaces, private utility functions and bargaining analysis."""

from parley.domain.analysis import OutcomeAnalysis, pareto_frontier
from parley.domain.issues import Issue, Outcome, Value
from parley.domain.ranking import RankedOutcomes
from parley.domain.space import IndexArray, OutcomeSpace
from parley.domain.utility import (
    LinearAdditiveUtility,
    RankedPreferenceUtility,
    TableUtility,
    UtilityFunction,
)

__all__ = [
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
