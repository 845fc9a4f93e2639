"""The ProMediate experiment: seed splits, sensitivity variations, the seed's statistics, and a report
that is the same bytes on every rerun."""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from typer.testing import CliRunner

from parley.cli.app import app
from parley.experiments.promediate import (
    EVALUATION_SEEDS,
    SEED_SPLITS,
    TUNING_SEEDS,
    Cell,
    Variation,
    describe_seeds,
    grid,
    play_run,
    run_grid,
    varied_participants,
    write_report,
)
from parley.experiments.promediate_analysis import (
    Claim,
    Factors,
    check_claim,
    factor_analysis,
    me_mi_correlation,
    ranking,
    ranking_holds,
    run_sensitivity,
    seed_factor_structure,
    sensitivity_table,
    variations,
)
from parley.simulation.behaviour import behaviour_parameters
from parley.simulation.modes import ConflictMode
from parley.simulation.participants import SimulatedParticipant

runner = CliRunner()


def test_tuning_and_evaluation_seeds_are_disjoint_and_fixed() -> None:
    assert not set(TUNING_SEEDS) & set(EVALUATION_SEEDS)
    assert {"tuning": tuple(range(5)), "evaluation": tuple(range(100, 110))} == SEED_SPLITS
    assert "evaluation" in describe_seeds(EVALUATION_SEEDS) and "tuning" in describe_seeds(TUNING_SEEDS)
    assert "not a declared split" in describe_seeds((3, 104))


def test_every_parameter_has_a_low_and_a_high_variation() -> None:
    found = variations()
    labels = [v.label for v in found]
    assert len(labels) == len(set(labels))
    for name, *_ in behaviour_parameters():
        assert {v.level for v in found if v.name == name and v.kind == "behaviour"} == {"low", "high"}
    naming = next(v for v in found if v.name == "naming_concession" and v.level == "low")
    assert naming.value == 1.0  # low switches the naming effect off


def test_a_variation_reaches_the_participants() -> None:
    from parley.experiments.promediate import promediate_case

    scenario = promediate_case("hmo")
    assert varied_participants(scenario, ConflictMode.COMPETING, 1, None) is None
    cases = [
        (
            Variation("behaviour", "naming_concession", "low", 1.0),
            lambda p: p.behaviour.naming_concession == 1.0,
        ),
        (
            Variation("profile", "concession_rate", "high", 1.5),
            lambda p: p.profile.concession_rate == pytest.approx(0.045),
        ),
        (Variation("speaking", "system1_prob", "high", 5.0), lambda p: p.speaking.system1_prob == 1.0),
    ]
    for variation, check in cases:
        varied = varied_participants(scenario, ConflictMode.COMPETING, 1, variation)
        assert varied is not None
        for participant in varied.values():
            assert isinstance(participant, SimulatedParticipant) and check(participant), variation.label


def test_a_varied_parameter_changes_the_conversation_and_the_defaults_reproduce() -> None:
    cell = Cell("hmo", "competing", "social")
    base, again = play_run(cell, 100), play_run(cell, 100)
    assert base["consensus"] == again["consensus"] and base["MI"] == again["MI"]
    varied = play_run(cell, 100, Variation("profile", "concession_rate", "high", 3.0))
    assert varied["consensus"] != base["consensus"]


def _rows(values: dict[tuple[str, str], list[float]], metric: str = "CC") -> list[dict[str, Any]]:
    return [
        {"case": "hmo", "mode": mode, "mediator": mediator, "run": seed, metric: value}
        for (mode, mediator), series in values.items()
        for seed, value in enumerate(series)
    ]


def test_claims_are_reproduced_refuted_or_inconclusive_by_a_paired_test() -> None:
    claim = Claim("social beats generic", "CC", ("competing", "social"), ("competing", "generic"), 1)
    ahead = _rows(
        {("competing", "social"): [0.2 + 0.01 * i for i in range(10)], ("competing", "generic"): [0.1] * 10}
    )
    tested = check_claim(ahead, claim)
    assert tested.verdict == "reproduced" and tested.n == 10 and tested.p < 0.05
    behind = _rows(
        {("competing", "social"): [0.0] * 10, ("competing", "generic"): [0.1 + 0.01 * i for i in range(10)]}
    )
    assert check_claim(behind, claim).verdict == "refuted"
    tied = _rows({("competing", "social"): [0.1] * 10, ("competing", "generic"): [0.1] * 10})
    assert check_claim(tied, claim).verdict == "inconclusive" and check_claim(tied, claim).p == 1.0
    few = _rows({("competing", "social"): [0.2, 0.3], ("competing", "generic"): [0.1, 0.1]})
    assert check_claim(few, claim).verdict == "inconclusive"  # n = 2 cannot reach p < 0.05
    holes = _rows(
        {("competing", "social"): [math.inf, 0.3, math.nan], ("competing", "generic"): [0.1, 0.1, 0.1]}
    )
    assert check_claim(holes, claim).n == 1


