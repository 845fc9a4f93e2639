"""The benchmark harness: discovery, measurement, task subprocesses and splicing sections."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

BENCH_DIR = Path(__file__).resolve().parents[2] / "benchmarks"
sys.path.insert(0, str(BENCH_DIR))

import harness  # noqa: E402
import run as bench_run  # noqa: E402


def test_discover_finds_the_core_section_first() -> None:
    names = bench_run.discover()
    assert names[0] == "core"
    assert all((BENCH_DIR / f"bench_{name}.py").is_file() for name in names)


def test_timing_reports_median_and_spread() -> None:
    timing = harness.Timing((0.003, 0.001, 0.002))
    assert (timing.median, timing.low, timing.high) == (0.002, 0.001, 0.003)
    assert timing.describe("ms") == "2 ms (1 ms–3 ms)"
    assert harness.Timing.from_json(timing.to_json()) == timing


def test_measure_warms_up_then_times_each_repetition() -> None:
    calls: list[int] = []
    timing = harness.measure(lambda: calls.append(1), repeat=4, warmup=2, number=3)
    assert len(calls) == 2 + 4 * 3
    assert len(timing.samples) == 4
    assert all(sample >= 0 for sample in timing.samples)


def test_splice_replaces_only_the_named_section_and_appends_new_ones() -> None:
    document = (
        "# title\n\n<!-- bench:core -->\nold core\n<!-- /bench:core -->\n\n"
        "<!-- bench:other -->\nother text\n<!-- /bench:other -->\n"
    )
    fresh = "<!-- bench:core -->\nnew core\n<!-- /bench:core -->\n"
    added = "<!-- bench:extra -->\nextra\n<!-- /bench:extra -->\n"
    result = bench_run.splice(document, {"core": fresh, "extra": added})
    assert "new core" in result and "old core" not in result
    assert "other text" in result
    assert result.rstrip().endswith("<!-- /bench:extra -->")


def test_run_task_returns_the_childs_result_with_its_peak_memory(tmp_path: Path) -> None:
    script = tmp_path / "task_ok.py"
    script.write_text(
        "from harness import report\nprint('noise')\nreport({'answer': 42})\n", encoding="utf-8"
    )
    result = harness.run_task(script)
    assert result["answer"] == 42
    assert result["peak_rss_mb"] > 1.0


def test_run_task_failure_names_the_command_and_shows_stderr(tmp_path: Path) -> None:
    script = tmp_path / "task_fails.py"
    script.write_text("raise SystemExit('the task broke')\n", encoding="utf-8")
    with pytest.raises(harness.TaskError, match=r"task_fails\.py exited 1 without a result:\nthe task"):
        harness.run_task(script)


def test_a_failing_section_is_reported_not_fatal(monkeypatch: pytest.MonkeyPatch) -> None:
    def broken(quick: bool) -> str:
        raise RuntimeError("boom")

    module = type(sys)("bench_broken")
    module.run = broken  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "bench_broken", module)
    section = bench_run.run_section("broken", quick=True)
    assert section.startswith("<!-- bench:broken -->")
    assert "**FAILED**" in section and "RuntimeError: boom" in section


def test_main_rejects_unknown_sections(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        bench_run.main(["--only", "nonexistent", "--out", "/dev/null"])
    assert "unknown section(s) ['nonexistent']" in capsys.readouterr().err


def test_lockstep_runs_the_sides_in_turn_batch_by_batch(tmp_path: Path) -> None:
    # Each side appends its name to one shared log per call: the log shows the order of the batches.
    # The calls also print to stdout, which the replies must survive.
    log = tmp_path / "order.log"
    script = tmp_path / "task_serve.py"
    script.write_text(
        "import sys\nfrom harness import report, serve\n"
        f"name = sys.argv[1]\nlog = {str(log)!r}\n"
        "def one():\n    print('noise from the call')\n    with open(log, 'a') as f:\n        f.write(name)\n"
        "report({'batches': serve(one, warmup=0)})\n",
        encoding="utf-8",
    )
    first, second = harness.lockstep(script, [(["a"], 2), (["b"], 3)], rounds=2)
    assert log.read_text() == "aabbbaabbb"
    assert len(first.samples) == len(second.samples) == 2
    assert all(sample >= 0 for sample in first.samples + second.samples)


def test_lockstep_names_a_side_that_does_not_start(tmp_path: Path) -> None:
    script = tmp_path / "task_silent.py"
    script.write_text("raise SystemExit('no serving today')\n", encoding="utf-8")
    with pytest.raises(harness.TaskError, match=r"task_silent\.py did not start serving"):
        harness.lockstep(script, [([], 1)], rounds=1)


def test_lockstep_names_a_side_that_stops_answering(tmp_path: Path) -> None:
    script = tmp_path / "task_quits.py"
    script.write_text("from harness import READY_MARKER\nprint(READY_MARKER, flush=True)\n", encoding="utf-8")
    with pytest.raises(harness.TaskError, match=r"task_quits\.py side-a stopped answering"):
        harness.lockstep(script, [(["side-a"], 1)], rounds=1)
