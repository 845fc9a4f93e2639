"""The ASTRA experiment's method: disjoint seed splits, tuning on tuning seeds only, the tuned-values
file and its checks, Wilson intervals, paired tests and the labels they give, and the CLI's guards."""

from __future__ import annotations

import json
import math
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from parley.cli.app import app
from parley.errors import ScenarioError
from parley.experiments.astra import claims as claims_module
from parley.experiments.astra import config, runs, tuning
from parley.experiments.astra.claims import baseline_comparisons, seed_claims
from parley.experiments.astra.config import (
    EVALUATION_SEEDS,
    SEED_SPLITS,
    TUNED_FILE,
    TUNING_SEEDS,
    Tunable,
    load_tuned,
    save_tuned,
    split_seeds,
)
from parley.experiments.astra.inference import (
    TestResult,
    directional_label,
    holm,
    mcnemar,
    paired_wilcoxon,
    point_label,
    score_test,
    wilson,
)
from parley.experiments.astra.runs import RunRecord, plan_runs
from parley.experiments.astra.tables import table1_markdown, tournament_markdown
from parley.scenarios.model import Scenario


def record(
    agent: str,
    partner: str,
    seed: int,
    score: float,
    other: float = 10.0,
    *,
    agreement: bool = True,
    walked: bool = False,
    study: str = "table1",
) -> RunRecord:
    """A synthetic session record (no negotiation played)."""
    return RunRecord(
        study, agent, partner, "casino-random", seed, True, score, other, score / 36, other / 36,
        agreement, walked, False, "agreement" if agreement else "walk", 10, 0.0, 0.0, "", "",
    )  # fmt: skip


# --- the split -------------------------------------------------------------------------------------


def test_tuning_and_evaluation_seeds_are_disjoint_and_fixed() -> None:
    assert TUNING_SEEDS and EVALUATION_SEEDS
    assert not set(TUNING_SEEDS) & set(EVALUATION_SEEDS)
    assert len(set(TUNING_SEEDS)) == len(TUNING_SEEDS) and len(set(EVALUATION_SEEDS)) == len(EVALUATION_SEEDS)
    assert SEED_SPLITS == {"tuning": TUNING_SEEDS, "evaluation": EVALUATION_SEEDS}


def test_split_seeds_takes_a_prefix_and_refuses_bad_input() -> None:
    assert split_seeds("evaluation", 3) == EVALUATION_SEEDS[:3]
    assert split_seeds("tuning") == TUNING_SEEDS
    for bad in (0, -1, len(TUNING_SEEDS) + 1):
        with pytest.raises(ScenarioError, match="--runs"):
            split_seeds("tuning", bad)
    for name in ("heldout", "Tuning", "tuning\u200b", "tunіng"):  # zero-width space, Cyrillic і
        with pytest.raises(ScenarioError, match="unknown split"):
            split_seeds(name)


def test_the_evaluation_plan_uses_the_tuned_values_and_only_the_split_seeds() -> None:
    tuned = load_tuned()
    seeds = split_seeds("evaluation", 4)
    specs = plan_runs(seeds=seeds, tuned=tuned, tournament_seeds=2)
    assert {spec.seed for spec in specs} <= set(seeds)
    assert {spec.seed for spec in specs if spec.study == "tournament"} == set(seeds[:2])
    for spec in specs:
        assert spec.options == tuned.options(spec.agent)
    assert {spec.agent for spec in specs if spec.study == "table1"} == set(config.SYSTEMS)


# --- tuning ----------------------------------------------------------------------------------------


def test_tuning_plays_only_tuning_seeds_and_keeps_the_best_value(monkeypatch: pytest.MonkeyPatch) -> None:
    grid = (Tunable("time-based", "exponent", (0.2, 2.0), 2.0),)
    monkeypatch.setattr(tuning, "TUNABLES", grid)
    played: list[int] = []
    real = runs.casino_game

    def recording_game(seed: int) -> Scenario:  # the runner builds every table-1 game here
        played.append(seed)
        return real(seed)

    monkeypatch.setattr(runs, "casino_game", recording_game)
    tuned = tuning.tune(TUNING_SEEDS[:2], command="test", jobs=1)
    assert played and set(played) <= set(TUNING_SEEDS[:2])
    assert not set(played) & set(EVALUATION_SEEDS)
    (parameter,) = tuned.parameters
    best = max(parameter.grid, key=lambda point: point.mean)
    assert parameter.chosen == best.value and all(p.sessions == 6 for p in parameter.grid)


