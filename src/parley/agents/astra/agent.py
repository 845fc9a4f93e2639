"""The ASTRA negotiator: each move rebuilds the inferred partner preferences (IPP), assesses the
partner's fairness and stance (stage 1), solves the offer problem over the λ × S_max grid (stage 2)
and picks the final offer by α·PAP + β·SA (stage 3).

The other response modes live in `modes` and `walkaway`, the settings in `config`. `explain()`
returns the decision trace of the latest move; the engine stores it privately as the coaching output.
"""

from __future__ import annotations

import copy
import functools
import logging
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any

import numpy as np

from parley.agents.astra.coalition import (
    CoalitionModel,
    PartnerEstimate,
    focal_partner,
    present_partners,
    proposes_next,
    revealed_candidate,
    revealed_coalition,
)
from parley.agents.astra.config import METHODS, RECIPROCAL_SHARE, AstraConfig, make_config
from parley.agents.astra.deadline import aspiration, better_reachable, horizon
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
    Stage2Result,
    best_received,
    best_row,
    proposal,
    repeat_offer,
    stage2_info,
    tactic_context,
    tit_for_tat_floor,
    top_candidates,
)
from parley.agents.astra.reasons import Reason, Why
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
    ParameterChoice,
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
from parley.protocol.actions import (
    Accept,
    Action,
    CoalitionAnswer,
    DeclineCoalition,
    JoinCoalition,
    Propose,
    Reject,
)
from parley.protocol.coalition import CoalitionInvitation, invitation_view
from parley.protocol.view import PartyView, Phase

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

VARIATION_POINTS = 1.0
"""How much less (points) a package may be worth when ASTRA varies an offer it would repeat."""


