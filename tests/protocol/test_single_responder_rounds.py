"""A round with one responder (every round of a bilateral session) takes `Session._answer_one`,
a lean copy of `_answer_and_close`. Each game here is played both ways and compared byte for byte:
counters, accepts, walks, says and rejects; k-of-n withdrawals; a judge that rules after every move;
stagnation with and without a mediator. Each comparison checks that the lean round was played.
"""

from __future__ import annotations

from collections.abc import Callable

import pytest

from parley.agents import available, create
from parley.mediation.pareto import ParetoMediator
from parley.protocol import AcceptanceRule, Action, Negotiator, PartyView, Rules, Session, SessionResult, Walk
from parley.protocol.judge import Judgement, JudgeView, RuleJudge
from parley.scenarios import load_scenario
from parley.scenarios.model import Scenario
from parley.testing.scenarios import casino_like_scenario

AGENTS = [name for name in available() if name not in {"human", "llm", "astra-llm"}]


class _AskingJudge(RuleJudge):
    """The rule judge under another type: the engine then asks it after every move."""

    def judge(self, view: JudgeView) -> Judgement:
        return super().judge(view)


def _both_ways(monkeypatch: pytest.MonkeyPatch, play: Callable[[], SessionResult]) -> tuple[str, str]:
    rounds: list[int] = []
    lean_round = Session._answer_one  # pyright: ignore[reportPrivateUsage]

    def counted(session: Session, party: str, round_number: int) -> bool:
        rounds.append(round_number)
        return lean_round(session, party, round_number)

    with monkeypatch.context() as patch:
        patch.setattr(Session, "_answer_one", counted)
        lean = play().trajectory.to_jsonl()
    assert rounds, "the lean round was never played: the comparison would prove nothing"
    with monkeypatch.context() as patch:
        patch.setattr(Session, "_answer_one", _general)
        general = play().trajectory.to_jsonl()
    return lean, general


def _general(session: Session, party: str, round_number: int) -> bool:
    """The general round, asked for one responder."""
    return session._answer_and_close([party], round_number)  # pyright: ignore[reportPrivateUsage]


def _game(scenario: Scenario, agents: list[str], seed: int, **session: object) -> Callable[[], SessionResult]:
    def play() -> SessionResult:
        negotiators: dict[str, Negotiator] = {
            name: create(agent, party=name, seed=seed + i)
            for i, (name, agent) in enumerate(zip(scenario.party_names, agents, strict=True))
        }
        options = dict(session)  # (each play gets the same options)
        rules = options.pop("rules", scenario.rules)
        return Session(scenario.space, scenario.setups(), negotiators, rules, **options).run()  # type: ignore[arg-type]

    return play


@pytest.mark.parametrize("first", AGENTS)
def test_bilateral_games_play_the_same_either_way(monkeypatch: pytest.MonkeyPatch, first: str) -> None:
    casino = load_scenario("casino")
    for second in AGENTS:
        for seed in (0, 3):
            lean, general = _both_ways(monkeypatch, _game(casino, [first, second], seed))
            assert lean == general, (first, second, seed)


@pytest.mark.parametrize("seed", range(6))
def test_judges_stagnation_and_acceptance_rules_play_the_same_either_way(
    monkeypatch: pytest.MonkeyPatch, seed: int
) -> None:
    scenario = casino_like_scenario()
    pairs = [["random", "tit-for-tat"], ["hardliner", "boulware"], ["random", "random"]]
    variants: list[dict[str, object]] = [
        {"judge": _AskingJudge()},
        {"rules": Rules(max_rounds=12, stagnation_rounds=2, on_stagnation="walk")},
        {"rules": Rules(max_rounds=12, stagnation_rounds=2, on_stagnation="continue")},
        {
            "rules": Rules(max_rounds=12, stagnation_rounds=2, on_stagnation="mediate"),
            "mediator": ParetoMediator(),
        },
    ]  # (not 1-of-2 acceptance: the proposer's own acceptance passes its first offer, no one answers)
    transcripts = ""
    for pair in pairs:
        for variant in variants:
            lean, general = _both_ways(monkeypatch, _game(scenario, pair, seed, **dict(variant)))
            assert lean == general, (pair, variant, seed)
            transcripts += lean
    if seed == 0:  # the grid does reach what it claims to compare
        for kind in ('"kind":"accept"', '"kind":"stagnation"', '"kind":"mediator_proposal"', '"walker":"'):
            assert kind in transcripts, kind


class _Leaver:
    """Walks at its first move: under a k-of-n rule it leaves two parties, one responder a round."""

    def act(self, view: PartyView) -> Action:
        return Walk("not for me")


@pytest.mark.parametrize("seed", range(6))
def test_rounds_left_with_one_responder_after_a_withdrawal_play_the_same(
    monkeypatch: pytest.MonkeyPatch, seed: int
) -> None:
    scenario = load_scenario("office_move")
    rules = Rules(max_rounds=14, acceptance=AcceptanceRule(required=2), on_stagnation="continue")
    first, second, third = scenario.party_names

    def play() -> SessionResult:
        negotiators: dict[str, Negotiator] = {
            first: create("random", party=first, seed=seed),
            second: create("conceder", party=second, seed=seed + 1),
            third: _Leaver(),
        }
        return Session(scenario.space, scenario.setups(), negotiators, rules).run()

    lean, general = _both_ways(monkeypatch, play)
    assert lean == general
    assert '"kind":"withdrawal"' in lean
    assert lean.count('"kind":"action"') > 4  # the two left go on, one responder a round
