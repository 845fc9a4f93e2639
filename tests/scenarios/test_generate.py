"""The game generator (`parley.scenarios.generate`) and `parley scenarios generate`."""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import stats
from typer.testing import CliRunner

from parley.cli.app import app
from parley.domain.utility import LinearAdditiveUtility
from parley.errors import ScenarioError
from parley.protocol.rules import AcceptanceRule
from parley.scenarios import load_scenario, scenario_from_yaml, scenario_to_yaml
from parley.scenarios.generate import (
    MAX_OPTIONS,
    MIN_OPTIONS,
    GameSpec,
    acceptability,
    ensure_acceptable,
    generate_game,
    generate_games,
    space_utilities,
)
from parley.scenarios.model import Scenario

runner = CliRunner()


def _values(scenario: Scenario) -> np.ndarray:
    rows = scenario.space.enumerate_indices()
    return np.vstack([p.utility.evaluate_indices(rows) for p in scenario.parties])


def _acceptable(scenario: Scenario) -> np.ndarray:
    """Outcomes the scenario's rule passes with every accepting party at or above its BATNA, computed
    here from the parties' utilities and the rule (not with the generator's own function)."""
    values = _values(scenario)
    names = scenario.party_names
    ok = np.array([values[i] >= p.utility.reservation_value - 1e-9 for i, p in enumerate(scenario.parties)])
    rule = scenario.rules.acceptance
    needed = len(names) if rule.required is None else rule.required
    passing = ok.sum(axis=0) >= needed
    for veto in rule.vetoes:
        passing &= ok[names.index(veto)]
    return passing


def test_the_same_spec_gives_the_same_game_and_other_seeds_other_games() -> None:
    first = scenario_to_yaml(generate_game(GameSpec(seed=7, parties=3, issues=4)))
    again = scenario_to_yaml(generate_game(GameSpec(seed=7, parties=3, issues=4)))
    other = scenario_to_yaml(generate_game(GameSpec(seed=8, parties=3, issues=4)))
    assert first == again
    assert first != other


@settings(max_examples=40, deadline=None)
@given(
    seed=st.integers(0, 2**32 - 1),
    parties=st.integers(2, 6),
    issues=st.integers(1, 7),
    opposition=st.none() | st.floats(0.0, 1.0),
)
def test_every_game_has_a_non_empty_acceptable_set(
    seed: int, parties: int, issues: int, opposition: float | None
) -> None:
    game = generate_game(GameSpec(seed=seed, parties=parties, issues=issues, opposition=opposition))
    passing = _acceptable(game)
    assert passing.any()
    assert game.metadata["generator"]["acceptable_outcomes"] == int(passing.sum())
    assert len(game.parties) == parties and len(game.space.issues) == issues
    assert all(MIN_OPTIONS <= n <= MAX_OPTIONS for n in game.space.shape)
    values = _values(game)
    assert values.min() >= -1e-3 and values.max() <= 100 + 1e-3  # (weights are rounded to 6 digits)


@pytest.mark.parametrize("issues", [3, 4, 5, 6])
def test_outcome_counts_land_in_the_requested_range(issues: int) -> None:
    sizes = [generate_game(GameSpec(seed=s, issues=issues)).space.size for s in range(20)]
    assert all(200 <= size <= 5_000 for size in sizes), sizes
    assert len(set(sizes)) > 5  # the sizes vary from game to game


def test_multi_party_rules_are_k_of_n_with_at_most_two_vetoers() -> None:
    kinds: set[tuple[bool, bool]] = set()
    for seed in range(40):
        game = generate_game(GameSpec(seed=seed, parties=5, issues=3))
        rule = game.rules.acceptance
        assert rule.required is None or 3 <= rule.required < 5
        assert len(rule.vetoes) <= 2 and set(rule.vetoes) <= set(game.party_names)
        kinds.add((rule.required is None, bool(rule.vetoes)))
    assert len(kinds) >= 3  # unanimity and k of n, with and without vetoers, all occur
    bilateral = generate_game(GameSpec(seed=1))
    assert bilateral.rules.acceptance == AcceptanceRule()


