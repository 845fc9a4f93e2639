"""A portfolio's own record: its row and audit chain in the store (members, comparisons,
recommendations, decisions), written through `SessionStore.save_step` like a session's steps, and
where the portfolio stands (`PortfolioOutcome`)."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from parley.errors import ScenarioError
from parley.governance.config import DomainConfig
from parley.governance.delegate import DELEGATE
from parley.governance.escalation import Decision, EscalationRequest
from parley.governance.machine import TERMINAL, State
from parley.governance.portfolio.comparison import Candidate, Member, compare
from parley.governance.session import PORTFOLIO_KIND, SessionOutcome, is_portfolio
from parley.governance.store import SessionStore
from parley.protocol.clock import Clock
from parley.protocol.events import Event, Trajectory
from parley.protocol.governed import Escalation, PortfolioStarted, SessionEnded, SessionStopped

MessageCallback = Callable[[str, str, str], None]
"""Called with (session id, speaker, text) for every message of every session."""


class PortfolioRecord:
    """The portfolio's row and audit chain in the store: members, comparisons, recommendations and
    decisions, written through `SessionStore.save_step` like a session's steps."""

    def __init__(
        self,
        store: SessionStore,
        portfolio_id: str,
        row: Mapping[str, Any],
        events: Sequence[Event],
        clock: Clock,
    ) -> None:
        snapshot = row["snapshot"]
        self.store = store
        self.portfolio_id = portfolio_id
        self.config = DomainConfig.model_validate(snapshot["config"])
        self.config_source = str(row["config"])
        self.seed = int(row["seed"] or 0)
        started = [e.payload for e in events if e.kind == "portfolio_started"]
        audited = [p.members for p in started if isinstance(p, PortfolioStarted)]  # (when stored)
        listed = audited[0] if audited else snapshot["members"]
        self.members = tuple(Member.from_json(m) for m in listed)
        self.parallel = bool(snapshot.get("parallel", False))
        self.state = State(str(row["state"])) if row["state"] in {s.value for s in State} else State.START
        self.version = int(row["version"])
        self.trajectory = Trajectory(events)
        self.flushed = len(events)
        self.clock = clock

    @classmethod
    def load(cls, store: SessionStore, portfolio_id: str, clock: Clock) -> PortfolioRecord:
        """The stored portfolio.

        Raises:
            ScenarioError: if portfolio_id is no portfolio (or no session at all).
            AuditError: if its record fails verification.
        """
        row = store.load_session(portfolio_id)
        if not is_portfolio(row):
            raise ScenarioError(f"{portfolio_id!r} is a session, not a portfolio", field="session")
        return cls(store, portfolio_id, row, store.load_events(portfolio_id), clock)

    @classmethod
    def create(
        cls,
        store: SessionStore,
        config: DomainConfig,
        members: Sequence[Member],
        *,
        config_source: str,
        seed: int,
        parallel: bool,
        clock: Clock,
    ) -> PortfolioRecord:
        """A new portfolio of members, stored with its first entries."""
        portfolio_id = store.reserve_session_id(
            f"{config.name}-portfolio-s{seed}", config=config_source, now=clock.now()
        )
        row = {
            "config": config_source,
            "seed": seed,
            "state": State.START.value,
            "version": 0,
            "snapshot": _snapshot(config, members, parallel),
        }
        record = cls(store, portfolio_id, row, [], clock)
        record.record(
            "portfolio_started",
            {"config": config.name, "members": [m.to_json() for m in members], "parallel": parallel},
            f"{len(members)} sessions for one principal",
        )
        record.transition(State.NEGOTIATE, "the sessions are in play")
        record.save()
        return record

    def record(self, kind: str, data: Mapping[str, Any], rationale: str, *, party: str = DELEGATE) -> None:
        """Append one event (with its rationale) to the portfolio's trajectory."""
        self.trajectory.append(
            kind, party=party, data={**data, "rationale": rationale}, time=self.clock.now()
        )

    def transition(self, target: State, rationale: str) -> None:
        """Record a change of the portfolio's state (the audit checks the stored state against it)."""
        self.record("state_transition", {"from": self.state.value, "to": target.value}, rationale)
        self.state = target

    def save(self, *, decision: Decision | None = None, request: EscalationRequest | None = None) -> None:
        """Commit the new events, the state and the snapshot in one transaction (sealed once ended)."""
        self.version = self.store.save_step(
            self.portfolio_id,
            config=self.config_source,
            persona=PORTFOLIO_KIND,
            seed=self.seed,
            state=self.state.value,
            snapshot=_snapshot(self.config, self.members, self.parallel),
            events=list(self.trajectory)[self.flushed :],
            now=self.clock.now(),
            seal=self.state in TERMINAL,
            expected_version=self.version,
            decision=decision,
            request=request,
        )
        self.flushed = len(self.trajectory)

    def save_if_changed(self) -> None:
        """`save`, when there are events to store."""
        if len(self.trajectory) > self.flushed:
            self.save()

    def compare(self) -> tuple[Candidate, ...]:
        """The members' comparison rows, each noting why it stopped if it did."""
        records = [e.payload for e in self.trajectory.of_kind("session_stopped")]
        stopped = {r.session_id: r.error for r in records if isinstance(r, SessionStopped)}
        return compare(self.store, self.config, self.members, stopped)

    def latest_request(self) -> EscalationRequest | None:
        """The last recommendation put to the principal, if any."""
        asked = [e.payload for e in self.trajectory.of_kind("escalation")]
        requests = [r for r in asked if isinstance(r, Escalation)]
        return EscalationRequest.from_json(requests[-1].request_json()) if requests else None


