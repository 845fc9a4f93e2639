"""Runs one O13 negotiation: asks parties for moves, applies the rules, writes the trajectory.

Round r: the proposer (alternating for two parties, rotating for n) moves; every other party
answers the same table without seeing the others' answers; answers are revealed together. A
responder's counter-offer becomes the table when that responder proposes next. Stagnation,
bounds (V9) and a separate termination judge end the session with an agreement artefact
(checked against every BATNA) or a no-deal record. Under a k-of-n rule a party may instead propose
a coalition around a package on its turn (the sub-protocol of `parley.protocol.coalition`).
"""

from __future__ import annotations

import concurrent.futures
import functools
import logging
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, NoReturn, Protocol

from parley.domain.issues import Value
from parley.domain.space import OutcomeSpace
from parley.domain.utility import UtilityFunction, normalised_time
from parley.errors import ProtocolViolation, ScenarioError
from parley.protocol.actions import (
    Action,
    CoalitionAnswer,
    DeclineCoalition,
    JoinCoalition,
    Propose,
    ProposeCoalition,
    action_to_json,
)
from parley.protocol.artefact import Agreement, BatnaViolation, NoDeal, NoDealReason
from parley.protocol.clock import Clock
from parley.protocol.coalition import NO_ANSWER_METHOD, CoalitionInvitation, check_coalition
from parley.protocol.engine import check_move, illegal_package, movement, option_spans
from parley.protocol.events import PUBLIC, Event, PartyId, Trajectory
from parley.protocol.judge import JudgeView, RuleJudge, TerminationJudge, Verdict
from parley.protocol.rules import DEFAULT_COALITION_ROUNDS, Rules
from parley.protocol.view import PartyView, Phase, Record, TableOffer

logger = logging.getLogger(__name__)

_new = object.__new__  # frozen dataclasses built without their __init__ frame fill their __dict__ directly

MEDIATOR: PartyId = "mediator"

# Reading an enum member off its class costs about 15 times a global lookup on CPython 3.11
# (and a member's `.value` is a Python-level property).
_PROPOSE, _RESPOND = Phase.PROPOSE, Phase.RESPOND
_VERDICTS = {verdict: verdict.value for verdict in Verdict}


class _StillClock:
    """The clock of a session given none: it always reads 0 s, so every event is at 0 s.

    It has no state, so sessions share one (and nobody can move it).
    """

    def now(self) -> float:
        return 0.0


_STILL_CLOCK = _StillClock()
_RULE_JUDGE = RuleJudge()  # (stateless: sessions without a judge of their own share it)


class Negotiator(Protocol):
    """A party's decision maker. Gets a `PartyView`, returns one `Action`.

    A negotiator may also define ``explain() -> Mapping[str, Any] | None``; the engine then stores
    what it returns after each move as a private ``trace`` event (the coaching output). In k-of-n
    games it may define ``answer_coalition(view, invitation) -> JoinCoalition | DeclineCoalition |
    None`` to answer coalition invitations (None: answer in a later round of the attempt); a
    negotiator without it declines every invitation (`parley.protocol.coalition`).
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
        rules: The protocol's public rules (round bound, acceptance rule), when the engine gives them.
    """

    space: OutcomeSpace
    parties: tuple[PartyId, ...]
    round: int
    record: Record
    signals: Mapping[PartyId, Mapping[str, Any]]
    rules: Rules | None = None


