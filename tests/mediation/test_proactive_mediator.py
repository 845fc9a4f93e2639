"""The proactive offer mediator: public signals decide when it steps in, revealed packages what it tables."""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from dataclasses import replace
from typing import Any

import pytest
from utility_reach import holds_a_utility

from parley.domain.issues import Issue
from parley.domain.space import OutcomeSpace
from parley.errors import ScenarioError
from parley.experiments.runner import build_negotiators, run_negotiation
from parley.experiments.tournament import Game, create_offer_mediator, mediator_name, play
from parley.mediation.proactive import ProactiveMediator, Signals, create_proactive
from parley.protocol.actions import Accept, Action
from parley.protocol.coalition import read_record
from parley.protocol.events import Event
from parley.protocol.replay import replay
from parley.protocol.rules import AcceptanceRule, Rules
from parley.protocol.session import MediatorView, Session
from parley.protocol.view import PartyView, Record
from parley.scenarios.generate import GameSpec, generate_game
from parley.scenarios.model import Scenario


def _game(seed: int = 3, parties: int = 4) -> Scenario:
    return generate_game(GameSpec(seed=seed, parties=parties, issues=3, max_rounds=30))


class Recording(ProactiveMediator):
    """Keeps every view it is given."""

    def __init__(self, **options: Any) -> None:
        super().__init__(**options)
        self.views: list[MediatorView] = []
        self.seen: list[list[Event]] = []  # the record as it was when asked (a view's record is live)

    def propose(self, view: MediatorView) -> Mapping[str, Any] | None:
        self.views.append(view)
        self.seen.append(list(view.record))
        return super().propose(view)


def _play(game: Scenario, agent: str, mediator: ProactiveMediator, seed: int = 0) -> Any:
    negotiators = build_negotiators(game, [agent] * len(game.parties), seed, {})
    rules = replace(game.rules, on_stagnation="mediate")
    return Session(game.space, game.setups(), negotiators, rules, mediator=mediator).run()


# -- it never sees a utility ---------------------------------------------------------------------------


def test_the_mediator_never_receives_a_utility() -> None:
    mediator = Recording(gap=1, start=0.0, deadline=0.0)
    result = _play(_game(), "linear", mediator)
    assert mediator.views and result.trajectory.of_kind("mediator_proposal")
    fields = {"space", "parties", "round", "record", "signals", "rules"}
    for view, seen in zip(mediator.views, mediator.seen, strict=True):
        assert not holds_a_utility(view)
        assert {f.name for f in dataclasses.fields(view)} == fields
        # What it read when asked: public events only (no private traces, no agreement's utilities).
        assert all(event.audience == "public" for event in seen)
        assert not any(event.kind in ("agreement", "batna_violation", "trace") for event in seen)


def test_proposals_do_not_depend_on_private_utilities() -> None:
    from parley.testing.mediators import check_mediator

    report = check_mediator(lambda seed: ProactiveMediator(gap=1, start=0.0, deadline=0.0))
    assert report.interventions > 0


# -- when it steps in -----------------------------------------------------------------------------------


def test_it_intervenes_before_stagnation_when_its_signals_say_so() -> None:
    # Time-based conceders move every round: the stagnation detector never fires, so `pareto`
    # is never asked; the proactive mediator tables packages anyway once its signals call for it.
    mediator = Recording(gap=2, start=0.1, deadline=0.3)
    result = _play(_game(), "linear", mediator)
    events = list(result.trajectory)
    tabled = [e for e in events if e.kind == "mediator_proposal"]
    assert tabled, "the proactive mediator should have stepped in"
    first = tabled[0]
    assert not any(e.kind == "stagnation" for e in events[: first.seq])
    assert first.round >= 0.1 * 30
    asked = [v for v in mediator.views if v.round == first.round]
    assert asked and asked[-1].record[-1].kind != "stagnation"


def _signals(**changes: Any) -> Signals:
    quiet = Signals(progress=0.5, asked=False, holdout=None, spread=1.0, since_last=None, tabled=0)
    return replace(quiet, **changes)


