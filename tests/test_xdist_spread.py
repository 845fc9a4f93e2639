"""The work units `make test` hands its xdist workers: whole files, except the spread files' tests."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from xdist_spread import SPREAD_FILES, spread_scope

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
