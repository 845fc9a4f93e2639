"""The terminal player (issue 19): the brief and points at the start and on 'my priorities', one voice
("you get …"), "all the food" / "everything else" understood, over-quantities explained, the walk-away
warning before proposing or accepting, and the coach in plain words with no λ, PAP or tactic codes."""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

import pytest
from typer.testing import CliRunner

from parley.agents.astra import Coach
from parley.agents.astra.coach import Advice
from parley.agents.astra.reasons import Reason, Why
from parley.agents.registry import create
from parley.cli.app import app
from parley.cli.coaching import GLOSSARY, OwnPoints, advice_text, plain_advice, reason_words
from parley.cli.human import brief_of, package_text, read_move, unreadable_reason
from parley.experiments.runner import run_negotiation
from parley.language import Vocabulary, parse
from parley.protocol.view import PartyView
from parley.scenarios import load_scenario

runner = CliRunner()
JARGON = re.compile(
    r"λ|lambda|PAP|\bSA\b|\bTS\b|\bSI\b|S_max|tactic|\b(AEO|REO|NCR|RNC|LIC|CSC|RC|LGR|MGF)\b|BATNA|IPP"
)


def invoke(*args: str, input: str) -> str:
    result = runner.invoke(app, list(args), input=input, env={"COLUMNS": "200"})
    assert result.exit_code == 0, result.output
    return result.output


def test_the_brief_and_points_come_first_and_again_on_my_priorities() -> None:
    output = invoke("run", "casino", "-a", "human", "-a", "hardliner", input="my priorities\nquit\n")
    assert output.count("You play A (camper).") == 2
    assert "Your brief: You are diabetic" in output
    assert "food: 5 points for each package of food you get (of 3)" in output
    assert "Walking away is worth 5 to you; the best possible deal is worth 36." in output
    assert output.index("You play A") < output.index("your move")


def test_every_package_is_told_from_the_person_s_side() -> None:
    moves = "all the food for me, everything else for you\noffer\nquit\n"
    output = invoke("run", "casino", "-a", "human", "-a", "hardliner", input=moves)
    assert "(understood: you propose that you get 3 food; they get 3 water and 3 firewood)" in output
    assert (
        "On the table: you get nothing; they get 3 food, 3 water and 3 firewood (their offer) — worth 0"
        in output
    )
    person_lines = [line for line in output.splitlines() if "On the table" in line or "understood" in line]
    assert person_lines and not any(" I get " in line for line in person_lines)


def test_over_quantities_and_half_offers_are_explained() -> None:
    moves = "I want 5 firewood\nI'll take all the food\nquit\n"
    output = invoke("run", "casino", "-a", "human", "-a", "hardliner", input=moves)
    assert "5 firewood is more than the 3 available: ask for at most what there is." in output
    assert "So far I read: you get 3 food. Say what happens with water and firewood too" in output


def test_proposing_below_the_walk_away_value_asks_first() -> None:
    moves = "I take 1 water, you get the rest\nno\nI take 3 food and 3 water, you get the rest\nquit\n"
    output = invoke("run", "casino", "-a", "human", "-a", "hardliner", input=moves)
    assert "That deal is worth 4 to you, less than walking away (5). Propose it anyway? (yes/no)" in output
    assert output.count("(understood: you propose") == 1  # only the second proposal was sent


def test_the_coach_speaks_plainly() -> None:
    moves = "\n".join(
        (
            "what matters most to you?",
            "I take 3 food and 2 water, you get the rest",
            "I take 3 food and 1 water, you get the rest",
            "quit",
        )
    )
    output = invoke("run", "casino", "-a", "human", "-a", "astra", "--coach", input=moves)
    blocks: list[str] = []
    for line in output.splitlines():  # each "Coach:" line and the indented lines under it
        if line.startswith("Coach:") or (blocks and line.startswith(" ") and blocks[-1] != "\n"):
            blocks.append(line)
        elif blocks and blocks[-1] != "\n":
            blocks.append("\n")
    coach = "\n".join(blocks)
    assert output.count("Coach:") >= 3
    assert not JARGON.search(coach), coach
    assert "Make this counter-offer:" in output and "(worth " in output


