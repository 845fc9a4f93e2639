"""Outcome spaces: mixed-radix numbering, index round trips, enumeration and validation errors."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from parley.domain import Issue, OutcomeSpace
from parley.errors import ScenarioError


def small_space() -> OutcomeSpace:
    return OutcomeSpace.of(
        [
            Issue.options("colour", ["red", "green", "blue"]),
            Issue.integer_range("size", 1, 2),
            Issue.options("x", ["a"]),
        ]
    )


@st.composite
def spaces(draw: st.DrawFn) -> OutcomeSpace:
    shape = draw(st.lists(st.integers(1, 5), min_size=1, max_size=4))
    return OutcomeSpace.of([Issue.integer_range(f"i{n}", 0, k - 1) for n, k in enumerate(shape)])


def test_names_shape_size() -> None:
    space = small_space()
    assert space.names == ("colour", "size", "x")
    assert space.shape == (3, 2, 1)
    assert space.size == len(space) == 6
    assert space.issue("size").values == (1, 2)


def test_numbering_is_mixed_radix_with_the_last_issue_fastest() -> None:
    space = small_space()
    assert space.outcome(0) == {"colour": "red", "size": 1, "x": "a"}
    assert space.outcome(1) == {"colour": "red", "size": 2, "x": "a"}
    assert space.outcome(2) == {"colour": "green", "size": 1, "x": "a"}
    assert space.index({"colour": "blue", "size": 2, "x": "a"}) == 5


def test_iteration_and_enumeration_agree_with_outcome() -> None:
    space = small_space()
    listed = list(space)
    indices = space.enumerate_indices()
    assert indices.shape == (6, 3)
    assert indices.dtype == np.int64
    assert listed == [space.outcome(i) for i in range(space.size)]
    assert [space.from_indices(row) for row in indices] == listed
    expected = list(itertools.product(range(3), range(2), range(1)))
    assert [tuple(int(v) for v in row) for row in indices] == expected


@given(spaces(), st.data())
def test_index_round_trips(space: OutcomeSpace, data: st.DataObject) -> None:
    index = data.draw(st.integers(0, space.size - 1))
    outcome = space.outcome(index)
    space.validate(outcome)
    assert space.index(outcome) == index
    assert space.from_indices(space.to_indices(outcome)) == outcome
    assert tuple(space.enumerate_indices()[index]) == space.to_indices(outcome)


@given(spaces(), st.integers(0, 2**32 - 1))
def test_samples_are_legal_rows(space: OutcomeSpace, seed: int) -> None:
    rows = space.sample_indices(20, np.random.default_rng(seed))
    assert rows.shape == (20, len(space.issues))
    assert np.all(rows >= 0)
    assert np.all(rows < np.array(space.shape))


def test_sampling_is_deterministic_by_seed() -> None:
    space = small_space()
    first = space.sample_indices(10, np.random.default_rng(3))
    again = space.sample_indices(10, np.random.default_rng(3))
    assert np.array_equal(first, again)


@pytest.mark.parametrize(
    ("package", "message"),
    [
        ({"colour": "red", "size": 1}, r"missing \['x'\], unknown \[\]"),
        ({"colour": "red", "size": 1, "x": "a", "y": 0}, r"missing \[\], unknown \['y'\]"),
        ({"colour": "pink", "size": 1, "x": "a"}, r"'pink' is not an option of issue 'colour'"),
        ({"colour": "red", "size": 3, "x": "a"}, r"3 is not an option of issue 'size'"),
    ],
)
def test_validate_says_what_is_wrong(package: dict[str, object], message: str) -> None:
    with pytest.raises(ValueError, match=message):
        small_space().validate(package)  # type: ignore[arg-type]


def test_outcome_index_out_of_range() -> None:
    with pytest.raises(IndexError, match=r"outcome index 6 outside 0\.\.5"):
        small_space().outcome(6)
    with pytest.raises(IndexError):
        small_space().outcome(-1)


def test_unknown_issue_lookup() -> None:
    with pytest.raises(KeyError, match="no issue 'weight'"):
        small_space().issue("weight")


def test_bad_spaces() -> None:
    with pytest.raises(ScenarioError, match="at least one issue"):
        OutcomeSpace.of([])
    with pytest.raises(ScenarioError, match="duplicate issue names"):
        OutcomeSpace.of([Issue.integer_range("a", 0, 1), Issue.integer_range("a", 0, 2)])


def test_enumeration_limit() -> None:
    huge = OutcomeSpace.of([Issue.integer_range(f"i{n}", 0, 999) for n in range(4)])
    assert huge.size == 10**12
    assert not huge.fits_in_memory()
    with pytest.raises(ValueError, match="more than the enumeration limit"):
        huge.enumerate_indices()
    assert small_space().fits_in_memory(limit=6)
    assert not small_space().fits_in_memory(limit=5)
