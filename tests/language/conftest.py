"""Scenarios built in code for the language tests: a division, a terms deal, and random vocabulary."""

from __future__ import annotations

import pytest

from parley.domain.issues import Issue
from parley.domain.space import OutcomeSpace
from parley.language import Vocabulary

CAMP_PARTIES = ("alice", "bob")
SUPPLY_PARTIES = ("buyer", "seller")


def camp_vocabulary() -> Vocabulary:
    """A CaSiNo-like division: 3 units each of food, water and firewood; values count alice's units."""
    space = OutcomeSpace.of([Issue.integer_range(name, 0, 3) for name in ("food", "water", "firewood")])
    allocation = {name: {"owner": "alice", "total": 3} for name in space.names}
    return Vocabulary.build(space, {"allocation": allocation}, CAMP_PARTIES)


def supply_vocabulary() -> Vocabulary:
    """A procurement-like terms deal."""
    space = OutcomeSpace.of(
        [
            Issue.integer_range("price", 40, 100, step=5, unit="USD"),
            Issue.options("volume", [1000, 2000, 5000, 10000], unit="units"),
            Issue.options("lead_time", [10, 20, 30, 45, 60], unit="days"),
            Issue.options("payment_terms", ["net-30", "net-60", "net-90"]),
            Issue.options("warranty", [6, 12, 24, 36], unit="months"),
        ]
    )
    return Vocabulary.build(space, {}, SUPPLY_PARTIES)


def lease_vocabulary() -> Vocabulary:
    """Terms with compound units ("EUR per month", "months of rent") and a categorical clause."""
    space = OutcomeSpace.of(
        [
            Issue.integer_range("rent", 3000, 4000, step=250, unit="EUR per month"),
            Issue.options("term", [2, 3, 5, 7, 10], unit="years"),
            Issue.options("deposit", [1, 2, 3, 6], unit="months of rent"),
            Issue.options("fit_out_allowance", [0, 10000, 20000], unit="EUR"),
            Issue.options("break_clause", ["none", "after year 5", "after year 3"]),
        ]
    )
    return Vocabulary.build(space, {}, ("tenant", "landlord"))


def random_vocabulary() -> Vocabulary:
    """Made-up issue names and labels (no built-in synonyms apply); a mixed division and terms space."""
    space = OutcomeSpace.of(
        [
            Issue.integer_range("zorblats", 0, 4),
            Issue.integer_range("quuxberries", 0, 2),
            Issue.options("glimmer_tone", ["teal", "ochre", "mauve"]),
            Issue.options("flux_rate", [5, 10, 15, 20], unit="%"),
        ]
    )
    allocation = {"zorblats": {"owner": "kip", "total": 4}, "quuxberries": {"owner": "lu", "total": 2}}
    return Vocabulary.build(space, {"allocation": allocation}, ("kip", "lu"))


@pytest.fixture(scope="session")
def camp() -> Vocabulary:
    return camp_vocabulary()


@pytest.fixture(scope="session")
def supply() -> Vocabulary:
    return supply_vocabulary()


@pytest.fixture(scope="session")
def strange() -> Vocabulary:
    return random_vocabulary()


@pytest.fixture(scope="session")
def lease() -> Vocabulary:
    return lease_vocabulary()
