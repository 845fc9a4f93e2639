"""The LLM-backed ASTRA negotiator (agent ``astra-llm``): `AstraNegotiator` with its four judgement
stages played by a model, each falling back to its deterministic twin.

Composition, not a subclass: the negotiator builds an `AstraNegotiator` around the LLM stages and
hands them the view of each move through a shared `StageContext`. ASTRA's asking, accept, walk and
BATNA-floor rules and its stage-2 optimiser run unchanged.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence
from typing import Any

from parley.agents.astra.agent import AstraNegotiator, make_config
from parley.agents.astra.opponent import Evidence, PartnerModel
from parley.agents.astra.stages import PreferenceInterpreter, RuleInterpreter
from parley.domain.space import OutcomeSpace
from parley.domain.utility import FloatArray
from parley.errors import ScenarioError
from parley.llm.context import LLMSession
from parley.llm.roles.astra_common import STAGES, StageContext
from parley.llm.roles.astra_stages import (
    LLMParameterChooser,
    LLMPreferenceInterpreter,
    LLMTacticAssessor,
    LLMVirtualPartner,
)
from parley.protocol.actions import Action
from parley.protocol.view import PartyView

AGENT_NAME = "astra-llm"
"""Registry name of the LLM-backed ASTRA negotiator."""


class KeptInterpreter:
    """The rule interpreter, keeping its IPP in the stage context for an LLM virtual partner."""

    def __init__(self, context: StageContext, inner: PreferenceInterpreter | None = None) -> None:
        self.context = context
        self.inner: PreferenceInterpreter = inner or RuleInterpreter()

    def interpret(
        self,
        space: OutcomeSpace,
        own_tables: Sequence[FloatArray],
        evidence: Evidence,
        reservation_points: float,
    ) -> PartnerModel:
        """The inner interpreter's IPP (also left in the context)."""
        model = self.inner.interpret(space, own_tables, evidence, reservation_points)
        self.context.model = model
        return model


class AstraLLMNegotiator:
    """ASTRA with LLM-played stages (implements `Negotiator`).

    Args:
        party: The party it plays.
        llm: The session's LLM side.
        seed: Run seed (kept by the inner ASTRA).
        options: `AstraConfig` fields (alpha, beta, top_n, ...).
        stages: Which stages the model plays (default all of `STAGES`); the others use the twins.
        samples: Virtual-partner judgements per candidate (N; the seed uses 5, default 1).
        tactic_samples: Tactic choices (majority vote) and rankings (averaged) per proposal
            (the seed uses 5, default 1).
        history_limit: Most recent partner moves the interpreter reads.

    Raises:
        ScenarioError: an unknown stage or ASTRA option, or samples below 1.
    """

    def __init__(
        self,
        party: str,
        llm: LLMSession,
        *,
        seed: int = 0,
        options: Mapping[str, Any] | None = None,
        stages: Collection[str] = STAGES,
        samples: int = 1,
        tactic_samples: int = 1,
        history_limit: int = 12,
    ) -> None:
        unknown = sorted(set(stages) - set(STAGES))
        if unknown:
            raise ScenarioError(f"unknown ASTRA stage(s) {unknown}; expected some of {list(STAGES)}")
        for name, value in (("samples", samples), ("tactic_samples", tactic_samples)):
            if value < 1:
                raise ScenarioError(f"astra-llm option {name} must be >= 1, got {value}")
        self.party = party
        self.context = StageContext(party)
        context = self.context
        self.astra = AstraNegotiator(
            party,
            seed,
            make_config(options or {}),
            interpreter=LLMPreferenceInterpreter(context, llm, history_limit=history_limit)
            if "interpreter" in stages
            else KeptInterpreter(context),
            parameters=LLMParameterChooser(context, llm) if "parameters" in stages else None,
            virtual_partner=LLMVirtualPartner(context, llm, samples=samples)
            if "virtual_partner" in stages
            else None,
            tactics=LLMTacticAssessor(context, llm, samples=tactic_samples) if "tactics" in stages else None,
        )

    def act(self, view: PartyView) -> Action:
        """ASTRA's move, with the model playing the configured stages."""
        self.context.begin(view)
        return self.astra.act(view)

    def explain(self) -> Mapping[str, Any] | None:
        """ASTRA's decision trace, plus who answered each stage in this move (``llm`` key)."""
        trace = self.astra.explain()
        if trace is None:
            return None
        return {**trace, "llm": dict(self.context.sources)}


def create_astra_llm(
    *,
    party: str,
    seed: int,
    llm: LLMSession | None = None,
    stages: Collection[str] | str = STAGES,
    samples: int = 1,
    tactic_samples: int = 1,
    history_limit: int = 12,
    **options: Any,
) -> AstraLLMNegotiator:
    """Registry factory for agent ``astra-llm``.

    Args:
        party: The party to play.
        seed: The run seed.
        llm: The session's LLM side (build it with `LLMRuntime.session` or `LLMSession`).
        stages: Stages the model plays, as names or one comma-separated string.
        samples: Virtual-partner judgements per candidate.
        tactic_samples: Tactic choices and rankings per proposal.
        history_limit: Partner moves the interpreter reads.
        **options: `AstraConfig` fields.

    Raises:
        ScenarioError: no LLM was configured, or a bad option.
    """
    if llm is None:
        raise ScenarioError(
            "agent 'astra-llm' needs an LLM: run with --llm SPEC (e.g. --llm openai:gpt-4o-mini)"
        )
    names = [s.strip() for s in stages.split(",") if s.strip()] if isinstance(stages, str) else list(stages)
    return AstraLLMNegotiator(
        party,
        llm,
        seed=seed,
        options=options,
        stages=names,
        samples=samples,
        tactic_samples=tactic_samples,
        history_limit=history_limit,
    )