def test_each_signal_decides_on_its_own() -> None:
    mediator = ProactiveMediator(start=0.2, gap=3, spread=0.4, deadline=0.8, stop=1.0)
    assert not mediator.intervenes(_signals())
    assert mediator.intervenes(_signals(holdout="ash"))
    assert mediator.intervenes(_signals(spread=0.3))
    assert mediator.intervenes(_signals(progress=0.85))
    assert mediator.intervenes(_signals(asked=True, progress=0.0))  # the engine asks on stagnation
    assert not mediator.intervenes(_signals(holdout="ash", progress=0.1))  # too early
    assert not mediator.intervenes(_signals(holdout="ash", since_last=2))  # too soon after the last
    assert mediator.intervenes(_signals(holdout="ash", since_last=3))
    assert not ProactiveMediator(max_interventions=2).intervenes(_signals(holdout="ash", tabled=2))


def test_it_steps_back_for_the_last_rounds_unless_the_engine_asks() -> None:
    # From `stop` on the parties' own offers are answered again; only stagnation still brings it in.
    mediator = ProactiveMediator(start=0.1, deadline=0.1, stop=0.8)
    assert mediator.intervenes(_signals(progress=0.79))
    for signals in (
        _signals(progress=0.8),
        _signals(progress=0.95, holdout="ash"),
        _signals(progress=1.0, spread=0.0),
    ):
        assert not mediator.intervenes(signals)
    assert mediator.intervenes(_signals(progress=0.9, asked=True))
    assert not ProactiveMediator(start=0.5, stop=0.5).intervenes(_signals(progress=0.5))


def test_a_mediated_session_leaves_the_last_rounds_to_the_parties() -> None:
    mediator = Recording(stop=0.3)
    result = _play(_game(), "linear", mediator)
    tabled = [e for e in result.trajectory if e.kind == "mediator_proposal"]
    stagnation = {e.round for e in result.trajectory if e.kind == "stagnation"}
    assert tabled and max(e.round for e in result.trajectory) >= 0.3 * 30  # it stepped in, then back
    assert all(e.round < 0.3 * 30 or e.round in stagnation for e in tabled)


SPACE = OutcomeSpace.of([Issue.options("a", ["a1", "a2", "a3"]), Issue.options("b", ["b1", "b2", "b3"])])


def _events(moves: list[tuple[int, str, dict[str, Any]]]) -> list[Event]:
    return [Event(i, "action", rnd, party, data) for i, (rnd, party, data) in enumerate(moves)]


def _offer(package: dict[str, str]) -> dict[str, Any]:
    return {"kind": "propose", "package": package, "message": ""}


def test_a_party_that_keeps_rejecting_a_forming_deal_is_a_holdout() -> None:
    x = {"a": "a1", "b": "b1"}
    accept, reject = {"kind": "accept", "message": ""}, {"kind": "reject", "message": ""}
    moves: list[tuple[int, str, dict[str, Any]]] = []
    for rnd, proposer in ((1, "ann"), (2, "bob"), (3, "cat")):
        moves.append((rnd, proposer, _offer(x)))
        for other in ("ann", "bob", "cat"):
            if other != proposer:
                moves.append((rnd, other, reject if other == "cat" else accept))
    rules = Rules(max_rounds=10, acceptance=AcceptanceRule(required=3))  # every party needed
    view = MediatorView(SPACE, ("ann", "bob", "cat"), 3, Record(_events(moves)), {}, rules)
    assert ProactiveMediator(holdout=2).read(view).holdout == "cat"
    assert ProactiveMediator(holdout=3).read(view).holdout is None


def test_a_package_every_party_revealed_is_tabled_first() -> None:
    x, y = {"a": "a2", "b": "b2"}, {"a": "a1", "b": "b3"}
    moves = [(1, "ann", _offer(y)), (1, "bob", _offer(x)), (2, "bob", _offer(y)), (2, "ann", _offer(x))]
    rules = Rules(max_rounds=10)
    view = MediatorView(SPACE, ("ann", "bob"), 2, Record(_events(moves)), {}, rules)
    package = ProactiveMediator().package(view)
    assert package in (x, y)


