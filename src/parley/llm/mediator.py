"""The O13 offer mediator backed by an LLM: sees only the `MediatorView`, its package is validated.

The schema sent per call lists every issue's legal options; in a division scenario each offer is
also said as who would get what.

Twin: the Pareto mediator of `parley.mediation` (imported lazily; `SilentMediator` if it cannot be
built).
"""

from __future__ import annotations

import importlib
import json
import logging
from collections.abc import Mapping
from typing import Any

from pydantic import BaseModel, ConfigDict

from parley.domain.issues import Value
from parley.llm.context import LLMSession
from parley.llm.negotiator import repair_package
from parley.llm.render import Allocation, history_text, issues_text
from parley.llm.role import Role
from parley.llm.structured import Note, package_schema
from parley.protocol.session import MediatorView, OfferMediator

logger = logging.getLogger(__name__)

TWIN_CANDIDATES = ("ParetoMediator", "ParetoOfferMediator")
"""Names the deterministic twin may have in `parley.mediation`."""


class MediatorReply(BaseModel):
    """The mediator's structured proposal.

    Attributes:
        package: A complete package, or null to stay silent (required: an empty object is no answer).
        rationale: One or two sentences for the log (never shown to parties).
    """

    model_config = ConfigDict(extra="ignore")

    package: dict[str, str | int | float] | None
    rationale: Note = ""


class SilentMediator:
    """A mediator that never proposes (the twin of last resort)."""

    def propose(self, view: MediatorView) -> Mapping[str, Value] | None:
        """Always None."""
        return None


def default_twin() -> OfferMediator:
    """The Pareto mediator from `parley.mediation` if it is there and needs no arguments, else silence."""
    try:
        module = importlib.import_module("parley.mediation")
    except ImportError:
        return SilentMediator()
    for name in TWIN_CANDIDATES:
        factory = getattr(module, name, None)
        if factory is not None:
            try:
                return factory()
            except TypeError:
                logger.info("parley.mediation.%s needs arguments; the LLM mediator's twin stays silent", name)
    return SilentMediator()


class LLMOfferMediator:
    """An `OfferMediator` that asks a model for a package when parties stall.

    Args:
        llm: The session's LLM side (client for role "mediator").
        twin: Deterministic mediator used on fallback (default: `default_twin()`).
        history_limit: Most recent moves shown.
        template: Prompt template name.
        allocation: The scenario's division issues (``{issue: {"owner": party, "total": units}}``,
            as in ``Scenario.metadata["allocation"]``), so offers are said as who would get what.
    """

    def __init__(
        self,
        llm: LLMSession,
        twin: OfferMediator | None = None,
        *,
        history_limit: int = 12,
        template: str = "mediator",
        allocation: Mapping[str, Any] | None = None,
    ) -> None:
        self._role = Role("mediator", MediatorReply, template, llm)
        self._twin = twin if twin is not None else default_twin()
        self._history_limit = history_limit
        self._allocation = allocation

    def propose(self, view: MediatorView) -> Mapping[str, Value] | None:
        """A validated package, None to stay silent, or the twin's answer on fallback."""
        issues = {issue.name: issue.values for issue in view.space.issues}
        outcome = self._role.call(
            self.variables(view),
            validate=lambda r: _validate(view, r),
            round=view.round,
            overrides={"package": package_schema(issues, nullable=True)},
        )
        if outcome.value is None:
            return self._twin.propose(view)
        return outcome.value.package

    def variables(self, view: MediatorView) -> dict[str, Any]:
        """Template variables for this view."""
        offers = view.record.offers()
        allocation = Allocation.read(self._allocation, view.space, view.parties)
        describe = allocation.describe(None)
        return {
            "parties": ", ".join(view.parties),
            "issues": issues_text(view.space, allocation),
            "round": view.round,
            "offers": "\n".join(f"- {who}: {describe(p)}" for who, p in offers[-self._history_limit :])
            or "(none)",
            "signals": json.dumps(
                {p: dict(s) for p, s in view.signals.items() if s}, sort_keys=True, default=str
            )
            if any(view.signals.values())
            else "(none)",
            "history": history_text(view.record, self._history_limit),
        }


def _validate(view: MediatorView, reply: MediatorReply) -> MediatorReply:
    if reply.package is None:
        return reply
    package, _ = repair_package(view.space, reply.package)
    return reply.model_copy(update={"package": package})
