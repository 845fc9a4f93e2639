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
from parley.agents.registry import create
from parley.cli.app import app
from parley.cli.human import (
    GLOSSARY,
    advice_text,
    brief_of,
    package_text,
    plain_advice,
    read_move,
    unreadable_reason,
)
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
            raw = [r for r in advice.reasons if not r.startswith("tactic ")]
            assert len(plain.reasons) >= len(raw), (advice.reasons, plain.reasons)
            text = advice_text(plain)
            assert not JARGON.search(text), (advice.reasons, text)
            assert set(plain.terms) <= set(GLOSSARY)


def _advice(reasons: tuple[str, ...], trace: Mapping[str, Any] | None = None) -> Advice:
    return Advice(
        "propose", "unfair", "greedy", None, None, (10.0, 30.0), False, False, None, reasons, trace or {}
    )


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        (
            "partner's stance unknown: open self-interested (λ=0.9); S_max=36.0 (my best outcome)",
            "start near your best",
        ),
        (
            "greedy and unfair partner: tit-for-tat λ=0.9; S_max=20.0 (my previous offer)",
            "put your own points first",
        ),
        (
            "generous and fair partner: tit-for-tat λ=0.3; S_max=20.0 (my previous offer)",
            "reward their cooperation",
        ),
        ("tit-for-tat: concede at most 3.0 points (floor 17.0)", "Give up at most 3 points"),
        ("tit-for-tat: concede at most 0.0 points (floor 17.0)", "Don't give up anything"),
        ("partner made no concession in 3 consecutive offers", "not made a concession in their last 3"),
        ("it ignored my warning for 3 offers; its offer (12.0) beats my BATNA", "still beats walking away"),
        (
            "2 offers below my BATNA after a warning, without improving",
            "2 more offers below your walk-away value",
        ),
        (
            "my last move before the deadline: 9.0 points beats my BATNA (5.0)",
            "last move before time runs out",
        ),
        ("time-based target 20.0 points (t=0.50); best for the partner at it", "aim for about 20 now"),
        (
            "partner says water matters most but keeps least of it in its offers",
            "They say water matters most",
        ),
    ],
)
def test_each_kind_of_reason_has_plain_words(raw: str, expected: str) -> None:
    scenario = load_scenario("casino")
    view = _views("casino", "hardliner", 0)[0]
    plain = plain_advice(_advice((raw,)), view, Vocabulary.from_scenario(scenario))
    assert len(plain.reasons) == 1 and expected in plain.reasons[0], plain.reasons
    assert not JARGON.search(plain.reasons[0])


def test_a_reason_with_jargon_no_rule_knows_is_left_out() -> None:
    view = _views("casino", "hardliner", 0)[0]
    plain = plain_advice(
        _advice(("new rule: PAP 0.16 with λ=0.4",)), view, Vocabulary.from_scenario(load_scenario("casino"))
    )
    assert plain.reasons == ()


def test_a_tactic_becomes_a_plain_sentence() -> None:
    view = _views("casino", "hardliner", 0)[0]
    advice = _advice(
        ("tactic REO (competitive): the partner's offer is extreme: answer in kind",),
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
