"""The baselines' seeded draws: deterministic, in range, uniform enough, and strict about seeds."""

from __future__ import annotations

import copy
import pickle
from hashlib import blake2b

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from parley.agents.baselines.draws import Draws


@given(st.integers(0, 2**80), st.lists(st.integers(1, 10**9), min_size=1, max_size=8))
def test_a_seed_always_draws_the_same_numbers_in_range(seed: int, bounds: list[int]) -> None:
    first, second = Draws(seed), Draws(seed)
    drawn = [first.index(n) for n in bounds]
    assert drawn == [second.index(n) for n in bounds]
    assert all(0 <= value < n for value, n in zip(drawn, bounds, strict=True))
    assert 0.0 <= first.uniform() < 1.0


def test_the_stream_is_pinned() -> None:
    # The stream is part of every seeded transcript: it must not change between versions or platforms.
    draws = Draws(0)
    assert [draws.index(1000) for _ in range(6)] == [317, 797, 879, 9, 961, 728]
    assert Draws(12345).uniform() == 0.32154866288783523


def test_draw_k_of_seed_s_is_read_off_the_hash_of_s_slash_k() -> None:
    draws = Draws(42)
    for k in range(3):
        word = int.from_bytes(blake2b(f"42/{k}".encode(), digest_size=8).digest(), "little")
        assert draws.index(2**64) == word


def test_seeds_and_draws_are_independent() -> None:
    streams = {tuple(Draws(seed).index(2**32) for _ in range(3)) for seed in range(500)}
    assert len(streams) == 500
    one = Draws(7)
    assert len({one.index(2**32) for _ in range(500)}) == 500


def test_draws_are_close_to_uniform() -> None:
    draws = Draws(2026)
    counts = np.bincount([draws.index(10) for _ in range(20_000)], minlength=10)
    chi_square = float(((counts - 2_000) ** 2 / 2_000).sum())
    assert chi_square < 27.9  # the 0.1% critical value for 9 degrees of freedom
    floats = np.array([draws.uniform() for _ in range(20_000)])
    assert abs(floats.mean() - 0.5) < 0.01
    assert floats.min() >= 0.0 and floats.max() < 1.0


def test_numpy_integers_are_seeds() -> None:
    assert Draws(np.int64(5)).index(10**6) == Draws(5).index(10**6)


@pytest.mark.parametrize(
    ("seed", "error"), [(-1, ValueError), (1.5, TypeError), ("3", TypeError), (True, TypeError)]
)
def test_a_bad_seed_is_refused_with_its_value(seed: object, error: type[Exception]) -> None:
    with pytest.raises(error, match="seed"):
        Draws(seed)  # type: ignore[arg-type]


def test_an_empty_range_cannot_be_drawn_from() -> None:
    with pytest.raises(ValueError, match="empty range"):
        Draws(0).index(0)


def test_a_copied_or_pickled_stream_goes_on_where_it_was() -> None:
    draws = Draws(11)
    draws.index(5)
    restored = pickle.loads(pickle.dumps(draws))
    copied = copy.deepcopy(draws)
    assert restored.index(10**9) == copied.index(10**9) == draws.index(10**9)
