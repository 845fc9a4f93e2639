"""Runs one O13 negotiation: asks parties for moves, applies the rules, writes the trajectory.

Round r: the proposer (alternating for two parties, rotating for n) moves; every other party
answers the same table without seeing the others' answers; answers are revealed together. A
responder's counter-offer becomes the table when that responder proposes next. Stagnation,
bounds (V9) and a separate termination judge end the session with an agreement artefact
(checked against every BATNA) or a no-deal record.
"""

from __future__ import annotations

import concurrent.futures
import logging
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any, NoReturn, Protocol

from parley.domain.issues import Value
from parley.domain.space import OutcomeSpace
from parley.domain.utility import UtilityFunction
from parley.errors import ProtocolViolation, ScenarioError
from parley.protocol.actions import Action, Walk, action_from_json
from parley.protocol.artefact import Agreement, BatnaViolation, NoDeal, NoDealReason
from parley.protocol.clock import Clock, FakeClock
from parley.protocol.engine import (
    SessionState,
    apply_proposer_move,
    apply_responses,
    check_move,
    close_round,
    table_mediator_offer,
)
from parley.protocol.events import PUBLIC, Event, PartyId, Trajectory
from parley.protocol.judge import JudgeView, RuleJudge, TerminationJudge, Verdict
from parley.protocol.rules import Rules
from parley.protocol.view import PartyView, Phase, Record

logger = logging.getLogger(__name__)

MEDIATOR: PartyId = "mediator"


class Negotiator(Protocol):
    """A party's decision maker. Gets a `PartyView`, returns one `Action`.

    A negotiator may also define ``explain() -> Mapping[str, Any] | None``; the engine then stores
    what it returns after each move as a private ``trace`` event (the coaching output).
    """

    def act(self, view: PartyView) -> Action:
        """Choose a move."""
        ...


@dataclass(frozen=True, slots=True)
class MediatorView:
    """What an offer mediator may see: public events and the coarse signals a scenario allows.

    Attributes:
        space: The outcome space.
        parties: All parties.
        round: Current round.
        record: Public events only.
        signals: Per party, coarse public signals (stated priorities, must-haves), never utilities.
    """

    space: OutcomeSpace
    parties: tuple[PartyId, ...]
    round: int
    record: Record
    signals: Mapping[PartyId, Mapping[str, Any]]


class OfferMediator(Protocol):
    """Proposes a package when parties stall; returns None to stay silent."""

    def propose(self, view: MediatorView) -> Mapping[str, Value] | None:
        """A package to put on the table, or None."""
        ...


@dataclass(frozen=True, slots=True)
class PartySetup:
    """One party as the engine knows it.

    Attributes:
        name: Party id.
        utility: Private utility (with its reservation value).
        persona: Private persona/brief handed to this party only.
        signals: Coarse signals the scenario lets a mediator see.
    """

    name: PartyId
    utility: UtilityFunction
    persona: Mapping[str, Any] = field(default_factory=lambda: {})
    signals: Mapping[str, Any] = field(default_factory=lambda: {})


@dataclass(frozen=True)
class SessionResult:
    """A finished session.

    Attributes:
        trajectory: Every event, in order.
        agreement: The agreement artefact, if one passed.
        no_deal: The no-deal record otherwise.
    """

    trajectory: Trajectory
    agreement: Agreement | None
    no_deal: NoDeal | None

    @property
    def rounds(self) -> int:
        """Round in which the session ended."""
        if self.agreement is not None:
            return self.agreement.round
        return self.no_deal.round if self.no_deal is not None else 0

    @property
    def ended(self) -> dict[str, Any]:
        """The final record as JSON."""
        if self.agreement is not None:
            return {"agreement": self.agreement.to_json()}
        return {"no_deal": self.no_deal.to_json() if self.no_deal else None}


class _Stop(Exception):
    """Internal: the session is over (carries the judge's reason)."""

    def __init__(self, reason: NoDealReason | None) -> None:
        self.reason = reason


