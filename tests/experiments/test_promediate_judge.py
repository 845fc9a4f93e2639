"""The independent MI judge (`parley.metrics.impact`): hand-computed scores, its counterfactual, and
that it shares nothing with the mediators' decisions."""

from __future__ import annotations

import ast
import json
import math
import subprocess
import sys
from pathlib import Path

import pytest

from parley.experiments.promediate import Cell, ForkingConversation, fork_impact, play_run, promediate_case
from parley.mediation.conversation import MEDIATOR, ActKind, Strategy, Utterance
from parley.mediation.mediators import GenericMediator, SocialMediator
from parley.metrics.impact import (
    BranchState,
    covered_topics,
    judge_fork,
    judge_record,
    judge_trend,
    position_agreement,
)
from parley.simulation.modes import ConflictMode

DECISION_MODULES = ("parley.mediation.breakdowns", "parley.mediation.mediators", "parley.llm")
JUDGE = Path(__file__).resolve().parents[2] / "src" / "parley" / "metrics" / "impact.py"


def test_the_judge_imports_no_module_the_mediators_decide_with() -> None:
    code = "import sys, parley.metrics.impact; print('\\n'.join(sorted(sys.modules)))"
    loaded = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    modules = loaded.split()
    assert "parley.metrics.impact" in modules
    leaked = [m for m in modules if m.startswith(DECISION_MODULES)]
    assert leaked == [], f"the judge pulls in decision modules: {leaked}"


def test_the_judge_source_names_no_detector_table_or_threshold() -> None:
    tree = ast.parse(JUDGE.read_text(encoding="utf-8"))
    imported = {node.module or "" for node in ast.walk(tree) if isinstance(node, ast.ImportFrom)} | {
        alias.name for node in ast.walk(tree) if isinstance(node, ast.Import) for alias in node.names
    }
    assert not any(m.startswith(DECISION_MODULES) for m in imported), imported
    names = {node.id for node in ast.walk(tree) if isinstance(node, ast.Name)}
    assert not names & {"detect_breakdowns", "STRATEGY_FIT", "DEFAULT_THRESHOLD", "BreakdownRubric"}


def _state(consensus: dict[str, float], positions: dict[str, dict[str, str | None]]) -> BranchState:
    return BranchState(consensus, positions)


def test_fork_judgement_is_factual_minus_counterfactual_on_the_covered_topics() -> None:
    together = {"A": {"price": "x"}, "B": {"price": "x"}, "C": {"price": "y"}}
    apart = {"A": {"price": "x"}, "B": {"price": "y"}, "C": {"price": "z"}}
    factual = [_state({"price": 0.7, "term": 0.1}, together)]
    counterfactual = [_state({"price": 0.5, "term": 0.9}, apart)]
    score = judge_fork(12, ("price",), factual, counterfactual)
    assert score.consensus_gain == pytest.approx(0.2)
    assert score.position_gain == pytest.approx(1 / 3)
    assert score.helpful and not score.harmful and score.counterfactual == "fork"
    assert json.loads(json.dumps(score.to_json(), allow_nan=False))["consensus_gain"] == pytest.approx(0.2)


def test_fork_judgement_averages_paired_replicates() -> None:
    same = {"A": {"t": "x"}, "B": {"t": "x"}}
    factual = [_state({"t": 0.6}, same), _state({"t": 0.4}, same)]
    counterfactual = [_state({"t": 0.5}, same), _state({"t": 0.5}, same)]
    score = judge_fork(3, ("t",), factual, counterfactual)
    assert score.consensus_gain == pytest.approx(0.0)
    assert not score.helpful and not score.harmful


@pytest.mark.parametrize(
    ("factual", "counterfactual", "message"),
    [
        ([], [], "paired replicates"),
        ([BranchState({"t": 0.5}, {})], [], "paired replicates"),
        ([BranchState({}, {})], [BranchState({"t": 0.5}, {})], "no consensus for topics"),
    ],
)
def test_fork_judgement_refuses_unpaired_or_incomplete_branches(
    factual: list[BranchState], counterfactual: list[BranchState], message: str
) -> None:
    with pytest.raises(ValueError, match=message):
        judge_fork(1, ("t",), factual, counterfactual)


