"""Baseline negotiators: concession curves, acceptance, BATNA floor, priorities, personas, caching."""

from __future__ import annotations

import itertools
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from parley.agents import available, create
from parley.agents.baselines import (
    FairNegotiator,
    GreedyNegotiator,
    HardlinerNegotiator,
    RandomNegotiator,
    TimeBasedNegotiator,
    TitForTatNegotiator,
    base_partner,
)
from parley.agents.baselines.core import BaselineNegotiator
from parley.agents.baselines.draws import Draws
from parley.domain import Value
from parley.domain.utility import TableUtility
from parley.protocol import (
    Accept,
    Action,
    Event,
    PartyView,
    Phase,
    Propose,
    Record,
    Rules,
    Say,
    Session,
    TableOffer,
    Walk,
)
from parley.scenarios.model import Party, Scenario
from parley.testing import ScriptedNegotiator
from parley.testing.scenarios import casino_like_scenario

BASELINES = ("boulware", "linear", "conceder", "tit-for-tat", "hardliner", "random", "base", "greedy", "fair")
CASINO = casino_like_scenario()
ALICE = CASINO.party("alice").utility


def offer_event(seq: int, round_number: int, party: str, package: Mapping[str, Value]) -> Event:
    return Event(
        seq, "action", round_number, party, {"kind": "propose", "package": dict(package), "message": ""}
    )


def say_event(
    seq: int, round_number: int, party: str, asks: bool = False, priorities: Sequence[str] = ()
) -> Event:
    data = {"kind": "say", "message": "?", "priorities": list(priorities), "asks_priorities": asks}
    return Event(seq, "action", round_number, party, data)


def view(
    round_number: int = 1,
    *,
    offer: Mapping[str, Value] | None = None,
    events: Sequence[Event] = (),
    max_rounds: int = 20,
    scenario: Scenario = CASINO,
    party: str = "alice",
    record: Record | None = None,
) -> PartyView:
    """A view for `party` in a bilateral scenario, answering `offer` from the other side if given."""
    other = next(p for p in scenario.party_names if p != party)
    table = TableOffer(dict(offer), other, frozenset({other}), 1) if offer is not None else None
    return PartyView(
        party,
        scenario.party_names,
        round_number,
        Phase.RESPOND if offer is not None else Phase.PROPOSE,
        scenario.space,
        scenario.party(party).utility,
        Rules(max_rounds=max_rounds),
        table,
        record if record is not None else Record(list(events)),
        {},
    )


def package_worth(target: float) -> dict[str, Value]:
    """Some CaSiNo package worth exactly target to alice."""
    for outcome in CASINO.space:
        if ALICE.evaluate(outcome) == target:
            return outcome
    raise AssertionError(f"no package worth {target}")


def test_every_baseline_is_registered_with_a_one_line_description() -> None:
    entries = available()
    for name in BASELINES:
        assert name in entries
        description = entries[name].description
        assert description
        assert "\n" not in description
        negotiator = create(name, party="alice", seed=0)
        assert callable(getattr(negotiator, "act", None))


@pytest.mark.parametrize(("name", "exponent"), [("boulware", 0.2), ("linear", 1.0), ("conceder", 2.0)])
def test_time_based_target_follows_the_aspiration_curve(name: str, exponent: float) -> None:
    negotiator = create(name, party="alice", seed=0)
    assert isinstance(negotiator, TimeBasedNegotiator)
    negotiator.act(view(1))
    # floor = BATNA 5, best = 36: target(t) = 5 + 31 · (1 − t^(1/e)), t = (round − 1) / 19
    for round_number in (1, 5, 10, 15, 20):
        t = (round_number - 1) / 19
        expected = 5 + 31 * (1 - t ** (1 / exponent))
        assert negotiator.target(view(round_number)) == pytest.approx(expected)


def test_boulware_holds_out_longer_than_linear_and_conceder() -> None:
    targets = {}
    for name in ("boulware", "linear", "conceder"):
        negotiator = create(name, party="alice", seed=0)
        assert isinstance(negotiator, TimeBasedNegotiator)
        negotiator.act(view(1))
        targets[name] = [negotiator.target(view(r)) for r in range(1, 21)]
    for boulware, linear, conceder in zip(*targets.values(), strict=True):
        assert boulware >= linear >= conceder
    for curve in targets.values():
        assert curve[0] == 36.0
        assert curve[-1] == pytest.approx(5.0)
        assert all(a >= b for a, b in itertools.pairwise(curve))