@pytest.mark.parametrize(
    "seeds", [EVALUATION_SEEDS[:1], (*TUNING_SEEDS[:2], EVALUATION_SEEDS[0]), (10**9,), ()]
)
def test_tuning_refuses_any_seed_outside_the_tuning_split(seeds: tuple[int, ...]) -> None:
    with pytest.raises(ScenarioError):
        tuning.tuning_specs(seeds)


def test_ties_keep_the_registered_default_else_the_earliest() -> None:
    points = [config.GridPoint(v, m, 0.0, 3) for v, m in ((0.25, 5.0), (0.5, 5.0), (1.0, 4.0))]
    assert config.best_value(points, 0.5) == 0.5
    assert config.best_value(points, 1.0) == 0.25
    assert config.best_value([*points, config.GridPoint(2.0, 6.0, 0.0, 3)], 0.5) == 2.0


# --- the tuned file ---------------------------------------------------------------------------------


def test_the_committed_tuned_file_loads_and_was_tuned_on_tuning_seeds() -> None:
    tuned = load_tuned(TUNED_FILE)
    assert set(tuned.seeds) <= set(TUNING_SEEDS) and not set(tuned.seeds) & set(EVALUATION_SEEDS)
    assert [(p.system, p.parameter) for p in tuned.parameters] == [
        (t.system, t.parameter) for t in config.TUNABLES
    ]


def test_a_tuned_file_round_trips_as_strict_json(tmp_path: Path) -> None:
    tuned = load_tuned()
    path = save_tuned(tuned, tmp_path / "tuned.json")
    assert "NaN" not in path.read_text(encoding="utf-8")
    assert load_tuned(path) == tuned


Edit = Callable[[dict[str, Any]], None]


def _edited(tmp_path: Path, change: Edit) -> Path:
    data: dict[str, Any] = json.loads(TUNED_FILE.read_text(encoding="utf-8"))
    change(data)
    path = tmp_path / "tuned.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    return path


def _set(key: str, value: object) -> Edit:
    def edit(data: dict[str, Any]) -> None:
        data[key] = value

    return edit


def _set_first(key: str, value: object) -> Edit:
    def edit(data: dict[str, Any]) -> None:
        data["parameters"][0][key] = value

    return edit


def _hand_pick(data: dict[str, Any]) -> None:
    ablation = data["parameters"][2]
    values = [point["value"] for point in ablation["grid"]]
    ablation["chosen"] = next(v for v in values if v != ablation["chosen"])


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (_set("tuning_seeds", [EVALUATION_SEEDS[0]]), "outside the tuning split"),
        (_set("tuning_seeds", []), "outside the tuning split"),
        (_set("experiment", "gaia"), "not astra"),
        (_set("surprise", 1), "not a tuned-values file"),
        (_set_first("system", "аstra"), "do not match"),  # Cyrillic а
        (_set_first("parameter", "reciprocal_share\u200b"), "do not match"),
        (_set_first("grid", []), "not today's"),
        (_hand_pick, "not the grid's best"),
    ],
)
def test_a_stale_foreign_or_hand_edited_tuned_file_is_refused(
    tmp_path: Path, change: Edit, message: str
) -> None:
    with pytest.raises(ScenarioError, match=message):
        load_tuned(_edited(tmp_path, change))


@pytest.mark.parametrize(
    "content",
    [b"", b"{", b"\xff\xfe not utf-8", b'{"experiment": NaN}', b"[]", b" " * (config.MAX_TUNED_BYTES + 1)],
)
def test_a_malformed_tuned_file_is_one_scenario_error(tmp_path: Path, content: bytes) -> None:
    path = tmp_path / "tuned.json"
    path.write_bytes(content)
    with pytest.raises(ScenarioError) as caught:
        load_tuned(path)
    assert "\n" not in str(caught.value)


def test_a_missing_tuned_file_says_how_to_make_one(tmp_path: Path) -> None:
    with pytest.raises(ScenarioError, match="--tune"):
        load_tuned(tmp_path / "nothing.json")


# --- statistics ------------------------------------------------------------------------------------


