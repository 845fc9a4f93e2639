"""A small market scenario for the LLM tests: price, delivery and warranty between a buyer and a seller."""

from __future__ import annotations

from parley.domain import Issue, LinearAdditiveUtility, OutcomeSpace
from parley.protocol import PartySetup


def market_space() -> OutcomeSpace:
    """Price 100..500, delivery slow/standard/fast, warranty 0..2 years."""
    return OutcomeSpace.of(
        [
            Issue.integer_range("price", 100, 500, step=100, unit="USD"),
            Issue.options("delivery", ["slow", "standard", "fast"]),
            Issue.integer_range("warranty", 0, 2, unit="years"),
        ]
    )


def market_parties() -> list[PartySetup]:
    """A buyer (BATNA 0.35; weights 0.6/0.3/0.1) and a seller (BATNA 0.3)."""
    space = market_space()
    buyer = LinearAdditiveUtility(
        space,
        {"price": 0.6, "delivery": 0.3, "warranty": 0.1},
        {"price": [1, 0.75, 0.5, 0.25, 0], "delivery": [0, 0.5, 1], "warranty": [0, 0.5, 1]},
        reservation_value=0.35,
    )
    seller = LinearAdditiveUtility(
        space,
        {"price": 0.5, "delivery": 0.2, "warranty": 0.3},
        {"price": [0, 0.25, 0.5, 0.75, 1], "delivery": [1, 0.5, 0], "warranty": [1, 0.5, 0]},
        reservation_value=0.3,
    )
    return [
        PartySetup("buyer", buyer, {"role": "buyer", "brief": "You buy 40 pumps for the cooperative."}),
        PartySetup("seller", seller, {"role": "seller", "brief": "You sell pumps."}),
    ]