def proposals_against_silence(name: str, rounds: int = 20, seed: int = 0) -> list[dict[str, Value]]:
    """What alice proposes over a whole session when bob only ever talks."""
    negotiator = create(name, party="alice", seed=seed)
    bob = ScriptedNegotiator([Say("hmm")] * 40)
    result = Session(
        CASINO.space,
        CASINO.setups(),
        {"alice": negotiator, "bob": bob},
        Rules(max_rounds=rounds, on_stagnation="continue"),
    ).run()
    return [
        e.data["package"] for e in result.trajectory if e.party == "alice" and e.data.get("kind") == "propose"
    ]


@pytest.mark.parametrize("name", ["boulware", "linear", "conceder"])
def test_time_based_proposals_sit_just_above_the_target(name: str) -> None:
    negotiator = create(name, party="alice", seed=3)
    assert isinstance(negotiator, TimeBasedNegotiator)
    utilities = sorted({float(u) for u in ALICE.evaluate_space()})
    for round_number in range(1, 21):
        action = negotiator.act(view(round_number))
        assert isinstance(action, Propose)
        worth = ALICE.evaluate(action.package)
        target = negotiator.target(view(round_number))
        nearest_above = min(u for u in utilities if u >= target - 1e-9)
        assert worth >= target - 1e-9
        assert worth <= max(target + 0.05 * 31, nearest_above) + 1e-9


def test_time_based_agents_move_on_issues() -> None:
    proposals = proposals_against_silence("linear")
    distinct = {tuple(p.values()) for p in proposals}
    assert len(proposals) >= 10
    assert len(distinct) >= 6


@pytest.mark.parametrize("name", ["boulware", "linear", "conceder", "base"])
def test_time_based_accepts_at_or_above_the_target_only(name: str) -> None:
    negotiator = create(name, party="alice", seed=0)
    assert isinstance(negotiator, TimeBasedNegotiator)
    negotiator.act(view(10))
    target = negotiator.target(view(10))
    above = min((u for u in {float(x) for x in ALICE.evaluate_space()} if u >= target), default=None)
    below = max(u for u in {float(x) for x in ALICE.evaluate_space()} if u < target)
    assert above is not None
    assert isinstance(negotiator.act(view(10, offer=package_worth(above))), Accept)
    assert not isinstance(negotiator.act(view(10, offer=package_worth(below))), Accept)


def test_proposals_prefer_what_the_opponent_asked_for() -> None:
    # bob keeps asking for all the water and only the water: among packages of equal worth to
    # alice, she gives him water, whatever her seed (the model decides, not a draw)
    bob_offers = [offer_event(i + 1, i + 1, "bob", {"food": 3, "water": 0, "firewood": 3}) for i in range(3)]
    for seed in range(8):
        action = create("conceder", party="alice", seed=seed).act(view(12, events=bob_offers))
        assert isinstance(action, Propose)
        assert action.package["water"] == 0


@pytest.mark.parametrize("name", BASELINES)
@given(data=st.data())
def test_never_accepts_below_the_batna(name: str, data: st.DataObject) -> None:
    reservation = data.draw(st.sampled_from([0.0, 5.0, 14.0, 25.0, 33.0]))
    scenario = with_reservations(reservation)
    negotiator = create(name, party="alice", seed=data.draw(st.integers(0, 50)))
    utility = scenario.party("alice").utility
    for _ in range(6):
        index = data.draw(st.integers(0, scenario.space.size - 1))
        offer = scenario.space.outcome(index)
        round_number = data.draw(st.integers(1, 20))
        action = negotiator.act(view(round_number, offer=offer, scenario=scenario))
        if isinstance(action, Accept):
            assert utility.evaluate(offer) >= reservation
        if isinstance(action, Propose):
            assert utility.evaluate(action.package) >= reservation  # proposing is offering to settle


def with_reservations(reservation: float) -> Scenario:
    parties = tuple(Party(p.name, p.role, p.utility.with_reservation(reservation)) for p in CASINO.parties)
    return Scenario(CASINO.name, CASINO.title, CASINO.description, CASINO.space, parties, CASINO.rules)