def _snapshot(config: DomainConfig, members: Sequence[Member], parallel: bool) -> dict[str, Any]:
    return {
        "kind": PORTFOLIO_KIND,
        "config": config.model_dump(mode="json"),
        "members": [m.to_json() for m in members],
        "parallel": parallel,
    }


@dataclass(frozen=True, slots=True)
class PortfolioOutcome:
    """Where a portfolio stands after a run, a resume or a decision.

    Attributes:
        portfolio_id: The portfolio's id (a record in the store like a session's).
        state: NEGOTIATE (sessions in play or waiting for decisions, nothing to recommend), ESCALATE
            (a recommendation waits for the principal), AGREE (an offer approved through it) or
            NO_DEAL (every offer declined, or every session ended without one).
        candidates: The comparison, one row per session, in the order of the run.
        ranking: Session ids of the held offers, best first (at the time of the last recommendation).
        pending: The recommendation waiting for the principal, if any.
        decision: The principal's answer to the last recommendation, if any.
        chosen: The session whose offer was approved through the portfolio, if any.
        version: The portfolio record's stored version.
        replayed: Whether the call repeated a decision already applied (nothing changed).
    """

    portfolio_id: str
    state: State
    candidates: tuple[Candidate, ...]
    ranking: tuple[str, ...] = ()
    pending: EscalationRequest | None = None
    decision: Decision | None = None
    chosen: str | None = None
    version: int = 0
    replayed: bool = False

    @property
    def terms(self) -> dict[str, Any]:
        """The approved offer's terms (empty unless one was approved)."""
        row = next((c for c in self.candidates if c.member.session_id == self.chosen), None)
        return dict(row.terms) if row is not None else {}

    @property
    def standing(self) -> SessionOutcome:
        """The portfolio as a `SessionOutcome` (turns: all sessions' together), for callers of
        `decide` and `resume_session`."""
        turns = sum(c.turns for c in self.candidates)
        return SessionOutcome(
            self.portfolio_id, self.state, self.pending, turns, self.terms, self.version, self.replayed
        )

    def to_json(self) -> dict[str, Any]:
        """A JSON-ready dict (the comparison, the recommendation and the decision)."""
        return {
            "portfolio": self.portfolio_id,
            "state": self.state.value,
            "candidates": [c.to_json() for c in self.candidates],
            "ranking": list(self.ranking),
            "recommended": self.ranking[0] if self.ranking else None,
            "pending": self.pending.to_json() if self.pending is not None else None,
            "decision": self.decision.to_json() if self.decision is not None else None,
            "chosen": self.chosen,
            "terms": self.terms,
            "version": self.version,
        }


def outcome_of(
    record: PortfolioRecord,
    candidates: Sequence[Candidate] | None = None,
    *,
    decision: Decision | None = None,
    chosen: str | None = None,
) -> PortfolioOutcome:
    """Where the portfolio of record stands (its comparison read afresh unless candidates is given;
    the decision and the approved session read from its record unless given)."""
    rows = tuple(candidates) if candidates is not None else record.compare()
    latest = record.latest_request()
    pending = record.store.open_request(record.portfolio_id)
    if latest is not None and decision is None:
        decision = record.store.decision(latest.request_id)
    if chosen is None and record.state == State.AGREE:
        ended = [e.payload for e in record.trajectory.of_kind("session_ended")]
        endings = [p for p in ended if isinstance(p, SessionEnded)]
        chosen = endings[-1].chosen if endings else None
    ranking = tuple(latest.ledger.get("ranking", [])) if latest is not None else ()
    return PortfolioOutcome(
        record.portfolio_id, record.state, rows, ranking, pending, decision, chosen, record.version
    )


def labelled(on_message: MessageCallback | None, session_id: str) -> Callable[[str, str], None] | None:
    """A session's (speaker, text) callback that names the session (None without a callback)."""
    if on_message is None:
        return None
    return lambda speaker, text: on_message(session_id, speaker, text)


def two_part(on_message: Callable[[str, str], None] | None) -> MessageCallback | None:
    """A (session, speaker, text) callback over a (speaker, text) one: "delegate (SESSION)"."""
    if on_message is None:
        return None
    return lambda session_id, speaker, text: on_message(f"{speaker} ({session_id})", text)
