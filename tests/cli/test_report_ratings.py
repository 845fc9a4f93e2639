"""`parley report ratings DIR`: per-item means with 95% Student-t intervals over each person's latest rating,
and Spearman rank correlations with the rated runs' metrics; bad folders and files end in one line."""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

import pytest
from scipy import stats
from typer.testing import CliRunner

from linear_growth import HANG_GUARD_SECONDS
from parley.cli.app import app

runner = CliRunner()


def invoke(*args: str) -> tuple[int, str, str]:
    result = runner.invoke(app, list(args), env={"COLUMNS": "160"})
    return result.exit_code, result.stdout, result.stderr


def rating(
    run: str, scores: dict[str, int], by: str = "ana", at: float = 1.0, instrument: str = "astra"
) -> str:
    line = {
        "schema": 1,
        "run": run,
        "instrument": instrument,
        "scores": scores,
        "comment": "",
        "rated_by": by,
        "rated_at": at,
    }
    return json.dumps(line) + "\n"


def game_run(root: Path, name: str, utility: float, rounds: int, lines: list[str]) -> Path:
    folder = root / name
    folder.mkdir(parents=True)
    result = {
        "scenario": "casino",
        "agreement": {"terms": {}},
        "rounds": rounds,
        "parties": [
            {"party": "A", "agent": "human", "utility": utility, "normalized_utility": utility / 36},
            {"party": "B", "agent": "astra", "utility": 36 - utility, "normalized_utility": 1 - utility / 36},
        ],
        "pareto_distance": 0.0,
        "nash_distance": None,
    }
    (folder / "result.json").write_text(json.dumps(result))
    (folder / "game.json").write_text(json.dumps({"kind": "play", "party": "A"}))
    (folder / "ratings.jsonl").write_text("".join(lines))
    return folder


FAIRNESS = [2, 4, 3, 5]
UTILITIES = [10.0, 25.0, 20.0, 30.0]
ROUNDS = [12, 6, 8, 4]


@pytest.fixture
def rated(tmp_path: Path) -> Path:
    root = tmp_path / "runs"
    for index, (fair, utility, rounds) in enumerate(zip(FAIRNESS, UTILITIES, ROUNDS, strict=True)):
        lines = [
            rating(f"g{index}", {"strategicness": 1, "fairness": 1, "naturalness": 1}, at=1.0),  # superseded
            rating(f"g{index}", {"strategicness": 3, "fairness": fair, "naturalness": 4}, at=2.0),
        ]
        game_run(root / "play", f"g{index}", utility, rounds, lines)
    return root


def test_the_summary_has_means_with_intervals_per_item(rated: Path) -> None:
    code, out, err = invoke("report", "ratings", str(rated), "--json")
    assert code == 0, err
    report = json.loads(out)
    assert report["ratings"] == 4 and report["runs"] == 4 and report["unreadable_lines"] == 0
    items = {(i["instrument"], i["item"]): i for i in report["items"]}
    fairness = items[("astra", "fairness")]
    mean = sum(FAIRNESS) / 4
    half = stats.t.ppf(0.975, 3) * stats.tstd(FAIRNESS) / math.sqrt(4)
    assert fairness["mean"] == pytest.approx(mean) and fairness["scale"] == 5
    assert fairness["ci95"] == pytest.approx([mean - half, mean + half])
    assert (
        items[("astra", "strategicness")]["ci95"] == [3.0, 3.0]
        and items[("astra", "strategicness")]["scale"] == 4
    )
    assert items[("astra", "mean")]["mean"] == pytest.approx((3 * 4 + sum(FAIRNESS) + 4 * 4) / 12)


def test_ratings_are_rank_correlated_with_the_runs_metrics(rated: Path) -> None:
    report = json.loads(invoke("report", "ratings", str(rated), "--json")[1])
    found = {(c["item"], c["metric"]): c for c in report["correlations"]}
    rho, p = stats.spearmanr(FAIRNESS, UTILITIES)
    assert found[("fairness", "player_utility")]["spearman_rho"] == pytest.approx(rho)
    assert found[("fairness", "player_utility")]["p_value"] == pytest.approx(p)
    assert found[("fairness", "rounds")]["spearman_rho"] == pytest.approx(
        stats.spearmanr(FAIRNESS, ROUNDS)[0]
    )
    assert found[("fairness", "rounds")]["runs"] == 4
    assert ("strategicness", "rounds") not in found  # a constant rating ranks nothing
    assert ("fairness", "agreement") not in found  # nor does a constant metric