def _mean_correlation(game: Scenario) -> float:
    """Mean Spearman correlation between the two parties' option values, over issues."""
    first, second = (p.utility for p in game.parties)
    assert isinstance(first, LinearAdditiveUtility) and isinstance(second, LinearAdditiveUtility)
    correlations: list[float] = []
    for issue in game.space.issues:
        a, b = first.values[issue.name], second.values[issue.name]
        if np.ptp(a) > 0 and np.ptp(b) > 0 and len(a) > 2:
            correlations.append(float(np.corrcoef(stats.rankdata(a), stats.rankdata(b))[0, 1]))
    return float(np.nanmean(correlations))


def test_opposition_turns_shared_interests_into_opposed_ones() -> None:
    shared = [_mean_correlation(generate_game(GameSpec(seed=s, issues=5, opposition=0.0))) for s in range(10)]
    opposed = [
        _mean_correlation(generate_game(GameSpec(seed=s, issues=5, opposition=1.0))) for s in range(10)
    ]
    assert np.mean(shared) > 0.99
    assert np.mean(opposed) < -0.99
    middle = generate_game(GameSpec(seed=3, issues=5, opposition=0.5))
    assert middle.metadata["generator"]["opposition"] == 0.5


def test_yaml_round_trip_keeps_every_utility_and_rule() -> None:
    game = generate_game(GameSpec(seed=11, parties=4, issues=3))
    back = scenario_from_yaml(scenario_to_yaml(game), source="generated.yaml")
    assert back.space == game.space
    assert back.rules == game.rules
    np.testing.assert_allclose(_values(back), _values(game))
    for mine, theirs in zip(game.parties, back.parties, strict=True):
        assert mine.utility.reservation_value == pytest.approx(theirs.utility.reservation_value)


def test_ensure_acceptable_lowers_only_the_needed_coalition_just_enough() -> None:
    values = np.array([[10.0, 50.0, 90.0], [90.0, 50.0, 10.0], [50.0, 60.0, 50.0]])
    names = ("a", "b", "c")
    rule = AcceptanceRule(2, ("a",))
    reservations = [95.0, 95.0, 95.0]  # nobody accepts anything
    assert acceptability(values, reservations, rule, names).count == 0
    lowered, adjusted = ensure_acceptable(values, reservations, rule, names)
    assert adjusted
    found = acceptability(values, lowered, rule, names)
    assert found.count >= 1
    assert lowered[0] < 95.0  # the vetoer is always in the coalition
    assert sum(r < 95.0 for r in lowered) == 2  # and one other party, not all three
    unchanged, again = ensure_acceptable(values, [0.0, 0.0, 0.0], rule, names)
    assert unchanged == [0.0, 0.0, 0.0] and not again