def test_wilson_interval_of_zero_of_240_is_not_zero_width() -> None:
    rate = wilson(0, 240)
    z2 = 1.959963984540054**2
    assert rate.low == 0.0 and rate.high == pytest.approx(z2 / (240 + z2))
    assert rate.high > 0.01 and rate.percent() == "0% [0, 2]"
    full = wilson(240, 240)
    assert full.high == pytest.approx(1.0) and full.low < 0.99
    assert wilson(0, 0).percent() == "—"
    with pytest.raises(ValueError):
        wilson(3, 2)


def test_rates_in_the_tables_carry_wilson_intervals_not_plus_minus_zero() -> None:
    records = [record("astra", "base", seed, 27.0) for seed in range(240)]
    tournament = [replace(r, study="tournament") for r in records]
    for text in (table1_markdown(records), tournament_markdown(tournament)):
        assert "0% [0, 2]" in text and "100% [98, 100]" in text
        assert "± 0 " not in text and "0 ± 0" not in text
    assert "27.00 (no spread)" in table1_markdown(records)


def test_paired_tests_agree_with_their_definitions() -> None:
    result = paired_wilcoxon([3.0, 4.0, 5.0, 6.0, 7.0, 8.0], [1.0] * 6)
    assert result.p == pytest.approx(0.03125) and result.n == 6 and result.effect == pytest.approx(4.5)
    same = paired_wilcoxon([2.0, 2.0], [2.0, 2.0])
    assert same.p == 1.0 and math.isnan(same.statistic)
    flags = mcnemar([True] * 8 + [False] * 2, [False] * 10)
    assert flags.p == pytest.approx(2 * 0.5**8) and flags.effect == pytest.approx(0.8)
    assert mcnemar([False] * 5, [False] * 5).p == 1.0
    with pytest.raises(ValueError):
        paired_wilcoxon([1.0], [1.0, 2.0])
    inside = score_test(wilson(16, 100), 0.16)
    assert inside.p == pytest.approx(1.0) and inside.low < 0.16 < inside.high
    assert score_test(wilson(0, 100), 0.16).p < 1e-4


def test_holm_adjusts_step_down() -> None:
    results = [TestResult("t", 0.0, p, 10, 1.0, 0.0, 2.0) for p in (0.01, 0.04, 0.03)]
    assert [r.p_adjusted for r in holm(results)] == pytest.approx([0.03, 0.06, 0.06])


@pytest.mark.parametrize(
    ("p", "effect", "direction", "label"),
    [
        (0.001, 1.0, 1, "reproduced"),
        (0.001, -1.0, 1, "refuted"),
        (0.001, -1.0, -1, "reproduced"),
        (0.2, 1.0, 1, "inconclusive"),
        (0.001, 0.0, 1, "inconclusive"),
    ],
)
def test_directional_labels_follow_the_test(p: float, effect: float, direction: int, label: str) -> None:
    assert directional_label(TestResult("t", 1.0, p, 50, effect, -1.0, 1.0), direction) == label


def test_point_labels_follow_the_test() -> None:
    assert point_label(score_test(wilson(0, 100), 0.16)) == "refuted"
    assert point_label(score_test(wilson(16, 100), 0.16)) == "reproduced"
    assert point_label(score_test(wilson(1, 5), 0.16)) == "inconclusive"  # too few runs to tell
    assert point_label(score_test(wilson(0, 0), 0.16)) == "inconclusive"
    borderline = replace(score_test(wilson(0, 100), 0.04), p_adjusted=0.2)  # raw p 0.041
    assert borderline.p < 0.05 and point_label(borderline) == "inconclusive"


def _table1(astra: float, ablation: float, seeds: int = 30) -> list[RunRecord]:
    rows = [
        record(agent, partner, seed, score + 0.1 * (seed % 3), other=10.0)
        for seed in range(seeds)
        for agent, score in (("astra", astra), ("astra-ablation", ablation), ("time-based", ablation))
        for partner in ("base", "greedy", "fair")
    ]
    return rows


@pytest.mark.parametrize(
    ("astra", "ablation", "label", "verdict"),
    [
        (26.0, 22.0, "reproduced", "ASTRA higher"),
        (22.0, 26.0, "refuted", "ASTRA lower"),
        (24.0, 24.0, "inconclusive", "no significant difference"),
    ],
)
def test_claim_labels_and_verdicts_follow_the_paired_test(
    astra: float, ablation: float, label: str, verdict: str
) -> None:
    records = _table1(astra, ablation)
    gain = seed_claims(records)[0]
    assert gain.label == label and gain.result.n == 30 and gain.result.test == "Wilcoxon signed-rank"
    assert {c.verdict for c in baseline_comparisons(records)} == {verdict}