@pytest.mark.parametrize("name", BASELINES)
def test_walks_at_the_deadline_rather_than_take_less_than_the_batna(name: str) -> None:
    negotiator = create(name, party="alice", seed=1)
    bad = {"food": 0, "water": 0, "firewood": 1}  # 3 points < BATNA 5
    action = negotiator.act(view(20, offer=bad))
    assert isinstance(action, Walk)
    assert action.reason


@pytest.mark.parametrize("name", BASELINES)
def test_walks_when_nothing_beats_the_batna(name: str) -> None:
    scenario = with_reservations(40.0)  # above the best score, 36
    action = create(name, party="alice", seed=0).act(view(1, scenario=scenario))
    assert isinstance(action, Walk)
    assert "BATNA" in action.reason


@pytest.mark.parametrize("name", BASELINES)
def test_answers_a_priority_question_once_and_truthfully(name: str) -> None:
    negotiator = create(name, party="alice", seed=0)
    events = [
        offer_event(1, 1, "alice", {"food": 3, "water": 3, "firewood": 3}),
        say_event(2, 1, "bob", asks=True),
    ]
    record = Record(events)  # one live record per session, as the engine gives it
    answer = negotiator.act(view(2, record=record))
    assert isinstance(answer, Say)
    assert answer.priorities == ("food", "water", "firewood")
    assert not any(ch.isdigit() for ch in answer.message), "never states its BATNA or weights"
    assert "batna" not in answer.message.lower()
    data = {"kind": "say", "message": answer.message, "priorities": list(answer.priorities)}
    events.append(Event(3, "action", 2, "alice", data))
    follow_up = negotiator.act(view(3, record=record))
    assert not isinstance(follow_up, Say) or name == "random"


def test_bobs_priorities_are_his_own() -> None:
    negotiator = create("base", party="bob", seed=0)
    answer = negotiator.act(view(2, events=[say_event(1, 1, "alice", asks=True)], party="bob"))
    assert isinstance(answer, Say)
    assert answer.priorities == ("water", "food", "firewood")


def test_accepting_beats_answering_when_the_offer_is_good() -> None:
    negotiator = create("conceder", party="alice", seed=0)
    events = [say_event(1, 1, "bob", asks=True)]
    assert isinstance(
        negotiator.act(view(2, offer={"food": 3, "water": 3, "firewood": 3}, events=events)), Accept
    )


def test_hardliner_always_demands_its_best() -> None:
    negotiator = HardlinerNegotiator("alice", 0)
    for round_number in (1, 10, 19):
        action = negotiator.act(view(round_number))
        assert action == Propose({"food": 3, "water": 3, "firewood": 3})
    assert not isinstance(negotiator.act(view(19, offer={"food": 3, "water": 3, "firewood": 2})), Accept)
    assert isinstance(negotiator.act(view(19, offer={"food": 3, "water": 3, "firewood": 3})), Accept)


def test_tit_for_tat_mirrors_concessions_and_retreats() -> None:
    negotiator = TitForTatNegotiator("alice", 0)
    first = offer_event(1, 1, "bob", package_worth(5.0))
    negotiator.act(view(2, events=[first]))
    assert negotiator.target() == 36.0  # one offer: nothing to mirror yet
    second = offer_event(2, 2, "bob", package_worth(12.0))
    record_events = [first, second]
    negotiator.act(view(3, events=record_events))
    assert negotiator.target() == pytest.approx(36.0 - 7.0)
    third = offer_event(3, 3, "bob", package_worth(8.0))
    negotiator = TitForTatNegotiator("alice", 0)
    negotiator.act(view(4, events=[first, second, third]))
    # reading all three at once mirrors the latest step only: 12 → 8 is a retreat of 4
    assert negotiator.target() == 36.0


def test_tit_for_tat_follows_a_live_record() -> None:
    negotiator = TitForTatNegotiator("alice", 0)
    events: list[Event] = [offer_event(1, 1, "bob", package_worth(5.0))]
    record = Record(events)
    negotiator.act(view(2, record=record))
    events.append(offer_event(2, 2, "bob", package_worth(12.0)))
    negotiator.act(view(3, record=record))
    assert negotiator.target() == pytest.approx(29.0)
    events.append(offer_event(3, 3, "bob", package_worth(8.0)))
    negotiator.act(view(4, record=record))
    assert negotiator.target() == pytest.approx(33.0)


