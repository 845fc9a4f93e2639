"""The principal strategy: anchored on the principal's side of every ask, conceding on a schedule,
trading the terms the principal cares less about, never offering a private limit."""

from __future__ import annotations

from collections.abc import Mapping

import pytest

from parley.errors import ScenarioError
from parley.governance.config import DomainConfig, load_config, parse_config
from parley.governance.strategy import (
    FIRM_AFTER,
    Position,
    PrincipalStrategy,
    TermValue,
    concession_share,
    preferences,
    principal_space,
    term_scales,
)


def _strategy(config: DomainConfig, term: str | None = None) -> PrincipalStrategy:
    bands = {t.name: (t.minimum, t.maximum) for t in config.boundary.terms}
    return PrincipalStrategy(config, term or config.negotiation.term, bands)


def _play(strategy: PrincipalStrategy, asks: list[Mapping[str, TermValue]]) -> list[dict[str, TermValue]]:
    """The offers the strategy makes against a counterparty stating asks, one per round (the first
    ask is known before the opening offer, as a figure named while being screened is)."""
    position = Position().with_move(asks[0])
    offers = [strategy.opening(position).package]
    position = position.with_offer(offers[0])
    for stated in asks[1:]:
        position = position.with_move(stated)
        move = strategy.respond(position)
        if move.kind != "offer":
            break
        offers.append(move.package)
        position = position.with_offer(move.package)
    return offers


def test_a_candidate_asking_80k_is_never_offered_more_than_80k() -> None:
    strategy = _strategy(load_config("staffing"))
    offers = _play(strategy, [{"annual_salary": 80000.0}] * 2)
    assert offers and all(float(o["annual_salary"]) <= 80000.0 for o in offers)


@pytest.mark.parametrize("ask", [85000.0, 92000.0, 97000.0])
def test_no_offer_lies_beyond_what_the_candidate_asked(ask: float) -> None:
    strategy = _strategy(load_config("staffing"))
    position = Position().with_move({"annual_salary": ask})
    offers: list[float] = []
    for _ in range(10):
        move = strategy.respond(position)
        if move.kind != "offer":
            assert move.kind == "accept" and move.package["annual_salary"] == ask
            break
        offers.append(float(move.package["annual_salary"]))
        position = position.with_offer(move.package).with_move({"annual_salary": ask + 1.0})
        position = Position({"annual_salary": ask}, position.moves, position.offers)
    assert offers and max(offers) <= ask and offers == sorted(offers)


def test_a_supplier_quoting_11_50_gets_a_lower_price_not_a_range() -> None:
    strategy = _strategy(load_config("procurement"))
    offers = _play(strategy, [{"unit_price": 11.5}] * 4)
    assert all(float(o["unit_price"]) <= 11.5 for o in offers)
    assert float(offers[0]["unit_price"]) < 10.0  # anchored near the principal's best, not at the band's top


def test_concession_follows_the_time_based_curve_and_stops_inside_the_limits() -> None:
    config = load_config("staffing")
    strategy = _strategy(config)
    offers = _play(strategy, [{"annual_salary": 130000.0 - 1000.0 * i} for i in range(strategy.rounds + 2)])
    salaries = [float(o["annual_salary"]) for o in offers]
    assert salaries == sorted(salaries) and salaries[0] < salaries[-1]
    limits = {80000.0, 100000.0}
    assert not limits & set(salaries)
    assert max(salaries) == 99000.0  # one step inside the private maximum
    assert concession_share(0, 8, 0.5) == 1.0 and concession_share(8, 8, 0.5) == 0.0
    assert concession_share(4, 8, 0.5) > concession_share(4, 8, 1.0)  # Boulware-like: holds out longer


def test_after_the_schedule_an_ask_beyond_the_limit_goes_to_the_principal() -> None:
    strategy = _strategy(load_config("staffing"))
    position = Position()
    for i in range(strategy.rounds):
        position = position.with_move({"annual_salary": 140000.0 - i}).with_offer({"annual_salary": 81000.0})
    final = strategy.respond(position.with_move({"annual_salary": 120000.0}))
    assert final.kind == "offer" and final.package["annual_salary"] == 99000.0  # all it may offer, first
    position = position.with_move({"annual_salary": 120000.0}).with_offer(final.package)
    assert strategy.respond(position.with_move({"annual_salary": 119000.0})).kind == "escalate"


