"""Principal memory (GAIA §3.3.6): what each principal decided in earlier sessions of a domain — the
amounts approved per term, the options turned down, the guidance given — kept with a decay and put
to later escalations as a suggestion. Memory never decides: every request still waits for a person.

`SessionStore.save_step` writes one entry per decision, in the transaction that stores the decision
(a killed process leaves both or neither), and audits it on a chain of its own (`memory_log_id`);
forgetting is audited on that chain too. Readers refuse entries their audit record does not back.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any, Protocol

from parley.errors import ScenarioError
from parley.governance.audit import AuditError, MalformedEntry, parse_json
from parley.governance.config import DomainConfig, MemorySettings
from parley.governance.drafting import format_amount
from parley.governance.escalation import Decision, EscalationOption, EscalationRequest, Trigger
from parley.governance.safe_text import printable
from parley.governance.values import find_money
from parley.protocol.artefact import Agreement
from parley.protocol.events import Event
from parley.protocol.governed import AuthorizationChange, MemoryForgotten, MemoryRecorded
from parley.protocol.payloads import DelegateAgreement

if TYPE_CHECKING:
    from parley.governance.store import SessionStore

logger = logging.getLogger(__name__)

MEMORY_LOG = "principal-memory"
"""Audit-chain id of the memory log (suffixed with the key id when the audit is keyed)."""

RECORDED, FORGOTTEN = "memory_recorded", "memory_forgotten"
"""Kinds of the memory log's entries."""

_DAY = 86_400.0
_GUIDANCE_SHOWN = 160
_COUNTERS = ("counter_at_limit", "counter_at_guidance")


def memory_log_id(key_id: str | None) -> str:
    """The memory log's chain id for an audit key (a new key starts a new chain, so a chain is never
    extended with another key than the one it was started with)."""
    return MEMORY_LOG if key_id is None else f"{MEMORY_LOG}@{key_id}"


@dataclass(frozen=True, slots=True)
class MemoryEntry:
    """One remembered decision.

    Attributes:
        principal: Who decided (the decision's decided_by).
        domain: The domain config's name.
        session_id: The session decided in.
        request_id: The request answered (one entry per request).
        trigger: Why the delegate had escalated.
        option: The chosen option's key (None for guidance alone).
        effect: What the choice did ("raise_limit", "decline", ...).
        rejected: Effects of the options offered and not chosen.
        approved: Term → the amount the principal approved (a limit, a counter, agreed terms).
        guidance: The guidance text given with the decision.
        decided_at: Clock time of the decision (seconds).
    """

    principal: str
    domain: str
    session_id: str
    request_id: str
    trigger: str
    option: str | None
    effect: str
    rejected: tuple[str, ...]
    approved: Mapping[str, float]
    guidance: str
    decided_at: float

    def to_json(self) -> dict[str, Any]:
        """A JSON-ready dict."""
        return {
            "principal": self.principal,
            "domain": self.domain,
            "session_id": self.session_id,
            "request_id": self.request_id,
            "trigger": self.trigger,
            "option": self.option,
            "effect": self.effect,
            "rejected": list(self.rejected),
            "approved": dict(self.approved),
            "guidance": self.guidance,
            "decided_at": self.decided_at,
        }

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> MemoryEntry:
        """Inverse of to_json."""
        return cls(
            str(data["principal"]),
            str(data["domain"]),
            str(data["session_id"]),
            str(data["request_id"]),
            str(data["trigger"]),
            None if data["option"] is None else str(data["option"]),
            str(data["effect"]),
            tuple(str(e) for e in data["rejected"]),
            {str(k): float(v) for k, v in dict(data["approved"]).items()},
            str(data["guidance"]),
            float(data["decided_at"]),
        )


def entry_from_decision(
    decision: Decision, request: EscalationRequest, events: Sequence[Event], domain: str
) -> MemoryEntry:
    """What a decision teaches about its principal, read from the request it answered and the events
    of the step it produced (the limits it widened, the terms it agreed)."""
    chosen = _chosen(request, decision.option)
    if chosen is not None:
        effect = chosen.effect
    elif request.trigger == Trigger.BOUNDARY and find_money(decision.guidance):
        effect = "counter_at_guidance"  # (as the delegate reads guidance with an amount)
    else:
        effect = "guidance"
    rejected = tuple(o.effect for o in request.options if chosen is not None and o.key != chosen.key)
    return MemoryEntry(
        decision.decided_by,
        domain,
        request.session_id,
        request.request_id,
        request.trigger.value,
        chosen.key if chosen is not None else None,
        effect,
        rejected,
        _approved(request, effect, decision.guidance, events),
        decision.guidance,
        decision.decided_at,
    )


def _chosen(request: EscalationRequest, key: str | None) -> EscalationOption | None:
    if key is None:
        return None
    try:
        return request.option(key)
    except ScenarioError:
        return None