def test_tit_for_tat_accepts_anything_above_the_batna_in_the_last_round() -> None:
    negotiator = TitForTatNegotiator("alice", 0)
    assert isinstance(negotiator.act(view(20, offer=package_worth(6.0))), Accept)
    assert not isinstance(TitForTatNegotiator("alice", 0).act(view(19, offer=package_worth(6.0))), Accept)


def fair_expected_first_package() -> dict[str, Value]:
    """Max-min of alice's normalised score and her prior guess of bob's ("the opposite of mine")."""
    best: tuple[float, float, dict[str, Value]] | None = None
    for outcome in CASINO.space:
        own = ALICE.evaluate(outcome) / 36.0
        guess = sum((3 - outcome[item]) / 3 for item in ("food", "water", "firewood")) / 3
        key = (min(own, guess), own)
        if ALICE.evaluate(outcome) >= 5 and (best is None or key > best[:2]):
            best = (key[0], key[1], outcome)
    assert best is not None
    return best[2]


def test_fair_opens_with_the_max_min_package() -> None:
    action = FairNegotiator("alice", 0).act(view(1))
    assert isinstance(action, Propose)
    assert dict(action.package) == fair_expected_first_package()


def test_fair_learns_from_stated_priorities() -> None:
    negotiator = FairNegotiator("alice", 0)
    events = [say_event(1, 1, "bob", priorities=("water", "food", "firewood"))]
    action = negotiator.act(view(2, events=events))
    assert isinstance(action, Propose)
    neutral = FairNegotiator("alice", 0).act(view(2))
    assert isinstance(neutral, Propose)
    # knowing bob cares most about water, alice keeps less water for herself than before
    assert action.package["water"] <= neutral.package["water"]
    assert action.package["water"] <= 1


def test_fair_accepts_near_fair_offers_and_refuses_lopsided_ones() -> None:
    fair = fair_expected_first_package()
    worth = ALICE.evaluate(fair)
    assert isinstance(FairNegotiator("alice", 0).act(view(3, offer=fair)), Accept)
    worse = max(float(u) for u in ALICE.evaluate_space() if (u - 5) / 31 < (worth - 5) / 31 - 0.05)
    assert not isinstance(FairNegotiator("alice", 0).act(view(3, offer=package_worth(worse))), Accept)


def test_fair_sticks_to_near_fair_packages() -> None:
    negotiator = FairNegotiator("alice", 0)
    fair_worth = ALICE.evaluate(fair_expected_first_package())
    for round_number in range(1, 15):
        action = negotiator.act(view(round_number))
        assert isinstance(action, Propose)
        assert abs(ALICE.evaluate(action.package) - fair_worth) <= 0.25 * 36


def test_greedy_anchors_high_and_concedes_rarely_in_small_steps() -> None:
    negotiator = GreedyNegotiator("alice", 0)
    first = negotiator.act(view(1))
    assert first == Propose({"food": 3, "water": 3, "firewood": 3})
    targets = [negotiator.target(view(r)) for r in range(1, 21)]
    assert targets[:3] == [36.0, 36.0, 36.0]
    steps = [a - b for a, b in itertools.pairwise(targets) if a != b]
    assert steps and all(step == pytest.approx(0.05 * 31) for step in steps)
    assert min(targets) >= 5 + 0.7 * 31 - 1e-9


def test_greedy_walks_late_from_offers_below_its_batna() -> None:
    bad = {"food": 0, "water": 0, "firewood": 1}
    assert not isinstance(GreedyNegotiator("alice", 0).act(view(5, offer=bad)), Walk)
    assert isinstance(GreedyNegotiator("alice", 0).act(view(16, offer=bad)), Walk)


class _Restless(TimeBasedNegotiator):
    """Walks from any offer it does not take, and says something instead of proposing."""

    def walk_reason(self, view: PartyView, worth: float) -> str:
        return "restless"

    def propose(self, view: PartyView) -> Action:
        return Say("not yet")