def test_an_ask_within_the_target_is_accepted_as_asked() -> None:
    strategy = _strategy(load_config("staffing"))
    position = Position()
    for ask in (95000.0, 90000.0, 88000.0, 87000.0):  # four of 8 rounds: 0.75 of the scale ($85.5K)
        position = position.with_offer({"annual_salary": 81000.0}).with_move({"annual_salary": ask})
    assert strategy.respond(position.with_move({"annual_salary": 86000.0})).kind == "offer"
    move = strategy.respond(position.with_move({"annual_salary": 85000.0}))
    assert move.kind == "accept" and move.package == {"annual_salary": 85000.0}


def test_a_counterparty_that_stops_moving_within_the_band_is_accepted() -> None:
    strategy = _strategy(load_config("procurement"))
    position = Position().with_offer({"unit_price": 9.1})
    for _ in range(FIRM_AFTER):
        position = position.with_move({"unit_price": 14.0})
    move = strategy.respond(position)
    assert move.kind == "accept" and move.package["unit_price"] == 14.0  # its own figure, echoed


def test_terms_the_principal_cares_less_about_are_traded_for_the_amount() -> None:
    """With remote days in play (weight 0.1 against 0.6 for salary), the offer at the same point of
    the schedule holds the salary lower than an offer on salary alone."""
    config = load_config("staffing")
    strategy = _strategy(config)
    asks: list[Mapping[str, TermValue]] = [{"annual_salary": 120000.0, "remote_days": 5.0}] * 4
    traded = _play(strategy, asks)
    alone = _play(strategy, [{"annual_salary": 120000.0}] * 4)
    assert any(float(t.get("remote_days", 0.0)) > 0 for t in traded)
    assert float(traded[-1]["annual_salary"]) < float(alone[-1]["annual_salary"])
    assert all(float(t["remote_days"]) <= 5.0 for t in traded if "remote_days" in t)


def test_terms_beyond_the_principal_authority_are_left_to_the_principal() -> None:
    strategy = _strategy(load_config("procurement"))
    position = Position().with_move({"unit_price": 12.0, "payment_terms": "net30", "lead_time": 6.0})
    assert [s.name for s in strategy.in_play(position)] == ["unit_price", "lead_time"]
    assert strategy.outside(position) == ("payment_terms",)


def test_the_adapter_builds_a_parley_outcome_space_with_the_principal_utility() -> None:
    config = load_config("leasing")
    scales = term_scales(config, "monthly_rent", {})
    space, utility = principal_space([scales["monthly_rent"], scales["deposit"]])
    assert space.names == ("monthly_rent", "deposit")
    assert 8000.0 not in space.issue("monthly_rent").values  # the limits are not options
    assert 12000.0 not in space.issue("monthly_rent").values and 3.0 not in space.issue("deposit").values
    low, high = utility.bounds()
    assert 0.0 < low < high <= 1.0
    best = utility.evaluate({"monthly_rent": 8100.0, "deposit": 0.0})
    assert best == pytest.approx(high)


def test_configs_without_preferences_default_to_the_negotiated_term(staffing: DomainConfig) -> None:
    raw = staffing.model_dump(mode="json")
    raw["negotiation"].pop("preferences")
    bare = parse_config(raw, "bare.yaml")
    assert [(p.term, p.better) for p in preferences(bare)] == [
        ("annual_salary", "lower"),
        ("hourly_rate", "lower"),
    ]
    assert list(term_scales(bare, "hourly_rate", {})) == ["hourly_rate"]


@pytest.mark.parametrize(
    ("preference", "message"),
    [
        ({"term": "shoe_size", "better": "lower"}, "negotiation.preferences.shoe_size"),
        ({"term": "remote_days", "better": "lower", "options": ["a"]}, "either better"),
        ({"term": "remote_days", "better": "lower", "range": [5, 0]}, "range"),
        ({"term": "remote_days", "better": "lower"}, "remote_days.range"),
    ],
)
def test_a_bad_preference_fails_at_load_naming_the_field(
    staffing: DomainConfig, preference: dict[str, object], message: str
) -> None:
    raw = staffing.model_dump(mode="json")
    raw["negotiation"]["preferences"] = [preference]
    with pytest.raises(ScenarioError, match=message):
        parse_config(raw, "bad.yaml")