def test_me_mi_correlation_is_spearman_over_interventions() -> None:
    interventions = [{"ME": float(i), "MI": float(i * i), "MI_rubric": None} for i in range(10)]
    rows = [{"per_intervention": interventions[:5]}, {"per_intervention": interventions[5:]}]
    corr = me_mi_correlation(rows)
    assert corr.rho == pytest.approx(1.0) and corr.n == 10 and corr.p < 0.01
    assert me_mi_correlation(rows, "MI_rubric").n == 0 and math.isnan(
        me_mi_correlation(rows, "MI_rubric").rho
    )


def test_factor_analysis_finds_a_planted_two_factor_structure() -> None:
    pytest.importorskip("sklearn")
    generator = np.random.default_rng(0)
    first, second = generator.normal(size=300), generator.normal(size=300)
    rows = [
        {
            "mediator": "social",
            "CC": a + 0.1 * generator.normal(),
            "TLE": a + 0.2 * generator.normal(),
            "ME": b + 0.2 * generator.normal(),
            "RL_turns": b + 0.3 * generator.normal(),
            "MI": generator.normal(),
        }
        for a, b in zip(first, second, strict=True)
    ]
    factors = factor_analysis(rows)
    assert factors.n == 300 and seed_factor_structure(factors) == "reproduced"
    assert seed_factor_structure(Factors({}, 0, "none")) == "inconclusive"
    assert factor_analysis(rows[:3]).note.startswith("too few")


def test_sensitivity_ranking_marks_what_moves() -> None:
    def rows(social: float) -> list[dict[str, Any]]:
        made = []
        for mediator, value in (("social", social), ("generic", 0.5), ("none", 0.1)):
            made.append({"mediator": mediator, "CC": value, "TLE": value, "ME": value, "MI": value})
        return made

    grouped = {"defaults": rows(0.9), "x = 1": rows(0.8), "x = 3": rows(0.2)}
    assert ranking(grouped["defaults"], "CC") == "social > generic > none"
    assert ranking_holds(grouped)["CC"] == (1, 2)
    table = sensitivity_table(grouped)
    assert table[-1].count("✗") == 4 and "✗" not in table[-2]


def test_sensitivity_runs_each_variation_on_the_same_grid() -> None:
    chosen = [Variation("behaviour", "naming_concession", "low", 1.0)]
    grouped = run_sensitivity((100,), chosen=chosen)
    assert list(grouped) == ["defaults", "naming_concession = 1"]
    assert len(grouped["defaults"]) == len(grouped["naming_concession = 1"]) == 18


@pytest.mark.e2e
def test_the_report_is_the_same_bytes_on_rerun(tmp_path: Path) -> None:
    cells = grid(["hmo"], [ConflictMode.COMPETING])
    reports: list[bytes] = []
    figures: list[bytes] = []
    for attempt in ("a", "b"):
        rows = run_grid(cells, (100, 101))
        out = tmp_path / attempt / "promediate.md"
        write_report(rows, out, seeds=(100, 101), command="parley experiment promediate --cases hmo")
        reports.append(out.read_bytes())
        figures.append((out.parent / "figures" / "promediate_me_mi.png").read_bytes())
    assert reports[0] == reports[1] and figures[0] == figures[1]
    text = reports[0].decode("utf-8")
    assert "wall time" not in text and "MI (mediator's own view" in text and "Wilson" in text
    assert "2 seeds (100–101; evaluation" in text


@pytest.mark.parametrize(
    ("arguments", "message"),
    [
        (["--split", "holdout"], "unknown split 'holdout'"),
        (["--sensitivity-seeds", "11"], "--sensitivity-seeds is at most 10"),
    ],
)
def test_bad_split_options_are_one_line_errors(tmp_path: Path, arguments: list[str], message: str) -> None:
    result = runner.invoke(
        app,
        [
            "experiment",
            "promediate",
            *arguments,
            "--out",
            str(tmp_path / "r.md"),
            "--deliberation-seeds",
            "0",
        ],
    )
    assert result.exit_code == 2
    assert message in result.output.replace("\n", "")
    assert "Traceback" not in result.output


@pytest.mark.e2e
def test_the_cli_plays_a_split_and_says_so(tmp_path: Path) -> None:
    out = tmp_path / "promediate.md"
    result = runner.invoke(
        app,
        [
            "experiment",
            "promediate",
            "--split",
            "tuning",
            "--cases",
            "hmo",
            "--modes",
            "competing",
            "--deliberation-seeds",
            "0",
            "--out",
            str(out),
        ],
    )
    assert result.exit_code == 0, result.output
    report = out.read_text(encoding="utf-8")
    assert "--split tuning" in report and "5 seeds (0–4; tuning" in report
    assert "## The seed's claims, tested" in report and "Spearman" in report


def test_a_report_with_one_mediator_leaves_out_what_it_cannot_compare(tmp_path: Path) -> None:
    rows = run_grid(grid(["hmo"], [ConflictMode.COMPETING], ["social"]), (100,))
    out = write_report(rows, tmp_path / "one.md", seeds=(100,))
    text = out.read_text(encoding="utf-8")
    assert "competing · Social" in text and "| 0 |" in text  # claims against absent conditions: n = 0
    assert "Factor analysis not computed: too few conversations" in text