def test_overridden_hooks_are_asked_on_every_move() -> None:
    # act() runs the default walk_reason and propose inline; a class's own ones must still be asked
    meagre = {"food": 0, "water": 0, "firewood": 1}
    assert not isinstance(TimeBasedNegotiator("alice", 0).act(view(5, offer=meagre)), Walk)
    assert _Restless("alice", 0).act(view(5, offer=meagre)) == Walk("restless")
    assert _Restless("alice", 0).act(view(5)) == Say("not yet")
    patched = TimeBasedNegotiator("alice", 0)  # ... and so must an instance's, set before it plays
    patched.propose = lambda view: Say("patched")  # type: ignore[method-assign]
    assert patched.act(view(5)) == Say("patched")


def test_greedy_exaggerates_but_keeps_the_order() -> None:
    answer = GreedyNegotiator("alice", 0).act(view(2, events=[say_event(1, 1, "bob", asks=True)]))
    assert isinstance(answer, Say)
    assert answer.priorities == ("food", "water", "firewood")
    assert "all" in answer.message


def test_base_partner_opens_strong_but_not_at_its_maximum() -> None:
    negotiator = base_partner("alice", 0)
    action = negotiator.act(view(1))
    assert isinstance(action, Propose)
    worth = ALICE.evaluate(action.package)
    anchor = 5 + 0.85 * 31
    assert anchor - 1e-9 <= worth < 36


def test_random_is_reproducible_and_varied() -> None:
    def moves(seed: int) -> list[Action]:
        negotiator = RandomNegotiator("alice", seed)
        return [negotiator.act(view(r, offer=package_worth(20.0) if r % 2 else None)) for r in range(1, 20)]

    assert moves(4) == moves(4)
    assert moves(4) != moves(5)
    kinds = {type(a).__name__ for seed in range(10) for a in moves(seed)}
    assert {"Propose", "Accept"} <= kinds


def test_constructor_checks_its_options() -> None:
    with pytest.raises(ValueError, match="exponent must be positive, got 0"):
        TimeBasedNegotiator("alice", exponent=0)
    with pytest.raises(ValueError, match=r"anchor must lie in \[0, 1\], got 1.5"):
        TimeBasedNegotiator("alice", anchor=1.5)
    with pytest.raises(ValueError, match="band must lie in"):
        TitForTatNegotiator("alice", band=-0.1)
    with pytest.raises(ValueError, match="patience must be at least 1 round, got 0"):
        GreedyNegotiator("alice", patience=0)
    with pytest.raises(ValueError, match="minimum_share must lie in"):
        GreedyNegotiator("alice", minimum_share=2)
    with pytest.raises(ValueError, match="tolerance must lie in"):
        FairNegotiator("alice", tolerance=3)
    with pytest.raises(ValueError, match="walk_probability must lie in"):
        RandomNegotiator("alice", walk_probability=1.5)


class CountingTable(TableUtility):
    """A table utility that counts whole-space evaluations."""

    full_evaluations = 0

    def evaluate_indices(self, indices: Any) -> Any:
        if indices.shape[0] == self.space.size:
            type(self).full_evaluations += 1
        return super().evaluate_indices(indices)


@pytest.mark.parametrize("name", BASELINES)
def test_the_space_is_ranked_once_per_session(name: str) -> None:
    table = np.arange(CASINO.space.size, dtype=np.float64)
    utility = CountingTable(CASINO.space, table, 10.0)
    parties = (Party("alice", "camper", utility), CASINO.party("bob"))
    scenario = Scenario(
        "counting", "", "", CASINO.space, parties, Rules(max_rounds=12, on_stagnation="continue")
    )
    CountingTable.full_evaluations = 0
    negotiator = create(name, party="alice", seed=0)
    bob = ScriptedNegotiator([Propose(scenario.space.outcome(i)) for i in range(0, 60, 5)])
    Session(scenario.space, scenario.setups(), {"alice": negotiator, "bob": bob}, scenario.rules).run()
    assert CountingTable.full_evaluations == 1
    bob = ScriptedNegotiator([Propose(scenario.space.outcome(i)) for i in range(0, 60, 5)])
    Session(scenario.space, scenario.setups(), {"alice": negotiator, "bob": bob}, scenario.rules).run()
    assert CountingTable.full_evaluations == 1  # a second session reuses the ranking, with fresh memory


