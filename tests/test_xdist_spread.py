"""The work units `make test` hands its xdist workers (whole files, except the spread files' tests) and
their order (LONG_FIRST first)."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from xdist_spread import LONG_FIRST, SPREAD_FILES, long_first, spread_scope

ROOT = Path(__file__).resolve().parents[1]
PHRASE_BANK = "tests/governance/test_e2e_phrase_bank.py"
GAIA_LLM = "tests/llm/test_gaia_experiment_llm.py"


def _test_functions(path: str) -> set[str]:
    tree = ast.parse((ROOT / path).read_text(encoding="utf-8"))
    return {
        node.name for node in tree.body if isinstance(node, ast.FunctionDef) and node.name.startswith("test_")
    }


@pytest.mark.parametrize("path", sorted(SPREAD_FILES))
def test_every_spread_file_and_named_test_exists(path: str) -> None:
    # A renamed file or test would silently put a slow file back on one worker, or split a shared fixture.
    functions = _test_functions(path)
    assert functions, path
    assert SPREAD_FILES[path] <= functions, SPREAD_FILES[path] - functions


def test_other_files_stay_whole() -> None:
    assert spread_scope("tests/web/test_web_api.py::test_x") == "tests/web/test_web_api.py"
    assert spread_scope("tests/web/test_web_api.py::Cls::test_x[a-b]") == "tests/web/test_web_api.py"
    assert spread_scope("tests/test_docs_commands.py") == "tests/test_docs_commands.py"


def test_spread_files_go_out_one_test_at_a_time() -> None:
    test = "test_no_binding_message_reaches_the_counterparty_without_approval"
    first = f"{PHRASE_BANK}::{test}[phrase_bank.yaml-True-0]"
    other = first.replace("[phrase_bank.yaml-True-0]", "[phrase_bank_heldout.yaml-False-0]")
    assert spread_scope(first) == first and spread_scope(other) == other


def test_tests_sharing_a_module_fixture_stay_together() -> None:
    live = spread_scope(f"{GAIA_LLM}::test_llm_run_reports_roles_with_calls_and_tokens")
    replay = spread_scope(f"{GAIA_LLM}::test_replay_reproduces_the_report")
    alone = spread_scope(f"{GAIA_LLM}::test_bad_llm_flags_are_one_line_errors[options0-x]")
    assert live == replay != alone
    assert alone == f"{GAIA_LLM}::test_bad_llm_flags_are_one_line_errors[options0-x]"


@pytest.mark.parametrize(
    "nodeid",
    [
        "",
        "::",
        "tests/governance/test_e2e_phrase_bank.py\u200b::test_x",
        "x" * 10_000,
        "tests/ԝeb/test_a.py::t",
    ],
)
def test_odd_node_ids_fall_back_to_their_file_part(nodeid: str) -> None:
    assert spread_scope(nodeid) == nodeid.partition("::")[0]


@pytest.mark.parametrize("entry", LONG_FIRST)
def test_every_long_first_entry_is_a_test_file(entry: str) -> None:
    # A renamed file would silently hand its long unit out in xdist's order again (last, often).
    path, _, name = entry.partition("::")
    assert path.endswith(".py") and (ROOT / path).is_file(), entry
    assert not name or name.split("[", 1)[0] in _test_functions(path), entry


def test_long_first_entries_are_distinct() -> None:
    assert len(set(LONG_FIRST)) == len(LONG_FIRST)


def test_long_units_go_out_first_in_their_listed_order_and_the_rest_keep_theirs() -> None:
    short = ["tests/a/test_z.py", "tests/a/test_b.py", "tests/c/test_a.py"]
    long = list(LONG_FIRST)
    assert long_first([short[0], *long[::-1], short[1], short[2]]) == [*long, *short]
    assert long_first(short) == short
    assert long_first([]) == []


def test_the_one_test_units_of_a_listed_spread_file_go_out_with_it() -> None:
    units = [spread_scope(f"{PHRASE_BANK}::test_x[{bank}]") for bank in ("a.yaml", "b.yaml")]
    assert PHRASE_BANK in LONG_FIRST
    ordered = long_first(["tests/a/test_z.py", *units])
    assert ordered[:2] == units and ordered[2] == "tests/a/test_z.py"


@pytest.mark.parametrize("scope", ["", "::", "\u200b" + PHRASE_BANK, PHRASE_BANK.upper(), "x" * 10_000])
def test_odd_or_unlisted_units_keep_their_place_after_the_long_ones(scope: str) -> None:
    assert long_first([scope, PHRASE_BANK]) == [PHRASE_BANK, scope]