# -- the helpers ----------------------------------------------------------------------------------------


def test_package_text_for_terms_and_divisions() -> None:
    casino = Vocabulary.from_scenario(load_scenario("casino"))
    package = {"food": 1, "water": 0, "firewood": 3}  # counts of A's
    assert package_text(package, casino, "B") == "you get 2 food and 3 water; they get 1 food and 3 firewood"
    assert package_text(package, casino, "A") == "you get 1 food and 3 firewood; they get 2 food and 3 water"
    staffing = load_scenario("staffing")
    words = Vocabulary.from_scenario(staffing)
    text = package_text(staffing.analysis.outcome(0), words, "candidate")
    assert "you get" not in text and "salary" in text
    with pytest.raises(ValueError):
        package_text({"food": 9, "water": 0, "firewood": 0}, casino, "A")


def test_the_brief_of_a_terms_scenario_lists_each_option() -> None:
    staffing = load_scenario("staffing")
    candidate = staffing.party("candidate")
    brief = brief_of(
        "candidate", candidate.setup().persona, candidate.utility, Vocabulary.from_scenario(staffing)
    )
    contract = next(row for row in brief.rows if row.issue == "contract type")
    assert contract.summary == "permanent: 20 · fixed-term 24 months: 9 · contractor: 0"
    assert brief.walk_away == 50 and brief.best == 100 and brief.role == "candidate"


def test_a_reading_of_unreadable_text_says_why() -> None:
    vocabulary = Vocabulary.from_scenario(load_scenario("casino"))
    parsed = parse("give me 4 water and 3 food", vocabulary, speaker="A")
    reason = unreadable_reason(parsed, vocabulary, "A")
    assert reason.startswith("4 water is more than the 3 available") and "firewood" in reason


def _views(scenario_name: str, opponent: str, seed: int) -> list[PartyView]:
    """Every view ASTRA's party saw in one game against opponent (views are built per move)."""
    seen: list[PartyView] = []

    class Watching:
        def __init__(self) -> None:
            self.inner = create("astra", party="A", seed=seed)

        def act(self, view: PartyView) -> Any:
            seen.append(view)
            return self.inner.act(view)

    scenario = load_scenario(scenario_name)
    run_negotiation(scenario, {"A": Watching(), "B": create(opponent, party="B", seed=seed)}, seed=seed)
    return seen


@pytest.mark.parametrize(
    "opponent", ["base", "greedy", "fair", "boulware", "conceder", "hardliner", "tit-for-tat"]
)
def test_every_reason_the_coach_gives_is_said_plainly(opponent: str) -> None:
    """Advice for every position of real games: each raw reason is translated, none is dropped, no jargon."""
    scenario = load_scenario("casino")
    vocabulary = Vocabulary.from_scenario(scenario)
    coach = Coach()
    for seed in (0, 1):
        for view in _views("casino", opponent, seed):
            advice = coach.advise(view)
            plain = plain_advice(advice, view, vocabulary)
            raw = [r for r in advice.reasons if r.code is not Why.TACTIC]
            assert len(plain.reasons) >= len(raw), (advice.reasons, plain.reasons)
            text = advice_text(plain)
            assert not JARGON.search(text), (advice.reasons, text)
            assert set(plain.terms) <= set(GLOSSARY)


def _advice(reasons: tuple[Reason, ...], trace: Mapping[str, Any] | None = None) -> Advice:
    return Advice(
        "propose", "unfair", "greedy", None, None, (10.0, 30.0), False, False, None, reasons, trace or {}
    )


def _said(reason: Reason) -> tuple[str, ...]:
    view = _views("casino", "hardliner", 0)[0]
    return plain_advice(_advice((reason,)), view, Vocabulary.from_scenario(load_scenario("casino"))).reasons


