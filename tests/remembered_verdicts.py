"""The delegate's detector verdicts remembered per input, for the test files that play hundreds of
delegate sessions (the phrase banks, the red-team corpus, the invariants' examples, the strategies'
and the principal's-share sessions). Not for a file that checks that a rerun gives the same record:
remembering would make the detectors' part of it the same by construction.

Their counterparties' messages and the template drafts recur from session to session, and a verdict is a
pure function of its input: the moderator's of the message, the moderator's settings and the build it
was copied from; the preflight's of the draft, the config and its options; both of whether the trained
classifiers are on. Within `verdicts_remembered()` an input seen before gets a copy of the verdict the
real detector gave it then; every input seen for the first time is read by the real detector. The
sessions, and what the tests assert about them, are otherwise unchanged
(test_remembered_verdicts.py checks that a remembered verdict is the fresh one).
"""

from __future__ import annotations

import copy
import importlib
from collections.abc import Callable, Generator
from contextlib import contextmanager
from typing import Any

import pytest

from parley.governance.classifier import classifiers_enabled
from parley.governance.config import DomainConfig
from parley.governance.moderator import Classification, RuleModerator
from parley.governance.preflight import PreflightResult, preflight

PREFLIGHT_CALLERS = ("parley.governance.delegate.outbox", "parley.governance.delegate.resume")
"""The delegate modules that call `preflight` (each imports it by name)."""
_SCALARS = (bool, int, float, str, type(None))

_classified: dict[tuple[Any, ...], tuple[tuple[object, ...], Classification]] = {}
_preflighted: dict[tuple[Any, ...], PreflightResult] = {}
_configs: dict[str, str] = {}
"""Each distinct config's JSON (10-15 kB) once, so the remembered keys share it."""


def _moderator_key(moderator: RuleModerator, message: str, relevant: bool) -> tuple[Any, ...]:
    """Everything a verdict depends on: the settings (every scalar attribute, by value), the build
    (every other attribute, by identity: a copy shares its build's) and the input."""
    settings = vars(moderator)
    scalars = tuple(sorted((k, type(v).__name__, v) for k, v in settings.items() if isinstance(v, _SCALARS)))
    build = tuple(sorted((k, id(v)) for k, v in settings.items() if not isinstance(v, _SCALARS)))
    return (type(moderator), scalars, build, classifiers_enabled(), message, relevant)


def remembered_classify(
    classify: Callable[[RuleModerator, str, bool], Classification],
) -> Callable[..., Classification]:
    """`RuleModerator.classify` that reads each distinct input once (see the module's docstring)."""

    def classify_once(self: RuleModerator, message: str, relevant: bool = False) -> Classification:
        key = _moderator_key(self, message, relevant)
        found = _classified.get(key)
        if found is None:
            # The build's objects are kept with the verdict, so their ids in the key are never reused.
            build = tuple(v for v in vars(self).values() if not isinstance(v, _SCALARS))
            found = _classified[key] = (build, classify(self, message, relevant))
        return copy.deepcopy(found[1])

    return classify_once


def remembered_preflight(
    check: Callable[..., PreflightResult],
) -> Callable[..., PreflightResult]:
    """`preflight` that reads each distinct input once (see the module's docstring)."""

    def preflight_once(draft: str, config: DomainConfig, **options: Any) -> PreflightResult:
        shown = tuple(sorted((name, repr(value)) for name, value in options.items()))
        dumped = config.model_dump_json()
        key = (draft, _configs.setdefault(dumped, dumped), shown, classifiers_enabled())
        found = _preflighted.get(key)
        if found is None:
            found = _preflighted[key] = check(draft, config, **options)
        return copy.deepcopy(found)

    return preflight_once


@contextmanager
def verdicts_remembered() -> Generator[None]:
    """Within this block the delegate's moderator and preflight read each distinct input once."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(RuleModerator, "classify", remembered_classify(RuleModerator.classify))
        for name in PREFLIGHT_CALLERS:
            module = importlib.import_module(name)
            assert module.preflight is preflight, name  # a caller that wraps it: update this
            patch.setattr(module, "preflight", remembered_preflight(preflight))
        yield
