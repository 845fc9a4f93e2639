"""The ASTRA negotiator: response modes (ask, accept, walk, propose) around the three ASTRA stages.

Each move reads the record, rebuilds the inferred partner preferences (IPP), assesses the
partner's fairness and stance (stage 1), solves the offer problem over the λ × S_max grid
(stage 2) and picks the final offer by α·PAP + β·SA (stage 3). `explain()` returns the decision
trace of the latest move; the engine stores it privately as the coaching output.
"""

from __future__ import annotations

import itertools
import logging
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, fields
from typing import Any

import numpy as np

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
    Method,
    SolveBudget,
    parameter_grid,
    solve_by_loop,
    solve_by_milp,
    solve_by_sweep,
)
from parley.agents.astra.own import OwnSide
from parley.agents.astra.selection import (
    ScoredCandidate,
    TacticContext,
    best_candidate,
    keeps_talks_alive,
    phase_of,
    score_candidates,
)
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
from parley.domain.utility import FloatArray, UtilityFunction
from parley.errors import ScenarioError
from parley.protocol.actions import Accept, Action, Propose, Say, Walk
from parley.protocol.view import PartyView

logger = logging.getLogger(__name__)

METHODS = ("auto", "sweep", "milp", "loop")
"""Accepted values of `AstraConfig.method`."""

ASK_MESSAGE = "Before we trade offers: which issues matter most to you, and which least?"
REASK_MESSAGE = "Your offers do not fit the priorities I understood. Which issue matters most to you?"
ANSWER_MESSAGE = "From most to least important to me: {order}."
ASK_BACK_MESSAGE = "What matters most to you?"
WARNING_MESSAGE = "That offer is worse for me than walking away. If it stays below that, I will leave."
RECIPROCAL_SHARE = 0.5
"""A concession is at most this share of the partner's latest one (both in ASTRA's points)."""

DEADLOCK_MESSAGE = (
    "You have not moved in your last few offers. I can meet you part of the way, "
    "but not if I am the only one conceding."
)


@dataclass(frozen=True, slots=True)
class AstraConfig:
    """ASTRA's settings (defaults follow the seed).

    Attributes:
        alpha: Weight of PAP in the final score (seed: 0.35).
        beta: Weight of SA in the final score (seed: 0.65).
        top_n: Distinct stage-2 candidates kept for stage 3.
        lambda_spread: λ is explored within ± this of the chosen value, in 0.1 steps.
        s_max_depth: S_max is explored from the chosen value down by this many points, in 1-point steps.
        no_concession_limit: Walk after this many consecutive partner offers without a concession (K).
        below_batna_limit: Walk after this many sub-BATNA partner offers following a warning.
        ask_preferences: Ask for the partner's priorities early.
        use_stages: False gives the ablation: plain time-based offers instead of stages 2-3.
        method: Stage-2 solver ("auto", "sweep", "milp" or "loop").
        accept_at_deadline: On its last move before the round bound accept any offer at or above
            the BATNA.
        ablation_target_points: Where the ablation's linear concession ends (at least the BATNA).
        milp_node_limit: Branch-and-bound nodes per MILP solve before HiGHS's best package is
            used unproven (only on spaces too large to enumerate; None: prove every cell).
        milp_node_budget: Nodes all MILP solves of one grid may use together; after that each
            cell is solved at the root only (deterministic; None: no budget).
        milp_time_budget: Seconds of solver time one grid may use, a safety net that keeps every
            decision on huge spaces within the 2 s target: once spent, the grid's remaining cells
            are skipped (counted as skipped_cells in the trace). Only skipped cells can make a
            move depend on machine speed (None: no limit).
    """

    alpha: float = 0.35
    beta: float = 0.65
    top_n: int = 5
    lambda_spread: float = 0.3
    s_max_depth: float = 10.0
    no_concession_limit: int = 3
    below_batna_limit: int = 2
    ask_preferences: bool = True
    use_stages: bool = True
    method: Method = "auto"
    accept_at_deadline: bool = True
    ablation_target_points: float = POINTS_SCALE / 2
    milp_node_limit: int | None = 40
    milp_node_budget: int | None = 150
    milp_time_budget: float | None = 0.4

    def __post_init__(self) -> None:
        problems = [
            f"{name} must be {rule}, got {value!r}"
            for name, value, rule, ok in (
                ("alpha", self.alpha, ">= 0", self.alpha >= 0),
                ("beta", self.beta, ">= 0", self.beta >= 0),
                ("top_n", self.top_n, ">= 1", self.top_n >= 1),
                ("lambda_spread", self.lambda_spread, "in [0, 1]", 0 <= self.lambda_spread <= 1),
                ("s_max_depth", self.s_max_depth, ">= 0", self.s_max_depth >= 0),
                ("no_concession_limit", self.no_concession_limit, ">= 1", self.no_concession_limit >= 1),
                ("below_batna_limit", self.below_batna_limit, ">= 1", self.below_batna_limit >= 1),
                ("method", self.method, "auto, sweep, milp or loop", self.method in METHODS),
                ("milp_node_limit", self.milp_node_limit, "None or >= 1", (self.milp_node_limit or 1) >= 1),
                (
                    "milp_node_budget",
                    self.milp_node_budget,
                    "None or >= 1",
                    (self.milp_node_budget or 1) >= 1,
                ),
            )
            if not ok
        ]
        if problems:
            raise ScenarioError("ASTRA option " + "; ".join(problems))