def test_agreement_claims_pair_only_the_seeds_where_both_agreed() -> None:
    records = _table1(26.0, 22.0, seeds=20)
    failed = {(r.agent, r.seed) for r in records if r.agent == "astra-ablation" and r.seed < 5}
    records = [
        replace(r, agreement=False, agent_utility=5.0) if (r.agent, r.seed) in failed else r for r in records
    ]
    assert seed_claims(records)[0].result.n == 15
    walks = [replace(r, agent_walked=r.seed < 8) if r.agent == "astra" else r for r in records]
    walk_claim = next(c for c in seed_claims(walks) if c.text.startswith("ASTRA walks away from `base` in"))
    assert walk_claim.result.n == 20 and walk_claim.result.effect == pytest.approx(0.4)


def test_claims_with_no_data_are_inconclusive_not_errors() -> None:
    claims = seed_claims([])
    assert claims and {c.label for c in claims} == {"inconclusive"}
    assert "— (no data)" in claims_module.claims_markdown(claims)


# --- the CLI ---------------------------------------------------------------------------------------

QUICK = ("experiment", "astra", "--jobs", "1", "--tournament-seeds", "0")


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--split", "heldout"], "unknown split"),
        (["--split", "evaluation\u200b"], "unknown split"),
        (["--runs", "-3"], "--runs"),
        (["--runs", "101"], "--runs"),
        (["--tune", "--split", "evaluation"], "--tune runs on the tuning seeds only"),
        (["--tournament-seeds", "-1"], "--tournament-seeds"),
    ],
)
def test_bad_cli_input_is_one_line(tmp_path: Path, args: list[str], message: str) -> None:
    result = CliRunner().invoke(app, ["experiment", "astra", *args, "--out", str(tmp_path / "a.md")])
    assert result.exit_code == 2, result.output
    text = result.output.strip()
    assert message in text and len(text.splitlines()) == 1 and "Traceback" not in text
    assert not (tmp_path / "a.md").exists()


def test_a_missing_or_broken_tuned_file_is_one_line(tmp_path: Path) -> None:
    broken = tmp_path / "broken.json"
    broken.write_text("{not json", encoding="utf-8")
    for path in (tmp_path / "missing.json", broken):
        result = CliRunner().invoke(
            app,
            [*QUICK, "--runs", "1", "--tuned", str(path), "--out", str(tmp_path / "a.md")],
        )
        assert result.exit_code != 0 and len(result.output.strip().splitlines()) == 1, result.output
        assert "Traceback" not in result.output


@pytest.mark.e2e
def test_tune_then_evaluate_and_the_report_is_byte_identical_on_rerun(tmp_path: Path) -> None:
    tuned = tmp_path / "tuned.json"
    runner = CliRunner()
    result = runner.invoke(
        app, ["experiment", "astra", "--tune", "--runs", "1", "--jobs", "1", "--tuned", str(tuned)]
    )
    assert result.exit_code == 0, result.output
    assert load_tuned(tuned).seeds == TUNING_SEEDS[:1]
    outputs: list[tuple[bytes, bytes]] = []
    for attempt in ("first", "second"):
        out = tmp_path / attempt / "astra.md"
        result = runner.invoke(
            app,
            [*QUICK, "--runs", "2", "--tuned", str(tuned), "--out", str(out)],
        )
        assert result.exit_code == 0, result.output
        outputs.append((out.read_bytes(), (out.parent / "astra_runs.csv").read_bytes()))
    assert outputs[0] == outputs[1]
    report = outputs[0][0].decode("utf-8")
    assert "**evaluation seeds**" in report and "## Tuning (tuning seeds only)" in report
    assert "seed 0;" in report and "± 0 " not in report
    claims = report.split("## The seed's claims, tested")[1].split("\n## ")[0]
    rows = [line for line in claims.splitlines() if line.startswith("| ") and "seed's claim" not in line]
    assert len(rows) == 11
    for row in rows:
        assert any(f"**{label}** |" in row for label in ("reproduced", "refuted", "inconclusive")), row