class OfferMediator(Protocol):
    """Proposes a package when parties stall; returns None to stay silent.

    A mediator whose ``proactive`` attribute is True is also asked after every round, not only on
    stagnation: it decides from the public record when to table a package.
    """

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
        max_rounds: The round bound as played (None: unknown), for the normalised end time.
    """

    trajectory: Trajectory
    agreement: Agreement | None
    no_deal: NoDeal | None
    max_rounds: int | None = None

    @property
    def time(self) -> float:
        """Normalised time at which the session ended, round / max_rounds in [0, 1] (for discounting).

        1 when the round bound is unknown (a result built by hand).
        """
        return normalised_time(self.rounds, self.max_rounds) if self.max_rounds else 1.0

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

    The round state (table, offers, stagnation count, who walked) lives in the session and changes
    in place: it is rebuilt from the trajectory by `replay`, which is what makes a run auditable.

    Args:
        space: The outcome space.
        parties: The parties (utilities stay inside the engine).
        negotiators: The decision maker for each party.
        rules: Protocol rules.
        mediator: Optional offer mediator, consulted on stagnation.
        judge: Termination judge (default: the rule-based judge).
        clock: Time source (default: one that always reads 0 s, for byte-stable transcripts).
        on_event: Called with every event as it is recorded (live display).
        metadata: Extra public facts stored in the opening event (scenario name, seed, agents).
    """

    # Slots: a session has too many attributes for an instance dict's shared-key fast path (30 at most
    # on CPython 3.11), and the engine reads them on every move.
    __slots__ = (
        "_acts",
        "_alone",
        "_answerers",
        "_clock",
        "_coalition",
        "_events",
        "_exact_moves",
        "_executor",
        "_explainers",
        "_judge",
        "_judge_every_move",
        "_last_offers",
        "_live_names",
        "_live_order",
        "_live_responders",
        "_mediator",
        "_metadata",
        "_moved",
        "_names",
        "_needed",
        "_negotiators",
        "_no_deal",
        "_offers",
        "_on_event",
        "_parties",
        "_plain_judge",
        "_records",
        "_reservations",
        "_round",
        "_rules",
        "_soft_bounds",
        "_space",
        "_spans",
        "_stagnant",
        "_start",
        "_still",
        "_table",
        "_tabled",
        "_trajectory",
        "_view_fields",
        "_visible",
        "_visible_lists",
        "_walked",
        "_withdrawn",
    )

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
        # Each BATNA as the session starts: what deals and walks are judged against, whatever a
        # utility object (a user's own class need not be frozen) says later.
        self._reservations = {p.name: float(p.utility.reservation_value) for p in parties}
        if len(self._parties) < 2:
            raise ScenarioError("a negotiation needs at least two parties")
        missing = [p for p in self._parties if p not in negotiators]
        if missing:
            raise ScenarioError(f"no negotiator for parties {missing}")
        self._negotiators = dict(negotiators)
        self._rules = rules = rules or Rules()
        self._names = names = tuple(self._parties)
        seating = _seating(names, rules)
        self._mediator = mediator
        self._judge = judge or _RULE_JUDGE
        # The rule judge continues whenever nothing happened, so that common case skips building a view.
        self._plain_judge = type(self._judge) is RuleJudge
        self._needed = seating.needed
        self._clock = clock or _STILL_CLOCK
        self._still = clock is None  # (then every event is at 0 s: `_emit` need not read the clock)
        self._on_event = on_event
        self._metadata = dict(metadata or {})
        self._events: list[Event] = []
        self._trajectory = Trajectory.over(self._events)
        self._open_windows(space, rules, mediator)
        # Proposer rotation and each proposer's responders among the parties still at the table.
        self._live_order: Sequence[PartyId] = seating.order
        self._live_responders: Mapping[PartyId, Sequence[PartyId]] = seating.responders
        self._live_names: Sequence[PartyId] = names
        self._alone = seating.alone
        self._withdrawn: set[PartyId] = set()
        self._exact_moves = rules.stagnation_epsilon == 0.0  # then "moved" is "offered something else"
        self._spans = () if self._exact_moves else option_spans(space)
        # With the rule judge and a rule that needs two or more acceptances, only an accept or a
        # walk can end a session between rounds: the judge need not look after other moves.
        self._judge_every_move = not self._plain_judge or self._needed <= 1
        self._soft_bounds = rules.max_offers is not None or rules.deadline_seconds is not None
        self._start = 0.0
        self._executor: concurrent.futures.ThreadPoolExecutor | None = None
        self._no_deal: NoDeal | None = None
        # The round state.
        self._round = 1
        self._table: TableOffer | None = None
        self._offers = 0  # packages tabled so far (the max_offers bound)
        self._last_offers: dict[PartyId, tuple[int, ...]] = {}  # each party's latest, as option indices
        self._moved = False  # whether any party moved more than ε this round
        self._stagnant = 0  # consecutive rounds without movement
        self._walked: tuple[PartyId, str] | None = None
        # Every package put forward, in order: the best each party was offered is needed only
        # when stagnation strikes (see `_best_received`), so it is not kept up to date per move.
        self._tabled: list[tuple[PartyId, Mapping[str, Value], tuple[int, ...]]] = []
        self._coalition: _Attempt | None = None  # the open coalition attempt (k-of-n games)

    def _open_windows(self, space: OutcomeSpace, rules: Rules, mediator: OfferMediator | None) -> None:
        """Set up what each party sees (its record window and view) and how it is asked to move."""
        # (Loops, not comprehensions, in the common case: a session is set up for every game.)
        self._explainers: dict[PartyId, Callable[[], Mapping[str, Any] | None] | None] = {}
        self._answerers: dict[PartyId, Callable[[PartyView, CoalitionInvitation], object] | None] = {}
        private = False
        for name, negotiator in self._negotiators.items():
            explain = self._explainers[name] = getattr(negotiator, "explain", None)
            self._answerers[name] = getattr(negotiator, "answer_coalition", None)
            private = private or explain is not None
        # The only private events are the traces of negotiators that explain their moves. Without
        # any, every event is public and each window is the whole trajectory.
        windows = (*self._names, MEDIATOR)
        events = self._events
        self._visible: dict[PartyId, list[Event]] = (
            {name: [] for name in windows} if private else dict.fromkeys(windows, events)
        )
        # Nobody reads the mediator's window when there is no mediator: public events skip it.
        self._visible_lists = (
            tuple(self._visible[name] for name in windows if name != MEDIATOR or mediator is not None)
            if private
            else ()
        )
        # A record each, even when they show the same events: a negotiator playing two parties
        # tells its views apart by their records.
        self._records = {MEDIATOR: Record(self._visible[MEDIATOR])}
        # Per party: the fields of its view that stay the same all session (see `_ask`), and how
        # it is asked for a move (its `act` itself unless moves are timed).
        self._view_fields: dict[PartyId, dict[str, Any]] = {}
        self._acts: dict[PartyId, Callable[[PartyView], object]] = {}
        timed = rules.act_timeout is not None
        for name, party in self._parties.items():
            record = self._records[name] = Record(self._visible[name])
            self._view_fields[name] = {
                "party": name,
                "parties": self._names,
                "space": space,
                "utility": party.utility,
                "rules": rules,
                "record": record,
                "persona": dict(party.persona),  # its own copy: setups are shared between sessions
                "round": 0,  # round, phase and table are filled in per move
                "phase": _PROPOSE,
                "table": None,
            }
            self._acts[name] = (
                functools.partial(self._timed_act, name) if timed else self._negotiators[name].act
            )

    # -- recording -----------------------------------------------------------------------------

    def _emit(self, kind: str, party: PartyId | None, data: dict[str, Any], audience: str = PUBLIC) -> Event:
        """Record an event; data must be a dict nobody else holds (it is stored as it is)."""
        events = self._events
        event = _new(Event)  # Event(...) without its __init__ frame: the same fields
        event.__dict__.update(
            seq=len(events),
            kind=kind,
            round=self._round,
            party=party,
            data=data,
            audience=audience,
            time=0.0 if self._still else self._clock.now() - self._start,
        )
        events.append(event)
        if audience == PUBLIC:
            for visible in self._visible_lists:
                visible.append(event)
        elif audience in self._visible:
            self._visible[audience].append(event)
        if self._on_event is not None:
            self._on_event(event)
        return event

    def _offered(self, party: PartyId, package: Mapping[str, Value], indices: tuple[int, ...]) -> None:
        """Note a package a party put forward: stagnation movement, its latest offer, the offers so far."""
        if not self._moved:
            last = self._last_offers.get(party)
            if self._exact_moves:
                self._moved = last != indices
            else:
                self._moved = movement(self._spans, last, indices) > self._rules.stagnation_epsilon
        self._last_offers[party] = indices
        self._tabled.append((party, package, indices))

    def _best_received(self) -> dict[PartyId, float]:
        """Per party, its utility of the best package another party (or the mediator) put forward.

        -inf for a party that has received nothing. A package offered again (common on small
        spaces) is evaluated once per party.
        """
        best: dict[PartyId, float] = {}
        for name, party in self._parties.items():
            evaluate, worth = party.utility.evaluate, dict[tuple[int, ...], float]()
            top = float("-inf")
            for sender, package, indices in self._tabled:
                if sender != name and indices not in worth:
                    worth[indices] = value = evaluate(package)
                    top = max(top, value)
            best[name] = top
        return best

    # -- asking parties --------------------------------------------------------------------------

    def _timed_act(self, party: PartyId, view: PartyView) -> object:
        """A party's `act` under the rules' act_timeout (see `_acts`)."""
        return self._timed(party, self._negotiators[party].act, view)

    def _timed(self, party: PartyId, call: Callable[..., object], *args: Any) -> object:
        """A call to a party's negotiator under the rules' act_timeout."""
        timeout = self._rules.act_timeout
        if self._executor is None:
            self._executor = concurrent.futures.ThreadPoolExecutor(
                max_workers=1, thread_name_prefix="parley-act"
            )
        future = self._executor.submit(call, *args)
        try:
            return future.result(timeout=timeout)
        except concurrent.futures.TimeoutError:
            raise ProtocolViolation(f"took longer than {timeout} s to move", party=party) from None

    def _ask(self, party: PartyId, phase: Phase) -> tuple[dict[str, Any], tuple[int, ...] | None]:
        """A party's checked move as it is recorded (`action_to_json`), with a proposal's option indices."""
        # PartyView(...) without its __init__ frame (views are built for every move): the same fields.
        view = _new(PartyView)
        fields = view.__dict__
        fields.update(self._view_fields[party])
        fields["round"] = self._round
        fields["phase"] = phase
        fields["table"] = self._table
        try:
            raw = self._acts[party](view)
            if type(raw) is Propose:  # most moves: `check_move`'s first case, without its call
                try:
                    action, indices = raw, self._space.indices_of(raw.package)
                except (ValueError, TypeError, AttributeError) as error:
                    raise illegal_package(error, party, raw) from None
                # `action_to_json(action)`, inline; the recorded copy of the package, which the
                # agent may go on changing, is what the table and the trajectory hold.
                data = {"kind": "propose", "package": dict(raw.package), "message": raw.message}
            elif isinstance(raw, _COALITION_MOVES):
                action, indices = raw, self._check_coalition_move(party, phase, raw)
                data = action_to_json(action)
            else:
                action, indices = check_move(self._space, self._table, party, phase, raw)
                data = action_to_json(action)
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
                    self._emit("trace", party, dict(trace), audience=party)
            except Exception as error:  # a broken explain() is the agent's bug, like a broken act()
                logger.warning("explain() of %s raised %r", party, error)
                self._violation(party, f"explain() raised {type(error).__name__}: {error}", action)
        return data, indices

    def _violation(self, party: PartyId, detail: str, action: object) -> NoReturn:
        self._emit(
            "violation", party, {"detail": detail, "action": repr(action) if action is not None else None}
        )
        self._decide(
            JudgeView(self._round, self._rules.max_rounds, False, violation=party),
            detail=detail,
            walker=party,
        )
        # A judge that lets a violation pass cannot make the broken move legal: stop regardless.
        self._no_deal = NoDeal("protocol_violation", self._round, party, detail)
        raise _Stop("protocol_violation")

    # -- coalitions (k-of-n games: parley.protocol.coalition) ----------------------------------------

    def _check_coalition_move(self, party: PartyId, phase: Phase, move: object) -> tuple[int, ...]:
        """A coalition proposal's option indices, once checked.

        Raises:
            ProtocolViolation: not the party's turn to propose, a refused coalition, or an answer to
                an invitation returned as a move.
        """
        if not isinstance(move, ProposeCoalition):
            raise ProtocolViolation(
                f"{type(move).__name__} answers a coalition invitation (answer_coalition), not a move",
                party=party,
                action=move,
            )
        if phase is not _PROPOSE:
            raise ProtocolViolation(
                "coalition refused: a coalition is proposed on one's own turn to propose",
                party=party,
                action=move,
            )
        return check_coalition(
            self._space,
            self._rules,
            self._live_names,
            party,
            move,
            attempt_open=self._coalition is not None,
        )

    def _open_coalition(
        self, proposer: PartyId, data: dict[str, Any], indices: tuple[int, ...], seq: int
    ) -> None:
        """Open the attempt a proposer's checked `ProposeCoalition` asks for, and ask its members."""
        package = data["package"]
        self._offered(proposer, package, indices)
        self._offers += 1  # (a package put forward: it counts toward max_offers)
        asked = set(data["members"])
        members = tuple(p for p in self._names if p in asked)
        last_round = self._round + self._rules.coalition_rounds - 1
        self._coalition = _Attempt(proposer, package, members, seq, last_round)
        self._ask_members()

    def _ask_members(self) -> None:
        """Ask every asked party that has not answered; then form, end or keep the attempt open."""
        attempt = self._coalition
        assert attempt is not None
        rule = self._rules.acceptance
        required = rule.required or len(self._names)
        for member in attempt.pending():
            data = self._answer(member, attempt)
            if data is None:
                continue
            self._emit("action", member, data)
            if data["kind"] == "join_coalition":
                attempt.joined.append(member)
                continue
            attempt.declined.append(member)
            if member in rule.vetoes or len(attempt.coalition()) < required:
                self._end_coalition("declined", [member])
                return
        pending = attempt.pending()
        if not pending:
            self._form_coalition(attempt)
        elif self._round >= attempt.last_round:
            self._end_coalition("expired", pending)

    def _answer(self, member: PartyId, attempt: _Attempt) -> dict[str, Any] | None:
        """A member's recorded answer to the invitation (None: it answers later)."""
        answer = self._answerers[member]
        if answer is None:
            return action_to_json(DeclineCoalition(NO_ANSWER_METHOD))
        rule = self._rules.acceptance
        invitation = CoalitionInvitation(
            attempt.package,
            attempt.proposer,
            attempt.members,
            tuple(attempt.joined),
            rule.vetoes,
            rule.required or len(self._names),
            attempt.proposal,
            attempt.last_round,
        )
        view = _new(PartyView)  # built as `_ask` builds a move's view: the same fields
        view.__dict__.update(self._view_fields[member], round=self._round, phase=_RESPOND, table=self._table)
        try:
            if self._rules.act_timeout is None:
                raw = answer(view, invitation)
            else:
                raw = self._timed(member, answer, view, invitation)
            if raw is None:
                return None
            if not isinstance(raw, _ANSWERS):
                raise ProtocolViolation(
                    f"answered a coalition invitation with {type(raw).__name__}; "
                    "expected JoinCoalition, DeclineCoalition or None",
                    party=member,
                    action=raw,
                )
            answered: CoalitionAnswer = raw
            return action_to_json(answered)
        except ProtocolViolation as violation:
            self._violation(member, str(violation), violation.action)
        except Exception as error:  # an agent's bug must not crash a tournament
            logger.warning("answer_coalition of %s raised %r", member, error)
            self._violation(member, f"answer_coalition raised {type(error).__name__}: {error}", None)

    def _end_coalition(self, reason: str, parties: Sequence[PartyId]) -> None:
        attempt = self._coalition
        assert attempt is not None
        self._coalition = None
        self._emit(
            "coalition_ended",
            None,
            {"reason": reason, "parties": list(parties), "proposal": attempt.proposal},
        )

    def _form_coalition(self, attempt: _Attempt) -> None:
        """Announce the coalition and put its package on the table, accepted by its members; judge it."""
        self._coalition = None
        members = [p for p in self._names if p == attempt.proposer or p in attempt.joined]
        package = attempt.package
        self._emit(
            "coalition_formed",
            attempt.proposer,
            {"members": members, "package": dict(package), "proposal": attempt.proposal},
        )
        self._table = TableOffer(package, attempt.proposer, frozenset(members), attempt.proposal)
        self._check()

    # -- judging ----------------------------------------------------------------------------------

    def _passed(self) -> bool:
        table = self._table
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
                self._walked = (party, reason)
                return
            self._withdrawn.add(party)
            self._emit("withdrawal", party, {"reason": reason, "remaining": remaining})
            attempt = self._coalition
            if attempt is not None and party in attempt.coalition():
                self._end_coalition("left", [party])
            self._live_order = [p for p in self._live_order if p != party]
            self._live_names = [p for p in self._live_names if p != party]
            self._live_responders = {
                name: [p for p in responders if p != party]
                for name, responders in self._live_responders.items()
            }
        self._walked = None

    def _decide(self, view: JudgeView, *, detail: str = "", walker: PartyId | None = None) -> None:
        judgement = self._judge.judge(view)
        if judgement.verdict is Verdict.CONTINUE:
            return
        self._emit("judgement", None, {"verdict": _VERDICTS[judgement.verdict], "reason": judgement.reason})
        if judgement.verdict is Verdict.AGREEMENT and self._table is not None:
            raise _Stop(None)
        self._no_deal = NoDeal(judgement.reason or "judge", self._round, walker or view.walked, detail)
        raise _Stop(judgement.reason or "judge")

    def _check(self, bound_hit: str | None = None, stagnation: bool = False) -> None:
        walked = self._walked
        if self._plain_judge and walked is None and bound_hit is None and not stagnation:
            table = self._table
            # Fewer acceptances than the rule needs: not passed, and the rule judge would continue.
            if table is None or len(table.accepted_by) < self._needed:
                return
            passed = self._passed()
            if not passed:
                return
        else:
            passed = self._passed()
        view = _new(JudgeView)  # JudgeView(...) without its __init__ frame: the same fields
        view.__dict__.update(
            round=self._round,
            max_rounds=self._rules.max_rounds,
            offer_passed=passed,
            walked=walked[0] if walked else None,
            bound_hit=bound_hit,
            stagnation_unresolved=stagnation,
            violation=None,
        )
        self._decide(
            view, detail=walked[1] if walked else (f"{bound_hit} bound reached" if bound_hit else "")
        )

    # -- the round --------------------------------------------------------------------------------

    def _table_offer(self, package: Mapping[str, Value], proposer: PartyId, seq: int) -> None:
        """Put a package on the table, accepted so far by its proposer only (a mediator accepts nothing)."""
        table = _new(TableOffer)  # TableOffer(...) without its __init__ frame: the same fields
        table.__dict__.update(
            package=package, proposer=proposer, accepted_by=self._alone[proposer], offer_id=seq
        )
        self._table = table
        self._offers += 1

    def _proposer_turn(self, proposer: PartyId) -> None:
        data, indices = self._ask(proposer, _PROPOSE)
        event = self._emit("action", proposer, data)
        kind = data["kind"]
        if indices is not None:
            if kind == "propose_coalition":
                self._open_coalition(proposer, data, indices, event.seq)
                return
            package = data["package"]  # the recorded copy: the agent may reuse its own dict
            self._offered(proposer, package, indices)
            self._table_offer(package, proposer, event.seq)
            if not self._judge_every_move:  # a proposal alone cannot pass (see __init__)
                return
        elif kind == "accept":
            table = self._table
            assert table is not None  # check_move refuses an accept with nothing on the table
            accepted = table.accepted_by | {proposer}
            self._table = TableOffer(table.package, table.proposer, accepted, table.offer_id)
        elif kind == "walk":
            self._walked = (proposer, data["reason"] or "walked away")
            self._withdraw([self._walked])
        self._check()

    def _answer_and_close(self, responders: Sequence[PartyId], round_number: int) -> bool:
        """Every responder answers the same table (the answers are revealed together); then the round
        closes: the next proposer's counter becomes the table, a round without movement is counted,
        and the round advances. (A round with one responder takes `_answer_one`.)

        Returns:
            Whether the next proposer's counter is now the table (it then does not propose again).
        """
        answers: list[tuple[PartyId, tuple[dict[str, Any], tuple[int, ...] | None]]] = []
        for party in responders:  # (a loop, not a comprehension: one call less per round on 3.11)
            answers.append((party, self._ask(party, _RESPOND)))
        counters: dict[PartyId, tuple[Mapping[str, Value], int]] = {}
        accepted: list[PartyId] = []
        walkers: list[tuple[PartyId, str]] = []
        for party, (data, indices) in answers:
            event = self._emit("action", party, data)
            if indices is not None:
                package = data["package"]
                counters[party] = (package, event.seq)
                self._offered(party, package, indices)
            else:
                kind = data["kind"]
                if kind == "accept":
                    accepted.append(party)
                elif kind == "walk":
                    walkers.append((party, data["reason"] or "walked away"))
        table = self._table
        if accepted and table is not None:
            self._table = TableOffer(
                table.package, table.proposer, table.accepted_by.union(accepted), table.offer_id
            )
        if walkers:
            if self._walked is None:
                self._walked = walkers[0]
            self._withdraw(walkers)
        if accepted or walkers or self._judge_every_move:  # nothing else can end it (see __init__)
            self._check()
        # Close the round (one method with the answers: this runs every round).
        order = self._live_order  # (after any withdrawal this round)
        next_proposer = order[round_number % len(order)]
        counter = counters.get(next_proposer)
        if counter is not None:
            self._table_offer(counter[0], next_proposer, counter[1])
        self._stagnant = 0 if self._moved else self._stagnant + 1
        self._moved = False
        self._round = round_number + 1
        return counter is not None

    def _answer_one(self, party: PartyId, round_number: int) -> bool:
        """`_answer_and_close` for a round with one responder, as every round of a bilateral session
        has: the same events, checks and round state, without collecting answers (there are no
        other responders to hide them from). A test plays games both ways and compares them.
        """
        data, indices = self._ask(party, _RESPOND)
        event = self._emit("action", party, data)
        kind = data["kind"]
        if indices is not None:
            self._offered(party, data["package"], indices)
        elif kind == "accept":
            table = self._table
            if table is not None:
                self._table = TableOffer(
                    table.package, table.proposer, table.accepted_by | {party}, table.offer_id
                )
        elif kind == "walk":
            walker = (party, data["reason"] or "walked away")
            if self._walked is None:
                self._walked = walker
            self._withdraw([walker])
        if kind in {"accept", "walk"} or self._judge_every_move:
            self._check()
        order = self._live_order  # (after any withdrawal this round)
        tabled = indices is not None and order[round_number % len(order)] == party
        if tabled:
            self._table_offer(data["package"], party, event.seq)
        self._stagnant = 0 if self._moved else self._stagnant + 1
        self._moved = False
        self._round = round_number + 1
        return tabled

    def _stagnation(self) -> None:
        rules = self._rules
        self._emit("stagnation", None, {"rounds": self._stagnant, "policy": rules.on_stagnation})
        if rules.on_stagnation == "continue":
            self._stagnant = 0
            return
        if rules.on_stagnation == "mediate" and self._mediator is not None and self._mediate():
            return
        below = {
            name: best - self._reservations[name]
            for name, best in self._best_received().items()
            if name not in self._withdrawn
        }
        walker = min(below, key=lambda name: below[name])
        if below[walker] < 0:
            self._walked = (walker, "stagnation: best offer received is below BATNA")
            self._check(stagnation=True)
        self._check(stagnation=True)

    def _mediate(self) -> bool:
        assert self._mediator is not None
        signals = {name: dict(party.signals) for name, party in self._parties.items()}
        view = MediatorView(
            self._space, self._names, self._round, self._records[MEDIATOR], signals, self._rules
        )
        package = self._mediator.propose(view)
        if package is None:
            return False
        try:
            indices = self._space.indices_of(package)
        except (ValueError, TypeError, AttributeError) as error:
            self._emit(
                "violation", MEDIATOR, {"detail": f"illegal package: {error}", "action": repr(package)}
            )
            return False
        recorded = dict(package)  # the table holds the recorded copy, as for a party's proposal
        event = self._emit("mediator_proposal", MEDIATOR, {"package": recorded})
        self._tabled.append((MEDIATOR, recorded, indices))
        self._table_offer(recorded, MEDIATOR, event.seq)
        self._stagnant = 0
        return True

    def _bound(self) -> str | None:
        rules = self._rules
        if self._round > rules.max_rounds:
            return "rounds"
        if rules.max_offers is not None and self._offers >= rules.max_offers:
            return "offers"
        if rules.deadline_seconds is not None and self._clock.now() - self._start >= rules.deadline_seconds:
            return "deadline"
        return None

    def _play(self) -> None:
        counter_tabled = False
        rules = self._rules
        proactive = getattr(self._mediator, "proactive", False) is True
        stagnation_rounds, max_rounds, soft_bounds = (
            rules.stagnation_patience,
            rules.max_rounds,
            self._soft_bounds,
        )
        while True:
            round_number = self._round
            if self._coalition is not None:  # an attempt opened in an earlier round: ask again
                self._ask_members()
            order = self._live_order
            proposer = order[(round_number - 1) % len(order)]
            table = self._table
            if table is not None and table.proposer == MEDIATOR and not table.accepted_by:
                responders = self._live_names
            else:
                if not (counter_tabled and table is not None and table.proposer == proposer):
                    self._proposer_turn(proposer)
                responders = self._live_responders[proposer]
            counter_tabled = (
                self._answer_one(responders[0], round_number)
                if len(responders) == 1
                else self._answer_and_close(responders, round_number)
            )
            if self._stagnant >= stagnation_rounds:
                # Judged on the round just played, so its events and any no-deal stay within the cap.
                self._round = round_number
                self._stagnation()
                self._round = round_number + 1
            bound = self._bound() if soft_bounds or self._round > max_rounds else None
            if bound is not None:
                self._round = round_number
                self._check(bound_hit=bound)
                # Bounds are hard (V9): a judge that lets one pass does not extend the session.
                self._no_deal = NoDeal("bound_hit", round_number, None, f"{bound} bound reached")
                raise _Stop("bound_hit")
            if self._judge_every_move:  # else the round's accepts and walks were judged as they came
                self._check()
            if proactive:  # asked after every round (it decides when to table), in the round just played
                table = self._table
                if table is None or table.proposer != MEDIATOR or table.accepted_by:
                    self._round = round_number
                    self._mediate()
                    self._round = round_number + 1

    def run(self) -> SessionResult:
        """Play the session to its end and return the result."""
        self._start = self._clock.now()
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
        return SessionResult(self._trajectory, agreement, self._no_deal, self._rules.max_rounds)

    def _agreement(self) -> Agreement:
        table = self._table
        assert table is not None
        package, accepted_by, withdrawn = table.package, table.accepted_by, self._withdrawn
        utilities: dict[PartyId, float] = {}
        reservations: dict[PartyId, float] = {}
        accepted: list[PartyId] = []  # party order, not set order: transcripts must not depend on hashing
        for name, party in self._parties.items():
            utility = party.utility
            utilities[name] = utility.evaluate(package)
            reservations[name] = self._reservations[name]
            if name in accepted_by and name not in withdrawn:
                accepted.append(name)
        violations: list[BatnaViolation] = []
        for name in accepted:
            if utilities[name] < reservations[name] - 1e-9:
                violations.append(BatnaViolation(name, utilities[name], reservations[name]))
                self._emit(
                    "batna_violation",
                    name,
                    {"utility": utilities[name], "reservation_value": reservations[name]},
                )
        discounted, time = self._discounted(utilities)
        return Agreement(
            dict(package),
            self._round,
            table.proposer,
            tuple(accepted),
            utilities,
            reservations,
            tuple(violations),
            discounted,
            time,
        )

    def _discounted(self, utilities: Mapping[PartyId, float]) -> tuple[dict[PartyId, float], float | None]:
        # GENIUS/ANAC time discounting, u·d^t at t = round / max_rounds; nothing when nobody discounts
        # (so transcripts of undiscounted scenarios stay as they were).
        parties = self._parties
        if all(party.utility.discount == 1.0 for party in parties.values()):
            return {}, None
        time = normalised_time(self._round, self._rules.max_rounds)
        return {
            name: parties[name].utility.discounted(value, time) for name, value in utilities.items()
        }, time


