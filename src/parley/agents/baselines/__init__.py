"""Deterministic rule-based negotiators, registered by name when this package is imported.

Time-based concession (boulware, linear, conceder), tit-for-tat, hardliner, random, and rule-based
twins of the ASTRA partner personas (base, greedy, fair).
"""

from __future__ import annotations

from functools import partial

from parley.agents.baselines.concession import (
    BOULWARE_EXPONENT,
    CONCEDER_EXPONENT,
    HardlinerNegotiator,
    RandomNegotiator,
    TimeBasedNegotiator,
    TitForTatNegotiator,
)
from parley.agents.baselines.core import BaselineNegotiator, OpponentModel
from parley.agents.baselines.personas import FairNegotiator, GreedyNegotiator, base_partner
from parley.agents.baselines.ranked import RankedSpace
from parley.agents.registry import register

__all__ = [
    "BaselineNegotiator",
    "FairNegotiator",
    "GreedyNegotiator",
    "HardlinerNegotiator",
    "OpponentModel",
    "RandomNegotiator",
    "RankedSpace",
    "TimeBasedNegotiator",
    "TitForTatNegotiator",
    "base_partner",
]

register(
    "boulware",
    partial(TimeBasedNegotiator, exponent=BOULWARE_EXPONENT),
    "Time-based concession that holds out and concedes late (e = 0.2).",
)
register(
    "linear", partial(TimeBasedNegotiator, exponent=1.0), "Time-based concession at a steady rate (e = 1)."
)
register(
    "conceder",
    partial(TimeBasedNegotiator, exponent=CONCEDER_EXPONENT),
    "Time-based concession that gives ground early (e = 2).",
)
register("tit-for-tat", TitForTatNegotiator, "Relative tit-for-tat: mirrors the others' concessions.")
register("hardliner", HardlinerNegotiator, "Always demands its best outcome and accepts nothing less.")
register("random", RandomNegotiator, "Random legal moves, never accepting below its BATNA.")
register("base", base_partner, "ASTRA base partner: moderate concession from a strong, not maximal, anchor.")
register("greedy", GreedyNegotiator, "ASTRA greedy partner: anchors at its maximum and concedes rarely.")
register("fair", FairNegotiator, "ASTRA fair partner: proposes and holds to the package it judges fair.")