def test_silent_before_anybody_offers_and_never_repeats_a_package() -> None:
    rules = Rules(max_rounds=10)
    empty = MediatorView(SPACE, ("ann", "bob"), 1, Record([]), {}, rules)
    assert ProactiveMediator(start=0.0, deadline=0.0).propose(empty) is None
    x = {"a": "a1", "b": "b1"}
    events = [
        *_events([(1, "ann", _offer(x)), (1, "bob", _offer(x))]),
        Event(2, "mediator_proposal", 1, "mediator", {"package": x}),
    ]
    view = MediatorView(SPACE, ("ann", "bob"), 4, Record(events), {}, rules)
    package = ProactiveMediator(start=0.0, deadline=0.0).propose(view)
    assert package is not None and package != x


# -- reading the record ----------------------------------------------------------------------------------


class _Spy:
    """Wraps a negotiator and logs the table each time it accepts."""

    def __init__(self, inner: Any, log: list[tuple[int, str, dict[str, Any]]]) -> None:
        self.inner, self.log = inner, log

    def act(self, view: PartyView) -> Action:
        action = self.inner.act(view)
        if isinstance(action, Accept) and view.table is not None:
            self.log.append((view.round, view.party, dict(view.table.package)))
        return action


@pytest.mark.parametrize("agent", ["linear", "random", "tit-for-tat"])
def test_the_record_reader_finds_the_table_every_acceptance_answered(agent: str) -> None:
    accepted = 0
    for seed in range(3):
        game = _game(seed=seed)
        log: list[tuple[int, str, dict[str, Any]]] = []
        inner = build_negotiators(game, [agent] * len(game.parties), seed, {})
        negotiators = {name: _Spy(n, log) for name, n in inner.items()}
        rules = replace(game.rules, on_stagnation="mediate", stagnation_rounds=2)
        mediator = ProactiveMediator(gap=2, start=0.0, deadline=0.5)
        result = Session(game.space, game.setups(), negotiators, rules, mediator=mediator).run()
        revealed, answered = read_record(list(result.trajectory), game.party_names, rules)
        found = {(t.round, p, tuple(sorted(t.package.items()))) for t in answered for p in t.accepted}
        for rnd, party, package in log:
            assert (rnd, party, tuple(sorted(package.items()))) in found
            assert package in revealed[party]
        accepted += len(log)
    assert accepted > 0


# -- names and options -------------------------------------------------------------------------------------


def test_the_tournament_knows_it_by_name_with_options() -> None:
    mediator = create_offer_mediator("Proactive(start=0.3, gap=2)")
    assert isinstance(mediator, ProactiveMediator)
    assert (mediator.start, mediator.gap) == (0.3, 2)
    assert mediator_name("proactive") == "proactive"
    rows = play(Game("wind_farm", ("linear",) * 4, 0, 1, "proactive"))
    assert rows and all(not r["failed"] for r in rows)
    assert all(r["mediator"] == "proactive" for r in rows)


@pytest.mark.parametrize(
    "name",
    [
        "proactiv",
        "proаctive",  # a Cyrillic "а"
        "pro\u200bactive",  # a zero-width space
        "proactive(start=2)",
        "proactive(start=-0.1)",
        "proactive(start=nan)",
        "proactive(gap=0)",
        "proactive(gap=1.5)",
        "proactive(decay=0)",
        "proactive(match=2)",
        "proactive(colour=blue)",
        "proactive(start)",
        "proactive(start=0.1",
        "proactive(stop=1.5)",
        "proactive(stop=-0.1)",
        "proactive(stop=nan)",
        "proactive(" + "start=0.1," * 100 + ")",
    ],
)
def test_a_bad_name_or_option_is_one_line(name: str) -> None:
    with pytest.raises(ScenarioError) as caught:
        create_offer_mediator(name)
    message = str(caught.value)
    assert "\n" not in message and len(message) < 400