class Session:
    """One negotiation between parties under rules; `run()` plays it to the end.

    Args:
        space: The outcome space.
        parties: The parties (utilities stay inside the engine).
        negotiators: The decision maker for each party.
        rules: Protocol rules.
        mediator: Optional offer mediator, consulted on stagnation.
        judge: Termination judge (default: the rule-based judge).
        clock: Time source (default: a frozen fake clock, for byte-stable transcripts).
        on_event: Called with every event as it is recorded (live display).
        metadata: Extra public facts stored in the opening event (scenario name, seed, agents).
    """

    def __init__(
        self,
        space: OutcomeSpace,
        parties: Sequence[PartySetup],
        negotiators: Mapping[PartyId, Negotiator],
        rules: Rules | None = None,
        *,
        mediator: OfferMediator | None = None,
        judge: TerminationJudge | None = None,
        clock: Clock | None = None,
        on_event: Callable[[Event], None] | None = None,
        metadata: Mapping[str, Any] | None = None,
    ) -> None:
        self._space = space
        self._parties = {p.name: p for p in parties}
        if len(self._parties) < 2:
            raise ScenarioError("a negotiation needs at least two parties")
        missing = [p for p in self._parties if p not in negotiators]
        if missing:
            raise ScenarioError(f"no negotiator for parties {missing}")
        self._negotiators = dict(negotiators)
        self._rules = rules or Rules()
        self._act_timeout = self._rules.act_timeout
        self._rules.acceptance.check(list(self._parties))
        self._order = self._rules.order(list(self._parties))
        self._names = tuple(self._parties)
        self._mediator = mediator
        self._judge = judge or RuleJudge()
        # The rule judge continues whenever nothing happened, so that common case skips building a view.
        self._plain_judge = type(self._judge) is RuleJudge
        required = self._rules.acceptance.required
        self._needed = len(self._parties) if required is None else required
        self._clock = clock or FakeClock()
        self._on_event = on_event
        self._metadata = dict(metadata or {})
        self._trajectory = Trajectory()
        self._visible: dict[PartyId, list[Event]] = {name: [] for name in (*self._names, MEDIATOR)}
        # Nobody reads the mediator's window when there is no mediator: public events skip it.
        self._visible_lists = tuple(
            events for name, events in self._visible.items() if name != MEDIATOR or mediator is not None
        )
        self._records = {name: Record(events) for name, events in self._visible.items()}
        self._explainers = {name: getattr(n, "explain", None) for name, n in self._negotiators.items()}
        self._best_received: dict[PartyId, float] = {name: float("-inf") for name in self._names}
        self._evaluators = tuple((name, p.utility.evaluate) for name, p in self._parties.items())
        # Per party, its utility of each package it has received, by the package's option indices:
        # a package offered again (common on small spaces) is not evaluated again.
        self._worth_caches = tuple(
            (name, evaluate, dict[tuple[int, ...], float]()) for name, evaluate in self._evaluators
        )
        self._responders = {
            name: [other for other in self._names if other != name] for name in (*self._names, MEDIATOR)
        }
        self._withdrawn: set[PartyId] = set()
        self._state = SessionState()
        self._start = 0.0
        self._executor: concurrent.futures.ThreadPoolExecutor | None = None

    # -- recording -----------------------------------------------------------------------------

    def _emit(
        self, kind: str, party: PartyId | None, data: Mapping[str, Any], audience: str = PUBLIC
    ) -> Event:
        event = self._trajectory.append(
            kind,
            round=self._state.round,
            party=party,
            data=data,
            audience=audience,
            time=self._clock.now() - self._start,
        )
        if audience == PUBLIC:
            for events in self._visible_lists:
                events.append(event)
        elif audience in self._visible:
            self._visible[audience].append(event)
        if self._on_event is not None:
            self._on_event(event)
        return event

    def _note_received(
        self, proposer: PartyId, package: Mapping[str, Value], key: tuple[int, ...] | None = None
    ) -> None:
        """Raise each other party's best received utility; key is the package's option indices."""
        best = self._best_received
        if key is None:
            for name, evaluate in self._evaluators:
                if name != proposer:
                    value = evaluate(package)
                    best[name] = max(best[name], value)
            return
        for name, evaluate, cache in self._worth_caches:
            if name != proposer:
                value = cache.get(key)
                if value is None:
                    value = cache[key] = evaluate(package)
                best[name] = max(best[name], value)

    # -- asking parties --------------------------------------------------------------------------

    def _view(self, party: PartyId, phase: Phase) -> PartyView:
        setup = self._parties[party]
        return PartyView(
            party,
            self._names,
            self._state.round,
            phase,
            self._space,
            setup.utility,
            self._rules,
            self._state.table,
            self._records[party],
            setup.persona,
        )

    def _call(self, party: PartyId, view: PartyView) -> object:
        negotiator = self._negotiators[party]
        timeout = self._act_timeout
        if timeout is None:
            return negotiator.act(view)
        if self._executor is None:
            self._executor = concurrent.futures.ThreadPoolExecutor(
                max_workers=1, thread_name_prefix="parley-act"
            )
        future = self._executor.submit(negotiator.act, view)
        try:
            return future.result(timeout=timeout)
        except concurrent.futures.TimeoutError:
            raise ProtocolViolation(f"took longer than {timeout} s to move", party=party) from None

    def _ask(self, party: PartyId, phase: Phase) -> Action:
        try:
            raw = self._call(party, self._view(party, phase))
            action = check_move(self._space, self._state, party, phase, raw)
        except ProtocolViolation as violation:
            self._violation(party, str(violation), violation.action)
        except Exception as error:  # an agent's bug must not crash a tournament
            logger.warning("negotiator for %s raised %r", party, error)
            self._violation(party, f"raised {type(error).__name__}: {error}", None)
        explain = self._explainers[party]
        if explain is not None:
            try:
                trace = explain()
                if trace:  # stored privately: the coaching output never reaches other parties
                    self._emit("trace", party, trace, audience=party)
            except Exception as error:  # a broken explain() is the agent's bug, like a broken act()
                logger.warning("explain() of %s raised %r", party, error)
                self._violation(party, f"explain() raised {type(error).__name__}: {error}", action)
        return action

    def _violation(self, party: PartyId, detail: str, action: object) -> NoReturn:
        self._emit(
            "violation", party, {"detail": detail, "action": repr(action) if action is not None else None}
        )
        self._decide(
            JudgeView(self._state.round, self._rules.max_rounds, False, violation=party),
            detail=detail,
            walker=party,
        )
        # A judge that lets a violation pass cannot make the broken move legal: stop regardless.
        self._no_deal = NoDeal("protocol_violation", self._state.round, party, detail)
        raise _Stop("protocol_violation")

    # -- judging ----------------------------------------------------------------------------------

    def _passed(self) -> bool:
        table = self._state.table
        if table is None:
            return False
        accepted = table.accepted_by - self._withdrawn if self._withdrawn else table.accepted_by
        return self._rules.acceptance.is_met(accepted, self._names)

    def _withdraw(self, walkers: Sequence[tuple[PartyId, str]]) -> None:
        """Under a k-of-n rule a walker leaves the table while the others can still pass a deal.

        Under unanimity, or when the walker holds a veto or too few parties would remain, the walk
        stands and the judge ends the session.
        """
        rule = self._rules.acceptance
        if rule.required is None or not walkers:
            return
        for party, reason in walkers:
            remaining = len(self._names) - len(self._withdrawn) - 1
            if party in rule.vetoes or remaining < rule.required:
                self._state = replace(self._state, walked=(party, reason))
                return
            self._withdrawn.add(party)
            self._emit("withdrawal", party, {"reason": reason, "remaining": remaining})
        self._state = replace(self._state, walked=None)

    def _active(self, parties: Sequence[PartyId]) -> Sequence[PartyId]:
        # No copy in the common case: nobody has withdrawn.
        return [p for p in parties if p not in self._withdrawn] if self._withdrawn else parties

    def _decide(self, view: JudgeView, *, detail: str = "", walker: PartyId | None = None) -> None:
        judgement = self._judge.judge(view)
        if judgement.verdict is Verdict.CONTINUE:
            return
        self._emit("judgement", None, {"verdict": judgement.verdict.value, "reason": judgement.reason})
        if judgement.verdict is Verdict.AGREEMENT and self._state.table is not None:
            raise _Stop(None)
        self._no_deal = NoDeal(judgement.reason or "judge", self._state.round, walker or view.walked, detail)
        raise _Stop(judgement.reason or "judge")

    def _check(self, bound_hit: str | None = None, stagnation: bool = False) -> None:
        walked = self._state.walked
        if self._plain_judge and walked is None and bound_hit is None and not stagnation:
            table = self._state.table
            # Fewer acceptances than the rule needs: not passed, and the rule judge would continue.
            if table is None or len(table.accepted_by) < self._needed or not self._passed():
                return
        self._decide(
            JudgeView(
                self._state.round,
                self._rules.max_rounds,
                self._passed(),
                walked=walked[0] if walked else None,
                bound_hit=bound_hit,
                stagnation_unresolved=stagnation,
            ),
            detail=walked[1] if walked else (f"{bound_hit} bound reached" if bound_hit else ""),
        )

    # -- the round --------------------------------------------------------------------------------

    def _proposer_turn(self, proposer: PartyId) -> None:
        action = self._ask(proposer, Phase.PROPOSE)
        self._state, events = apply_proposer_move(
            self._space, self._rules, self._state, proposer, action, len(self._trajectory)
        )
        for kind, data in events:
            self._emit(kind, proposer, data)
        if action.kind == "propose":
            table = self._state.table
            if table is not None:
                self._note_received(proposer, table.package, self._state.last_offers.get(proposer))
            else:
                self._note_received(proposer, {})
        elif isinstance(action, Walk):
            self._withdraw([(proposer, action.reason or "walked away")])
        self._check()

    def _responses(self, responders: Sequence[PartyId]) -> dict[PartyId, int]:
        answers = [(party, self._ask(party, Phase.RESPOND)) for party in responders]
        self._state, events = apply_responses(self._space, self._rules, self._state, answers)
        counter_seq: dict[PartyId, int] = {}
        for (party, action), (kind, data) in zip(answers, events, strict=True):
            event = self._emit(kind, party, data)
            if action.kind == "propose":
                counter_seq[party] = event.seq
                self._note_received(party, data["package"], self._state.last_offers.get(party))
        self._withdraw([(p, a.reason or "walked away") for p, a in answers if isinstance(a, Walk)])
        self._check()
        return counter_seq

    def _stagnation(self) -> None:
        rules = self._rules
        self._emit("stagnation", None, {"rounds": self._state.stagnant_rounds, "policy": rules.on_stagnation})
        if rules.on_stagnation == "continue":
            self._state = replace(self._state, stagnant_rounds=0)
            return
        if rules.on_stagnation == "mediate" and self._mediator is not None and self._mediate():
            return
        below = {
            name: best - self._parties[name].utility.reservation_value
            for name, best in self._best_received.items()
            if name not in self._withdrawn
        }
        walker = min(below, key=lambda name: below[name])
        if below[walker] < 0:
            self._state = replace(
                self._state, walked=(walker, "stagnation: best offer received is below BATNA")
            )
            self._check(stagnation=True)
        self._check(stagnation=True)

    def _mediate(self) -> bool:
        assert self._mediator is not None
        signals = {name: party.signals for name, party in self._parties.items()}
        view = MediatorView(self._space, self._names, self._state.round, self._records[MEDIATOR], signals)
        package = self._mediator.propose(view)
        if package is None:
            return False
        try:
            self._space.validate(package)
        except ValueError as error:
            self._emit(
                "violation", MEDIATOR, {"detail": f"illegal package: {error}", "action": repr(package)}
            )
            return False
        event = self._emit("mediator_proposal", MEDIATOR, {"package": dict(package)})
        self._note_received(MEDIATOR, package)
        self._state = table_mediator_offer(self._state, package, event.seq)
        return True

    def _bound(self) -> str | None:
        rules, state = self._rules, self._state
        if state.round > rules.max_rounds:
            return "rounds"
        if rules.max_offers is not None and state.offers >= rules.max_offers:
            return "offers"
        if rules.deadline_seconds is not None and self._clock.now() - self._start >= rules.deadline_seconds:
            return "deadline"
        return None

    def _play(self) -> None:
        counter_tabled = False
        while True:
            round_number = self._state.round
            order = self._active(self._order)
            proposer = order[(round_number - 1) % len(order)]
            table = self._state.table
            if table is not None and table.proposer == MEDIATOR and not table.accepted_by:
                responders = self._active(self._names)
            else:
                if not (counter_tabled and table is not None and table.proposer == proposer):
                    self._proposer_turn(proposer)
                responders = self._active(self._responders[proposer])
            counter_seq = self._responses(responders)
            order = self._active(self._order)
            next_proposer = order[round_number % len(order)]
            counter_tabled = next_proposer in counter_seq
            self._state = close_round(self._state, next_proposer, counter_seq, self._rules)
            if self._state.stagnant_rounds >= self._rules.stagnation_rounds:
                # Judged on the round just played, so its events and any no-deal stay within the cap.
                self._state = replace(self._state, round=round_number)
                self._stagnation()
                self._state = replace(self._state, round=round_number + 1)
            bound = self._bound()
            if bound is not None:
                self._state = replace(self._state, round=round_number)
                self._check(bound_hit=bound)
            self._check()

    def run(self) -> SessionResult:
        """Play the session to its end and return the result."""
        self._start = self._clock.now()
        self._no_deal: NoDeal | None = None
        self._emit(
            "session_started",
            None,
            {
                "parties": list(self._names),
                "issues": {issue.name: list(issue.values) for issue in self._space.issues},
                "rules": _rules_json(self._rules),
                **self._metadata,
            },
        )
        agreement: Agreement | None = None
        try:
            self._play()
        except _Stop as stop:
            if stop.reason is None:
                agreement = self._agreement()
        finally:
            if self._executor is not None:
                self._executor.shutdown(wait=False, cancel_futures=True)
        if agreement is not None:
            self._emit("agreement", None, agreement.to_json())
        elif self._no_deal is not None:
            self._emit("no_deal", self._no_deal.walker, self._no_deal.to_json())
        return SessionResult(self._trajectory, agreement, self._no_deal)

    def _agreement(self) -> Agreement:
        table = self._state.table
        assert table is not None
        utilities = {name: p.utility.evaluate(table.package) for name, p in self._parties.items()}
        reservations = {name: p.utility.reservation_value for name, p in self._parties.items()}
        violations = tuple(
            BatnaViolation(name, utilities[name], reservations[name])
            for name in self._names  # party order, not set order: transcripts must not depend on hashing
            if name in table.accepted_by
            and name not in self._withdrawn
            and utilities[name] < reservations[name] - 1e-9
        )
        for violation in violations:
            self._emit(
                "batna_violation",
                violation.party,
                {"utility": violation.utility, "reservation_value": violation.reservation_value},
            )
        return Agreement(
            dict(table.package),
            self._state.round,
            table.proposer,
            tuple(p for p in self._names if p in table.accepted_by and p not in self._withdrawn),
            utilities,
            reservations,
            violations,
        )


