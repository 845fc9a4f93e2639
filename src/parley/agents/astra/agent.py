"""The ASTRA negotiator: each move rebuilds the inferred partner preferences (IPP), assesses the
partner's fairness and stance (stage 1), solves the offer problem over the λ × S_max grid (stage 2)
and picks the final offer by α·PAP + β·SA (stage 3).

The other response modes live in `modes` and `walkaway`, the settings in `config`. `explain()`
returns the decision trace of the latest move; the engine stores it privately as the coaching output.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping, Sequence
from typing import Any

from parley.agents.astra.config import METHODS, AstraConfig, make_config
from parley.agents.astra.decision import Decision, Memory, Signals
from parley.agents.astra.modes import (
    ANSWER_MESSAGE,
    ASK_BACK_MESSAGE,
    ASK_MESSAGE,
    REASK_MESSAGE,
    is_last_move,
    opening_move,
    respond_to_offer,
)
from parley.agents.astra.opponent import (
    ConsistencyFinding,
    Evidence,
    PartnerModel,
    check_consistency,
    collect_evidence,
)
from parley.agents.astra.optimizer import (
    Floors,
    GridSolution,
    SolveBudget,
    parameter_grid,
    solve_by_loop,
    solve_by_milp,
    solve_by_sweep,
)
from parley.agents.astra.own import OwnSide
from parley.agents.astra.proposing import (
    RECIPROCAL_SHARE,
    Stage2Result,
    best_row,
    proposal,
    repeat_offer,
    stage2_info,
    tactic_context,
    tit_for_tat_floor,
    top_candidates,
)
from parley.agents.astra.selection import TacticContext, best_candidate, score_candidates
from parley.agents.astra.signals import (
    POINTS_SCALE,
    Fairness,
    Stance,
    assess_fairness,
    assess_stance_by_concession,
)
from parley.agents.astra.stages import (
    Candidate,
    IPPVirtualPartner,
    ParameterChooser,
    PartnerSituation,
    PreferenceInterpreter,
    RuleInterpreter,
    RuleTacticAssessor,
    TacticAssessor,
    TitForTatParameters,
    VirtualPartner,
)
from parley.agents.astra.trace import build_trace, round_floats
from parley.agents.astra.walkaway import DEADLOCK_MESSAGE, WARNING_MESSAGE, no_concession_streak
from parley.domain.utility import FloatArray, UtilityFunction
from parley.protocol.actions import Action
from parley.protocol.view import PartyView

__all__ = [
    "ANSWER_MESSAGE",
    "ASK_BACK_MESSAGE",
    "ASK_MESSAGE",
    "DEADLOCK_MESSAGE",
    "METHODS",
    "REASK_MESSAGE",
    "RECIPROCAL_SHARE",
    "WARNING_MESSAGE",
    "AstraConfig",
    "AstraNegotiator",
    "Decision",
    "Memory",
    "Signals",
    "create_astra",
    "create_astra_ablation",
    "is_last_move",
    "make_config",
    "no_concession_streak",
]

logger = logging.getLogger(__name__)


class AstraNegotiator:
    """ASTRA: opponent modelling and tit-for-tat offer optimisation (seed 003, generalised).

    Works on any discrete multi-issue space. With more than two parties every other party is
    treated as one aggregate partner (their offers and statements are pooled into one IPP).

    Args:
        party: The party this negotiator plays (informational).
        seed: Run seed (ASTRA's default stages are deterministic; kept for LLM-backed stages).
        config: Settings.
        interpreter: Stage: preference interpretation (builds the IPP).
        parameters: Stage: λ and S_max choice.
        virtual_partner: Stage: the virtual partner's TS and SI estimate.
        tactics: Stage: tactic choice and strategy assessment.
    """

    def __init__(
        self,
        party: str = "",
        seed: int = 0,
        config: AstraConfig | None = None,
        *,
        interpreter: PreferenceInterpreter | None = None,
        parameters: ParameterChooser | None = None,
        virtual_partner: VirtualPartner | None = None,
        tactics: TacticAssessor | None = None,
    ) -> None:
        self.party = party
        self.seed = seed
        self.config = config or AstraConfig()
        self.interpreter: PreferenceInterpreter = interpreter or RuleInterpreter()
        self.parameters: ParameterChooser = parameters or TitForTatParameters()
        self.virtual_partner: VirtualPartner = virtual_partner or IPPVirtualPartner()
        self.tactics: TacticAssessor = tactics or RuleTacticAssessor()
        self.memory = Memory()
        self._own: OwnSide | None = None
        self._partner_points_cache: tuple[tuple[Any, ...], FloatArray] | None = None
        self._trace: dict[str, Any] | None = None
        self._skipped_cells = 0  # MILP cells skipped by the time budget in the current decision

    # -- the Negotiator protocol -----------------------------------------------------------------

    def act(self, view: PartyView) -> Action:
        """Choose a move (and remember its decision trace for `explain`)."""
        decision, trace = self.plan(view, self.memory)
        self._trace = trace
        return decision.action

    def explain(self) -> Mapping[str, Any] | None:
        """The decision trace of the latest move (stored privately by the engine)."""
        return self._trace

    # -- planning ----------------------------------------------------------------------------------

    def own_side(self, utility: UtilityFunction) -> OwnSide:
        """The prepared own side for this utility (cached across moves)."""
        if self._own is None or self._own.utility is not utility:
            self._own = OwnSide.prepare(utility, self.config.method)
        return self._own

    def plan(self, view: PartyView, memory: Memory) -> tuple[Decision, dict[str, Any]]:
        """Decide a move from a view and a memory (updated in place) without touching other state."""
        own = self.own_side(view.utility)
        evidence = collect_evidence(view)
        model = self.interpreter.interpret(
            view.space, own.value_tables, evidence, _clip_points(own.reservation_points)
        )
        findings = check_consistency(evidence, model, memory.previous_model)
        memory.previous_model = model
        signals = self.assess(own, model, evidence)
        decision = self._decide(view, memory, own, model, evidence, findings, signals)
        trace = build_trace(view, own, model, findings, signals, decision, self.config)
        return decision, round_floats(trace)

    def assess(self, own: OwnSide, model: PartnerModel, evidence: Evidence) -> Signals:
        """Stage 1: fairness and stance of the partner's latest offer."""
        offers = evidence.partner_offers
        if not offers:
            return Signals(Fairness.UNKNOWN, Stance.UNKNOWN, None, None, None)
        agent_points = own.points(offers[-1])
        partner_points = model.points_of(offers[-1])
        previous = model.points_of(offers[-2]) if len(offers) >= 2 else None
        previous_agent = own.points(offers[-2]) if len(offers) >= 2 else None
        fairness = assess_fairness(agent_points, partner_points)
        stance = assess_stance_by_concession(previous_agent, agent_points)
        return Signals(fairness, stance, agent_points, partner_points, previous)

    def _decide(
        self,
        view: PartyView,
        memory: Memory,
        own: OwnSide,
        model: PartnerModel,
        evidence: Evidence,
        findings: Sequence[ConsistencyFinding],
        signals: Signals,
    ) -> Decision:
        """Answer or ask first; else propose, unless the offer on the table calls for another mode."""
        opening = opening_move(self.config, view, own, evidence)
        if opening is not None:
            return opening
        deadlock = memory.deadlock_warned_at is not None
        planned = self._propose(view, own, model, evidence, signals, deadlock=deadlock)
        return respond_to_offer(self.config, view, memory, own, evidence, findings, planned)

    # -- proposing ---------------------------------------------------------------------------------

    def _propose(
        self,
        view: PartyView,
        own: OwnSide,
        model: PartnerModel,
        evidence: Evidence,
        signals: Signals,
        *,
        deadlock: bool = False,
    ) -> Decision:
        """The proposal of this move: stages 2-3, or the ablation's time-based offer."""
        if not self.config.use_stages:
            return self._propose_by_time(view, own, model)
        context = tactic_context(view, own, evidence, signals)
        stage2 = self._stage2(own, model, evidence, signals, context, deadlock=deadlock)
        if not stage2.candidates:
            return repeat_offer(view, own, model, evidence, stage2)
        return self._stage3(view, model, evidence, context, stage2)

    def _stage2(
        self,
        own: OwnSide,
        model: PartnerModel,
        evidence: Evidence,
        signals: Signals,
        context: TacticContext,
        *,
        deadlock: bool,
    ) -> Stage2Result:
        """Stage 2: choose λ and S_max, set the floors, solve the grid, keep the best distinct optima."""
        previous = own.points(evidence.own_offers[-1]) if evidence.own_offers else None
        choice = self.parameters.choose(signals.fairness, signals.stance, previous, context.phase)
        lambdas, s_values = parameter_grid(
            choice.lambda_, choice.s_max, spread=self.config.lambda_spread, depth=self.config.s_max_depth
        )
        floor, capped = tit_for_tat_floor(own, evidence, context, previous, choice.s_max, deadlock=deadlock)
        reasons = [choice.reason] if capped is None else [choice.reason, capped]
        floors = Floors(floor, model.reservation_points)
        self._skipped_cells = 0
        solutions = self._solve(own, model, lambdas, s_values, floors)
        if all(s.row is None for s in solutions):
            floors = Floors(floor, float("-inf"))
            solutions = self._solve(own, model, lambdas, s_values, floors)
            reasons.append("no offer meets both floors: dropped the partner's estimated floor")
        info = stage2_info(choice, lambdas, s_values, floors, own.method, solutions, self._skipped_cells)
        return Stage2Result(top_candidates(own, model, solutions, self.config.top_n), info, reasons)

    def _stage3(
        self,
        view: PartyView,
        model: PartnerModel,
        evidence: Evidence,
        context: TacticContext,
        stage2: Stage2Result,
    ) -> Decision:
        """Stage 3: the candidate with the best α·PAP + β·SA under the tactic the context calls for."""
        candidates = stage2.candidates
        tactic, why = self.tactics.choose(context)
        situation = PartnerSituation(
            model.points_of(evidence.own_offers[-1]) if evidence.own_offers else None,
            evidence.partner_offers[-1] if evidence.partner_offers else None,
            view.space.shape,
        )
        estimates = [self.virtual_partner.assess(c, situation) for c in candidates]
        strategy = self.tactics.strategy_scores(tactic, candidates, context)
        scored = score_candidates(
            [(c.row, c.agent_points, c.partner_points) for c in candidates],
            [(e.total_score, e.strategic_intermediary) for e in estimates],
            strategy,
            alpha=self.config.alpha,
            beta=self.config.beta,
        )
        best = best_candidate(scored)
        chosen = Candidate(best.row, best.agent_points, best.partner_points)
        reasons = [*stage2.reasons, f"tactic {tactic.value} ({tactic.strategy.value}): {why}"]
        tactic_info = {
            "name": tactic.value,
            "strategy": tactic.strategy.value,
            "reason": why,
            "phase": context.phase.value,
        }
        return proposal(view, chosen, reasons, stage2=stage2.info, tactic=tactic_info, scored=scored)

    def _solve(
        self,
        own: OwnSide,
        model: PartnerModel,
        lambdas: Sequence[float],
        s_values: Sequence[float],
        floors: Floors,
    ) -> list[GridSolution]:
        """Solve the grid with the own side's method, counting cells the MILP time budget skipped."""
        if own.method == "sweep" and own.rows is not None and own.all_points is not None:
            return solve_by_sweep(
                own.all_points, self._partner_points(own, model), lambdas, s_values, floors, own.rows
            )
        if own.point_tables is None:
            raise ValueError("the MILP and loop methods need a linear-additive utility")
        if own.method == "loop":
            return solve_by_loop(own.point_tables, model.point_tables, lambdas, s_values, floors)
        seconds = self.config.milp_time_budget
        budget = SolveBudget(seconds) if seconds is not None else None
        solutions = solve_by_milp(
            own.point_tables,
            model.point_tables,
            lambdas,
            s_values,
            floors,
            keep=self.config.top_n,
            node_limit=self.config.milp_node_limit,
            node_budget=self.config.milp_node_budget,
            time_budget=budget,
        )
        self._skipped_cells += budget.skipped if budget is not None else 0
        return solutions

    def _partner_points(self, own: OwnSide, model: PartnerModel) -> FloatArray:
        assert own.rows is not None
        key = (id(own.rows), model.order, tuple(t.tobytes() for t in model.tables), model.reservation_points)
        if self._partner_points_cache is None or self._partner_points_cache[0] != key:
            self._partner_points_cache = (key, model.points(own.rows))
        return self._partner_points_cache[1]

    # -- the ablation --------------------------------------------------------------------------------

    def _propose_by_time(self, view: PartyView, own: OwnSide, model: PartnerModel) -> Decision:
        """Without stages 2-3: concede linearly in time; among packages at the target, the partner's best."""
        start = POINTS_SCALE
        end = max(own.reservation_points, self.config.ablation_target_points)
        target = start - (start - end) * view.relative_time
        # λ = -999 turns the stage-2 objective into S_p·1000 + S_a: the partner's best at the target.
        floors = Floors(target, float("-inf"))
        solutions = self._solve(own, model, (-999.0,), (POINTS_SCALE,), floors)
        row = solutions[0].row or best_row(own)
        chosen = Candidate(row, own.points(row), model.points_of(row))
        reason = (
            f"time-based target {target:.1f} points (t={view.relative_time:.2f}); best for the partner at it"
        )
        return proposal(view, chosen, [reason])


def _clip_points(points: float) -> float:
    return float(min(POINTS_SCALE, max(0.0, points)))


def create_astra(*, party: str = "", seed: int = 0, **options: Any) -> AstraNegotiator:
    """Registry factory for "astra"; options are `AstraConfig` fields.

    Raises:
        ScenarioError: an option is not an `AstraConfig` field.
    """
    return AstraNegotiator(party, seed, make_config(options))


def create_astra_ablation(*, party: str = "", seed: int = 0, **options: Any) -> AstraNegotiator:
    """Registry factory for "astra-ablation": ASTRA without stages 2-3 (time-based offers)."""
    return AstraNegotiator(party, seed, make_config({**options, "use_stages": False}))