def _number(value: object) -> float | None:
    return float(value) if isinstance(value, int | float) and not isinstance(value, bool) else None


def _approved(
    request: EscalationRequest, effect: str, guidance: str, events: Sequence[Event]
) -> dict[str, float]:
    approved: dict[str, float] = {}
    for event in events:
        if event.kind == "authorization_change" and isinstance(change := event.payload, AuthorizationChange):
            approved[change.term] = change.maximum
        if event.kind == "agreement" and isinstance(agreed := event.payload, Agreement | DelegateAgreement):
            for name, value in agreed.terms.items():
                if (amount := _number(value)) is not None:
                    approved.setdefault(str(name), amount)
    term = request.boundary_at_risk.get("term")
    if isinstance(term, str) and term not in approved:
        if effect == "counter_at_limit" and (limit := _number(request.boundary_at_risk.get("maximum"))):
            approved[term] = limit
        elif effect == "counter_at_guidance" and (found := find_money(guidance)):
            approved[term] = found[0].high
    return approved


# -- decay ---------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Remembered:
    """An entry with its weight now.

    Attributes:
        entry: The entry.
        weight: 1 when fresh, halving with each half-life (days and/or later sessions).
        stale: Whether the weight fell below the domain's `stale_below` (never suggested).
    """

    entry: MemoryEntry
    weight: float
    stale: bool

    def to_json(self) -> dict[str, Any]:
        """A JSON-ready dict."""
        return {**self.entry.to_json(), "weight": round(self.weight, 6), "stale": self.stale}


def weigh(entries: Sequence[MemoryEntry], settings: MemorySettings, now: float) -> list[Remembered]:
    """Weigh entries (newest first) by their age in days and the sessions their principal decided in
    since, in the same domain.

    Args:
        entries: Memory entries.
        settings: Half-lives and the stale threshold.
        now: Clock time (seconds); entries from the future count as new.
    """
    newer: dict[tuple[str, str], set[str]] = {}
    weighed: list[Remembered] = []
    for entry in sorted(entries, key=lambda e: (-e.decided_at, e.request_id)):
        sessions = newer.setdefault((entry.principal, entry.domain), set())
        weight = 1.0
        if settings.half_life_days is not None:
            weight *= 0.5 ** (max(0.0, now - entry.decided_at) / _DAY / settings.half_life_days)
        if settings.half_life_sessions is not None:
            later = len(sessions) - (entry.session_id in sessions)
            weight *= 0.5 ** (later / settings.half_life_sessions)
        sessions.add(entry.session_id)
        weighed.append(Remembered(entry, weight, weight < settings.stale_below))
    return weighed


# -- suggestions ---------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Suggestion:
    """What memory puts to the principal in one escalation: a sentence for the problem statement and,
    if the record points one way, an option or a guidance text. Shown, never applied.

    Attributes:
        principal: Whose decisions it rests on (None for a note that memory could not be used).
        text: The sentence added to the problem statement.
        option: The option key memory points to, if any.
        guidance: The guidance text memory points to, if any.
        based_on: Request ids of the decisions it rests on.
        weight: Mean weight of those decisions.
    """

    principal: str | None
    text: str
    option: str | None = None
    guidance: str | None = None
    based_on: tuple[str, ...] = ()
    weight: float = 0.0

    def to_json(self) -> dict[str, Any]:
        """A JSON-ready dict (the request's "suggested" field)."""
        return {
            "source": "principal_memory",
            "principal": self.principal,
            "option": self.option,
            "guidance": self.guidance,
            "based_on": list(self.based_on),
            "weight": round(self.weight, 6),
        }


def owned_by(name: str, principal: str) -> bool:
    """Whether a memory entry decided by name is principal's: its own name, or "PRINCIPAL via REQUEST"
    as decisions made through a portfolio recommendation were stored before (matched, not migrated:
    entries are on the audited memory chain; see `SessionStore.memory_rows`)."""
    return name == principal or name.startswith(f"{principal} via ")


def suggest(
    config: DomainConfig, request: EscalationRequest, remembered: Sequence[Remembered], principal: str
) -> Suggestion | None:
    """The suggestion principal's fresh decisions make for request (None when they say nothing).

    Args:
        config: The domain (term labels and units).
        request: The escalation being raised.
        remembered: Weighed entries of this domain from earlier sessions, newest first.
        principal: Whose decisions to use.
    """
    window = config.memory.window
    fresh = [r for r in remembered if not r.stale and owned_by(r.entry.principal, principal)]
    term = request.boundary_at_risk.get("term")
    approvals = [r for r in fresh if isinstance(term, str) and term in r.entry.approved][:window]
    same = [r for r in fresh if r.entry.trigger == request.trigger.value][:window]
    advised = next((r for r in same if r.entry.guidance.strip()), None)
    parts = [
        *(_approval_part(config, str(term), approvals) if approvals else []),
        *(_choice_part(request, same) if same else []),
        *([f'last guidance: "{_quote(advised.entry.guidance)}"'] if advised else []),
    ]
    if not parts:
        return None
    option, guidance, why = _pointer(config, request, approvals, same)
    used = list({id(r): r for r in (*approvals, *same)}.values())
    text = f"From {_name(principal)}'s decisions in earlier sessions: {'; '.join(parts)}. {why}"
    return Suggestion(
        principal,
        f"{text} Nothing is applied until you decide.",
        option,
        guidance,
        tuple(r.entry.request_id for r in used),
        sum(r.weight for r in used) / len(used),
    )