_COALITION_MOVES = (ProposeCoalition, JoinCoalition, DeclineCoalition)
_ANSWERS = (JoinCoalition, DeclineCoalition)


@dataclass(slots=True)
class _Attempt:
    """The open coalition attempt (its state changes as members answer).

    Attributes:
        proposer: Who proposed it.
        package: The recorded package.
        members: The parties asked, in scenario order.
        proposal: Sequence number of the proposal's event.
        last_round: The last round in which it is open.
        joined: Members that joined, in the order they did.
        declined: Members that declined.
    """

    proposer: PartyId
    package: Mapping[str, Value]
    members: tuple[PartyId, ...]
    proposal: int
    last_round: int
    joined: list[PartyId] = field(default_factory=lambda: [])
    declined: list[PartyId] = field(default_factory=lambda: [])

    def pending(self) -> list[PartyId]:
        """Members that have not answered, in scenario order."""
        return [m for m in self.members if m not in self.joined and m not in self.declined]

    def coalition(self) -> list[PartyId]:
        """The proposer and every member that has not declined."""
        return [self.proposer, *(m for m in self.members if m not in self.declined)]


@dataclass(frozen=True, slots=True)
class _Seating:
    """Who proposes when and who answers whom: fixed by the parties and the rules.

    Sessions share one seating and never change it (a withdrawal gives the session its own lists).

    Attributes:
        order: The proposer rotation.
        responders: Per proposer, every other party, in scenario order.
        alone: Per party (and the mediator), who has accepted a package it has just tabled.
        needed: How many acceptances pass an offer.
    """

    order: tuple[PartyId, ...]
    responders: Mapping[PartyId, tuple[PartyId, ...]]
    alone: Mapping[PartyId, frozenset[PartyId]]
    needed: int


