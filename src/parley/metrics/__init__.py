"""Pure metrics over finished sessions and trajectories."""

from parley.metrics.bargaining import PartyOutcome, outcomes
from parley.metrics.stats import Estimate, mean_ci

__all__ = ["Estimate", "PartyOutcome", "mean_ci", "outcomes"]