@dataclass(slots=True)
class Memory:
    """What the agent remembers between moves beyond its record.

    Attributes:
        warned_at: Number of partner offers seen when the agent warned it would walk (None: no warning yet).
        reasked: The agent already re-asked for priorities after an inconsistency.
        previous_model: The IPP of the previous move (for the consistency checker).
        deadlock_warned_at: Number of partner offers seen when the agent warned about a deadlock
            with an above-BATNA offer on the table (rule (a) without walking; None: not yet).
    """

    warned_at: int | None = None
    reasked: bool = False
    previous_model: PartnerModel | None = None
    deadlock_warned_at: int | None = None


@dataclass(frozen=True, slots=True)
class Signals:
    """Stage 1 results plus the scores they rest on (points)."""

    fairness: Fairness
    stance: Stance
    offer_agent_points: float | None
    offer_partner_points: float | None
    previous_offer_partner_points: float | None


@dataclass(slots=True)
class Decision:
    """One move with everything the trace reports."""

    action: Action
    mode: str
    reasons: list[str] = field(default_factory=lambda: [])
    stage2: dict[str, Any] | None = None
    tactic: dict[str, Any] | None = None
    candidates: list[ScoredCandidate] = field(default_factory=lambda: [])
    chosen: Candidate | None = None


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
        config = self.config
        answer = self._answer_priorities(view, own, evidence)
        if answer is not None:
            return answer
        if self._should_ask(view, evidence):
            return Decision(
                Say(ASK_MESSAGE, asks_priorities=True), "ask", ["no partner priorities known yet: ask"]
            )
        offer = view.offer
        proposal = self._propose(
            view, own, model, evidence, signals, deadlock=memory.deadlock_warned_at is not None
        )
        if offer is None:
            return proposal
        offered = own.points(view.space.to_indices(offer))
        reservation = own.reservation_points
        accepted = self._acceptance(view, own, evidence, proposal, offered)
        if accepted is not None:
            return accepted
        received = [own.points(row) for row in evidence.partner_offers]
        streak = no_concession_streak(received)
        if streak >= config.no_concession_limit:
            deadlock = self._deadlock(memory, evidence, received, streak, offered, reservation)
            if deadlock is not None:
                return deadlock
        if offered < reservation - 1e-9:
            below = self._below_batna(memory, own, evidence, reservation)
            if below is not None:
                return below
        if (
            any(f.check == "offer_below_agent_offer" for f in findings)
            and config.ask_preferences
            and not memory.reasked
        ):
            memory.reasked = True
            return Decision(Say(REASK_MESSAGE, asks_priorities=True), "reask", [f.detail for f in findings])
        return proposal

    def _deadlock(
        self,
        memory: Memory,
        evidence: Evidence,
        received: Sequence[float],
        streak: int,
        offered: float,
        reservation: float,
    ) -> Decision | None:
        """Rule (a): the partner made no concession in K consecutive offers.

        Walks only when no partner offer so far reaches the BATNA. With an offer at or above the
        BATNA on the table, walking is strictly worse for the principal: warn once, keep
        conceding within the floor, and take the standing offer when the partner ignores the
        warning for K more offers.
        """
        limit = self.config.no_concession_limit
        reason = f"partner made no concession in {streak} consecutive offers"
        if max(received) < reservation - 1e-9:
            return Decision(Walk(reason), "walk", [reason, "none of its offers reaches my BATNA"])
        if offered < reservation - 1e-9:
            return None
        if memory.deadlock_warned_at is None:
            memory.deadlock_warned_at = len(evidence.partner_offers)
            why = "its offer beats my BATNA, so I warn instead of walking"
            return Decision(Say(DEADLOCK_MESSAGE), "warn", [reason, why])
        ignored = len(evidence.partner_offers) - memory.deadlock_warned_at
        if ignored >= limit and streak >= limit:
            why = f"it ignored my warning for {ignored} offers; its offer ({offered:.1f}) beats my BATNA"
            return Decision(Accept(), "accept", [reason, why])
        return None

    def _acceptance(
        self, view: PartyView, own: OwnSide, evidence: Evidence, proposal: Decision, offered: float
    ) -> Decision | None:
        """Accept at or above the BATNA when the offer beats my last offer, my next one, or the deadline."""
        reservation = own.reservation_points
        if offered < reservation - 1e-9:
            return None
        latest = own.points(evidence.own_offers[-1]) if evidence.own_offers else None
        planned = proposal.chosen.agent_points if proposal.chosen is not None else None
        reason = None
        if latest is not None and offered >= latest - 1e-9:
            reason = f"offer gives me {offered:.1f} points, at least my last offer ({latest:.1f})"
        elif planned is not None and offered >= planned - 1e-9:
            reason = f"offer gives me {offered:.1f} points, at least what I would propose ({planned:.1f})"
        elif self.config.accept_at_deadline and is_last_move(view):
            reason = (
                f"my last move before the deadline: {offered:.1f} points beats my BATNA ({reservation:.1f})"
            )
        return None if reason is None else Decision(Accept(), "accept", [reason])

    def _answer_priorities(self, view: PartyView, own: OwnSide, evidence: Evidence) -> Decision | None:
        """Answer a partner's direct question about priorities (once), truthfully, and ask back if needed."""
        asked = False
        for event in reversed(view.record):
            if event.kind != "action":
                continue
            if event.party == view.party:
                if event.data.get("kind") == "say" and event.data.get("priorities"):
                    return None  # already stated
                break
            if event.data.get("kind") == "say" and event.data.get("asks_priorities"):
                asked = True
                break
        if not asked:
            return None
        order = own.priorities()
        ask_back = self._should_ask(view, evidence)
        text = ANSWER_MESSAGE.format(order=", ".join(order)) + (f" {ASK_BACK_MESSAGE}" if ask_back else "")
        reason = "the partner asked for my priorities: answer truthfully (it helps find integrative trades)"
        return Decision(Say(text, priorities=order, asks_priorities=ask_back), "answer", [reason])

    def _should_ask(self, view: PartyView, evidence: Evidence) -> bool:
        return (
            self.config.ask_preferences
            and not evidence.statements
            and not evidence.asked
            and not evidence.own_offers
            and view.relative_time < 1 / 3
        )

    def _below_batna(
        self, memory: Memory, own: OwnSide, evidence: Evidence, reservation: float
    ) -> Decision | None:
        """Rule (b): warn when a sub-BATNA offer does not improve; walk when the warning is ignored.

        Ignored means the partner's latest `below_batna_limit` offers since the warning all stay
        below the BATNA and none improves on the offer before it (in the agent's points): a
        partner still conceding toward the zone of agreement is heeding the warning.
        """
        offers = evidence.partner_offers
        if memory.warned_at is None:
            # An opening anchor below the BATNA is normal; a partner standing still below it is not.
            if len(offers) < 2 or own.points(offers[-1]) > own.points(offers[-2]) + 1e-9:
                return None
            memory.warned_at = len(offers)
            reason = "offer below my BATNA and no better than the previous one: warn before walking"
            return Decision(Say(WARNING_MESSAGE), "warn", [reason])
        limit = self.config.below_batna_limit
        if len(offers) - memory.warned_at < limit:
            return None
        # the offer that drew the warning (or a later one) and the `limit` offers after it
        recent = [own.points(row) for row in offers[-(limit + 1) :]]
        below = all(points < reservation - 1e-9 for points in recent[-limit:])
        improved = any(after > before + 1e-9 for before, after in itertools.pairwise(recent))
        if below and not improved:
            reason = f"{limit} offers below my BATNA after a warning, without improving"
            return Decision(Walk(reason), "walk", [reason])
        return None

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
        if not self.config.use_stages:
            return self._propose_by_time(view, own, model)
        previous = own.points(evidence.own_offers[-1]) if evidence.own_offers else None
        phase = phase_of(view.relative_time, len(evidence.own_offers))
        choice = self.parameters.choose(signals.fairness, signals.stance, previous, phase)
        lambdas, s_values = parameter_grid(
            choice.lambda_, choice.s_max, spread=self.config.lambda_spread, depth=self.config.s_max_depth
        )
        context = self._tactic_context(view, own, model, evidence, signals)
        reasons = [choice.reason]
        floor = own.reservation_points
        cap = self._concession_cap(evidence, own, context, deadlock)
        if previous is not None and cap is not None:
            floor = max(floor, min(previous, choice.s_max) - cap)
            reasons.append(f"tit-for-tat: concede at most {cap:.1f} points (floor {floor:.1f})")
        floors = Floors(floor, model.reservation_points)
        self._skipped_cells = 0
        solutions = self._solve(own, model, lambdas, s_values, floors)
        if all(s.row is None for s in solutions):
            floors = Floors(floor, float("-inf"))
            solutions = self._solve(own, model, lambdas, s_values, floors)
            reasons.append("no offer meets both floors: dropped the partner's estimated floor")
        candidates = self._candidates(own, model, solutions)
        stage2: dict[str, Any] = {
            "lambda": choice.lambda_,
            "s_max": choice.s_max,
            "lambdas": list(lambdas),
            "s_max_values": list(s_values),
            "floors": {"agent": floors.agent, "partner": floors.partner},
            "method": own.method,
            "solved_cells": len(solutions),
            "unproven_cells": sum(not s.proven for s in solutions),
            "skipped_cells": self._skipped_cells,
        }
        if not candidates:
            fallback = evidence.own_offers[-1] if evidence.own_offers else self._best_row(own)
            chosen = Candidate(fallback, own.points(fallback), model.points_of(fallback))
            reasons.append("no feasible candidate: repeat my previous (or best) offer")
            return self._proposal(view, chosen, "propose", reasons, stage2=stage2)
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
        reasons.append(f"tactic {tactic.value} ({tactic.strategy.value}): {why}")
        tactic_info = {
            "name": tactic.value,
            "strategy": tactic.strategy.value,
            "reason": why,
            "phase": phase.value,
        }
        return self._proposal(
            view, chosen, "propose", reasons, stage2=stage2, tactic=tactic_info, scored=scored
        )

    def _concession_cap(
        self, evidence: Evidence, own: OwnSide, context: TacticContext, deadlock: bool
    ) -> float | None:
        """The most this proposal may concede (agent's points), or None for no cap beyond the BATNA.

        Tit-for-tat in the agent's own points: concede at most RECIPROCAL_SHARE of what the
        partner's latest concession gave the agent, so S_max falls no faster than the partner
        concedes and a partner that concedes on a schedule anyway is not paid back in full. Two
        exceptions keep the talks alive: after HOLD_LIMIT own
        offers without a concession answered by a partner offer without one (a small concession,
        so a partner with the same walk rule does not leave), and once the agent has warned of a
        deadlock over an above-BATNA offer.
        """
        if not evidence.own_offers or deadlock or keeps_talks_alive(context):
            return None
        received = [own.points(row) for row in evidence.partner_offers]
        if len(received) < 2:
            return 0.0
        return RECIPROCAL_SHARE * max(0.0, received[-1] - received[-2])

    def _proposal(
        self,
        view: PartyView,
        chosen: Candidate,
        mode: str,
        reasons: list[str],
        *,
        stage2: dict[str, Any] | None = None,
        tactic: dict[str, Any] | None = None,
        scored: list[ScoredCandidate] | None = None,
    ) -> Decision:
        # No message: the transcript renders it with `parley.language` and the scenario's vocabulary.
        package = view.space.from_indices(chosen.row)
        return Decision(Propose(package), mode, reasons, stage2, tactic, scored or [], chosen)

    def _solve(
        self,
        own: OwnSide,
        model: PartnerModel,
        lambdas: Sequence[float],
        s_values: Sequence[float],
        floors: Floors,
    ) -> list[GridSolution]:
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

    def _candidates(
        self, own: OwnSide, model: PartnerModel, solutions: Sequence[GridSolution]
    ) -> list[Candidate]:
        """Distinct grid optima, minus those another optimum dominates (under the IPP), best S_a first.

        A cell capped by S_max can return a package that an optimum of a looser cell beats for both
        sides; conceding to it would cost the agent points without giving the partner any.
        """
        rows = list(dict.fromkeys(s.row for s in solutions if s.row is not None))
        found = [Candidate(row, own.points(row), model.points_of(row)) for row in rows]
        candidates = [c for c in found if not any(_dominates(other, c) for other in found)]
        candidates.sort(key=lambda c: (-round(c.agent_points, 9), -round(c.partner_points, 9)))
        return candidates[: self.config.top_n]

    def _best_row(self, own: OwnSide) -> tuple[int, ...]:
        if own.point_tables is not None:
            return tuple(int(np.argmax(t)) for t in own.point_tables)
        assert own.rows is not None and own.all_points is not None
        return tuple(int(v) for v in own.rows[int(np.argmax(own.all_points))])

    def _tactic_context(
        self, view: PartyView, own: OwnSide, model: PartnerModel, evidence: Evidence, signals: Signals
    ) -> TacticContext:
        partner = [own.points(row) for row in evidence.partner_offers]
        concessions = tuple(b - a for a, b in itertools.pairwise(partner))
        mine = [own.points(row) for row in evidence.own_offers]
        own_last = mine[-2] - mine[-1] if len(mine) >= 2 else 0.0
        return TacticContext(
            fairness=signals.fairness,
            stance=signals.stance,
            phase=phase_of(view.relative_time, len(mine)),
            partner_offers=len(partner),
            own_offers=len(mine),
            partner_concession=concessions[-1] if concessions else 0.0,
            partner_concessions=concessions,
            own_last_concession=own_last,
            own_conceded=bool(mine) and min(mine) < mine[0] - 1e-9,
            partner_offer_partner_points=signals.offer_partner_points,
            partner_offer_agent_points=signals.offer_agent_points,
            previous_agent_points=mine[-1] if mine else None,
            own_hold_streak=no_concession_streak([-points for points in mine]),
        )

    # -- the ablation --------------------------------------------------------------------------------

    def _propose_by_time(self, view: PartyView, own: OwnSide, model: PartnerModel) -> Decision:
        """Without stages 2-3: concede linearly in time; among packages at the target, the partner's best."""
        start = POINTS_SCALE
        end = max(own.reservation_points, self.config.ablation_target_points)
        target = start - (start - end) * view.relative_time
        # λ = -999 turns the stage-2 objective into S_p·1000 + S_a: the partner's best at the target.
        floors = Floors(target, float("-inf"))
        solutions = self._solve(own, model, (-999.0,), (POINTS_SCALE,), floors)
        row = solutions[0].row or self._best_row(own)
        chosen = Candidate(row, own.points(row), model.points_of(row))
        reason = (
            f"time-based target {target:.1f} points (t={view.relative_time:.2f}); best for the partner at it"
        )
        return self._proposal(view, chosen, "propose", [reason])