def test_the_table_is_printed(rated: Path) -> None:
    code, out, _ = invoke("report", "ratings", str(rated))
    assert code == 0
    assert "Ratings: 4 ratings of 4 runs" in out and "fairness" in out and "3.50" in out
    assert "Spearman rank correlation" in out and "player_utility" in out


def test_too_few_runs_for_a_correlation_are_said(tmp_path: Path) -> None:
    game_run(
        tmp_path, "only", 20.0, 5, [rating("only", {"strategicness": 2, "fairness": 3, "naturalness": 4})]
    )
    code, out, _ = invoke("report", "ratings", str(tmp_path))
    assert code == 0 and "No rank correlations: they need at least 3 rated runs" in out


def test_every_instrument_is_summarised(tmp_path: Path) -> None:
    for index, helpful in enumerate((2, 3, 5)):
        folder = tmp_path / f"m{index}"
        folder.mkdir()
        (folder / "metrics.json").write_text(json.dumps({"CC": 0.1 * index, "ME": None, "MI": 3.0 + index}))
        line = rating(f"m{index}", {"naturalness": 4, "helpfulness": helpful}, instrument="promediate")
        (folder / "ratings.jsonl").write_text(line)
    report = json.loads(invoke("report", "ratings", str(tmp_path), "--json")[1])
    assert {i["instrument"] for i in report["items"]} == {"promediate"}
    metrics = {c["metric"] for c in report["correlations"] if c["item"] == "helpfulness"}
    assert metrics == {"CC", "MI"}  # ME is null: not a metric of these runs


@pytest.mark.parametrize(
    ("content", "first"),
    [
        (b"{not json\n", "not a rating"),
        (b'{"instrument": "astra", "scores": {"fairness": 9}}\n', "not a rating"),
        (b"\xff\xfe\x00garbage\n", "not a rating"),
        (
            rating("x", {"strategicness": 2, "fairness": 3, "naturalness": 4}).replace("1.0", "NaN").encode(),
            "NaN",
        ),
        (b"[1, 2, 3]\n", "not an object"),
    ],
)
def test_unreadable_lines_are_counted_and_named(tmp_path: Path, content: bytes, first: str) -> None:
    folder = tmp_path / "bad"
    folder.mkdir()
    (folder / "ratings.jsonl").write_bytes(content)
    code, out, err = invoke("report", "ratings", str(tmp_path))
    assert code == 1 and out == ""
    lines = err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: no readable ratings under")
    assert "1 lines could not be read" in lines[0] and "ratings.jsonl:1" in lines[0] and first in lines[0]


def test_good_ratings_beside_bad_lines_are_reported_with_a_warning(rated: Path) -> None:
    with (rated / "play" / "g0" / "ratings.jsonl").open("a") as handle:
        handle.write("{torn\n")
    code, out, err = invoke("report", "ratings", str(rated), "--json")
    assert code == 0 and json.loads(out)["unreadable_lines"] == 1
    assert err.startswith("warning: 1 rating lines could not be read")


@pytest.mark.parametrize("where", ["missing", "file.txt", "x" * 300])
def test_a_folder_that_is_not_one_is_one_line(tmp_path: Path, where: str) -> None:
    (tmp_path / "file.txt").write_text("hello")
    code, _, err = invoke("report", "ratings", str(tmp_path / where))
    assert code == 2 and "no such folder of runs" in err and len(err.strip().splitlines()) == 1


def test_an_empty_folder_has_nothing_to_report(tmp_path: Path) -> None:
    code, _, err = invoke("report", "ratings", str(tmp_path))
    assert code == 1 and "no readable ratings under" in err


def test_many_ratings_are_read_quickly(tmp_path: Path) -> None:
    import time

    lines: list[str] = []
    for index in range(20_000):
        lines.append(
            rating("big", {"strategicness": 1 + index % 4, "fairness": 3, "naturalness": 4}, by=f"r{index}")
        )
    game_run(tmp_path, "big", 10.0, 3, lines)
    started = time.process_time()  # CPU time (the report runs in this process): other processes do not count
    code, out, _ = invoke("report", "ratings", str(tmp_path), "--json")
    assert code == 0 and json.loads(out)["ratings"] == 20_000
    # A hang guard against quadratic work over the ratings (2e8 pairs for 20,000, tens of seconds): the
    # report costs about 0.3 s of CPU. Speed targets live in benchmarks/.
    assert time.process_time() - started < HANG_GUARD_SECONDS


def test_the_json_is_strict(rated: Path) -> None:
    out = invoke("report", "ratings", str(rated), "--json")[1]

    def refuse(name: str) -> Any:
        raise AssertionError(f"{name} in the JSON")

    json.loads(out, parse_constant=refuse)
