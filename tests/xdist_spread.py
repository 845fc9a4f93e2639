"""How `make test` (`pytest -n auto --dist loadfile`) cuts the suite into work units for its workers,
and in which order it hands them out: by file, except a few files of long, independent tests, which
go out one test at a time; the longest units first."""

from __future__ import annotations

from collections.abc import Iterable

SPREAD_FILES: dict[str, frozenset[str]] = {
    "tests/governance/test_detector_rates.py": frozenset(),
    "tests/governance/test_e2e_phrase_bank.py": frozenset(),
    "tests/governance/test_redteam.py": frozenset(),
    "tests/llm/test_gaia_experiment_llm.py": frozenset(
        {
            "test_llm_run_reports_roles_with_calls_and_tokens",
            "test_replay_reproduces_the_report",
            "test_the_store_refuses_another_endpoint",
            "test_a_failing_endpoint_falls_back_to_the_twins_and_exits_3",
            "test_llm_strict_ends_at_the_first_fallback_in_one_line",
            "test_llm_role_chooses_the_roles_a_model_plays",
            "test_without_llm_flags_the_report_has_no_llm_section",
        }
    ),
}
"""Files whose tests `make test` (`-n auto --dist loadfile`) hands to the workers one test at a time,
except that the tests named beside a file stay together (they share module-scoped fixtures, built
once: in test_gaia_experiment_llm, the recorded run, and the rule-played sessions and report table
that every run of the experiment there reuses). Each of these tests plays many sessions or reads a
whole labelled set (3-20 s of CPU), so keeping the file whole on one worker only makes that worker
finish last. Every other file stays whole (its module-scoped fixtures built once)."""

LONG_FIRST: tuple[str, ...] = (
    # CPU seconds of the unit (a file, or each test of a spread file), measured one folder at a time
    # with `-n 0` on 2026-11-28 (children's CPU included): the order of `make test`'s longest units.
    "tests/test_docs_commands.py",  # 85 (every page's commands, as subprocesses)
    "tests/llm/test_gaia_experiment_llm.py",  # 55 the shared-fixture group, well under 1 each of the rest
    "tests/web/test_web_browser.py",  # 17 here, 59 s of wall time (chromium's CPU is not counted)
    "tests/experiments/test_gaia_principal.py",  # 33 (verdicts remembered)
    "tests/experiments/test_gaia_experiment.py",  # 29
    "tests/governance/test_multi_counterparty.py",  # 25
    "tests/governance/test_amounts.py",  # 25
    "tests/cli/test_fuzz_cli.py",  # 21
    "tests/governance/test_redteam.py",  # 13-17 each (verdicts remembered)
    "tests/governance/test_terms_failclosed.py",  # 17
    "tests/experiments/test_batch_cli.py",  # 15
    "tests/governance/test_invariants.py",  # 12 (verdicts remembered)
    "tests/governance/test_e2e_phrase_bank.py",  # 10-13 each (verdicts remembered across the banks)
    "tests/governance/test_detector_rates.py",  # up to 7 each
)
"""Work units (a file, or a file of SPREAD_FILES) that take longest, longest first: they go out before
every other unit. xdist's own order (most tests first) would hand out the one-test units of
SPREAD_FILES last, and a worker that takes a long unit at the very end leaves the other idle until
it is done; handed out first, the many short units left balance the two workers. A unit not listed
keeps xdist's order after these, so a stale entry costs time, never a test."""


def spread_scope(nodeid: str) -> str:
    """The work unit of a test under `make test`: its file, or in SPREAD_FILES the test itself (or the
    file's group of tests that share a fixture)."""
    path, _, name = nodeid.partition("::")
    together = SPREAD_FILES.get(path)
    if together is None:
        return path
    return f"{path}::(shared fixture)" if name.split("[", 1)[0] in together else nodeid


def long_first(scopes: Iterable[str]) -> list[str]:
    """Work units in the order they go out: those matching LONG_FIRST in its order, then the rest
    in the order given (a unit of a SPREAD_FILES file matches its file's entry)."""
    rank = {entry: index for index, entry in enumerate(LONG_FIRST)}

    def position(scope: str) -> int:
        return rank.get(scope, rank.get(scope.partition("::")[0], len(rank)))

    return sorted(scopes, key=position)  # stable: ties keep the order given