class AstraNegotiator:
    """ASTRA: opponent modelling and tit-for-tat offer optimisation (seed 003, generalised).

    Works on any discrete multi-issue space. With more than two parties it keeps one IPP per
    other party and aims its offers at the coalition the acceptance rule needs (k of n, every
    vetoer included; see `coalition`). Its walk-away, concession and acceptance rules are relative
    to the round bound and to what can still be agreed before it (see `deadline`).

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
        """Choose a move (and remember its decision trace for `explain`).

        In k-of-n games, on its turn to propose, it proposes a coalition around a package the
        members it needs have revealed they would accept and that it would accept itself
        (`coalition.revealed_coalition`).
        """
        decision, trace = self.plan(view, self.memory)
        action: Action = decision.action
        if self.memory.previous_models:  # (multi-party games only)
            accepts = functools.partial(self._would_accept, view)
            coalition = revealed_coalition(view, action, accepts)
            if coalition is not None:
                trace = {**trace, "coalition": list(coalition.members)}
                action = coalition
            elif (
                isinstance(action, Propose)
                and view.phase is Phase.RESPOND
                and proposes_next(view)
                and revealed_candidate(view, accepts) is not None
            ):
                # A counter would become the next table and cost it the turn to propose the coalition.
                trace = {**trace, "coalition": "next turn"}
                action = Reject("I will propose a coalition")
        self._trace = trace
        return action

    def answer_coalition(self, view: PartyView, invitation: CoalitionInvitation) -> CoalitionAnswer:
        """Answer a coalition invitation as the same package offered on the table: join when it
        would accept that offer (planned on a copy of its memory: answering changes nothing)."""
        offer_view, memory = invitation_view(view, invitation), copy.copy(self.memory)
        own = self.own_side(offer_view.utility)
        reading = self.read(offer_view, memory, own)
        signals = self.assess(own, reading.focal_model, reading.focal)
        decision = self._respond(offer_view, memory, own, reading, signals)  # (no question first)
        if isinstance(decision.action, Accept):
            return JoinCoalition()
        return DeclineCoalition("I would not accept this package as an offer")

    def _would_accept(self, view: PartyView, package: Mapping[str, Any]) -> bool:
        """Whether it would accept package offered to it now (planned on a copy of its memory)."""
        others = [p for p in view.parties if p != view.party]
        invitation = CoalitionInvitation(
            package,
            others[0],
            (view.party,),
            (),
            view.rules.acceptance.vetoes,
            0,
            len(view.record),
            view.round,
        )
        return isinstance(self.answer_coalition(view, invitation), JoinCoalition)

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
        reading = self.read(view, memory, own)
        signals = self.assess(own, reading.focal_model, reading.focal)
        decision = self._decide(view, memory, own, reading, signals)
        trace = build_trace(view, own, reading.estimate, reading.findings, signals, decision, self.config)
        return decision, round_floats(trace)

    def read(self, view: PartyView, memory: Memory, own: OwnSide) -> Reading:
        """The IPP of every other party, the estimate stage 2 uses, and the consistency findings.

        Bilateral: one IPP from everything the partner said and offered. Multi-party: one IPP per
        other party still at the table (from its own moves only), combined into the acceptance of
        the coalition the acceptance rule needs (`CoalitionModel`); stage 1 reads the focal party
        (whose offer is on the table, else the latest to offer).
        """
        pooled = collect_evidence(view)
        reservation = _clip_points(own.reservation_points) * self.config.partner_floor_share
        if len(view.opponents) == 1:
            model = self.interpreter.interpret(view.space, own.value_tables, pooled, reservation)
            findings = check_consistency(pooled, model, memory.previous_model)
            memory.previous_model = model
            return Reading(pooled, pooled, model, model, findings)
        partners = present_partners(view) or view.opponents
        evidence = {p: collect_evidence(view, p) for p in partners}
        models = {
            p: self.interpreter.interpret(view.space, own.value_tables, evidence[p], reservation)
            for p in partners
        }
        focal = focal_partner(view, {p: len(e.partner_offers) for p, e in evidence.items()})
        findings = check_consistency(evidence[focal], models[focal], memory.previous_models.get(focal))
        memory.previous_models = models
        return Reading(pooled, evidence[focal], models[focal], CoalitionModel.of(view, models), findings)

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
        self, view: PartyView, memory: Memory, own: OwnSide, reading: Reading, signals: Signals
    ) -> Decision:
        """Answer or ask first; else propose, unless the offer on the table calls for another mode."""
        opening = opening_move(self.config, view, own, reading.pooled)
        if opening is not None:
            return opening
        return self._respond(view, memory, own, reading, signals)

    def _respond(
        self, view: PartyView, memory: Memory, own: OwnSide, reading: Reading, signals: Signals
    ) -> Decision:
        """Propose, unless the offer on the table calls for another mode (accept, walk, warn)."""
        deadlock = memory.deadlock_warned_at is not None
        planned = self._propose(view, own, reading, signals, deadlock=deadlock)
        time = horizon(view)

        def reachable(worth: float) -> bool:
            return better_reachable(time, worth)

        return respond_to_offer(
            self.config, view, memory, own, reading.focal, reading.findings, planned, reachable
        )

    # -- proposing ---------------------------------------------------------------------------------

    def _propose(
        self, view: PartyView, own: OwnSide, reading: Reading, signals: Signals, *, deadlock: bool = False
    ) -> Decision:
        """The proposal of this move: stages 2-3 (or the ablation's time-based offer), unless a
        package the others offered is worth at least as much to the agent: then that one."""
        if not self.config.use_stages:
            planned = self._propose_by_time(view, own, reading)
        else:
            context = tactic_context(view, own, reading.focal, signals)
            stage2 = self._stage2(view, own, reading, signals, context, deadlock=deadlock)
            if not stage2.candidates:
                planned = repeat_offer(view, own, reading.estimate, reading.focal, stage2)
            else:
                planned = self._stage3(view, reading, context, stage2)
        return self._varied(view, own, reading, self._or_best_received(view, own, reading, planned))

    def _or_best_received(
        self, view: PartyView, own: OwnSide, reading: Reading, planned: Decision
    ) -> Decision:
        best = best_received(own, reading.estimate, reading.pooled, check_floor=len(view.opponents) > 1)
        chosen = planned.chosen
        if best is None or chosen is None or best.agent_points < chosen.agent_points - 1e-9:
            return planned
        if best.row == chosen.row:
            return planned
        reason = Reason(
            Why.PROPOSE_BACK,
            f"a package offered to me earlier gives me {best.agent_points:.1f} points, at least what I "
            f"planned ({chosen.agent_points:.1f}): propose it back",
            {"best": best.agent_points, "planned": chosen.agent_points},
        )
        return replace(
            planned, action=proposal(view, best, []).action, reasons=[*planned.reasons, reason], chosen=best
        )

    def _varied(self, view: PartyView, own: OwnSide, reading: Reading, planned: Decision) -> Decision:
        """Another package of nearly the same worth when the plan repeats the agent's previous offer.

        The engine ends a session after a long stretch in which no party changes its offer; a
        partner that never moves (a hardliner) and an agent at its floor would trip it. Among the
        packages within `VARIATION_POINTS` below the planned one (and above the BATNA and the
        stage-2 floor, so the tit-for-tat cap holds) the one the estimate rates best for the
        others (then worth most to the agent) is proposed instead.
        """
        chosen, own_offers = planned.chosen, reading.pooled.own_offers
        if chosen is None or not own_offers or chosen.row != own_offers[-1]:
            return planned
        agent, partner = self._enumerated(own, reading.estimate)
        if agent is None or partner is None or own.enumerated is None:
            return planned
        rows = own.enumerated[0]
        floor = float((planned.stage2 or {}).get("floors", {}).get("agent", own.reservation_points))
        low = max(own.reservation_points, floor, chosen.agent_points - VARIATION_POINTS)
        near = (agent >= low - 1e-9) & (agent <= chosen.agent_points + 1e-9)
        near &= np.any(rows != np.asarray(chosen.row), axis=1)
        if not near.any():
            return planned
        members = np.flatnonzero(near)
        index = int(members[np.lexsort((-agent[members], -np.round(partner[members], 6)))[0]])
        row = tuple(int(v) for v in rows[index])
        other = Candidate(row, float(agent[index]), float(partner[index]))
        reason = Reason(
            Why.VARY,
            f"vary my offer ({other.agent_points:.1f} points) rather than repeat it",
            {"points": other.agent_points},
        )
        return replace(
            planned, action=proposal(view, other, []).action, reasons=[*planned.reasons, reason], chosen=other
        )

    def _stage2(
        self,
        view: PartyView,
        own: OwnSide,
        reading: Reading,
        signals: Signals,
        context: TacticContext,
        *,
        deadlock: bool,
    ) -> Stage2Result:
        """Stage 2: choose λ and S_max, set the floors, solve the grid, keep the best distinct optima.

        S_max is also held under the deadline ceiling (`deadline.aspiration`); the floor never
        falls below the best offer received, nor (with `aspiration_slack`) more than the slack
        below the ceiling curve: the pace of concession follows the deadline, tit-for-tat only
        decides where within the slack.
        """
        evidence, model = reading.focal, reading.estimate
        previous = own.points(evidence.own_offers[-1]) if evidence.own_offers else None
        choice = self.parameters.choose(signals.fairness, signals.stance, previous, context.phase)
        time = horizon(view)
        wanted = aspiration(time, own.reservation_points, self.config.concession_exponent)
        ceiling = self._package_at_or_above(own, wanted)
        forced = ceiling < choice.s_max - 1e-6
        if forced:
            choice = ParameterChoice(
                choice.lambda_,
                ceiling,
                f"{choice.reason}; deadline ceiling {ceiling:.1f} (t={time.relative_time:.2f})",
            )
        lambdas, s_values = parameter_grid(
            choice.lambda_, choice.s_max, spread=self.config.lambda_spread, depth=self.config.s_max_depth
        )
        received = best_received(own, model, reading.pooled, check_floor=len(view.opponents) > 1)
        floor, why = tit_for_tat_floor(
            own,
            evidence,
            context,
            previous,
            choice.s_max,
            deadlock=deadlock,
            forced=forced,
            band=self.config.deadline_band,
            received=received.agent_points if received is not None else None,
            last_move=time.last_move,
            share=self.config.reciprocal_share,
        )
        signals_values: dict[str, float | str] = {
            "stance": signals.stance.value,
            "fairness": signals.fairness.value,
        }
        reasons = [
            Reason(
                Why.PARAMETERS,
                choice.reason,
                {**signals_values, "lambda": choice.lambda_, "s_max": choice.s_max},
            ),
            *why,
        ]
        slack = self.config.aspiration_slack
        if slack is not None and not time.last_move and wanted - slack > floor + 1e-9:
            floor = min(choice.s_max, wanted - slack)
            reasons.append(
                Reason(
                    Why.DEADLINE_CURVE,
                    f"deadline curve: concede no faster than {wanted:.1f} - {slack:g} points "
                    f"(floor {floor:.1f})",
                    {"wanted": wanted, "slack": slack, "floor": floor},
                )
            )
        floors = Floors(floor, model.reservation_points)
        self._skipped_cells = 0
        solutions = self._solve(own, reading, lambdas, s_values, floors)
        if all(s.row is None for s in solutions):
            floors = Floors(floor, float("-inf"))
            solutions = self._solve(own, reading, lambdas, s_values, floors)
            reasons.append(
                Reason(
                    Why.FLOORS_RELAXED, "no offer meets both floors: dropped the partner's estimated floor"
                )
            )
        info = stage2_info(choice, lambdas, s_values, floors, own.method, solutions, self._skipped_cells)
        return Stage2Result(top_candidates(own, model, solutions, self.config.top_n), info, reasons)

    def _stage3(
        self, view: PartyView, reading: Reading, context: TacticContext, stage2: Stage2Result
    ) -> Decision:
        """Stage 3: the candidate with the best α·PAP + β·SA under the tactic the context calls for."""
        candidates = stage2.candidates
        evidence, model = reading.focal, reading.estimate
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
        reasons = [
            *stage2.reasons,
            Reason(
                Why.TACTIC,
                f"tactic {tactic.value} ({tactic.strategy.value}): {why}",
                {"tactic": tactic.value, "strategy": tactic.strategy.value},
            ),
        ]
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
        reading: Reading,
        lambdas: Sequence[float],
        s_values: Sequence[float],
        floors: Floors,
    ) -> list[GridSolution]:
        """Solve the grid with the own side's method, counting cells the MILP time budget skipped.

        The sweep weighs the estimate stage 2 aims at (the coalition's in multi-party games); the
        MILP and the loop need linear-additive points, so on spaces too large to enumerate a
        multi-party ASTRA aims at its focal partner's IPP instead.
        """
        if own.method == "sweep" and own.rows is not None:
            agent, partner = self._enumerated(own, reading.estimate)
            assert agent is not None and partner is not None
            return solve_by_sweep(agent, partner, lambdas, s_values, floors, own.rows)
        if own.point_tables is None:
            raise ValueError("the MILP and loop methods need a linear-additive utility")
        tables = reading.estimate.linear_point_tables() or reading.focal_model.point_tables
        if own.method == "loop":
            return solve_by_loop(own.point_tables, tables, lambdas, s_values, floors)
        seconds = self.config.milp_time_budget
        budget = SolveBudget(seconds) if seconds is not None else None
        solutions = solve_by_milp(
            own.point_tables,
            tables,
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

    @staticmethod
    def _package_at_or_above(own: OwnSide, points: float) -> float:
        """The worth of the agent's cheapest package worth at least points (points itself when the
        space is not enumerated): a ceiling between two packages asks for the one above it."""
        if own.enumerated is None:
            return points
        every = own.enumerated[1]
        above = every[every >= points - 1e-9]
        return float(above.min()) if above.size else float(every.max())

    def _enumerated(
        self, own: OwnSide, model: PartnerEstimate
    ) -> tuple[FloatArray | None, FloatArray | None]:
        """The agent's and the estimate's points of every outcome, when the space can be swept."""
        if own.enumerated is None:
            return None, None
        rows, points = own.enumerated
        key = (id(rows), model.cache_key())
        if self._partner_points_cache is None or self._partner_points_cache[0] != key:
            self._partner_points_cache = (key, model.points(rows))
        return points, self._partner_points_cache[1]

    # -- the ablation --------------------------------------------------------------------------------

    def _propose_by_time(self, view: PartyView, own: OwnSide, reading: Reading) -> Decision:
        """Without stages 2-3: concede linearly in time; among packages at the target, the partner's best."""
        start = POINTS_SCALE
        end = max(own.reservation_points, self.config.ablation_target_points)
        target = start - (start - end) * view.relative_time
        # λ = -999 turns the stage-2 objective into S_p·1000 + S_a: the partner's best at the target.
        floors = Floors(target, float("-inf"))
        solutions = self._solve(own, reading, (-999.0,), (POINTS_SCALE,), floors)
        row = solutions[0].row or best_row(own)
        chosen = Candidate(row, own.points(row), reading.estimate.points_of(row))
        reason = Reason(
            Why.TIME_TARGET,
            f"time-based target {target:.1f} points (t={view.relative_time:.2f}); best for the partner at it",
            {"target": target, "time": view.relative_time},
        )
        return proposal(view, chosen, [reason])


@dataclass(frozen=True)
class Reading:
    """What one move reads of the others.

    Attributes:
        pooled: Everything every other party said and offered (the asking and accepting rules,
            and the best offer received, read this).
        focal: What the focal partner said and offered (the partner itself in a bilateral game):
            stage 1, the tactic context and the walk rules read this.
        focal_model: The focal partner's IPP.
        estimate: What stages 2 and 3 weigh: the partner's IPP, or the coalition's acceptance.
        findings: Consistency findings about the focal partner.
    """

    pooled: Evidence
    focal: Evidence
    focal_model: PartnerModel
    estimate: PartnerEstimate
    findings: tuple[ConsistencyFinding, ...]


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