def _dominates(first: Candidate, second: Candidate) -> bool:
    """first is at least as good for both sides and strictly better for one."""
    at_least = (
        first.agent_points >= second.agent_points - 1e-9
        and first.partner_points >= second.partner_points - 1e-9
    )
    strictly = (
        first.agent_points > second.agent_points + 1e-9 or first.partner_points > second.partner_points + 1e-9
    )
    return at_least and strictly


def is_last_move(view: PartyView) -> bool:
    """Whether this is the party's last move before the round bound.

    The party's next move comes as many rounds after this one as this one came after its
    previous move (one round when it has not moved yet), so a gap of two rounds in an
    alternating protocol makes the second-to-last round the last chance to accept.
    """
    mine = [e.round for e in view.record if e.kind == "action" and e.party == view.party]
    gap = max(1, view.round - mine[-1]) if mine else 1
    return view.round + gap > view.rules.max_rounds


def no_concession_streak(agent_points_of_partner_offers: Sequence[float]) -> int:
    """How many of the partner's latest consecutive offers conceded nothing to the agent.

    Each offer after the first counts when it gives the agent no more points than the one before.
    """
    streak = 0
    for before, after in zip(
        agent_points_of_partner_offers[-2::-1], agent_points_of_partner_offers[::-1], strict=False
    ):
        if after > before + 1e-9:
            break
        streak += 1
    return streak


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


def make_config(options: Mapping[str, Any]) -> AstraConfig:
    """An `AstraConfig` from keyword options, checking the names.

    Raises:
        ScenarioError: an option is not an `AstraConfig` field.
    """
    known = {f.name for f in fields(AstraConfig)}
    unknown = sorted(set(options) - known)
    if unknown:
        raise ScenarioError(f"unknown ASTRA option(s) {unknown}; expected some of {sorted(known)}")
    return AstraConfig(**options)