def _rules_json(rules: Rules) -> dict[str, Any]:
    return {
        "max_rounds": rules.max_rounds,
        "max_offers": rules.max_offers,
        "deadline_seconds": rules.deadline_seconds,
        "acceptance": {"required": rules.acceptance.required, "vetoes": list(rules.acceptance.vetoes)},
        "stagnation_rounds": rules.stagnation_rounds,
        "stagnation_epsilon": rules.stagnation_epsilon,
        "on_stagnation": rules.on_stagnation,
        "act_timeout": rules.act_timeout,
        "proposer_order": list(rules.proposer_order) if rules.proposer_order else None,
    }


class _ReplayNegotiator:
    """Plays back one party's recorded moves in order, with the private trace each move left."""

    def __init__(self, moves: Iterator[tuple[Action, Mapping[str, Any] | None]]) -> None:
        self._moves = moves
        self._trace: Mapping[str, Any] | None = None

    def act(self, view: PartyView) -> Action:
        action, self._trace = next(self._moves)
        return action

    def explain(self) -> Mapping[str, Any] | None:
        return self._trace


class _ReplayMediator:
    def __init__(self, packages: Iterator[Mapping[str, Value]]) -> None:
        self._packages = packages

    def propose(self, view: MediatorView) -> Mapping[str, Value] | None:
        return next(self._packages, None)


