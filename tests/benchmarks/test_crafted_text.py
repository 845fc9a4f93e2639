"""The harness pieces the crafted-text scans share (`best_seconds`, `repeated`, `printable_unicode`,
`ORDINARY_LETTER`) and the scans' texts built from them."""

from __future__ import annotations

import random
import sys
import time
from pathlib import Path
from types import ModuleType

import pytest

BENCH_DIR = Path(__file__).resolve().parents[2] / "benchmarks"
sys.path.insert(0, str(BENCH_DIR))

import bench_moderator_scan  # noqa: E402
import bench_preflight_scan  # noqa: E402
import harness  # noqa: E402


def test_best_seconds_runs_the_action_repeat_times_and_keeps_the_fastest() -> None:
    pauses = iter([0.2, 0.0, 0.15])
    calls: list[float] = []

    def action() -> None:
        pause = next(pauses)
        calls.append(pause)
        time.sleep(pause)

    cpu, wall = harness.best_seconds(action, 3)
    assert len(calls) == 3
    assert 0 <= wall < 0.1 and 0 <= cpu < 0.1


def test_best_seconds_measures_cpu_apart_from_waiting() -> None:
    cpu, wall = harness.best_seconds(lambda: time.sleep(0.05), 1)
    assert wall >= 0.04 and cpu < wall


@pytest.mark.parametrize("repeat", [0, -3])
def test_best_seconds_refuses_no_repetition(repeat: int) -> None:
    with pytest.raises(ValueError, match="at least 1"):
        harness.best_seconds(lambda: None, repeat)


@pytest.mark.parametrize(
    ("piece", "size"),
    [("ab", 0), ("ab", 1), ("ab", 5), ("we ", 20_000), ("\u200bé€", 7), (harness.ORDINARY_LETTER, 1_000)],
)
def test_repeated_is_the_piece_over_and_over_cut_to_size(piece: str, size: int) -> None:
    text = harness.repeated(piece, size)
    assert len(text) == size
    assert text == (piece * size)[:size]


@pytest.mark.parametrize(("piece", "size"), [("", 10), ("", 0), ("ab", -1)])
def test_repeated_refuses_an_empty_piece_or_a_negative_size(piece: str, size: int) -> None:
    with pytest.raises(ValueError, match="expected a piece"):
        harness.repeated(piece, size)


def test_printable_unicode_is_printable_seeded_and_at_most_size() -> None:
    text = harness.printable_unicode(5_000, random.Random(7))
    assert len(text) == 5_000 and text.isprintable()
    assert text == harness.printable_unicode(5_000, random.Random(7))
    assert text != harness.printable_unicode(5_000, random.Random(8))
    assert harness.printable_unicode(0, random.Random(7)) == ""
    assert all(0x20 <= ord(ch) < 0x2FFFF for ch in text)


@pytest.mark.parametrize("module", [bench_moderator_scan, bench_preflight_scan])
@pytest.mark.parametrize("size", [0, 1, 333, 5_000])
def test_every_crafted_text_is_exactly_size_long(module: ModuleType, size: int) -> None:
    texts = module.crafted(size)
    assert texts and all(len(text) == size for text in texts.values())
    assert texts == module.crafted(size)


def test_both_scans_read_the_same_ordinary_letter_and_random_text() -> None:
    moderator, preflight = bench_moderator_scan.crafted(2_000), bench_preflight_scan.crafted(2_000)
    for name in ("a long ordinary letter", "random printable unicode", '"$1," repeated', '"we " repeated'):
        assert moderator[name] == preflight[name]
    assert moderator["a long ordinary letter"].startswith(harness.ORDINARY_LETTER)
