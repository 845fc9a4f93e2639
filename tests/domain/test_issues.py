"""Issues: construction, validation errors and option lookup."""

from __future__ import annotations

import pytest

from parley.domain import Issue
from parley.errors import ScenarioError


def test_integer_range_lists_every_step_inclusive() -> None:
    issue = Issue.integer_range("units", 0, 10, step=5, unit="boxes")
    assert issue.values == (0, 5, 10)
    assert issue.unit == "boxes"
    assert issue.cardinality == 3
    assert issue.is_numeric


def test_options_keep_their_order() -> None:
    issue = Issue.options("colour", ["red", "green", "blue"])
    assert issue.values == ("red", "green", "blue")
    assert [issue.index_of(v) for v in issue.values] == [0, 1, 2]
    assert not issue.is_numeric


def test_index_of_accepts_an_integral_float_for_an_integer_option() -> None:
    issue = Issue.integer_range("units", 1, 3)
    assert issue.index_of(2.0) == 1
    assert issue.contains(3.0)
    assert not issue.contains(2.5)


def test_index_of_unknown_option_names_issue_and_options() -> None:
    issue = Issue.options("colour", ["red", "green"])
    with pytest.raises(
        ValueError, match=r"'blue' is not an option of issue 'colour' \(options: \['red', 'green'\]\)"
    ):
        issue.index_of("blue")
    assert not issue.contains("blue")


@pytest.mark.parametrize(
    ("build", "message"),
    [
        (lambda: Issue("", (1, 2)), "non-empty name"),
        (lambda: Issue("x", ()), "'x' has no options"),
        (lambda: Issue.options("x", ["a", "b", "a"]), "lists the same option twice"),
        (lambda: Issue.integer_range("x", 3, 1), r"empty range 3\.\.1"),
        (lambda: Issue.integer_range("x", 1, 3, step=0), r"step 0"),
    ],
)
def test_bad_issues_raise_scenario_errors(build: object, message: str) -> None:
    with pytest.raises(ScenarioError, match=message):
        build()  # type: ignore[operator]


def test_booleans_do_not_count_as_numeric() -> None:
    assert not Issue.options("flag", [True, False]).is_numeric