def test_options_out_of_range_are_refused_when_built_directly() -> None:
    with pytest.raises(ScenarioError, match="spread"):
        ProactiveMediator(spread=1.5)
    assert create_proactive("proactive()") == ProactiveMediator()


def test_a_k_of_n_session_with_it_ends_cleanly_on_every_baseline() -> None:
    game = _game(seed=7, parties=5)
    for agent in ("linear", "hardliner", "tit-for-tat", "astra"):
        result = run_negotiation(
            game,
            [agent] * len(game.parties),
            seed=0,
            rules=replace(game.rules, on_stagnation="mediate"),
            mediator=ProactiveMediator(gap=1, start=0.0, deadline=0.0),
        )
        assert result.no_deal is None or result.no_deal.reason != "protocol_violation"


@pytest.mark.parametrize("agent", ["linear", "tit-for-tat"])
def test_a_proactively_mediated_session_replays_byte_for_byte(agent: str) -> None:
    game = _game(seed=5)
    rules = replace(game.rules, on_stagnation="mediate")
    result = _play(game, agent, ProactiveMediator(gap=2, start=0.1, deadline=0.3))
    assert result.trajectory.of_kind("mediator_proposal")
    again = replay(result.trajectory, game.space, game.setups(), rules)
    assert again.trajectory.to_jsonl() == result.trajectory.to_jsonl()


# -- stepping back: the rule leaves nobody out, or its own packages are not taken up ------------------------

PARTIES = ("ann", "bob", "cat")
ACCEPT, REJECT = {"kind": "accept", "message": ""}, {"kind": "reject", "message": ""}


def _mediated(rounds: list[tuple[dict[str, str], set[str]]]) -> list[Event]:
    """A public record: ann opens with a package every other party rejects, then per round the
    mediator tables a package that the parties in the set accept (the others reject it)."""
    events = _events([(1, "ann", _offer({"a": "a1", "b": "b1"})), (1, "bob", REJECT), (1, "cat", REJECT)])
    for rnd, (package, accepting) in enumerate(rounds, start=2):
        events.append(Event(len(events), "mediator_proposal", rnd, "mediator", {"package": package}))
        for party in PARTIES:
            move = ACCEPT if party in accepting else REJECT
            events.append(Event(len(events), "action", rnd, party, move))
    return events


@pytest.mark.parametrize(
    ("acceptance", "exposed"),
    [
        (AcceptanceRule(), False),  # unanimity: every party vets every deal
        (AcceptanceRule(required=3), False),  # 3 of 3 is unanimity too
        (AcceptanceRule(required=2), True),  # a deal can pass without one party
        (AcceptanceRule(required=2, vetoes=("ann", "bob")), True),  # cat can be left out
        (AcceptanceRule(required=2, vetoes=PARTIES), False),  # everybody holds a veto
    ],
)
def test_a_rule_exposes_a_party_only_when_a_deal_can_pass_without_it(
    acceptance: AcceptanceRule, exposed: bool
) -> None:
    view = MediatorView(
        SPACE, PARTIES, 2, Record(_mediated([])), {}, Rules(max_rounds=10, acceptance=acceptance)
    )
    assert ProactiveMediator().read(view).exposed is exposed


def test_a_party_that_left_can_no_longer_be_left_out() -> None:
    # 2 of 3 with cat gone: the two present parties must both accept, as under unanimity.
    events = [*_mediated([]), Event(3, "withdrawal", 1, "cat", {})]
    rules = Rules(max_rounds=10, acceptance=AcceptanceRule(required=2))
    assert (
        ProactiveMediator().read(MediatorView(SPACE, PARTIES, 2, Record(events), {}, rules)).exposed is False
    )


