"""Deterministic rule-based negotiators, registered by name when this package is imported.

Time-based concession (boulware, linear, conceder), tit-for-tat, hardliner, random, rule-based
twins of the ASTRA partner personas (base, greedy, fair), and ANAC reference strategies
(hardheaded, agentk, micro, atlas3, cuhk; see `anac`).
"""

from __future__ import annotations

from functools import partial

from parley.agents.baselines.anac import (
    AgentKNegotiator,
    Atlas3Negotiator,
    CUHKNegotiator,
    HardHeadedNegotiator,
    MiCRONegotiator,
)
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
from parley.domain.space import DEFAULT_ENUMERATION_LIMIT

__all__ = [
    "AgentKNegotiator",
    "Atlas3Negotiator",
    "BaselineNegotiator",
    "CUHKNegotiator",
    "FairNegotiator",
    "GreedyNegotiator",
    "HardHeadedNegotiator",
    "HardlinerNegotiator",
    "MiCRONegotiator",
    "OpponentModel",
    "RandomNegotiator",
    "RankedSpace",
    "TimeBasedNegotiator",
    "TitForTatNegotiator",
    "base_partner",
]

ENUMERABLE = DEFAULT_ENUMERATION_LIMIT
"""The most outcomes a baseline can play: each ranks the whole space on its first move (`RankedSpace`)."""

register(
    "boulware",
    partial(TimeBasedNegotiator, exponent=BOULWARE_EXPONENT),
    "Time-based concession that holds out and concedes late (e = 0.2).",
    max_outcomes=ENUMERABLE,
)
register(
    "linear",
    partial(TimeBasedNegotiator, exponent=1.0),
    "Time-based concession at a steady rate (e = 1).",
    max_outcomes=ENUMERABLE,
)
register(
    "conceder",
    partial(TimeBasedNegotiator, exponent=CONCEDER_EXPONENT),
    "Time-based concession that gives ground early (e = 2).",
    max_outcomes=ENUMERABLE,
)
register(
    "tit-for-tat",
    TitForTatNegotiator,
    "Relative tit-for-tat: mirrors the others' concessions.",
    max_outcomes=ENUMERABLE,
)
register(
    "hardliner",
    HardlinerNegotiator,
    "Always demands its best outcome and accepts nothing less.",
    max_outcomes=ENUMERABLE,
)
register(
    "random",
    RandomNegotiator,
    "Random legal moves, never accepting below its BATNA.",
    max_outcomes=ENUMERABLE,
)
register(
    "base",
    base_partner,
    "ASTRA base partner: moderate concession from a strong, not maximal, anchor.",
    max_outcomes=ENUMERABLE,
)
register(
    "greedy",
    GreedyNegotiator,
    "ASTRA greedy partner: anchors at its maximum and concedes rarely.",
    max_outcomes=ENUMERABLE,
)
register(
    "fair",
    FairNegotiator,
    "ASTRA fair partner: proposes and holds to the package it judges fair.",
    max_outcomes=ENUMERABLE,
)
register(
    "hardheaded",
    HardHeadedNegotiator,
    "ANAC 2011 winner HardHeaded: very Boulware target, frequency opponent model, offers back the best bid.",
    max_outcomes=ENUMERABLE,
)
register(
    "agentk",
    AgentKNegotiator,
    "ANAC 2010 winner AgentK: compromises toward the estimated best the opponent will offer.",
    max_outcomes=ENUMERABLE,
)
register(
    "micro",
    MiCRONegotiator,
    "MiCRO (de Jonge 2022): one new concession per new opponent offer, no model, no parameters.",
    max_outcomes=ENUMERABLE,
)
register(
    "atlas3",
    Atlas3Negotiator,
    "ANAC 2015 winner Atlas3: concedes down to the expected utility of an evolutionarily stable strategy.",
    max_outcomes=ENUMERABLE,
)
register(
    "cuhk",
    CUHKNegotiator,
    "ANAC 2012 winner CUHKAgent: adaptive concession toward the best offer it was made, until late.",
    max_outcomes=ENUMERABLE,
)