@pytest.mark.parametrize(
    ("reason", "expected"),
    [
        (
            Reason(Why.PARAMETERS, "λ=0.9", {"stance": "unknown", "fairness": "unknown", "lambda": 0.9}),
            "best",
        ),
        (
            Reason(Why.PARAMETERS, "λ=0.9", {"stance": "greedy", "fairness": "unfair", "lambda": 0.9}),
            "own points first",
        ),
        (
            Reason(Why.PARAMETERS, "λ=0.3", {"stance": "generous", "fairness": "fair", "lambda": 0.3}),
            "cooperation",
        ),
        (
            Reason(Why.PARAMETERS, "λ=0.6", {"stance": "neutral", "fairness": "unknown", "lambda": 0.6}),
            "holding firm",
        ),
        (Reason(Why.TIT_FOR_TAT, "tit-for-tat", {"cap": 3.0, "floor": 17.0}), "Give up at most 3 points"),
        (Reason(Why.TIT_FOR_TAT, "tit-for-tat", {"cap": 0.0, "floor": 17.0}), "Don't give up anything"),
        (
            Reason(Why.NO_CONCESSION, "streak", {"streak": 3, "limit": 3}),
            "not made a concession in their last 3",
        ),
        (Reason(Why.WARN_NOT_WALK, "warn"), "still beats walking away"),
        (
            Reason(Why.ACCEPT_LAST_MOVE, "last", {"offered": 9.0, "reservation": 5.0}),
            "last move before time runs out",
        ),
        (Reason(Why.TIME_TARGET, "t=0.5", {"target": 20.0, "time": 0.5}), "aim for about 20 now"),
        (Reason(Why.STATED_VS_OFFERS, "says", {"issue": "water"}), "They say water matters most"),
        (Reason(Why.PROPOSE_BACK, "back", {"best": 20.0, "planned": 18.0}), "propose it back"),
        (
            Reason(Why.DEADLINE_CURVE, "curve", {"wanted": 20.0, "slack": 2.0, "floor": 18.0}),
            "keep at least 18",
        ),
    ],
)
def test_each_kind_of_reason_has_plain_words(reason: Reason, expected: str) -> None:
    said = _said(reason)
    assert len(said) == 1 and expected in said[0], said
    assert not JARGON.search(said[0])


def test_every_reason_code_is_said_plainly_or_on_purpose_not_at_all() -> None:
    words = reason_words(OwnPoints(load_scenario("casino").parties[0].utility))
    assert set(words) == set(Why)  # a new code without words fails here, not silently in the coach


def test_a_reason_missing_the_figures_its_code_names_falls_back_to_its_text() -> None:
    # A plugin's chooser or tactic assessor may give a code without figures: its wording, in the
    # second person, or nothing when that still holds jargon; never an exception.
    assert _said(Reason(Why.TIT_FOR_TAT, "hold firm on my last offer")) == ("Hold firm on your last offer.",)
    assert _said(Reason(Why.NO_CONCESSION, "no move in 3 (λ=0.4)", {"streak": "three"})) == ()


def test_a_reason_with_jargon_no_rule_knows_is_left_out() -> None:
    assert _said(Reason(Why.TACTIC, "new rule: PAP 0.16 with λ=0.4")) == ()


def test_a_tactic_becomes_a_plain_sentence() -> None:
    view = _views("casino", "hardliner", 0)[0]
    advice = _advice(
        (
            Reason(
                Why.TACTIC, "tactic REO (competitive): extreme", {"tactic": "REO", "strategy": "competitive"}
            ),
        ),
        {"tactic": {"name": "REO"}},
    )
    plain = plain_advice(advice, view, Vocabulary.from_scenario(load_scenario("casino")))
    assert plain.reasons == ("Their offer is extreme: answer firmly instead of meeting them halfway.",)


def test_hidden_characters_do_not_hide_a_move() -> None:
    scenario = load_scenario("casino")
    view = _views("casino", "hardliner", 0)[0]
    reading = read_move(
        "I take ３ fo\u200bod and 2 wаter, you get the rest", Vocabulary.from_scenario(scenario), view
    )
    assert reading.action is not None and reading.action.kind == "propose"
    assert reading.parsed.text.startswith("I take ３")  # the move carries the text as typed
