"""Seeded random draws for the baselines, free to set up.

A baseline draws a handful of numbers in a session (an opening pick before any offer is known,
a tie broken now and then), and a tournament builds thousands of baselines with fresh seeds.
Seeding numpy's generator costs about 13 µs, a tenth of a whole CaSiNo negotiation, so the
baselines draw from a counter-based stream instead: draw k of seed s is read off the BLAKE2b
hash of "s/k". Nothing is computed until a number is drawn (about 1 µs each), and the stream is
the same on every platform and Python version.
"""

from __future__ import annotations

import operator
from hashlib import blake2b

_FLOAT_SCALE = 2.0**-53


class Draws:
    """The random draws of one seed, in order.

    Args:
        seed: A non-negative integer.

    Raises:
        TypeError: seed is not an integer.
        ValueError: seed is negative.
    """

    __slots__ = ("_drawn", "seed")

    def __init__(self, seed: int) -> None:
        if type(seed) is not int:  # (every negotiator builds one: plain ints skip the checks)
            if isinstance(seed, bool):
                raise TypeError(f"a seed must be an integer, got {seed!r}")
            try:
                seed = operator.index(seed)
            except TypeError:
                raise TypeError(f"a seed must be an integer, got {seed!r}") from None
        if seed < 0:
            raise ValueError(f"a seed must not be negative, got {seed}")
        self.seed = seed
        self._drawn = 0

    def _word(self) -> int:
        """The next 64 random bits."""
        drawn = self._drawn
        self._drawn = drawn + 1
        return int.from_bytes(blake2b(b"%d/%d" % (self.seed, drawn), digest_size=8).digest(), "little")

    def index(self, n: int) -> int:
        """A uniform integer in [0, n) (its bias is below n / 2**64).

        Raises:
            ValueError: n is not positive.
        """
        if n <= 0:
            raise ValueError(f"cannot draw from an empty range (n = {n})")
        return (self._word() * n) >> 64

    def uniform(self) -> float:
        """A uniform float in [0, 1), on the grid of 2**-53."""
        return (self._word() >> 11) * _FLOAT_SCALE