def test_space_utilities_matches_evaluate() -> None:
    game = generate_game(GameSpec(seed=2, parties=3, issues=3))
    values = space_utilities([p.utility for p in game.parties])  # type: ignore[misc]
    for index in (0, game.space.size // 2, game.space.size - 1):
        outcome = game.space.outcome(index)
        assert values[1, index] == pytest.approx(game.parties[1].utility.evaluate(outcome))


@pytest.mark.parametrize(
    ("fields", "named"),
    [
        ({"parties": 1}, "parties"),
        ({"parties": 9}, "parties"),
        ({"issues": 0}, "issues"),
        ({"issues": 13}, "issues"),
        ({"opposition": -0.1}, "opposition"),
        ({"opposition": 1.5}, "opposition"),
        ({"opposition": math.nan}, "opposition"),
        ({"seed": -1}, "seed"),
        ({"min_outcomes": 6_000}, "min_outcomes"),
        ({"max_outcomes": 10**9}, "min_outcomes"),
        ({"max_rounds": 0}, "max_rounds"),
    ],
)
def test_a_bad_spec_is_a_one_line_scenario_error(fields: dict[str, float], named: str) -> None:
    with pytest.raises(ScenarioError, match=named) as raised:
        GameSpec(**{"seed": 0, **fields})  # type: ignore[arg-type]
    assert "\n" not in str(raised.value)


def test_generate_games_numbers_seeds_consecutively_and_rejects_no_games() -> None:
    games = generate_games(GameSpec(seed=40, parties=2, issues=3), 3)
    assert [g.name for g in games] == [f"generated_p2_i3_s{s}" for s in (40, 41, 42)]
    with pytest.raises(ScenarioError, match="count"):
        generate_games(GameSpec(seed=0), 0)


# -- the command -----------------------------------------------------------------------------------


def _invoke(*args: str) -> tuple[int, str, str]:
    result = runner.invoke(app, list(args), env={"COLUMNS": "200"}, prog_name="parley")
    return result.exit_code, result.stdout, result.stderr


def test_command_writes_loadable_files_and_rewrites_them_identically(tmp_path: Path) -> None:
    out = tmp_path / "games"
    args = ("scenarios", "generate", "--seed", "3", "--parties", "3", "--issues", "4", "--out", str(out))
    code, stdout, _ = _invoke(*args, "--count", "2")
    assert code == 0, stdout
    files = sorted(out.glob("*.yaml"))
    assert [f.name for f in files] == ["generated_p3_i4_s3.yaml", "generated_p3_i4_s4.yaml"]
    first = [f.read_bytes() for f in files]
    scenario = load_scenario(files[0])
    assert len(scenario.parties) == 3 and _acceptable(scenario).any()
    assert "generated_p3_i4_s3.yaml" in stdout
    assert _invoke(*args, "--count", "2")[0] == 0
    assert [f.read_bytes() for f in files] == first


def test_command_with_opposition_and_rounds(tmp_path: Path) -> None:
    code, _, _ = _invoke(
        "scenarios",
        "generate",
        "--seed",
        "0",
        "--opposition",
        "1",
        "--max-rounds",
        "12",
        "--out",
        str(tmp_path),
    )
    assert code == 0
    scenario = load_scenario(tmp_path / "generated_p2_i4_s0_o100.yaml")
    assert scenario.rules.max_rounds == 12


@pytest.mark.parametrize(
    ("extra", "named"),
    [
        (("--parties", "1"), "--parties"),
        (("--parties", "99"), "--parties"),
        (("--issues", "0"), "--issues"),
        (("--opposition", "2"), "--opposition"),
        (("--count", "0"), "--count"),
        (("--seed", "-3"), "--seed"),
        (("--seed", "4294967295", "--count", "2"), "largest seed"),
    ],
)
def test_command_bad_options_fail_in_one_line_and_write_nothing(
    tmp_path: Path, extra: tuple[str, ...], named: str
) -> None:
    out = tmp_path / "games"
    args = ["scenarios", "generate", "--seed", "1", "--out", str(out)]
    for option, value in zip(extra[::2], extra[1::2], strict=True):
        if option in args:
            args[args.index(option) + 1] = value
        else:
            args += [option, value]
    code, _, stderr = _invoke(*args)
    assert code != 0
    lines = [line for line in stderr.splitlines() if line.strip()]
    assert len(lines) == 1 and lines[0].startswith("error:") and named in lines[0]
    assert not out.exists()


@pytest.mark.parametrize("target", ["a-file.txt", "a-file.txt/below"])
def test_command_refuses_an_output_that_is_not_a_folder(tmp_path: Path, target: str) -> None:
    (tmp_path / "a-file.txt").write_text("keep me\n", encoding="utf-8")
    code, _, stderr = _invoke("scenarios", "generate", "--seed", "1", "--out", str(tmp_path / target))
    assert code != 0 and stderr.startswith("error:") and "a-file.txt" in stderr
    assert (tmp_path / "a-file.txt").read_text(encoding="utf-8") == "keep me\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a-file.txt"]


def test_command_accepts_an_unusual_but_valid_folder_name(tmp_path: Path) -> None:
    out = tmp_path / "spiele\u200b-\u0430ll"  # a zero-width space and a Cyrillic "a"
    code, _, _ = _invoke("scenarios", "generate", "--seed", "5", "--out", str(out))
    assert code == 0
    assert [p.name for p in out.iterdir()] == ["generated_p2_i4_s5.yaml"]