def test_a_reused_negotiator_forgets_the_previous_session() -> None:
    negotiator = TitForTatNegotiator("alice", 0)
    negotiator.act(
        view(
            3,
            events=[
                offer_event(1, 1, "bob", package_worth(5.0)),
                offer_event(2, 2, "bob", package_worth(20.0)),
            ],
        )
    )
    assert negotiator.target() == pytest.approx(21.0)
    negotiator.act(view(1))
    assert negotiator.target() == 36.0


@pytest.mark.parametrize("name", BASELINES)
def test_seeded_self_play_is_deterministic(name: str, three_party: Scenario) -> None:
    def run(seed: int) -> str:
        negotiators = {p: create(name, party=p, seed=seed + i) for i, p in enumerate(three_party.party_names)}
        return (
            Session(three_party.space, three_party.setups(), negotiators, three_party.rules)
            .run()
            .trajectory.to_jsonl()
        )

    assert run(11) == run(11)


Factory = Callable[[str, int], BaselineNegotiator]


def test_rankings_are_shared_per_utility_object_and_refreshed_when_the_batna_changes() -> None:
    from parley.agents.baselines.ranked import ranked_space

    scenario = casino_like_scenario()
    utility = scenario.party("alice").utility
    first = ranked_space(scenario.space, utility)
    assert ranked_space(scenario.space, utility) is first
    other = casino_like_scenario().party("alice").utility  # equal values, another object
    assert ranked_space(scenario.space, other) is not first
    # Built-in utilities are frozen; a user's own utility class may still change its BATNA in place.
    object.__setattr__(utility, "reservation_value", 20.0)
    refreshed = ranked_space(scenario.space, utility)
    assert refreshed is not first
    assert refreshed.reservation == 20.0
    assert refreshed.floor == 20.0


# -- fast paths: each must give exactly what the straightforward computation gives ----------------

lean_shapes = st.lists(st.integers(1, 4), min_size=1, max_size=9).map(tuple)


def _grid_utility(shape: tuple[int, ...], seed: int, levels: int) -> TableUtility:
    from parley.domain import Issue, OutcomeSpace

    space = OutcomeSpace.of([Issue.integer_range(f"i{i}", 0, n - 1) for i, n in enumerate(shape)])
    rng = np.random.default_rng(seed)
    values = rng.integers(0, levels, space.size) * 0.1 if levels else rng.random(space.size) * 7.0
    return TableUtility(space, values, reservation_value=float(rng.random()))


@given(lean_shapes, st.integers(0, 10_000), st.sampled_from([0, 2, 5]), st.integers(1, 4))
def test_the_lean_ranking_of_large_spaces_equals_the_enumerated_one(
    shape: tuple[int, ...], seed: int, levels: int, offers: int
) -> None:
    from unittest import mock

    from parley.agents.baselines import core
    from parley.agents.baselines import ranked as ranking

    utility = _grid_utility(shape, seed, levels)
    with mock.patch.object(ranking, "SHARED_RANKING_LIMIT", utility.space.size):  # (4**9 is above it)
        full = ranking.RankedSpace(utility.space, utility)
    with mock.patch.object(ranking, "SHARED_RANKING_LIMIT", 0):
        lean = ranking.RankedSpace(utility.space, utility)
    assert lean.lean and not full.lean
    assert lean.utilities.tobytes() == full.utilities.tobytes()
    assert lean.order.tolist() == [utility.space.index(full.package(r)) for r in range(full.size)]
    assert lean.reversed_marginals.tobytes() == full.reversed_marginals.tobytes()
    assert lean.priorities == full.priorities
    rng = np.random.default_rng(seed)
    for _ in range(5):
        low, high = sorted(rng.choice(full.utilities, 2).tolist())
        assert lean.ranks_between(low, high) == full.ranks_between(low, high)
        assert lean.lowest_rank_at_least(low) == full.lowest_rank_at_least(low)
    rank = int(rng.integers(full.size))
    assert lean.package(rank) == full.package(rank)
    assert lean.utility_at(rank) == full.utility_at(rank)
    models = [core.OpponentModel(full), core.OpponentModel(lean)]
    for _ in range(offers):
        package = full.package(int(rng.integers(full.size)))
        for model in models:
            model.observe_offer(package)
    stated = [f"i{i}" for i in rng.permutation(len(shape))[: int(rng.integers(0, len(shape) + 1))]]
    for model in models:
        model.observe_priorities(stated)
    assert models[0].table().tobytes() == models[1].table().tobytes()
    start = int(rng.integers(full.size))
    ranks = range(start, int(rng.integers(start, full.size + 1)))
    straight = models[0].table()[full.flat_indices[ranks.start : ranks.stop]].sum(axis=1)
    assert models[1].estimate_ranks(ranks).tobytes() == straight.tobytes()
    assert models[1].estimate().tobytes() == models[0].estimate().tobytes()