def test_with_exposed_on_only_a_stall_brings_it_in_under_unanimity() -> None:
    mediator = ProactiveMediator(exposed=1, start=0.1, deadline=0.1, spread=0.5, stop=1.0)
    closed = _signals(exposed=False)
    assert not mediator.intervenes(replace(closed, progress=0.9))  # the time signal does not count
    assert not mediator.intervenes(replace(closed, spread=0.0))  # nor does the spread signal
    assert mediator.intervenes(replace(closed, holdout="ann"))  # a holdout is a stall
    assert mediator.intervenes(replace(closed, asked=True))  # so is the engine's stagnation
    assert mediator.intervenes(_signals(exposed=True, progress=0.9))
    assert ProactiveMediator(exposed=0, deadline=0.1, stop=1.0).intervenes(replace(closed, progress=0.9))
    assert ProactiveMediator().exposed == 0  # off by default: `trial` was chosen instead (tuning seeds)


def test_packages_nobody_takes_up_are_failing() -> None:
    x, y, z = {"a": "a1", "b": "b2"}, {"a": "a2", "b": "b2"}, {"a": "a3", "b": "b3"}
    rules = Rules(max_rounds=20)  # unanimity: a table is forming once 2 of the 3 accept it

    def failing(rounds: list[tuple[dict[str, str], set[str]]], trial: int) -> bool:
        view = MediatorView(SPACE, PARTIES, 2 + len(rounds), Record(_mediated(rounds)), {}, rules)
        return ProactiveMediator(trial=trial).read(view).failing

    ignored = [(x, {"ann"}), (y, set()), (z, {"cat"})]
    assert failing(ignored, trial=3)
    assert failing(ignored, trial=2)
    assert not failing(ignored, trial=4)  # it has not tabled that many yet
    assert not failing(ignored, trial=0)  # the rule is off
    taken_up = [(x, {"ann", "bob"}), (y, set()), (z, {"cat"})]
    assert not failing(taken_up, trial=3)  # one of its latest three was forming
    assert failing(taken_up, trial=2)  # but not one of its latest two


def test_a_failing_mediator_steps_back_unless_asked_or_on_a_holdout() -> None:
    mediator = ProactiveMediator(trial=3, start=0.1, deadline=0.1, stop=1.0)
    failing = _signals(failing=True, progress=0.5)
    assert not mediator.intervenes(failing)
    assert not mediator.intervenes(replace(failing, spread=0.0))
    assert mediator.intervenes(replace(failing, holdout="bob"))
    assert mediator.intervenes(replace(failing, asked=True))
    assert mediator.intervenes(replace(failing, failing=False))


@pytest.mark.parametrize(
    "name",
    [
        "proactive(exposed=2)",
        "proactive(exposed=-1)",
        "proactive(exposed=nan)",
        "proactive(exposed=yes)",
        "proactive(trial=-1)",
        "proactive(trial=1.5)",
        "proactive(trial=nan)",
        "proactive(trial=inf)",
        "proactive(trial=" + "9" * 400 + ")",
        "proactive(tria1=3)",
        "proactive(trial\u200b=3)",
    ],
)
def test_a_bad_new_option_is_refused_in_one_line(name: str) -> None:
    with pytest.raises(ScenarioError) as caught:
        create_offer_mediator(name)
    message = str(caught.value)
    assert "\n" not in message and len(message) < 400


def test_the_new_options_are_read_from_the_name() -> None:
    mediator = create_proactive("proactive(exposed=0, trial=4)")
    assert (mediator.exposed, mediator.trial) == (0, 4)
    with pytest.raises(ScenarioError, match="trial"):
        ProactiveMediator(trial=-2)
    with pytest.raises(ScenarioError, match="exposed"):
        ProactiveMediator(exposed=3)


def test_stepping_back_gives_back_a_deal_its_packages_crowded_out() -> None:
    # The diagnosed case (a shipped scenario, a tuning seed): five parties, unanimity, 20 rounds; the
    # parties' own tables reach a deal by round 11, but a mediator that tables every round from round
    # 2 on (trial=0) never gets a package taken up and the session ends without a deal. With the
    # default trial it steps back after five packages nobody took up, and the parties' deal returns.
    def end(mediator: str) -> str:
        rows = play(Game("promediate/williams", ("base",) * 5, 0, 100, mediator))
        return str(rows[0]["end"])

    assert end("none") == "agreement"
    assert end("proactive(trial=0)") != "agreement"
    assert end("proactive") == "agreement"