def _name(principal: str) -> str:
    return _quote(principal, 60)


def _quote(text: str, limit: int = _GUIDANCE_SHOWN) -> str:
    clean = " ".join(printable(text).split())
    return clean if len(clean) <= limit else f"{clean[: limit - 1]}…"


def _times(count: int) -> str:
    return "the last time" if count == 1 else f"the last {count} times"


def _approval_part(config: DomainConfig, term_name: str, approvals: Sequence[Remembered]) -> list[str]:
    term = config.boundary.term(term_name)
    amounts = [r.entry.approved[term_name] for r in approvals]
    top = format_amount(max(amounts), term.unit)
    said = f"approved up to {top} for the {term.label} {_times(len(amounts))}"
    if len(set(amounts)) > 1:
        said += f" ({', '.join(format_amount(a, term.unit) for a in amounts)}, newest first)"
    return [said]


def _choice_part(request: EscalationRequest, same: Sequence[Remembered]) -> list[str]:
    counts: dict[str, int] = {}
    for remembered in same:
        counts[remembered.entry.effect] = counts.get(remembered.entry.effect, 0) + 1
    effect, times = max(counts.items(), key=lambda item: item[1])
    kind = request.trigger.value.replace("_", " ")
    parts = [f"chose '{_words(effect)}' in {times} of the last {len(same)} {kind} escalations"]
    refused = [e for e in dict.fromkeys(same[0].entry.rejected) if all(e in r.entry.rejected for r in same)]
    if len(same) > 1 and refused:
        parts.append(f"turned down '{_words(refused[0])}' each time")
    return parts


def _words(effect: str) -> str:
    return "guidance without an option" if effect == "guidance" else effect.replace("_", " ")


def _by_effect(request: EscalationRequest, effect: str) -> EscalationOption | None:
    return next((o for o in request.options if o.effect == effect), None)


def _pointer(
    config: DomainConfig,
    request: EscalationRequest,
    approvals: Sequence[Remembered],
    same: Sequence[Remembered],
) -> tuple[str | None, str | None, str]:
    """(option, guidance, sentence) memory points to for this request."""
    boundary = request.boundary_at_risk
    ask, limit = _number(boundary.get("ask")), _number(boundary.get("maximum"))
    if approvals and ask is not None and limit is not None:
        term = config.boundary.term(str(boundary["term"]))
        top = max(r.entry.approved[term.name] for r in approvals)
        raise_option, counter = _by_effect(request, "raise_limit"), _by_effect(request, "counter_at_limit")
        if ask <= top and raise_option is not None:
            why = f"Suggested: option {raise_option.key} (the ask is within what was approved)."
            return raise_option.key, None, why
        if top > limit:
            text = f"Go to {format_amount(top, term.unit)} at most"
            return None, text, f'Suggested: guidance "{text}".'
        if counter is not None:
            return counter.key, None, f"Suggested: option {counter.key}."
    if same:
        effects = [r.entry.effect for r in same]
        effect = max(set(effects), key=effects.count)
        option = _by_effect(request, effect)
        if option is not None and effects.count(effect) * 2 > len(effects):
            return option.key, None, f"Suggested: option {option.key}."
    return None, None, "No option suggested."


# -- the store-backed memory -----------------------------------------------------------------------


class Recall(Protocol):
    """What the delegate asks when it escalates (see `PrincipalMemory.suggest`)."""

    def suggest(
        self, config: DomainConfig, request: EscalationRequest, *, principal: str | None
    ) -> Suggestion | None:
        """A suggestion for request from the principal's earlier decisions, if memory has one."""
        ...


