"""The comparison of a portfolio's sessions: one row per session, read back from its verified record
(state, turns, TCI, terms, the moderator's flags), and the principal's score of the terms by the
preference weights of its strategy (`parley.governance.strategy`)."""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from parley.errors import ScenarioError
from parley.governance.config import DomainConfig
from parley.governance.delegate.position import describe_term, session_readings
from parley.governance.escalation import Trigger
from parley.governance.machine import ACTIVE, TERMINAL, State
from parley.governance.moderator import Label
from parley.governance.session import load_runner
from parley.governance.store import SessionStore
from parley.governance.strategy import principal_space, term_scales
from parley.governance.terms import latest_terms
from parley.protocol.events import Event
from parley.protocol.governed import ModeratorLabel

FLAGGED = frozenset(
    {
        Label.PRESSURE,
        Label.SOCIAL_ENGINEERING,
        Label.PROMPT_INJECTION,
        Label.NEGATIVE_SENTIMENT,
        Label.OFF_TOPIC,
    }
)
"""Moderator labels shown as flags in the comparison."""


@dataclass(frozen=True, slots=True)
class Member:
    """One counterparty's session in a portfolio.

    Attributes:
        session_id: The session.
        counterparty: The counterparty's name (the simulated persona).
        seed: The session's seed.
    """

    session_id: str
    counterparty: str
    seed: int

    def to_json(self) -> dict[str, Any]:
        """A JSON-ready dict."""
        return {"session_id": self.session_id, "counterparty": self.counterparty, "seed": self.seed}

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> Member:
        """Inverse of to_json."""
        return cls(str(data["session_id"]), str(data["counterparty"]), int(data["seed"]))


@dataclass(frozen=True, slots=True)
class Candidate:
    """One session's row of the comparison, read back from its verified record.

    Attributes:
        member: Which session.
        state: The session's state (paused sessions: ESCALATE, with waiting_on).
        waiting_on: The trigger of the request it waits on, if paused.
        request_id: That request's id.
        turns: Counterparty turns played.
        tci: Task completeness index (share of required fields known).
        tci_weighted: Weighted TCI.
        terms: The terms summarised for approval: held, agreed or declined (empty before a summary).
        asked: The counterparty's latest stated value of the negotiated term (empty if none).
        offered: The delegate's proposal on the table (a [low, high] pair for a range; empty if none).
        flags: Moderator labels from `FLAGGED` with their counts.
        score: The principal's utility of terms in [0, 1] (None without terms).
        ledger: The held request's TCI ledger (what the principal knows about this counterparty).
        note: Why the row is incomplete: a stopped session or a refused record ("" otherwise).
    """

    member: Member
    state: str
    waiting_on: str | None = None
    request_id: str | None = None
    turns: int = 0
    tci: float = 0.0
    tci_weighted: float = 0.0
    terms: Mapping[str, Any] = field(default_factory=lambda: {})
    asked: Mapping[str, Any] = field(default_factory=lambda: {})
    offered: Mapping[str, Any] = field(default_factory=lambda: {})
    flags: Mapping[str, int] = field(default_factory=lambda: {})
    score: float | None = None
    ledger: Mapping[str, Any] = field(default_factory=lambda: {})
    note: str = ""

    @property
    def held(self) -> bool:
        """Whether its offer waits for the principal's final approval (it can be recommended)."""
        return self.waiting_on == Trigger.FINAL_APPROVAL.value and bool(self.terms)

    @property
    def ended(self) -> bool:
        """Whether the session has ended."""
        return self.state in {s.value for s in TERMINAL}

    @property
    def state_text(self) -> str:
        """The state, or the request a paused session awaits ("awaits final_approval")."""
        return f"awaits {self.waiting_on}" if self.waiting_on else self.state

    def flags_text(self) -> str:
        """ "social_engineering×3, pressure" (empty without flags)."""
        return ", ".join(f"{label}×{n}" if n > 1 else label for label, n in self.flags.items())

    def to_json(self) -> dict[str, Any]:
        """A JSON-ready dict."""
        return {
            **self.member.to_json(),
            "state": self.state,
            "waiting_on": self.waiting_on,
            "request_id": self.request_id,
            "turns": self.turns,
            "tci": self.tci,
            "tci_weighted": self.tci_weighted,
            "terms": dict(self.terms),
            "asked": dict(self.asked),
            "offered": dict(self.offered),
            "flags": dict(self.flags),
            "score": self.score,
            "note": self.note,
        }