@functools.lru_cache(maxsize=256)
def _seating(names: tuple[PartyId, ...], rules: Rules) -> _Seating:
    """The seating of these parties under these rules (shared: a tournament seats them thousands of times).

    Raises:
        ScenarioError: the acceptance rule or the proposer order does not fit the parties.
    """
    rules.acceptance.check(names)
    required = rules.acceptance.required
    return _Seating(
        order=rules.order(names),
        responders={name: tuple(p for p in names if p != name) for name in names},
        alone={name: frozenset((name,)) for name in names} | {MEDIATOR: frozenset()},
        needed=len(names) if required is None else required,
    )


def _rules_json(rules: Rules) -> dict[str, Any]:
    return {
        "max_rounds": rules.max_rounds,
        "max_offers": rules.max_offers,
        "deadline_seconds": rules.deadline_seconds,
        "acceptance": {"required": rules.acceptance.required, "vetoes": list(rules.acceptance.vetoes)},
        "stagnation_rounds": rules.stagnation_patience,  # (as played: a default is resolved)
        "stagnation_epsilon": rules.stagnation_epsilon,
        "on_stagnation": rules.on_stagnation,
        "act_timeout": rules.act_timeout,
        "proposer_order": list(rules.proposer_order) if rules.proposer_order else None,
    } | (
        # (only when set: transcripts of games with the default stay as they were)
        {"coalition_rounds": rules.coalition_rounds}
        if rules.coalition_rounds != DEFAULT_COALITION_ROUNDS
        else {}
    )
