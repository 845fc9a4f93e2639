"""Pure metrics over finished sessions and trajectories."""

from typing import TYPE_CHECKING

from parley._lazy import lazy_exports

if TYPE_CHECKING:
    from parley.metrics.bargaining import PartyOutcome, outcomes
    from parley.metrics.stats import Estimate, mean_ci

__all__ = [
    "Estimate",
    "PartyOutcome",
    "mean_ci",
    "outcomes",
]

__getattr__, __dir__ = lazy_exports(
    __name__,
    {
        "parley.metrics.bargaining": ("PartyOutcome", "outcomes"),
        "parley.metrics.stats": ("Estimate", "mean_ci"),
    },
)