def offer_utility(config: DomainConfig, terms: Mapping[str, Any]) -> float | None:
    """The principal's utility in [0, 1] of a package of terms, by the preference weights of the
    principal's strategy (`parley.governance.strategy`) over the terms the package names, each valued
    against its configured band (1 at the principal's best end, 0 at the other, clipped beyond it).

    Returns:
        The utility, or None when the package names no negotiated term.
    """
    negotiated = {config.negotiation.term, *config.negotiation.term_when.values()}
    money = next((name for name in terms if name in negotiated), None)
    if money is None:
        return None
    scales = term_scales(config, money, {})
    chosen = [scales[name] for name in terms if name in scales]
    _, utility = principal_space(chosen, {scale.name: (terms[scale.name],) for scale in chosen})
    return round(float(utility.evaluate_space()[0]), 6)


def rank(candidates: Sequence[Candidate]) -> list[Candidate]:
    """The held offers, best first: by the principal's utility, then the TCI (more known about the
    counterparty), then fewer turns, then the order of the run."""
    held = [(index, c) for index, c in enumerate(candidates) if c.held]
    held.sort(key=lambda pair: (-(pair[1].score or 0.0), -pair[1].tci_weighted, pair[1].turns, pair[0]))
    return [c for _, c in held]


def compare(
    store: SessionStore,
    config: DomainConfig,
    members: Sequence[Member],
    stopped: Mapping[str, str] | None = None,
) -> tuple[Candidate, ...]:
    """The comparison rows of members, each read from its session's verified record.

    Args:
        store: Persistence.
        config: Domain config (the principal's preferences).
        members: The sessions.
        stopped: Why a session stopped mid-play, by session id (noted while it is still active).
    """
    return tuple(
        _candidate(store, config, member, (stopped or {}).get(member.session_id)) for member in members
    )


def _candidate(store: SessionStore, config: DomainConfig, member: Member, stopped: str | None) -> Candidate:
    try:
        runner = load_runner(store, member.session_id)
    except ScenarioError as error:  # a refused (tampered) record, or a session that never started
        return Candidate(member, "unreadable", note=str(error))
    delegate = runner.delegate
    note = f"stopped: {stopped}" if stopped is not None and delegate.state in ACTIVE else ""
    pending = delegate.pending if delegate.state == State.ESCALATE else None
    events = list(delegate.trajectory)
    terms = dict(delegate.terms)  # summarised to the counterparty: held, agreed or declined
    term = delegate.term_name()
    asked = latest_terms(session_readings(events)).get(term)
    return Candidate(
        member,
        delegate.state.value,
        pending.trigger.value if pending is not None else None,
        pending.request_id if pending is not None else None,
        delegate.turn,
        round(delegate.tci.value, 6),
        round(delegate.tci.weighted, 6),
        terms,
        {term: asked.value} if asked is not None else {},
        _on_the_table(delegate.memory.proposal),
        _flags(events),
        offer_utility(config, terms) if terms else None,
        dict(pending.ledger) if pending is not None else {},
        note,
    )


def _on_the_table(proposal: Mapping[str, Any] | None) -> dict[str, Any]:
    """The delegate's last proposal as {term: amount} ({term: [low, high]} for a range)."""
    if not proposal:
        return {}
    low, high = proposal.get("low"), proposal.get("high")
    return {str(proposal["term"]): low if low == high or high is None else [low, high]}


def _flags(events: Sequence[Event]) -> dict[str, int]:
    found = [e.payload for e in events if e.kind == "moderator_label"]
    labels = Counter(p.label for p in found if isinstance(p, ModeratorLabel) and p.label in FLAGGED)
    return dict(labels.most_common())


def describe_terms(config: DomainConfig, terms: Mapping[str, Any]) -> str:
    """Terms as a person reads them ("annual salary $85K; signing bonus $3K"; a [low, high] pair as a
    range); "" for none."""
    return "; ".join(
        describe_term(config, name, value[0], value[1])
        if isinstance(value, list)
        else describe_term(config, name, value)
        for name, value in terms.items()
    )


def position_text(config: DomainConfig, candidate: Candidate) -> str:
    """A session's terms, or where it stood ("asked annual salary $115K; offered annual salary $100K");
    "" before any figure."""
    if candidate.terms:
        return describe_terms(config, candidate.terms)
    parts = [f"asked {describe_terms(config, candidate.asked)}"] if candidate.asked else []
    parts += [f"offered {describe_terms(config, candidate.offered)}"] if candidate.offered else []
    return "; ".join(parts)


def summarize(config: DomainConfig, candidate: Candidate) -> str:
    """One line per session for the recommendation: state, terms or position, score, TCI, flags."""
    where = position_text(config, candidate) or "no figures yet"
    score = f", score {candidate.score:.2f}" if candidate.score is not None else ""
    flags = f"; flags: {candidate.flags_text()}" if candidate.flags else ""
    note = f"; {candidate.note}" if candidate.note else ""
    return (
        f"{candidate.member.counterparty}: {candidate.state_text}; {where}{score}; "
        f"TCI {candidate.tci_weighted:.2f}{flags}{note}"
    )