def replay(
    trajectory: Trajectory, space: OutcomeSpace, parties: Sequence[PartySetup], rules: Rules | None = None
) -> SessionResult:
    """Re-run a saved trajectory's moves through the engine; the result equals the original's.

    Raises:
        ProtocolViolation: the trajectory's moves are not legal under these rules.
    """
    moves: dict[PartyId, list[tuple[Action, Mapping[str, Any] | None]]] = {p.name: [] for p in parties}
    traces: dict[PartyId, Mapping[str, Any]] = {}
    for event in trajectory:
        if event.party not in moves:
            continue
        if event.kind == "trace":  # a move's trace is recorded before the move itself
            traces[event.party] = event.data
        elif event.kind == "action":
            moves[event.party].append((action_from_json(event.data), traces.pop(event.party, None)))
    started = trajectory.of_kind("session_started")
    metadata = (
        {k: v for k, v in started[0].data.items() if k not in ("parties", "issues", "rules")}
        if started
        else {}
    )
    mediator = _ReplayMediator(iter([e.data["package"] for e in trajectory.of_kind("mediator_proposal")]))
    negotiators = {name: _ReplayNegotiator(iter(actions)) for name, actions in moves.items()}
    return Session(space, parties, negotiators, rules, mediator=mediator, metadata=metadata).run()