def test_position_agreement_counts_pairs_holding_the_same_known_option() -> None:
    positions: dict[str, dict[str, str | None]] = {
        "A": {"t": "x", "u": None},
        "B": {"t": "x", "u": None},
        "C": {"t": "y", "u": "z"},
    }
    assert position_agreement(positions, ["t"]) == pytest.approx(1 / 3)
    assert position_agreement(positions, ["u"]) == 0.0  # unknown positions never agree
    assert position_agreement({"A": {"t": "x"}}, ["t"]) == 0.0


def test_trend_judgement_is_zero_on_a_steady_trend_and_sees_a_jump() -> None:
    steady = {"t": [0.1 * i for i in range(20)]}
    score = judge_trend(8, ("t",), steady, horizon=5)
    assert score is not None and score.consensus_gain == pytest.approx(0.0, abs=1e-9)
    assert math.isnan(score.position_gain) and score.counterfactual == "trend"
    jump = {"t": [0.5] * 8 + [0.8] * 12}
    lifted = judge_trend(8, ("t",), jump, horizon=5)
    assert lifted is not None and lifted.consensus_gain == pytest.approx(0.3)


def test_trend_judgement_skips_interventions_too_early_or_too_late() -> None:
    series = {"t": [0.5] * 10}
    assert judge_trend(1, ("t",), series) is None
    assert judge_trend(6, ("t",), series, horizon=5) is None
    assert judge_trend(4, ("t",), series, horizon=5) is not None


def _intervention(turn: int, text: str, **extra: object) -> Utterance:
    return Utterance(turn, MEDIATOR, ActKind.INTERVENE, text=text, **extra)  # type: ignore[arg-type]


def test_covered_topics_are_read_from_the_content() -> None:
    topics = ("price", "term", "scope")
    assert covered_topics(_intervention(1, "x", package={"term": "A", "scope": "B"}), topics) == (
        "term",
        "scope",
    )
    assert covered_topics(_intervention(1, "x", topic="price"), topics) == ("price",)
    assert covered_topics(_intervention(1, "x", topic="unknown"), topics) == topics
    assert covered_topics(_intervention(1, "x"), topics) == topics


def test_judge_record_leaves_out_what_it_cannot_judge() -> None:
    series = {"t": [0.5] * 12}
    said = [_intervention(3, "a", topic="t"), _intervention(11, "b", topic="t")]
    assert [s.turn for s in judge_record(said, series)] == [3]


def test_the_fork_judge_ignores_which_mediator_was_in_the_snapshot() -> None:
    """Branches silence the mediator, so the same state and intervention score the same whoever decided."""
    scenario = promediate_case("hmo")
    conversation = ForkingConversation(scenario, SocialMediator(), mode=ConflictMode.COMPETING, seed=101)
    conversation.run()
    assert conversation.snapshots, "the social mediator should intervene in a competing hmo conversation"
    snapshot, said = conversation.snapshots[0]
    first = fork_impact(snapshot, said, seed=101)
    snapshot.mediator = GenericMediator()
    second = fork_impact(snapshot, said, seed=101)
    assert first is not None and first == second


def test_a_conversation_row_carries_judged_interventions_as_strict_json() -> None:
    row = play_run(Cell("hmo", "competing", "social"), 100)
    assert row["MI_counterfactual"] == "fork" and row["MI_judged"] >= 1
    assert row["MI_helpful"] + row["MI_harmful"] <= row["MI_judged"]
    assert len(row["per_intervention"]) == row["interventions"]
    json.dumps(row["per_intervention"], allow_nan=False)
    judged = [i["MI"] for i in row["per_intervention"] if i["MI"] is not None]
    assert row["MI"] == pytest.approx(sum(judged) / len(judged))
    silent = play_run(Cell("hmo", "competing", "none"), 100)
    assert silent["MI_judged"] == 0 and math.isnan(silent["MI"])


def test_transformative_label_is_not_what_the_judge_scores() -> None:
    """Relabelling an intervention's strategy changes nothing the judge reads."""
    scenario = promediate_case("hmo")
    conversation = ForkingConversation(scenario, SocialMediator(), mode=ConflictMode.GENERAL, seed=102)
    conversation.run()
    snapshot, said = conversation.snapshots[0]
    relabelled = Utterance(
        said.turn,
        said.speaker,
        said.act,
        said.topic,
        said.option,
        said.package,
        said.addressee,
        said.tone,
        Strategy.EVALUATIVE if said.strategy is not Strategy.EVALUATIVE else Strategy.FACILITATIVE,
        said.text,
    )
    assert fork_impact(snapshot, said, seed=102) == fork_impact(snapshot, relabelled, seed=102)
