"""How `make test` (`pytest -n auto --dist loadfile`) cuts the suite into work units for its workers:
by file, except a few files of long, independent tests, which go out one test at a time."""

from __future__ import annotations

SPREAD_FILES: dict[str, frozenset[str]] = {
    "tests/governance/test_e2e_phrase_bank.py": frozenset(),
    "tests/governance/test_redteam.py": frozenset(),
    "tests/llm/test_gaia_experiment_llm.py": frozenset(
        {"test_llm_run_reports_roles_with_calls_and_tokens", "test_replay_reproduces_the_report"}
    ),
}
"""Files whose tests `make test` (`-n auto --dist loadfile`) hands to the workers one test at a time,
except that the tests named beside a file stay together (they share a module-scoped fixture, built
once). Each of these tests plays many sessions (15-40 s), so keeping the file whole on one worker only
makes that worker finish last. Every other file stays whole (its module-scoped fixtures built once)."""


def spread_scope(nodeid: str) -> str:
    """The work unit of a test under `make test`: its file, or in SPREAD_FILES the test itself (or the
    file's group of tests that share a fixture)."""
    path, _, name = nodeid.partition("::")
    together = SPREAD_FILES.get(path)
    if together is None:
        return path
    return f"{path}::(shared fixture)" if name.split("[", 1)[0] in together else nodeid