class PrincipalMemory:
    """The memory kept in a `SessionStore`: listed, weighed, suggested from and forgotten.

    Args:
        store: The delegate's store (memory lives in its database, audited on its own chain).
    """

    def __init__(self, store: SessionStore) -> None:
        self.store = store

    def entries(self, *, principal: str | None = None, domain: str | None = None) -> list[MemoryEntry]:
        """Stored entries (oldest first), each checked against its audit entry.

        Raises:
            AuditError: if the memory's audit record fails verification or does not back an entry.
        """
        rows = self.store.memory_rows(principal=principal, domain=domain)
        backed = self._backing(principal, domain, {(chain, seq) for _, chain, seq in rows})
        entries: list[MemoryEntry] = []
        for text, chain, seq in rows:
            data = _parse(text)
            if backed.get((chain, seq)) != data:
                raise AuditError(
                    f"principal memory: the entry for {data.get('request_id')!r} differs from its audit "
                    f"entry {chain}#{seq} (memory table edited)",
                    source=self.store.path,
                )
            entries.append(_entry(data))
        return entries

    def _backing(
        self, principal: str | None, domain: str | None, stored: set[tuple[str, int]]
    ) -> dict[tuple[str, int], dict[str, Any]]:
        """(chain, seq) → entry recorded there and not forgotten since; refuses a chain that fails
        verification, and the current chain when one of its live entries has no row (stored: the
        rows' (chain, seq))."""
        current = self.store.memory_log
        backed: dict[tuple[str, int], dict[str, Any]] = {}
        for chain in sorted({chain for chain, _ in stored} | {current}):
            events = self.store.load_events(chain)  # (verified, or AuditError)
            removals = [e.payload for e in events if e.kind == FORGOTTEN]
            forgotten = {i for r in removals if isinstance(r, MemoryForgotten) for i in r.request_ids}
            for event in events:
                if event.kind != RECORDED or not isinstance(entry := event.payload, MemoryRecorded):
                    continue
                if entry.request_id not in forgotten:  # (the row must equal the whole audited record)
                    backed[(chain, event.seq)] = {k: v for k, v in event.data.items() if k != "rationale"}
        live = {
            (chain, seq)
            for (chain, seq), data in backed.items()
            if chain == current
            and principal in (None, data.get("principal"))
            and domain in (None, data.get("domain"))
        }
        missing = sorted(live - stored)
        if missing:
            raise AuditError(
                f"principal memory: audit entry {missing[0][0]}#{missing[0][1]} has no memory row "
                "(deleted outside parley; `memory forget` records what it removes)",
                source=self.store.path,
            )
        return backed

    def remembered(
        self, settings: MemorySettings, now: float, *, principal: str | None = None, domain: str | None = None
    ) -> list[Remembered]:
        """Entries weighed at now (newest first).

        Raises:
            AuditError: as `entries`.
        """
        return weigh(self.entries(principal=principal, domain=domain), settings, now)

    def suggest(
        self, config: DomainConfig, request: EscalationRequest, *, principal: str | None
    ) -> Suggestion | None:
        """A suggestion from earlier sessions of request's domain (this session's decisions excluded).

        principal is whose decisions to use (the last one to decide in this session); without one,
        the principal who decided most recently in the domain. A memory whose audit record fails
        verification gives a note saying so, not a suggestion.
        """
        if not config.memory.recall:
            return None
        try:
            weighed = self.remembered(config.memory, request.created, domain=config.name)
        except AuditError as error:
            logger.warning("principal memory refused: %s", error)
            return Suggestion(None, "Principal memory is not shown: its stored record fails verification.")
        earlier = [r for r in weighed if r.entry.session_id != request.session_id]
        fresh = [r for r in earlier if not r.stale]
        if principal is None or all(r.entry.principal != principal for r in fresh):
            principal = fresh[0].entry.principal if fresh else None
        return suggest(config, request, earlier, principal) if principal is not None else None

    def forget(self, *, principal: str | None = None, domain: str | None = None, by: str, now: float) -> int:
        """Remove entries (all of a principal, a domain, both, or everything) and audit the removal.

        Returns:
            How many entries were removed.
        """
        return len(self.store.forget_memory(principal=principal, domain=domain, by=by, now=now))


def _entry(data: Mapping[str, Any]) -> MemoryEntry:
    try:
        return MemoryEntry.from_json(data)
    except (KeyError, TypeError, ValueError) as error:  # a chain rewritten with odd entries
        raise AuditError(f"principal memory: a stored entry is malformed ({error!r})") from None


def _parse(text: str) -> dict[str, Any]:
    try:
        value = parse_json(text)
    except MalformedEntry as error:
        raise AuditError(f"principal memory: a stored entry is malformed ({error})") from None
    if not isinstance(value, dict):
        raise AuditError("principal memory: a stored entry is not a JSON object")
    return value


def with_suggestion(request: EscalationRequest, suggestion: Suggestion | None) -> EscalationRequest:
    """request with the suggestion's sentence after its problem statement and its pointer stored."""
    if suggestion is None:
        return request
    problem = f"{request.problem} {suggestion.text}".strip()
    suggested = suggestion.to_json() if suggestion.principal is not None else {}
    return replace(request, problem=problem, suggested=suggested)
