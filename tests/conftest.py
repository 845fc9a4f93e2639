"""Shared test fixtures: small scenarios built in code, and a hypothesis profile for a busy machine."""

from __future__ import annotations

import os
from collections import OrderedDict
from collections.abc import Iterator
from typing import Any

import pytest
from hypothesis import HealthCheck, settings

from parley.scenarios.model import Scenario
from parley.testing.scenarios import casino_like_scenario, table_scenario, three_party_scenario
from xdist_spread import long_first, spread_scope

# A rich console created while COLUMNS is set keeps that width for good; created without it, it reads
# the width on every print, so each test's CliRunner(env={"COLUMNS": ...}) applies. Keep it unset
# when the CLI modules are first imported, whichever test (or xdist worker) imports them.
os.environ.pop("COLUMNS", None)

# Shared CI machines are slow and noisy: never fail a property test on wall-clock time.
settings.register_profile("parley", deadline=None, suppress_health_check=[HealthCheck.too_slow])
# CI replays a fixed set of examples so a run cannot fail by luck; local runs keep exploring.
settings.register_profile("ci", parent=settings.get_profile("parley"), derandomize=True)
settings.load_profile("ci" if os.environ.get("CI") else "parley")


@pytest.hookimpl(optionalhook=True)
def pytest_xdist_make_scheduler(config: pytest.Config, log: Any) -> Any:
    """Under `--dist loadfile`, xdist's file scheduler with SPREAD_FILES split and LONG_FIRST handed out
    first (other modes: xdist's own)."""
    if config.getvalue("dist") != "loadfile":
        return None
    from xdist.scheduler import LoadFileScheduling  # only under xdist, whose hook this is

    hooks = ("_split_scope", "_assign_work_unit")
    if not all(callable(getattr(LoadFileScheduling, hook, None)) for hook in hooks):  # another xdist
        return None

    class SpreadingLoadFileScheduling(LoadFileScheduling):
        _ordered = False

        def _split_scope(self, nodeid: str) -> str:
            return spread_scope(nodeid)

        def _assign_work_unit(self, node: Any) -> None:
            if not self._ordered:  # the first unit handed out: the queue is whole, the long units go first
                self._ordered = True
                queue: OrderedDict[str, Any] = self.workqueue
                ordered = [(scope, queue[scope]) for scope in long_first(queue)]
                queue.clear()
                queue.update(ordered)
            super()._assign_work_unit(node)

    return SpreadingLoadFileScheduling(config, log)


@pytest.fixture(autouse=True, scope="session")
def _no_real_audit_key_or_anchor(tmp_path_factory: pytest.TempPathFactory) -> Iterator[None]:
    """Never read the developer's audit key (~/.config/parley/audit.key) or anchor: chains are
    unkeyed and unanchored unless a test configures them (subprocesses inherit this too)."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("PARLEY_AUDIT_KEY_FILE", str(tmp_path_factory.mktemp("audit") / "absent.key"))
        patch.delenv("PARLEY_AUDIT_KEY", raising=False)
        patch.delenv("PARLEY_AUDIT_ANCHOR", raising=False)
        yield


@pytest.fixture
def casino() -> Scenario:
    """A CaSiNo-like bilateral campsite split (alice vs bob, scores 0..36, BATNA 5)."""
    return casino_like_scenario()


@pytest.fixture
def three_party() -> Scenario:
    """Three parties (ana, ben, cy) over a 4 × 4 × 4 space."""
    return three_party_scenario()


@pytest.fixture
def table() -> Scenario:
    """Two parties with random non-additive utility tables."""
    return table_scenario()