@given(
    st.lists(st.integers(1, 5), min_size=1, max_size=7).map(tuple),
    st.integers(0, 10_000),
    st.integers(1, 7),
    st.integers(0, 6),
)
def test_pure_python_band_scores_equal_numpy_s(
    shape: tuple[int, ...], seed: int, opponents: int, offers: int
) -> None:
    from parley.agents.baselines import core
    from parley.agents.baselines import ranked as ranking

    utility = _grid_utility(shape, seed, 0)
    ranked = ranking.RankedSpace(utility.space, utility)
    rng = np.random.default_rng(seed)
    memory = core.SessionMemory(Record([]), ranked, [f"p{i}" for i in range(opponents)])
    for model in memory.models.values():
        for _ in range(int(rng.integers(0, offers + 1))):
            model.observe_offer(ranked.package(int(rng.integers(ranked.size))))
        if rng.random() < 0.5:
            model.observe_priorities([f"i{i}" for i in rng.permutation(len(shape))])
    start = int(rng.integers(ranked.size))
    candidates = range(start, int(rng.integers(start + 1, ranked.size + 1)))
    band = memory.band_scores(candidates)  # counts the offers seen so far, before any table exists
    expected = memory.combined_estimate(candidates)
    tables = [m.values() for m in memory.models.values() if m.offers]
    if expected is None:
        assert not tables
        assert band is None
        return
    assert band == (expected.tolist() if len(tables) <= ranking.PYTHON_SUM_TERMS else None)
    rows = ranked.flat_rows[candidates.start : candidates.stop]
    for model in memory.models.values():  # one more offer each, counted when next asked
        model.observe_offer(ranked.package(int(rng.integers(ranked.size))))
        assert model.scores(rows) == model.estimate_ranks(candidates).tolist()


@given(
    st.lists(st.sampled_from([0.0, 0.25, 0.25 + 5e-10, 0.5, 1.0, float("-inf")]), min_size=2, max_size=9),
    st.one_of(st.none(), st.integers(0, 12)),
    st.integers(0, 3),
)
def test_picking_the_best_score_counts_near_ties_like_the_plain_rule(
    scores: list[float], last: int | None, start: int
) -> None:
    from parley.agents.baselines import core
    from parley.agents.baselines import ranked as ranking

    candidates = range(start, start + len(scores))
    memory = core.SessionMemory(Record([]), core.ranked_space(CASINO.space, ALICE), ["bob"])
    memory.last_rank = last
    reference = list(scores)  # the plain rule: skip the last proposal, then max() and a count
    if last is not None and last in candidates:
        reference[last - start] = float("-inf")
    threshold = max(reference) - ranking.TOLERANCE
    near_top = [i for i, score in enumerate(reference) if score >= threshold]
    fresh, expected_draws = TimeBasedNegotiator("alice", 3), Draws(3)
    expected = near_top[0] if len(near_top) == 1 else near_top[expected_draws.index(len(near_top))]
    assert fresh._pick_best(list(scores), memory, candidates) == expected  # pyright: ignore[reportPrivateUsage]


@pytest.mark.parametrize("seed", range(4))
def test_negotiators_draw_their_seeds_stream(seed: int) -> None:
    negotiator, draws = TimeBasedNegotiator("alice", seed), Draws(seed)
    assert [negotiator._rng.index(100) for _ in range(5)] == [draws.index(100) for _ in range(5)]  # pyright: ignore[reportPrivateUsage]
